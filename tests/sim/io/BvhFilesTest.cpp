// BVH reader on real motion-capture files (Assimp's test models).
#include "io/Bvh.h"

#include "core/Error.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

namespace sinew {
namespace {

using test::model;

TEST(BvhFiles, Cmu01_01) {
  const MotionClip c = readBvh(model("BVH/01_01.bvh"));
  EXPECT_EQ(c.name, "01_01");
  EXPECT_EQ(c.joints.size(), 31u);
  EXPECT_EQ(c.frameCount, 2752);
  EXPECT_NEAR(c.frameTime, 0.0083333, 1e-12);
  EXPECT_NEAR(c.frameRate(), 120.0, 0.01);
  EXPECT_EQ(c.channelCount(), 96);
  EXPECT_EQ(c.values.size(), size_t(2752) * 96);
  EXPECT_EQ(c.units, "cmu");
  EXPECT_NEAR(c.unitScale, 0.0254 / 0.45, 1e-15);
  EXPECT_EQ(c.joints[0].name, "Hips");
  EXPECT_EQ(c.joints[0].channels.size(), 6u);
  // In metres the figure is human-sized: 1.4 to 2.0 m tall at rest.
  const double h = restHeight(c) * c.unitScale;
  EXPECT_GT(h, 1.4);
  EXPECT_LT(h, 2.0);
  // Every joint except the root has a parent earlier in the list, and the
  // skeleton it describes is valid.
  EXPECT_NO_THROW(c.skeleton().validate("01_01"));
  EXPECT_NO_THROW(c.validate("01_01"));
  // The world points stay within a plausible room (metres) over the clip.
  for (double t : {0.0, 5.0, 11.4, c.duration()})
    for (const Vec3& p : c.worldPointsAt(t)) EXPECT_LT(p.norm(), 20.0) << "t = " << t;
}

TEST(BvhFiles, BoxingToesIsInCentimetres) {
  // This file declares 3069 frames and holds 3070 (one whole extra frame).
  const MotionClip c = readBvh(model("BVH/Boxing_Toes.bvh"));
  EXPECT_EQ(c.units, "cm");
  EXPECT_DOUBLE_EQ(c.unitScale, 0.01);
  EXPECT_EQ(c.joints.size(), 21u);
  EXPECT_EQ(c.channelCount(), 66);
  EXPECT_EQ(c.frameCount, 3069);
  EXPECT_DOUBLE_EQ(c.frameTime, 0.01);
  EXPECT_DOUBLE_EQ(c.values[0], -6.101614);
}

TEST(BvhFiles, FormatParseRoundTripIsExact) {
  for (const char* f : {"BVH/01_01.bvh", "BVH/01_03.bvh", "BVH/Boxing_Toes.bvh"}) {
    const MotionClip c = readBvh(model(f));
    const MotionClip back = parseBvh(formatBvh(c), model(f));
    EXPECT_TRUE(back == c) << f;
    EXPECT_EQ(back.values, c.values) << f;
    EXPECT_EQ(back.joints, c.joints) << f;
  }
}

TEST(BvhFiles, WriteAndReadBack) {
  const test::TempDir dir;
  const MotionClip c = readBvh(model("BVH/01_01.bvh"));
  const std::string path = dir.file("01_01.bvh");
  writeBvh(c, path);
  EXPECT_TRUE(readBvh(path) == c);
  // Explicit unit scale.
  const MotionClip scaled = readBvh(path, 0.05);
  EXPECT_EQ(scaled.units, "custom");
  EXPECT_DOUBLE_EQ(scaled.unitScale, 0.05);
  EXPECT_EQ(scaled.values, c.values);
}

TEST(BvhFiles, MissingFileIsAnInputError) {
  const test::TempDir dir;
  try {
    readBvh(dir.file("nope.bvh"));
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nope.bvh"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sinew
