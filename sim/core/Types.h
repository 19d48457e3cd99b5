// Basic value types shared by all of sim/: vectors, matrices, rigid transforms,
// triangles and bounding boxes. Simulation uses double precision throughout;
// the renderer converts to float at its boundary.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <array>
#include <cstdint>
#include <limits>

namespace sinew {

using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;
using Mat3 = Eigen::Matrix3d;
using Mat4 = Eigen::Matrix4d;
using Quat = Eigen::Quaterniond;

// The cross-product matrix: skew(a) b = a x b.
inline Mat3 skew(const Vec3& a) {
  Mat3 m;
  m << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return m;
}

// Identity of a project object (never reused within a project; 0: none).
using ObjectId = uint64_t;

// Vertex indices of one triangle, counter-clockwise seen from outside.
using Tri = std::array<int32_t, 3>;

// Rigid transform: x_world = rotation * x_local + translation.
struct Transform {
  Quat rotation = Quat::Identity();
  Vec3 translation = Vec3::Zero();

  static Transform identity() { return {}; }
  Vec3 apply(const Vec3& p) const { return rotation * p + translation; }
  Transform operator*(const Transform& b) const {
    return {(rotation * b.rotation).normalized(), rotation * b.translation + translation};
  }
  Transform inverse() const {
    const Quat inv = rotation.conjugate();
    return {inv, -(inv * translation)};
  }
  Mat4 matrix() const {
    Mat4 m = Mat4::Identity();
    m.topLeftCorner<3, 3>() = rotation.toRotationMatrix();
    m.topRightCorner<3, 1>() = translation;
    return m;
  }
};

// Axis-aligned bounding box; empty() until a point is added.
struct Aabb {
  Vec3 min = Vec3::Constant(std::numeric_limits<double>::infinity());
  Vec3 max = Vec3::Constant(-std::numeric_limits<double>::infinity());

  bool empty() const { return !(min.x() <= max.x()); }
  void add(const Vec3& p) {
    min = min.cwiseMin(p);
    max = max.cwiseMax(p);
  }
  void add(const Aabb& b) {
    min = min.cwiseMin(b.min);
    max = max.cwiseMax(b.max);
  }
  Vec3 center() const { return 0.5 * (min + max); }
  Vec3 size() const { return empty() ? Vec3::Zero() : Vec3(max - min); }
  double diagonal() const { return size().norm(); }
  bool overlaps(const Aabb& b) const {
    return (min.array() <= b.max.array()).all() && (b.min.array() <= max.array()).all();
  }
};

}  // namespace sinew
