// The generated example character: a clean closed surface around a CMU-named skeleton.
#include "TestPaths.h"
#include "examples/Humanoid.h"

#include "geometry/MeshValidation.h"
#include "geometry/TriangleTree.h"
#include "io/ProjectFile.h"
#include "volume/Closest.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

namespace sinew {
namespace {

class Humanoid : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { project_ = new Project(makeHumanoidProject()); }
  static void TearDownTestSuite() {
    delete project_;
    project_ = nullptr;
  }
  static const TriMesh& body() { return project_->meshes.at(0).mesh; }
  static const Skeleton& skeleton() { return project_->skeleton->skeleton; }
  static Project* project_;
};
Project* Humanoid::project_ = nullptr;

TEST_F(Humanoid, ProjectContents) {
  const Project& p = *project_;
  ASSERT_EQ(p.meshes.size(), 1u);
  ASSERT_TRUE(p.skeleton.has_value());
  EXPECT_TRUE(p.clips.empty());
  EXPECT_EQ(p.meshes[0].name, "Michelin body");
  EXPECT_FALSE(p.meshes[0].skin.has_value());
  EXPECT_NE(p.meshes[0].id, p.skeleton->id);
  EXPECT_NO_THROW(p.validate("humanoid"));
  EXPECT_EQ(p.objectCount(), 2u);
}

TEST_F(Humanoid, SurfaceIsWatertightSingleComponent) {
  const TriMesh& m = body();
  EXPECT_GE(m.triangleCount(), 5000u);
  EXPECT_LE(m.triangleCount(), 10000u);
  const MeshReport r = validateMesh(m);
  EXPECT_TRUE(r.closed()) << r.boundaryEdgeCount << " boundary edges";
  EXPECT_TRUE(r.manifold()) << r.nonManifoldEdgeCount << " non-manifold edges, " << r.nonManifoldVertexCount
                            << " non-manifold vertices";
  EXPECT_TRUE(r.selfIntersectionsChecked);
  EXPECT_EQ(r.selfIntersectionCount, 0u);
  EXPECT_EQ(r.misorientedEdgeCount, 0u);
  EXPECT_EQ(r.degenerateCount, 0u);
  EXPECT_TRUE(r.watertight());
  EXPECT_EQ(r.componentCount, 1u);
  EXPECT_EQ(r.unreferencedVertices, 0u);
  // Genus 0: V - E + F = 2.
  EXPECT_EQ(long(m.vertexCount()) - 3 * long(m.triangleCount()) / 2 + long(m.triangleCount()), 2);
  // Outward and of human size: between 0.04 and 0.12 m^3 (a person is ~0.07).
  const double v = enclosedVolume(m);
  EXPECT_GT(v, 0.04);
  EXPECT_LT(v, 0.12);
}

TEST_F(Humanoid, SkeletonHasCmuJoints) {
  const Skeleton& s = skeleton();
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"Hips", ""},
      {"LeftUpLeg", "Hips"},
      {"LeftLeg", "LeftUpLeg"},
      {"LeftFoot", "LeftLeg"},
      {"RightUpLeg", "Hips"},
      {"RightLeg", "RightUpLeg"},
      {"RightFoot", "RightLeg"},
      {"Spine", "Hips"},
      {"Spine1", "Spine"},
      {"Neck", "Spine1"},
      {"Head", "Neck"},
      {"LeftShoulder", "Spine1"},
      {"LeftArm", "LeftShoulder"},
      {"LeftForeArm", "LeftArm"},
      {"LeftHand", "LeftForeArm"},
      {"RightShoulder", "Spine1"},
      {"RightArm", "RightShoulder"},
      {"RightForeArm", "RightArm"},
      {"RightHand", "RightForeArm"},
  };
  ASSERT_EQ(s.size(), 19u);
  EXPECT_NO_THROW(s.validate("humanoid skeleton"));
  for (const auto& [name, parent] : expected) {
    const int32_t j = s.find(name);
    ASSERT_GE(j, 0) << "missing joint " << name;
    if (parent.empty()) {
      EXPECT_EQ(s.joints[j].parent, -1) << name;
    } else {
      ASSERT_GE(s.joints[j].parent, 0) << name;
      EXPECT_LT(s.joints[j].parent, j) << name;
      EXPECT_EQ(s.joints[s.joints[j].parent].name, parent) << name;
    }
  }
  // Rest pose: T-pose facing +z, left = +x.
  const std::vector<Vec3> p = s.restPositions();
  EXPECT_GT(p[s.find("LeftHand")].x(), 0.5);
  EXPECT_LT(p[s.find("RightHand")].x(), -0.5);
  EXPECT_NEAR(p[s.find("LeftHand")].y(), p[s.find("LeftArm")].y(), 1e-12);
  EXPECT_GT(p[s.find("Head")].y(), p[s.find("Neck")].y());
  EXPECT_GT(p[s.find("Hips")].y(), p[s.find("LeftFoot")].y());
}

TEST_F(Humanoid, JointsLieInsideTheSurface) {
  const TriMesh& m = body();
  const TriangleTree tree(m);
  const Skeleton& s = skeleton();
  const std::vector<Vec3> p = s.restPositions();
  // Directions that are not aligned with the grid or the symmetry plane.
  const Vec3 dirs[] = {Vec3(0.137, 0.911, 0.389).normalized(), Vec3(-0.52, -0.31, 0.79).normalized(),
                       Vec3(0.071, -0.23, -0.97).normalized()};
  for (size_t j = 0; j < s.size(); ++j)
    for (const Vec3& d : dirs) {
      const size_t n = tree.raycastAll(p[j], d).size();
      EXPECT_EQ(n % 2, 1u) << s.joints[j].name << " at " << p[j].transpose() << ": " << n << " crossings";
    }
  // And a point well outside is outside.
  EXPECT_EQ(tree.raycastAll(Vec3(0, 1, 1), dirs[0]).size() % 2, 0u);
}

TEST_F(Humanoid, StandsOnTheGroundAtTheRightHeight) {
  const Aabb b = body().bounds();
  EXPECT_NEAR(b.min.y(), 0.0, 0.01);
  EXPECT_NEAR(b.max.y() - b.min.y(), 1.75, 0.05 * 1.75);
  // Facing +z, arms out along x.
  EXPECT_GT(b.size().x(), 1.4);
  EXPECT_LT(b.size().z(), 0.5);
}

TEST_F(Humanoid, LeftRightSymmetric) {
  const TriMesh& m = body();
  const Aabb b = m.bounds();
  const double h = HumanoidOptions{}.gridSpacing;
  // The grid is not symmetric about x = 0, so vertices do not mirror one to
  // one; but they lie on a symmetric level set: bounds agree closely and the
  // mirror image of every vertex lies on (within a fraction of a cell of) the surface.
  EXPECT_NEAR(b.min.x(), -b.max.x(), 0.002);
  const TriangleTree tree(m);
  double worst = 0, sum = 0;
  for (size_t v = 0; v < m.vertexCount(); ++v) {
    const Vec3 q(-m.positions[v].x(), m.positions[v].y(), m.positions[v].z());
    Aabb around;
    around.add(q - Vec3::Constant(h));
    around.add(q + Vec3::Constant(h));
    double best = std::numeric_limits<double>::infinity();
    tree.query(around, [&](int32_t t) {
      const Tri& tri = m.triangles[t];
      const Vec3 c = closestPointOnTriangle(q, m.positions[tri[0]], m.positions[tri[1]], m.positions[tri[2]]);
      best = std::min(best, (c - q).norm());
    });
    worst = std::max(worst, best);
    sum += best;
  }
  // Flat triangles cut chords through curved regions (creases between the
  // tyres): a mirrored vertex sits a few millimetres off the facets there.
  EXPECT_LT(worst, 0.5 * h) << "worst mirrored-vertex distance to the surface";
  EXPECT_LT(sum / m.vertexCount(), 0.1 * h) << "mean mirrored-vertex distance to the surface";
  // Skeleton: exact mirror pairs.
  const Skeleton& s = skeleton();
  const std::vector<Vec3> p = s.restPositions();
  for (size_t j = 0; j < s.size(); ++j) {
    const std::string& name = s.joints[j].name;
    if (name.rfind("Left", 0) != 0) continue;
    const int32_t r = s.find("Right" + name.substr(4));
    ASSERT_GE(r, 0) << name;
    EXPECT_EQ(p[r], Vec3(-p[j].x(), p[j].y(), p[j].z())) << name;
  }
}

TEST_F(Humanoid, GenerationIsBitIdentical) {
  const Project again = makeHumanoidProject();
  EXPECT_TRUE(again == *project_);
  ASSERT_EQ(again.meshes.size(), 1u);
  EXPECT_EQ(again.meshes[0].mesh.positions, body().positions);  // exact doubles
  EXPECT_EQ(again.meshes[0].mesh.triangles, body().triangles);
}

// The default example project in projects/ is exactly what the generator
// makes today (regenerate it with `sinew-cli example humanoid -o ... --overwrite`).
TEST_F(Humanoid, CommittedExampleProjectIsUpToDate) {
  const Project onDisk = loadProject(std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid.sinew");
  EXPECT_TRUE(onDisk == *project_) << "projects/humanoid/humanoid.sinew is stale: regenerate it";
}

TEST(HumanoidOptions, HeightScalesEverything) {
  HumanoidOptions o;
  o.height = 1.0;
  const Skeleton small = makeHumanoidSkeleton(o);
  const Skeleton normal = makeHumanoidSkeleton();
  const std::vector<Vec3> a = small.restPositions(), b = normal.restPositions();
  ASSERT_EQ(a.size(), b.size());
  for (size_t j = 0; j < a.size(); ++j) EXPECT_TRUE(a[j].isApprox(b[j] / 1.75, 1e-12)) << small.joints[j].name;
  o.gridSpacing = 0.05;  // coarse: quick
  const Aabb box = makeHumanoidSurface(o).bounds();
  EXPECT_NEAR(box.max.y() - box.min.y(), 1.0, 0.05);
}

}  // namespace
}  // namespace sinew
