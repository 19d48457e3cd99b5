// Bring your own character, on the command line: the refusals and the counts
// (the journeys are in CliJourneyTest.cpp).
#include "TestUtil.h"

#include "examples/ExchangeCharacters.h"
#include "examples/Humanoid.h"
#include "io/AssimpImport.h"
#include "io/SkinnedExport.h"
#include "io/ProjectFile.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace sinew {
namespace {

using json = nlohmann::json;
using test::model;
using test::ProcessResult;
using test::TempDir;
namespace fs = std::filesystem;

const std::string kCli = SINEW_BIN_DIR "/sinew-cli";

// Rigging runs a fall test: minutes under the sanitizers.
ProcessResult cli(const TempDir& dir, std::vector<std::string> args, double timeout = 400) {
  args.insert(args.begin(), kCli);
  ProcessResult r = test::runProcess(args, dir.path().string(), timeout);
  EXPECT_FALSE(r.timedOut) << "sinew-cli timed out";
  EXPECT_EQ(r.signal, 0) << "sinew-cli died with signal " << r.signal << "\nstderr:\n" << r.err;
  return r;
}

TEST(CliCharacter, NotAHumanoidIsRefusedAndNothingIsWritten) {
  const TempDir dir;
  ASSERT_EQ(cli(dir, {"import", model("OBJ/box.obj"), "-o", dir.file("box.sinew")}).exitCode, 0);
  const ProcessResult r = cli(dir, {"rig", dir.file("box.sinew"), "--skeleton", "auto", "-o", dir.file("out.sinew")});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("cannot find two legs and two arms"), std::string::npos) << r.err;
  EXPECT_EQ(test::lines(r.err).size(), 1u) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("out.sinew")));
  // A project that has a skeleton already is not given another.
  const ProcessResult again =
      cli(dir, {"rig", SINEW_SOURCE_DIR "/projects/humanoid/humanoid.sinew", "--skeleton", "auto", "-o", dir.file("o.sinew")});
  EXPECT_EQ(again.exitCode, 2);
  EXPECT_NE(again.err.find("already has a skeleton"), std::string::npos) << again.err;
}

TEST(CliCharacter, InfoCountsSkinBonesAsAssimpDoes) {
  const TempDir dir;
  const ProcessResult r = cli(dir, {"info", model("FBX/animation_with_skeleton.fbx"), "--no-self-intersections"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("skinned to 13 bones"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("15 joints, 13 of them skin bones"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace sinew
