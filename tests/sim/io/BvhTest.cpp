// BVH reader and writer on small hand-written files, including malformed ones.
#include "io/Bvh.h"

#include "core/Error.h"

#include <gtest/gtest.h>

#include <regex>

namespace sinew {
namespace {

const std::string kSmall = R"(HIERARCHY
ROOT Hips
{
	OFFSET 0 0 0
	CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
	JOINT Left Up Leg
	{
		OFFSET 10 -5 0
		CHANNELS 3 Zrotation Xrotation Yrotation
		End Site
		{
			OFFSET 0 -80 0
		}
	}
	JOINT Chest
	{
		OFFSET 0 10 0.5
		CHANNELS 3 Zrotation Yrotation Xrotation
		End Site
		{
			OFFSET 0 60 0
		}
	}
}
MOTION
Frames: 2
Frame Time: 0.0333333
0 90 0 0 0 0 1 2 3 4 5 6
1.5 91 -0.25 10 20 30 -1 -2 -3 -4 -5 1e-3
)";

TEST(Bvh, ParsesHierarchyAndMotion) {
  const MotionClip c = parseBvh(kSmall, "dir/small.bvh");
  EXPECT_EQ(c.name, "small");
  ASSERT_EQ(c.joints.size(), 3u);
  EXPECT_EQ(c.joints[0].name, "Hips");
  EXPECT_EQ(c.joints[1].name, "Left Up Leg");  // names may contain spaces
  EXPECT_EQ(c.joints[2].name, "Chest");
  EXPECT_EQ(c.joints[0].parent, -1);
  EXPECT_EQ(c.joints[1].parent, 0);
  EXPECT_EQ(c.joints[2].parent, 0);
  EXPECT_EQ(c.joints[1].offset, Vec3(10, -5, 0));
  EXPECT_EQ(c.joints[2].offset, Vec3(0, 10, 0.5));
  ASSERT_TRUE(c.joints[1].endSite.has_value());
  EXPECT_EQ(*c.joints[1].endSite, Vec3(0, -80, 0));
  EXPECT_EQ(c.joints[2].channels,
            (std::vector<Channel>{Channel::Zrotation, Channel::Yrotation, Channel::Xrotation}));
  EXPECT_EQ(c.joints[1].firstChannel, 6);
  EXPECT_EQ(c.joints[2].firstChannel, 9);
  EXPECT_EQ(c.channelCount(), 12);
  EXPECT_EQ(c.frameCount, 2);
  EXPECT_DOUBLE_EQ(c.frameTime, 0.0333333);
  ASSERT_EQ(c.values.size(), 24u);
  EXPECT_DOUBLE_EQ(c.values[12], 1.5);
  EXPECT_DOUBLE_EQ(c.values[14], -0.25);
  EXPECT_DOUBLE_EQ(c.values[23], 1e-3);
  // Rest height: end site of the leg at -85, chest end site at 70: 155 units -> cm.
  EXPECT_EQ(c.units, "cm");
  EXPECT_DOUBLE_EQ(c.unitScale, 0.01);
  // An explicit scale wins over detection.
  const MotionClip m = parseBvh(kSmall, "small.bvh", 0.5);
  EXPECT_EQ(m.units, "custom");
  EXPECT_DOUBLE_EQ(m.unitScale, 0.5);
}

TEST(Bvh, FormatParseRoundTripIsExact) {
  MotionClip c = parseBvh(kSmall, "small.bvh");
  // Values that need all 17 significant digits.
  c.values[5] = 0.1 + 0.2;
  c.values[7] = -1.0 / 3.0;
  c.values[8] = 6.02214076e23;
  c.joints[1].offset.x() = std::nextafter(10.0, 11.0);
  const std::string text = formatBvh(c);
  const MotionClip back = parseBvh(text, "small.bvh");
  EXPECT_TRUE(back == c) << text;
  EXPECT_EQ(formatBvh(back), text);
}

TEST(Bvh, SeveralRootsAndZeroFrames) {
  const std::string two = R"(HIERARCHY
ROOT A
{
  OFFSET 0 0 0
  CHANNELS 3 Xposition Yposition Zposition
  End Site
  {
    OFFSET 0 170 0
  }
}
ROOT B
{
  OFFSET 5 0 0
  CHANNELS 1 Yrotation
}
MOTION
Frames: 0
Frame Time: 0.01
)";
  const MotionClip c = parseBvh(two, "two.bvh");
  ASSERT_EQ(c.joints.size(), 2u);
  EXPECT_EQ(c.joints[1].parent, -1);
  EXPECT_EQ(c.frameCount, 0);
  EXPECT_TRUE(c.values.empty());
  EXPECT_EQ(c.units, "cm");
  EXPECT_TRUE(parseBvh(formatBvh(c), "two.bvh") == c);
}

// Parses `text` as "bad.bvh", expecting an InputError whose message names the
// file and matches `pattern` (a regex searched in the message).
void expectInputError(const std::string& text, const std::string& pattern) {
  try {
    parseBvh(text, "some/dir/bad.bvh");
    ADD_FAILURE() << "no error; expected /" << pattern << "/";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.file(), "some/dir/bad.bvh");
    EXPECT_EQ(msg.rfind("some/dir/bad.bvh: ", 0), 0u) << msg;
    EXPECT_TRUE(std::regex_search(msg, std::regex(pattern))) << "message: " << msg << "\nexpected /" << pattern << "/";
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "message is not one line: " << msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(BvhErrors, EmptyText) { expectInputError("", "empty"); }

TEST(BvhErrors, MissingHierarchy) {
  expectInputError(kSmall.substr(kSmall.find("ROOT")), "line 1: expected 'HIERARCHY'");
  expectInputError("   \n\n  \t", "line 3: unexpected end of file, expected HIERARCHY");
}

TEST(BvhErrors, UnknownChannel) {
  expectInputError(replaced(kSmall, "Zrotation Yrotation Xrotation", "Zrotation Wrotation Xrotation"),
                   "line 18: unknown channel 'Wrotation'");
  expectInputError(replaced(kSmall, "CHANNELS 3 Zrotation Yrotation", "CHANNELS 7 Zrotation Yrotation"),
                   "line 18: channel count must be 0..6");
}

TEST(BvhErrors, TruncatedMotionValues) {
  const std::string cut = kSmall.substr(0, kSmall.rfind(" -5 1e-3"));
  expectInputError(cut, "truncated motion data: 22 of 24 channel values");
  expectInputError(kSmall.substr(0, kSmall.find("MOTION") + 7), "line 26: unexpected end of file, expected Frames:");
  expectInputError(kSmall.substr(0, kSmall.find("Chest") + 9), "line 17: unexpected end of file, expected OFFSET");
}

TEST(BvhErrors, MoreValuesThanDeclared) {
  // A stray value after the last frame, and a frame with one value too many.
  expectInputError(kSmall + "7\n", "more motion data than the 2 frames declared \\(line 30\\)");
  expectInputError(replaced(kSmall, "-5 1e-3\n", "-5 1e-3 8\n"), "more motion data than the 2 frames declared \\(line 29\\)");
}

TEST(Bvh, WholeExtraFramesAreIgnored) {
  // Files in the wild (Assimp's Boxing_Toes.bvh) hold one complete frame more
  // than they declare; like Assimp and Blender, read the declared frames.
  const MotionClip c = parseBvh(kSmall + "9 9 9 9 9 9 9 9 9 9 9 9\n", "extra.bvh");
  EXPECT_EQ(c.frameCount, 2);
  ASSERT_EQ(c.values.size(), 24u);
  EXPECT_DOUBLE_EQ(c.values[23], 1e-3);
  EXPECT_TRUE(c == parseBvh(kSmall, "extra.bvh"));
  // But not garbage after them.
  expectInputError(kSmall + "9 9 9 9 9 9 9 9 9 9 9 x\n", "line 30: expected a channel value, found 'x'");
}

TEST(BvhErrors, FrameCountLargerThanTheFileCouldHold) {
  // Must be rejected before allocating (99999999999 x 12 doubles would be 9.6 TB).
  expectInputError(replaced(kSmall, "Frames: 2", "Frames: 99999999999"),
                   "line 26: declares 99999999999 frames of 12 channels, more than the file can contain");
  expectInputError(replaced(kSmall, "Frames: 2", "Frames: 1e300"), "line 26: declares .* frames");
  expectInputError(replaced(kSmall, "Frames: 2", "Frames: -1"), "line 26: frame count must be a non-negative integer");
  expectInputError(replaced(kSmall, "Frames: 2", "Frames: 2.5"), "line 26: frame count must be a non-negative integer");
  expectInputError(replaced(kSmall, "Frames: 2", "Frames: lots"), "line 26: expected the frame count, found 'lots'");
}

TEST(BvhErrors, FrameCountOutOfRangeWithoutChannels) {
  // No channels: any frame count "fits" in the file, but it must still be a
  // count the clip can hold.
  const std::string none = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\nMOTION\nFrames: 99999999999\nFrame Time: 0.1\n";
  expectInputError(none, "line 8: .*frame");
}

TEST(BvhErrors, NonNumericOffset) {
  expectInputError(replaced(kSmall, "OFFSET 10 -5 0", "OFFSET 10 five 0"),
                   "line 8: expected an OFFSET coordinate, found 'five'");
  expectInputError(replaced(kSmall, "OFFSET 0 -80 0", "OFFSET 0 nan 0"), "line 12: expected an End Site OFFSET coordinate");
  expectInputError(replaced(kSmall, "Frame Time: 0.0333333", "Frame Time: 0"), "line 27: frame time must lie between 1e-05 and 60 s");
  expectInputError(replaced(kSmall, "1.5 91", "1.5 9x1"), "line 29: expected a channel value, found '9x1'");
}

TEST(BvhErrors, StructureErrors) {
  expectInputError(replaced(kSmall, "JOINT Chest", "BONE Chest"), "line 15: expected JOINT, End Site or '}', found 'BONE'");
  expectInputError(replaced(kSmall, "ROOT Hips", "ROOT"), "line 2: joint without a name");
  // Deeply nested joints are refused instead of overflowing the stack.
  std::string deep = "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 0\n";
  for (int i = 0; i < 300; ++i) deep += "JOINT j" + std::to_string(i) + "\n{\nOFFSET 0 1 0\nCHANNELS 0\n";
  expectInputError(deep, "nested deeper than 256 levels");
}

}  // namespace
}  // namespace sinew
