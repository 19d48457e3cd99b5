// How far a simulated character is from the reference at one instant: the
// terms of the sampling cost (Liu et al. 2010; sketched in the papers'
// README): joint rotations, root orientation and position, end effectors
// relative to the root, balance (centre of mass over the support, as in the
// reference) and centre-of-mass velocity.
#pragma once

#include "control/Reference.h"

namespace sinew::control {

struct CostWeights {
  double pose = 1;          // mean squared joint rotation error, rad^2
  double root = 2;          // squared root orientation error, rad^2
  double position = 1;      // squared root position error, m^2
  double endEffector = 4;   // mean squared end-effector error (relative to the root), m^2
  double balance = 8;       // squared error of the centre of mass relative to the support (ground plane), m^2
  double velocity = 0.2;    // squared centre-of-mass velocity error, (m/s)^2
  bool operator==(const CostWeights&) const = default;
};

struct CostTerms {
  double pose = 0, root = 0, position = 0, endEffector = 0, balance = 0, velocity = 0;
  bool fallen = false;      // the root sank below 40% of its reference height or tilted past 60 degrees
  bool sank = false, tipped = false;  // which of the two (both may hold)
  double total = 0;         // the weighted sum (+ kFallenCost when fallen)
};

// Why a character counts as fallen, in words ("its root sank below 40% of
// the reference's height"); empty when it has not.
std::string fallReason(const CostTerms& c);

inline constexpr double kFallenCost = 100;

CostTerms trackingCost(const BodyFeatures& sim, const BodyFeatures& ref, const CostWeights& w);

// The weighted sum of `c`'s terms (+ kFallenCost when fallen; 1e30 when not
// finite): trackingCost's total, again under other weights.
double weightedTotal(const CostTerms& c, const CostWeights& w);

// How far the body leans away from the reference, in degrees: the angle
// between world up and up carried by the root's orientation error (the
// fallen test above is this angle past 60 degrees).
double tiltDegrees(const BodyFeatures& sim, const BodyFeatures& ref);

// A played controller "stayed up" when no frame fell and the tilt stayed
// under this many degrees throughout (the tracking benchmark's success): a
// character lying at 45 degrees against a wall has not fallen by the cost's
// test but is not up either.
inline constexpr double kUprightTiltDegrees = 30;

}  // namespace sinew::control
