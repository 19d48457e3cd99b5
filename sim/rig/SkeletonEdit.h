// Skeleton authoring operations, as functions on a Skeleton value: the GUI
// applies them to a copy and pushes the before/after pair as one undo step.
// Joint indices stay topologically sorted (parents first); operations that
// would break that reorder the joints and say how (a remap old -> new).
#pragma once

#include "geometry/TriangleTree.h"
#include "model/Skeleton.h"

#include <optional>
#include <string>

namespace sinew {

// Where a joint placed by clicking lands: midway between the points where the
// view ray first enters and then leaves the surface (inside the limb under
// the cursor). nullopt if the ray does not pass through the surface.
std::optional<Vec3> jointPlacement(const TriangleTree& surface, const Vec3& origin, const Vec3& direction);

// A name not used by any joint: `base`, or base.2, base.3, ...
std::string uniqueJointName(const Skeleton& skeleton, const std::string& base);

// Adds a joint at `world` as a child of `parent` (-1: a new root); returns its index.
int32_t addJoint(Skeleton& skeleton, int32_t parent, const std::string& name, const Vec3& world);

// Moves joint j to `world`. Children keep their world positions unless
// `withSubtree`, which moves the whole subtree rigidly with it. Bone shapes
// follow: the parent's bone (when it ends at j) and j's own bone (when its
// child stays) are stretched and turned to span their joints again.
void moveJoint(Skeleton& skeleton, int32_t j, const Vec3& world, bool withSubtree = false);

// Makes `newParent` (-1: root) the parent of j, keeping j's world transform.
// Throws std::invalid_argument if newParent lies in j's subtree. Returns the
// index remap (old index -> new index) after re-sorting.
std::vector<int32_t> reparentJoint(Skeleton& skeleton, int32_t j, int32_t newParent);

// Deletes joint j; its children move to j's parent, keeping world positions.
void deleteJoint(Skeleton& skeleton, int32_t j);

// Inserts a joint on the bone from j's parent to j, at fraction t from the
// parent; returns the new joint's index (j's index grows by one).
int32_t insertJoint(Skeleton& skeleton, int32_t j, double t = 0.5, const std::string& name = "");

// Left/right naming: "LeftArm" <-> "RightArm", "L_hand" <-> "R_hand",
// "hand_L" <-> "hand_R", "hand.L" <-> "hand.R", "LHipJoint" <-> "RHipJoint"
// (a capital L/R before another capital). Returns the name unchanged if it
// has no side.
std::string mirrorName(const std::string& name);
// +1 for a left name, -1 for a right name, 0 for a centre one.
int sideOfName(const std::string& name);

// Copies one side to the other: every joint on side `from` (+1 left, -1
// right) sets its mirror-named partner to its position mirrored across the
// plane x = `planeX` (bone shapes and hinge axes mirrored too). Returns how
// many joints were set.
int mirrorJoints(Skeleton& skeleton, int from, double planeX = 0.0);

// Symmetrizes about x = planeX: centre joints are moved onto the plane, and
// each left/right pair to the average of its position and its partner's
// mirror image. Returns how many joints moved.
int symmetrizeJoints(Skeleton& skeleton, double planeX = 0.0);

// Fits a skeleton to a surface by a uniform scale and a translation: the box
// of the joints is centred in the surface's box and scaled to span about 92%
// of its height, adjusted (within -24%..+12%) to keep the most joints inside
// the surface. Returns the scale applied. Proportions that differ from the
// surface's leave some joints outside: see jointsOutside().
double fitSkeletonToMesh(Skeleton& skeleton, const TriMesh& surface);

// Indices of joints that lie outside the closed surface (by ray parity).
std::vector<int32_t> jointsOutside(const Skeleton& skeleton, const TriangleTree& surface);

}  // namespace sinew
