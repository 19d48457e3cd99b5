// Signed distance primitives and blends (negative inside), for generating
// example characters and bone shapes. Distances in metres.
#pragma once

#include "core/Types.h"

#include <algorithm>
#include <cmath>

namespace sinew::sdf {

inline double sphere(const Vec3& p, const Vec3& c, double r) { return (p - c).norm() - r; }

// Capsule around segment ab with radius r.
inline double capsule(const Vec3& p, const Vec3& a, const Vec3& b, double r) {
  const Vec3 ab = b - a;
  const double t = std::clamp((p - a).dot(ab) / std::max(ab.squaredNorm(), 1e-30), 0.0, 1.0);
  return (p - (a + t * ab)).norm() - r;
}

// Capsule whose radius varies linearly from ra (at a) to rb (at b).
inline double taperedCapsule(const Vec3& p, const Vec3& a, const Vec3& b, double ra, double rb) {
  const Vec3 ab = b - a;
  const double t = std::clamp((p - a).dot(ab) / std::max(ab.squaredNorm(), 1e-30), 0.0, 1.0);
  return (p - (a + t * ab)).norm() - (ra + t * (rb - ra));
}

// Ellipsoid with semi-axes `radii` along the columns of `frame` (approximate
// distance, exact on the surface; good enough for blending).
inline double ellipsoid(const Vec3& p, const Vec3& c, const Mat3& frame, const Vec3& radii) {
  const Vec3 q = frame.transpose() * (p - c);
  const double k0 = (q.array() / radii.array()).matrix().norm();
  const double k1 = (q.array() / (radii.array() * radii.array())).matrix().norm();
  return k1 > 0 ? k0 * (k0 - 1.0) / k1 : -radii.minCoeff();
}

// Torus around `axis` (unit) through c: major radius R, tube radius r.
inline double torus(const Vec3& p, const Vec3& c, const Vec3& axis, double R, double r) {
  const Vec3 d = p - c;
  const double h = d.dot(axis);
  const double radial = (d - h * axis).norm();
  return std::hypot(radial - R, h) - r;
}

// Polynomial smooth minimum (blend width k, metres).
inline double smoothUnion(double a, double b, double k) {
  if (k <= 0) return std::min(a, b);
  const double h = std::clamp(0.5 + 0.5 * (b - a) / k, 0.0, 1.0);
  return b + (a - b) * h - k * h * (1.0 - h);
}

// An orthonormal frame whose first column is `axis` (unit).
inline Mat3 frameAlong(const Vec3& axis) {
  const Vec3 x = axis.normalized();
  const Vec3 helper = std::abs(x.y()) < 0.9 ? Vec3::UnitY() : Vec3::UnitX();
  const Vec3 y = helper.cross(x).normalized();
  Mat3 f;
  f.col(0) = x;
  f.col(1) = y;
  f.col(2) = x.cross(y);
  return f;
}

}  // namespace sinew::sdf
