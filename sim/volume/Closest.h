// Closest points on triangles and tetrahedra (free functions, header-only).
#pragma once

#include "core/Types.h"

#include <limits>

namespace sinew {

// Closest point on triangle (a, b, c) to p (Ericson, Real-Time Collision
// Detection, 5.1.5).
inline Vec3 closestPointOnTriangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return a;
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + d1 / (d1 - d3) * ab;
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + d2 / (d2 - d6) * ac;
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b);
  const double denom = 1.0 / (va + vb + vc);
  return a + ab * (vb * denom) + ac * (vc * denom);
}

inline double pointTriangleDistanceSquared(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  return (p - closestPointOnTriangle(p, a, b, c)).squaredNorm();
}

// Barycentric coordinates of p in tet (x0, x1, x2, x3): weights summing to 1
// with p = sum w_k x_k (negative outside). Zero weights for a flat tet.
inline std::array<double, 4> tetBarycentric(const Vec3& p, const Vec3& x0, const Vec3& x1, const Vec3& x2,
                                            const Vec3& x3) {
  Mat3 m;
  m.col(0) = x1 - x0;
  m.col(1) = x2 - x0;
  m.col(2) = x3 - x0;
  const double det = m.determinant();
  if (det == 0 || !std::isfinite(det)) return {0, 0, 0, 0};
  // Cramer's rule, then w0 = 1 - w1 - w2 - w3 so the weights sum to 1.
  const Vec3 r = p - x0;
  const Vec3 c01 = m.col(0).cross(m.col(1)), c12 = m.col(1).cross(m.col(2)), c20 = m.col(2).cross(m.col(0));
  const double w1 = r.dot(c12) / det, w2 = r.dot(c20) / det, w3 = r.dot(c01) / det;
  return {1.0 - w1 - w2 - w3, w1, w2, w3};
}

// Squared distance from p to the solid tet (0 inside).
inline double pointTetDistanceSquared(const Vec3& p, const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3) {
  const std::array<double, 4> w = tetBarycentric(p, x0, x1, x2, x3);
  if (w[0] >= 0 && w[1] >= 0 && w[2] >= 0 && w[3] >= 0 && (w[0] + w[1] + w[2] + w[3]) > 0) return 0.0;
  double d = pointTriangleDistanceSquared(p, x1, x2, x3);
  d = std::min(d, pointTriangleDistanceSquared(p, x0, x2, x3));
  d = std::min(d, pointTriangleDistanceSquared(p, x0, x1, x3));
  d = std::min(d, pointTriangleDistanceSquared(p, x0, x1, x2));
  return d;
}

}  // namespace sinew
