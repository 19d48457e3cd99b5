// TriangleTree queries against brute force over all triangles.
#include "geometry/TriangleTree.h"

#include "geometry/Intersect.h"
#include "geometry/Sdf.h"
#include "geometry/SurfaceNets.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace sinew {
namespace {

// A closed sphere-like mesh (radius 1, centre c) of ~2,000 triangles.
TriMesh sphereMesh(const Vec3& c = Vec3(0.1, -0.2, 0.3)) {
  Aabb box;
  box.add(c - Vec3::Constant(1.0));
  box.add(c + Vec3::Constant(1.0));
  SurfaceNetsOptions o;
  o.spacing = 0.12;
  return extractSurfaceNets([&](const Vec3& p) { return sdf::sphere(p, c, 1.0); }, box, o);
}

Vec3 randomUnit(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  for (;;) {
    const Vec3 v(n(rng), n(rng), n(rng));
    if (v.norm() > 1e-3) return v.normalized();
  }
}

struct BruteHit {
  int32_t triangle = -1;
  double t = std::numeric_limits<double>::infinity();
};

BruteHit bruteRaycast(const TriMesh& m, const Vec3& o, const Vec3& d) {
  BruteHit best;
  for (size_t t = 0; t < m.triangleCount(); ++t) {
    const Tri& tri = m.triangles[t];
    const auto h = intersectRayTriangle(o, d, m.positions[tri[0]], m.positions[tri[1]], m.positions[tri[2]]);
    if (h && (h->t < best.t || (h->t == best.t && int32_t(t) < best.triangle))) best = {int32_t(t), h->t};
  }
  return best;
}

TEST(TriangleTree, RaycastAgreesWithBruteForce) {
  const TriMesh m = sphereMesh();
  ASSERT_GT(m.triangleCount(), 1000u);
  const TriangleTree tree(m);
  EXPECT_EQ(tree.mesh(), &m);
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> u(-1.6, 1.6);
  int hits = 0, misses = 0;
  for (int i = 0; i < 200; ++i) {
    // Origins inside and outside the sphere, directions anywhere; some rays
    // aim at the sphere so that both hits and misses are well represented.
    const Vec3 o(u(rng), u(rng), u(rng));
    Vec3 d = randomUnit(rng);
    if (i % 3 == 0) d = (Vec3(0.1, -0.2, 0.3) + 0.5 * randomUnit(rng) - o).normalized();
    const BruteHit expected = bruteRaycast(m, o, d);
    const auto got = tree.raycast(o, d);
    if (expected.triangle < 0) {
      EXPECT_FALSE(got.has_value()) << "ray " << i;
      ++misses;
      continue;
    }
    ++hits;
    ASSERT_TRUE(got.has_value()) << "ray " << i;
    EXPECT_EQ(got->t, expected.t) << "ray " << i;
    EXPECT_EQ(got->triangle, expected.triangle) << "ray " << i;
    EXPECT_TRUE(got->point.isApprox(o + expected.t * d, 1e-12));
    // Barycentric weights reproduce the hit point on the triangle.
    const Tri& tri = m.triangles[got->triangle];
    const Vec3 q = got->barycentric[0] * m.positions[tri[0]] + got->barycentric[1] * m.positions[tri[1]] +
                   got->barycentric[2] * m.positions[tri[2]];
    EXPECT_LT((q - got->point).norm(), 1e-9);
    EXPECT_NEAR(got->barycentric.sum(), 1.0, 1e-12);
    // tMax below the hit hides it.
    EXPECT_FALSE(tree.raycast(o, d, 0.999 * expected.t).has_value()) << "ray " << i;
  }
  EXPECT_GT(hits, 50);
  EXPECT_GT(misses, 10);
}

TEST(TriangleTree, RaycastAllThroughClosedSphereHitsEvenly) {
  const Vec3 c(0.1, -0.2, 0.3);
  const TriMesh m = sphereMesh(c);
  const TriangleTree tree(m);
  std::mt19937 rng(7);
  int through = 0;
  for (int i = 0; i < 100; ++i) {
    // From outside (distance 3 from the centre) towards a point near the centre.
    const Vec3 o = c + 3.0 * randomUnit(rng);
    const Vec3 d = (c + 0.3 * randomUnit(rng) - o).normalized();
    const std::vector<RayHit> hits = tree.raycastAll(o, d);
    ASSERT_EQ(hits.size(), 2u) << "ray " << i << ": enter and leave";
    EXPECT_LE(hits[0].t, hits[1].t);
    // Entering through a front face, leaving through a back face.
    EXPECT_LT(triangleNormal(m, hits[0].triangle).dot(d), 0.0);
    EXPECT_GT(triangleNormal(m, hits[1].triangle).dot(d), 0.0);
    // The first of them is what raycast returns.
    const auto first = tree.raycast(o, d);
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(first->triangle, hits[0].triangle);
    ++through;
  }
  EXPECT_EQ(through, 100);
  // Random rays from anywhere: an even count from outside, odd from inside.
  for (int i = 0; i < 100; ++i) {
    const Vec3 o = c + (0.2 + 2.5 * (i % 10) / 10.0) * randomUnit(rng);
    const Vec3 d = randomUnit(rng);
    const size_t n = tree.raycastAll(o, d).size();
    const bool inside = (o - c).norm() < 0.95;
    const bool outside = (o - c).norm() > 1.05;
    if (inside) {
      EXPECT_EQ(n % 2, 1u) << "ray " << i;
    } else if (outside) {
      EXPECT_EQ(n % 2, 0u) << "ray " << i;
    }
  }
}

std::set<std::pair<int32_t, int32_t>> bruteOverlapPairs(const TriMesh& m, double inflate) {
  std::vector<Aabb> boxes(m.triangleCount());
  for (size_t t = 0; t < m.triangleCount(); ++t)
    for (int32_t v : m.triangles[t]) boxes[t].add(m.positions[v]);
  std::set<std::pair<int32_t, int32_t>> out;
  for (size_t a = 0; a < boxes.size(); ++a)
    for (size_t b = a + 1; b < boxes.size(); ++b) {
      Aabb ia = boxes[a];
      ia.min.array() -= inflate;
      ia.max.array() += inflate;
      if (ia.overlaps(boxes[b])) out.insert({int32_t(a), int32_t(b)});
    }
  return out;
}

TEST(TriangleTree, SelfOverlapPairsMatchBruteForce) {
  const TriMesh m = sphereMesh();
  const TriangleTree tree(m);
  for (double inflate : {0.0, 0.05}) {
    std::vector<std::pair<int32_t, int32_t>> visited;
    const bool complete = tree.selfOverlapPairs(inflate, [&](int32_t a, int32_t b) {
      visited.push_back({a, b});
      return true;
    });
    EXPECT_TRUE(complete);
    for (const auto& [a, b] : visited) EXPECT_LT(a, b);
    const std::set<std::pair<int32_t, int32_t>> got(visited.begin(), visited.end());
    EXPECT_EQ(got.size(), visited.size()) << "a pair was visited twice (inflate " << inflate << ")";
    EXPECT_EQ(got, bruteOverlapPairs(m, inflate)) << "inflate " << inflate;
  }
  // Deterministic order, and early stop.
  std::vector<std::pair<int32_t, int32_t>> first, second;
  tree.selfOverlapPairs(0.0, [&](int32_t a, int32_t b) {
    first.push_back({a, b});
    return true;
  });
  const bool complete = tree.selfOverlapPairs(0.0, [&](int32_t a, int32_t b) {
    second.push_back({a, b});
    return second.size() < 5;
  });
  EXPECT_FALSE(complete);
  ASSERT_EQ(second.size(), 5u);
  EXPECT_TRUE(std::equal(second.begin(), second.end(), first.begin()));
}

TEST(TriangleTree, BoxQueryMatchesBruteForce) {
  const TriMesh m = sphereMesh();
  const TriangleTree tree(m);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.2, 1.2), s(0.0, 0.5);
  for (int i = 0; i < 50; ++i) {
    Aabb q;
    const Vec3 lo(u(rng), u(rng), u(rng));
    q.add(lo);
    q.add(lo + Vec3(s(rng), s(rng), s(rng)));
    std::set<int32_t> got;
    tree.query(q, [&](int32_t t) { EXPECT_TRUE(got.insert(t).second) << "triangle " << t << " visited twice"; });
    std::set<int32_t> expected;
    for (size_t t = 0; t < m.triangleCount(); ++t) {
      Aabb b;
      for (int32_t v : m.triangles[t]) b.add(m.positions[v]);
      if (b.overlaps(q)) expected.insert(int32_t(t));
    }
    EXPECT_EQ(got, expected) << "query " << i;
  }
}

TEST(TriangleTree, EmptyMesh) {
  const TriMesh m;
  const TriangleTree tree(m);
  EXPECT_TRUE(tree.empty());
  EXPECT_FALSE(tree.raycast(Vec3::Zero(), Vec3::UnitX()).has_value());
  EXPECT_TRUE(tree.raycastAll(Vec3::Zero(), Vec3::UnitX()).empty());
  EXPECT_TRUE(tree.selfOverlapPairs(0.0, [](int32_t, int32_t) { return true; }));
}

}  // namespace
}  // namespace sinew
