// Bone shapes: distances, surfaces and anchor points agree with each other.
#include "model/BoneShape.h"

#include "geometry/MeshValidation.h"
#include "rig/BoneShapes.h"
#include "examples/Humanoid.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sinew {
namespace {

const Transform kPlaced{Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized())), Vec3(0.3, -1.0, 2.0)};

TEST(BoneShape, CapsuleSurfaceIsClosedOutwardAndOnTheShape) {
  const BoneShape c = BoneShape::capsule({0, 0.1, 0}, {0, 0.5, 0}, 0.05);
  const TriMesh m = boneShapeSurface(c, kPlaced, 16);
  const MeshReport r = validateMesh(m);
  EXPECT_TRUE(r.watertight()) << r.diagnostics("capsule")[0].message;
  // Volume of a capsule: cylinder + sphere (the polygonal one is a little smaller).
  const double exact = M_PI * 0.05 * 0.05 * 0.4 + 4.0 / 3.0 * M_PI * std::pow(0.05, 3);
  EXPECT_GT(enclosedVolume(m), 0.9 * exact);
  EXPECT_LT(enclosedVolume(m), exact);
  for (const Vec3& p : m.positions) EXPECT_NEAR(boneShapeDistance(c, kPlaced, p), 0.0, 1e-12);
  EXPECT_LT(boneShapeDistance(c, kPlaced, kPlaced.apply({0, 0.3, 0})), -0.049);
  EXPECT_NEAR(boneShapeDistance(c, kPlaced, kPlaced.apply({0.15, 0.3, 0})), 0.1, 1e-12);
}

TEST(BoneShape, ZeroLengthCapsuleIsAWatertightSphereWithSpreadAnchors) {
  const BoneShape c = BoneShape::capsule({0, 0.2, 0}, {0, 0.2, 0}, 0.05);
  const TriMesh m = boneShapeSurface(c, kPlaced, 16);
  EXPECT_TRUE(validateMesh(m).watertight());
  EXPECT_GT(enclosedVolume(m), 0.9 * 4.0 / 3.0 * M_PI * std::pow(0.05, 3));
  const std::vector<Vec3> a = boneShapeAnchors(c, kPlaced);
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = i + 1; j < a.size(); ++j) EXPECT_GT((a[i] - a[j]).norm(), 1e-3) << "distinct anchors";
  EXPECT_GT(std::abs((a[1] - a[0]).dot((a[2] - a[0]).cross(a[3] - a[0]))), 1e-9) << "not coplanar";
}

TEST(BoneShape, BoxSurfaceDistanceAndBounds) {
  const BoneShape b = BoneShape::box({0.1, 0, 0}, {0.1, 0.2, 0.3}, Quat(Eigen::AngleAxisd(0.4, Vec3::UnitZ())));
  const TriMesh m = boneShapeSurface(b, kPlaced);
  EXPECT_TRUE(validateMesh(m).watertight());
  EXPECT_NEAR(enclosedVolume(m), 8 * 0.1 * 0.2 * 0.3, 1e-12);
  for (const Vec3& p : m.positions) EXPECT_NEAR(boneShapeDistance(b, kPlaced, p), 0.0, 1e-12);
  const Aabb box = boneShapeBounds(b, kPlaced);
  for (const Vec3& p : m.positions) {
    EXPECT_TRUE((p.array() >= box.min.array() - 1e-12).all());
    EXPECT_TRUE((p.array() <= box.max.array() + 1e-12).all());
  }
}

TEST(BoneShape, AnchorsAreInsideAndSpanAVolume) {
  for (const BoneShape& s : {BoneShape::capsule({0, 0, 0}, {0, 0.3, 0}, 0.04),
                             BoneShape::box({0, 0, 0}, {0.05, 0.1, 0.02})}) {
    const std::vector<Vec3> a = boneShapeAnchors(s, kPlaced);
    ASSERT_GE(a.size(), 4u);
    for (const Vec3& p : a) EXPECT_LT(boneShapeDistance(s, kPlaced, p), 0.0);
    const double vol = std::abs((a[1] - a[0]).dot((a[2] - a[0]).cross(a[3] - a[0])));
    EXPECT_GT(vol, 1e-9) << "anchors must not be coplanar";
  }
}

TEST(DefaultBoneShapes, HumanoidBonesAreInsideTheBodyAndApart) {
  const Project p = makeHumanoidProject();
  const Skeleton& sk = p.skeleton->skeleton;
  const std::vector<Transform> world = sk.worldRest();
  EXPECT_EQ(sk.bones().size(), sk.size()) << "every joint owns a bone";
  const TriMesh& body = p.meshes[0].mesh;
  const Aabb bodyBox = body.bounds();
  for (size_t j = 0; j < sk.size(); ++j) {
    const TriMesh bone = boneShapeSurface(sk.joints[j].bone, world[j]);
    for (const Vec3& q : bone.positions) {
      EXPECT_TRUE((q.array() > bodyBox.min.array()).all() && (q.array() < bodyBox.max.array()).all())
          << sk.joints[j].name;
    }
    // No two bones overlap (a conforming mesh needs them apart).
    for (size_t k = j + 1; k < sk.size(); ++k)
      for (const Vec3& q : bone.positions)
        EXPECT_GT(boneShapeDistance(sk.joints[k].bone, world[k], q), 0.0)
            << sk.joints[j].name << " touches " << sk.joints[k].name;
  }
  EXPECT_EQ(sk.joints[size_t(chainChild(sk, sk.find("Spine1")))].name, "Neck");
  EXPECT_EQ(sk.joints[size_t(chainChild(sk, sk.find("Hips")))].name, "Spine");
}

}  // namespace
}  // namespace sinew
