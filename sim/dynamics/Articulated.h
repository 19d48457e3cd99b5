// Articulated rigid bodies in reduced (joint) coordinates: the skeleton of a
// soft character (Liu et al. 2013, Section 4.1). Sinew's own solver:
//   - a tree of links, each attached to its parent by a free (root only),
//     ball, hinge or fixed joint; joint limits as stiff one-sided springs;
//   - the joint-space mass matrix by the composite rigid body algorithm and
//     the bias forces (gravity, Coriolis, external wrenches) by recursive
//     Newton-Euler;
//   - a PD servo per degree of freedom whose damping term is implicit ("stable
//     PD", eq. 4-5): (M + h Kd) qdd = tau_p - Kd qdot - C, then semi-implicit
//     Euler (velocities first, positions with the new velocities).
// The model is immutable; the state is a small value type copied for snapshots.
//
// Conventions
//   - Link frame = joint frame: a link's origin is its joint's pivot, and at
//     rest (all rotations identity) its axes are those of parentFromJoint.
//   - The root (link 0) is either Free (a floating base: 6 unactuated dofs)
//     or anchored to the world by its own joint: a Ball or Hinge root pivots
//     about the world point parentFromJoint.translation, a Fixed root is welded
//     to the world at parentFromJoint. A chain hanging from a world pin is thus
//     "root = Hinge (or Ball) link with parentFromJoint = the pin"; a Fixed root
//     is an alternative (its mass then plays no role).
//   - Angular velocities of Ball and Free joints are expressed in the link's
//     own frame and are relative to the parent (world for the root): the
//     rotation evolves as rotation' = rotation * [0, omega / 2].
//   - Spatial vectors inside the solver are [angular; linear] (Featherstone).
#pragma once

#include "core/Types.h"

#include <string>
#include <vector>

namespace sinew::dyn {

enum class JointKind : uint8_t { Free, Ball, Hinge, Fixed };

// Mass properties of a link in its own frame (the joint frame).
struct Inertia {
  double mass = 0;
  Vec3 com = Vec3::Zero();         // centre of mass, link frame
  Mat3 inertia = Mat3::Zero();     // about the centre of mass, link frame
};

struct Link {
  std::string name;
  int32_t parent = -1;             // parents precede children; only link 0 may be a root
  JointKind kind = JointKind::Ball;
  Transform parentFromJoint;       // the joint frame in the parent's link frame at q = 0 (world for the root)
  Vec3 hingeAxis = Vec3::UnitX();  // unit axis in the joint frame (Hinge)
  // Limits relative to the rest frame (Ball: X, Y, Z components of the
  // rotation vector log(q); Hinge: x only). lower <= 0 <= upper.
  Vec3 lower = Vec3::Constant(-M_PI), upper = Vec3::Constant(M_PI);
  Inertia inertia;
  double kp = 0, kd = 0;           // PD gains per degree of freedom of this joint (N m / rad, N m s / rad)
};

struct ArticulatedModel {
  std::vector<Link> links;
  Vec3 gravity{0, -9.81, 0};
  // Joint limits: a one-sided spring k = limitStiffness * I and damper
  // c = limitDamping * I per limited component, where I is the inertia of the
  // link's subtree about that joint axis (units 1/s^2 and 1/s before scaling).
  // Both terms are implicit, so stiff limits stay stable at large steps; the
  // defaults give a natural frequency of ~22 Hz and damping ratio ~0.7.
  double limitStiffness = 20000, limitDamping = 200;
  int dofCount() const;            // 6 for a free root, 3 per ball, 1 per hinge
  int dofOffset(int link) const;   // first velocity index of the link's joint
  int jointDofs(int link) const;
};

// An empty string when the model is usable, else what is wrong with it
// (ordering of parents, a non-unit hinge axis, a free joint below the root,
// a non-positive mass or inertia on a link that moves, ...).
std::string checkModel(const ArticulatedModel& model);

// Generalised coordinates. Positions: the root translation (world), and one
// rotation per link relative to its joint frame (identity at rest; Hinge:
// about hingeAxis; Fixed: identity). Velocities (dofCount): a free root has
// linear velocity (world) then angular velocity (link frame); a ball joint's
// angular velocity is in its link frame; a hinge has its angle rate.
// rootPosition is the world position of the root link's origin; it is a
// coordinate only for a Free root (restState sets it to
// parentFromJoint.translation; anchored roots ignore it). A Free root's world
// orientation is parentFromJoint.rotation * rotation[0].
struct ArticulatedState {
  Vec3 rootPosition = Vec3::Zero();
  std::vector<Quat> rotation;      // (nLinks)
  Eigen::VectorXd velocity;        // (dofCount)
  bool operator==(const ArticulatedState&) const = default;
};

// An external load on a link during one step. A force f applied at the world
// point x contributes force f and torque (x - link origin) x f.
struct LinkWrench {
  Vec3 force = Vec3::Zero();       // world, N
  Vec3 torque = Vec3::Zero();      // world, about the link origin, N m
};

// PD targets: one rotation per link relative to its joint frame (ignored for
// the root, which is unactuated, and for fixed joints).
// Ball: tau = kp log(rotation^-1 target) + kd (targetRate - omega), link frame.
// Hinge: tau = kp angle(rotation^-1 target) + kd (targetRate . axis - rate),
// the angle wrapped to (-pi, pi]. An anchored (Ball/Hinge) root is actuated.
struct PdTargets {
  std::vector<Quat> rotation;      // (nLinks); empty: hold the rest pose
  std::vector<Vec3> angularVelocity;  // (nLinks, link frame) target rates; empty: zero
};

// World pose and velocity of every link.
struct LinkKinematics {
  std::vector<Transform> pose;     // link frame -> world
  std::vector<Vec3> linear;        // world velocity of the link origin
  std::vector<Vec3> angular;       // world angular velocity
};

ArticulatedState restState(const ArticulatedModel& model);
LinkKinematics forwardKinematics(const ArticulatedModel& model, const ArticulatedState& state);

// One step of length h. `wrenches` (nLinks or empty) are external forces and
// torques (world) about each link origin, e.g. from the flesh. Semi-implicit
// Euler with implicit PD damping. A Free root's translation is integrated
// through the centre of mass (its velocity gains exactly h * total external
// force / total mass), so linear momentum is conserved to round-off.
// Returns false, leaving the state unchanged, when the step could not be taken
// (the system matrix is not positive definite, e.g. a massless moving link, or
// the result is not finite).
bool step(const ArticulatedModel& model, ArticulatedState& state, const PdTargets& targets,
          const std::vector<LinkWrench>& wrenches, double h);

// Kinematic drive: moves the state to the given pose (root translation and
// per-link rotations) over a step of length h, with velocities set by finite
// differences so that the links' velocities are consistent with the motion
// (the velocities are those that step() would integrate from the old pose to
// the new one: ball and free root log(old^-1 new) / h in the link frame, hinge
// angle difference / h, free root linear (new - old) / h in the world).
void setPoseKinematic(const ArticulatedModel& model, ArticulatedState& state, const Vec3& rootPosition,
                      const std::vector<Quat>& rotation, double h);

// Kinetic energy, total linear momentum, and angular momentum about `about` (world).
double kineticEnergy(const ArticulatedModel& model, const ArticulatedState& state);
Vec3 linearMomentum(const ArticulatedModel& model, const ArticulatedState& state);
Vec3 angularMomentum(const ArticulatedModel& model, const ArticulatedState& state, const Vec3& about);
Vec3 centerOfMass(const ArticulatedModel& model, const ArticulatedState& state);
double totalMass(const ArticulatedModel& model);
// Gravitational potential energy, -sum m g . x_com, relative to the world origin.
double potentialEnergy(const ArticulatedModel& model, const ArticulatedState& state);

// The joint-space mass matrix M(q) (dofCount x dofCount), symmetric positive
// definite for a well-formed model; kineticEnergy = 0.5 qdot^T M qdot.
Eigen::MatrixXd massMatrix(const ArticulatedModel& model, const ArticulatedState& state);

// Inverse dynamics by recursive Newton-Euler: the generalised forces that give
// the accelerations `qdd` (dofCount) in `state` under gravity and the external
// `wrenches` (nLinks or empty): tau = M(q) qdd + C(q, qdot) - J^T f_ext. The
// entries of a free root are the wrench it would need (it has no actuator).
Eigen::VectorXd inverseDynamics(const ArticulatedModel& model, const ArticulatedState& state, const Eigen::VectorXd& qdd,
                                const std::vector<LinkWrench>& wrenches);

// Hinge angle of a rotation about `axis` (unit), wrapped to (-pi, pi].
double hingeAngle(const Quat& rotation, const Vec3& axis);

}  // namespace sinew::dyn
