// Exact-ish geometric kernels on triangles, segments and rays (free functions,
// one idea each). Tolerances are absolute distances in the caller's units.
#pragma once

#include "core/Types.h"

#include <optional>

namespace sinew {

// Ray/triangle intersection (Moller-Trumbore). Returns the ray parameter t >= 0
// of the hit, and barycentric (u,v) of the hit point w.r.t. (b-a, c-a).
struct RayTriangleHit {
  double t = 0, u = 0, v = 0;
};
std::optional<RayTriangleHit> intersectRayTriangle(const Vec3& origin, const Vec3& dir, const Vec3& a,
                                                   const Vec3& b, const Vec3& c);

// True if the open segment (p,q) (endpoints excluded by `eps` in parameter
// space) crosses the closed triangle (a,b,c).
bool segmentCrossesTriangle(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c,
                            double eps = 1e-9);

// True if the two triangles intersect (touching within `tol` counts).
// Handles the coplanar case with a 2D overlap test.
bool trianglesIntersect(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0, const Vec3& b1,
                        const Vec3& b2, double tol = 0.0);

// Ray/box slab test: entry parameter, or nullopt when the ray misses.
std::optional<double> intersectRayAabb(const Vec3& origin, const Vec3& invDir, const Aabb& box, double tMax);

}  // namespace sinew
