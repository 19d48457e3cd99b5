// The Liu 2013 time step (Section 4.4): update kinematics, accumulate forces
// and torques, integrate. Element work runs in parallel over a per-element
// layout; every reduction is done in a fixed order so that results do not
// depend on the thread count.
#include "liu2013/Liu2013.h"

#include "core/Error.h"
#include <nlohmann/json.hpp>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

namespace sinew::liu2013 {

namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

Vec3 logMap(const Quat& qIn) {
  Quat q = qIn;
  if (q.w() < 0) q.coeffs() = -q.coeffs();
  const double s = q.vec().norm();
  if (s < 1e-12) return 2.0 * q.vec();
  return 2.0 * std::atan2(s, q.w()) * q.vec() / s;
}

}  // namespace

// Per-step work arrays (not part of the state: recomputed every step).
struct Liu2013Solver::Scratch {
  explicit Scratch(int threads) : arena(threads > 0 ? threads : tbb::task_arena::automatic) {}
  tbb::task_arena arena;
  dyn::ArticulatedModel skeleton;          // the model's, with gravity per the toggles
  dyn::LinkKinematics links;
  std::vector<Mat3> skinRotation;          // S_j = T_j T_rest_j^-1 (per link)
  std::vector<Vec3> skinTranslation;
  std::vector<Vec3> reference, referenceVelocity;  // x~ and its rate (nNodes)
  std::vector<Vec3> cornerForce;           // (nTets * 4)
  std::vector<double> limiterStiffness;    // compression limiter k per element (capped for the explicit step)
  std::vector<double> limiterBudget;       // per element: the limiter's stiffness budget (ElementInput)
  std::vector<uint8_t> inverted;           // (nTets)
  std::vector<double> elementEnergy;       // (nTets)
  std::vector<Vec3> force;                 // total force per node
  std::vector<Vec3> dampingForce;          // pose-based damper force per node
  std::vector<Vec3> vertexForce;           // contact (and grab) force per surface vertex
  std::vector<uint8_t> vertexTouched;
  std::vector<Mat3> vertexDrag;            // implicit sticking drag c (I - n n^T) per surface vertex (vertexTouched & 2)
  std::vector<Mat3> nodeDrag;              // ...gathered on the free nodes, for integrate() (zero elsewhere)
  std::vector<int32_t> draggedNodes;       // the free nodes with a nonzero nodeDrag this step
  std::vector<dyn::LinkWrench> wrenches;
  std::vector<int32_t> clipJointOfLink;    // -1: not in the clip
  std::vector<Transform> colliderPose;     // of settings.colliders
  int32_t invertedCount = 0;
};

Liu2013Solver::Liu2013Solver(std::shared_ptr<const Liu2013Model> model, Settings settings)
    : model_(std::move(model)), settings_(std::move(settings)) {
  setSettings(settings_);
  state_ = restState();
  lastGood_ = state_;
}

Liu2013Solver::~Liu2013Solver() = default;

void Liu2013Solver::setDrive(const Drive& drive) {
  Settings s = settings_;
  s.drive = drive.clip ? drive.mode : DriveMode::Hold;
  s.clip = drive.clip;
  s.loopClip = drive.loop;
  setSettings(s);
  if (state_.time == 0) poseAtClipStart();  // a run that starts driven starts in the clip's first pose
}


bool Liu2013Solver::setScene(const SimulationSetup& setup) {
  Settings s = settings_;
  applyScene(setup, s);
  setSettings(s);
  return true;
}

void Liu2013Solver::setSettings(const Settings& s) {
  if (!(s.dt > 0 && s.dt <= 0.01)) throw InputError("settings", "time step must lie in (0, 0.01] s");
  const int threads = scratch_ ? scratch_->arena.max_concurrency() : -1;
  settings_ = s;
  if (!scratch_ || (s.threads > 0 && threads != s.threads)) scratch_ = std::make_unique<Scratch>(s.threads);
  Scratch& sc = *scratch_;
  sc.skeleton = model_->skeleton;
  sc.clipJointOfLink.assign(model_->skeleton.links.size(), -1);
  sc.colliderPose.clear();
  for (const dyn::Collider& c : s.colliders) {
    c.validate("settings");
    sc.colliderPose.push_back(c.pose());
  }
  // The limiter adds stiffness to squashed elements; symplectic Euler stays
  // stable only while each element's total stiffness fits its own stable step,
  // so its factor is capped there (with a margin for the rough estimate).
  // That cap holds at rest; a squashed element that is also stretched is
  // stiffer along its volume gradient, so the kernel caps k again per step
  // (ElementKernel.h) within the budget set here: k |dJ/dx|^2 V / m within
  // 3 / h^2, below symplectic Euler's limit 4 / h^2 with room for the
  // element's elasticity. (Without it sole flesh squashed under a pushed
  // walking character blew up at 0.5 ms; with 2 / h^2 an element fallen on
  // stays inverted for 9 steps, with 3 for none.)
  sc.limiterStiffness.resize(model_->tetCount());
  sc.limiterBudget.resize(model_->tetCount());
  for (size_t t = 0; t < model_->tetCount(); ++t) {
    const double fit = 0.7 * std::pow(model_->elementStableStep[t] / s.dt, 2) - 1;
    sc.limiterStiffness[t] = std::clamp(fit, 0.0, s.compressionStiffness) * (model_->lambda[t] + 2 * model_->mu[t]);
    double lightest = std::numeric_limits<double>::infinity();
    for (int32_t n : model_->tets[t]) lightest = std::min(lightest, model_->nodeMass[n]);
    sc.limiterBudget[t] = 3.0 * lightest / (s.dt * s.dt * model_->restVolume[t]);
  }
  if (settings_.clip) {
    const MotionClip& clip = *settings_.clip;
    for (size_t l = 0; l < model_->jointNames.size(); ++l)
      for (size_t c = 0; c < clip.joints.size(); ++c)
        if (clip.joints[c].name == model_->jointNames[l]) sc.clipJointOfLink[l] = static_cast<int32_t>(c);
  }
  if (settings_.drive != DriveMode::Hold) {
    if (!settings_.clip) throw InputError("settings", std::string("the ") + driveModeName(settings_.drive) + " drive needs a motion clip");
    if (std::count(sc.clipJointOfLink.begin(), sc.clipJointOfLink.end(), -1) == static_cast<long>(sc.clipJointOfLink.size()))
      throw InputError(settings_.clip->name, "no joint of the clip has the name of a skeleton joint (retarget the clip first)");
  }
}

Liu2013State Liu2013Solver::restState() const {
  const Liu2013Model& m = *model_;
  Liu2013State s;
  s.skeleton = dyn::restState(m.skeleton);
  s.x = m.restNodes;
  s.v.assign(m.nodeCount(), Vec3::Zero());
  s.rotation.assign(m.tetCount(), Mat3::Identity());
  s.invertedRun.assign(m.tetCount(), 0);
  s.plasticRotation.assign(m.tetCount(), Mat3::Identity());
  return s;
}

// ---------------------------------------------------------------------------
// The drive: PD targets (or kinematic poses) from the clip.

namespace {

struct ClipPose {
  Vec3 root = Vec3::Zero();
  std::vector<Quat> rotation;
};

}  // namespace

static ClipPose clipPose(const Liu2013Model& m, const Settings& s, const std::vector<int32_t>& clipJointOfLink, double t) {
  ClipPose p;
  p.rotation.assign(m.skeleton.links.size(), Quat::Identity());
  p.root = m.linkRest[0].translation;
  if (!s.clip) return p;
  const MotionClip& clip = *s.clip;
  const double duration = clip.duration();
  double tc = t, loops = 0;
  if (duration > 0) {
    if (s.loopClip) {
      loops = std::floor(t / duration);
      tc = t - loops * duration;
    } else {
      tc = std::min(t, duration);
    }
  }
  const std::vector<Transform> local = clip.localPoseAt(tc);
  for (size_t l = 0; l < p.rotation.size(); ++l) {
    const int32_t c = clipJointOfLink[l];
    if (c < 0) continue;
    // The clip's local rotation replaces the joint's rest rotation.
    p.rotation[l] = (m.skeleton.links[l].parentFromJoint.rotation.conjugate() * local[c].rotation).normalized();
  }
  const int32_t rootClip = clipJointOfLink[0];
  if (rootClip >= 0) {
    const std::vector<Transform> first = clip.localPoseAt(0.0);
    Vec3 travel = local[rootClip].translation - first[rootClip].translation;
    if (loops > 0) {
      const std::vector<Transform> last = clip.localPoseAt(duration);
      Vec3 perLoop = last[rootClip].translation - first[rootClip].translation;
      perLoop.y() = 0;
      travel += loops * perLoop;
    }
    p.root += travel;
  }
  return p;
}

void Liu2013Solver::poseAtClipStart() {
  if (settings_.drive == DriveMode::Hold || !settings_.clip) return;
  // At rest in that pose: a clip's first frame is often a calibration pose
  // (CMU's 01_01 starts in a T-pose one frame before its first real pose), so
  // its rate there is no velocity to start with.
  const ClipPose now = clipPose(*model_, settings_, scratch_->clipJointOfLink, 0.0);
  dyn::ArticulatedState s = restState().skeleton;
  dyn::setPoseKinematic(model_->skeleton, s, now.root, now.rotation, 1.0);
  s.velocity.setZero();
  setPose(s);
}

dyn::PdTargets Liu2013Solver::driveTargets() const {
  if (state_.policyWindow >= 0) return {state_.policyTargets, {}};
  if (externalTargets_) return *externalTargets_;
  dyn::PdTargets targets;
  if (settings_.drive == DriveMode::Hold || !settings_.clip) return targets;  // rest pose, zero rates
  const double t = state_.time + settings_.dt;
  const double h = 1e-3;
  const ClipPose now = clipPose(*model_, settings_, scratch_->clipJointOfLink, t);
  const ClipPose next = clipPose(*model_, settings_, scratch_->clipJointOfLink, t + h);
  targets.rotation = now.rotation;
  targets.angularVelocity.resize(now.rotation.size());
  for (size_t l = 0; l < now.rotation.size(); ++l)
    targets.angularVelocity[l] = logMap(now.rotation[l].conjugate() * next.rotation[l]) / h;
  return targets;
}

// ---------------------------------------------------------------------------
// (1) Update kinematics: fixed nodes from the bones; reference pose and its
// velocity for plasticity and damping (eq. 12-13).

void Liu2013Solver::updateKinematics() {
  const Liu2013Model& m = *model_;
  Scratch& sc = *scratch_;
  sc.links = dyn::forwardKinematics(m.skeleton, state_.skeleton);
  const size_t nLinks = m.skeleton.links.size();
  sc.skinRotation.resize(nLinks);
  sc.skinTranslation.resize(nLinks);
  for (size_t l = 0; l < nLinks; ++l) {
    const Transform s = sc.links.pose[l] * m.linkRest[l].inverse();
    sc.skinRotation[l] = s.rotation.toRotationMatrix();
    sc.skinTranslation[l] = s.translation;
  }
  const size_t n = m.nodeCount();
  sc.reference.resize(n);
  sc.referenceVelocity.resize(n);
  sc.arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 256), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t i = r.begin(); i < r.end(); ++i) {
        Vec3 x = Vec3::Zero(), v = Vec3::Zero();
        for (int32_t a = m.influenceOffsets[i]; a < m.influenceOffsets[i + 1]; ++a) {
          const Influence& f = m.influences[a];
          const Vec3 p = sc.skinRotation[f.link] * m.restNodes[i] + sc.skinTranslation[f.link];
          x += f.weight * p;
          v += f.weight * (sc.links.linear[f.link] + sc.links.angular[f.link].cross(p - sc.links.pose[f.link].translation));
        }
        sc.reference[i] = x;
        sc.referenceVelocity[i] = v;
        const int32_t link = m.nodeLink[i];
        if (link >= 0) {  // fixed nodes follow their bones exactly
          state_.x[i] = x;
          state_.v[i] = v;
        }
      }
    });
  });
}

// ---------------------------------------------------------------------------
// (2) Accumulate forces and torques.

void Liu2013Solver::accumulateForces() {
  const Liu2013Model& m = *model_;
  Scratch& sc = *scratch_;
  const SimToggles& tg = settings_.toggles;
  const size_t nTets = m.tetCount(), nNodes = m.nodeCount();
  sc.cornerForce.resize(nTets * 4);
  sc.inverted.resize(nTets);
  sc.elementEnergy.resize(nTets);

  auto t0 = Clock::now();
  // (b) Elastic forces of the pose-based corotated model (eq. 7-16), per
  // element, a SIMD block of elements at a time (ElementKernel.h).
  ElementInput in;
  in.x = state_.x.data();
  in.v = state_.v.data();
  in.reference = sc.reference.data();
  in.limiterStiffness = sc.limiterStiffness.data();
  in.limiterBudget = sc.limiterBudget.data();
  in.plasticity = tg.plasticity;
  in.rayleigh = tg.damping == DampingMode::Rayleigh;
  in.rayleighStiffness = settings_.rayleighStiffness;
  in.minPlasticStretch = settings_.minPlasticStretch;
  in.maxPlasticStretch = settings_.maxPlasticStretch;
  in.compressionLimit = settings_.compressionLimit;
  ElementOutput out;
  out.rotation = state_.rotation.data();
  out.plasticRotation = state_.plasticRotation.data();
  out.cornerForce = sc.cornerForce.data();
  out.energy = sc.elementEnergy.data();
  out.inverted = sc.inverted.data();
  sc.arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, m.elements.blocks, 16), [&](const tbb::blocked_range<size_t>& r) {
      computeElements(m.elements, r.begin(), r.end(), in, out);
    });
  });
  sc.invertedCount = 0;
  for (uint8_t b : sc.inverted) sc.invertedCount += b;

  // Gather per node (fixed order), with the damping forces (eq. 17).
  sc.force.resize(nNodes);
  sc.dampingForce.assign(nNodes, Vec3::Zero());
  const DampingMode damping = tg.damping;
  const double alpha = settings_.rayleighMass;
  sc.arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, nNodes, 256), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t i = r.begin(); i < r.end(); ++i) {
        Vec3 f = Vec3::Zero();
        for (int32_t c = m.cornerOffsets[i]; c < m.cornerOffsets[i + 1]; ++c) f += sc.cornerForce[m.corners[c]];
        if (m.nodeLink[i] < 0) {
          if (damping == DampingMode::Pose) {
            const Vec3 dx = sc.reference[i] - state_.x[i];
            const Vec3 dv = sc.referenceVelocity[i] - state_.v[i];
            const double len2 = dx.squaredNorm();
            const double eps2 = 1e-12;
            if (len2 > eps2) sc.dampingForce[i] = m.poseDamping[i] * m.nodeMass[i] * (dv.dot(dx) / len2) * dx;
            f += sc.dampingForce[i];
          } else if (damping == DampingMode::Rayleigh) {
            f -= alpha * m.nodeMass[i] * state_.v[i];
          }
        }
        sc.force[i] = f;
      }
    });
  });
  auto t1 = Clock::now();
  times_.elastic += seconds(t0, t1);

  // Contact (Section 4.2.4) and the grab spring on the fine surface, moved to the nodes by J_phi^T.
  const size_t nVerts = m.embedding.vertexCount();
  sc.vertexForce.resize(nVerts);
  sc.vertexTouched.assign(nVerts, 0);
  sc.vertexDrag.resize(nVerts);
  for (int32_t i : sc.draggedNodes) sc.nodeDrag[size_t(i)].setZero();
  sc.draggedNodes.clear();
  sc.nodeDrag.resize(nNodes, Mat3::Zero());
  if (tg.contact) {
    const double ks = settings_.contactStiffness, kd = settings_.contactDamping, mu = settings_.friction;
    if (state_.contactSource.size() != nVerts) {
      state_.contactSource.assign(nVerts, 0);
      state_.contactAnchor.assign(nVerts, Vec3::Zero());
    }
    // With the ground as the only collider, a vertex this far above it (far
    // beyond the rounding of its height) skips the contact response.
    const bool groundOnly = settings_.colliders.empty();
    const double clearHeight = settings_.groundHeight + 1e-6;
    sc.arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<size_t>(0, nVerts, 512), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t v = r.begin(); v < r.end(); ++v) {
          const Tet& tet = m.tets[m.embedding.tet[v]];
          const auto& phi = m.embedding.weights[v];
          if (groundOnly) {
            // Most of the surface is well above the ground: its height alone
            // says it has no contact (the full path below would find depth < 0
            // and leave exactly this: no force, not stuck).
            double height = 0;
            for (int k = 0; k < 4; ++k) height += phi[k] * state_.x[tet[k]].y();
            if (height > clearHeight) {
              state_.contactSource[v] = 0;
              sc.vertexForce[v] = Vec3::Zero();
              continue;
            }
          }
          Vec3 p = Vec3::Zero(), vel = Vec3::Zero();
          for (int k = 0; k < 4; ++k) {
            p += phi[k] * state_.x[tet[k]];
            vel += phi[k] * state_.v[tet[k]];
          }
          Vec3 f = Vec3::Zero();
          Mat3 drag3 = Mat3::Zero();
          int32_t& stuckTo = state_.contactSource[v];
          Vec3& anchor = state_.contactAnchor[v];
          int32_t touching = 0;
          // Penalty normal force; tangentially Coulomb friction, sticking
          // (a spring to the anchor and a damper) until it would pass mu fn.
          auto respond = [&](const dyn::ContactPoint& c, double friction, int32_t source) {
            if (c.depth <= 0) return;
            const double area = m.vertexArea[v];
            const double vn = vel.dot(c.normal);
            const double fn = std::max(0.0, area * (ks * c.depth - kd * vn));
            if (fn <= 0) return;
            const Vec3 vt = vel - vn * c.normal;
            const double drag = kStickingDampingFactor * area * kd;
            const double spring = kStickingStiffnessFactor * area * ks;
            const double limit = friction * fn;
            Vec3 ft = Vec3::Zero();  // the spring's pull toward the anchor
            if (touching == 0) {
              touching = source;
              if (stuckTo != source) anchor = p;  // first touch: stick here
              Vec3 stretch = p - anchor;
              stretch -= stretch.dot(c.normal) * c.normal;
              ft = -spring * stretch;
              if (ft.norm() > limit) {
                // Stretched past the limit: the anchor follows the vertex.
                ft *= limit / ft.norm();
                anchor = p + ft / spring;
              }
            }
            const Vec3 total = ft - drag * vt;
            if (total.norm() > limit) {
              ft = limit * total.normalized();  // sliding: kinetic friction
            } else if (m.vertexImplicitDrag[v]) {
              // Sticking, where the step cannot take the drag explicitly: integrate() applies it implicitly.
              drag3 += drag * (Mat3::Identity() - c.normal * c.normal.transpose());
            } else {
              ft = total;
            }
            f += fn * c.normal + ft;
          };
          respond(dyn::probeGround(settings_.groundHeight, p), mu, 1);
          for (size_t c = 0; c < settings_.colliders.size(); ++c)
            respond(dyn::probe(settings_.colliders[c], sc.colliderPose[c], p), settings_.colliders[c].friction,
                    2 + int32_t(c));
          stuckTo = touching;
          sc.vertexForce[v] = f;
          sc.vertexTouched[v] = f.squaredNorm() > 0 ? 1 : 0;
          if (!drag3.isZero(0)) {
            sc.vertexDrag[v] = drag3;
            sc.vertexTouched[v] |= 2;
          }
        }
      });
    });
  }
  if (grab_ && grab_->vertex >= 0 && grab_->vertex < static_cast<int32_t>(nVerts)) {
    const size_t v = grab_->vertex;
    const Tet& tet = m.tets[m.embedding.tet[v]];
    const auto& phi = m.embedding.weights[v];
    Vec3 p = Vec3::Zero();
    for (int k = 0; k < 4; ++k) p += phi[k] * state_.x[tet[k]];
    const double k = grab_->stiffness > 0 ? grab_->stiffness : 30.0 * m.totalMass;
    if (!sc.vertexTouched[v]) sc.vertexForce[v] = Vec3::Zero();
    sc.vertexForce[v] += k * (grab_->target - p);
    sc.vertexTouched[v] |= 1;  // keeps an implicit drag (2)
  }
  for (size_t v = 0; v < nVerts; ++v) {
    if (!sc.vertexTouched[v]) continue;
    const Tet& tet = m.tets[m.embedding.tet[v]];
    const auto& phi = m.embedding.weights[v];
    for (int k = 0; k < 4; ++k) sc.force[tet[k]] += phi[k] * sc.vertexForce[v];
    if (sc.vertexTouched[v] & 2) {
      // The implicit drag, lumped on each node as if the tetrahedron moved
      // with it; a node fixed to a bone (far heavier) takes it explicitly.
      Vec3 u = Vec3::Zero();
      for (int k = 0; k < 4; ++k) u += phi[k] * state_.v[tet[k]];
      for (int k = 0; k < 4; ++k) {
        const size_t n = size_t(tet[k]);
        if (m.nodeLink[n] >= 0) {
          sc.force[n] -= phi[k] * (sc.vertexDrag[v] * u);
        } else if (phi[k] != 0) {
          if (sc.nodeDrag[n].isZero(0)) sc.draggedNodes.push_back(int32_t(n));
          sc.nodeDrag[n] += std::abs(phi[k]) * sc.vertexDrag[v];
        }
      }
    }
  }
  auto t2 = Clock::now();
  times_.contact += seconds(t1, t2);

  // (c) Forces on fixed nodes act on their bones; damper reactions act on the
  // bones through the skinning Jacobian (eq. 18).
  const size_t nLinks = m.skeleton.links.size();
  sc.wrenches.assign(nLinks, dyn::LinkWrench{});
  for (size_t i = 0; i < nNodes; ++i) {
    const int32_t link = m.nodeLink[i];
    if (link >= 0) {
      sc.wrenches[link].force += sc.force[i];
      sc.wrenches[link].torque += (state_.x[i] - sc.links.pose[link].translation).cross(sc.force[i]);
    } else if (damping == DampingMode::Pose && sc.dampingForce[i].squaredNorm() > 0) {
      for (int32_t a = m.influenceOffsets[i]; a < m.influenceOffsets[i + 1]; ++a) {
        const Influence& f = m.influences[a];
        const Vec3 p = sc.skinRotation[f.link] * m.restNodes[i] + sc.skinTranslation[f.link];
        const Vec3 reaction = -f.weight * sc.dampingForce[i];
        sc.wrenches[f.link].force += reaction;
        sc.wrenches[f.link].torque += (p - sc.links.pose[f.link].translation).cross(reaction);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// (3) Integrate: the skeleton (stable PD, semi-implicit Euler), then the free
// nodes (symplectic Euler), then the fixed nodes follow the new bone poses.

void Liu2013Solver::integrate() {
  const Liu2013Model& m = *model_;
  Scratch& sc = *scratch_;
  const double h = settings_.dt;
  const Vec3 g = settings_.toggles.gravity ? Vec3(0, -9.81, 0) : Vec3::Zero();
  auto t0 = Clock::now();
  sc.skeleton.gravity = g;
  if (settings_.drive == DriveMode::Kinematic && !externalTargets_ && state_.policyWindow < 0) {
    const ClipPose pose = clipPose(m, settings_, sc.clipJointOfLink, state_.time + h);
    dyn::setPoseKinematic(sc.skeleton, state_.skeleton, pose.root, pose.rotation, h);
  } else {
    dyn::step(sc.skeleton, state_.skeleton, driveTargets(), sc.wrenches, h);
  }
  auto t1 = Clock::now();
  times_.skeleton += seconds(t0, t1);
  for (int32_t i : m.freeNodes) state_.v[i] += h * (sc.force[i] / m.nodeMass[i] + g);
  // The sticking drag the step cannot take explicitly: (m + h D) v' = m v*.
  for (int32_t i : sc.draggedNodes) {
    const double mass = m.nodeMass[size_t(i)];
    state_.v[i] = (mass * Mat3::Identity() + h * sc.nodeDrag[size_t(i)]).ldlt().solve(mass * state_.v[i]);
  }
  for (int32_t i : m.freeNodes) state_.x[i] += h * state_.v[i];
  state_.time += h;
  ++state_.steps;
  times_.integrate += seconds(t1, Clock::now());
}

void Liu2013Solver::step() {
  if (policy_) {
    // A new control window starts: its targets, from the state now.
    const int32_t w = policy_->windowAt(state_.time + 0.5 * settings_.dt);
    if (w != state_.policyWindow) {
      state_.policyTargets = w >= 0 ? policy_->targets(w, *this).rotation : std::vector<Quat>{};
      if (w >= 0 && state_.policyTargets.size() != model_->skeleton.links.size())
        throw std::invalid_argument("TargetPolicy: targets do not match the skeleton");
      state_.policyWindow = w;
    }
  }
  auto t0 = Clock::now();
  updateKinematics();   // (1) fixed nodes, fine surface, reference pose and velocity
  times_.kinematics += seconds(t0, Clock::now());
  accumulateForces();   // (2) PD torques, elastic and damping forces, contact, forces on bones
  integrate();          // (3) skeleton and soft body, semi-implicit Euler
  ++times_.steps;
  checkStability();
}

// ---------------------------------------------------------------------------

void Liu2013Solver::checkStability() {
  const Liu2013Model& m = *model_;
  Scratch& sc = *scratch_;
  int32_t worst = -1;
  double worstSpeed = 0;
  bool bad = false;
  for (int32_t i : m.freeNodes) {
    const double s = state_.v[i].squaredNorm();
    if (!std::isfinite(s) || !state_.x[i].allFinite()) {
      worst = i;
      worstSpeed = std::numeric_limits<double>::infinity();
      bad = true;
      break;
    }
    if (s > worstSpeed) {
      worstSpeed = s;
      worst = i;
    }
  }
  worstSpeed = std::sqrt(worstSpeed);
  if (!state_.skeleton.velocity.allFinite() || !state_.skeleton.rootPosition.allFinite()) bad = true;
  if (worstSpeed > settings_.maxSpeed) bad = true;
  state_.invertedRun.resize(m.tetCount(), 0);
  state_.invertedSteps = 0;
  int32_t longestElement = -1;
  if (sc.invertedCount > 0 || state_.longestInvertedRun > 0) {
    for (size_t t = 0; t < sc.inverted.size(); ++t) {
      int32_t& run = state_.invertedRun[t];
      run = sc.inverted[t] ? run + 1 : 0;
      if (run > state_.invertedSteps) {
        state_.invertedSteps = run;
        longestElement = static_cast<int32_t>(t);
      }
    }
  }
  state_.longestInvertedRun = std::max(state_.longestInvertedRun, state_.invertedSteps);
  const bool tooManyInverted = sc.invertedCount > settings_.maxInvertedFraction * m.tetCount() ||
                               (settings_.maxInvertedSteps > 0 && state_.invertedSteps > settings_.maxInvertedSteps);
  if (!bad && !tooManyInverted) {
    if (state_.steps % 200 == 0) lastGood_ = state_;
    return;
  }
  std::ostringstream msg;
  msg << "the simulation became unstable at t = " << state_.time << " s: ";
  auto boneOf = [&](int32_t node) { return node >= 0 ? m.jointNames[m.influences[m.influenceOffsets[node]].link] : std::string("?"); };
  if (bad) {
    msg << "node " << worst << " (near bone '" << boneOf(worst) << "') ";
    if (std::isfinite(worstSpeed)) msg << "moves at " << worstSpeed << " m/s";
    else msg << "has a non-finite position or velocity";
  } else {
    msg << sc.invertedCount << " of " << m.tetCount() << " elements are inverted";
    if (longestElement >= 0)
      msg << "; element " << longestElement << " near bone '" << m.jointNames[m.tetRegion[longestElement]]
          << "' for " << state_.invertedSteps << " steps";
    else
      for (size_t t = 0; t < sc.inverted.size(); ++t)
        if (sc.inverted[t]) {
          msg << " (first: element " << t << " near bone '" << m.jointNames[m.tetRegion[t]] << "')";
          break;
        }
  }
  msg << ". Likely cause: the time step (" << settings_.dt * 1000 << " ms) is too large for the stiffness"
      << " (a stable step is about " << m.stableStepEstimate * 1000 << " ms), or a gain or contact stiffness is too high."
      << " Kept the last good state (t = " << lastGood_.time << " s).";
  const double goodTime = lastGood_.time;
  state_ = lastGood_;
  throw SimulationError(msg.str(), goodTime);
}

void Liu2013Solver::setPose(const dyn::ArticulatedState& skeleton) {
  const Liu2013Model& m = *model_;
  state_ = restState();
  state_.skeleton = skeleton;
  updateKinematics();
  const Scratch& sc = *scratch_;
  state_.x = sc.reference;
  state_.v = sc.referenceVelocity;
  // Warm starts of the polar decompositions: F = F_p is the skinned shape,
  // whose rotation is near its region bone's; F_p F^T is then symmetric (R* = I).
  for (size_t t = 0; t < m.tetCount(); ++t) state_.rotation[t] = sc.skinRotation[size_t(m.tetRegion[t])];
  lastGood_ = state_;
}

bool Liu2013State::operator==(const Liu2013State& o) const {
  auto same = [](const std::vector<Quat>& a, const std::vector<Quat>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i].coeffs() != b[i].coeffs()) return false;
    return true;
  };
  return time == o.time && steps == o.steps && skeleton == o.skeleton && x == o.x && v == o.v && rotation == o.rotation &&
         plasticRotation == o.plasticRotation && invertedRun == o.invertedRun && invertedSteps == o.invertedSteps &&
         longestInvertedRun == o.longestInvertedRun && policyWindow == o.policyWindow && same(policyTargets, o.policyTargets) &&
         contactSource == o.contactSource && contactAnchor == o.contactAnchor;
}

// ---------------------------------------------------------------------------
// Reading the state.

std::vector<Vec3> Liu2013Solver::surfacePositions() const {
  const Liu2013Model& m = *model_;
  std::vector<Vec3> out(m.embedding.vertexCount());
  for (size_t v = 0; v < out.size(); ++v) {
    const Tet& tet = m.tets[m.embedding.tet[v]];
    const auto& phi = m.embedding.weights[v];
    Vec3 p = Vec3::Zero();
    for (int k = 0; k < 4; ++k) p += phi[k] * state_.x[tet[k]];
    out[v] = p;
  }
  return out;
}

std::vector<Transform> Liu2013Solver::jointPoses() const {
  return dyn::forwardKinematics(model_->skeleton, state_.skeleton).pose;
}

SimMeasures Liu2013Solver::measure() const {
  const Liu2013Model& m = *model_;
  SimMeasures out;
  out.time = state_.time;
  const double skelMass = dyn::totalMass(m.skeleton);
  Vec3 com = skelMass * dyn::centerOfMass(m.skeleton, state_.skeleton);
  double mass = skelMass;
  for (int32_t i : m.freeNodes) {
    com += m.nodeMass[i] * state_.x[i];
    mass += m.nodeMass[i];
  }
  com /= mass;
  out.centerOfMass = com;
  out.linearMomentum = dyn::linearMomentum(m.skeleton, state_.skeleton);
  out.angularMomentum = dyn::angularMomentum(m.skeleton, state_.skeleton, com);
  out.kineticEnergy = dyn::kineticEnergy(m.skeleton, state_.skeleton);
  for (int32_t i : m.freeNodes) {
    const Vec3 p = m.nodeMass[i] * state_.v[i];
    out.linearMomentum += p;
    out.angularMomentum += (state_.x[i] - com).cross(p);
    out.kineticEnergy += 0.5 * m.nodeMass[i] * state_.v[i].squaredNorm();
  }
  const Scratch& sc = *scratch_;
  if (sc.elementEnergy.size() == m.tetCount()) {
    for (double e : sc.elementEnergy) out.elasticEnergy += e;
    out.invertedTets = sc.invertedCount;
    out.invertedRunSteps = state_.invertedSteps;
    out.longestInvertedRunSteps = state_.longestInvertedRun;
  }
  return out;
}

void addRigidVelocity(const Liu2013Model& m, Liu2013State& s, const Vec3& linear, const Vec3& angular, const Vec3& about) {
  for (size_t i = 0; i < s.x.size(); ++i) s.v[i] += linear + angular.cross(s.x[i] - about);
  // The root carries the skeleton: its origin's velocity (world) and its angular velocity (link frame).
  const dyn::LinkKinematics k = dyn::forwardKinematics(m.skeleton, s.skeleton);
  const int off = m.skeleton.dofOffset(0);
  s.skeleton.velocity.segment<3>(off) += linear + angular.cross(k.pose[0].translation - about);
  s.skeleton.velocity.segment<3>(off + 3) += k.pose[0].rotation.conjugate() * angular;
}

namespace {
class Liu2013Snapshot final : public SimSnapshot {
 public:
  explicit Liu2013Snapshot(Liu2013State s) : state(std::move(s)) {}
  double time() const override { return state.time; }
  Liu2013State state;
};
}  // namespace

std::unique_ptr<SimSnapshot> Liu2013Solver::snapshot() const { return std::make_unique<Liu2013Snapshot>(state_); }

void Liu2013Solver::restore(const SimSnapshot& s) {
  const auto* snap = dynamic_cast<const Liu2013Snapshot*>(&s);
  if (!snap) throw std::invalid_argument("not a liu2013 snapshot");
  state_ = snap->state;
  lastGood_ = state_;
}

bool Liu2013Solver::push(const Vec3& velocity) {
  addRigidVelocity(*model_, state_, velocity, Vec3::Zero(), Vec3::Zero());
  return true;
}

std::string Liu2013Solver::setupJson() const {
  const Liu2013Model& m = *model_;
  return nlohmann::json{{"nodes", m.nodeCount()},
                        {"tets", m.tetCount()},
                        {"fixed_nodes", m.nodeCount() - m.freeNodes.size()},
                        {"joints", m.skeleton.links.size()},
                        {"surface_vertices", m.surfaceRest.size()},
                        {"mass_kg", m.totalMass},
                        {"mass_scaled_nodes", m.massScaledNodes},
                        {"added_mass_kg", m.addedMass},
                        {"colliders", settings_.colliders.size()},
                        {"ground_height", settings_.groundHeight},
                        {"friction", settings_.friction}}
      .dump();
}

}  // namespace sinew::liu2013
