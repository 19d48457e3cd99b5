// Bring your own character, on the command line, end to end: a bare mesh (no
// skeleton, an A-pose, written as OBJ by Sinew's exporter) to a simulation in
// three commands (import, rig --skeleton auto|CLIP.bvh, simulate), and a
// production FBX to a controller. Long runs: label "physics" (Release only).
#include "CharacterFiles.h"
#include "CliRun.h"
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

using test::kCli;

// Rigging runs a fall test: minutes under the sanitizers.
ProcessResult cli(const TempDir& dir, std::vector<std::string> args, double timeout = 400) { return test::runCli(dir, std::move(args), timeout); }


TEST(CliJourney, BareMeshToSimulationWithAutomaticJoints) {
  const TempDir dir;
  const ProcessResult imported = cli(dir, {"import", test::writeBareAPose(dir.file("bare.obj"), 0.04), "-o", dir.file("bare.sinew")});
  ASSERT_EQ(imported.exitCode, 0) << imported.err;
  const ProcessResult rig = cli(dir, {"rig", dir.file("bare.sinew"), "--skeleton", "auto", "-o", dir.file("rigged.sinew"), "--json"});
  ASSERT_EQ(rig.exitCode, 0) << rig.err;
  const std::string text = rig.out.substr(rig.out.find('{'));
  const json j = json::parse(text);
  EXPECT_TRUE(j["cage"].is_object());
  EXPECT_TRUE(j["timeStep"].is_number());
  const Project p = loadProject(dir.file("rigged.sinew"));
  ASSERT_TRUE(p.skeleton);
  EXPECT_EQ(p.skeleton->skeleton.size(), 19u);
  EXPECT_GE(p.skeleton->skeleton.find("LeftForeArm"), 0);
  const ProcessResult sim = cli(dir, {"simulate", dir.file("rigged.sinew"), "--seconds", "0.5", "--stats-json", dir.file("stats.json")});
  EXPECT_EQ(sim.exitCode, 0) << sim.err;
}

// A CMU clip's skeleton (31 joints) fitted joint by joint, then a clip that
// retargets to it by name.
TEST(CliJourney, BareMeshWithTheSkeletonOfAClip) {
  const TempDir dir;
  const ProcessResult imported = cli(dir, {"import", test::writeBareAPose(dir.file("bare.obj"), 0.04), "-o", dir.file("bare.sinew")});
  ASSERT_EQ(imported.exitCode, 0) << imported.err;
  const ProcessResult rig = cli(dir, {"rig", dir.file("bare.sinew"), "--skeleton", model("BVH/01_01.bvh"), "-o", dir.file("rigged.sinew"),
                                      "--no-stability-check"});
  ASSERT_EQ(rig.exitCode, 0) << rig.err;
  const Project p = loadProject(dir.file("rigged.sinew"));
  ASSERT_TRUE(p.skeleton);
  EXPECT_EQ(p.skeleton->skeleton.size(), 31u);
  EXPECT_GE(p.skeleton->skeleton.find("LHipJoint"), 0);
  EXPECT_FALSE(p.volumes.empty());
}

// The example exported as a production FBX (Z-up, centimetres, 64 joints,
// five meshes) through import (the three body parts join; the eyes follow),
// rig (with Li 2019's conforming mesh), optimize on the standing start of
// 01_01's turn (8.0-8.3 s) and a replay that stays up; then the other three
// solvers, VIPER on a muscle added between two of the file's bones.
TEST(CliJourney, ProductionFbxImportsRigsAndStandsUnderAController) {
  const TempDir dir;
  {
    HumanoidOptions o;
    o.gridSpacing = 0.035;
    const ExchangeCharacter c = makeExchangeCharacter(makeHumanoidProject(o));
    SkinnedExportOptions e;
    e.zUp = true;
    e.unitsPerMetre = 100;
    exportSkinnedCharacter(c.skeleton, c.parts, dir.file("character.fbx"), e);
  }
  const ProcessResult imported = cli(dir, {"import", dir.file("character.fbx"), "-o", dir.file("c.sinew")});
  ASSERT_EQ(imported.exitCode, 0) << imported.err;
  EXPECT_NE(imported.err.find("joined as one mesh 'character'"), std::string::npos) << imported.err;
  EXPECT_EQ(loadProject(dir.file("c.sinew")).meshes.size(), 3u);  // the body and two eyes
  const ProcessResult rig = cli(dir, {"rig", dir.file("c.sinew"), "--regions", "-o", dir.file("c.sinew")});
  ASSERT_EQ(rig.exitCode, 0) << rig.err;
  EXPECT_NE(rig.out.find("19 of 51 joints carry volume"), std::string::npos) << rig.out;
  const ProcessResult opt = cli(dir, {"optimize", dir.file("c.sinew"), "--clip", model("BVH/01_01.bvh"), "--start", "8",
                                      "--end", "8.3", "--samples", "16", "--seed", "1", "--store-clip", "off", "-o",
                                      dir.file("c.sinew")});
  ASSERT_EQ(opt.exitCode, 0) << opt.err;
  const ProcessResult sim = cli(dir, {"simulate", dir.file("c.sinew"), "--controller", "01_01 8-8.3 s", "--seconds", "0.28"});
  ASSERT_EQ(sim.exitCode, 0) << sim.err;
  EXPECT_NE(sim.out.find("stayed up"), std::string::npos) << sim.out;

  for (const char* solver : {"li2019", "sheth2015"}) {
    const ProcessResult other = cli(dir, {"simulate", dir.file("c.sinew"), "--solver", solver, "--seconds", "0.5"});
    EXPECT_EQ(other.exitCode, 0) << solver << ": " << other.err;
    EXPECT_NE(other.out.find("simulated 0.5 s"), std::string::npos) << other.out;
  }
  const ProcessResult muscle = cli(dir, {"add-muscle", dir.file("c.sinew"), "--name", "biceps", "--origin", "LeftArm",
                                         "--insertion", "LeftForeArm", "--viperize"});
  ASSERT_EQ(muscle.exitCode, 0) << muscle.err;
  const ProcessResult viper = cli(dir, {"simulate", dir.file("c.sinew"), "--solver", "viper", "--seconds", "1"});
  EXPECT_EQ(viper.exitCode, 0) << viper.err;
  EXPECT_NE(viper.out.find("simulated 1 s"), std::string::npos) << viper.out;
}

}  // namespace
}  // namespace sinew
