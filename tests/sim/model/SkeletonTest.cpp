// Skeleton hierarchy: world transforms, lookup, validation; skin weights.
#include "model/Skeleton.h"

#include "core/Error.h"
#include "model/SkinWeights.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sinew {
namespace {

Quat rotZ(double degrees) { return Quat(Eigen::AngleAxisd(degrees * M_PI / 180.0, Vec3::UnitZ())); }

// root at (1,0,0) turned 90 degrees about z; child 1 m along the root's x;
// grandchild 0.5 m along the child's x, child turned another 90 degrees.
Skeleton chain() {
  Skeleton s;
  s.joints.push_back({"root", -1, {rotZ(90), Vec3(1, 0, 0)}});
  s.joints.push_back({"child", 0, {rotZ(90), Vec3(1, 0, 0)}});
  s.joints.push_back({"tip", 1, {Quat::Identity(), Vec3(0.5, 0, 0)}});
  s.joints.push_back({"other", 0, {Quat::Identity(), Vec3(0, 0, 2)}});
  return s;
}

TEST(Skeleton, WorldRestComposesParentsFirst) {
  const Skeleton s = chain();
  const std::vector<Transform> w = s.worldRest();
  ASSERT_EQ(w.size(), 4u);
  EXPECT_TRUE(w[0].translation.isApprox(Vec3(1, 0, 0), 1e-12));
  // The root's x axis points along world +y after 90 degrees about z.
  EXPECT_TRUE(w[1].translation.isApprox(Vec3(1, 1, 0), 1e-12));
  // Two quarter turns: the child's x axis points along world -x.
  EXPECT_TRUE(w[2].translation.isApprox(Vec3(0.5, 1, 0), 1e-12));
  EXPECT_TRUE(w[2].rotation.toRotationMatrix().isApprox(rotZ(180).toRotationMatrix(), 1e-12));
  EXPECT_TRUE(w[3].translation.isApprox(Vec3(1, 0, 2), 1e-12));
  // restPositions are the translations of worldRest.
  const std::vector<Vec3> p = s.restPositions();
  for (size_t i = 0; i < p.size(); ++i) EXPECT_EQ(p[i], w[i].translation);
  // worldFromLocal with a posed root moves the whole chain rigidly.
  std::vector<Transform> local;
  for (const Joint& j : s.joints) local.push_back(j.restLocal);
  local[0].translation += Vec3(0, 0, 5);
  const std::vector<Transform> moved = s.worldFromLocal(local);
  for (size_t i = 0; i < p.size(); ++i) EXPECT_TRUE(moved[i].translation.isApprox(p[i] + Vec3(0, 0, 5), 1e-12));
}

TEST(Skeleton, FindAndChildren) {
  const Skeleton s = chain();
  EXPECT_EQ(s.find("root"), 0);
  EXPECT_EQ(s.find("tip"), 2);
  EXPECT_EQ(s.find("Tip"), -1);  // names are case-sensitive
  EXPECT_EQ(s.find(""), -1);
  EXPECT_EQ(s.children(0), (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(s.children(1), (std::vector<int32_t>{2}));
  EXPECT_TRUE(s.children(2).empty());
  EXPECT_EQ(s.children(-1), (std::vector<int32_t>{0}));
}

void expectRejected(const Skeleton& s, const std::string& fragment) {
  try {
    s.validate("skel.sinew");
    ADD_FAILURE() << "validate accepted a skeleton that should fail with '" << fragment << "'";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "skel.sinew");
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Skeleton, ValidateRejectsBadHierarchies) {
  EXPECT_NO_THROW(chain().validate("ok"));
  EXPECT_NO_THROW(Skeleton{}.validate("empty"));

  Skeleton dup = chain();
  dup.joints[3].name = "child";
  expectRejected(dup, "duplicate joint name 'child'");

  Skeleton forward = chain();
  forward.joints[1].parent = 2;  // parent after child
  expectRejected(forward, "invalid parent");

  Skeleton self = chain();
  self.joints[2].parent = 2;
  expectRejected(self, "invalid parent");

  Skeleton below = chain();
  below.joints[1].parent = -2;
  expectRejected(below, "invalid parent");

  Skeleton unnamed = chain();
  unnamed.joints[2].name.clear();
  expectRejected(unnamed, "no name");

  Skeleton nan = chain();
  nan.joints[1].restLocal.translation.y() = std::nan("");
  expectRejected(nan, "non-finite");
}

TEST(SkinWeights, NormalizeAndValidate) {
  SkinWeights w;
  w.bones = {"a", "b"};
  w.offsets = {0, 2, 2, 3};  // vertex 1 has no influences
  w.bone = {0, 1, 1};
  w.weight = {1.0, 3.0, 0.5};
  w.normalize();
  EXPECT_DOUBLE_EQ(w.weight[0], 0.25);
  EXPECT_DOUBLE_EQ(w.weight[1], 0.75);
  EXPECT_DOUBLE_EQ(w.weight[2], 1.0);
  EXPECT_EQ(w.vertexCount(), 3u);
  EXPECT_EQ(w.influenceCount(), 3u);
  EXPECT_NO_THROW(w.validate("m", 3));
  EXPECT_THROW(w.validate("m", 4), InputError);  // wrong vertex count
  SkinWeights badBone = w;
  badBone.bone[2] = 2;
  EXPECT_THROW(badBone.validate("m", 3), InputError);
  SkinWeights negative = w;
  negative.weight[0] = -0.1;
  EXPECT_THROW(negative.validate("m", 3), InputError);
  SkinWeights decreasing = w;
  decreasing.offsets = {0, 2, 1, 3};
  EXPECT_THROW(decreasing.validate("m", 3), InputError);
}

}  // namespace
}  // namespace sinew
