#include "control/Feedback.h"

#include <algorithm>
#include <cmath>

namespace sinew::control {

std::vector<int32_t> feedbackJoints(const ReferenceMotion& reference) {
  const dyn::ArticulatedModel& body = reference.bodyModel();
  std::vector<int32_t> joints;
  for (int32_t foot : reference.feet()) {
    joints.push_back(foot);
    const int32_t knee = body.links[size_t(foot)].parent;
    const int32_t hip = knee > 0 ? body.links[size_t(knee)].parent : -1;
    if (hip > 0) joints.push_back(hip);
  }
  return joints;
}

Quat referenceHeading(const ReferenceMotion& reference, double t) {
  const BodyFeatures f = reference.features(t);
  const Vec3 forward = f.rootRotation * Vec3::UnitZ();
  const double yaw = std::hypot(forward.x(), forward.z()) > 1e-9 ? std::atan2(forward.x(), forward.z()) : 0.0;
  return Quat(Eigen::AngleAxisd(yaw, Vec3::UnitY()));
}

std::array<double, kFeedbackStateSize> feedbackState(const ReferenceMotion& reference,
                                                     const dyn::ArticulatedState& sim, double t, bool still) {
  const BodyFeatures ref = reference.features(t);
  const BodyFeatures now = reference.features(sim);
  const Vec3 forward = ref.rootRotation * Vec3::UnitZ();
  const double yaw = std::hypot(forward.x(), forward.z()) > 1e-9 ? std::atan2(forward.x(), forward.z()) : 0.0;
  const Quat toHeading(Eigen::AngleAxisd(-yaw, Vec3::UnitY()));
  const double h = std::max(0.3, ref.centerOfMass.y());
  const Vec3 tilt = toHeading * rotationVector(now.rootRotation * ref.rootRotation.conjugate());
  Vec3 d = (now.centerOfMass - now.support) - (ref.centerOfMass - ref.support);
  Vec3 v = now.centerOfMassVelocity - ref.centerOfMassVelocity;
  if (still) {
    // Standing still: the centre of mass where the character's rest pose
    // has it over its feet (a pose it stands in), turned to the heading.
    const BodyFeatures rest = reference.features(dyn::restState(reference.bodyModel()));
    const Quat heading(Eigen::AngleAxisd(yaw, Vec3::UnitY()));
    d = (now.centerOfMass - now.support) - heading * (rest.centerOfMass - rest.support);
    v = now.centerOfMassVelocity;
  }
  d.y() = v.y() = 0;
  const Vec3 balance = toHeading * Vec3(Vec3::UnitY().cross(d) / h);
  const Vec3 velocity = toHeading * Vec3(Vec3::UnitY().cross(v) / h);
  return {tilt.x(), tilt.z(), balance.x(), balance.z(), velocity.x(), velocity.z()};
}

BalanceGains defaultBalanceGains() {
  BalanceGains g;
  g.ankleTilt = 3;
  g.ankleVelocity = 0.2;
  // Foot placement: on the project's "Walk in place" (0-2 s, 150 samples,
  // seed 1) these end at cost 0.18 with no sample of the last window
  // falling; without foot placement every sample of window 20 falls, and with
  // (-0.5, -0.2) the character walks off backward (cost 1.55).
  g.swingHipBalance = -0.5;
  g.swingHipVelocity = -1.0;
  return g;
}

BalanceGains holdBalanceGains() {
  // Measured on the example (docs/PERFORMANCE.md, "Standing still" and
  // "Controllers that end standing"): (1, 1, 0.5) stood 8 s held still, but
  // over the shipped controllers' standing tails, shoved or not, (0.5, 0.5,
  // 0.5) kept the character up in 15 of 18 trials against 12 of 18, and the
  // jump's unshoved hold only with it; weaker gains lost the larger shoves,
  // and (2, 2, 2) made the simulation blow up.
  BalanceGains g;
  g.ankleTilt = 0.5;
  g.ankleBalance = 0.5;
  g.ankleVelocity = 0.5;
  return g;
}

std::vector<Quat> holdTargets(const ReferenceMotion& reference, const dyn::ArticulatedModel& skeleton, double t,
                              const dyn::ArticulatedState& sim) {
  const std::vector<int32_t> joints = feedbackJoints(reference);
  return applyFeedback(skeleton, sim, reference.pose(t).rotation, joints, gainMatrix(holdBalanceGains(), joints, reference),
                       feedbackState(reference, sim, t, true), referenceHeading(reference, t));
}

namespace {

// Per joint (ankle or hip) its (tilt, balance, velocity) gains, isotropic in
// the two horizontal axes.
struct JointGains {
  double tilt, balance, velocity;
};

template <class PerJoint>
std::vector<double> isotropicGains(const std::vector<int32_t>& joints, const ReferenceMotion& reference,
                                   PerJoint perJoint) {
  const int n = kFeedbackStateSize;
  std::vector<double> m(joints.size() * 3 * size_t(n), 0.0);
  const std::vector<int32_t>& feet = reference.feet();
  for (size_t j = 0; j < joints.size(); ++j) {
    const bool ankle = std::find(feet.begin(), feet.end(), joints[j]) != feet.end();
    const JointGains k = perJoint(ankle);
    double* rx = &m[(3 * j + 0) * size_t(n)];  // omega_x from the x components
    double* rz = &m[(3 * j + 2) * size_t(n)];  // omega_z from the z components
    rx[0] = k.tilt, rx[2] = k.balance, rx[4] = k.velocity;
    rz[1] = k.tilt, rz[3] = k.balance, rz[5] = k.velocity;
  }
  return m;
}

}  // namespace

std::vector<double> gainMatrix(const BalanceGains& g, const std::vector<int32_t>& joints,
                               const ReferenceMotion& reference) {
  return isotropicGains(joints, reference, [&](bool ankle) {
    return ankle ? JointGains{g.ankleTilt, g.ankleBalance, g.ankleVelocity} : JointGains{g.hipTilt, g.hipBalance, g.hipVelocity};
  });
}

std::vector<double> swingGainMatrix(const BalanceGains& g, const std::vector<int32_t>& joints,
                                    const ReferenceMotion& reference) {
  return isotropicGains(joints, reference, [&](bool ankle) {
    return ankle ? JointGains{0, 0, 0} : JointGains{0, g.swingHipBalance, g.swingHipVelocity};
  });
}

std::vector<Quat> applyFeedback(const dyn::ArticulatedModel& skeleton, const dyn::ArticulatedState& sim,
                                std::vector<Quat> targets, const std::vector<int32_t>& joints,
                                const std::vector<double>& gains, const std::array<double, kFeedbackStateSize>& s,
                                const Quat& heading) {
  if (gains.size() != joints.size() * 3 * kFeedbackStateSize) return targets;
  const dyn::LinkKinematics k = dyn::forwardKinematics(skeleton, sim);
  for (size_t j = 0; j < joints.size(); ++j) {
    const size_t l = size_t(joints[j]);
    if (l == 0 || l >= targets.size()) continue;
    Vec3 omega = Vec3::Zero();
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < kFeedbackStateSize; ++c) omega[r] += gains[(3 * j + size_t(r)) * kFeedbackStateSize + size_t(c)] * s[size_t(c)];
    const dyn::Link& link = skeleton.links[l];
    const Quat frame = k.pose[size_t(link.parent)].rotation * link.parentFromJoint.rotation;
    const Vec3 local = frame.conjugate() * (heading * omega);
    if (link.kind == dyn::JointKind::Ball) {
      targets[l] = (fromRotationVector(local) * targets[l]).normalized();
    } else if (link.kind == dyn::JointKind::Hinge) {
      targets[l] = (Quat(Eigen::AngleAxisd(local.dot(link.hingeAxis), link.hingeAxis)) * targets[l]).normalized();
    }
  }
  return targets;
}

const std::vector<double>* windowGains(const FeedbackPolicy& policy, size_t window, bool swing) {
  const std::vector<std::vector<double>>& set = swing ? policy.swingGains : policy.gains;
  if (set.empty()) return nullptr;
  return &set[std::min(window, set.size() - 1)];
}

std::vector<bool> stanceLegs(const ReferenceMotion& reference, double t) {
  const dyn::LinkKinematics k = dyn::forwardKinematics(reference.bodyModel(), reference.pose(t));
  const std::vector<int32_t>& feet = reference.feet();
  std::vector<bool> down(feet.size(), false);
  for (size_t f = 0; f < feet.size(); ++f)
    down[f] = k.pose[size_t(feet[f])].translation.y() - reference.footRestHeight()[f] < kStanceHeight;
  return down;
}

int32_t feedbackPeriodSteps(const FeedbackPolicy& policy, double dt) {
  return std::max<int32_t>(1, int32_t(std::lround(policy.period / dt)));
}

std::vector<Quat> correctedTargets(const ReferenceMotion& reference, const dyn::ArticulatedModel& skeleton,
                                   const FeedbackPolicy& policy, const ControlWindow& w, size_t window,
                                   const std::vector<Quat>& targets, int32_t step, int32_t steps,
                                   const dyn::ArticulatedState& sim) {
  const std::vector<double>* gains = windowGains(policy, window);
  if (!gains) return targets;
  const double u = steps > 0 ? double(step) / double(steps) : 0.0;
  const double t = w.referenceStart + u * w.referenceDuration;
  // The legs the reference stands on get the stance gains (a swinging foot's
  // ankle cannot push on the ground), a leg it swings the swing gains (or
  // none); with no foot down, all legs get the stance gains.
  const std::vector<bool> stance = stanceLegs(reference, t);
  const std::vector<double>* swingGains = windowGains(policy, window, true);
  std::vector<double> g = *gains;
  const dyn::ArticulatedModel& body = reference.bodyModel();
  const std::vector<int32_t>& feet = reference.feet();
  const size_t rows = 3 * kFeedbackStateSize;
  if (std::count(stance.begin(), stance.end(), true) > 0)
    for (size_t j = 0; j < policy.joints.size(); ++j)
      for (size_t f = 0; f < feet.size(); ++f) {
        bool inLeg = false;
        for (int32_t l = feet[f]; l > 0 && !inLeg; l = body.links[size_t(l)].parent) inLeg = l == policy.joints[j];
        if (!inLeg || stance[f]) continue;
        if (swingGains && swingGains->size() == g.size())
          std::copy_n(swingGains->begin() + long(j * rows), rows, g.begin() + long(j * rows));
        else
          std::fill_n(g.begin() + long(j * rows), rows, 0.0);
      }
  return applyFeedback(skeleton, sim, targets, policy.joints, g, feedbackState(reference, sim, t),
                       referenceHeading(reference, t));
}

FeedbackPolicy uniformPolicy(const BalanceGains& g, const ReferenceMotion& reference, size_t windows, double period) {
  FeedbackPolicy p;
  p.joints = feedbackJoints(reference);
  p.stateSize = kFeedbackStateSize;
  p.period = period;
  p.gains.assign(windows, gainMatrix(g, p.joints, reference));
  if (g.swingHipBalance != 0 || g.swingHipVelocity != 0) p.swingGains.assign(windows, swingGainMatrix(g, p.joints, reference));
  return p;
}

}  // namespace sinew::control
