#include "model/Collider.h"

#include "core/Error.h"

#include <cmath>

namespace sinew {

const char* colliderShapeName(ColliderShape s) {
  switch (s) {
    case ColliderShape::Sphere: return "sphere";
    case ColliderShape::Box: return "box";
    case ColliderShape::Capsule: return "capsule";
  }
  return "?";
}

std::optional<ColliderShape> colliderShapeFromName(std::string_view name) {
  for (ColliderShape s : {ColliderShape::Sphere, ColliderShape::Box, ColliderShape::Capsule})
    if (name == colliderShapeName(s)) return s;
  return std::nullopt;
}

Transform Collider::pose() const {
  const Vec3 r = rotationDegrees * (M_PI / 180.0);
  Transform t;
  t.rotation = (Eigen::AngleAxisd(r.z(), Vec3::UnitZ()) * Eigen::AngleAxisd(r.y(), Vec3::UnitY()) *
                Eigen::AngleAxisd(r.x(), Vec3::UnitX()))
                   .normalized();
  t.translation = center;
  return t;
}

void Collider::validate(const std::string& context) const {
  const std::string what = "collider '" + name + "'";
  if (!center.allFinite() || !rotationDegrees.allFinite() || !size.allFinite() || !std::isfinite(friction))
    throw InputError(context, what + " has a non-finite value");
  if (shape == ColliderShape::Box) {
    if (!(size.minCoeff() > 0)) throw InputError(context, what + ": its half extents must be positive");
  } else if (!(size.x() > 0)) {
    throw InputError(context, what + ": its radius must be positive");
  }
  if (shape == ColliderShape::Capsule && size.y() < 0) throw InputError(context, what + ": its half length must not be negative");
  if (friction < 0) throw InputError(context, what + ": friction must not be negative");
}

}  // namespace sinew
