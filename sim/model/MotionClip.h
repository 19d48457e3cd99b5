// A motion clip: a joint hierarchy with per-frame channel values, in the
// channel model of BVH (positions and Euler rotations per joint, in a
// per-joint order). Imported from BVH directly and from FBX/glTF animations by
// sampling.
#pragma once

#include "model/Skeleton.h"

#include <optional>
#include <string>
#include <vector>

namespace sinew {

enum class Channel : uint8_t { Xposition, Yposition, Zposition, Xrotation, Yrotation, Zrotation };
const char* channelName(Channel c);
std::optional<Channel> channelFromName(std::string_view name);

struct ClipJoint {
  std::string name;
  int32_t parent = -1;                 // index into MotionClip::joints, parents first
  Vec3 offset = Vec3::Zero();          // rest offset from the parent, file units
  std::vector<Channel> channels;       // in file order; rotations compose in this order
  int32_t firstChannel = 0;            // column of the first channel in a frame
  std::optional<Vec3> endSite;         // BVH "End Site" offset, file units
  bool operator==(const ClipJoint&) const = default;
};

struct MotionClip {
  std::string name;
  std::vector<ClipJoint> joints;       // (nJoints)
  double frameTime = 1.0 / 30.0;       // seconds per frame
  int32_t frameCount = 0;
  std::vector<double> values;          // (frameCount x channelCount): file units and degrees
  double unitScale = 1.0;              // metres per file unit
  std::string units = "m";             // name of the file unit (m, cm, mm, inch, cmu, ...)

  int32_t channelCount() const;
  double duration() const { return frameCount > 1 ? (frameCount - 1) * frameTime : 0.0; }
  double frameRate() const { return frameTime > 0 ? 1.0 / frameTime : 0.0; }
  const double* frame(int32_t f) const { return values.data() + static_cast<size_t>(f) * channelCount(); }

  // The clip's hierarchy as a Skeleton in metres (rest pose: zero channels).
  Skeleton skeleton() const;
  // Local joint transforms (metres) at frame f, or at time t (seconds) with
  // linear/slerp interpolation between frames, clamped to the clip.
  std::vector<Transform> localPose(int32_t f) const;
  std::vector<Transform> localPoseAt(double t) const;
  // World positions of joints and end sites (metres) at time t; the end sites
  // follow the joints, in joint order.
  std::vector<Vec3> worldPointsAt(double t) const;

  // Checks sizes and values; throws InputError(context, ...).
  void validate(const std::string& context) const;
  bool operator==(const MotionClip&) const = default;
};

// The character's skeleton posed by a clip of it (joints matched by name):
// world transforms per skeleton joint at time t. A matched joint's clip
// rotation replaces its rest rotation (its rest offset from the parent
// stays); the root moves by the clip root's travel since the clip's start,
// added to the skeleton's rest root (a looping clip keeps travelling
// horizontally, loop after loop); unmatched joints keep their rest pose
// relative to the parent. Throws InputError when no joint matches.
std::vector<Transform> skeletonPoseFromClip(const Skeleton& skeleton, const MotionClip& clip, double t, bool loop);

// Height of the clip's rest pose in file units (top to bottom over joints and end sites).
double restHeight(const MotionClip& clip);

// Guesses the file unit from the rest height, assuming a human-sized figure
// (about 1.7 m tall): returns {unit name, metres per unit}.
std::pair<std::string, double> detectHumanUnits(double heightInFileUnits);

}  // namespace sinew
