// The simulation skeleton of a production armature (rig/SimulationSkeleton.h):
// which joints carry volume and are simulated, which follow, and what the
// bone shapes and the project file make of the choice.
#include "TestUtil.h"

#include "examples/ExchangeCharacters.h"
#include "examples/Humanoid.h"
#include "io/ProjectFile.h"
#include "rig/BoneShapes.h"
#include "rig/SimulationSkeleton.h"

namespace sinew {
namespace {

const Project& humanoid() {
  static const Project p = [] {
    HumanoidOptions o;
    o.gridSpacing = 0.05;
    return makeHumanoidProject(o);
  }();
  return p;
}

// The 19 joints of the example are what carries volume in the 64-joint
// armature built on it: fingers, toes and end bones follow.
TEST(SimulationSkeleton, AProductionArmatureSimulatesItsBodyPartsAndFoldsFingersAndEnds) {
  const Skeleton production = makeProductionSkeleton(humanoid().skeleton->skeleton);
  ASSERT_EQ(production.size(), 64u);
  const SimulationSkeletonChoice c = chooseSimulatedJoints(production, humanoid().meshes[0].mesh);
  const Skeleton& body = humanoid().skeleton->skeleton;
  for (size_t j = 0; j < production.size(); ++j)
    EXPECT_EQ(c.simulated[j], body.find(production.joints[j].name) >= 0) << production.joints[j].name;
  EXPECT_EQ(c.count(), 19u);
  // Shares are fractions of the surface: the followers' fold into their parent.
  double total = 0;
  for (size_t j = 0; j < production.size(); ++j)
    if (c.simulated[j]) total += c.areaShare[j];
  EXPECT_NEAR(total, 1.0, 1e-9);
  const int32_t hand = production.find("LeftHand");
  EXPECT_GT(c.areaShare[size_t(hand)], 0.015);
}

TEST(SimulationSkeleton, TheExampleSkeletonIsSimulatedWhole) {
  const SimulationSkeletonChoice c = chooseSimulatedJoints(humanoid().skeleton->skeleton, humanoid().meshes[0].mesh);
  EXPECT_EQ(c.count(), humanoid().skeleton->skeleton.size());
}

// A cap on the count raises the bar until it holds; the root stays.
TEST(SimulationSkeleton, AtMostMaxJointsAreSimulatedAndTheRootAlways) {
  const Skeleton production = makeProductionSkeleton(humanoid().skeleton->skeleton);
  SimulationSkeletonOptions o;
  o.maxJoints = 8;
  const SimulationSkeletonChoice c = chooseSimulatedJoints(production, humanoid().meshes[0].mesh, o);
  EXPECT_LE(c.count(), 8u);
  EXPECT_GE(c.count(), 4u);
  EXPECT_TRUE(c.simulated[0]);
}

// Followers lose their shapes; a simulated hand's bone reaches through its
// folded fingers; the choice survives the project file.
TEST(SimulationSkeleton, FollowersHaveNoBoneAndTheChoiceIsSaved) {
  Skeleton production = makeProductionSkeleton(humanoid().skeleton->skeleton);
  const TriMesh& surface = humanoid().meshes[0].mesh;
  applySimulatedJoints(production, chooseSimulatedJoints(production, surface).simulated);
  assignDefaultBoneShapes(production, surface);
  EXPECT_EQ(production.bones().size(), 19u);
  for (const Joint& j : production.joints)
    if (!j.simulated) {
      EXPECT_EQ(j.bone.kind, BoneShapeKind::None) << j.name;
    }
  const int32_t hand = production.find("LeftHand");
  const std::vector<Transform> world = production.worldRest();
  const BoneShape& shape = production.joints[size_t(hand)].bone;
  ASSERT_EQ(shape.kind, BoneShapeKind::Capsule);
  const Vec3 far = world[size_t(hand)].apply(shape.end);
  EXPECT_GT(far.x() - world[size_t(hand)].translation.x(), 0.05);  // into the fingers, past their bases (4 cm)

  test::TempDir dir;
  Project p = humanoid();
  p.skeleton->skeleton = production;
  saveProject(p, dir.file("p.sinew"));
  const Project back = loadProject(dir.file("p.sinew"));
  EXPECT_EQ(back.skeleton->skeleton, production);
  EXPECT_FALSE(back.skeleton->skeleton.joints[size_t(back.skeleton->skeleton.find("LeftHandIndex2"))].simulated);
}

}  // namespace
}  // namespace sinew
