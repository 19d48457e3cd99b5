// Automatic joints for a bare humanoid mesh: a 19-joint skeleton with CMU
// joint names ("Hips", "LeftUpLeg", ... "RightHand", the example character's
// layout, so that CMU clips retarget to it by name) fitted joint by joint to
// a surface in a T- or A-pose, at any scale, standing along any axis.
//
// The body is read from its inside (generalised winding number on a grid, so
// open, multi-piece and self-intersecting surfaces work):
//  1. the up axis: the axis along which the bottom of the body splits into
//     two legs and the top is one piece (Y first, then Z, then X, either sign);
//  2. horizontal slices: the crotch is the highest slice where two leg pieces
//     stand apart; each leg's joints lie at the centroids of its slices at
//     the knee and ankle heights of human proportions;
//  3. the torso's central piece gives the spine; the neck is its narrowest
//     slice below the head;
//  4. each arm runs from the shoulder to the body's farthest point on that
//     side above the crotch (a hand, in a T- or A-pose); elbow and wrist are
//     centroids of the arm's cross-sections at their proportions of it;
//  5. left and right from the way the feet point (the front).
// Every joint is the centroid of the flesh around it, so it lies inside the
// limb. A mesh without two legs and two arms is refused with a message that
// says so (place joints by hand then).
#pragma once

#include "core/Progress.h"
#include "geometry/TriMesh.h"
#include "model/Skeleton.h"

#include <string>

namespace sinew {

struct AutoJointOptions {
  int cellsPerHeight = 96;  // inside grid resolution along the body's height
};

struct AutoJointReport {
  std::string upAxis;       // "+Y", "-Z", ...
  double height = 0;        // m, along the up axis
  double crotchHeight = 0;  // fraction of the height
  double seconds = 0;
  size_t insideCells = 0;
};

// Throws InputError("<surface>: cannot find two legs and two arms ...") when
// the surface is not a humanoid in a T- or A-pose; Cancelled when cancelled.
Skeleton autoPlaceJoints(const TriMesh& surface, const AutoJointOptions& options = {},
                         AutoJointReport* report = nullptr, const Progress& progress = Progress::none(),
                         const std::string& name = "surface");

// Another skeleton (a BVH hierarchy, an armature) fitted to placed joints:
// scaled and moved onto the surface first (fitSkeletonToMesh), then, in
// joint order, each joint that `placed` names too is moved onto it with the
// joints below it following, so that joints without a counterpart (a CMU
// "LHipJoint", "Neck1", toes, fingers) keep their place relative to their
// parent.
Skeleton fitSkeletonToJoints(Skeleton skeleton, const Skeleton& placed, const TriMesh& surface);

}  // namespace sinew
