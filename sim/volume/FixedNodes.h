// Nodes fixed to bones: the coupling of soft body and skeleton in Liu et al.
// 2013, Section 4.3 ("we attach the soft body to the skeleton by directly
// fixing some of the coarse mesh nodes to the bones"). A bone moves its fixed
// nodes rigidly, so it needs at least four non-coplanar ones to define a
// frame (and its inertia from their masses).
#pragma once

#include "model/Skeleton.h"
#include "volume/TetMesh.h"

#include <string>
#include <vector>

namespace sinew {

// The bones of a skeleton as a volume knows them: the joints with a bone
// shape, in joint order (VolumeObject::bones holds their names).
struct BoneSet {
  std::vector<int32_t> joints;       // (nBones) joint index of each bone
  std::vector<std::string> names;    // (nBones)
  std::vector<Transform> world;      // (nBones) rest world transform of the owning joint
};
BoneSet boneSet(const Skeleton& skeleton);

// At least four distinct, non-coplanar world points strictly inside the
// placed shape: boneShapeAnchors(), completed where it is degenerate (a
// capsule shrunk to a sphere gives coplanar points).
std::vector<Vec3> fixedNodeAnchors(const BoneShape& shape, const Transform& jointWorld);

// For every node, the bone whose shape contains it (the deepest one when
// shapes overlap), or -1: indices into `bones`. (nNodes)
std::vector<int32_t> nodesInBoneShapes(const TetMesh& mesh, const Skeleton& skeleton, const BoneSet& bones);

// Whether the points span 3D: some four of them form a tet whose height is at
// least `relativeTolerance` times the points' extent.
bool spansVolume(const std::vector<Vec3>& points, double relativeTolerance = 1e-3);

// Bones holding fewer than four non-coplanar fixed nodes, with the count each holds.
struct FixedNodeProblem {
  int32_t bone = -1;        // index into the bone set
  size_t fixedNodes = 0;
};
std::vector<FixedNodeProblem> checkFixedNodes(const TetMesh& mesh, const std::vector<int32_t>& fixedBone,
                                              size_t boneCount);

// Fixed nodes per bone (nBones).
std::vector<size_t> fixedNodeCounts(const std::vector<int32_t>& fixedBone, size_t boneCount);

}  // namespace sinew
