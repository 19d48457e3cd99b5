// Skeleton authoring operations keep what they promise: world positions of
// untouched joints, topological order, names, mirror symmetry.
#include "rig/SkeletonEdit.h"

#include "examples/Humanoid.h"
#include "rig/Skinning.h"

#include <gtest/gtest.h>

namespace sinew {
namespace {

const Project& example() {
  static const Project p = makeHumanoidProject();
  return p;
}
Skeleton humanoid() { return example().skeleton->skeleton; }

void expectNear(const Vec3& a, const Vec3& b, double tol = 1e-12) { EXPECT_LT((a - b).norm(), tol) << a.transpose() << " vs " << b.transpose(); }

TEST(SkeletonEdit, PlacementIsMidwayThroughTheLimb) {
  const Project& p = example();
  const TriangleTree tree(p.meshes[0].mesh);
  // A ray from the front through the left forearm.
  const Vec3 target(0.58, 1.37, 0.0);
  const auto at = jointPlacement(tree, target + Vec3(0, 0, 3), Vec3(0, 0, -1));
  ASSERT_TRUE(at.has_value());
  EXPECT_NEAR(at->x(), 0.58, 1e-12);
  EXPECT_NEAR(at->y(), 1.37, 1e-12);
  EXPECT_NEAR(at->z(), 0.0, 0.01) << "the forearm is centred on z = 0";
  // Misses and grazing rays give nothing.
  EXPECT_FALSE(jointPlacement(tree, Vec3(5, 5, 5), Vec3(0, 0, -1)).has_value());
}

TEST(SkeletonEdit, AddMoveAndDeleteKeepOtherJointsInPlace) {
  Skeleton s = humanoid();
  const std::vector<Vec3> before = s.restPositions();
  const int32_t arm = s.find("LeftForeArm");
  const int32_t j = addJoint(s, arm, "LeftWristTwist", Vec3(0.6, 1.38, 0.01));
  EXPECT_EQ(s.joints[size_t(j)].parent, arm);
  expectNear(s.restPositions()[size_t(j)], Vec3(0.6, 1.38, 0.01));
  EXPECT_EQ(addJoint(s, -1, "LeftWristTwist", Vec3::Zero()), j + 1);
  EXPECT_EQ(s.joints.back().name, "LeftWristTwist.2") << "names stay unique";
  EXPECT_NO_THROW(s.validate("edited"));
  // Moving the forearm joint keeps the hand where it was...
  const int32_t hand = s.find("LeftHand");
  moveJoint(s, arm, Vec3(0.47, 1.35, 0.02));
  expectNear(s.restPositions()[size_t(arm)], Vec3(0.47, 1.35, 0.02));
  expectNear(s.restPositions()[size_t(hand)], before[size_t(hand)]);
  // ... unless the subtree moves with it.
  moveJoint(s, arm, Vec3(0.47, 1.45, 0.02), true);
  expectNear(s.restPositions()[size_t(hand)], before[size_t(hand)] + Vec3(0, 0.1, 0));
  // Deleting the forearm reparents the hand to the arm, in place.
  Skeleton d = humanoid();
  deleteJoint(d, d.find("LeftForeArm"));
  EXPECT_EQ(d.size(), before.size() - 1);
  EXPECT_EQ(d.joints[size_t(d.find("LeftHand"))].parent, d.find("LeftArm"));
  expectNear(d.restPositions()[size_t(d.find("LeftHand"))], before[size_t(hand)]);
  EXPECT_NO_THROW(d.validate("deleted"));
}

TEST(SkeletonEdit, InsertAndReparentKeepWorldTransforms) {
  Skeleton s = humanoid();
  const std::vector<Vec3> before = s.restPositions();
  const int32_t leg = s.find("LeftLeg");
  const int32_t mid = insertJoint(s, leg, 0.5, "LeftKneeUp");
  EXPECT_EQ(s.joints[size_t(mid)].name, "LeftKneeUp");
  expectNear(s.restPositions()[size_t(mid)], 0.5 * (before[size_t(s.find("LeftUpLeg"))] + before[size_t(leg)]));
  EXPECT_EQ(s.joints[size_t(s.find("LeftLeg"))].parent, mid);
  const Skeleton original = humanoid();
  for (size_t j = 0; j < before.size(); ++j) expectNear(s.restPositions()[size_t(s.find(original.joints[j].name))], before[j]);
  EXPECT_NO_THROW(s.validate("inserted"));
  // Reparent the left hand under the spine: order is fixed up, positions kept.
  Skeleton r = humanoid();
  reparentJoint(r, r.find("LeftHand"), r.find("Spine"));
  EXPECT_NO_THROW(r.validate("reparented"));
  EXPECT_EQ(r.joints[size_t(r.find("LeftHand"))].parent, r.find("Spine"));
  for (size_t j = 0; j < before.size(); ++j) expectNear(r.restPositions()[size_t(r.find(original.joints[j].name))], before[j]);
  // A joint cannot become the child of its own descendant.
  EXPECT_THROW(reparentJoint(r, r.find("Hips"), r.find("Head")), std::invalid_argument);
}

TEST(SkeletonEdit, MirrorNamesBothWays) {
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
           {"LeftArm", "RightArm"}, {"L_hand", "R_hand"}, {"hand_L", "hand_R"}, {"hand.L", "hand.R"},
           {"LHipJoint", "RHipJoint"}, {"leftFoot", "rightFoot"}}) {
    EXPECT_EQ(mirrorName(a), b);
    EXPECT_EQ(mirrorName(b), a);
    EXPECT_EQ(sideOfName(a), +1);
    EXPECT_EQ(sideOfName(b), -1);
  }
  EXPECT_EQ(mirrorName("Spine"), "Spine");
  EXPECT_EQ(sideOfName("Spine"), 0);
  EXPECT_EQ(sideOfName("Leg"), 0) << "'Leg' is not a left-side name";
}

TEST(SkeletonEdit, MirrorAndSymmetrize) {
  Skeleton s = humanoid();
  moveJoint(s, s.find("LeftHand"), Vec3(0.75, 1.30, 0.05));
  moveJoint(s, s.find("Neck"), Vec3(0.02, 1.43, 0.0));
  EXPECT_EQ(mirrorJoints(s, +1), 7);  // the seven left joints
  expectNear(s.restPositions()[size_t(s.find("RightHand"))], Vec3(-0.75, 1.30, 0.05), 1e-12);
  // Bone shapes follow: the right hand's capsule mirrors the left's.
  const std::vector<Transform> w = s.worldRest();
  const BoneShape& lb = s.joints[size_t(s.find("LeftHand"))].bone;
  const BoneShape& rb = s.joints[size_t(s.find("RightHand"))].bone;
  const Vec3 le = w[size_t(s.find("LeftHand"))].apply(lb.end), re = w[size_t(s.find("RightHand"))].apply(rb.end);
  expectNear(re, Vec3(-le.x(), le.y(), le.z()), 1e-12);
  // Symmetrize: the neck goes back onto the plane.
  EXPECT_GE(symmetrizeJoints(s), 1);
  EXPECT_NEAR(s.restPositions()[size_t(s.find("Neck"))].x(), 0.0, 1e-12);
  const std::vector<Vec3> p = s.restPositions();
  for (size_t j = 0; j < s.size(); ++j) {
    const int32_t m = s.find(mirrorName(s.joints[j].name));
    expectNear(p[size_t(m)], Vec3(-p[j].x(), p[j].y(), p[j].z()), 1e-12);
  }
}

TEST(SkeletonEdit, FitScalesAndPlacesAForeignSkeleton) {
  const Project& p = example();
  Skeleton s = humanoid();
  // A copy at 3x size, moved away.
  for (Joint& j : s.joints) {
    j.restLocal.translation *= 3.0;
    if (j.parent < 0) j.restLocal.translation += Vec3(4, -2, 7);
  }
  const double scale = fitSkeletonToMesh(s, p.meshes[0].mesh);
  EXPECT_NEAR(scale, 1.0 / 3.0, 0.05);
  const TriangleTree tree(p.meshes[0].mesh);
  EXPECT_TRUE(jointsOutside(s, tree).empty()) << "a fitted skeleton lies inside the body";
  EXPECT_TRUE(jointsOutside(humanoid(), tree).empty());
  // A joint far away is reported.
  addJoint(s, -1, "Stray", Vec3(3, 3, 3));
  EXPECT_EQ(jointsOutside(s, tree).back(), int32_t(s.size() - 1));
}

TEST(Skinning, RestPoseIsIdentityAndRigidBindingFollowsTheBone) {
  const Project& p = example();
  const Skeleton& s = p.skeleton->skeleton;
  const std::vector<Vec3>& rest = p.meshes[0].mesh.positions;
  const SkinWeights w = nearestBoneWeights(rest, s);
  ASSERT_NO_THROW(w.validate("w", rest.size()));
  const std::vector<Vec3> same = linearBlendSkinning(rest, w, s, s.worldRest());
  for (size_t v = 0; v < rest.size(); ++v) expectNear(same[v], rest[v], 1e-12);
  // Bend the left elbow 90 degrees: the hand's vertices rotate about the elbow.
  std::vector<Quat> rot(s.size(), Quat::Identity());
  const int32_t elbow = s.find("LeftForeArm");
  rot[size_t(elbow)] = Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()));
  const std::vector<Transform> pose = poseFromRotations(s, rot);
  const std::vector<Vec3> bent = linearBlendSkinning(rest, w, s, pose);
  const Vec3 pivot = s.restPositions()[size_t(elbow)];
  const int32_t handBone = [&] {
    for (size_t b = 0; b < w.bones.size(); ++b)
      if (w.bones[b] == "LeftHand") return int32_t(b);
    return -1;
  }();
  int checked = 0;
  for (size_t v = 0; v < rest.size(); ++v) {
    if (w.bone[size_t(w.offsets[v])] != handBone) continue;
    const Vec3 expected = pivot + rot[size_t(elbow)] * (rest[v] - pivot);
    expectNear(bent[v], expected, 1e-9);
    ++checked;
  }
  EXPECT_GT(checked, 50);
}

// Bone shapes follow a dragged joint: the arm's capsule still runs from the
// shoulder end to the moved elbow, the forearm's from the elbow to the hand
// that stayed; with the subtree, the forearm's bone moves rigidly.
TEST(SkeletonEdit, BoneShapesFollowAMovedJoint) {
  Skeleton s = humanoid();
  const int32_t arm = s.find("LeftArm"), fore = s.find("LeftForeArm"), hand = s.find("LeftHand");
  s.joints[size_t(arm)].bone = BoneShape::capsule(Vec3::Zero(), s.joints[size_t(fore)].restLocal.translation, 0.03);
  s.joints[size_t(fore)].bone = BoneShape::capsule(Vec3::Zero(), s.joints[size_t(hand)].restLocal.translation, 0.025);
  auto capsuleWorld = [](const Skeleton& k, int32_t j) {
    const Transform w = k.worldRest()[size_t(j)];
    return std::pair{w.apply(k.joints[size_t(j)].bone.start), w.apply(k.joints[size_t(j)].bone.end)};
  };
  const Vec3 handAt = s.restPositions()[size_t(hand)];
  const Vec3 elbow = s.restPositions()[size_t(fore)] + Vec3(0.0, 0.05, -0.03);
  moveJoint(s, fore, elbow);
  auto [a0, a1] = capsuleWorld(s, arm);
  expectNear(a0, s.restPositions()[size_t(arm)]);
  expectNear(a1, elbow);
  auto [f0, f1] = capsuleWorld(s, fore);
  expectNear(f0, elbow);
  expectNear(f1, handAt);
  EXPECT_DOUBLE_EQ(s.joints[size_t(fore)].bone.radius, 0.025);
  moveJoint(s, fore, elbow + Vec3(0.1, 0, 0), true);
  auto [g0, g1] = capsuleWorld(s, fore);
  expectNear(g0, elbow + Vec3(0.1, 0, 0));
  expectNear(g1, handAt + Vec3(0.1, 0, 0));
  auto [b0, b1] = capsuleWorld(s, arm);
  expectNear(b1, elbow + Vec3(0.1, 0, 0));
}

}  // namespace
}  // namespace sinew
