#include "dynamics/Colliders.h"

#include <algorithm>
#include <cmath>

namespace sinew::dyn {

namespace {

ContactPoint sphereAt(const Vec3& centre, double radius, const Vec3& p) {
  const Vec3 d = p - centre;
  const double r = d.norm();
  ContactPoint c;
  c.depth = radius - r;
  c.normal = r > 1e-12 ? Vec3(d / r) : Vec3::UnitY();
  return c;
}

}  // namespace

ContactPoint probe(const Collider& c, const Transform& pose, const Vec3& p) {
  const Vec3 local = pose.rotation.conjugate() * (p - pose.translation);
  ContactPoint out;
  switch (c.shape) {
    case ColliderShape::Sphere:
      out = sphereAt(Vec3::Zero(), c.size.x(), local);
      break;
    case ColliderShape::Capsule: {
      const double h = c.size.y();
      const Vec3 axisPoint(0, std::clamp(local.y(), -h, h), 0);
      out = sphereAt(axisPoint, c.size.x(), local);
      break;
    }
    case ColliderShape::Box: {
      const Vec3 q = local.cwiseAbs() - c.size;
      if ((q.array() <= 0).all()) {
        // Inside: push out through the nearest face.
        int axis = 0;
        q.maxCoeff(&axis);
        out.depth = -q[axis];
        out.normal = Vec3::Zero();
        out.normal[axis] = local[axis] >= 0 ? 1.0 : -1.0;
      } else {
        const Vec3 outside = q.cwiseMax(0.0);
        const double d = outside.norm();
        out.depth = -d;
        Vec3 n = outside.cwiseProduct(local.cwiseSign());
        out.normal = d > 1e-12 ? Vec3(n / d) : Vec3::UnitY();
      }
      break;
    }
  }
  out.normal = pose.rotation * out.normal;
  return out;
}

Aabb colliderBounds(const Collider& c, const Transform& pose) {
  const Mat3 r = pose.rotation.toRotationMatrix();
  Vec3 half;
  switch (c.shape) {
    case ColliderShape::Sphere:
      half = Vec3::Constant(c.size.x());
      break;
    case ColliderShape::Capsule:
      half = Vec3::Constant(c.size.x()) + c.size.y() * r.col(1).cwiseAbs();
      break;
    case ColliderShape::Box:
      half = r.cwiseAbs() * c.size;
      break;
  }
  Aabb box;
  box.add(pose.translation - half);
  box.add(pose.translation + half);
  return box;
}

ColliderGrid::ColliderGrid(const std::vector<Collider>& colliders) {
  std::vector<Aabb> boxes;
  double largest = 0;
  for (const Collider& c : colliders) {
    poses_.push_back(c.pose());
    boxes.push_back(colliderBounds(c, poses_.back()));
    largest = std::max(largest, (boxes.back().max - boxes.back().min).maxCoeff());
  }
  cell_ = largest > 0 && std::isfinite(largest) ? largest : 1.0;
  for (size_t c = 0; c < boxes.size(); ++c) {
    const Vec3 lo = (boxes[c].min / cell_).array().floor(), hi = (boxes[c].max / cell_).array().floor();
    for (int64_t x = int64_t(lo.x()); x <= int64_t(hi.x()); ++x)
      for (int64_t y = int64_t(lo.y()); y <= int64_t(hi.y()); ++y)
        for (int64_t z = int64_t(lo.z()); z <= int64_t(hi.z()); ++z) cells_[key(x, y, z)].push_back(int32_t(c));
  }
}

uint64_t ColliderGrid::key(int64_t x, int64_t y, int64_t z) const {
  // 21 bits per axis (cells wrap beyond +-1M cells: a false candidate, never a missed one).
  auto bits = [](int64_t v) { return uint64_t(v) & ((uint64_t(1) << 21) - 1); };
  return (bits(x) << 42) | (bits(y) << 21) | bits(z);
}

const std::vector<int32_t>& ColliderGrid::candidates(const Vec3& p) const {
  static const std::vector<int32_t> none;
  if (cells_.empty() || !p.allFinite()) return none;
  const Vec3 q = (p / cell_).array().floor();
  const auto it = cells_.find(key(int64_t(q.x()), int64_t(q.y()), int64_t(q.z())));
  return it == cells_.end() ? none : it->second;
}

namespace {

// A UV sphere of `radius` whose upper half is lifted by +h and lower half
// lowered by -h along y: a sphere for h = 0, a capsule otherwise.
TriMesh roundedMesh(double radius, double h, int segments) {
  const int rings = segments / 2 + (segments / 2) % 2;  // even, so that the equator is a ring
  std::vector<std::pair<double, double>> profile;       // (distance from the axis, y) of each ring
  for (int i = 1; i < rings; ++i) {
    const double theta = M_PI * i / rings, rad = radius * std::sin(theta), y = radius * std::cos(theta);
    if (2 * i < rings) profile.emplace_back(rad, y + h);
    else if (2 * i > rings) profile.emplace_back(rad, y - h);
    else {
      profile.emplace_back(rad, h);
      if (h > 0) profile.emplace_back(rad, -h);
    }
  }
  TriMesh m;
  m.positions.push_back(Vec3(0, radius + h, 0));
  for (const auto& [rad, y] : profile)
    for (int k = 0; k < segments; ++k) {
      const double phi = 2 * M_PI * k / segments;
      m.positions.push_back(Vec3(rad * std::cos(phi), y, rad * std::sin(phi)));
    }
  m.positions.push_back(Vec3(0, -radius - h, 0));
  const auto n = static_cast<int32_t>(profile.size()), seg = static_cast<int32_t>(segments);
  const auto at = [&](int32_t r, int32_t k) { return 1 + r * seg + (k % seg); };
  for (int32_t k = 0; k < seg; ++k) m.triangles.push_back({0, at(0, k + 1), at(0, k)});
  for (int32_t r = 0; r + 1 < n; ++r)
    for (int32_t k = 0; k < seg; ++k) {
      m.triangles.push_back({at(r, k), at(r, k + 1), at(r + 1, k + 1)});
      m.triangles.push_back({at(r, k), at(r + 1, k + 1), at(r + 1, k)});
    }
  const auto south = static_cast<int32_t>(m.positions.size() - 1);
  for (int32_t k = 0; k < seg; ++k) m.triangles.push_back({south, at(n - 1, k), at(n - 1, k + 1)});
  return m;
}

TriMesh boxMesh(const Vec3& half) {
  TriMesh m;
  for (int i = 0; i < 8; ++i)
    m.positions.push_back(Vec3(i & 1 ? half.x() : -half.x(), i & 2 ? half.y() : -half.y(), i & 4 ? half.z() : -half.z()));
  const int32_t quads[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  for (const auto& q : quads) {
    m.triangles.push_back({q[0], q[1], q[2]});
    m.triangles.push_back({q[0], q[2], q[3]});
  }
  return m;
}

}  // namespace

TriMesh colliderMesh(const Collider& c, int segments) {
  segments = std::max(segments, 6);
  TriMesh m = c.shape == ColliderShape::Box      ? boxMesh(c.size)
              : c.shape == ColliderShape::Sphere ? roundedMesh(c.size.x(), 0, segments)
                                                 : roundedMesh(c.size.x(), std::max(c.size.y(), 0.0), segments);
  const Transform pose = c.pose();
  for (Vec3& p : m.positions) p = pose.apply(p);
  return m;
}

}  // namespace sinew::dyn
