// Triangle/triangle, ray/triangle, segment/triangle and ray/box kernels.
#include "geometry/Intersect.h"

#include <gtest/gtest.h>

#include <limits>

namespace sinew {
namespace {

// Triangle in the z = 0 plane.
const Vec3 A0(0, 0, 0), A1(2, 0, 0), A2(0, 2, 0);

TEST(TrianglesIntersect, CrossingTriangles) {
  // A vertical triangle piercing A through its interior.
  EXPECT_TRUE(trianglesIntersect(A0, A1, A2, Vec3(0.5, 0.5, -1), Vec3(0.5, 0.5, 1), Vec3(1.5, 0.2, 0.5)));
  // Order of the two triangles and of their vertices does not matter.
  EXPECT_TRUE(trianglesIntersect(Vec3(0.5, 0.5, 1), Vec3(1.5, 0.2, 0.5), Vec3(0.5, 0.5, -1), A2, A0, A1));
  // Two triangles crossing like links of a chain (neither contains the other's vertex).
  EXPECT_TRUE(trianglesIntersect(Vec3(-1, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0.5, -1), Vec3(0, 0.5, 1),
                                 Vec3(0, -1, 0)));
}

TEST(TrianglesIntersect, SeparatedTriangles) {
  // Parallel, one above the other.
  EXPECT_FALSE(trianglesIntersect(A0, A1, A2, A0 + Vec3(0, 0, 0.1), A1 + Vec3(0, 0, 0.1), A2 + Vec3(0, 0, 0.1)));
  // B crosses A's plane but outside A (beyond the hypotenuse x + y = 2).
  EXPECT_FALSE(trianglesIntersect(A0, A1, A2, Vec3(1.6, 1.6, -1), Vec3(1.6, 1.6, 1), Vec3(2.5, 1.2, 0)));
  // The planes cross, but the intersection intervals on the line are disjoint.
  EXPECT_FALSE(trianglesIntersect(A0, A1, A2, Vec3(3, 0.5, -1), Vec3(3, 0.5, 1), Vec3(4, 0.5, 0)));
}

TEST(TrianglesIntersect, CoplanarOverlapping) {
  // Partial overlap, containment, and touching at a vertex (touching counts).
  EXPECT_TRUE(trianglesIntersect(A0, A1, A2, Vec3(1, 1, 0) - Vec3(0.5, 0.5, 0), Vec3(3, 1, 0), Vec3(1, 3, 0)));
  EXPECT_TRUE(trianglesIntersect(A0, A1, A2, Vec3(0.2, 0.2, 0), Vec3(0.6, 0.2, 0), Vec3(0.2, 0.6, 0)));
  EXPECT_TRUE(trianglesIntersect(Vec3(0.2, 0.2, 0), Vec3(0.6, 0.2, 0), Vec3(0.2, 0.6, 0), A0, A1, A2));
  EXPECT_TRUE(trianglesIntersect(A0, A1, A2, Vec3(2, 0, 0), Vec3(3, 0, 0), Vec3(3, 1, 0)));
  // Coplanar in a plane that is not axis-aligned: rounding puts the vertices
  // ~1e-16 off each other's plane, which the tolerance absorbs.
  const Vec3 n = Vec3(1, 2, 3).normalized();
  const Vec3 u = n.cross(Vec3::UnitX()).normalized(), v = n.cross(u);
  auto P = [&](double x, double y) { return Vec3(x * u + y * v + Vec3(5, -2, 1)); };
  EXPECT_TRUE(trianglesIntersect(P(0, 0), P(2, 0), P(0, 2), P(0.5, 0.5), P(3, 0.5), P(0.5, 3), 1e-12));
  EXPECT_FALSE(trianglesIntersect(P(0, 0), P(2, 0), P(0, 2), P(1.5, 1.5), P(3, 1.5), P(1.5, 3), 1e-12));
}

TEST(TrianglesIntersect, CoplanarDisjoint) {
  EXPECT_FALSE(trianglesIntersect(A0, A1, A2, Vec3(1.2, 1.2, 0), Vec3(3, 1.2, 0), Vec3(1.2, 3, 0)));
  EXPECT_FALSE(trianglesIntersect(A0, A1, A2, Vec3(-1, -1, 0), Vec3(-0.1, -1, 0), Vec3(-1, -0.1, 0)));
}

TEST(TrianglesIntersect, ToleranceAndDegenerates) {
  // A triangle hovering 1e-6 above A's interior: apart without tolerance, touching with it.
  const Vec3 b0(0.5, 0.5, 1e-6), b1(0.5, 0.5, 1), b2(0.8, 0.5, 1);
  EXPECT_FALSE(trianglesIntersect(A0, A1, A2, b0, b1, b2));
  EXPECT_TRUE(trianglesIntersect(A0, A1, A2, b0, b1, b2, 1e-5));
  // Degenerate triangles are never reported (validation counts them separately).
  EXPECT_FALSE(trianglesIntersect(A0, A1, A2, Vec3(0.5, 0.5, -1), Vec3(0.5, 0.5, 1), Vec3(0.5, 0.5, 0)));
}

TEST(IntersectRayTriangle, HitGivesParameterAndBarycentrics) {
  const Vec3 origin(0.5, 0.25, 3.0), dir(0, 0, -2);  // not unit length: t is in units of dir
  const auto hit = intersectRayTriangle(origin, dir, A0, A1, A2);
  ASSERT_TRUE(hit.has_value());
  EXPECT_NEAR(hit->t, 1.5, 1e-15);
  EXPECT_NEAR(hit->u, 0.25, 1e-15);   // weight of A1 - A0 = (2,0,0)
  EXPECT_NEAR(hit->v, 0.125, 1e-15);  // weight of A2 - A0 = (0,2,0)
  const Vec3 p = origin + hit->t * dir;
  const Vec3 q = A0 + hit->u * (A1 - A0) + hit->v * (A2 - A0);
  EXPECT_TRUE(p.isApprox(q, 1e-14));
  // Hits from behind count too (no back-face culling).
  EXPECT_TRUE(intersectRayTriangle(Vec3(0.5, 0.25, -3.0), Vec3(0, 0, 1), A0, A1, A2).has_value());
}

TEST(IntersectRayTriangle, Misses) {
  EXPECT_FALSE(intersectRayTriangle(Vec3(1.5, 1.5, 3), Vec3(0, 0, -1), A0, A1, A2));  // outside the hypotenuse
  EXPECT_FALSE(intersectRayTriangle(Vec3(0.5, 0.5, 3), Vec3(0, 0, 1), A0, A1, A2));   // triangle behind the origin
  EXPECT_FALSE(intersectRayTriangle(Vec3(0.5, 0.5, 1), Vec3(1, 0, 0), A0, A1, A2));   // parallel to the plane
  EXPECT_FALSE(intersectRayTriangle(Vec3(-0.1, 0.5, 1), Vec3(0, 0, -1), A0, A1, A2)); // beside the x = 0 edge
}

TEST(SegmentCrossesTriangle, EndpointsExcluded) {
  EXPECT_TRUE(segmentCrossesTriangle(Vec3(0.5, 0.5, -1), Vec3(0.5, 0.5, 1), A0, A1, A2));
  EXPECT_FALSE(segmentCrossesTriangle(Vec3(0.5, 0.5, 0.5), Vec3(0.5, 0.5, 1), A0, A1, A2));  // stops short
  EXPECT_FALSE(segmentCrossesTriangle(Vec3(0.5, 0.5, 0), Vec3(0.5, 0.5, 1), A0, A1, A2));    // starts on it
}

TEST(IntersectRayAabb, EntryParameterAndMisses) {
  Aabb box;
  box.add(Vec3(1, -1, -1));
  box.add(Vec3(3, 1, 1));
  const Vec3 dir(1, 0, 0);
  const auto t = intersectRayAabb(Vec3(0, 0, 0), dir.cwiseInverse(), box, 10.0);
  ASSERT_TRUE(t.has_value());
  EXPECT_DOUBLE_EQ(*t, 1.0);
  EXPECT_FALSE(intersectRayAabb(Vec3(0, 0, 0), dir.cwiseInverse(), box, 0.5));  // box beyond tMax
  EXPECT_FALSE(intersectRayAabb(Vec3(0, 2, 0), dir.cwiseInverse(), box, 10.0)); // parallel, outside the slab
  // Origin exactly on a slab plane with the direction parallel to it (0 * inf).
  const auto edge = intersectRayAabb(Vec3(0, 1, 0), dir.cwiseInverse(), box, 10.0);
  ASSERT_TRUE(edge.has_value());
  EXPECT_DOUBLE_EQ(*edge, 1.0);
  // Starting inside: entry at 0.
  EXPECT_DOUBLE_EQ(*intersectRayAabb(Vec3(2, 0, 0), Vec3(-1, 0, 0).cwiseInverse(), box, 10.0), 0.0);
}

}  // namespace
}  // namespace sinew
