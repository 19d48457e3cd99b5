// Generated example motions: clips that match the humanoid skeleton joint for
// joint, start from its rest pose, move as described, move smoothly, and
// survive a BVH round trip.
#include "examples/Motions.h"

#include "core/Error.h"
#include "examples/Humanoid.h"
#include "io/Bvh.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sinew {
namespace {

const Skeleton& humanoid() {
  static const Skeleton s = makeHumanoidSkeleton();
  return s;
}

// Joint positions (metres) at time t, picked out of worldPointsAt (which
// interleaves the end sites after their joints).
std::vector<Vec3> jointPositionsAt(const MotionClip& clip, double t) {
  const std::vector<Vec3> all = clip.worldPointsAt(t);
  std::vector<Vec3> joints;
  size_t k = 0;
  for (const ClipJoint& j : clip.joints) {
    joints.push_back(all.at(k++));
    if (j.endSite) ++k;
  }
  EXPECT_EQ(k, all.size());
  return joints;
}

int32_t jointIndex(const MotionClip& clip, const std::string& name) {
  for (size_t i = 0; i < clip.joints.size(); ++i)
    if (clip.joints[i].name == name) return static_cast<int32_t>(i);
  ADD_FAILURE() << "no joint " << name;
  return 0;
}

// Largest frame-to-frame joint displacement, and largest second difference
// |p[f+1] - 2 p[f] + p[f-1]| over all joints and frames (metres).
struct Smoothness {
  double maxStep = 0, maxSecondDifference = 0;
};
Smoothness measure(const MotionClip& clip) {
  Smoothness r;
  std::vector<Vec3> prev2, prev;
  for (int32_t f = 0; f < clip.frameCount; ++f) {
    const std::vector<Vec3> p = jointPositionsAt(clip, f * clip.frameTime);
    for (size_t j = 0; j < p.size() && !prev.empty(); ++j) {
      r.maxStep = std::max(r.maxStep, (p[j] - prev[j]).norm());
      if (!prev2.empty()) r.maxSecondDifference = std::max(r.maxSecondDifference, (p[j] - 2 * prev[j] + prev2[j]).norm());
    }
    prev2 = std::move(prev);
    prev = p;
  }
  return r;
}

struct NamedClip {
  const char* name;
  MotionClip clip;
};
std::vector<NamedClip> allClips() {
  return {{"kick", makeKickClip(humanoid())},
          {"elbow", makeElbowBendClip(humanoid())},
          {"walk", makeWalkInPlaceClip(humanoid(), 6.0)}};
}

TEST(Motions, ClipsMatchTheSkeleton) {
  const Skeleton& s = humanoid();
  for (const auto& [name, clip] : allClips()) {
    SCOPED_TRACE(name);
    EXPECT_NO_THROW(clip.validate(name));
    EXPECT_EQ(clip.unitScale, 1.0);
    EXPECT_EQ(clip.units, "m");
    ASSERT_EQ(clip.joints.size(), s.size());
    for (size_t j = 0; j < s.size(); ++j) {
      EXPECT_EQ(clip.joints[j].name, s.joints[j].name);
      EXPECT_EQ(clip.joints[j].parent, s.joints[j].parent);
      EXPECT_EQ(clip.joints[j].offset, s.joints[j].restLocal.translation);
      const std::vector<Channel> expected =
          j == 0 ? std::vector<Channel>{Channel::Xposition, Channel::Yposition, Channel::Zposition,
                                        Channel::Zrotation, Channel::Xrotation, Channel::Yrotation}
                 : std::vector<Channel>{Channel::Zrotation, Channel::Xrotation, Channel::Yrotation};
      EXPECT_EQ(clip.joints[j].channels, expected);
    }
    // The root stays in place, except that the kick moves it over the standing foot.
    for (int32_t f = 0; f < clip.frameCount; f += 7)
      if (std::string(name) != "kick") {
        EXPECT_EQ(clip.localPose(f)[0].translation, s.joints[0].restLocal.translation);
      }
  }
}

TEST(Motions, ZeroChannelsGiveTheRestPose) {
  const Skeleton& s = humanoid();
  MotionClip clip = makeKickClip(s, 1.0, 30);
  EXPECT_EQ(clip.skeleton().restPositions(), s.restPositions());
  // A frame of zeros (root position channels at the rest offset) is the rest pose.
  std::fill(clip.values.begin(), clip.values.begin() + clip.channelCount(), 0.0);
  for (int k = 0; k < 3; ++k) clip.values[k] = s.joints[0].restLocal.translation[k];
  const std::vector<Vec3> p = jointPositionsAt(clip, 0.0);
  const std::vector<Vec3> rest = s.restPositions();
  ASSERT_EQ(p.size(), rest.size());
  for (size_t j = 0; j < rest.size(); ++j) EXPECT_LT((p[j] - rest[j]).norm(), 1e-12) << s.joints[j].name;
  // And every generated clip starts in the rest pose.
  for (const auto& [name, c] : allClips()) {
    SCOPED_TRACE(name);
    for (int32_t i = 0; i < c.channelCount(); ++i)
      EXPECT_NEAR(c.values[i], i < 3 ? s.joints[0].restLocal.translation[i] : 0.0, 1e-12) << "channel " << i;
  }
}

TEST(Motions, ElbowBendReachesTheRequestedAngleTowardsTheFront) {
  for (double degrees : {130.0, 45.0, 90.0}) {
    SCOPED_TRACE(degrees);
    const MotionClip clip = makeElbowBendClip(humanoid(), degrees, 3.0, 120);
    EXPECT_EQ(clip.frameCount, 361);
    const int32_t arm = jointIndex(clip, "LeftArm"), fore = jointIndex(clip, "LeftForeArm"),
                  hand = jointIndex(clip, "LeftHand");
    auto elbowAngle = [&](double t) {
      const std::vector<Vec3> p = jointPositionsAt(clip, t);
      const Vec3 upper = (p[fore] - p[arm]).normalized(), lower = (p[hand] - p[fore]).normalized();
      return std::acos(std::clamp(upper.dot(lower), -1.0, 1.0)) * 180.0 / M_PI;
    };
    EXPECT_NEAR(elbowAngle(0.0), 0.0, 1e-6);
    EXPECT_NEAR(elbowAngle(clip.duration()), degrees, 1e-9);
    EXPECT_NEAR(elbowAngle(1.2), degrees, 1e-9);  // reached at 40% and held
    EXPECT_NEAR(elbowAngle(2.0), degrees, 1e-9);
    EXPECT_GT(elbowAngle(0.6), 0.2 * degrees);  // halfway through the bend
    EXPECT_LT(elbowAngle(0.6), 0.8 * degrees);
    // The hand moves to the front (+z) of the character, staying at shoulder height.
    const std::vector<Vec3> end = jointPositionsAt(clip, clip.duration());
    const std::vector<Vec3> rest = humanoid().restPositions();
    const double forearm = (rest[hand] - rest[fore]).norm();
    EXPECT_NEAR(end[hand].z(), forearm * std::sin(degrees * M_PI / 180), 1e-9);
    EXPECT_NEAR(end[hand].y(), rest[hand].y(), 1e-9);
    // The channel: a Yrotation of -degrees on LeftForeArm, nothing else.
    const double* last = clip.frame(clip.frameCount - 1);
    const ClipJoint& j = clip.joints[fore];
    EXPECT_NEAR(last[j.firstChannel + 0], 0.0, 1e-9);
    EXPECT_NEAR(last[j.firstChannel + 1], 0.0, 1e-9);
    EXPECT_NEAR(last[j.firstChannel + 2], -degrees, 1e-9);
  }
}

TEST(Motions, KickStandsOnTheLeftFootAndRaisesTheRightFootForward) {
  const MotionClip clip = makeKickClip(humanoid());
  EXPECT_EQ(clip.frameCount, 601);
  const int32_t foot = jointIndex(clip, "RightFoot"), leftFoot = jointIndex(clip, "LeftFoot"),
                hips = jointIndex(clip, "Hips");
  const std::vector<Vec3> rest = humanoid().restPositions();
  double maxRise = 0, maxForward = 0, maxHipFlexion = 0, maxStanceSlip = 0;
  int peaks = 0;
  bool wasHigh = false;
  for (int32_t f = 0; f < clip.frameCount; ++f) {
    const std::vector<Vec3> p = jointPositionsAt(clip, f * clip.frameTime);
    const double rise = p[foot].y() - rest[foot].y();
    maxRise = std::max(maxRise, rise);
    maxForward = std::max(maxForward, p[foot].z() - rest[foot].z());
    EXPECT_GT(rise, -1e-3) << "frame " << f;  // never into the ground
    maxStanceSlip = std::max(maxStanceSlip, (p[leftFoot] - rest[leftFoot]).norm());
    // While the right foot is up (not only its heel) the pelvis is over the left foot.
    if (rise > 0.1) {
      EXPECT_NEAR(p[hips].x(), p[leftFoot].x(), 0.005) << "frame " << f;
    }
    EXPECT_NEAR(p[hips].z(), rest[hips].z(), 1e-9) << "frame " << f;
    const bool high = rise > 0.4;
    peaks += high && !wasHigh;
    wasHigh = high;
    maxHipFlexion = std::max(maxHipFlexion, -clip.frame(f)[clip.joints[jointIndex(clip, "RightUpLeg")].firstChannel + 1]);
  }
  EXPECT_GT(maxRise, 0.45);
  EXPECT_GT(maxForward, 0.6);
  EXPECT_EQ(peaks, 2);  // two kicks
  EXPECT_NEAR(maxHipFlexion, 80.0, 1.0);
  EXPECT_LT(maxStanceSlip, 1e-3) << "the standing foot stays where it is";
}

TEST(Motions, WalkInPlaceKeepsAFootOnTheGround) {
  const MotionClip clip = makeWalkInPlaceClip(humanoid(), 60.0, 60);
  EXPECT_EQ(clip.frameCount, 3601);
  const int32_t lf = jointIndex(clip, "LeftFoot"), rf = jointIndex(clip, "RightFoot");
  const std::vector<Vec3> rest = humanoid().restPositions();
  double maxLift = 0;
  for (int32_t f = 0; f < clip.frameCount; f += 3) {
    const std::vector<Vec3> p = jointPositionsAt(clip, f * clip.frameTime);
    const double l = p[lf].y() - rest[lf].y(), r = p[rf].y() - rest[rf].y();
    EXPECT_LT(std::min(l, r), 1e-9) << "frame " << f;  // one foot always down
    EXPECT_GT(std::min(l, r), -1e-3) << "frame " << f;
    maxLift = std::max({maxLift, l, r});
  }
  EXPECT_GT(maxLift, 0.05);
  EXPECT_LT(maxLift, 0.2);
  // Starts and ends in the rest pose.
  const int32_t n = clip.channelCount();
  for (int32_t i = 3; i < n; ++i) {
    EXPECT_NEAR(clip.values[i], 0.0, 1e-12);
    EXPECT_NEAR(clip.values[(clip.frameCount - 1) * size_t(n) + i], 0.0, 1e-9);
  }
}

// The generated run: 3 m/s at full speed, a step every 0.35 s with the
// stance foot planted (no sliding, on the ground), both feet off the ground
// in flight, feet behind the body while it speeds up, and still at both ends.
TEST(Motions, RunPlantsItsFeetFliesBetweenStepsAndKeepsItsSpeed) {
  const MotionClip clip = makeRunClip(humanoid(), 10.0, 120);
  EXPECT_NO_THROW(clip.validate("run"));
  EXPECT_EQ(clip.frameCount, 1201);
  const int32_t hips = jointIndex(clip, "Hips");
  const int32_t feet[2] = {jointIndex(clip, "LeftFoot"), jointIndex(clip, "RightFoot")};
  const std::vector<Vec3> rest = humanoid().restPositions();
  const double ankle = rest[size_t(feet[0])].y();
  // Full speed from 3 s to 7 s: 3 m/s on average over whole steps.
  const double z3 = jointPositionsAt(clip, 3.1)[hips].z(), z6 = jointPositionsAt(clip, 3.1 + 10 * 0.35)[hips].z();
  EXPECT_NEAR((z6 - z3) / 3.5, 3.0, 0.01);
  // Each step's stance foot stays where it landed, on the ground.
  for (int k = 6; k < 22; ++k) {
    const int32_t foot = feet[k % 2];
    const Vec3 landed = jointPositionsAt(clip, k * 0.35 + 0.01)[foot];  // frames either side of a touch-down differ
    EXPECT_NEAR(landed.y(), ankle, 2e-3) << "step " << k;
    for (double u = 0.02; u < 0.195; u += 0.02)
      EXPECT_LT((jointPositionsAt(clip, k * 0.35 + u)[foot] - landed).norm(), 2e-3) << "step " << k << " + " << u << " s";
    // In the flight that follows, both feet are off the ground.
    const std::vector<Vec3> mid = jointPositionsAt(clip, k * 0.35 + 0.21 + 0.07);
    for (int32_t f : feet) EXPECT_GT(mid[f].y() - ankle, 0.01) << "flight after step " << k;
  }
  // Speeding up, the ground's push points through the body: at mid-stance the
  // foot is behind the hips by h a / g (h the root's height, a = 1.875 m/s^2 at
  // 1.5 s, the ramp's steepest: the step's change of speed over its length),
  // and under them at full speed. A stance is where the foot stays within
  // 2 mm of where it landed (longer at lower speeds, where the flights are
  // shorter; the foot comes and goes alike, so the middle is the stance's).
  auto lead = [&](int k) {
    const int32_t foot = feet[k % 2];
    const Vec3 landed = jointPositionsAt(clip, k * 0.35 + 0.01)[foot];
    auto near = [&](double t) { return (jointPositionsAt(clip, t)[foot] - landed).norm() < 2e-3; };
    double touchdown = k * 0.35 + 0.01, liftOff = touchdown;
    while (touchdown > k * 0.35 - 0.1 && near(touchdown - 1e-4)) touchdown -= 1e-4;
    while (liftOff < k * 0.35 + 0.35 && near(liftOff + 1e-4)) liftOff += 1e-4;
    EXPECT_GT(liftOff - touchdown, 0.2) << "step " << k << "'s stance";
    const std::vector<Vec3> p = jointPositionsAt(clip, (touchdown + liftOff) / 2);
    return (p[hips].z() - p[foot].z()) - (rest[size_t(hips)].z() - rest[size_t(foot)].z());
  };
  const double steepest = rest[size_t(hips)].y() * 1.875 / 9.81;
  EXPECT_NEAR(lead(4), steepest, 0.03);  // stance 1.40-1.67 s: 0.168 m
  EXPECT_NEAR(lead(12), 0.0, 0.01);      // 4.20-4.41 s: 0.003 m
  EXPECT_NEAR(lead(24), -steepest, 0.03);  // slowing down, the foot ahead: -0.164 m
  // At full speed the feet land nearly on one line, 3 cm either side of the hips.
  for (int k = 11; k < 13; ++k) {
    const std::vector<Vec3> p = jointPositionsAt(clip, k * 0.35 + 0.105);
    EXPECT_NEAR(std::abs(p[feet[k % 2]].x() - p[hips].x()), 0.03, 0.002) << "step " << k;
  }
  // The root falls freely in flight: its height is a parabola of -g/2 t^2.
  const double t0 = 12 * 0.35 + 0.21, dt = 0.05;
  const double y0 = jointPositionsAt(clip, t0)[hips].y(), y1 = jointPositionsAt(clip, t0 + dt)[hips].y(),
               y2 = jointPositionsAt(clip, t0 + 2 * dt)[hips].y();
  EXPECT_NEAR((y2 - 2 * y1 + y0) / (dt * dt), -9.81, 0.3);
  // Standing at both ends: every joint within a degree of its rest pose (the
  // feet's last steps are a few millimetres from under the hips).
  const int32_t n = clip.channelCount();
  for (const ClipJoint& j : clip.joints)
    for (int32_t c = 0; c < int32_t(j.channels.size()); ++c) {
      const size_t i = size_t(j.firstChannel + c);
      if (i < 3) continue;
      EXPECT_NEAR(clip.values[i], 0.0, 1.0) << j.name << " channel " << c;  // degrees
      EXPECT_NEAR(clip.values[(clip.frameCount - 1) * size_t(n) + i], 0.0, 1.0) << j.name << " channel " << c;
    }
  EXPECT_NEAR(jointPositionsAt(clip, 10.0)[hips].y(), rest[size_t(hips)].y(), 1e-6);
  EXPECT_THROW(makeRunClip(humanoid(), 5.5), InputError);
  EXPECT_THROW(makeRunClip(humanoid(), 10.0, 120, 0.0), InputError);
  EXPECT_THROW(makeRunClip(humanoid(), 10.0, 120, 3.0, std::vector<LinkMass>(3)), InputError) << "one mass per joint";
  std::vector<LinkMass> body(humanoid().size(), LinkMass{1.0, Vec3::Zero()});
  EXPECT_NO_THROW(makeRunClip(humanoid(), 6.5, 30, 3.0, body));
  body[3].mass = std::nan("");
  EXPECT_THROW(makeRunClip(humanoid(), 6.5, 30, 3.0, body), InputError) << "a NaN mass";
  body.assign(humanoid().size(), LinkMass{});
  EXPECT_THROW(makeRunClip(humanoid(), 6.5, 30, 3.0, body), InputError) << "no mass at all";
}

// The rigged example's run is the shortest that reaches full speed: 7 s, 3 s
// to speed up, 1 s at 3 m/s, 3 s to stop; its first 4 s are the 10 s run's.
TEST(Motions, TheExamplesRunReachesFullSpeedForASecondAndStops) {
  const MotionClip clip = makeRunClip(humanoid(), 7.0, 120), longer = makeRunClip(humanoid(), 10.0, 120);
  EXPECT_EQ(clip.frameCount, 841);
  const int32_t hips = jointIndex(clip, "Hips");
  // The same up to the last touchdown before 4 s, at every touchdown and
  // mid-step (to 0.1 mm: the stance's surge is centred over a step). The
  // step that lands at 3.85 s already slows down on its foot: its next
  // touchdown, at 4.2 s, is slower.
  for (double t = 0; t < 3.86; t += 0.175)
    EXPECT_LT((jointPositionsAt(clip, t)[hips] - jointPositionsAt(longer, t)[hips]).norm(), 1e-4) << t << " s";
  const double z3 = jointPositionsAt(clip, 3.0)[hips].z(), z4 = jointPositionsAt(clip, 3.0 + 2 * 0.35)[hips].z();
  EXPECT_NEAR((z4 - z3) / 0.7, 3.0, 0.02);
  const std::vector<Vec3> rest = humanoid().restPositions();
  EXPECT_NEAR(jointPositionsAt(clip, 7.0)[hips].y(), rest[size_t(hips)].y(), 1e-6);
  const Vec3 end = jointPositionsAt(clip, 7.0)[hips];
  EXPECT_LT((jointPositionsAt(clip, 6.9)[hips] - end).norm(), 0.01) << "still at the end";
}

TEST(Motions, ClipsAreSmooth) {
  for (const auto& [name, clip] : allClips()) {
    SCOPED_TRACE(name);
    const Smoothness m = measure(clip);
    // At 120 fps no joint moves more than 3.5 cm a frame (the kicking foot
    // peaks near 3.2 m/s), and the motion has no kinks: second differences
    // (acceleration x dt^2, at most 3 mm, i.e. about 40 m/s^2) stay an order
    // below the steps, where a kink would make them as large as a step.
    EXPECT_LT(m.maxStep, 0.035);
    EXPECT_LT(m.maxSecondDifference, 0.003);
    EXPECT_LT(m.maxSecondDifference, 0.15 * m.maxStep);
    RecordProperty(std::string(name) + "_maxStep", std::to_string(m.maxStep));
    RecordProperty(std::string(name) + "_maxSecondDifference", std::to_string(m.maxSecondDifference));
  }
}

TEST(Motions, BvhRoundTrip) {
  for (const auto& [name, clip] : allClips()) {
    SCOPED_TRACE(name);
    const MotionClip back = parseBvh(formatBvh(clip), "x.bvh", 1.0);
    EXPECT_EQ(back.joints, clip.joints);
    EXPECT_EQ(back.frameCount, clip.frameCount);
    EXPECT_EQ(back.frameTime, clip.frameTime);
    EXPECT_EQ(back.values, clip.values);  // shortest round-trip printing: exact
    EXPECT_EQ(back.unitScale, 1.0);
  }
}

TEST(Motions, MissingJointsAndBadArguments) {
  Skeleton s = humanoid();
  s.joints[s.find("RightUpLeg")].name = "RightThigh";
  try {
    makeKickClip(s);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("RightUpLeg"), std::string::npos) << e.what();
  }
  EXPECT_THROW(makeWalkInPlaceClip(s), InputError);
  EXPECT_NO_THROW(makeElbowBendClip(s));  // does not need the leg
  Skeleton noArm = humanoid();
  noArm.joints[noArm.find("LeftForeArm")].name = "LeftElbow";
  EXPECT_THROW(makeElbowBendClip(noArm), InputError);
  EXPECT_THROW(makeElbowBendClip(humanoid(), 200), InputError);
  EXPECT_THROW(makeElbowBendClip(humanoid(), NAN), InputError);
  EXPECT_THROW(makeKickClip(humanoid(), 0.0), InputError);
  EXPECT_THROW(makeKickClip(humanoid(), 5.0, -1), InputError);
  EXPECT_THROW(makeWalkInPlaceClip(humanoid(), 10, 120, 0), InputError);
}

TEST(Motions, ScaledHumanoid) {
  HumanoidOptions o;
  o.height = 1.2;
  const Skeleton s = makeHumanoidSkeleton(o);
  const MotionClip clip = makeElbowBendClip(s, 90);
  EXPECT_EQ(clip.skeleton().restPositions(), s.restPositions());
  const std::vector<Vec3> p = jointPositionsAt(clip, clip.duration());
  const int32_t fore = s.find("LeftForeArm"), hand = s.find("LeftHand");
  EXPECT_NEAR((p[hand] - p[fore]).normalized().dot(Vec3::UnitZ()), 1.0, 1e-9);
}

}  // namespace
}  // namespace sinew
