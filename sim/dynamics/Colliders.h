// Static collision shapes shared by the solvers: the ground plane and simple
// colliders (box, sphere, capsule). Each answers "how deep is this point and
// along which outward normal", which is all a penalty contact model needs.
#pragma once

#include "core/Types.h"
#include "geometry/TriMesh.h"
#include "model/Collider.h"

#include <vector>

namespace sinew::dyn {

// The authored collider (model/Collider.h) is what the solvers probe.
using sinew::Collider;
using sinew::ColliderShape;

struct ContactPoint {
  double depth = 0;                // > 0: penetration, m
  Vec3 normal = Vec3::UnitY();     // outward from the collider, world
};

// Penetration of world point p into the collider (depth <= 0: outside).
// Callers that probe many points pass the collider's pose, computed once.
ContactPoint probe(const Collider& c, const Transform& pose, const Vec3& p);
inline ContactPoint probe(const Collider& c, const Vec3& p) { return probe(c, c.pose(), p); }

// A closed triangle mesh of the collider's surface, for drawing.
TriMesh colliderMesh(const Collider& c, int segments = 24);

// The ground: the half-space y < height.
inline ContactPoint probeGround(double height, const Vec3& p) { return {height - p.y(), Vec3::UnitY()}; }

}  // namespace sinew::dyn
