#include "model/MotionClip.h"

#include "core/Error.h"

#include <algorithm>
#include <cmath>

namespace sinew {

namespace {
constexpr const char* kChannelNames[] = {"Xposition", "Yposition", "Zposition",
                                         "Xrotation", "Yrotation", "Zrotation"};
}

const char* channelName(Channel c) { return kChannelNames[static_cast<int>(c)]; }

std::optional<Channel> channelFromName(std::string_view name) {
  for (int i = 0; i < 6; ++i)
    if (name == kChannelNames[i]) return static_cast<Channel>(i);
  return std::nullopt;
}

int32_t MotionClip::channelCount() const {
  int32_t n = 0;
  for (const ClipJoint& j : joints) n += static_cast<int32_t>(j.channels.size());
  return n;
}

Skeleton MotionClip::skeleton() const {
  Skeleton s;
  for (const ClipJoint& j : joints) {
    Joint joint;
    joint.name = j.name;
    joint.parent = j.parent;
    joint.restLocal = Transform{Quat::Identity(), j.offset * unitScale};
    s.joints.push_back(std::move(joint));
  }
  return s;
}

std::vector<Transform> MotionClip::localPose(int32_t f) const {
  f = std::clamp(f, 0, std::max(frameCount - 1, 0));
  std::vector<Transform> local(joints.size());
  const double* v = frameCount > 0 ? frame(f) : nullptr;
  for (size_t i = 0; i < joints.size(); ++i) {
    const ClipJoint& j = joints[i];
    Vec3 t = j.offset;
    Quat r = Quat::Identity();
    bool hasPosition = false;
    Vec3 pos = Vec3::Zero();
    for (size_t c = 0; c < j.channels.size() && v; ++c) {
      const double x = v[j.firstChannel + c];
      switch (j.channels[c]) {
        case Channel::Xposition: pos.x() = x; hasPosition = true; break;
        case Channel::Yposition: pos.y() = x; hasPosition = true; break;
        case Channel::Zposition: pos.z() = x; hasPosition = true; break;
        // BVH: rotations apply in channel order, v' = R_c1 R_c2 R_c3 v.
        case Channel::Xrotation: r = r * Quat(Eigen::AngleAxisd(x * M_PI / 180.0, Vec3::UnitX())); break;
        case Channel::Yrotation: r = r * Quat(Eigen::AngleAxisd(x * M_PI / 180.0, Vec3::UnitY())); break;
        case Channel::Zrotation: r = r * Quat(Eigen::AngleAxisd(x * M_PI / 180.0, Vec3::UnitZ())); break;
      }
    }
    // Position channels replace the offset (the usual reading of root channels).
    if (hasPosition) t = pos;
    local[i] = {r.normalized(), t * unitScale};
  }
  return local;
}

std::vector<Transform> MotionClip::localPoseAt(double t) const {
  if (frameCount <= 1 || frameTime <= 0) return localPose(0);
  const double x = std::clamp(t / frameTime, 0.0, double(frameCount - 1));
  const auto f0 = static_cast<int32_t>(std::floor(x));
  const int32_t f1 = std::min(f0 + 1, frameCount - 1);
  const double a = x - f0;
  std::vector<Transform> p0 = localPose(f0);
  if (a == 0.0 || f0 == f1) return p0;
  const std::vector<Transform> p1 = localPose(f1);
  for (size_t i = 0; i < p0.size(); ++i) {
    p0[i].translation = (1 - a) * p0[i].translation + a * p1[i].translation;
    p0[i].rotation = p0[i].rotation.slerp(a, p1[i].rotation);
  }
  return p0;
}

std::vector<Vec3> MotionClip::worldPointsAt(double t) const {
  const std::vector<Transform> world = skeleton().worldFromLocal(localPoseAt(t));
  std::vector<Vec3> pts;
  pts.reserve(2 * joints.size());
  for (size_t i = 0; i < joints.size(); ++i) {
    pts.push_back(world[i].translation);
    if (joints[i].endSite) pts.push_back(world[i].apply(*joints[i].endSite * unitScale));
  }
  return pts;
}

void MotionClip::validate(const std::string& context) const {
  if (joints.empty()) throw InputError(context, "motion clip has no joints");
  if (!(frameTime > 0) || !std::isfinite(frameTime))
    throw InputError(context, "frame time must be a positive number (got " + std::to_string(frameTime) + ")");
  if (frameCount < 0) throw InputError(context, "negative frame count");
  const auto expected = static_cast<size_t>(frameCount) * static_cast<size_t>(channelCount());
  if (values.size() != expected)
    throw InputError(context, "expected " + std::to_string(expected) + " channel values (" +
                                  std::to_string(frameCount) + " frames x " + std::to_string(channelCount()) +
                                  " channels), found " + std::to_string(values.size()));
  for (size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      throw InputError(context, "non-finite channel value in frame " +
                                    std::to_string(i / std::max<size_t>(channelCount(), 1) + 1));
  int32_t column = 0;
  for (size_t i = 0; i < joints.size(); ++i) {
    const ClipJoint& j = joints[i];
    if (j.parent >= static_cast<int32_t>(i) || j.parent < -1)
      throw InputError(context, "joint '" + j.name + "' has invalid parent index");
    if (j.firstChannel != column) throw InputError(context, "joint '" + j.name + "' has inconsistent channel layout");
    column += static_cast<int32_t>(j.channels.size());
  }
}

double restHeight(const MotionClip& clip) {
  MotionClip unit = clip;
  unit.unitScale = 1.0;
  unit.values.clear();
  unit.frameCount = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const Vec3& p : unit.worldPointsAt(0.0)) {
    lo = std::min(lo, p.y());
    hi = std::max(hi, p.y());
  }
  return hi > lo ? hi - lo : 0.0;
}

std::pair<std::string, double> detectHumanUnits(double height) {
  // Candidate units and metres per unit. "cmu" is the CMU mocap database's
  // BVH unit: (1/0.45) inch.
  static const std::pair<const char*, double> units[] = {
      {"m", 1.0}, {"dm", 0.1}, {"cm", 0.01}, {"mm", 0.001}, {"inch", 0.0254}, {"cmu", 0.0254 / 0.45}, {"ft", 0.3048}};
  if (!(height > 0)) return {"m", 1.0};
  std::pair<std::string, double> best{"m", 1.0};
  double bestErr = std::numeric_limits<double>::infinity();
  for (const auto& [name, scale] : units) {
    const double err = std::abs(std::log(height * scale / 1.7));
    if (err < bestErr) {
      bestErr = err;
      best = {name, scale};
    }
  }
  return best;
}

std::vector<Transform> skeletonPoseFromClip(const Skeleton& skeleton, const MotionClip& clip, double t, bool loop) {
  std::vector<int32_t> clipJoint(skeleton.size(), -1);
  bool any = false;
  for (size_t j = 0; j < skeleton.size(); ++j)
    for (size_t c = 0; c < clip.joints.size(); ++c)
      if (clip.joints[c].name == skeleton.joints[j].name) {
        clipJoint[j] = int32_t(c);
        any = true;
      }
  if (!any) throw InputError(clip.name, "no joint of the clip has the name of a skeleton joint (retarget the clip first)");
  const double duration = clip.duration();
  double tc = std::max(t, 0.0), loops = 0;
  if (duration > 0) {
    if (loop) {
      loops = std::floor(tc / duration);
      tc -= loops * duration;
    } else {
      tc = std::min(tc, duration);
    }
  }
  const std::vector<Transform> clipLocal = clip.localPoseAt(tc);
  std::vector<Transform> local(skeleton.size());
  for (size_t j = 0; j < skeleton.size(); ++j) {
    local[j] = skeleton.joints[j].restLocal;
    if (clipJoint[j] >= 0) local[j].rotation = clipLocal[size_t(clipJoint[j])].rotation;
  }
  for (size_t j = 0; j < skeleton.size(); ++j) {
    if (skeleton.joints[j].parent >= 0 || clipJoint[j] < 0) continue;
    const size_t c = size_t(clipJoint[j]);
    Vec3 travel = clipLocal[c].translation - clip.localPoseAt(0.0)[c].translation;
    if (loops > 0) {
      Vec3 perLoop = clip.localPoseAt(duration)[c].translation - clip.localPoseAt(0.0)[c].translation;
      perLoop.y() = 0;
      travel += loops * perLoop;
    }
    local[j].translation += travel;
  }
  return skeleton.worldFromLocal(local);
}

}  // namespace sinew
