// Which part of the body is "bone": a shape per bone, in the rest frame of
// the joint that owns the bone (joint j owns the bone from j towards its
// child; leaf joints own a bone that extends along their own direction).
// Volumetric meshing fixes the tet nodes inside a bone shape to the bone
// (Liu et al. 2013), or meshes the shape as a rigid region (Li et al. 2019).
#pragma once

#include "core/Types.h"
#include "geometry/TriMesh.h"

#include <vector>

namespace sinew {

enum class BoneShapeKind : uint8_t { None, Capsule, Box };
const char* boneShapeKindName(BoneShapeKind k);

struct BoneShape {
  BoneShapeKind kind = BoneShapeKind::None;
  // Capsule: a segment (start, end) swept by a sphere of `radius`.
  Vec3 start = Vec3::Zero();  // joint-local, metres
  Vec3 end = Vec3::Zero();
  double radius = 0.0;
  // Box: centre, half extents and orientation, joint-local.
  Vec3 center = Vec3::Zero();
  Vec3 halfExtents = Vec3::Zero();
  Quat orientation = Quat::Identity();

  bool operator==(const BoneShape& o) const {
    return kind == o.kind && start == o.start && end == o.end && radius == o.radius && center == o.center &&
           halfExtents == o.halfExtents && orientation.coeffs() == o.orientation.coeffs();
  }
  static BoneShape capsule(const Vec3& start, const Vec3& end, double radius);
  static BoneShape box(const Vec3& center, const Vec3& halfExtents, const Quat& orientation = Quat::Identity());
};

// Signed distance from world point `p` to the shape placed by `jointWorld`
// (negative inside). +infinity for BoneShapeKind::None.
double boneShapeDistance(const BoneShape& shape, const Transform& jointWorld, const Vec3& p);
inline bool boneShapeContains(const BoneShape& shape, const Transform& jointWorld, const Vec3& p) {
  return boneShapeDistance(shape, jointWorld, p) <= 0.0;
}

// World-space bounding box of the placed shape (empty for None).
Aabb boneShapeBounds(const BoneShape& shape, const Transform& jointWorld);

// A closed, outward-oriented triangle surface of the placed shape; `segments`
// sets the resolution around a capsule (a box has 12 triangles).
TriMesh boneShapeSurface(const BoneShape& shape, const Transform& jointWorld, int segments = 12);

// At least four non-coplanar world points strictly inside the placed shape
// (the axis ends and points off the axis for a capsule, inset corners for a
// box): inserted as mesh nodes so that every bone holds enough fixed nodes
// to define a rigid frame.
std::vector<Vec3> boneShapeAnchors(const BoneShape& shape, const Transform& jointWorld);

}  // namespace sinew
