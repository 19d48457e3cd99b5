// Characters Sinew did not make, from file to simulation: import (body parts
// joined into one body, small parts apart), rig (simulation skeleton, standing on the ground, cage, weights),
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
#include "rig/Followers.h"
#include "rig/RigBuild.h"
#include "rig/AutoJoints.h"
#include "sheth2015/Sheth2015Simulation.h"
#include "viper/ViperSimulation.h"
#include "viper/Viperize.h"
#include "CharacterFiles.h"

namespace sinew {
namespace {

using test::model;

Project importCharacter(const std::string& path) {
  ImportOptions o;
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
  // The other meshes (eyes) ride along: after a second, each vertex as near
  // the simulated surface as it was at rest, give or take 2 cm (later a fall
  // on the face squashes the flesh around the rigid eyes).
  auto distance = [](const Vec3& x, const std::vector<Vec3>& to) {
    double nearest = std::numeric_limits<double>::infinity();
    for (const Vec3& y : to) nearest = std::min(nearest, (x - y).squaredNorm());
    return std::sqrt(nearest);
  };
  const Followers followers(p, solver.surfaceMesh());
  const MeshObject* body = p.findMesh(solver.surfaceMesh());
  bool followersChecked = followers.empty();
  try {
    while (solver.time() < seconds) {
      solver.step();
      if (followersChecked || solver.time() < std::min(seconds, 1.0)) continue;
      followersChecked = true;
      const std::vector<Vec3> surface = solver.surfacePositions();
      for (const auto& [id, positions] : followers.pose(solver.jointPoses()))
        for (size_t v = 0; v < positions.size(); ++v) {
          const double rest = distance(p.findMesh(id)->mesh.positions[v], body->mesh.positions);
          const double now = distance(positions[v], surface);
          if (std::abs(now - rest) > 0.02)
            return ::testing::AssertionFailure() << p.objectName(id) << " left the body: " << now << " m from it, "
                                                 << rest << " at rest";
        }
    }
  } catch (const SimulationError& e) {
    return ::testing::AssertionFailure() << e.what();
  }
  // Up from the ground it fell onto, and not through it.
  double lowest = std::numeric_limits<double>::infinity();
  for (const Vec3& x : solver.surfacePositions()) lowest = std::min(lowest, x.y());
  if (lowest < -0.05) return ::testing::AssertionFailure() << "sank to y = " << lowest;
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult li2019Runs(const Project& p, double seconds) {
  li2019::Settings li;
  li.threads = 1;
  try {
    li2019::Li2019Simulation sim(p, li2019::modelOptionsFor(p.simulation), li);
    while (sim.time() < seconds) sim.step();
    double lowest = std::numeric_limits<double>::infinity();
    for (const Vec3& x : sim.surfacePositions()) lowest = std::min(lowest, x.y());
    if (lowest < -0.05) return ::testing::AssertionFailure() << "li2019: sank to y = " << lowest;
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "li2019: " << e.what();
  }
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

// VIPER on a muscle added between two of the character's bones (a spindle
// painted at its ends, viperized), `seconds` of its rods with the skeleton.
::testing::AssertionResult viperRuns(Project p, const std::string& origin, const std::string& insertion, double seconds) {
  try {
    viper::AddMuscleOptions m;
    m.name = "biceps";
    m.originBone = origin;
    m.insertionBone = insertion;
    viper::addMuscle(p, m);
    viper::viperizeBody(p, "biceps", {});
    viper::ViperSimulation sim(p);
    while (sim.time() < seconds) sim.step();
    for (const Transform& x : sim.jointPoses())
      if (!x.translation.allFinite()) return ::testing::AssertionFailure() << "viper: a joint left the finite numbers";
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "viper: " << e.what();
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
  if (r.step.dt < liu2013::Settings{}.dt) p.simulation.setSolverParam("liu2013", "dt", r.step.dt);
  r.project = std::move(p);
  return r;
}

TEST(ForeignCharacter, EpilepticRigsStandsOnTheGroundAndSimulates) {
  const Rigged r = rigAndChooseStep(importCharacter(model("X/BCN_Epileptic.X")), /*regions=*/true);
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
  EXPECT_TRUE(liuRuns(p, 2.0)) << "at " << p.simulation.solverParam("liu2013", "dt").value_or(0.0005) * 1000 << " ms";
  EXPECT_TRUE(shethRuns(p, 2.0));
  // Its 2 cm root bone holds the pelvis joint 7 cm away on a lever.
  EXPECT_TRUE(li2019Runs(p, 2.0));
  EXPECT_TRUE(viperRuns(p, "B_UpperArm_Left", "B_ForeArm_Left", 2.0));
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
  ASSERT_EQ(p.meshes.size(), 3u);  // the body; the eyes apart, following the head
  EXPECT_EQ(Followers(p, p.meshes[0].id).size(), 2u);
  size_t simulated = 0;
  for (const Joint& j : p.skeleton->skeleton.joints) simulated += j.simulated;
  EXPECT_EQ(simulated, 19u);
  EXPECT_TRUE(liuRuns(p, 2.0));
  EXPECT_TRUE(shethRuns(p, 2.0));
  EXPECT_TRUE(li2019Runs(p, 2.0));
  EXPECT_TRUE(viperRuns(p, "LeftArm", "LeftForeArm", 2.0));
}

// A bare A-pose mesh (no skeleton) with automatic joints, through the same
// route and every solver.
TEST(ForeignCharacter, BareAPoseWithAutomaticJointsRunsEverySolver) {
  test::TempDir dir;
  Project p = importCharacter(test::writeBareAPose(dir.file("bare.obj"), 0.04));
  ASSERT_EQ(p.meshes.size(), 1u);
  ASSERT_FALSE(p.skeleton);
  p.skeleton = SkeletonObject{p.allocateId(), "auto", autoPlaceJoints(p.meshes[0].mesh)};
  const Rigged r = rigAndChooseStep(std::move(p), /*regions=*/true);
  EXPECT_TRUE(liuRuns(r.project, 2.0));
  EXPECT_TRUE(shethRuns(r.project, 2.0));
  EXPECT_TRUE(li2019Runs(r.project, 2.0));
  EXPECT_TRUE(viperRuns(r.project, "LeftArm", "LeftForeArm", 2.0));
}

}  // namespace
}  // namespace sinew
