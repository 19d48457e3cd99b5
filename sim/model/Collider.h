// Static obstacles of a scene, as the user authors them (the Simulate panel,
// `sinew-cli simulate --collider`, the project's "simulation" section). The
// solvers probe them for contact through dynamics/Colliders.h.
#pragma once

#include "core/Types.h"

#include <optional>
#include <string>
#include <string_view>

namespace sinew {

enum class ColliderShape : uint8_t { Sphere, Box, Capsule };
const char* colliderShapeName(ColliderShape s);                      // "sphere", "box", "capsule"
std::optional<ColliderShape> colliderShapeFromName(std::string_view name);

struct Collider {
  std::string name;
  ColliderShape shape = ColliderShape::Sphere;
  Vec3 center = Vec3::Zero();              // m, world
  Vec3 rotationDegrees = Vec3::Zero();     // Euler angles, applied about x, then y, then z (world axes)
  Vec3 size = Vec3::Constant(0.1);         // sphere: x = radius; box: half extents; capsule: x = radius, y = half length along local y
  double friction = 0.8;                   // Coulomb coefficient
  bool operator==(const Collider&) const = default;

  Transform pose() const;                  // collider frame -> world
  // Throws InputError(context, ...) naming the collider: non-finite values,
  // sizes not positive, negative friction.
  void validate(const std::string& context) const;
};

}  // namespace sinew
