// Static collision shapes shared by the solvers: the ground plane and simple
// colliders (box, sphere, capsule). Each answers "how deep is this point and
// along which outward normal", which is all a penalty contact model needs.
#pragma once

#include "core/Types.h"

#include <vector>

namespace sinew::dyn {

enum class ColliderShape : uint8_t { Sphere, Box, Capsule };

struct Collider {
  ColliderShape shape = ColliderShape::Sphere;
  Transform pose;                  // collider frame -> world
  Vec3 size = Vec3::Constant(0.1); // sphere: x = radius; box: half extents; capsule: x = radius, y = half length along local y
  double friction = 0.8;
  bool operator==(const Collider&) const = default;
};

struct ContactPoint {
  double depth = 0;                // > 0: penetration, m
  Vec3 normal = Vec3::UnitY();     // outward from the collider, world
};

// Penetration of world point p into the collider (depth <= 0: outside).
ContactPoint probe(const Collider& c, const Vec3& p);

// The ground: the half-space y < height.
inline ContactPoint probeGround(double height, const Vec3& p) { return {height - p.y(), Vec3::UnitY()}; }

}  // namespace sinew::dyn
