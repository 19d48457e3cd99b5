// The reference motion as the controller sees it: a clip of the character's
// skeleton turned into articulated states (joint coordinates of the solver's
// skeleton, with velocities), the character's mass distribution as rigid
// links for centre-of-mass and inverse-dynamics work, and what a controller's
// cost compares (root, joints, end effectors, centre of mass, support).
#pragma once

#include "control/Retarget.h"
#include "dynamics/Articulated.h"
#include "liu2013/Liu2013.h"

#include <vector>

namespace sinew::control {

// The skeleton's links with the mass of the whole character: every coarse
// node's lumped mass shared among the links by its skinning weights (Liu et
// al. 2013, Section 5.1: "the inertia of the bones for ID are computed from
// all the nodes of the coarse mesh according to their skinning weights").
dyn::ArticulatedModel wholeBodyModel(const liu2013::Liu2013Model& model);

// What the cost and the feedback look at, for one instant.
struct BodyFeatures {
  Vec3 rootPosition = Vec3::Zero();
  Quat rootRotation = Quat::Identity();         // world
  std::vector<Quat> jointRotations;             // per link, relative to its joint frame
  std::vector<Vec3> endEffectors;               // world positions of the leaf links' joints (hands, feet, head)
  Vec3 centerOfMass = Vec3::Zero(), centerOfMassVelocity = Vec3::Zero();
  Vec3 support = Vec3::Zero();                  // mean of the feet positions on the ground plane (y = 0)
};

class ReferenceMotion {
 public:
  // `clip` is a clip of the character's skeleton (joint names as the links').
  ReferenceMotion(const liu2013::Liu2013Model& model, MotionClip clip);

  double duration() const { return clip_.duration(); }
  const MotionClip& clip() const { return clip_; }
  const dyn::ArticulatedModel& bodyModel() const { return body_; }
  const std::vector<int32_t>& endEffectors() const { return endEffectors_; }  // leaf links
  const std::vector<int32_t>& feet() const { return feet_; }
  // Each foot joint's rest height above the character's lowest point (its sole).
  const std::vector<double>& footRestHeight() const { return footHeight_; }

  // The articulated state at time t (clamped to the clip), velocities by
  // central differences over `h`.
  dyn::ArticulatedState state(double t, double h = 1.0 / 240) const;
  // Positions only (zero velocities).
  dyn::ArticulatedState pose(double t) const;
  BodyFeatures features(double t) const;
  // The same quantities of a simulated skeleton.
  BodyFeatures features(const dyn::ArticulatedState& s) const;

 private:
  MotionClip clip_;
  dyn::ArticulatedModel body_;
  std::vector<int32_t> clipJointOfLink_;
  std::vector<int32_t> endEffectors_, feet_;
  std::vector<double> footHeight_;
};

// A rotation's rotation vector (log map), angle in (-pi, pi].
Vec3 rotationVector(const Quat& q);
Quat fromRotationVector(const Vec3& r);

}  // namespace sinew::control
