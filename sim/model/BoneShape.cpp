#include "model/BoneShape.h"

#include "geometry/Sdf.h"

#include <cmath>

namespace sinew {

const char* boneShapeKindName(BoneShapeKind k) {
  switch (k) {
    case BoneShapeKind::None: return "none";
    case BoneShapeKind::Capsule: return "capsule";
    case BoneShapeKind::Box: return "box";
  }
  return "?";
}

BoneShape BoneShape::capsule(const Vec3& start, const Vec3& end, double radius) {
  BoneShape s;
  s.kind = BoneShapeKind::Capsule;
  s.start = start;
  s.end = end;
  s.radius = radius;
  return s;
}

BoneShape BoneShape::box(const Vec3& center, const Vec3& halfExtents, const Quat& orientation) {
  BoneShape s;
  s.kind = BoneShapeKind::Box;
  s.center = center;
  s.halfExtents = halfExtents;
  s.orientation = orientation.normalized();
  return s;
}

double boneShapeDistance(const BoneShape& s, const Transform& w, const Vec3& p) {
  switch (s.kind) {
    case BoneShapeKind::None: return std::numeric_limits<double>::infinity();
    case BoneShapeKind::Capsule: return sdf::capsule(p, w.apply(s.start), w.apply(s.end), s.radius);
    case BoneShapeKind::Box: {
      const Quat r = w.rotation * s.orientation;
      const Vec3 q = (r.conjugate() * (p - w.apply(s.center))).cwiseAbs() - s.halfExtents;
      return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
    }
  }
  return std::numeric_limits<double>::infinity();
}

Aabb boneShapeBounds(const BoneShape& s, const Transform& w) {
  Aabb b;
  if (s.kind == BoneShapeKind::Capsule) {
    b.add(w.apply(s.start) - Vec3::Constant(s.radius));
    b.add(w.apply(s.start) + Vec3::Constant(s.radius));
    b.add(w.apply(s.end) - Vec3::Constant(s.radius));
    b.add(w.apply(s.end) + Vec3::Constant(s.radius));
  } else if (s.kind == BoneShapeKind::Box) {
    const Quat r = w.rotation * s.orientation;
    for (int i = 0; i < 8; ++i) {
      const Vec3 c((i & 1) ? 1 : -1, (i & 2) ? 1 : -1, (i & 4) ? 1 : -1);
      b.add(w.apply(s.center) + r * c.cwiseProduct(s.halfExtents));
    }
  }
  return b;
}

TriMesh boneShapeSurface(const BoneShape& s, const Transform& w, int segments) {
  TriMesh m;
  if (s.kind == BoneShapeKind::Box) {
    const Quat r = w.rotation * s.orientation;
    for (int i = 0; i < 8; ++i) {
      const Vec3 c((i & 1) ? 1 : -1, (i & 2) ? 1 : -1, (i & 4) ? 1 : -1);
      m.positions.push_back(w.apply(s.center) + r * c.cwiseProduct(s.halfExtents));
    }
    m.triangles = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                   {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
    return m;
  }
  if (s.kind != BoneShapeKind::Capsule) return m;
  // A capsule: two hemispheres joined by a cylinder, as rings of `segments`
  // vertices (latitude rings on each cap) plus two poles.
  const Vec3 a = w.apply(s.start), b = w.apply(s.end);
  Vec3 axis = b - a;
  const double length = axis.norm();
  axis = length > 1e-12 ? Vec3(axis / length) : Vec3::UnitY();
  const Mat3 f = sdf::frameAlong(axis);
  const Vec3 u = f.col(1), v = f.col(2);
  const int n = std::max(segments, 6);
  const int capRings = std::max(n / 4, 2);
  // Rings from the start pole to the end pole.
  std::vector<std::pair<Vec3, double>> rings;  // (centre, radius)
  for (int i = 1; i <= capRings; ++i) {
    const double phi = M_PI / 2 * double(i) / capRings;  // from the pole towards the equator
    rings.push_back({a - axis * (s.radius * std::cos(phi)), s.radius * std::sin(phi)});
  }
  // A zero-length capsule is a sphere: the two caps share their equator.
  for (int i = length > 1e-12 ? capRings : capRings - 1; i >= 1; --i) {
    const double phi = M_PI / 2 * double(i) / capRings;
    rings.push_back({b + axis * (s.radius * std::cos(phi)), s.radius * std::sin(phi)});
  }
  m.positions.push_back(a - axis * s.radius);  // start pole
  for (const auto& [c, r] : rings)
    for (int k = 0; k < n; ++k) {
      const double t = 2 * M_PI * k / n;
      m.positions.push_back(c + r * (std::cos(t) * u + std::sin(t) * v));
    }
  m.positions.push_back(b + axis * s.radius);  // end pole
  const auto ring = [&](int i, int k) { return int32_t(1 + i * n + (k % n)); };
  const auto last = int32_t(m.positions.size() - 1);
  // u x v = axis: counter-clockwise around +axis seen from +axis.
  for (int k = 0; k < n; ++k) m.triangles.push_back({0, ring(0, k + 1), ring(0, k)});
  for (int i = 0; i + 1 < int(rings.size()); ++i)
    for (int k = 0; k < n; ++k) {
      m.triangles.push_back({ring(i, k), ring(i, k + 1), ring(i + 1, k + 1)});
      m.triangles.push_back({ring(i, k), ring(i + 1, k + 1), ring(i + 1, k)});
    }
  const int lr = int(rings.size()) - 1;
  for (int k = 0; k < n; ++k) m.triangles.push_back({last, ring(lr, k), ring(lr, k + 1)});
  return m;
}

std::vector<Vec3> boneShapeAnchors(const BoneShape& s, const Transform& w) {
  std::vector<Vec3> pts;
  if (s.kind == BoneShapeKind::Capsule) {
    const Vec3 a = w.apply(s.start), b = w.apply(s.end);
    Vec3 axis = b - a;
    axis = axis.norm() > 1e-12 ? Vec3(axis.normalized()) : Vec3::UnitY();
    const Mat3 f = sdf::frameAlong(axis);
    const double r = 0.5 * s.radius;  // well inside
    const Vec3 m = 0.5 * (a + b);
    // The axis ends, or for a zero-length capsule (a sphere) points along the axis.
    const bool sphere = (b - a).norm() < 1e-9;
    pts = {sphere ? Vec3(m - r * axis) : a, sphere ? Vec3(m + r * axis) : b, m + r * f.col(1), m + r * f.col(2),
           m - r * f.col(1)};
  } else if (s.kind == BoneShapeKind::Box) {
    const Quat rot = w.rotation * s.orientation;
    // Four corners of an inset tetrahedron: non-coplanar by construction.
    const Vec3 h = 0.5 * s.halfExtents;
    for (const Vec3& c : {Vec3(1, 1, 1), Vec3(1, -1, -1), Vec3(-1, 1, -1), Vec3(-1, -1, 1)})
      pts.push_back(w.apply(s.center) + rot * c.cwiseProduct(h));
  }
  return pts;
}

}  // namespace sinew
