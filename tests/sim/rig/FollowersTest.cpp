// The character's other meshes in a simulation (rig/Followers.h): rigid
// parts turn with their nearest bone, skinned parts follow their weights.
#include "TestUtil.h"

#include "examples/ExchangeCharacters.h"
#include "examples/Humanoid.h"
#include "rig/Followers.h"
#include "rig/Skinning.h"

namespace sinew {
namespace {

// The exchange character as a project: torso (the simulated surface), legs,
// head, two rigid eyes, the 64-joint armature.
Project exchangeProject(ObjectId* torso) {
  HumanoidOptions o;
  o.gridSpacing = 0.05;
  const ExchangeCharacter c = makeExchangeCharacter(makeHumanoidProject(o));
  Project p;
  for (const SkinnedPart& part : c.parts) {
    MeshObject m;
    m.id = p.allocateId();
    m.name = part.name;
    m.mesh = part.mesh;
    m.skin = part.skin;
    p.meshes.push_back(m);
  }
  p.skeleton = SkeletonObject{p.allocateId(), "armature", c.skeleton};
  *torso = p.meshes[0].id;
  return p;
}

std::vector<Vec3> restOf(const Project& p, ObjectId id) { return p.findMesh(id)->mesh.positions; }

TEST(Followers, EveryMeshButTheSurfaceFollowsAndTheRestPoseLeavesThemWhereTheyAre) {
  ObjectId torso = 0;
  const Project p = exchangeProject(&torso);
  const Followers f(p, torso);
  ASSERT_EQ(f.size(), p.meshes.size() - 1);
  const auto posed = f.pose(p.skeleton->skeleton.worldRest());
  ASSERT_EQ(posed.size(), f.size());
  for (const auto& [id, positions] : posed) {
    EXPECT_NE(id, torso);
    const std::vector<Vec3> rest = restOf(p, id);
    ASSERT_EQ(positions.size(), rest.size());
    for (size_t v = 0; v < rest.size(); ++v) EXPECT_LT((positions[v] - rest[v]).norm(), 1e-12) << p.objectName(id);
  }
}

// A fall: the whole skeleton moves down and turns; the eyes keep their place
// relative to the head, the skinned head and legs move with their bones.
TEST(Followers, EyesTurnWithTheHeadAndSkinnedPartsFollowTheirBones) {
  ObjectId torso = 0;
  const Project p = exchangeProject(&torso);
  const Skeleton& s = p.skeleton->skeleton;
  const int32_t head = s.find("Head");
  ASSERT_GE(head, 0);
  std::vector<Quat> turns(s.size(), Quat::Identity());
  turns[size_t(head)] = Quat(Eigen::AngleAxisd(0.6, Vec3::UnitY()));
  std::vector<Transform> pose = poseFromRotations(s, turns);
  const Transform fall{Quat(Eigen::AngleAxisd(1.2, Vec3::UnitX())), Vec3(0.3, -0.8, 0.1)};
  for (Transform& x : pose) x = fall * x;
  const Followers f(p, torso);
  const Transform headMotion = pose[size_t(head)] * s.worldRest()[size_t(head)].inverse();
  for (const auto& [id, positions] : f.pose(pose)) {
    const MeshObject* m = p.findMesh(id);
    if (m->name == "LeftEye" || m->name == "RightEye") {
      ASSERT_FALSE(m->skin);
      for (size_t v = 0; v < positions.size(); ++v)
        EXPECT_LT((positions[v] - headMotion.apply(m->mesh.positions[v])).norm(), 1e-9) << m->name;
    } else {
      ASSERT_TRUE(m->skin);
      const std::vector<Vec3> expected = linearBlendSkinning(m->mesh.positions, *m->skin, s, pose);
      for (size_t v = 0; v < positions.size(); ++v) EXPECT_LT((positions[v] - expected[v]).norm(), 1e-12) << m->name;
      // Moved: nothing is left hanging where it was.
      EXPECT_GT((positions[0] - m->mesh.positions[0]).norm(), 0.1) << m->name;
    }
  }
}

TEST(Followers, NoSkeletonOrAMismatchedPoseGivesNothing) {
  Project p;
  MeshObject m;
  m.id = p.allocateId();
  m.mesh.positions = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
  m.mesh.triangles = {{0, 1, 2}};
  p.meshes.push_back(m);
  EXPECT_TRUE(Followers(p, 0).empty());
  ObjectId torso = 0;
  const Project q = exchangeProject(&torso);
  EXPECT_TRUE(Followers(q, torso).pose({Transform{}}).empty());
}

}  // namespace
}  // namespace sinew
