// A scene of reduced deformable bodies (Sheth et al. 2015, Sections 5-7):
// bodies (reduced, rigid when they have no modes, or kinematic), point joints
// between particles of two bodies, contact with the ground and between
// bodies' proxy particles, all by impulses built on the impulse factor of
// eq. 33, so every collision and joint impulse conserves the total linear
// and angular momentum it should.
//
// World::step(): velocities of every body (eq. 15-16, 34-35); then, in
// sweeps on those velocities, contact impulses (predictive: a particle that
// would end the step inside the ground or another body's proxy gets the
// normal velocity that brings it onto the surface; friction by the modified
// cone check of Section 5.2 on the resulting velocity) and the joints'
// pre-stabilization (impulses after which the joint points meet at the end of
// the step: Newton's method on eq. 41, f evaluated exactly, Jacobian
// h (K_a + K_b)); positions (eq. 36-38); post-stabilization (the joints'
// particle velocities made equal, eq. 33a).
#pragma once

#include "sheth2015/ReducedBody.h"

#include <memory>
#include <vector>

namespace sinew::sheth2015 {

struct WorldBody {
  std::shared_ptr<const ReducedBodyModel> model;
  ReducedBodyState state;
  bool kinematic = false;              // moved by its state only; infinitely heavy for impulses
  std::vector<int32_t> proxy;          // particles that collide (empty: all)
  double proxyRadius = 0.02;           // m, around each proxy particle
};

// Particle `particleA` of body A and `particleB` of body B held together.
struct PointJoint {
  int32_t bodyA = 0, particleA = 0, bodyB = 0, particleB = 0;
};

struct WorldSettings {
  StepSettings step;
  bool ground = true;
  double groundHeight = 0;
  double friction = 0.5;
  double restitution = 0.0;
  bool bodyContacts = true;
  int sweeps = 8;                      // contact and post-stabilization passes
  int newtonIterations = 6;            // pre-stabilization per joint per pass
  bool preStabilization = true;
};

struct WorldStats {
  int contacts = 0;                    // contact impulses of the last step
  double worstJointGap = 0;            // m, after the step
};

class World {
 public:
  explicit World(WorldSettings settings = {}) : settings_(settings) {}
  // Throws InputError for a joint naming a body or particle that does not exist.
  int32_t addBody(WorldBody body);
  void addJoint(const PointJoint& joint);
  WorldSettings& settings() { return settings_; }
  const std::vector<WorldBody>& bodies() const { return bodies_; }
  std::vector<WorldBody>& bodies() { return bodies_; }
  const std::vector<PointJoint>& joints() const { return joints_; }
  const WorldStats& step();
  double jointGap(size_t joint) const;
  // Totals over the dynamic bodies' particles: linear momentum and angular
  // momentum about the origin.
  Vec3 linearMomentum() const;
  Vec3 angularMomentum() const;

 private:
  Mat3 factor(size_t body, size_t particle) const;  // K of eq. 33 (zero for kinematic bodies)
  void impulse(size_t body, size_t particle, const Vec3& j);
  void preStabilize();
  void postStabilize();
  int contacts();

  WorldSettings settings_;
  std::vector<WorldBody> bodies_;
  std::vector<PointJoint> joints_;
  WorldStats stats_;
};

}  // namespace sinew::sheth2015
