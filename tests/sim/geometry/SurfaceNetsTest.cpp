// Surface nets on signed distance fields.
#include "geometry/SurfaceNets.h"

#include "geometry/MeshValidation.h"
#include "geometry/Sdf.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sinew {
namespace {

struct SphereCase {
  Vec3 centre;
  double radius;
  double spacing;
};

class SurfaceNetsSphere : public ::testing::TestWithParam<SphereCase> {};

TEST_P(SurfaceNetsSphere, ClosedManifoldAccurate) {
  const SphereCase c = GetParam();
  Aabb box;
  box.add(c.centre - Vec3::Constant(c.radius));
  box.add(c.centre + Vec3::Constant(c.radius));
  SurfaceNetsOptions o;
  o.spacing = c.spacing;
  const TriMesh m = extractSurfaceNets([&](const Vec3& p) { return sdf::sphere(p, c.centre, c.radius); }, box, o);
  ASSERT_GT(m.triangleCount(), 100u);

  const MeshReport r = validateMesh(m);
  EXPECT_TRUE(r.closed()) << r.boundaryEdgeCount << " boundary edges";
  EXPECT_TRUE(r.manifold()) << r.nonManifoldEdgeCount << " non-manifold edges, " << r.nonManifoldVertexCount
                            << " non-manifold vertices";
  EXPECT_EQ(r.misorientedEdgeCount, 0u);
  EXPECT_EQ(r.degenerateCount, 0u);
  EXPECT_EQ(r.selfIntersectionCount, 0u);
  EXPECT_TRUE(r.watertight());
  EXPECT_EQ(r.componentCount, 1u);
  EXPECT_EQ(r.unreferencedVertices, 0u);
  // A sphere has Euler characteristic 2.
  const long edges = 3 * long(m.triangleCount()) / 2;
  EXPECT_EQ(long(m.vertexCount()) - edges + long(m.triangleCount()), 2);

  const double exact = 4.0 / 3.0 * M_PI * std::pow(c.radius, 3);
  const double volume = enclosedVolume(m);
  EXPECT_GT(volume, 0.0) << "triangles face inward";
  EXPECT_NEAR(volume, exact, 0.03 * exact);
  for (const Vec3& p : m.positions) EXPECT_NEAR((p - c.centre).norm(), c.radius, 0.01 * c.radius);
  const double area = surfaceArea(m), exactArea = 4.0 * M_PI * c.radius * c.radius;
  EXPECT_NEAR(area, exactArea, 0.03 * exactArea);
}

// The first two touch grid nodes exactly (3-4-5 points; tight bounds).
std::string sphereCaseName(const ::testing::TestParamInfo<SphereCase>& info) {
  static const char* const names[] = {"Origin_r05_h005", "Offset_r03_h0025", "Far_r1_h015"};
  return names[info.index];
}

INSTANTIATE_TEST_SUITE_P(Spheres, SurfaceNetsSphere,
                         ::testing::Values(SphereCase{Vec3(0, 0, 0), 0.5, 0.05},
                                           SphereCase{Vec3(0.31, -1.7, 2.05), 0.3, 0.025},
                                           SphereCase{Vec3(10, 20, -5), 1.0, 0.15}),
                         sphereCaseName);

TEST(SurfaceNets, TwoSeparateBlobsAreTwoComponents) {
  const Vec3 a(-1, 0, 0), b(1, 0, 0);
  Aabb box;
  box.add(Vec3(-1.5, -0.5, -0.5));
  box.add(Vec3(1.5, 0.5, 0.5));
  const TriMesh m = extractSurfaceNets(
      [&](const Vec3& p) { return std::min(sdf::sphere(p, a, 0.4), sdf::sphere(p, b, 0.4)); }, box, {0.05, 3});
  const MeshReport r = validateMesh(m);
  EXPECT_TRUE(r.watertight());
  EXPECT_EQ(r.componentCount, 2u);
  const double one = 4.0 / 3.0 * M_PI * 0.064;
  EXPECT_NEAR(enclosedVolume(m), 2 * one, 0.03 * 2 * one);
}

TEST(SurfaceNets, DeterministicAndProgressReported) {
  Aabb box;
  box.add(Vec3::Constant(-0.5));
  box.add(Vec3::Constant(0.5));
  double last = -1;
  int calls = 0;
  bool monotone = true;
  const Progress progress([&](double f, std::string_view) {
    monotone &= f >= last;
    last = f;
    ++calls;
  });
  auto field = [](const Vec3& p) { return sdf::torus(p, Vec3::Zero(), Vec3::UnitZ(), 0.3, 0.1); };
  const TriMesh a = extractSurfaceNets(field, box, {0.04, 3}, progress);
  const TriMesh b = extractSurfaceNets(field, box, {0.04, 3});
  EXPECT_EQ(a, b);
  EXPECT_GT(calls, 2);
  EXPECT_TRUE(monotone);
  EXPECT_DOUBLE_EQ(last, 1.0);
  // A torus is one closed component of genus 1: Euler characteristic 0.
  const MeshReport r = validateMesh(a);
  EXPECT_TRUE(r.watertight());
  EXPECT_EQ(long(a.vertexCount()) - 3 * long(a.triangleCount()) / 2 + long(a.triangleCount()), 0);
  const double exact = 2 * M_PI * M_PI * 0.3 * 0.1 * 0.1;
  EXPECT_NEAR(enclosedVolume(a), exact, 0.05 * exact);
}

TEST(SurfaceNets, CancelThrows) {
  Aabb box;
  box.add(Vec3::Constant(-0.5));
  box.add(Vec3::Constant(0.5));
  std::atomic<bool> cancel{true};
  const Progress progress(nullptr, &cancel);
  EXPECT_THROW(extractSurfaceNets([](const Vec3& p) { return p.norm() - 0.3; }, box, {}, progress), Cancelled);
}

}  // namespace
}  // namespace sinew
