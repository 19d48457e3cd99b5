// Linear blend skinning: a surface follows the skeleton's pose through its
// skinning weights (used for posing the rig, and by Liu et al. 2013's
// pose-based plasticity for the reference shape).
#pragma once

#include "geometry/TriMesh.h"
#include "model/Skeleton.h"
#include "model/SkinWeights.h"

#include <vector>

namespace sinew {

// Per-bone skinning transforms for a pose given as world joint transforms:
// S_j = pose_j * rest_j^-1 (nJoints).
std::vector<Transform> skinningTransforms(const Skeleton& skeleton, const std::vector<Transform>& poseWorld);

// x_v = sum_b w_vb S_b x_v^rest. Weights refer to bones by name; names the
// skeleton lacks are skipped (their share goes to the rest: rows are
// renormalised); a vertex with no usable weight stays where it is.
std::vector<Vec3> linearBlendSkinning(const std::vector<Vec3>& rest, const SkinWeights& weights,
                                      const Skeleton& skeleton, const std::vector<Transform>& poseWorld);

// World pose from local joint rotations applied on top of the rest pose:
// local_j = rest_local_j with rotation rest_rotation_j * rotation_j.
std::vector<Transform> poseFromRotations(const Skeleton& skeleton, const std::vector<Quat>& rotations);

// Rigid skinning weights as a fallback when a mesh has none: every vertex
// fully bound to the bone (joint with a bone shape, or any joint) whose
// bone segment is nearest.
SkinWeights nearestBoneWeights(const std::vector<Vec3>& positions, const Skeleton& skeleton);

}  // namespace sinew
