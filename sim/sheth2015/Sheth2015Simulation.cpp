#include "sheth2015/Sheth2015Simulation.h"

#include "core/Error.h"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <random>

namespace sinew::sheth2015 {

namespace {

class ShethSnapshot final : public SimSnapshot {
 public:
  ShethSnapshot(double t, std::vector<WorldBody> b) : time_(t), bodies(std::move(b)) {}
  double time() const override { return time_; }
  double time_;
  std::vector<WorldBody> bodies;
};

const VolumeObject& volumeWithWeights(const Project& p) {
  for (const VolumeObject& v : p.volumes)
    if (v.weights && !v.weights->empty() && v.kind == VolumeKind::Cage) return v;
  for (const VolumeObject& v : p.volumes)
    if (v.weights && !v.weights->empty()) return v;
  throw InputError("sheth2015", "the project has no volume with skinning weights to decompose into deformable bones "
                                "(build one with `sinew-cli rig PROJECT -o PROJECT`)");
}

bool finite(const ReducedBodyState& s) {
  return s.t.allFinite() && s.v.allFinite() && s.L.allFinite() && s.q.allFinite() && s.qDot.allFinite() &&
         s.rotation.coeffs().allFinite();
}

}  // namespace

Sheth2015Options optionsFor(const Project& project) {
  Sheth2015Options o;
  const SimulationSetup& s = project.simulation;
  if (s.flesh) {
    o.decompose.material.youngsModulus = s.flesh->youngsModulus;
    o.decompose.material.poissonRatio = s.flesh->poissonRatio;
    o.decompose.material.density = s.flesh->density;
  }
  o.groundHeight = s.groundHeight.value_or(0.0);
  o.friction = s.groundFriction.value_or(o.friction);
  o.colliders = s.colliders;
  return o;
}

Sheth2015Simulation::Sheth2015Simulation(const Project& project, const Sheth2015Options& options,
                                         const std::function<void(double)>& progress)
    : options_(options) {
  if (!project.skeleton) throw InputError("sheth2015", "the project has no skeleton");
  if (!(options_.dt > 0 && options_.dt <= 0.1)) throw InputError("sheth2015", "the time step must lie in (0, 0.1] s");
  if (options_.copies < 1 || options_.copies > 1000) throw InputError("sheth2015", "copies must lie in [1, 1000]");
  const VolumeObject& volume = volumeWithWeights(project);
  skeleton_ = project.skeleton->skeleton;
  const std::vector<Vec3> heads = skeleton_.restPositions();
  std::vector<BoneInfo> infos;
  for (size_t j = 0; j < skeleton_.joints.size(); ++j) infos.push_back({skeleton_.joints[j].name, skeleton_.joints[j].parent, heads[j]});
  // The volume's weights name its bones; joints of the skeleton it lacks have none.
  bones_ = decompose(volume.mesh, *volume.weights, infos, options_.decompose, progress);
  mesh_ = volume.mesh;
  if (const MeshObject* surface = project.findMesh(volume.surface); surface && volume.embedding.vertexCount() == surface->mesh.positions.size()) {
    surface_ = surface->id;
    embedding_ = volume.embedding;
    triangles_ = surface->mesh.triangles;
  }
  jointRest_ = skeleton_.worldRest();
  jointBody_.assign(skeleton_.joints.size(), -1);
  for (size_t j = 0; j < skeleton_.joints.size(); ++j) {
    // A joint moves with its own bone's body, or its nearest ancestor's.
    for (int32_t k = int32_t(j); k >= 0 && jointBody_[j] < 0; k = skeleton_.joints[size_t(k)].parent)
      jointBody_[j] = bones_.mergedInto[size_t(k)];
    if (jointBody_[j] < 0) jointBody_[j] = 0;
  }

  WorldSettings ws;
  ws.step.dt = options_.dt;
  ws.sweeps = options_.sweeps;
  ws.postStabilization = options_.postStabilization;
  ws.groundHeight = options_.groundHeight;
  ws.friction = ws.surfaceFriction = options_.friction;
  ws.colliders = options_.colliders;
  ws.bodyContacts = options_.characterContacts;
  world_ = World(ws);
  std::mt19937 rng(options_.seed);
  std::normal_distribution<double> gauss(0, 1);
  Aabb box;
  for (const Vec3& x : volume.mesh.nodes) box.add(x);
  for (int c = 0; c < options_.copies; ++c) {
    const int row = c / std::max(1, options_.copiesPerRow), col = c % std::max(1, options_.copiesPerRow);
    const Vec3 size = box.max - box.min;
    const Vec3 offset((size.x() + options_.copyGap) * (col - 0.5 * (std::min(options_.copies, options_.copiesPerRow) - 1)),
                      (size.y() + options_.copyGap) * row, 0.0);
    copyOffset_.push_back(offset);
    const int32_t first = addToWorld(bones_, world_);
    for (size_t k = 0; k < bones_.models.size(); ++k) {
      WorldBody& b = world_.bodies()[size_t(first) + k];
      b.state.t += offset;
      if (options_.excite > 0)
        for (int m = 0; m < b.model->modeCount(); ++m) b.state.q[m] = options_.excite * gauss(rng);
      updateAngularVelocity(*b.model, b.state);
    }
  }
  restBodies_ = world_.bodies();
  driven_.assign(bones_.models.size(), 0);
  lastGood_ = world_.bodies();
  applyToggles();
}

void Sheth2015Simulation::applyToggles() {
  WorldSettings& ws = world_.settings();
  ws.step.gravity = toggles_.gravity ? Vec3(0, -9.81, 0) : Vec3::Zero();
  ws.ground = toggles_.contact;
  ws.bodyContacts = toggles_.contact && options_.characterContacts;
  ws.colliders = toggles_.contact ? options_.colliders : std::vector<Collider>{};
}

void Sheth2015Simulation::setToggles(const SimToggles& t) {
  toggles_ = t;
  applyToggles();
}

void Sheth2015Simulation::setMotion(std::optional<MotionClip> clip, const std::vector<std::string>& names, bool loop,
                                    double blendSeconds) {
  if (!clip) {
    clip_.reset();
    for (size_t c = 0; c < copies(); ++c)
      for (size_t k = 0; k < bodiesPerCopy(); ++k) world_.bodies()[c * bodiesPerCopy() + k].kinematic = false;
    driven_.assign(bodiesPerCopy(), 0);
    return;
  }
  if (names.empty()) throw InputError("sheth2015", "name the bones that follow the clip (the others are simulated)");
  std::vector<uint8_t> driven(bodiesPerCopy(), 0);
  for (const std::string& name : names) {
    const int32_t j = skeleton_.find(name);
    if (j < 0 || bones_.mergedInto[size_t(j)] < 0) {
      std::string known;
      for (const std::string& b : bones_.bodyNames) known += (known.empty() ? "" : ", ") + b;
      throw InputError("sheth2015", "no deformable bone called '" + name + "' (bones: " + known + ")");
    }
    driven[size_t(bones_.mergedInto[size_t(j)])] = 1;
  }
  bool matched = false;
  for (const auto& track : clip->joints) matched = matched || skeleton_.find(track.name) >= 0;
  if (!matched) throw InputError("clip '" + clip->name + "'", "none of its joints is one of the skeleton's");
  clip_ = std::move(clip);
  loop_ = loop;
  driven_ = driven;
  motionStart_ = time_;
  blendSeconds_ = std::max(0.0, blendSeconds);
  blendFrom_.clear();
  for (size_t b = 0; b < world_.bodies().size(); ++b) blendFrom_.push_back(bodyTransform(b));
  for (size_t c = 0; c < copies(); ++c)
    for (size_t k = 0; k < bodiesPerCopy(); ++k) world_.bodies()[c * bodiesPerCopy() + k].kinematic = driven_[k] != 0;
}

// Kinematic bodies at their clip pose of time t (blended in from where they
// were when the motion was set), with the velocities that bring them there.
void Sheth2015Simulation::driveKinematic(double t) {
  if (!clip_) return;
  const std::vector<Transform> pose = skeletonPoseFromClip(skeleton_, *clip_, t, loop_);
  const double h = options_.dt;
  const double x = blendSeconds_ > 0 ? std::clamp((t - motionStart_) / blendSeconds_, 0.0, 1.0) : 1.0;
  const double a = x * x * (3 - 2 * x);  // smoothstep
  for (size_t k = 0; k < bodiesPerCopy(); ++k) {
    if (!driven_[k]) continue;
    // The body's joint: the bone it is named after.
    const int32_t j = skeleton_.find(bones_.bodyNames[k]);
    const Transform motion = pose[size_t(j)] * jointRest_[size_t(j)].inverse();  // rest -> clip, world
    for (size_t c = 0; c < copies(); ++c) {
      WorldBody& b = world_.bodies()[c * bodiesPerCopy() + k];
      const Transform& from = blendFrom_[c * bodiesPerCopy() + k];
      const Vec3 clipCentre = motion.apply(b.model->restCenter) + copyOffset_[c];
      const Vec3 t1 = (1 - a) * from.apply(b.model->restCenter) + a * clipCentre;
      const Quat r1 = from.rotation.slerp(a, motion.rotation).normalized();
      b.state.v = (t1 - b.state.t) / h;
      const Eigen::AngleAxisd turn(r1 * b.state.rotation.conjugate());
      b.state.t = t1;
      b.state.rotation = r1;
      b.state.qDot.setZero();
      b.state.L.setZero();
      updateAngularVelocity(*b.model, b.state);
      b.state.omegaR = turn.angle() * turn.axis() / h;
    }
  }
}

void Sheth2015Simulation::step() {
  driveKinematic(time_ + options_.dt);
  // The mouse: an impulse on the proxy site nearest the grabbed vertex,
  // a damped spring of the grab's stiffness (default: the character's weight
  // per 10 cm), applied on the velocities before the step.
  if (grab_ && surface_ != 0 && grab_->vertex >= 0 && size_t(grab_->vertex) < embedding_.vertexCount()) {
    const std::vector<Vec3> surface = surfacePositions(0);
    const Vec3 x = surface[size_t(grab_->vertex)];
    const size_t skin = 0;  // copy 0's proxy
    size_t best = 0;
    const std::vector<Vec3> sites = world_.sitePositions(skin);
    for (size_t s = 1; s < sites.size(); ++s)
      if ((sites[s] - x).squaredNorm() < (sites[best] - x).squaredNorm()) best = s;
    double mass = 0;
    for (size_t k = 0; k < bodiesPerCopy(); ++k) mass += world_.bodies()[k].model->totalMass;
    const double k = grab_->stiffness > 0 ? grab_->stiffness : mass * 9.81 / 0.1;
    Vec3 j = options_.dt * k * (grab_->target - x);
    const double cap = 0.5 * mass;  // at most half a metre per second per step for the whole character
    if (j.norm() > cap) j *= cap / j.norm();
    world_.applySiteImpulse(skin, best, j);
  }
  world_.step();
  time_ += options_.dt;
  for (const WorldBody& b : world_.bodies())
    if (!finite(b.state) || b.state.v.norm() > 1e3) {
      world_.bodies() = lastGood_;
      const double t = lastGoodTime_;
      time_ = t;
      throw SimulationError("sheth2015: body '" + b.model->name + "' blew up (non-finite or faster than 1 km/s); back at t = " +
                                std::to_string(t) + " s. Try a smaller time step or stiffer joints.",
                            t);
    }
  if (int64_t(std::lround(time_ / options_.dt)) % 30 == 0) lastGood_ = world_.bodies(), lastGoodTime_ = time_;
}

std::vector<Vec3> Sheth2015Simulation::nodePositions(size_t copy) const {
  const size_t first = copy * bodiesPerCopy();
  const Skin& skin = bones_.skin;
  std::vector<Vec3> x(skin.siteCount(), Vec3::Zero());
  for (size_t s = 0; s < x.size(); ++s)
    for (int32_t i = skin.offsets[s]; i < skin.offsets[s + 1]; ++i) {
      const WorldBody& b = world_.bodies()[first + size_t(skin.body[size_t(i)])];
      x[s] += skin.weight[size_t(i)] * particlePosition(*b.model, b.state, size_t(skin.particle[size_t(i)]));
    }
  return x;
}

std::vector<Vec3> Sheth2015Simulation::surfacePositions(size_t copy) const {
  if (surface_ == 0) return {};
  return embeddedPositions(embedding_, mesh_, nodePositions(copy));
}

Transform Sheth2015Simulation::bodyTransform(size_t body) const {
  const WorldBody& b = world_.bodies()[body];
  // x = R (x_rest - c) + t for the rigid part: rotation R, translation t - R c.
  return {b.state.rotation, b.state.t - b.state.rotation * b.model->restCenter};
}

std::vector<Transform> Sheth2015Simulation::jointPoses(size_t copy) const {
  std::vector<Transform> out(jointRest_.size());
  for (size_t j = 0; j < out.size(); ++j)
    out[j] = bodyTransform(copy * bodiesPerCopy() + size_t(jointBody_[j])) * jointRest_[j];
  return out;
}

std::vector<Vec3> Sheth2015Simulation::modeShape(size_t body, int mode, double amplitude) const {
  if (body >= bodiesPerCopy()) throw InputError("sheth2015", "there is no body " + std::to_string(body));
  const ReducedBodyModel& m = *bones_.models[body];
  if (mode < 0 || mode >= m.modeCount())
    throw InputError("body '" + m.name + "'", "has modes 0.." + std::to_string(m.modeCount() - 1) + ", not " + std::to_string(mode));
  // The rest skin of copy 0 with only this body's q set.
  const Skin& skin = bones_.skin;
  std::vector<Vec3> x(skin.siteCount(), Vec3::Zero());
  for (size_t s = 0; s < x.size(); ++s)
    for (int32_t i = skin.offsets[s]; i < skin.offsets[s + 1]; ++i) {
      const size_t k = size_t(skin.body[size_t(i)]), p = size_t(skin.particle[size_t(i)]);
      const ReducedBodyModel& bm = *bones_.models[k];
      Vec3 local = bm.x0[p];
      if (k == body) local += amplitude * bm.S.block<3, 1>(Eigen::Index(3 * p), mode);
      x[s] += skin.weight[size_t(i)] * (local + bm.restCenter);
    }
  if (surface_ == 0) return x;
  return embeddedPositions(embedding_, mesh_, x);
}

SimMeasures Sheth2015Simulation::measure() const {
  SimMeasures out;
  out.time = time_;
  double mass = 0;
  Vec3 com = Vec3::Zero();
  for (const WorldBody& b : world_.bodies())
    if (!b.kinematic) mass += b.model->totalMass, com += b.model->totalMass * b.state.t;
  if (mass > 0) com /= mass;
  out.centerOfMass = com;
  out.linearMomentum = world_.linearMomentum();
  // About the centre of mass: L_origin - c x p.
  out.angularMomentum = world_.angularMomentum() - com.cross(out.linearMomentum);
  for (const WorldBody& b : world_.bodies()) {
    if (b.kinematic) continue;
    const ReducedBodyModel& m = *b.model;
    for (size_t i = 0; i < m.particleCount(); ++i) out.kineticEnergy += 0.5 * m.mass[i] * particleVelocity(m, b.state, i).squaredNorm();
    if (m.modeCount() > 0) out.elasticEnergy += 0.5 * b.state.q.dot(m.Kr * b.state.q);
    const std::vector<Vec3> x = particlePositions(m, b.state);
    for (const Tet& t : m.tets) {
      const Vec3 a = x[size_t(t[0])];
      if ((x[size_t(t[1])] - a).cross(x[size_t(t[2])] - a).dot(x[size_t(t[3])] - a) <= 0) ++out.invertedTets;
    }
  }
  return out;
}

std::unique_ptr<SimSnapshot> Sheth2015Simulation::snapshot() const {
  return std::make_unique<ShethSnapshot>(time_, world_.bodies());
}

void Sheth2015Simulation::restore(const SimSnapshot& s) {
  const auto* v = dynamic_cast<const ShethSnapshot*>(&s);
  if (!v || v->bodies.size() != world_.bodies().size()) throw std::invalid_argument("sheth2015: snapshot of another solver");
  world_.bodies() = v->bodies;
  time_ = v->time_;
  lastGood_ = v->bodies;
  lastGoodTime_ = time_;
}

void Sheth2015Simulation::setDrive(const Drive& drive) {
  if (drive.mode == DriveMode::Hold || !drive.clip) {
    if (clip_) setMotion(std::nullopt, {});
    return;
  }
  const std::vector<std::string> names = drive.drivenBones.empty() ? std::vector<std::string>{bones_.bodyNames.front()}
                                                                    : drive.drivenBones;
  if (clip_ && clip_->name == drive.clip->name && drivenNames_ == names) return;
  setMotion(*drive.clip, names, drive.loop);
  drivenNames_ = names;
}

std::vector<ModalBodyInfo> Sheth2015Simulation::modalBodies() const {
  std::vector<ModalBodyInfo> out;
  for (size_t k = 0; k < bones_.models.size(); ++k) {
    ModalBodyInfo b;
    b.name = k < bones_.bodyNames.size() ? bones_.bodyNames[k] : bones_.models[k]->name;
    const Eigen::VectorXd& f = bones_.models[k]->frequencies;
    b.frequencies.assign(f.data(), f.data() + f.size());
    out.push_back(std::move(b));
  }
  return out;
}

std::string Sheth2015Simulation::setupJson() const {
  return nlohmann::json{{"bodies", bones_.models.size()},
                        {"body_names", bones_.bodyNames},
                        {"particles", bones_.particleCount()},
                        {"volume_nodes", bones_.skin.siteCount()},
                        {"joints", bones_.joints.size()},
                        {"proxy_sites", bones_.proxyNodes.size()},
                        {"modes", options_.decompose.modes},
                        {"threshold", options_.decompose.threshold},
                        {"joints_per_overlap", options_.decompose.jointsPerOverlap},
                        {"copies", options_.copies},
                        {"excite", options_.excite},
                        {"sweeps", options_.sweeps},
                        {"surface_vertices", surfacePositions().size()},
                        {"colliders", options_.colliders.size()},
                        {"ground_height", options_.groundHeight},
                        {"friction", options_.friction}}
      .dump();
}

}  // namespace sinew::sheth2015
