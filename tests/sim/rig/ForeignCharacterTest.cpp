// Characters Sinew did not make, from file to simulation: import (merged into
// one body), rig (simulation skeleton, standing on the ground, cage, weights),
// the fall test that picks a stable step, then each solver for a while. On
// assimp-testmodels' BCN_Epileptic.X (54 bones, three open meshes) and FBX
// tube (two bone chains under an armature node), and on the example humanoid
// exported as a production character (64 joints, three meshes and two eyes,
// Z-up, centimetres).
#include "TestUtil.h"

#include "examples/ExchangeCharacters.h"
#include "examples/Humanoid.h"
#include "io/AssimpImport.h"
#include "io/SkinnedExport.h"
#include "li2019/Li2019Simulation.h"
#include "liu2013/Liu2013.h"
#include "rig/RigBuild.h"
#include "sheth2015/Sheth2015Simulation.h"

namespace sinew {
namespace {

using test::model;

Project importCharacter(const std::string& path) {
  ImportOptions o;
  o.grouping = MeshGrouping::All;
  o.checkSelfIntersections = false;
  Project p;
  p.name = "character";
  Diagnostics d;
  addToProject(p, importFile(path, o), d);
  return p;
}

// Runs `seconds` of Liu 2013 at the project's step; false (with the message) if it became unstable.
::testing::AssertionResult liuRuns(const Project& p, double seconds) {
  liu2013::Settings settings;
  liu2013::applyScene(p.simulation, settings);
  settings.threads = 1;
  liu2013::Liu2013Solver solver(liu2013::buildLiu2013Model(p, liu2013::modelOptionsFor(p.simulation)), settings);
  try {
    while (solver.time() < seconds) solver.step();
  } catch (const SimulationError& e) {
    return ::testing::AssertionFailure() << e.what();
  }
  // Up from the ground it fell onto, and not through it.
  double lowest = std::numeric_limits<double>::infinity();
  for (const Vec3& x : solver.surfacePositions()) lowest = std::min(lowest, x.y());
  if (lowest < -0.05) return ::testing::AssertionFailure() << "sank to y = " << lowest;
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult shethRuns(const Project& p, double seconds) {
  try {
    sheth2015::Sheth2015Simulation sim(p, sheth2015::optionsFor(p));
    while (sim.time() < seconds) sim.step();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << e.what();
  }
  return ::testing::AssertionSuccess();
}

struct Rigged {
  Project project;
  RigBuildResult result;
  liu2013::StepChoice step;
};

Rigged rigAndChooseStep(Project p, bool regions = false) {
  RigBuildOptions o;
  o.regions = regions;
  Rigged r;
  r.result = buildRig(p, 0, o);
  applyRigBuild(p, r.result);
  r.step = liu2013::chooseStableStep(p);
  if (r.step.dt < liu2013::Settings{}.dt) p.simulation.timeStep = r.step.dt;
  r.project = std::move(p);
  return r;
}

TEST(ForeignCharacter, EpilepticRigsStandsOnTheGroundAndSimulates) {
  const Rigged r = rigAndChooseStep(importCharacter(model("X/BCN_Epileptic.X")));
  const Project& p = r.project;
  // The file's origin is at the pelvis: the rig stood it on the ground.
  EXPECT_GT(r.result.lift, 0.9);
  EXPECT_NEAR(p.meshes[0].mesh.bounds().min.y(), 0.0, 1e-9);
  // 54 joints; the body parts simulated, the face, fingers and toes follow.
  const Skeleton& s = p.skeleton->skeleton;
  EXPECT_EQ(s.size(), 54u);
  size_t simulated = 0;
  for (const Joint& j : s.joints) simulated += j.simulated;
  EXPECT_GE(simulated, 15u);
  EXPECT_LE(simulated, 25u);
  for (const char* follows : {"B_Jaw", "B_Eye_Left", "B_Finger1_Left", "B_Toe_Right"})
    EXPECT_FALSE(s.joints[size_t(s.find(follows))].simulated) << follows;
  for (const char* carries : {"B_Hip_Left", "B_Knee_Right", "B_Spine2", "B_UpperArm_Left", "B_Hand_Right", "B_Neck"})
    EXPECT_TRUE(s.joints[size_t(s.find(carries))].simulated) << carries;
  EXPECT_TRUE(liuRuns(p, 2.0)) << "at " << p.simulation.timeStep.value_or(0.0005) * 1000 << " ms";
  EXPECT_TRUE(shethRuns(p, 2.0));
}

TEST(ForeignCharacter, TwoChainTubeRigsUnderOneRootAndSimulates) {
  const Rigged r = rigAndChooseStep(importCharacter(model("FBX/animation_with_skeleton.fbx")));
  const Skeleton& s = r.project.skeleton->skeleton;
  size_t roots = 0;
  for (const Joint& j : s.joints) roots += j.parent < 0;
  EXPECT_EQ(roots, 1u);
  EXPECT_GE(r.project.skeleton->skeleton.bones().size(), 12u);  // every bone of the two chains holds its nodes
  EXPECT_TRUE(liuRuns(r.project, 0.5)) << "at " << r.step.dt * 1000 << " ms";  // a 2 cm thick tube: 0.0625 ms steps
}

// The example exported as another tool would (Z-up root, centimetres, a
// production armature, five meshes) comes back through the same route with
// the conforming mesh of Li 2019 too.
TEST(ForeignCharacter, ProductionExportOfTheExampleRigsAndRunsEverySolver) {
  HumanoidOptions ho;
  ho.gridSpacing = 0.04;
  const Project humanoid = makeHumanoidProject(ho);
  const ExchangeCharacter c = makeExchangeCharacter(humanoid);
  test::TempDir dir;
  SkinnedExportOptions eo;
  eo.zUp = true;
  eo.unitsPerMetre = 100;
  exportSkinnedCharacter(c.skeleton, c.parts, dir.file("character.glb"), eo);
  const Rigged r = rigAndChooseStep(importCharacter(dir.file("character.glb")), /*regions=*/true);
  const Project& p = r.project;
  size_t simulated = 0;
  for (const Joint& j : p.skeleton->skeleton.joints) simulated += j.simulated;
  EXPECT_EQ(simulated, 19u);
  EXPECT_TRUE(liuRuns(p, 2.0));
  EXPECT_TRUE(shethRuns(p, 2.0));
  li2019::Settings li;
  li.threads = 1;
  try {
    li2019::Li2019Simulation sim(p, li2019::modelOptionsFor(p.simulation), li);
    while (sim.time() < 1.0) sim.step();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "li2019: " << e.what();
  }
}

}  // namespace
}  // namespace sinew
