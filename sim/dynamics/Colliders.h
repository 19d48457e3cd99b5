// Static collision shapes shared by the solvers: the ground plane and simple
// colliders (box, sphere, capsule). Each answers "how deep is this point and
// along which outward normal", which is all a penalty contact model needs.
#pragma once

#include "core/Types.h"
#include "geometry/TriMesh.h"
#include "model/Collider.h"

#include <cstdint>
#include <unordered_map>
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

// The collider's world bounding box.
Aabb colliderBounds(const Collider& c, const Transform& pose);

// Spatial hashing for the contact broad phase: every collider's world
// bounding box is entered into the cells of a uniform grid it overlaps (cell
// size: the largest box's largest extent, so a collider spans at most 2 cells
// per axis), and a point is probed only against the colliders listed in its
// cell, i.e. those whose box may contain it: any collider a point penetrates
// is among its candidates. Candidates come in ascending collider order, so
// the deepest contact is chosen as by probing every collider in turn.
class ColliderGrid {
 public:
  ColliderGrid() = default;
  explicit ColliderGrid(const std::vector<Collider>& colliders);
  const std::vector<int32_t>& candidates(const Vec3& p) const;
  const std::vector<Transform>& poses() const { return poses_; }
  double cellSize() const { return cell_; }
  size_t cellCount() const { return cells_.size(); }

 private:
  uint64_t key(int64_t x, int64_t y, int64_t z) const;
  double cell_ = 1;
  std::vector<Transform> poses_;
  std::unordered_map<uint64_t, std::vector<int32_t>> cells_;
};

// A closed triangle mesh of the collider's surface, for drawing.
TriMesh colliderMesh(const Collider& c, int segments = 24);

// The ground: the half-space y < height.
inline ContactPoint probeGround(double height, const Vec3& p) { return {height - p.y(), Vec3::UnitY()}; }

}  // namespace sinew::dyn
