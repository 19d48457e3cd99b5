// validateMesh on small meshes with one known defect each.
#include "geometry/MeshValidation.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

namespace sinew {
namespace {

using test::cube;
using test::merged;
using test::tetrahedron;

TEST(MeshValidation, ClosedCubeIsWatertight) {
  const MeshReport r = validateMesh(cube());
  EXPECT_EQ(r.vertexCount, 8u);
  EXPECT_EQ(r.triangleCount, 12u);
  EXPECT_EQ(r.componentCount, 1u);
  EXPECT_EQ(r.boundaryEdgeCount, 0u);
  EXPECT_EQ(r.nonManifoldEdgeCount, 0u);
  EXPECT_EQ(r.nonManifoldVertexCount, 0u);
  EXPECT_EQ(r.degenerateCount, 0u);
  EXPECT_EQ(r.misorientedEdgeCount, 0u);
  EXPECT_TRUE(r.selfIntersectionsChecked);
  EXPECT_EQ(r.selfIntersectionCount, 0u);
  EXPECT_EQ(r.unreferencedVertices, 0u);
  EXPECT_TRUE(r.closed());
  EXPECT_TRUE(r.manifold());
  EXPECT_TRUE(r.watertight());
  const Diagnostics d = r.diagnostics("cube");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].severity, Severity::Info);
  EXPECT_NE(d[0].message.find("closed manifold"), std::string::npos) << d[0].message;
  EXPECT_TRUE(r.problemTriangles().empty());
}

TEST(MeshValidation, MissingFaceGivesFourBoundaryEdges) {
  TriMesh m = cube();
  m.triangles.erase(m.triangles.begin() + 2, m.triangles.begin() + 4);  // the z = 1 quad
  const MeshReport r = validateMesh(m);
  EXPECT_EQ(r.boundaryEdgeCount, 4u);
  EXPECT_FALSE(r.closed());
  EXPECT_FALSE(r.watertight());
  EXPECT_TRUE(r.manifold());  // an open disc-like boundary is still manifold
  EXPECT_EQ(r.misorientedEdgeCount, 0u);
  // The boundary is the square 4-5-6-7.
  std::vector<Edge> expected = {{4, 5}, {5, 6}, {6, 7}, {4, 7}};
  std::vector<Edge> got = r.boundaryEdges;
  std::sort(expected.begin(), expected.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, expected);
  bool mentioned = false;
  for (const Diagnostic& d : r.diagnostics("open")) mentioned |= d.message.find("4 open boundary edge") != std::string::npos;
  EXPECT_TRUE(mentioned);
}

TEST(MeshValidation, ThreeTrianglesOnOneEdgeAreNonManifold) {
  TriMesh m;
  m.positions = {{0, 0, 0}, {1, 0, 0}, {0.5, 1, 0}, {0.5, -1, 0.2}, {0.5, 0, 1}};
  m.triangles = {{0, 1, 2}, {1, 0, 3}, {0, 1, 4}};
  const MeshReport r = validateMesh(m);
  EXPECT_EQ(r.nonManifoldEdgeCount, 1u);
  ASSERT_EQ(r.nonManifoldEdges.size(), 1u);
  EXPECT_EQ(r.nonManifoldEdges[0], (Edge{0, 1}));
  EXPECT_FALSE(r.manifold());
  EXPECT_EQ(r.boundaryEdgeCount, 6u);  // the two other edges of each triangle
  EXPECT_EQ(r.componentCount, 1u);
}

TEST(MeshValidation, TetrahedraTouchingAtOneVertex) {
  // Two closed tetrahedra sharing only vertex 0 (the origin): every edge is
  // fine, but the triangles around vertex 0 form two separate fans.
  const TriMesh upper = tetrahedron({0, 0, 0}, {1, 0, 1}, {-1, 0, 1}, {0, 1, 1});
  const TriMesh lower = tetrahedron({0, 0, 0}, {1, 0, -1}, {-1, 0, -1}, {0, -1, -1});
  TriMesh m = merged(upper, lower);
  // Replace the lower tetrahedron's copy of the origin (vertex 4) by vertex 0.
  for (Tri& t : m.triangles)
    for (int32_t& v : t)
      if (v == 4) v = 0;
  const MeshReport r = validateMesh(m);
  EXPECT_EQ(r.boundaryEdgeCount, 0u);
  EXPECT_EQ(r.nonManifoldEdgeCount, 0u);
  EXPECT_EQ(r.nonManifoldVertexCount, 1u);
  ASSERT_EQ(r.nonManifoldVertices.size(), 1u);
  EXPECT_EQ(r.nonManifoldVertices[0], 0);
  EXPECT_FALSE(r.manifold());
  EXPECT_EQ(r.componentCount, 1u);         // connected through the shared vertex
  EXPECT_EQ(r.unreferencedVertices, 1u);   // the unused copy of the origin
  EXPECT_EQ(r.selfIntersectionCount, 0u);  // they only touch
  EXPECT_EQ(r.misorientedEdgeCount, 0u);
}

TEST(MeshValidation, ZeroAreaTriangleIsDegenerate) {
  TriMesh m = cube();
  // A sliver whose three vertices are collinear (on the cube's bottom edge
  // 0-1), and one with a repeated index.
  m.positions.push_back({0.5, 0, 0});
  m.triangles.push_back({0, 8, 1});
  m.triangles.push_back({2, 2, 3});
  const MeshReport r = validateMesh(m);
  EXPECT_EQ(r.degenerateCount, 2u);
  EXPECT_EQ(r.degenerateTriangles, (std::vector<int32_t>{12, 13}));
  EXPECT_FALSE(r.watertight());
  const std::vector<int32_t> problems = r.problemTriangles();
  EXPECT_EQ(problems, (std::vector<int32_t>{12, 13}));
}

TEST(MeshValidation, FlippedFaceGivesMisorientedEdges) {
  TriMesh m = cube();
  std::swap(m.triangles[5][1], m.triangles[5][2]);
  const MeshReport r = validateMesh(m);
  // All three edges of the flipped triangle now run the same way as in their neighbours.
  EXPECT_EQ(r.misorientedEdgeCount, 3u);
  EXPECT_TRUE(r.closed());
  EXPECT_TRUE(r.manifold());
  EXPECT_FALSE(r.watertight());
}

TEST(MeshValidation, InterpenetratingCubesSelfIntersect) {
  const TriMesh m = merged(cube(), cube(Vec3(0.5, 0.5, 0.5)));
  const MeshReport r = validateMesh(m);
  EXPECT_TRUE(r.selfIntersectionsChecked);
  EXPECT_GT(r.selfIntersectionCount, 0u);
  EXPECT_FALSE(r.watertight());
  EXPECT_TRUE(r.closed());
  EXPECT_EQ(r.componentCount, 2u);
  // Every reported pair has one triangle from each cube and really intersects.
  for (const auto& [a, b] : r.intersectingPairs) {
    EXPECT_LT(a, 12);
    EXPECT_GE(b, 12);
  }
  // The pairs are found only when the check is enabled.
  MeshValidationOptions off;
  off.checkSelfIntersections = false;
  const MeshReport r2 = validateMesh(m, off);
  EXPECT_FALSE(r2.selfIntersectionsChecked);
  EXPECT_EQ(r2.selfIntersectionCount, 0u);
}

TEST(MeshValidation, SeparateCubesAreTwoCleanComponents) {
  const MeshReport r = validateMesh(merged(cube(), cube(Vec3(1.5, 0.2, -0.3))));
  EXPECT_EQ(r.selfIntersectionCount, 0u);
  EXPECT_TRUE(r.selfIntersectionsChecked);
  EXPECT_EQ(r.componentCount, 2u);
  EXPECT_TRUE(r.watertight());
}

TEST(MeshValidation, GivesUpBeyondCandidateLimit) {
  MeshValidationOptions o;
  o.maxCandidatePairs = 3;
  const MeshReport r = validateMesh(merged(cube(), cube(Vec3(0.5, 0.5, 0.5))), o);
  EXPECT_TRUE(r.selfIntersectionsGaveUp);
  EXPECT_FALSE(r.selfIntersectionsChecked);
  EXPECT_EQ(r.selfIntersectionCount, 0u);
}

}  // namespace
}  // namespace sinew
