// Linear balance feedback around open-loop control (after Liu et al. 2012,
// as sketched in the papers' README): at short intervals the controller adds
// offsets to the open-loop PD targets of the stance joints (hips and ankles),
// linear in a reduced state deviation from the reference:
//
//   s = [ tilt (2) | centre of mass over the support (2) | centre-of-mass velocity (2) ]
//
// each a horizontal 2-vector in the reference's heading frame (x: the character's left,
// z: forward), the last two turned into "rotation-like" quantities
// (y x d / h and y x v / h, h the reference's centre-of-mass height) so that
// one gain means the same in the sagittal and the lateral plane. For joint j
// the offset is a world rotation vector omega_j = H G_j s (H the heading
// frame, G_j 3 x 6), applied in the joint's frame before its target.
//
// The reduced state, the joint set and the matrix layout are what
// FeedbackPolicy (model/Controller.h) stores; this file computes them.
#pragma once

#include "control/Reference.h"
#include "model/Controller.h"

#include <array>
#include <vector>

namespace sinew::control {

inline constexpr int kFeedbackStateSize = 6;

// The joints the feedback corrects: each foot's ankle (the foot link's
// joint) and its hip (two links up), as (ankle, hip) per foot.
std::vector<int32_t> feedbackJoints(const ReferenceMotion& reference);

// The reduced state deviation of a simulated skeleton from the reference at
// reference time t (still: from standing still, the centre of mass at rest
// where the rest pose has it over the feet, in the reference's heading at t).
std::array<double, kFeedbackStateSize> feedbackState(const ReferenceMotion& reference,
                                                     const dyn::ArticulatedState& sim, double t, bool still = false);

// A gain matrix (3 * joints x stateSize, row-major) from per-joint-kind
// scalars: ankles and hips each get tilt, balance and velocity gains acting
// isotropically on the two horizontal axes.
//
// The swing-hip gains place a swinging foot (as SIMBICON does): they act on
// the hip of a leg the reference swings while the other stands. With the
// sign convention above a negative gain swings the foot toward where the
// centre of mass goes (ahead of the support: the foot further forward).
struct BalanceGains {
  double ankleTilt = 0, ankleBalance = 0, ankleVelocity = 0;
  double hipTilt = 0, hipBalance = 0, hipVelocity = 0;
  double swingHipBalance = 0, swingHipVelocity = 0;
  bool operator==(const BalanceGains&) const = default;
};
std::vector<double> gainMatrix(const BalanceGains& g, const std::vector<int32_t>& joints,
                               const ReferenceMotion& reference);
// The same layout for the joints of a swinging leg: only the hips, with the
// swing-hip gains (all zero when both swing-hip gains are).
std::vector<double> swingGainMatrix(const BalanceGains& g, const std::vector<int32_t>& joints,
                                    const ReferenceMotion& reference);
// The default gains (this character kind: an ankle strategy).
BalanceGains defaultBalanceGains();

// After a controller's end: its reference's last pose held, under an ankle
// strategy against standing still (holdTargets, every kHoldPeriod). On the
// example, after a controller that ends still in a pose it can stand in (a
// standing tail, optimize --settle), it stands for as long as it is played
// and rides out most 0.3 m/s shoves (docs/PERFORMANCE.md); it takes no step,
// so a controller that ends moving still falls.
BalanceGains holdBalanceGains();
inline constexpr double kHoldPeriod = 0.01;  // s between corrections
std::vector<Quat> holdTargets(const ReferenceMotion& reference, const dyn::ArticulatedModel& skeleton, double t,
                              const dyn::ArticulatedState& sim);

// `targets` (per link, joint-local) with the feedback offsets added: the
// matrix `gains` (3 * joints.size() x kFeedbackStateSize) times `s`.
std::vector<Quat> applyFeedback(const dyn::ArticulatedModel& skeleton, const dyn::ArticulatedState& sim,
                                std::vector<Quat> targets, const std::vector<int32_t>& joints,
                                const std::vector<double>& gains, const std::array<double, kFeedbackStateSize>& s,
                                const Quat& heading);

// The heading (yaw only) of the reference at reference time t.
Quat referenceHeading(const ReferenceMotion& reference, double t);

// A policy's gains for window k (an empty policy: none), for the legs the
// reference stands on or (swing) for a leg it swings (none when the policy has
// no swing gains).
const std::vector<double>* windowGains(const FeedbackPolicy& policy, size_t window, bool swing = false);

// Which of the reference's feet (reference.feet() order) are down at time t:
// the sole within kStanceHeight of the ground (y = 0). The stance gains act on
// the legs the reference stands on (all of them when none is down), the swing
// gains on the others.
inline constexpr double kStanceHeight = 0.03;  // m
std::vector<bool> stanceLegs(const ReferenceMotion& reference, double t);

// Steps between corrections at time step dt (at least 1).
int32_t feedbackPeriodSteps(const FeedbackPolicy& policy, double dt);

// The targets at step `step` of `steps` of window `window` (layout `w`,
// open-loop `targets`) for the simulated skeleton `sim`: the open-loop
// targets plus the policy's correction. The search and the playback both
// call this, so that a controller replays its search exactly.
std::vector<Quat> correctedTargets(const ReferenceMotion& reference, const dyn::ArticulatedModel& skeleton,
                                   const FeedbackPolicy& policy, const ControlWindow& w, size_t window,
                                   const std::vector<Quat>& targets, int32_t step, int32_t steps,
                                   const dyn::ArticulatedState& sim);

// A policy with the same gains in each of `windows` windows.
FeedbackPolicy uniformPolicy(const BalanceGains& g, const ReferenceMotion& reference, size_t windows, double period);

}  // namespace sinew::control
