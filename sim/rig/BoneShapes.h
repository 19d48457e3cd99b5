// Default bone shapes for a skeleton inside a surface: a capsule along each
// bone, thick enough to be the "bone" of the limb (a fraction of the limb's
// radius, measured by casting rays at the surface), shortened at both ends so
// that neighbouring bones do not touch (a conforming mesh needs them apart).
#pragma once

#include "geometry/TriMesh.h"
#include "model/Skeleton.h"

namespace sinew {

struct BoneShapeOptions {
  double radiusFraction = 0.35;  // capsule radius / distance from the axis to the surface
  double gapFraction = 0.12;     // of the bone length, kept free at each end
  double minRadius = 0.005;      // metres
};

// The child that continues joint j's chain (the one most in line with the
// parent->joint direction, then the one with the larger subtree), or -1 for
// a leaf.
int32_t chainChild(const Skeleton& skeleton, int32_t joint);

// World position of the far end of joint j's bone: the chain child, or for
// a leaf a point along the parent->joint direction, ending inside `surface`.
Vec3 boneEnd(const Skeleton& skeleton, int32_t joint, const TriMesh& surface);

// Assigns a capsule to every simulated joint (replacing existing shapes).
// Joints whose bone would be degenerate (zero length), and joints that only
// follow their parent (Joint::simulated false), get no shape.
void assignDefaultBoneShapes(Skeleton& skeleton, const TriMesh& surface, const BoneShapeOptions& options = {});

}  // namespace sinew
