// Inverse dynamics of the reference (Liu et al. 2013, Section 5.1): better
// initial PD targets for the sampling search than the reference pose.
//   - kinematics q, qdot, qddot of the reference at the simulation's
//     resolution by finite differences (eq. 20-24);
//   - the total ground contact force and torque from the change of linear
//     and angular momentum about the centre of mass (eq. 25-26), shared among
//     the feet in contact by their horizontal distance from the centre of
//     mass (eq. 27-28; the feet's torques share what their forces' moment
//     leaves of the total, so that two feet do not squeeze the legs), and
//     projected onto what contact can do: pushing only, inside the friction
//     cone, torque bounded by the foot's size (eq. 29-31);
//   - joint torques by recursive Newton-Euler on the whole-body links, turned
//     into PD targets (eq. 32, with the implicit damping of stable PD).
#pragma once

#include "control/Reference.h"

#include <vector>

namespace sinew::control {

struct InverseDynamicsOptions {
  double dt = 0.0005;            // s, the simulation's step
  double friction = 0.9;         // mu of eq. 30
  double groundHeight = 0;       // m
  double contactHeight = 0.04;   // m: a foot touches the ground within this of its rest height
  double contactSpeed = 0.5;     // m/s: ...and moving slower than this
  double footReach = 0.12;       // m: r_max of eq. 31 (centre of a foot to the edge of its sole)
};

// One instant of the inverse dynamics.
struct InverseDynamicsFrame {
  double time = 0;
  Vec3 contactForce = Vec3::Zero();   // total, after projection (world)
  Vec3 contactTorque = Vec3::Zero();  // about the centre of mass
  std::vector<uint8_t> footContact;   // per ReferenceMotion::feet()
  std::vector<Vec3> footForce, footTorque;  // per foot, after projection; torque about the foot's centre of mass
  Eigen::VectorXd tau;                // generalised forces (the free root's entries: the unexplained wrench)
  std::vector<Quat> targets;          // PD targets per link (eq. 32)
};

// The frame at reference time t, for PD gains of `gains` (the simulated
// skeleton's links: kp, kd).
InverseDynamicsFrame inverseDynamicsAt(const ReferenceMotion& reference, const dyn::ArticulatedModel& gains, double t,
                                       const InverseDynamicsOptions& options);

// One PD target pose for a window [t0, t1] of the reference: the targets of
// eq. 32 at every step of the window, averaged (a constant target that best
// reproduces the window's torques).
std::vector<Quat> inverseDynamicsWindowTarget(const ReferenceMotion& reference, const dyn::ArticulatedModel& gains,
                                              double t0, double t1, const InverseDynamicsOptions& options);

}  // namespace sinew::control
