#include "Camera.h"

#include <algorithm>
#include <cmath>

namespace sinew::render {

namespace {
constexpr double kMaxPitch = 1.5533;  // 89 degrees
}

Vec3 Camera::forward() const {
  return Vec3(-std::sin(yaw) * std::cos(pitch), -std::sin(pitch), -std::cos(yaw) * std::cos(pitch));
}
Vec3 Camera::eye() const { return target - distance * forward(); }
Vec3 Camera::right() const { return forward().cross(Vec3::UnitY()).normalized(); }
Vec3 Camera::up() const { return right().cross(forward()).normalized(); }

Mat4f Camera::view() const {
  const Vec3 f = forward(), r = right(), u = up(), e = eye();
  Mat4 m = Mat4::Identity();
  m.row(0).head<3>() = r;
  m.row(1).head<3>() = u;
  m.row(2).head<3>() = -f;
  m(0, 3) = -r.dot(e);
  m(1, 3) = -u.dot(e);
  m(2, 3) = f.dot(e);
  return m.cast<float>();
}

Mat4f Camera::projection(double aspect) const {
  const double n = nearPlane(), f = farPlane();
  const double t = 1.0 / std::tan(0.5 * fovY * M_PI / 180.0);
  Mat4 p = Mat4::Zero();
  if (orthographic) {
    const double h = distance / t;  // half height at the target
    p(0, 0) = 1.0 / (h * std::max(aspect, 1e-6));
    p(1, 1) = 1.0 / h;
    p(2, 2) = -2.0 / (f - n);
    p(2, 3) = -(f + n) / (f - n);
    p(3, 3) = 1;
    return p.cast<float>();
  }
  p(0, 0) = t / std::max(aspect, 1e-6);
  p(1, 1) = t;
  p(2, 2) = (f + n) / (n - f);
  p(2, 3) = 2 * f * n / (n - f);
  p(3, 2) = -1;
  return p.cast<float>();
}

void Camera::lookAlong(Axis axis) {
  yaw = axis == Axis::Side ? 0.5 * M_PI : 0.0;
  pitch = axis == Axis::Top ? kMaxPitch : 0.0;
  orthographic = true;
}

void Camera::orbit(double dYaw, double dPitch) {
  orthographic = false;
  yaw = std::remainder(yaw + dYaw, 2 * M_PI);
  pitch = std::clamp(pitch + dPitch, -kMaxPitch, kMaxPitch);
}

void Camera::pan(double dx, double dy, int viewportHeight) {
  // World size of one pixel at the target's depth.
  const double perPixel = 2.0 * distance * std::tan(0.5 * fovY * M_PI / 180.0) / std::max(viewportHeight, 1);
  target += (-dx * right() + dy * up()) * perPixel;
}

void Camera::dolly(double factor) { distance = std::clamp(distance * factor, 1e-3, 1e5); }

void Camera::frame(const Aabb& box) {
  if (box.empty()) return;
  target = box.center();
  const double radius = std::max(0.5 * box.diagonal(), 1e-3);
  distance = radius / std::sin(0.5 * fovY * M_PI / 180.0) * 1.05;
}

Ray Camera::rayThrough(double x, double y, int width, int height) const {
  const double aspect = double(width) / std::max(height, 1);
  const double t = std::tan(0.5 * fovY * M_PI / 180.0);
  const double ndcX = 2.0 * x / std::max(width, 1) - 1.0;
  const double ndcY = 1.0 - 2.0 * y / std::max(height, 1);
  if (orthographic)  // parallel rays from the eye's plane
    return {eye() + distance * t * (ndcX * aspect * right() + ndcY * up()), forward()};
  const Vec3 dir = (forward() + ndcX * t * aspect * right() + ndcY * t * up()).normalized();
  return {eye(), dir};
}

bool Camera::project(const Vec3& p, int width, int height, double* outX, double* outY, double* outDepth) const {
  const Eigen::Vector4f clip =
      projection(double(width) / std::max(height, 1)) * view() * Eigen::Vector4f(float(p.x()), float(p.y()), float(p.z()), 1.f);
  if (clip.w() <= 0) return false;
  const double nx = clip.x() / clip.w(), ny = clip.y() / clip.w();
  *outX = (nx + 1) * 0.5 * width;
  *outY = (1 - ny) * 0.5 * height;
  if (outDepth) *outDepth = clip.z() / clip.w();
  return true;
}

void CameraFollow::track(Camera& camera, const Vec3& at, bool hold) {
  if (!at.allFinite()) return;
  if (last_ && !hold) {
    const Vec3 across(at.x() - last_->x(), 0, at.z() - last_->z());
    camera.target += across;
    carried_ += across;
  }
  last_ = at;
}

void CameraFollow::release(Camera& camera) {
  camera.target -= carried_;
  reset();
}

void CameraFollow::reset() {
  last_.reset();
  carried_ = Vec3::Zero();
}

}  // namespace sinew::render
