#include "sheth2015/World.h"

#include "core/Error.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace sinew::sheth2015 {

World::World(WorldSettings settings) : settings_(std::move(settings)) {}

int32_t World::addBody(WorldBody body) {
  if (!body.model) throw InputError("scene", "a body without a model");
  for (int32_t p : body.proxy)
    if (p < 0 || size_t(p) >= body.model->particleCount())
      throw InputError("body '" + body.model->name + "'", "proxy particle " + std::to_string(p) + " does not exist");
  updateAngularVelocity(*body.model, body.state, settings_.step.correctAngularMomentum);
  bodies_.push_back(std::move(body));
  jointedWith_.emplace_back();
  if (responseDt_ == settings_.step.dt && response_.size() + 1 == bodies_.size())
    response_.push_back(implicitResponse(*bodies_.back().model, responseDt_));  // the others are unchanged
  else
    responseDt_ = -1, refreshResponses();
  rebuildSurfaces();
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
  // A joint holds together two particles that are one point of the bodies'
  // overlap (it may have drifted a little, but not more than the bodies' size).
  const WorldBody &a = bodies_[size_t(j.bodyA)], &b = bodies_[size_t(j.bodyB)];
  const double apart = (particlePosition(*a.model, a.state, size_t(j.particleA)) - particlePosition(*b.model, b.state, size_t(j.particleB))).norm();
  double size = 0;
  for (const WorldBody* body : {&a, &b})
    for (const Vec3& x : body->model->x0) size = std::max(size, x.norm());
  if (apart > 0.05 * size + 1e-6)
    throw InputError("joint between bodies '" + a.model->name + "' and '" + b.model->name + "'",
                     "its particles are " + std::to_string(apart) + " m apart: a joint must sit in the overlap of the two bodies");
  joints_.push_back(j);
  for (auto [x, y] : {std::pair{j.bodyA, j.bodyB}, std::pair{j.bodyB, j.bodyA}}) {
    auto& list = jointedWith_[size_t(x)];
    if (!std::binary_search(list.begin(), list.end(), y)) list.insert(std::upper_bound(list.begin(), list.end(), y), y);
  }
}

int32_t World::addSkin(Skin skin) {
  const std::string who = "skin '" + skin.name + "'";
  if (skin.offsets.empty() || skin.offsets.front() != 0 || size_t(skin.offsets.back()) != skin.body.size() ||
      skin.particle.size() != skin.body.size() || skin.weight.size() != skin.body.size())
    throw InputError(who, "its influence arrays do not match its offsets");
  for (size_t s = 0; s < skin.siteCount(); ++s) {
    double sum = 0;
    if (skin.offsets[s + 1] <= skin.offsets[s]) throw InputError(who, "site " + std::to_string(s) + " has no influence");
    for (int32_t i = skin.offsets[s]; i < skin.offsets[s + 1]; ++i) {
      const int32_t b = skin.body[size_t(i)], p = skin.particle[size_t(i)];
      if (b < 0 || size_t(b) >= bodies_.size()) throw InputError(who, "site " + std::to_string(s) + " names body " + std::to_string(b) + ", which does not exist");
      if (p < 0 || size_t(p) >= bodies_[size_t(b)].model->particleCount())
        throw InputError(who, "site " + std::to_string(s) + ": body '" + bodies_[size_t(b)].model->name + "' has no particle " + std::to_string(p));
      for (int32_t k = skin.offsets[s]; k < i; ++k)
        if (skin.body[size_t(k)] == b) throw InputError(who, "site " + std::to_string(s) + " has two influences on body '" + bodies_[size_t(b)].model->name + "'");
      if (!(skin.weight[size_t(i)] >= 0)) throw InputError(who, "site " + std::to_string(s) + " has a negative weight");
      sum += skin.weight[size_t(i)];
    }
    if (std::abs(sum - 1) > 1e-6) throw InputError(who, "the weights of site " + std::to_string(s) + " sum to " + std::to_string(sum) + ", not 1");
  }
  skins_.push_back(std::move(skin));
  rebuildSurfaces();
  return int32_t(skins_.size() - 1);
}

void World::rebuildSurfaces() {
  surfaces_.clear();
  for (size_t b = 0; b < bodies_.size(); ++b) {
    const WorldBody& body = bodies_[b];
    if (!body.collides) continue;
    Surface s;
    s.body = int32_t(b);
    s.sites.name = body.model->name;
    s.sites.radius = body.proxyRadius;
    std::vector<int32_t> particles = body.proxy;
    if (particles.empty())
      for (size_t i = 0; i < body.model->particleCount(); ++i) particles.push_back(int32_t(i));
    for (int32_t p : particles) {
      s.sites.body.push_back(int32_t(b));
      s.sites.particle.push_back(p);
      s.sites.weight.push_back(1.0);
      s.sites.offsets.push_back(int32_t(s.sites.body.size()));
    }
    s.bodiesTouched = {int32_t(b)};
    surfaces_.push_back(std::move(s));
  }
  for (size_t k = 0; k < skins_.size(); ++k) {
    Surface s;
    s.skin = int32_t(k);
    s.sites = skins_[k];
    s.bodiesTouched = skins_[k].body;
    std::sort(s.bodiesTouched.begin(), s.bodiesTouched.end());
    s.bodiesTouched.erase(std::unique(s.bodiesTouched.begin(), s.bodiesTouched.end()), s.bodiesTouched.end());
    surfaces_.push_back(std::move(s));
  }
  for (Surface& s : surfaces_) buildTree(s);
  modeBound_.assign(bodies_.size(), 0.0);
  reach_.assign(bodies_.size(), 0.0);
  for (size_t b = 0; b < bodies_.size(); ++b) {
    const ReducedBodyModel& m = *bodies_[b].model;
    for (size_t i = 0; i < m.particleCount(); ++i) {
      reach_[b] = std::max(reach_[b], m.x0[i].norm());
      if (m.modeCount() > 0)  // the Frobenius norm bounds the 2-norm
        modeBound_[b] = std::max(modeBound_[b], m.S.block(Eigen::Index(3 * i), 0, 3, m.modeCount()).norm());
    }
  }
}

// The hierarchy over a surface's sites at rest (each site where its bodies'
// rest particles blend to), split at the median of the widest axis down to
// leaves of at most eight sites.
void World::buildTree(Surface& surf) const {
  const Skin& sk = surf.sites;
  const size_t n = sk.siteCount();
  std::vector<Vec3> rest(n, Vec3::Zero());
  for (size_t s = 0; s < n; ++s)
    for (int32_t i = sk.offsets[s]; i < sk.offsets[s + 1]; ++i) {
      const ReducedBodyModel& m = *bodies_[size_t(sk.body[size_t(i)])].model;
      rest[s] += sk.weight[size_t(i)] * (m.x0[size_t(sk.particle[size_t(i)])] + m.restCenter);
    }
  surf.order.resize(n);
  std::iota(surf.order.begin(), surf.order.end(), 0);
  surf.nodes.clear();
  if (n == 0) return;
  // Ranges of `order` still to become nodes, with the parent slot each fills.
  struct Range {
    int32_t begin, end, parent;
    bool right;
  };
  std::vector<Range> stack{{0, int32_t(n), -1, false}};
  while (!stack.empty()) {
    const Range job = stack.back();
    stack.pop_back();
    Surface::Node node;
    node.begin = job.begin, node.end = job.end;
    const size_t count = size_t(job.end - job.begin);
    Aabb box;
    for (int32_t k = job.begin; k < job.end; ++k) box.add(rest[size_t(surf.order[size_t(k)])]), node.restCentre += rest[size_t(surf.order[size_t(k)])];
    node.restCentre /= double(count);
    for (int32_t k = job.begin; k < job.end; ++k)
      node.restRadius = std::max(node.restRadius, (rest[size_t(surf.order[size_t(k)])] - node.restCentre).norm());
    // Every body of the node's sites, with the statistics the radius bound
    // needs: the mean weight, the largest deviation from it (a site without
    // the body has weight 0 there), the largest weight x ||S_i||.
    std::map<int32_t, std::vector<double>> weights;
    for (int32_t k = job.begin; k < job.end; ++k) {
      const size_t s = size_t(surf.order[size_t(k)]);
      for (int32_t i = sk.offsets[s]; i < sk.offsets[s + 1]; ++i) {
        auto& w = weights[sk.body[size_t(i)]];
        w.resize(count, 0.0);
        w[size_t(k - job.begin)] = sk.weight[size_t(i)];
      }
    }
    for (const auto& [body, w] : weights) {
      Surface::Influence in;
      in.body = body;
      for (double x : w) in.meanWeight += x / double(count);
      for (double x : w) in.weightSpread = std::max(in.weightSpread, std::abs(x - in.meanWeight));
      node.influences.push_back(in);
    }
    for (int32_t k = job.begin; k < job.end; ++k) {
      const size_t s = size_t(surf.order[size_t(k)]);
      for (int32_t i = sk.offsets[s]; i < sk.offsets[s + 1]; ++i) {
        const ReducedBodyModel& m = *bodies_[size_t(sk.body[size_t(i)])].model;
        if (m.modeCount() == 0) continue;
        const double norm = m.S.block(Eigen::Index(3 * sk.particle[size_t(i)]), 0, 3, m.modeCount()).norm();
        for (Surface::Influence& in : node.influences)
          if (in.body == sk.body[size_t(i)]) in.modeBound = std::max(in.modeBound, sk.weight[size_t(i)] * norm);
      }
    }
    const int32_t index = int32_t(surf.nodes.size());
    surf.nodes.push_back(std::move(node));
    if (job.parent >= 0) (job.right ? surf.nodes[size_t(job.parent)].right : surf.nodes[size_t(job.parent)].left) = index;
    if (count <= 8) continue;
    int axis = 0;
    (box.max - box.min).maxCoeff(&axis);
    const int32_t mid = job.begin + int32_t(count / 2);
    std::nth_element(surf.order.begin() + job.begin, surf.order.begin() + mid, surf.order.begin() + job.end, [&](int32_t x, int32_t y) {
      return rest[size_t(x)][axis] < rest[size_t(y)][axis] || (rest[size_t(x)][axis] == rest[size_t(y)][axis] && x < y);
    });
    stack.push_back({mid, job.end, index, true});
    stack.push_back({job.begin, mid, index, false});
  }
}

// A node's sphere now. With T_k(X) = R_k (X - C_k) + t_k the rigid map of
// body k, the reference body r (the node's heaviest), its rest centre X_c,
// rest radius rho_0, and Delta_k = T_k(X_c) - T_r(X_c), every site obeys
//   x_s - c = [T_r(X_s) - T_r(X_c)] + sum_k w_sk (R_k - R_r)(X_s - X_c)
//           + sum_k (w_sk - wbar_k) Delta_k + sum_k w_sk R_k S_k,s q_k
// for c = T_r(X_c) + sum_k wbar_k Delta_k (a site's weights sum to 1), so
//   |x_s - c| <= rho_0 (1 + max_k |R_k - R_r|) + sum_k spread_k |Delta_k| + sum_k sigma_k |q_k|:
// the radius bounds the deformation (eq. 1) and the bones' relative motion,
// and costs O(bodies of the node) to update.
World::Sphere World::sphereOf(const Surface& surf, const Surface::Node& node) const {
  const Surface::Influence* ref = &node.influences.front();
  for (const Surface::Influence& in : node.influences)
    if (in.meanWeight > ref->meanWeight) ref = &in;
  auto map = [&](int32_t b, const Vec3& X) {
    const WorldBody& body = bodies_[size_t(b)];
    return Vec3(body.state.rotation * (X - body.model->restCenter) + body.state.t);
  };
  const Mat3 Rr = bodies_[size_t(ref->body)].state.rotation.toRotationMatrix();
  const Vec3 base = map(ref->body, node.restCentre);
  Sphere out;
  out.centre = base;
  double turn = 0, spread = 0, deform = 0;
  for (const Surface::Influence& in : node.influences) {
    const WorldBody& body = bodies_[size_t(in.body)];
    const Vec3 delta = map(in.body, node.restCentre) - base;
    out.centre += in.meanWeight * delta;
    if (in.body != ref->body) turn = std::max(turn, (body.state.rotation.toRotationMatrix() - Rr).norm());
    spread += in.weightSpread * delta.norm();
    if (body.model->modeCount() > 0) deform += in.modeBound * body.state.q.norm();
  }
  out.radius = node.restRadius * (1 + turn) + spread + deform + surf.sites.radius;
  return out;
}

std::vector<World::BoundingSphere> World::boundingSpheres(size_t skin) const {
  std::vector<BoundingSphere> out;
  for (const Surface& surf : surfaces_) {
    if (surf.skin != int32_t(skin)) continue;
    for (const Surface::Node& n : surf.nodes) {
      const Sphere sp = sphereOf(surf, n);
      out.push_back({sp.centre, sp.radius, std::vector<int32_t>(surf.order.begin() + n.begin, surf.order.begin() + n.end)});
    }
  }
  return out;
}

Mat3 World::factor(size_t b, size_t p) const {
  const WorldBody& body = bodies_[b];
  if (body.kinematic) return Mat3::Zero();
  return impulseFactor(*body.model, body.state, p, response(b));
}

void World::impulse(size_t b, size_t p, const Vec3& j) {
  WorldBody& body = bodies_[b];
  if (!body.kinematic) applyImpulse(*body.model, body.state, p, j, response(b));
}

const Eigen::MatrixXd* World::response(size_t b) const {
  return settings_.stiffImpulses && b < response_.size() && responseDt_ == settings_.step.dt ? &response_[b] : nullptr;
}

void World::refreshResponses() {
  if (responseDt_ == settings_.step.dt && response_.size() == bodies_.size()) return;
  response_.clear();
  for (const WorldBody& b : bodies_) response_.push_back(implicitResponse(*b.model, settings_.step.dt));
  responseDt_ = settings_.step.dt;
}

Vec3 World::sitePosition(size_t k, size_t s) const { return skinPosition(skins_[k], s); }
Vec3 World::siteVelocity(size_t k, size_t s) const { return skinVelocity(skins_[k], s); }
Mat3 World::siteFactor(size_t k, size_t s) const { return skinFactor(skins_[k], s); }
void World::applySiteImpulse(size_t k, size_t s, const Vec3& j) { skinImpulse(skins_[k], s, j); }

std::vector<Vec3> World::sitePositions(size_t k) const {
  std::vector<Vec3> x(skins_[k].siteCount());
  for (size_t s = 0; s < x.size(); ++s) x[s] = sitePosition(k, s);
  return x;
}

Vec3 World::skinPosition(const Skin& skin, size_t s) const {
  Vec3 x = Vec3::Zero();
  for (int32_t i = skin.offsets[s]; i < skin.offsets[s + 1]; ++i) {
    const WorldBody& b = bodies_[size_t(skin.body[size_t(i)])];
    x += skin.weight[size_t(i)] * particlePosition(*b.model, b.state, size_t(skin.particle[size_t(i)]));
  }
  return x;
}

Vec3 World::skinVelocity(const Skin& skin, size_t s) const {
  Vec3 v = Vec3::Zero();
  for (int32_t i = skin.offsets[s]; i < skin.offsets[s + 1]; ++i) {
    const WorldBody& b = bodies_[size_t(skin.body[size_t(i)])];
    v += skin.weight[size_t(i)] * particleVelocity(*b.model, b.state, size_t(skin.particle[size_t(i)]));
  }
  return v;
}

Mat3 World::skinFactor(const Skin& skin, size_t s) const {
  Mat3 K = Mat3::Zero();
  for (int32_t i = skin.offsets[s]; i < skin.offsets[s + 1]; ++i) {
    const double w = skin.weight[size_t(i)];
    if (w > 0) K += w * w * factor(size_t(skin.body[size_t(i)]), size_t(skin.particle[size_t(i)]));
  }
  return K;
}

void World::skinImpulse(const Skin& skin, size_t s, const Vec3& j) {
  for (int32_t i = skin.offsets[s]; i < skin.offsets[s + 1]; ++i) {
    const double w = skin.weight[size_t(i)];
    if (w > 0) impulse(size_t(skin.body[size_t(i)]), size_t(skin.particle[size_t(i)]), w * j);
  }
}

Vec3 World::endpointPosition(const Endpoint& e) const { return skinPosition(surfaces_[size_t(e.surface)].sites, size_t(e.site)); }

Vec3 World::endpointVelocity(const Endpoint& e) const {
  return e.surface < 0 ? Vec3::Zero() : skinVelocity(surfaces_[size_t(e.surface)].sites, size_t(e.site));
}

Mat3 World::endpointFactor(const Endpoint& e) const {
  return e.surface < 0 ? Mat3::Zero() : skinFactor(surfaces_[size_t(e.surface)].sites, size_t(e.site));
}

void World::endpointImpulse(const Endpoint& e, const Vec3& j) {
  if (e.surface >= 0) skinImpulse(surfaces_[size_t(e.surface)].sites, size_t(e.site), j);
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

// Two surfaces may collide unless they share a body, or are bodies joined by a
// joint (articulated neighbours overlap by design), or are both kinematic.
bool World::mayTouch(const Surface& a, const Surface& b) const {
  bool anyDynamic = false;
  for (const auto* s : {&a, &b})
    for (int32_t body : s->bodiesTouched) anyDynamic = anyDynamic || !bodies_[size_t(body)].kinematic;
  if (!anyDynamic) return false;
  for (int32_t x : a.bodiesTouched) {
    if (std::binary_search(b.bodiesTouched.begin(), b.bodiesTouched.end(), x)) return false;
    if (a.skin < 0 && b.skin < 0) {
      const auto& list = jointedWith_[size_t(x)];
      if (std::binary_search(list.begin(), list.end(), b.body)) return false;
    }
  }
  return true;
}

// Contacts on the positions of the step's start, with the velocities after
// the forces (predictive): a pair is a contact when it could close its gap
// this step. Each contact's target normal velocity brings it to touching at
// the end of the step (a separated pair may approach that far), pushes a
// share of any penetration beyond the slop out, and (restitution e) bounces.
// Candidates come from the surfaces' sphere hierarchies: a subtree is
// skipped when its sphere, grown by how far its sites can move in the step,
// cannot reach the ground, a collider or the other surface's sphere; sites
// are evaluated only in the leaves that can.
void World::findContacts() {
  contacts_.clear();
  const double h = settings_.step.dt, e = settings_.restitution;
  if (colliderCount_ != settings_.colliders.size()) {
    for (const Collider& c : settings_.colliders) c.validate("collider '" + c.name + "'");
    colliderGrid_ = dyn::ColliderGrid(settings_.colliders);
    colliderCount_ = settings_.colliders.size();
  }
  // Per body: a bound on its particles' speeds (v + omega_R x r + R S qDot).
  speed_.assign(bodies_.size(), 0.0);
  for (size_t b = 0; b < bodies_.size(); ++b) {
    const WorldBody& body = bodies_[b];
    const bool modes = body.model->modeCount() > 0;
    speed_[b] = body.state.v.norm() +
                body.state.omegaR.norm() * (reach_[b] + (modes ? modeBound_[b] * body.state.q.norm() : 0.0)) +
                (modes ? modeBound_[b] * body.state.qDot.norm() : 0.0);
  }
  std::vector<std::vector<Sphere>> spheres(surfaces_.size());
  for (size_t s = 0; s < surfaces_.size(); ++s)
    for (const Surface::Node& n : surfaces_[s].nodes) {
      Sphere sp = sphereOf(surfaces_[s], n);
      for (const Surface::Influence& in : n.influences) sp.speed = std::max(sp.speed, speed_[size_t(in.body)]);
      spheres[s].push_back(sp);
    }
  // Sites evaluated on demand, once per step.
  struct Site {
    Vec3 x, v;
  };
  std::vector<std::vector<Site>> sites(surfaces_.size());
  std::vector<std::vector<char>> known(surfaces_.size());
  for (size_t s = 0; s < surfaces_.size(); ++s) {
    sites[s].resize(surfaces_[s].sites.siteCount());
    known[s].assign(surfaces_[s].sites.siteCount(), 0);
  }
  auto site = [&](size_t s, int32_t i) -> const Site& {
    if (!known[s][size_t(i)]) {
      const Endpoint ep{int32_t(s), i};
      sites[s][size_t(i)] = {endpointPosition(ep), endpointVelocity(ep)};
      known[s][size_t(i)] = 1;
    }
    return sites[s][size_t(i)];
  };
  // A leaf's tight sphere (centre: the mean of its sites, radius to the
  // farthest, speed: the fastest), computed when a leaf pair first needs it.
  std::vector<std::vector<Sphere>> tight(surfaces_.size());
  std::vector<std::vector<char>> tightKnown(surfaces_.size());
  for (size_t s = 0; s < surfaces_.size(); ++s) {
    tight[s].resize(surfaces_[s].nodes.size());
    tightKnown[s].assign(surfaces_[s].nodes.size(), 0);
  }
  auto leafSphere = [&](size_t s, int32_t n) -> const Sphere& {
    if (!tightKnown[s][size_t(n)]) {
      const Surface::Node& node = surfaces_[s].nodes[size_t(n)];
      Sphere sp;
      for (int32_t k = node.begin; k < node.end; ++k) sp.centre += site(s, surfaces_[s].order[size_t(k)]).x;
      sp.centre /= double(node.end - node.begin);
      for (int32_t k = node.begin; k < node.end; ++k) {
        const Site& p = site(s, surfaces_[s].order[size_t(k)]);
        sp.radius = std::max(sp.radius, (p.x - sp.centre).norm());
        sp.speed = std::max(sp.speed, p.v.norm());
      }
      sp.radius += surfaces_[s].sites.radius;
      tight[s][size_t(n)] = sp;
      tightKnown[s][size_t(n)] = 1;
    }
    return tight[s][size_t(n)];
  };
  auto target = [&](double gap, double vn) {
    double want = gap >= 0 ? -gap / h : settings_.recovery * std::max(0.0, -gap - settings_.slop) / h;
    if (e > 0 && vn < -0.1 && gap + h * vn < 0) want = std::max(want, -e * vn);  // Guendelman's collision: bounce what arrives
    return want;
  };
  auto add = [&](const Endpoint& a, const Endpoint& b, const Vec3& n, double gap, double vn, double mu) {
    Contact c;
    c.a = a, c.b = b, c.normal = n, c.friction = mu;
    c.want = target(gap, vn);
    const Mat3 K = endpointFactor(a) + endpointFactor(b);
    const double nKn = n.dot(K * n);
    if (!(nKn > 0)) return;  // nothing here can move
    c.normalMass = 1 / nKn;
    c.tangent[0] = n.unitOrthogonal();
    c.tangent[1] = n.cross(c.tangent[0]);
    Eigen::Matrix2d T;
    for (int x = 0; x < 2; ++x)
      for (int y = 0; y < 2; ++y) T(x, y) = c.tangent[x].dot(K * c.tangent[y]);
    c.tangentMass = std::abs(T.determinant()) > 1e-12 * T.squaredNorm() ? Eigen::Matrix2d(T.inverse()) : Eigen::Matrix2d::Zero();
    c.invertible = std::abs(K.determinant()) > 1e-12 * K.squaredNorm() * K.norm();
    if (c.invertible) c.Kinverse = K.inverse();
    contacts_.push_back(c);
  };
  // Against the ground and the static colliders: each hierarchy descended
  // with the colliders its sphere may reach.
  std::vector<int32_t> allColliders(settings_.colliders.size());
  std::iota(allColliders.begin(), allColliders.end(), 0);
  for (size_t s = 0; s < surfaces_.size(); ++s) {
    const Surface& surf = surfaces_[s];
    if (surf.nodes.empty()) continue;
    const double radius = surf.sites.radius;
    struct Item {
      int32_t node;
      std::vector<int32_t> colliders;
    };
    std::vector<Item> stack{{0, allColliders}};
    while (!stack.empty()) {
      Item item = std::move(stack.back());
      stack.pop_back();
      const Surface::Node& node = surf.nodes[size_t(item.node)];
      const Sphere& sp = spheres[s][size_t(item.node)];
      const double margin = h * sp.speed + settings_.slop;
      const bool ground = settings_.ground && sp.centre.y() - sp.radius - settings_.groundHeight < margin;
      std::vector<int32_t> near;
      for (int32_t c : item.colliders)
        if (-dyn::probe(settings_.colliders[size_t(c)], colliderGrid_.poses()[size_t(c)], sp.centre).depth - sp.radius < margin)
          near.push_back(c);
      if (!ground && near.empty()) continue;
      if (node.left >= 0) {
        stack.push_back({node.right, near});
        stack.push_back({node.left, std::move(near)});
        continue;
      }
      for (int32_t k = node.begin; k < node.end; ++k) {
        const int32_t i = surf.order[size_t(k)];
        const Site& p = site(s, i);
        const Endpoint b{int32_t(s), i};
        const double reach = h * p.v.norm() + settings_.slop;
        if (ground) {
          const double gap = p.x.y() - settings_.groundHeight - radius;
          if (gap < reach) add({-1, 0}, b, Vec3::UnitY(), gap, p.v.y(), settings_.friction);
        }
        for (int32_t c : near) {
          const dyn::ContactPoint cp = dyn::probe(settings_.colliders[size_t(c)], colliderGrid_.poses()[size_t(c)], p.x);
          const double gap = -cp.depth - radius;
          if (gap < reach) add({-1, 1 + c}, b, cp.normal, gap, p.v.dot(cp.normal), settings_.colliders[size_t(c)].friction);
        }
      }
    }
  }
  // Between surfaces: both hierarchies descended together.
  if (!settings_.bodyContacts) return;
  for (size_t s = 0; s < surfaces_.size(); ++s)
    for (size_t t = s + 1; t < surfaces_.size(); ++t) {
      const Surface &A = surfaces_[s], &B = surfaces_[t];
      if (A.nodes.empty() || B.nodes.empty() || !mayTouch(A, B)) continue;
      const double reach = A.sites.radius + B.sites.radius;
      std::vector<std::pair<int32_t, int32_t>> stack{{0, 0}};
      while (!stack.empty()) {
        const auto [a, b] = stack.back();
        stack.pop_back();
        const Sphere &sa = spheres[s][size_t(a)], &sb = spheres[t][size_t(b)];
        if ((sa.centre - sb.centre).norm() > sa.radius + sb.radius + h * (sa.speed + sb.speed) + settings_.slop) continue;
        const Surface::Node &na = A.nodes[size_t(a)], &nb = B.nodes[size_t(b)];
        if (na.left >= 0 && (nb.left < 0 || sa.radius >= sb.radius)) {
          stack.push_back({na.right, b}), stack.push_back({na.left, b});
          continue;
        }
        if (nb.left >= 0) {
          stack.push_back({a, nb.right}), stack.push_back({a, nb.left});
          continue;
        }
        // Two leaves: their tight spheres from the sites themselves first.
        const Sphere &ta = leafSphere(s, a), &tb = leafSphere(t, b);
        if ((ta.centre - tb.centre).norm() > ta.radius + tb.radius + h * (ta.speed + tb.speed) + settings_.slop) continue;
        for (int32_t x = na.begin; x < na.end; ++x)
          for (int32_t y = nb.begin; y < nb.end; ++y) {
            const int32_t i = A.order[size_t(x)], k = B.order[size_t(y)];
            const Site &p = site(s, i), &q = site(t, k);
            const double far = reach + h * (ta.speed + tb.speed) + settings_.slop;
            if ((q.x - p.x).squaredNorm() > far * far) continue;
            const double d = (q.x - p.x).norm();
            if (d < 1e-12 || d - reach > h * (q.v - p.v).norm() + settings_.slop) continue;
            const Vec3 n = (q.x - p.x) / d;
            add({int32_t(s), i}, {int32_t(t), k}, n, d - reach, (q.v - p.v).dot(n), settings_.surfaceFriction);
          }
      }
    }
}

// One sweep over the contacts (projected Gauss-Seidel on accumulated
// impulses, so that impulses of earlier sweeps can be taken back and a body
// resting on many contacts settles instead of rocking): the normal impulse
// lambda n (lambda >= 0: push only) that brings the normal relative velocity
// to its target, then the tangential impulse that stops sliding, its
// accumulated total clamped to the Coulomb cone mu lambda. The effective
// masses come from the impulse factor K (eq. 33, 45) projected on n and on
// the tangent plane. Each impulse is +j on b, -j on a.
int World::solveContacts() {
  int active = 0;
  for (Contact& c : contacts_) {
    const Vec3& n = c.normal;
    Vec3 u = endpointVelocity(c.b) - endpointVelocity(c.a);
    if (settings_.cone == FrictionCone::ResultingVelocity && c.invertible) {
      // The paper's check on the resulting velocity: the accumulated velocity
      // change Delta = K j (stick: the tangential velocity stopped, the normal
      // one at its target), pushing only and inside the cone.
      const double un = u.dot(n);
      Vec3 delta = c.delta + (c.want - un) * n - (u - un * n);
      const double dn = delta.dot(n);
      if (dn <= 0) {
        delta.setZero();
      } else {
        const Vec3 tangential = delta - dn * n;
        if (tangential.norm() > c.friction * dn) delta = dn * n + tangential * (c.friction * dn / tangential.norm());
        ++active;
      }
      const Vec3 j = c.Kinverse * (delta - c.delta);
      c.delta = delta;
      endpointImpulse(c.b, j), endpointImpulse(c.a, -j);
      continue;
    }
    const double pushed = std::max(0.0, c.normalImpulse + c.normalMass * (c.want - u.dot(n)));
    if (pushed != c.normalImpulse) {
      const Vec3 j = (pushed - c.normalImpulse) * n;
      endpointImpulse(c.b, j), endpointImpulse(c.a, -j);
      c.normalImpulse = pushed;
      u = endpointVelocity(c.b) - endpointVelocity(c.a);
    }
    if (pushed > 0) ++active;
    if (c.friction <= 0) continue;
    const Eigen::Vector2d ut(u.dot(c.tangent[0]), u.dot(c.tangent[1]));
    Eigen::Vector2d total = c.tangentImpulse - c.tangentMass * ut;
    const double limit = c.friction * pushed;
    if (total.norm() > limit) total *= limit / total.norm();  // kinetic
    const Eigen::Vector2d change = total - c.tangentImpulse;
    c.tangentImpulse = total;
    if (change.squaredNorm() == 0) continue;
    const Vec3 j = change.x() * c.tangent[0] + change.y() * c.tangent[1];
    endpointImpulse(c.b, j), endpointImpulse(c.a, -j);
  }
  return active;
}

// Newton's method on eq. 41: the impulse on the n+1 velocities after which
// the two joint particles coincide at n+1. f(j) is evaluated exactly (the
// particles' positions after the impulse and the position update,
// particleAfterImpulse); its Jacobian is taken as h (K_a + K_b), the
// positions' first-order response.
double World::preStabilize() {
  const StepSettings& set = settings_.step;
  double worst = 0;
  for (const PointJoint& jt : joints_) {
    const size_t a = size_t(jt.bodyA), b = size_t(jt.bodyB), pa = size_t(jt.particleA), pb = size_t(jt.particleB);
    const Vec3 mid = jointMidpoint(jt);
    // f(j): where the two particles end the step after the impulse pair
    // (a kinematic body is already at its n+1 pose).
    const WorldBody &A = bodies_[a], &B = bodies_[b];
    auto gapAfter = [&](const Vec3& j) {
      const Vec3 xa = A.kinematic ? particlePosition(*A.model, A.state, pa)
                                  : particleAfterImpulse(*A.model, A.state, pa, j, mid, set.dt, response(a));
      const Vec3 xb = B.kinematic ? particlePosition(*B.model, B.state, pb)
                                  : particleAfterImpulse(*B.model, B.state, pb, -j, mid, set.dt, response(b));
      return Vec3(xa - xb);
    };
    Vec3 f = gapAfter(Vec3::Zero());
    worst = std::max(worst, f.norm());
    if (f.norm() < settings_.newtonTolerance) continue;
    const Mat3 J = set.dt * (factor(a, pa) + factor(b, pb));  // f moves by h K_a j - h K_b (-j)
    if (!(std::abs(J.determinant()) > 0)) continue;
    const auto lu = J.partialPivLu();
    Vec3 j = Vec3::Zero();
    for (int it = 0; it < settings_.newtonIterations; ++it) {
      j -= lu.solve(f);
      f = gapAfter(j);
      if (f.norm() < settings_.newtonTolerance) break;
    }
    jointImpulse(jt, j, mid);
  }
  return worst;
}

// Post-stabilization: the impulse that equates the two particles' velocities
// (eq. 33a; a few Newton steps, since the midpoint's lever arm makes the
// factor approximate).
void World::postStabilize() {
  for (const PointJoint& jt : joints_) {
    const size_t a = size_t(jt.bodyA), b = size_t(jt.bodyB), pa = size_t(jt.particleA), pb = size_t(jt.particleB);
    const Mat3 K = factor(a, pa) + factor(b, pb);
    if (!(std::abs(K.determinant()) > 0)) continue;
    const auto lu = K.partialPivLu();
    const Vec3 mid = jointMidpoint(jt);
    for (int it = 0; it < 2; ++it) {
      const Vec3 u = particleVelocity(*bodies_[b].model, bodies_[b].state, pb) - particleVelocity(*bodies_[a].model, bodies_[a].state, pa);
      jointImpulse(jt, lu.solve(u), mid);  // a gains j, b loses it: du = -(K_a + K_b) j = -u
    }
  }
}

Vec3 World::jointMidpoint(const PointJoint& jt) const {
  const WorldBody &a = bodies_[size_t(jt.bodyA)], &b = bodies_[size_t(jt.bodyB)];
  return 0.5 * (particlePosition(*a.model, a.state, size_t(jt.particleA)) + particlePosition(*b.model, b.state, size_t(jt.particleB)));
}

// +j on A's particle, -j on B's, both turning about the midpoint (eq. 41's
// r-hat): equal and opposite on one line, so momenta are kept exactly.
void World::jointImpulse(const PointJoint& jt, const Vec3& j, const Vec3& mid) {
  WorldBody &a = bodies_[size_t(jt.bodyA)], &b = bodies_[size_t(jt.bodyB)];
  if (!a.kinematic) applyImpulseAt(*a.model, a.state, size_t(jt.particleA), j, mid, response(size_t(jt.bodyA)));
  if (!b.kinematic) applyImpulseAt(*b.model, b.state, size_t(jt.particleB), -j, mid, response(size_t(jt.bodyB)));
}

const WorldStats& World::step() {
  const StepSettings& set = settings_.step;
  refreshResponses();
  // 1. Velocities (eq. 15-16, 34-35).
  for (WorldBody& b : bodies_)
    if (!b.kinematic) advanceVelocities(*b.model, b.state, set);
  // 2-3. Contacts and the joints' pre-stabilization, in sweeps on the new velocities.
  findContacts();
  stats_.contacts = int(contacts_.size());
  stats_.activeContacts = 0;
  for (int s = 0; s < settings_.sweeps; ++s) {
    stats_.activeContacts = solveContacts();
    // Joints are Gauss-Seidel across each other: sweep until every joint
    // was already closed when its turn came (or the sweeps run out).
    const double open = settings_.preStabilization ? preStabilize() : 0.0;
    if (contacts_.empty() && open < settings_.newtonTolerance) break;
  }
  // 4. Positions (eq. 36-38).
  for (WorldBody& b : bodies_)
    if (!b.kinematic) advancePositions(*b.model, b.state, set);
  // 5. Post-stabilization: the joints' velocities agree.
  for (int s = 0; s < settings_.postStabilization && !joints_.empty(); ++s) postStabilize();
  stats_.worstJointGap = 0;
  for (size_t k = 0; k < joints_.size(); ++k) stats_.worstJointGap = std::max(stats_.worstJointGap, jointGap(k));
  return stats_;
}

}  // namespace sinew::sheth2015
