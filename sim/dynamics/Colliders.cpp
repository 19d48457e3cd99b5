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

ContactPoint probe(const Collider& c, const Vec3& p) {
  const Vec3 local = c.pose.inverse().apply(p);
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
  out.normal = c.pose.rotation * out.normal;
  return out;
}

}  // namespace sinew::dyn
