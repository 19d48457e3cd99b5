// Motion capture onto a character: joint-name mapping, trimming and
// resampling, and retargeting by bone directions with limb-length scaling and
// the root height set from the feet (Liu et al. 2013 use CMU clips on
// characters of other proportions; Section 5).
//
// The result is a MotionClip of the character's own skeleton (same joint
// names and rest offsets), so it plays on the character kinematically and
// drives the solvers like any clip authored for it.
#pragma once

#include "core/Progress.h"
#include "model/MotionClip.h"
#include "model/Skeleton.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace sinew::control {

// For each character joint (by index), the clip joint it follows, or "" for
// none (the joint then keeps its rest rotation relative to its parent).
struct JointMap {
  std::vector<std::string> clipJoint;  // (nCharacterJoints)
  bool operator==(const JointMap&) const = default;
};

// Name-based mapping: exact names first, then names compared without case,
// separators and common prefixes ("mixamorig:", "Bip01 ", ...), with the side
// conventions Left/Right, L/R, _l/_r unified. CMU names map directly.
JointMap autoJointMap(const Skeleton& character, const MotionClip& clip);

// Throws InputError(clip name, ...) naming the character joints that map to
// a joint the clip does not have, or saying that the root maps to nothing.
void checkJointMap(const JointMap& map, const Skeleton& character, const MotionClip& clip);

struct RetargetOptions {
  double start = 0;             // s: the segment of the clip to keep
  double end = -1;              // s (< 0: to the end)
  double frameRate = 0;         // output frames per second (0: the clip's own)
  bool scaleLimbs = true;       // root motion scaled by the ratio of leg lengths
  bool rootHeightFromFeet = true;  // root lowered or raised so the lowest foot touches the ground
  double groundHeight = 0;      // m
  double soleHeight = -1;       // m, a foot joint's height above the sole at rest (< 0: from `restGround`)
  double restGround = 0;        // m, where the character's rest pose stands (its lowest surface point)
  bool skipCalibrationFrame = true;  // a calibration pose as the first frame is not motion
  // s appended after the segment: a standing tail (see RetargetResult::tail).
  double standingTail = 0;
  // The centre of mass of a pose (world transforms of the joints); when
  // given, the standing tail's pose leans about the ankles (feet flat) to put
  // it over the middle of the feet's bone shapes.
  std::function<Vec3(const std::vector<Transform>& pose)> centerOfMass;
  // The character's lowest point in a pose (world transforms of the joints),
  // e.g. its skinned surface; empty: each foot joint's height minus the sole
  // height. Used to put the lowest point of the segment on the ground.
  std::function<double(const std::vector<Transform>& pose)> lowestPoint;
};

// The clip's frame 0 is a calibration pose (as in many CMU files): far more of
// its rotation channels are exactly zero than in frame 1.
bool startsWithCalibrationFrame(const MotionClip& clip);

// Per output frame: which feet touch the ground (a foot whose sole is within
// `contactHeight` of the ground and moves slower than `contactSpeed`).
struct FootContacts {
  std::vector<int32_t> feet;                  // character joints used as feet
  std::vector<std::vector<uint8_t>> contact;  // (nFrames x nFeet)
};

struct RetargetResult {
  MotionClip clip;              // the character's skeleton, metres, [start, end] of the source
  JointMap map;
  double scale = 1;             // root motion scale (character legs / clip legs)
  double rootLift = 0;          // m added to the root height
  bool skippedCalibrationFrame = false;  // the clip's calibration frame 0 was left out
  // Frames at the clip's end that are not the segment but a standing tail:
  // the character's rest pose, turned to the last frame's heading and put
  // over its feet, standing on the ground (leaning to put the centre of mass
  // over the feet, RetargetOptions::centerOfMass), blended into from the last frame
  // over the tail's first half (slerp, smoothstep) and held still for the
  // second. A search that follows the tail brings the character to rest in a
  // stance it can hold after the controller's end.
  int32_t tailFrames = 0;
  double tail() const { return tailFrames * clip.frameTime; }
  double segment() const { return (clip.frameCount - 1 - tailFrames) * clip.frameTime; }  // s, without the tail
  FootContacts contacts;
};

// The feet of a skeleton: its lowest leaf joints at rest (one per side).
std::vector<int32_t> findFeet(const Skeleton& s);

// Throws InputError for a map that does not fit, a segment that is empty or
// outside the clip, or a non-finite result.
RetargetResult retargetClip(const MotionClip& clip, const Skeleton& character, const JointMap& map,
                            const RetargetOptions& options = {});

// Foot contacts of a clip of the character's skeleton.
FootContacts detectFootContacts(const MotionClip& clip, const Skeleton& character, double groundHeight,
                                double soleHeight, double contactHeight = 0.04, double contactSpeed = 0.4);

}  // namespace sinew::control
