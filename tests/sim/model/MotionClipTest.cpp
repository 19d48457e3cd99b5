// Motion clips: channel composition, interpolation, unit detection, validation.
#include "model/MotionClip.h"

#include "core/Error.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sinew {
namespace {

constexpr double kDeg = M_PI / 180.0;

// Hand-written elementary rotations (not via Eigen's AngleAxis).
Mat3 Rx(double deg) {
  const double c = std::cos(deg * kDeg), s = std::sin(deg * kDeg);
  Mat3 m;
  m << 1, 0, 0, 0, c, -s, 0, s, c;
  return m;
}
Mat3 Ry(double deg) {
  const double c = std::cos(deg * kDeg), s = std::sin(deg * kDeg);
  Mat3 m;
  m << c, 0, s, 0, 1, 0, -s, 0, c;
  return m;
}
Mat3 Rz(double deg) {
  const double c = std::cos(deg * kDeg), s = std::sin(deg * kDeg);
  Mat3 m;
  m << c, -s, 0, s, c, 0, 0, 0, 1;
  return m;
}

// Root "Hips" with 6 channels (positions, then Z X Y rotations) and a child
// "Chest" with Z X Y rotations and an end site; 3 frames at 10 fps, in cm.
MotionClip twoJointClip() {
  MotionClip c;
  c.name = "test";
  ClipJoint hips;
  hips.name = "Hips";
  hips.offset = Vec3(1, 2, 3);
  hips.channels = {Channel::Xposition, Channel::Yposition, Channel::Zposition,
                   Channel::Zrotation, Channel::Xrotation, Channel::Yrotation};
  ClipJoint chest;
  chest.name = "Chest";
  chest.parent = 0;
  chest.offset = Vec3(0, 10, 0);
  chest.channels = {Channel::Zrotation, Channel::Xrotation, Channel::Yrotation};
  chest.firstChannel = 6;
  chest.endSite = Vec3(0, 5, 0);
  c.joints = {hips, chest};
  c.frameTime = 0.1;
  c.frameCount = 3;
  c.values = {
      0,  90, 0,  0,  0,  0,  30, 45, 60,   // frame 0
      10, 90, -4, 90, 0,  0,  10, 0,  0,    // frame 1
      20, 80, 0,  0,  0,  0,  50, 0,  0,    // frame 2
  };
  c.unitScale = 0.01;
  c.units = "cm";
  return c;
}

TEST(MotionClip, ChannelOrderComposesLeftToRight) {
  const MotionClip c = twoJointClip();
  EXPECT_NO_THROW(c.validate("clip"));
  EXPECT_EQ(c.channelCount(), 9);
  const std::vector<Transform> pose = c.localPose(0);
  ASSERT_EQ(pose.size(), 2u);
  // "Zrotation Xrotation Yrotation" with values 30, 45, 60: R = Rz(30) Rx(45) Ry(60).
  const Mat3 expected = Rz(30) * Rx(45) * Ry(60);
  const Vec3 p(0.3, -0.7, 1.1);
  const Vec3 got = pose[1].rotation * p;
  EXPECT_LT((got - expected * p).norm(), 1e-12) << got.transpose() << " vs " << (expected * p).transpose();
  // Another order would give a clearly different point.
  EXPECT_GT((got - Ry(60) * Rx(45) * Rz(30) * p).norm(), 0.1);
  EXPECT_GT((got - Rx(45) * Ry(60) * Rz(30) * p).norm(), 0.1);
  // A non-root joint keeps its offset (in metres); the root's position channels replace its offset.
  EXPECT_TRUE(pose[1].translation.isApprox(Vec3(0, 0.1, 0), 1e-15));
  EXPECT_TRUE(pose[0].translation.isApprox(Vec3(0, 0.9, 0), 1e-15));
  EXPECT_TRUE(pose[0].rotation.isApprox(Quat::Identity(), 1e-15));
}

TEST(MotionClip, WorldPointsFollowTheHierarchy) {
  const MotionClip c = twoJointClip();
  // Frame 1: root at (10, 90, -4) cm turned 90 degrees about z; chest turned a further 10 degrees.
  const std::vector<Vec3> pts = c.worldPointsAt(0.1);
  ASSERT_EQ(pts.size(), 3u);  // Hips, Chest, Chest's end site
  EXPECT_TRUE(pts[0].isApprox(Vec3(0.10, 0.90, -0.04), 1e-12));
  // Chest offset (0,10,0) cm turned 90 degrees about z points along -x.
  EXPECT_LT((pts[1] - Vec3(0.0, 0.90, -0.04)).norm(), 1e-12);
  // End site (0,5,0) turned 100 degrees about z.
  const Vec3 end = Vec3(0.0, 0.90, -0.04) + Rz(100) * Vec3(0, 0.05, 0);
  EXPECT_LT((pts[2] - end).norm(), 1e-12);
  // The rest skeleton (zero channels) in metres.
  const Skeleton s = c.skeleton();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s.joints[1].parent, 0);
  EXPECT_TRUE(s.joints[1].restLocal.translation.isApprox(Vec3(0, 0.1, 0), 1e-15));
  EXPECT_TRUE(s.joints[0].restLocal.translation.isApprox(Vec3(0.01, 0.02, 0.03), 1e-15));
}

TEST(MotionClip, LocalPoseAtInterpolatesHalfway) {
  const MotionClip c = twoJointClip();
  EXPECT_NEAR(c.duration(), 0.2, 1e-15);
  EXPECT_NEAR(c.frameRate(), 10.0, 1e-12);
  // Halfway between frame 1 and frame 2.
  const std::vector<Transform> mid = c.localPoseAt(0.15);
  const std::vector<Transform> f1 = c.localPose(1), f2 = c.localPose(2);
  EXPECT_TRUE(mid[0].translation.isApprox(0.5 * (f1[0].translation + f2[0].translation), 1e-12));
  EXPECT_TRUE(mid[0].translation.isApprox(Vec3(0.15, 0.85, -0.02), 1e-12));
  // Chest: 10 and 50 degrees about z -> 30 degrees.
  const Vec3 p(1, 0.5, -0.25);
  EXPECT_LT((mid[1].rotation * p - Rz(30) * p).norm(), 1e-12);
  // Root: 90 and 0 degrees about z -> 45 degrees.
  EXPECT_LT((mid[0].rotation * p - Rz(45) * p).norm(), 1e-12);
  // A quarter of the way.
  const std::vector<Transform> q = c.localPoseAt(0.125);
  EXPECT_LT((q[1].rotation * p - Rz(20) * p).norm(), 1e-12);
  // Exactly on a frame, and clamped outside the clip.
  const std::vector<Transform> on = c.localPoseAt(0.1);
  EXPECT_TRUE(on[1].rotation.isApprox(f1[1].rotation, 1e-15));
  const std::vector<Transform> before = c.localPoseAt(-5.0), after = c.localPoseAt(99.0);
  EXPECT_TRUE(before[0].translation.isApprox(c.localPose(0)[0].translation, 1e-15));
  EXPECT_TRUE(after[0].translation.isApprox(f2[0].translation, 1e-15));
}

TEST(MotionClip, DetectHumanUnits) {
  EXPECT_EQ(detectHumanUnits(170.0).first, "cm");
  EXPECT_DOUBLE_EQ(detectHumanUnits(170.0).second, 0.01);
  EXPECT_EQ(detectHumanUnits(182.0).first, "cm");
  EXPECT_EQ(detectHumanUnits(1.7).first, "m");
  EXPECT_DOUBLE_EQ(detectHumanUnits(1.7).second, 1.0);
  EXPECT_EQ(detectHumanUnits(1.55).first, "m");
  EXPECT_EQ(detectHumanUnits(30.0).first, "cmu");
  EXPECT_NEAR(detectHumanUnits(30.0).second, 0.0254 / 0.45, 1e-15);
  EXPECT_EQ(detectHumanUnits(67.0).first, "inch");
  EXPECT_DOUBLE_EQ(detectHumanUnits(67.0).second, 0.0254);
  EXPECT_EQ(detectHumanUnits(1700.0).first, "mm");
  EXPECT_EQ(detectHumanUnits(0.0).first, "m");   // no information
  EXPECT_EQ(detectHumanUnits(-3.0).first, "m");
}

TEST(MotionClip, RestHeightInFileUnits) {
  MotionClip c = twoJointClip();
  // Rest pose: Hips at (1,2,3), Chest 10 above, end site 5 above that.
  EXPECT_DOUBLE_EQ(restHeight(c), 15.0);
  c.unitScale = 123.0;  // height is in file units, whatever the scale
  EXPECT_DOUBLE_EQ(restHeight(c), 15.0);
}

TEST(MotionClip, ValidateRejectsInconsistentClips) {
  auto rejects = [](const MotionClip& c, const std::string& fragment) {
    try {
      c.validate("walk.bvh");
      ADD_FAILURE() << "accepted: expected '" << fragment << "'";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "walk.bvh");
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  MotionClip c = twoJointClip();
  c.values.pop_back();
  rejects(c, "expected 27 channel values");
  c = twoJointClip();
  c.frameTime = 0;
  rejects(c, "frame time");
  c = twoJointClip();
  c.values[13] = std::numeric_limits<double>::infinity();
  rejects(c, "non-finite channel value in frame 2");
  c = twoJointClip();
  c.joints[1].firstChannel = 5;
  rejects(c, "inconsistent channel layout");
  c = twoJointClip();
  c.joints[1].parent = 1;
  rejects(c, "invalid parent");
  c = twoJointClip();
  c.joints.clear();
  rejects(c, "no joints");
}

TEST(MotionClip, ChannelNames) {
  for (Channel ch : {Channel::Xposition, Channel::Yposition, Channel::Zposition, Channel::Xrotation,
                     Channel::Yrotation, Channel::Zrotation})
    EXPECT_EQ(channelFromName(channelName(ch)), ch);
  EXPECT_FALSE(channelFromName("xrotation").has_value());
  EXPECT_FALSE(channelFromName("Wrotation").has_value());
}

}  // namespace
}  // namespace sinew
