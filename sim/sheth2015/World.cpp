#include "sheth2015/World.h"

#include "core/Error.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

namespace sinew::sheth2015 {

int32_t World::addBody(WorldBody body) {
  if (!body.model) throw InputError("scene", "a body without a model");
  for (int32_t p : body.proxy)
    if (p < 0 || size_t(p) >= body.model->particleCount())
      throw InputError("body '" + body.model->name + "'", "proxy particle " + std::to_string(p) + " does not exist");
  updateAngularVelocity(*body.model, body.state, settings_.step.correctAngularMomentum);
  bodies_.push_back(std::move(body));
  return int32_t(bodies_.size() - 1);
}

void World::addJoint(const PointJoint& j) {
  auto check = [&](int32_t b, int32_t p) {
    if (b < 0 || size_t(b) >= bodies_.size()) throw InputError("joint", "body " + std::to_string(b) + " does not exist");
    if (p < 0 || size_t(p) >= bodies_[size_t(b)].model->particleCount())
      throw InputError("joint", "body '" + bodies_[size_t(b)].model->name + "' has no particle " + std::to_string(p));
  };
  check(j.bodyA, j.particleA);
  check(j.bodyB, j.particleB);
  if (j.bodyA == j.bodyB) throw InputError("joint", "joins body '" + bodies_[size_t(j.bodyA)].model->name + "' to itself");
  joints_.push_back(j);
}

Mat3 World::factor(size_t b, size_t p) const {
  const WorldBody& body = bodies_[b];
  if (body.kinematic) return Mat3::Zero();
  return impulseFactor(*body.model, body.state, p);
}

void World::impulse(size_t b, size_t p, const Vec3& j) {
  WorldBody& body = bodies_[b];
  if (!body.kinematic) applyImpulse(*body.model, body.state, p, j);
}

double World::jointGap(size_t k) const {
  const PointJoint& j = joints_[k];
  const WorldBody &a = bodies_[size_t(j.bodyA)], &b = bodies_[size_t(j.bodyB)];
  return (particlePosition(*a.model, a.state, size_t(j.particleA)) - particlePosition(*b.model, b.state, size_t(j.particleB))).norm();
}

Vec3 World::linearMomentum() const {
  Vec3 p = Vec3::Zero();
  for (const WorldBody& b : bodies_)
    if (!b.kinematic) p += particleLinearMomentum(*b.model, b.state);
  return p;
}

Vec3 World::angularMomentum() const {
  Vec3 L = Vec3::Zero();
  for (const WorldBody& b : bodies_)
    if (!b.kinematic) L += particleAngularMomentum(*b.model, b.state);
  return L;
}

// Newton's method on eq. 41: the impulse on the n+1 velocities after which
// the two joint particles coincide at n+1. f(j) is evaluated exactly, by
// applying j to copies of the two bodies and moving them; its Jacobian is
// taken as h (K_a + K_b), the positions' first-order response.
void World::preStabilize() {
  const StepSettings& set = settings_.step;
  for (const PointJoint& jt : joints_) {
    const size_t a = size_t(jt.bodyA), b = size_t(jt.bodyB), pa = size_t(jt.particleA), pb = size_t(jt.particleB);
    auto gapAfter = [&](const Vec3& j) {
      ReducedBodyState sa = bodies_[a].state, sb = bodies_[b].state;
      if (!bodies_[a].kinematic) applyImpulse(*bodies_[a].model, sa, pa, j), advancePositions(*bodies_[a].model, sa, set);
      if (!bodies_[b].kinematic) applyImpulse(*bodies_[b].model, sb, pb, -j), advancePositions(*bodies_[b].model, sb, set);
      return Vec3(particlePosition(*bodies_[a].model, sa, pa) - particlePosition(*bodies_[b].model, sb, pb));
    };
    const Mat3 J = set.dt * (factor(a, pa) + factor(b, pb));  // f moves by h K_a j - h K_b (-j)
    if (!(std::abs(J.determinant()) > 0)) continue;
    const auto lu = J.partialPivLu();
    Vec3 j = Vec3::Zero();
    for (int it = 0; it < settings_.newtonIterations; ++it) {
      const Vec3 f = gapAfter(j);
      if (f.norm() < 1e-12) break;
      j -= lu.solve(f);
    }
    impulse(a, pa, j);
    impulse(b, pb, -j);
  }
}

// Post-stabilization: the impulse that equates the two particles' velocities (eq. 33a).
void World::postStabilize() {
  for (const PointJoint& jt : joints_) {
    const size_t a = size_t(jt.bodyA), b = size_t(jt.bodyB), pa = size_t(jt.particleA), pb = size_t(jt.particleB);
    const Vec3 u = particleVelocity(*bodies_[b].model, bodies_[b].state, pb) - particleVelocity(*bodies_[a].model, bodies_[a].state, pa);
    const Mat3 K = factor(a, pa) + factor(b, pb);
    if (!(std::abs(K.determinant()) > 0)) continue;
    const Vec3 j = K.partialPivLu().solve(u);  // a gains j, b loses it: du = -(K_a + K_b) j ... = -u
    impulse(a, pa, j);
    impulse(b, pb, -j);
  }
}

int World::contacts() {
  int count = 0;
  const double mu = settings_.friction, e = settings_.restitution, h = settings_.step.dt;
  auto proxies = [&](const WorldBody& b) {
    std::vector<int32_t> p = b.proxy;
    if (p.empty())
      for (size_t i = 0; i < b.model->particleCount(); ++i) p.push_back(int32_t(i));
    return p;
  };
  // The ground: the modified cone check of Section 5.2 on the resulting velocity.
  if (settings_.ground)
    for (size_t b = 0; b < bodies_.size(); ++b) {
      if (bodies_[b].kinematic) continue;
      for (int32_t p : proxies(bodies_[b])) {
        const WorldBody& body = bodies_[b];
        const Vec3 x = particlePosition(*body.model, body.state, size_t(p));
        // Predictive (before the position update): a particle that would end
        // the step below the surface gets the normal velocity that brings it
        // onto it (and no more: the ground does not pull).
        const Vec3 v = particleVelocity(*body.model, body.state, size_t(p));
        const double vn = v.y();
        const double gap = x.y() - settings_.groundHeight - body.proxyRadius;
        if (gap + h * vn >= 0) continue;
        const double want = std::max(-e * vn, -gap / h);
        if (vn >= want) continue;
        const Vec3 n = Vec3::UnitY();
        Vec3 dv = (want - vn) * n - (v - vn * n);  // static friction: stop sliding
        const Vec3 slide = v - vn * n;
        if (slide.norm() > mu * (want - vn)) dv = (want - vn) * n - mu * (want - vn) * slide.normalized();  // kinetic
        const Mat3 K = factor(b, size_t(p));
        impulse(b, size_t(p), K.partialPivLu().solve(dv));
        ++count;
      }
    }
  // Between bodies: proxy spheres, frictionless impulses along the centre line
  // (equal and opposite, parallel to the arm between them: momenta kept).
  if (settings_.bodyContacts)
    for (size_t a = 0; a < bodies_.size(); ++a)
      for (size_t b = a + 1; b < bodies_.size(); ++b) {
        if (bodies_[a].kinematic && bodies_[b].kinematic) continue;
        bool jointed = false;
        for (const PointJoint& j : joints_)
          jointed = jointed || (size_t(j.bodyA) == a && size_t(j.bodyB) == b) || (size_t(j.bodyA) == b && size_t(j.bodyB) == a);
        if (jointed) continue;  // articulated neighbours overlap by design
        const std::vector<int32_t> pa = proxies(bodies_[a]), pb = proxies(bodies_[b]);
        for (int32_t i : pa)
          for (int32_t k : pb) {
            const Vec3 xa = particlePosition(*bodies_[a].model, bodies_[a].state, size_t(i));
            const Vec3 xb = particlePosition(*bodies_[b].model, bodies_[b].state, size_t(k));
            const double reach = bodies_[a].proxyRadius + bodies_[b].proxyRadius, d = (xb - xa).norm();
            if (d >= reach + 0.5 * reach || d < 1e-12) continue;
            const Vec3 n = (xb - xa) / d;
            const double vn = (particleVelocity(*bodies_[b].model, bodies_[b].state, size_t(k)) -
                               particleVelocity(*bodies_[a].model, bodies_[a].state, size_t(i))).dot(n);
            const double gap = d - reach;
            if (gap + h * vn >= 0) continue;  // predictive, as for the ground
            const double want = std::max(-e * vn, -gap / h);
            if (vn >= want) continue;
            const double stiffness = n.dot((factor(a, size_t(i)) + factor(b, size_t(k))) * n);
            if (!(stiffness > 0)) continue;
            const double j = (want - vn) / stiffness;
            impulse(a, size_t(i), -j * n);
            impulse(b, size_t(k), j * n);
            ++count;
          }
      }
  return count;
}

const WorldStats& World::step() {
  const StepSettings& set = settings_.step;
  for (WorldBody& b : bodies_)
    if (!b.kinematic) advanceVelocities(*b.model, b.state, set);
  // On the new velocities, before the positions move: contacts (predictive)
  // and the joints' pre-stabilization, in sweeps.
  stats_.contacts = 0;
  for (int s = 0; s < settings_.sweeps; ++s) {
    const int c = contacts();
    stats_.contacts += c;
    if (settings_.preStabilization) preStabilize();
    if (c == 0 && (joints_.empty() || !settings_.preStabilization || s >= 1)) break;
  }
  for (WorldBody& b : bodies_)
    if (!b.kinematic) advancePositions(*b.model, b.state, set);
  // Post-stabilization: the joints' velocities agree.
  for (int s = 0; s < 2 && !joints_.empty(); ++s) postStabilize();
  stats_.worstJointGap = 0;
  for (size_t k = 0; k < joints_.size(); ++k) stats_.worstJointGap = std::max(stats_.worstJointGap, jointGap(k));
  return stats_;
}

}  // namespace sinew::sheth2015
