// TriMesh basics: welding, normals, areas and enclosed volume.
#include "geometry/TriMesh.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <random>

namespace sinew {
namespace {

using test::cube;

TEST(WeldVertices, MergesExactDuplicates) {
  // A cube as 6 separate quads (24 vertices, like OBJ/box.obj): welding
  // leaves the 8 corners and keeps the triangles in order.
  const TriMesh c = cube();
  std::vector<Vec3> positions;
  std::vector<Tri> triangles;
  for (const Tri& t : c.triangles) {
    const auto base = static_cast<int32_t>(positions.size());
    for (int32_t v : t) positions.push_back(c.positions[v]);
    triangles.push_back({base, base + 1, base + 2});
  }
  ASSERT_EQ(positions.size(), 36u);
  const WeldResult w = weldVertices(positions, triangles, 1e-9);
  EXPECT_EQ(w.mesh.vertexCount(), 8u);
  EXPECT_EQ(w.mergedCount, 36u - 8u);
  ASSERT_EQ(w.remap.size(), positions.size());
  ASSERT_EQ(w.mesh.triangleCount(), triangles.size());
  for (size_t i = 0; i < positions.size(); ++i) EXPECT_EQ(w.mesh.positions[w.remap[i]], positions[i]);
  for (size_t t = 0; t < triangles.size(); ++t)
    for (int k = 0; k < 3; ++k) EXPECT_EQ(w.mesh.triangles[t][k], w.remap[triangles[t][k]]);
  // The welded cube is a proper closed surface of volume 1.
  EXPECT_NEAR(enclosedVolume(w.mesh), 1.0, 1e-12);
}

TEST(WeldVertices, KeepsDistinctPoints) {
  std::vector<Vec3> p = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1e-3, 0, 0}};
  const WeldResult w = weldVertices(p, {{0, 1, 2}, {0, 2, 3}}, 1e-6);
  EXPECT_EQ(w.mesh.vertexCount(), p.size());
  EXPECT_EQ(w.mergedCount, 0u);
  for (size_t i = 0; i < p.size(); ++i) EXPECT_EQ(w.remap[i], static_cast<int32_t>(i));
  EXPECT_EQ(w.mesh.positions, p);
}

TEST(WeldVertices, DeterministicRemapToEarliestRepresentative) {
  // Shuffled duplicates of 50 random points: every copy maps to the first
  // occurrence of its point, output vertices appear in first-occurrence order,
  // and a second run gives the same result.
  std::mt19937 rng(1234);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Vec3> points(50);
  for (Vec3& q : points) q = Vec3(u(rng), u(rng), u(rng));
  std::vector<int> source;
  for (int copy = 0; copy < 4; ++copy)
    for (int i = 0; i < 50; ++i) source.push_back(i);
  std::shuffle(source.begin(), source.end(), rng);
  std::vector<Vec3> positions;
  for (int s : source) positions.push_back(points[s]);

  const WeldResult a = weldVertices(positions, {}, 1e-9);
  const WeldResult b = weldVertices(positions, {}, 1e-9);
  EXPECT_EQ(a.remap, b.remap);
  EXPECT_EQ(a.mesh, b.mesh);
  ASSERT_EQ(a.mesh.vertexCount(), 50u);
  std::vector<int32_t> firstOutput(50, -1);
  int32_t next = 0;
  for (size_t i = 0; i < source.size(); ++i) {
    if (firstOutput[source[i]] < 0) firstOutput[source[i]] = next++;
    EXPECT_EQ(a.remap[i], firstOutput[source[i]]) << "input vertex " << i;
  }
}

TEST(WeldVertices, ToleranceRespected) {
  const double tol = 1e-4;
  // Offsets along a diagonal so that grid cells are crossed in all axes.
  const Vec3 dir = Vec3(1, 1, 1).normalized();
  const Vec3 base(0.3, -0.7, 0.05);
  const std::vector<Vec3> p = {base, base + 0.9 * tol * dir, base + 1.1 * tol * dir, base - 0.5 * tol * Vec3::UnitX()};
  const WeldResult w = weldVertices(p, {}, tol);
  EXPECT_EQ(w.remap[0], 0);
  EXPECT_EQ(w.remap[1], 0);  // within tolerance of vertex 0
  EXPECT_EQ(w.remap[2], 1);  // 1.1 tol from vertex 0: a new vertex (vertex 1 is not a representative)
  EXPECT_EQ(w.remap[3], 0);
  EXPECT_EQ(w.mesh.vertexCount(), 2u);
  EXPECT_EQ(w.mergedCount, 2u);

  // Points straddling a grid cell boundary still merge.
  const std::vector<Vec3> q = {{-0.25 * tol, 0, 0}, {0.25 * tol, 0, 0}};
  EXPECT_EQ(weldVertices(q, {}, tol).mesh.vertexCount(), 1u);
  // Zero tolerance merges only exact copies.
  const std::vector<Vec3> r = {{1, 2, 3}, {1, 2, 3 + 1e-15}, {1, 2, 3}};
  const WeldResult z = weldVertices(r, {}, 0.0);
  EXPECT_EQ(z.mesh.vertexCount(), 2u);
  EXPECT_EQ(z.remap[2], 0);
  // Far from the origin with a tiny tolerance: cell coordinates beyond the
  // range of 64-bit integers must not break (or overflow in) the grid.
  const std::vector<Vec3> far = {{1e9, -1e9, 5e8}, {1e9, -1e9, 5e8}, {1e9, -1e9, 5e8 + 1}, {-3e10, 2e10, 1}};
  const WeldResult f = weldVertices(far, {}, 1e-12);
  EXPECT_EQ(f.remap, (std::vector<int32_t>{0, 0, 1, 2}));
}

TEST(TriMeshGeometry, UnitCubeVolumeAreaAndOutwardNormals) {
  const TriMesh c = cube();
  EXPECT_DOUBLE_EQ(enclosedVolume(c), 1.0);
  EXPECT_DOUBLE_EQ(surfaceArea(c), 6.0);
  // Volume does not depend on where the cube is.
  EXPECT_NEAR(enclosedVolume(cube(Vec3(-3, 5, 11), 2.0)), 8.0, 1e-9);

  const Vec3 centre(0.5, 0.5, 0.5);
  for (size_t t = 0; t < c.triangleCount(); ++t) {
    const Vec3 n = triangleNormal(c, t);
    EXPECT_NEAR(n.norm(), 1.0, 1e-15);
    const Vec3 faceCentre = (c.positions[c.triangles[t][0]] + c.positions[c.triangles[t][1]] +
                             c.positions[c.triangles[t][2]]) / 3.0;
    EXPECT_GT(n.dot(faceCentre - centre), 0.0) << "triangle " << t << " faces inward";
    EXPECT_DOUBLE_EQ(triangleArea(c, t), 0.5);
  }
  const std::vector<Vec3> vn = vertexNormals(c);
  ASSERT_EQ(vn.size(), 8u);
  for (size_t v = 0; v < 8; ++v) {
    EXPECT_NEAR(vn[v].norm(), 1.0, 1e-12);
    EXPECT_GT(vn[v].dot(c.positions[v] - centre), 0.0) << "vertex " << v;
  }
  // Corners 0 and 6 touch two triangles of each of their three faces: the
  // area-weighted normal is exactly the diagonal.
  EXPECT_TRUE(vn[6].isApprox(Vec3(1, 1, 1).normalized(), 1e-12));
  EXPECT_TRUE(vn[0].isApprox(Vec3(-1, -1, -1).normalized(), 1e-12));

  // Flipping every triangle flips the sign of the volume.
  TriMesh inside = c;
  for (Tri& t : inside.triangles) std::swap(t[1], t[2]);
  EXPECT_DOUBLE_EQ(enclosedVolume(inside), -1.0);
}

TEST(TriMeshGeometry, InvalidIndicesDetected) {
  TriMesh c = cube();
  EXPECT_FALSE(hasInvalidIndices(c));
  c.triangles[3][1] = 8;
  EXPECT_TRUE(hasInvalidIndices(c));
  c.triangles[3][1] = -1;
  EXPECT_TRUE(hasInvalidIndices(c));
}

}  // namespace
}  // namespace sinew
