#include "examples/Motions.h"

#include "core/Error.h"
#include "io/AnimationExport.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <functional>
#include <string>
#include <vector>

namespace sinew {

namespace {

constexpr double kRad = M_PI / 180.0;

// Hard limit on generated frames (a day at 120 fps would be far beyond it).
constexpr double kMaxFrames = 1e7;

int32_t frameCountFor(double seconds, double fps, const std::string& context) {
  if (!(seconds > 0) || !std::isfinite(seconds))
    throw InputError(context, "duration must be a positive number of seconds");
  if (!(fps > 0) || !std::isfinite(fps)) throw InputError(context, "frame rate must be a positive number");
  const double n = std::round(seconds * fps) + 1;
  if (n > kMaxFrames) throw InputError(context, "too many frames (" + std::to_string(n) + ")");
  return static_cast<int32_t>(n);
}

// Quintic ease in-out on [0,1] (zero first and second derivatives at the ends), clamped.
double smootherstep(double x) {
  x = std::clamp(x, 0.0, 1.0);
  return x * x * x * (x * (6 * x - 15) + 10);
}

// A C1 curve through keys (monotone cubic Hermite, Fritsch-Butland tangents):
// no overshoot, zero slope at local extrema and at both ends.
struct Key {
  double t, v;
};
double keyCurve(const std::vector<Key>& keys, double t) {
  if (t <= keys.front().t) return keys.front().v;
  if (t >= keys.back().t) return keys.back().v;
  auto tangent = [&](size_t i) {
    if (i == 0 || i + 1 == keys.size()) return 0.0;
    const double h0 = keys[i].t - keys[i - 1].t, h1 = keys[i + 1].t - keys[i].t;
    const double d0 = (keys[i].v - keys[i - 1].v) / h0, d1 = (keys[i + 1].v - keys[i].v) / h1;
    if (d0 * d1 <= 0) return 0.0;
    return 3 * (h0 + h1) / ((2 * h1 + h0) / d0 + (h1 + 2 * h0) / d1);
  };
  size_t i = 0;
  while (keys[i + 1].t < t) ++i;
  const double h = keys[i + 1].t - keys[i].t;
  const double s = (t - keys[i].t) / h, s2 = s * s, s3 = s2 * s;
  return (2 * s3 - 3 * s2 + 1) * keys[i].v + (s3 - 2 * s2 + s) * h * tangent(i) + (-2 * s3 + 3 * s2) * keys[i + 1].v +
         (s3 - s2) * h * tangent(i + 1);
}

Quat about(const Vec3& axis, double degrees) { return Quat(Eigen::AngleAxisd(degrees * kRad, axis)); }

// Per-frame joint rotations designed in the character's frame (facing +z,
// left +x, y up), converted to each joint's rest frame: q_local = W^-1 q W,
// W the joint's world rest rotation (identity for the humanoid).
class PoseBuilder {
 public:
  PoseBuilder(const Skeleton& s, std::string context) : s_(s), context_(std::move(context)) {
    for (const Transform& w : s.worldRest()) worldRest_.push_back(w.rotation);
    pose_.assign(s.size(), Quat::Identity());
  }
  // Index of a joint the motion animates; InputError if missing.
  int32_t require(const char* name) const {
    const int32_t j = s_.find(name);
    if (j < 0) throw InputError(context_, std::string("the skeleton has no joint named '") + name + "'");
    return j;
  }
  void reset() {
    std::fill(pose_.begin(), pose_.end(), Quat::Identity());
    rootOffset_ = Vec3::Zero();
  }
  // Moves the root from its rest position (character frame).
  void moveRoot(const Vec3& offset) { rootOffset_ = offset; }
  const Vec3& rootOffset() const { return rootOffset_; }
  // Sets joint j's rotation relative to its parent, about character-frame axes.
  void set(int32_t j, const Quat& characterFrame) {
    pose_[j] = (worldRest_[j].conjugate() * characterFrame * worldRest_[j]).normalized();
  }
  const std::vector<Quat>& pose() const { return pose_; }
  const std::string& context() const { return context_; }

 private:
  const Skeleton& s_;
  std::string context_;
  std::vector<Quat> worldRest_;  // (nJoints)
  std::vector<Quat> pose_;       // (nJoints) local rotations relative to the rest frames
  Vec3 rootOffset_ = Vec3::Zero();
};

// The whole body's centre of mass (world): each joint's mass at its point
// in the joint's frame (the body has mass).
// Each joint's mass point (world) in the builder's pose; with `joints`, the
// joints' world positions too.
std::vector<Vec3> massPoints(const Skeleton& s, const PoseBuilder& b, const std::vector<LinkMass>& body,
                             std::vector<Vec3>* joints = nullptr) {
  std::vector<Transform> local(s.size());
  for (size_t j = 0; j < s.size(); ++j) {
    local[j] = s.joints[j].restLocal;
    local[j].rotation = local[j].rotation * b.pose()[j];
  }
  local[0].translation += b.rootOffset();
  const std::vector<Transform> world = s.worldFromLocal(local);
  std::vector<Vec3> points(s.size());
  for (size_t j = 0; j < s.size(); ++j) points[j] = world[j].rotation * body[j].com + world[j].translation;
  if (joints) {
    joints->resize(s.size());
    for (size_t j = 0; j < s.size(); ++j) (*joints)[j] = world[j].translation;
  }
  return points;
}

Vec3 centreOfMass(const std::vector<Vec3>& points, const std::vector<LinkMass>& body) {
  Vec3 sum = Vec3::Zero();
  double mass = 0;
  for (size_t j = 0; j < points.size(); ++j) {
    sum += body[j].mass * points[j];
    mass += body[j].mass;
  }
  return Vec3(sum / mass);
}

// Samples `poseAt(t, builder)` at every frame and builds the clip.
MotionClip sampleClip(const Skeleton& s, PoseBuilder& builder, const std::string& name, double seconds, double fps,
                      const std::function<void(double t, PoseBuilder&)>& poseAt) {
  const int32_t n = frameCountFor(seconds, fps, builder.context());
  std::vector<Vec3> root(static_cast<size_t>(n), s.joints.at(0).restLocal.translation);
  std::vector<std::vector<Quat>> rotations;
  rotations.reserve(static_cast<size_t>(n));
  for (int32_t f = 0; f < n; ++f) {
    builder.reset();
    poseAt(f / fps, builder);
    rotations.push_back(builder.pose());
    root[size_t(f)] += builder.rootOffset();
  }
  MotionClip clip = skeletonAnimationClip(s, root, rotations, 1.0 / fps);
  clip.name = name;

  // End Sites for the humanoid's extremities (1.75 m figure, scaled by the
  // root's rest height), in each joint's frame.
  const double scale = s.joints[0].restLocal.translation.y() > 0 ? s.joints[0].restLocal.translation.y() / 0.92 : 1.0;
  const std::vector<Transform> worldRest = s.worldRest();
  const std::pair<const char*, Vec3> ends[] = {{"Head", Vec3(0, 0.2, 0)},
                                                {"LeftHand", Vec3(0.13, 0, 0)},
                                                {"RightHand", Vec3(-0.13, 0, 0)},
                                                {"LeftFoot", Vec3(0, -0.05, 0.18)},
                                                {"RightFoot", Vec3(0, -0.05, 0.18)}};
  for (const auto& [jointName, offset] : ends) {
    const int32_t j = s.find(jointName);
    if (j < 0 || !s.children(j).empty()) continue;
    for (ClipJoint& cj : clip.joints)
      if (cj.name == jointName) cj.endSite = worldRest[j].rotation.conjugate() * (offset * scale);
  }
  return clip;
}

}  // namespace

MotionClip makeKickClip(const Skeleton& s, double seconds, double fps) {
  PoseBuilder b(s, "kick motion");
  const int32_t upLeg = b.require("RightUpLeg"), leg = b.require("RightLeg"), foot = b.require("RightFoot");
  const int32_t stanceUpLeg = b.require("LeftUpLeg"), stanceFoot = b.require("LeftFoot");
  const int32_t spine = b.require("Spine"), leftArm = b.require("LeftArm"), rightArm = b.require("RightArm");
  // The weight goes over the stance (left) foot before the kicks and back
  // after them: the pelvis moves sideways until it is over that foot, the
  // standing leg rolls about the forward axis so that its foot stays where it
  // is (the pelvis drops as the leg needs), and the kicking leg rolls to point
  // at its foot, which it can no longer quite reach: that foot lifts a little
  // before the kick takes it off the ground.
  const std::vector<Transform> rest = s.worldRest();
  const Vec3 stanceLeg = rest[size_t(stanceFoot)].translation - rest[size_t(stanceUpLeg)].translation;
  const Vec3 kickLeg = rest[size_t(foot)].translation - rest[size_t(upLeg)].translation;
  const double across = rest[size_t(stanceFoot)].translation.x() - rest[0].translation.x();
  // How far the pelvis drops, moved `dx` across, for the standing leg to reach its foot.
  auto dropAt = [&v = stanceLeg](double dx) {
    return -std::sqrt(v.x() * v.x() + v.y() * v.y() - (v.x() - dx) * (v.x() - dx)) - v.y();
  };
  if (!(stanceLeg.y() < 0) || !std::isfinite(dropAt(across)))
    throw InputError(b.context(), "the left foot is not below the left hip: the weight cannot go over it");
  // The roll (degrees about +z) that turns a leg `v` to point at its foot from the moved pelvis.
  auto rollOf = [](const Vec3& v, double dx, double drop) {
    return (std::atan2(v.y() + drop, v.x() - dx) - std::atan2(v.y(), v.x())) * 180 / M_PI;
  };
  // The weight moves over at the start and back at the end, each in 0.55 s
  // (less in a clip shorter than 2.5 s): carrying the centre of mass 0.18 m
  // across takes at least about 0.5 s with the centre of pressure inside the
  // feet (a = g d / h, d up to 0.23 m, h 0.93 m). Between them, one kick per
  // ~2.5 s of the clip. Keys over a kick's phase: rest, chamber (knee up),
  // extension at the top, re-chamber, rest. Degrees of hip and knee flexion.
  const double ramp = std::min(0.55, 0.22 * seconds);
  const int kicks = std::max(1, static_cast<int>(std::lround(seconds / 2.5)));
  const double cycle = (seconds - 2 * ramp) / kicks;
  static const std::vector<Key> hipKeys = {{0, 0}, {0.05, 0}, {0.3, 40}, {0.5, 80}, {0.68, 45}, {0.95, 0}, {1, 0}};
  static const std::vector<Key> kneeKeys = {{0, 0}, {0.05, 0}, {0.3, 85}, {0.5, 8}, {0.68, 60}, {0.95, 0}, {1, 0}};
  return sampleClip(s, b, "kick", seconds, fps, [&](double t, PoseBuilder& p) {
    const double k = std::clamp((t - ramp) / cycle, 0.0, double(kicks));
    const double phase = k >= kicks ? 1.0 : k - std::floor(k);
    const double hip = keyCurve(hipKeys, phase), knee = keyCurve(kneeKeys, phase);
    const double effort = hip / 80.0;  // 0..1, follows the hip
    const double shift = smootherstep(t / ramp) * smootherstep((seconds - t) / ramp);
    // Exact for the standing leg; the drop is chosen for it.
    const double dx = across * shift, drop = dropAt(dx);
    const double stanceRoll = rollOf(stanceLeg, dx, drop), kickRoll = rollOf(kickLeg, dx, drop);
    p.moveRoot(Vec3(dx, -drop, 0));
    p.set(stanceUpLeg, about(Vec3::UnitZ(), stanceRoll));
    p.set(stanceFoot, about(-Vec3::UnitZ(), stanceRoll));                             // sole level
    p.set(upLeg, about(Vec3::UnitZ(), kickRoll) * about(-Vec3::UnitX(), hip));        // thigh forward
    p.set(leg, about(Vec3::UnitX(), knee));                                           // shin backward
    p.set(foot, about(-Vec3::UnitZ(), kickRoll) * about(Vec3::UnitX(), 30 * effort));  // toes pointed (down) at the top
    p.set(spine, about(-Vec3::UnitX(), 8 * effort));      // lean back
    p.set(leftArm, about(-Vec3::UnitY(), 20 * effort));   // left arm forward
    p.set(rightArm, about(-Vec3::UnitY(), 20 * effort));  // right arm back
  });
}

MotionClip makeElbowBendClip(const Skeleton& s, double degrees, double seconds, double fps) {
  PoseBuilder b(s, "elbow bend motion");
  const int32_t foreArm = b.require("LeftForeArm");
  if (!std::isfinite(degrees) || std::abs(degrees) > 180)
    throw InputError(b.context(), "elbow angle must lie within [-180, 180] degrees");
  const double bendTime = 0.4 * seconds;
  return sampleClip(s, b, "elbow bend", seconds, fps, [&](double t, PoseBuilder& p) {
    // Flexion about -Y: the forearm (along +x) swings towards the front (+z).
    p.set(foreArm, about(-Vec3::UnitY(), degrees * smootherstep(t / bendTime)));
  });
}

MotionClip makeWalkInPlaceClip(const Skeleton& s, double seconds, double fps, double strideSeconds) {
  PoseBuilder b(s, "walk in place motion");
  if (!(strideSeconds > 0) || !std::isfinite(strideSeconds))
    throw InputError(b.context(), "stride duration must be a positive number of seconds");
  struct Leg {
    int32_t upLeg, leg, foot;
  };
  const Leg left{b.require("LeftUpLeg"), b.require("LeftLeg"), b.require("LeftFoot")};
  const Leg right{b.require("RightUpLeg"), b.require("RightLeg"), b.require("RightFoot")};
  const int32_t chest = b.require("Spine1");
  const int32_t leftArm = b.require("LeftArm"), leftForeArm = b.require("LeftForeArm");
  const int32_t rightArm = b.require("RightArm"), rightForeArm = b.require("RightForeArm");
  return sampleClip(s, b, "walk in place", seconds, fps, [&](double t, PoseBuilder& p) {
    // Ease in over the first stride and out over the last (C2 envelope).
    const double envelope = smootherstep(t / strideSeconds) * smootherstep((seconds - t) / strideSeconds);
    const double phi = 2 * M_PI * t / strideSeconds;
    const double sn = std::sin(phi);
    // Lift of each foot, 0..1: |sin|^3 over its half of the stride, the left
    // leg in the first half, the right in the second. The cube makes lift-off
    // and touch-down C2 (zero speed and acceleration at the ground); sin^2
    // would only be C1.
    const double cube = std::abs(sn * sn * sn);
    const double liftLeft = sn > 0 ? cube : 0.0, liftRight = sn < 0 ? cube : 0.0;
    auto setLeg = [&](const Leg& leg, double lift) {
      const double hip = 30 * lift * envelope, knee = 60 * lift * envelope;
      p.set(leg.upLeg, about(-Vec3::UnitX(), hip));
      p.set(leg.leg, about(Vec3::UnitX(), knee));
      p.set(leg.foot, about(-Vec3::UnitX(), knee - hip));  // sole stays level
    };
    setLeg(left, liftLeft);
    setLeg(right, liftRight);
    // Arms down by the sides (about -Z for the left arm, +Z for the right),
    // swinging forward (about -X) opposite to the legs; elbows a little bent.
    const double lower = 50 * envelope, swing = 20 * envelope * sn, elbow = 15 * envelope;
    p.set(leftArm, about(-Vec3::UnitX(), -swing) * about(-Vec3::UnitZ(), lower));
    p.set(rightArm, about(-Vec3::UnitX(), swing) * about(Vec3::UnitZ(), lower));
    p.set(leftForeArm, about(-Vec3::UnitY(), elbow));
    p.set(rightForeArm, about(Vec3::UnitY(), elbow));
    p.set(chest, about(Vec3::UnitY(), 3 * envelope * sn));
  });
}

}  // namespace sinew

namespace sinew {

namespace {

// The angle (rad) at corner a of a triangle with sides a-b = ab, a-c = ac and
// opposite side bc, clamped to a straight line when bc cannot be spanned.
double cornerAngle(double ab, double ac, double bc) {
  return std::acos(std::clamp((ab * ab + ac * ac - bc * bc) / (2 * ab * ac), -1.0, 1.0));
}

}  // namespace

MotionClip makeRunClip(const Skeleton& s, double seconds, double fps, double speed, const std::vector<LinkMass>& body) {
  PoseBuilder b(s, "run motion");
  if (!(speed > 0 && speed <= 10)) throw InputError(b.context(), "running speed must lie in (0, 10] m/s");
  struct Leg {
    int32_t upLeg, leg, foot;
    int parity;  // steps k with k % 2 == parity are this leg's
  };
  const Leg legs[2] = {{b.require("LeftUpLeg"), b.require("LeftLeg"), b.require("LeftFoot"), 0},
                       {b.require("RightUpLeg"), b.require("RightLeg"), b.require("RightFoot"), 1}};
  const int32_t spine = b.require("Spine"), chest = b.require("Spine1");
  const int32_t leftArm = b.require("LeftArm"), leftForeArm = b.require("LeftForeArm");
  const int32_t rightArm = b.require("RightArm"), rightForeArm = b.require("RightForeArm");
  frameCountFor(seconds, fps, b.context());
  constexpr double ramp = 3.0;  // s to speed up at the start and to stop at the end
  if (!(seconds > 2 * ramp))
    throw InputError(b.context(), "duration must be longer than 6 s (3 s to speed up, 3 s to stop)");

  // Gait: a step every 0.35 s (171 a minute); at full speed each is 0.21 s
  // on one foot then 0.14 s of flight, slower the flight shortens with the
  // speed (none standing). The root's height is ballistic in flight (vertical
  // speed +-g tf / 2) and dips in stance with an upward acceleration that
  // gives the steps back the height the flights lost.
  constexpr double kStep = 0.35, kStance = 0.21, kFlight = kStep - kStance, kG = 9.81;
  const std::vector<Transform> rest = s.worldRest();
  const Vec3 hip = rest[size_t(legs[0].upLeg)].translation, knee = rest[size_t(legs[0].leg)].translation,
             ankle = rest[size_t(legs[0].foot)].translation;
  // Flexion turns the leg about the character's x axis, which keeps every
  // bone's x and its length in the y-z plane: the inverse kinematics is
  // planar in those lengths.
  auto sagittal = [](const Vec3& v) { return std::hypot(v.y(), v.z()); };
  const double thigh = sagittal(knee - hip), shin = sagittal(ankle - knee), reach = sagittal(ankle - hip);
  constexpr double kPlanted = 0.96;

  // Speed: 0 -> speed -> 0 (C2 ramps); distance by trapezoids on a fine grid.
  auto speedAt = [&](double t) { return speed * smootherstep(t / ramp) * smootherstep((seconds - t) / ramp); };
  auto accelerationAt = [&](double t) { return (speedAt(t + 1e-3) - speedAt(t - 1e-3)) / 2e-3; };
  // Step k's flight and stance (s). Both feet leave the ground only in a
  // flight, and there the body falls freely: with a flight of full length
  // and the bounce scaled down at lower speeds, the speeding-up steps had
  // 0.14 s with no foot down while the body fell at a fraction of g.
  // A clip that ends at a touchdown stands there (the bounce is back to
  // zero, the speed nearly so). One that ends inside a step would stop the
  // body mid-bounce, or a foot mid-swing: there the last steps have no
  // flight (a flight's landing speed feeds the next stance's bounce) and the
  // last swing ends with the clip.
  const double overhang = std::fmod(seconds, kStep);
  const bool endsInsideAStep = overhang > 1e-9 && overhang < kStep - 1e-9;
  auto flightOf = [&](int k) {
    if (endsInsideAStep && (k + 2) * kStep > seconds) return 0.0;
    return kFlight * speedAt(std::clamp((k + 0.5) * kStep, 0.0, seconds)) / speed;
  };
  auto stanceOf = [&](int k) { return kStep - flightOf(k); };
  // The root lowers with the speed so that the foot reaches the ground half a
  // stance ahead of the hip with the knee a little bent (at full speed the
  // ankle at 96% of the leg's reach, so that the leg can still stretch as it
  // lands and pushes off); slower, the stance is longer and so is its reach,
  // and while the speed changes the foot is planted behind (or ahead of) the
  // centre of mass by the lead below, which the leg must reach too.
  auto crouchAt = [&](double t) {
    const double effort = speedAt(t) / speed;
    const double halfStance = speedAt(t) * (kStep - kFlight * effort) / 2 +
                              rest[0].translation.y() * std::abs(accelerationAt(std::clamp(t, 0.0, seconds))) / kG;
    return effort * (1 - kPlanted) * reach + kPlanted * reach -
           std::sqrt(std::max(0.0, std::pow(kPlanted * reach, 2) - halfStance * halfStance));
  };
  // Nothing can speed the body up in flight either: each step's change of
  // speed happens on its foot (smoothly from touchdown to lift-off), and the
  // speed is the planned one at every touchdown.
  auto stepSpeedAt = [&](double t) {
    const int k = int(std::floor(t / kStep));
    const double before = speedAt(std::clamp(k * kStep, 0.0, seconds)), after = speedAt(std::clamp((k + 1) * kStep, 0.0, seconds));
    return before + (after - before) * smootherstep(std::min(1.0, (t - k * kStep) / stanceOf(k)));
  };
  auto stanceAcceleration = [&](int k) {  // the mean over step k's stance
    return (speedAt(std::clamp((k + 1) * kStep, 0.0, seconds)) - speedAt(std::clamp(k * kStep, 0.0, seconds))) / stanceOf(k);
  };
  // While the speed changes, the ground's push must point through the centre
  // of mass (taken at the root's rest height) or the body would spin: the
  // stance foot lands h a / g behind it while speeding up (ahead while
  // slowing down), as a runner's does.
  const double comHeight = rest[0].translation.y();
  const double h = 1e-3;
  std::vector<double> travelled{0.0};
  for (double t = h; t <= seconds + 2 * kStep + h; t += h)
    travelled.push_back(travelled.back() + 0.5 * h * (stepSpeedAt(t - h) + stepSpeedAt(t)));
  auto forward = [&](double t) {
    const double x = std::clamp(t, 0.0, seconds) / h;
    const size_t i = std::min(size_t(x), travelled.size() - 2);
    return travelled[i] + (x - double(i)) * (travelled[i + 1] - travelled[i]);
  };
  // Foot placement: a leg's foot lands on step k under where the hip will be
  // half a stance later (less the lead above), and stays until the leg's
  // next step k + 2.
  auto plant = [&](int k) {
    const double midStance = k * kStep + stanceOf(k) / 2;
    return forward(midStance) - comHeight * stanceAcceleration(k) * stanceOf(k) / kStep / kG;
  };
  // Runners put their feet nearly on one line: at full speed each foot lands
  // 3 cm from the middle (at rest the ankles stand 2|x| apart), so that the
  // body over one foot needs no sideways sway. `inward` is the foot's
  // sideways target on step k; `side` is the sign of the foot's rest x
  // against the root's (+1 for the humanoid's left foot).
  const double narrow = std::max(0.0, std::abs(ankle.x() - rest[0].translation.x()) - 0.03);
  auto inward = [&](int k, double side) {
    return -side * narrow * speedAt(std::clamp(k * kStep + kStance / 2, 0.0, seconds)) / speed;
  };
  // The root's planned path and, once the centre of mass has been placed
  // (below), its shift from it, between frames linearly.
  const int32_t frames = frameCountFor(seconds, fps, b.context());
  std::vector<Vec3> shift(static_cast<size_t>(frames), Vec3::Zero());
  std::vector<double> trunkPitch(static_cast<size_t>(frames), 0.0);  // degrees, added to the lean (below)
  std::vector<double> trunkYaw(static_cast<size_t>(frames), 0.0);    // degrees, about the spine's vertical
  // On a foot the ground pushes from under the foot through the centre of
  // mass (a spring-mass runner), so the body brakes while the foot is ahead
  // of it and is pushed on once it is behind: `surge` is that forward
  // offset from the planned path. The push (vertical part as the bounce
  // needs, at most 2.4 body weights) is taken from a point moving from just
  // behind the ankle to the ball of the foot over the stance; each stance's
  // mean is left to the planned speed-up, and the offset and its rate are
  // centred over a step, so the mean speed is the planned one.
  // The vertical path (height, acceleration) at u s into step k: in stance
  // from the last flight's landing speed to this flight's take-off speed (a
  // half sine, plus a cubic for their difference), then ballistic.
  auto bounceAt = [&](int k, double u) {
    const double stance = stanceOf(k), in = kG * flightOf(k - 1) / 2, out = kG * flightOf(k) / 2;
    if (u >= stance) return std::pair{out * (u - stance) - 0.5 * kG * (u - stance) * (u - stance), -kG};
    const double x = u / stance, mean = (in + out) / 2, half = (out - in) / 2;
    return std::pair{-mean * stance / M_PI * std::sin(M_PI * x) + half * stance * x * (1 - x) * (1 - 2 * x),
                     mean * M_PI / stance * std::sin(M_PI * x) + half / stance * (12 * x - 6)};
  };
  const size_t grid = size_t(std::ceil(seconds / h)) + 1;
  std::vector<double> surge(grid, 0.0);
  {
    const Vec3 root0 = rest[0].translation;
    std::vector<double> push(grid, 0.0);
    for (int k = 0; k * kStep < seconds; ++k) {
      const size_t first = size_t(std::ceil(k * kStep / h)), last = std::min(grid, size_t(std::ceil((k * kStep + stanceOf(k)) / h)));
      if (first >= last) continue;
      double mean = 0;
      for (size_t i = first; i < last; ++i) {
        const double t = double(i) * h, u = t - k * kStep, effort = speedAt(t) / speed;
        const auto [height, lift] = bounceAt(k, u);
        const double up = effort * (kG + lift);  // the push's vertical part per unit mass
        const double cop = ankle.z() + plant(k) + reach * (-0.03 + 0.15 * u / stanceOf(k));
        const double comZ = root0.z() + forward(t), comY = root0.y() + height - crouchAt(t);
        push[i] = up * (comZ - cop) / comY;
        mean += push[i];
      }
      mean /= double(last - first);
      for (size_t i = first; i < last; ++i) push[i] -= mean;
    }
    // Centred over a step (a step-long moving average is constant for a
    // step-periodic signal and follows the ramps smoothly).
    const long window = std::lround(kStep / h);
    auto centred = [&](std::vector<double> v) {
      std::vector<double> sum(v.size() + 1, 0.0);
      for (size_t i = 0; i < v.size(); ++i) sum[i + 1] = sum[i] + v[i];
      std::vector<double> out(v.size());
      for (size_t i = 0; i < v.size(); ++i) {
        const long a = std::max(0L, long(i) - window / 2), b = std::min(long(v.size()), a + window);
        out[i] = v[i] - (sum[size_t(b)] - sum[size_t(a)]) / double(b - a);
      }
      return out;
    };
    std::vector<double> rate(grid, 0.0);
    for (size_t i = 1; i < grid; ++i) rate[i] = rate[i - 1] + h * push[i - 1];
    rate = centred(rate);
    for (size_t i = 1; i < grid; ++i) surge[i] = surge[i - 1] + h * rate[i - 1];
    surge = centred(surge);
  }
  auto surgeAt = [&](double t) {
    const double x = std::clamp(t / h, 0.0, double(grid - 1));
    const size_t i = std::min(size_t(x), grid - 2);
    return surge[i] + (x - double(i)) * (surge[i + 1] - surge[i]);
  };
  auto plannedRoot = [&](double t) {
    const int k = int(std::floor(t / kStep));
    const double height = bounceAt(k, t - k * kStep).first;
    return Vec3(0, height - crouchAt(t), forward(t) + surgeAt(t));
  };
  auto rootAt = [&](double t) -> Vec3 {
    const double x = std::clamp(t * fps, 0.0, double(frames - 1));
    const size_t i = std::min(size_t(x), size_t(frames - 1)), j = std::min(i + 1, size_t(frames - 1));
    return plannedRoot(t) + shift[i] + (x - double(i)) * (shift[j] - shift[i]);
  };
  // A swinging leg, in the sagittal plane from its hip: the hip-to-ankle
  // angle from straight down (forward positive) and length, each a cubic
  // Hermite curve in two pieces that starts with the stance's value and rate
  // at lift-off and ends with the next stance's at touchdown. At 60% of the
  // swing the leg is folded (ankle at 55% of the leg's reach: the knee bent
  // about 110 degrees at full speed, heel towards the seat), 0.2 rad behind
  // half way, and swings forward at twice its mean rate. (Of the knots
  // tried, these change the body's pitch angular momentum least in flight.)
  // A foot that merely rose and fell above the ground left the legs straight
  // in flight, out of reach of the rising hip, and their knees snapped at
  // 1,400-1,700 degrees/s at every landing.
  struct Polar {
    double angle, length, angleRate, lengthRate;
  };
  auto polar = [](const Vec3& leg, const Vec3& rate) {  // y, z of hip-to-ankle
    const double d2 = leg.y() * leg.y() + leg.z() * leg.z(), d = std::sqrt(d2);
    return Polar{std::atan2(leg.z(), -leg.y()), d, (-leg.y() * rate.z() + leg.z() * rate.y()) / d2,
                 (leg.y() * rate.y() + leg.z() * rate.z()) / d};
  };
  auto hermite = [](double a, double da, double b, double db, double span, double x) {
    const double x2 = x * x, x3 = x2 * x;
    return (2 * x3 - 3 * x2 + 1) * a + (x3 - 2 * x2 + x) * span * da + (-2 * x3 + 3 * x2) * b + (x3 - x2) * span * db;
  };
  // The ankle's world target (y, z) while planted for step k, and the hip's.
  auto planted = [&](int k) -> Vec3 { return Vec3(0, ankle.y(), ankle.z() + plant(k)); };
  auto hipAt = [&](double t) -> Vec3 { return hip + rootAt(t); };
  auto swingAt = [&](int k, double t, double effort) -> Vec3 {
    const double t0 = k * kStep + stanceOf(k), t1 = (k + 2) * kStep, e = 1e-3;
    const Polar a = polar(planted(k) - hipAt(t0), -(hipAt(t0 + e) - hipAt(t0 - e)) / (2 * e));
    const Polar c = polar(planted(k + 2) - hipAt(t1), -(hipAt(t1 + e) - hipAt(t1 - e)) / (2 * e));
    const double tm = t0 + 0.6 * (t1 - t0);
    const double fold = std::min(a.length, c.length);
    const Polar m{(a.angle + c.angle) / 2 - 0.2 * effort, fold - effort * (fold - 0.55 * reach),
                  2.0 * (c.angle - a.angle) / (t1 - t0), 0};
    const bool first = t < tm;
    const Polar& p = first ? a : m;
    const Polar& q = first ? m : c;
    const double span = first ? tm - t0 : t1 - tm;
    const double x = (t - (first ? t0 : tm)) / span;
    const double angle = hermite(p.angle, p.angleRate, q.angle, q.angleRate, span, x);
    const double length = hermite(p.length, p.lengthRate, q.length, q.lengthRate, span, x);
    return hipAt(t) + Vec3(0, -length * std::cos(angle), length * std::sin(angle));
  };
  // The ankle's target, relative to its rest position.
  auto footAt = [&](const Leg& leg, double side, double t, double effort) {
    int k = int(std::floor(t / kStep));
    if ((k % 2 + 2) % 2 != leg.parity) --k;  // this leg's latest step
    const double u = t - k * kStep;
    if (u < stanceOf(k)) return Vec3(inward(k, side), 0, plant(k));
    // Swing, 0..1, until the next touchdown (or the clip's end, above).
    const double touchdown = endsInsideAStep ? std::min(2 * kStep, seconds - k * kStep) : 2 * kStep;
    const double w = std::clamp((u - stanceOf(k)) / std::max(touchdown - stanceOf(k), 1e-9), 0.0, 1.0);
    const double x = inward(k, side) + (inward(k + 2, side) - inward(k, side)) * smootherstep(w);
    // Slow, the foot glides along the ground from one footprint to the next
    // (standing, it stays put); the faster, the more it swings as above.
    const double z = plant(k) + (plant(k + 2) - plant(k)) * smootherstep(w);
    const Vec3 swing = swingAt(k, t, effort) - ankle;
    return Vec3(x, effort * swing.y(), z + effort * (swing.z() - z));
  };

  // A hip-to-ankle distance the leg can take: unchanged up to the planted
  // stretch, then easing (with a continuous rate) towards the leg's reach, so
  // that a target out of reach never snaps the knee straight. The easing
  // fades with the speed: standing, the legs are straight as at rest.
  auto straighten = [&](double d, double effort) {
    const double room = (1 - kPlanted) * reach * effort, from = reach - room;
    if (d <= from) return d;
    return room > 1e-9 ? from + room * std::tanh((d - from) / room) : reach;
  };
  // The pose at time t with the root moved by `shift` from its planned path.
  auto poseAt = [&](double t, const Vec3& shift, PoseBuilder& p) {
    const double effort = speedAt(t) / speed;  // 0..1
    const Vec3 root = plannedRoot(t) + shift;
    p.moveRoot(root);
    // Each leg: the ankle on its target by two-bone inverse kinematics in the
    // sagittal plane, the sole kept level.
    double swing[2] = {0, 0};
    for (int side = 0; side < 2; ++side) {
      const Leg& leg = legs[side];
      const Vec3 legAnkle = rest[size_t(leg.foot)].translation, legHip = rest[size_t(leg.upLeg)].translation;
      const Vec3 foot = footAt(leg, legAnkle.x() > rest[0].translation.x() ? 1.0 : -1.0, t, effort);
      // Hip-to-ankle in the character's frame (y up, z forward); the leg's
      // plane rolls about the forward axis by `roll` to reach the foot's
      // sideways target, and the planar inverse kinematics below works in it.
      const double dx = (legAnkle.x() + foot.x()) - (legHip.x() + root.x()), dxRest = legAnkle.x() - legHip.x();
      const double vertical = (ankle.y() + foot.y()) - (hip.y() + root.y());
      // Flexion keeps the leg's sideways extent dxRest, so the rolled leg
      // reaches (dx, vertical) when its in-plane height dy has the same length.
      const double dy = -std::sqrt(std::max(0.0, dx * dx + vertical * vertical - dxRest * dxRest));
      const double roll = std::atan2(vertical, dx) - std::atan2(dy, dxRest);
      const double dz = (ankle.z() + foot.z()) - (hip.z() + root.z());
      const double d = straighten(std::hypot(dy, dz), effort);  // at most as stretched as at rest
      // The hip-ankle line's turn from its rest direction, forward positive.
      const double lean = std::atan2(dz, -dy) - std::atan2(ankle.z() - hip.z(), hip.y() - ankle.y());
      const double hipFlex = lean + cornerAngle(thigh, d, shin) - cornerAngle(thigh, reach, shin);
      const double kneeFlex = cornerAngle(thigh, shin, reach) - cornerAngle(thigh, shin, d);
      p.set(leg.upLeg, about(Vec3::UnitZ(), roll / kRad) * about(-Vec3::UnitX(), hipFlex / kRad));
      p.set(leg.leg, about(Vec3::UnitX(), kneeFlex / kRad));
      p.set(leg.foot, about(-Vec3::UnitX(), (kneeFlex - hipFlex) / kRad) * about(-Vec3::UnitZ(), roll / kRad));  // sole level
      swing[side] = hipFlex;
    }
    // Arms down, elbows bent, swinging against the legs; the trunk leans
    // forward a little and twists with the hips.
    const double armSwing = 0.8 * (swing[1] - swing[0]) / kRad;
    p.set(leftArm, about(-Vec3::UnitX(), armSwing) * about(-Vec3::UnitZ(), 70 * effort));
    p.set(rightArm, about(-Vec3::UnitX(), -armSwing) * about(Vec3::UnitZ(), 70 * effort));
    p.set(leftForeArm, about(-Vec3::UnitY(), 80 * effort));
    p.set(rightForeArm, about(Vec3::UnitY(), 80 * effort));
    const size_t f = size_t(std::clamp(std::lround(t * fps), 0L, long(frames - 1)));
    p.set(spine, about(Vec3::UnitY(), trunkYaw[f]) * about(Vec3::UnitX(), 8 * effort + trunkPitch[f]));
    p.set(chest, about(Vec3::UnitY(), 0.2 * armSwing));
  };

  // The planned path is the root's; with the body's masses the whole body's
  // centre of mass takes it instead (in flight it must fall freely and keep
  // its speed): the root moves against the limbs' swing, i.e. by the centre
  // of mass's offset from the root less that offset's mean over a step. The
  // legs' inverse kinematics depends on the root, so a few rounds.
  if (!body.empty()) {
    if (body.size() != s.size()) throw InputError(b.context(), "the body's masses must be one per joint");
    double total = 0;
    for (size_t j = 0; j < body.size(); ++j) {
      if (!(body[j].mass >= 0 && std::isfinite(body[j].mass)) || !body[j].com.allFinite())
        throw InputError(b.context(), "joint '" + s.joints[j].name + "' has a negative or non-finite mass or centre of mass");
      total += body[j].mass;
    }
    if (!(total > 0)) throw InputError(b.context(), "the body has no mass");
    const int32_t half = int32_t(std::lround(kStep * fps / 2));
    // A step-long moving average, centred (the ends clamped).
    // A moving average over `steps` steps, centred (the ends clamped).
    auto stepMean = [&](const auto& v, int32_t f, int32_t steps = 1) {
      using Value = std::decay_t<decltype(v[0])>;
      const int32_t reach = steps * half;
      Value sum = v[0] * 0.0;
      for (int32_t g = f - reach; g <= f + reach; ++g) sum += v[size_t(std::clamp(g, 0, frames - 1))];
      return Value(sum / double(2 * reach + 1));  // evaluated: not an expression of `sum`
    };
    auto placeCentreOfMass = [&]() {
      for (int round = 0; round < 4; ++round) {
        std::vector<Vec3> offset(static_cast<size_t>(frames));
        for (int32_t f = 0; f < frames; ++f) {
          b.reset();
          poseAt(f / fps, shift[size_t(f)], b);
          offset[size_t(f)] = centreOfMass(massPoints(s, b, body), body) - (rest[0].translation + b.rootOffset());
        }
        for (int32_t f = 0; f < frames; ++f) shift[size_t(f)] = stepMean(offset, f) - offset[size_t(f)];
      }
    };
    placeCentreOfMass();
    // The trunk pitches (about the spine's joint) against the limbs' swing
    // so that the whole body's angular momentum about its centre of mass
    // (about the character's sideways x axis) stays at its mean over a step:
    // in flight nothing could change it, and on a foot the ground's push then
    // needs no torque about the centre of mass. It also twists (about the
    // vertical through the spine's joint) against the legs' swing beside the
    // body's middle, so that the yaw momentum stays at its mean over a stride
    // (two steps, one per leg): otherwise only the sole's friction could turn
    // the body back. Each joint's mass taken as a point; two rounds, each
    // followed by placing the centre of mass again.
    std::vector<bool> trunk(s.size(), false);
    for (size_t j = 0; j < s.size(); ++j)
      trunk[j] = int32_t(j) == spine || (s.joints[j].parent >= 0 && trunk[size_t(s.joints[j].parent)]);
    for (int round = 0; round < 2; ++round) {
      std::vector<std::vector<Vec3>> points(static_cast<size_t>(frames));
      std::vector<Vec3> pivot(static_cast<size_t>(frames));
      for (int32_t f = 0; f < frames; ++f) {
        b.reset();
        poseAt(f / fps, shift[size_t(f)], b);
        std::vector<Vec3> joints;
        points[size_t(f)] = massPoints(s, b, body, &joints);
        pivot[size_t(f)] = joints[size_t(spine)];
      }
      std::vector<double> momentum(static_cast<size_t>(frames), 0.0), inertia(static_cast<size_t>(frames), 1.0);
      std::vector<double> yawMomentum(static_cast<size_t>(frames), 0.0), yawInertia(static_cast<size_t>(frames), 1.0);
      for (int32_t f = 1; f + 1 < frames; ++f) {
        const std::vector<Vec3>&r = points[size_t(f)], &before = points[size_t(f - 1)], &after = points[size_t(f + 1)];
        const Vec3 c = centreOfMass(r, body), vc = (centreOfMass(after, body) - centreOfMass(before, body)) * fps / 2;
        double l = 0, i = 0, ly = 0, iy = 0;
        for (size_t j = 0; j < s.size(); ++j) {
          const Vec3 v = (after[j] - before[j]) * fps / 2 - vc, rc = r[j] - c, rp = r[j] - pivot[size_t(f)];
          l += body[j].mass * rc.cross(v).x();
          ly += body[j].mass * rc.cross(v).y();
          if (trunk[j]) {
            i += body[j].mass * (rc.y() * rp.y() + rc.z() * rp.z());
            iy += body[j].mass * (rc.x() * rp.x() + rc.z() * rp.z());
          }
        }
        momentum[size_t(f)] = l, yawMomentum[size_t(f)] = ly;
        inertia[size_t(f)] = std::max(i, 1e-6), yawInertia[size_t(f)] = std::max(iy, 1e-6);
      }
      // The trunk's turn (degrees, added to `out`) whose rate takes the
      // momentum's departure from its mean over `steps` steps.
      auto counterTurn = [&](const std::vector<double>& l, const std::vector<double>& inertiaOf, int32_t steps,
                             std::vector<double>& out) {
        std::vector<double> rate(static_cast<size_t>(frames), 0.0), angle(static_cast<size_t>(frames), 0.0);
        for (int32_t f = 0; f < frames; ++f) rate[size_t(f)] = (stepMean(l, f, steps) - l[size_t(f)]) / inertiaOf[size_t(f)];
        for (int32_t f = 1; f < frames; ++f) angle[size_t(f)] = angle[size_t(f - 1)] + 0.5 * (rate[size_t(f - 1)] + rate[size_t(f)]) / fps;
        for (int32_t f = 0; f < frames; ++f) out[size_t(f)] += (angle[size_t(f)] - stepMean(angle, f, steps)) / kRad;
      };
      counterTurn(momentum, inertia, 1, trunkPitch);
      counterTurn(yawMomentum, yawInertia, 2, trunkYaw);
      placeCentreOfMass();
    }
  }
  return sampleClip(s, b, "run", seconds, fps,
                    [&](double t, PoseBuilder& p) { poseAt(t, shift[size_t(std::lround(t * fps))], p); });
}

}  // namespace sinew
