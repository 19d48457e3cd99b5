// Bring your own character, on the command line: a bare mesh (no skeleton, an
// A-pose, written as OBJ by Sinew's exporter) to a simulation in three
// commands (import, rig --skeleton auto|CLIP.bvh, simulate), and the refusals.
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

// The example's surface in an A-pose, as a bare OBJ.
std::string writeBareAPose(const TempDir& dir) {
  HumanoidOptions o;
  o.gridSpacing = 0.04;
  const BarePose pose = makeAPoseSurface(makeHumanoidProject(o), 40);
  MeshObject m;
  m.name = "Body";
  m.mesh = pose.surface;
  const std::string path = dir.file("bare.obj");
  exportMeshes({&m}, path);
  return path;
}

TEST(CliCharacter, BareMeshToSimulationWithAutomaticJoints) {
  const TempDir dir;
  const ProcessResult imported = cli(dir, {"import", writeBareAPose(dir), "-o", dir.file("bare.sinew")});
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
TEST(CliCharacter, BareMeshWithTheSkeletonOfAClip) {
  const TempDir dir;
  const ProcessResult imported = cli(dir, {"import", writeBareAPose(dir), "-o", dir.file("bare.sinew")});
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
// five meshes) through import --merge, rig, optimize on the standing start of
// 01_01's turn (8.0-8.3 s) and a replay that stays up.
TEST(CliCharacter, ProductionFbxImportsRigsAndStandsUnderAController) {
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
  const ProcessResult imported = cli(dir, {"import", dir.file("character.fbx"), "--merge", "-o", dir.file("c.sinew")});
  ASSERT_EQ(imported.exitCode, 0) << imported.err;
  const ProcessResult rig = cli(dir, {"rig", dir.file("c.sinew"), "-o", dir.file("c.sinew")});
  ASSERT_EQ(rig.exitCode, 0) << rig.err;
  EXPECT_NE(rig.out.find("19 of 51 joints carry volume"), std::string::npos) << rig.out;
  const ProcessResult opt = cli(dir, {"optimize", dir.file("c.sinew"), "--clip", model("BVH/01_01.bvh"), "--start", "8",
                                      "--end", "8.3", "--samples", "16", "--seed", "1", "--store-clip", "off", "-o",
                                      dir.file("c.sinew")});
  ASSERT_EQ(opt.exitCode, 0) << opt.err;
  const ProcessResult sim = cli(dir, {"simulate", dir.file("c.sinew"), "--controller", "01_01 8-8.3 s", "--seconds", "0.28"});
  ASSERT_EQ(sim.exitCode, 0) << sim.err;
  EXPECT_NE(sim.out.find("stayed up"), std::string::npos) << sim.out;
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
