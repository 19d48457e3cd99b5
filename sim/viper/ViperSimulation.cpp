#include "viper/ViperSimulation.h"

#include "core/Error.h"
#include <nlohmann/json.hpp>

#include <cmath>

namespace sinew::viper {

ViperInput viperInputFromProject(const Project& project, const ViperOptions& options) {
  if (project.rodBodies.empty())
    throw InputError("viper", "the project has no rod bodies: add a muscle between two bones and viperize it (the Rig dock's Muscles section, or sinew-cli add-muscle --viperize), or open a VIPER example (sinew-cli example octopus)");
  ViperInput in;
  const Skeleton* skeleton = project.skeleton ? &project.skeleton->skeleton : nullptr;
  const std::vector<Transform> rest = skeleton ? skeleton->worldRest() : std::vector<Transform>{};
  auto joint = [&](const std::string& bone, const std::string& who) -> int32_t {
    if (bone.empty()) return -1;
    const int32_t j = skeleton ? skeleton->find(bone) : -1;
    if (j < 0) throw InputError("viper", who + " attaches to bone '" + bone + "', which the skeleton does not have");
    return j;
  };
  for (size_t bi = 0; bi < project.rodBodies.size(); ++bi) {
    const RodBodyObject& b = project.rodBodies[bi];
    const std::string who = "rod body '" + b.name + "'";
    if (b.rods.empty())
      throw InputError("viper", who + " has no rods yet: viperize it first (sinew-cli viperize PROJECT --muscle '" + b.name + "')");
    const int32_t firstRod = int32_t(in.rods.size());
    in.bodyFirstRod.push_back(firstRod);
    // A body without self-collision (a muscle) is one collision group.
    const int32_t bodyGroup = b.selfCollision ? -1 : 1000000 + int32_t(bi);
    for (size_t k = 0; k < b.rods.size(); ++k) {
      RodInput r;
      r.name = b.name + "." + std::to_string(k);
      r.nodes = b.rods[k].nodes;
      r.radii = b.rods[k].radii;
      r.contractile = b.rods[k].contractile;
      r.material = b.material;
      r.group = bodyGroup;
      in.rods.push_back(std::move(r));
    }
    for (const auto& bundle : b.bundles) {
      BundleInput bi2;
      for (const auto& [rod, node] : bundle) bi2.members.push_back({firstRod + rod, node});
      in.bundles.push_back(std::move(bi2));
    }
    std::vector<std::vector<uint8_t>> pinned(b.rods.size());
    for (size_t k = 0; k < b.rods.size(); ++k) pinned[k].assign(b.rods[k].nodes.size(), 0);
    for (const RodPin& p : b.pins) {
      if (p.rod < 0 || size_t(p.rod) >= b.rods.size() || p.node < 0 || size_t(p.node) >= b.rods[size_t(p.rod)].nodes.size())
        throw InputError("viper", who + " pins rod " + std::to_string(p.rod) + ", node " + std::to_string(p.node) + ", which does not exist");
      const int32_t j = joint(p.bone, who);
      const Vec3 x = b.rods[size_t(p.rod)].nodes[size_t(p.node)];
      in.carried.push_back({firstRod + p.rod, p.node, j, j < 0 ? x : rest[size_t(j)].inverse().apply(x)});
      pinned[size_t(p.rod)][size_t(p.node)] = 1;
    }
    const int32_t a = joint(b.originBone, who), c = joint(b.insertionBone, who);
    if (a >= 0 && c >= 0)
      for (size_t k = 0; k < b.rods.size(); ++k) {
        const size_t n = b.rods[k].nodes.size();
        for (size_t i = 0; i < n; ++i)
          if (!pinned[k][i]) in.blends.push_back({firstRod + int32_t(k), int32_t(i), a, c, double(i) / double(n - 1)});
      }
  }
  in.bodyFirstRod.push_back(int32_t(in.rods.size()));
  if (options.boneColliders && skeleton)
    for (size_t j = 0; j < skeleton->size(); ++j) {
      const BoneShape& shape = skeleton->joints[j].bone;
      if (shape.kind != BoneShapeKind::Capsule || (shape.end - shape.start).norm() < 1e-6 || !(shape.radius > 0)) continue;
      RodInput r;
      r.name = "bone " + skeleton->joints[j].name;
      r.nodes = {rest[j].apply(shape.start), rest[j].apply(shape.end)};
      r.radii = {shape.radius, shape.radius};
      const int32_t rod = int32_t(in.rods.size());
      in.rods.push_back(std::move(r));
      in.carried.push_back({rod, 0, int32_t(j), shape.start});
      in.carried.push_back({rod, 1, int32_t(j), shape.end});
      ++in.boneRodCount;
    }
  return in;
}

namespace {

class ViperSnapshot final : public SimSnapshot {
 public:
  explicit ViperSnapshot(RodState s) : state(std::move(s)) {}
  double time() const override { return state.time; }
  RodState state;
};

}  // namespace

ViperSimulation::ViperSimulation(const Project& project, const ViperOptions& options) : options_(options) {
  if (!(options.dt > 0) || !std::isfinite(options.dt)) throw InputError("viper", "the time step must be positive");
  if (options.iterations < 1) throw InputError("viper", "iterations must be at least 1");
  input_ = viperInputFromProject(project, options);
  if (project.skeleton) skeleton_ = project.skeleton->skeleton;
  for (const Transform& t : skeleton_.worldRest()) restInverse_.push_back(t.inverse());
  const auto model = buildRodModel(input_.rods, input_.bundles);
  base_.dt = options.dt;
  base_.iterations = options.iterations;
  base_.relaxation = options.relaxation;
  base_.damping = options.damping;
  base_.ground = options.ground;
  base_.groundHeight = options.groundHeight;
  base_.friction = options.friction;
  base_.threads = options.threads;
  base_.pinned.assign(model->nodeCount(), 0);
  for (const ViperInput::Carried& c : input_.carried) base_.pinned[size_t(model->first[size_t(c.rod)] + c.node)] = 1;
  solver_ = std::make_unique<RodSolver>(model, base_);
  for (size_t b = 0; b < project.rodBodies.size(); ++b) {
    const RodBodyObject& body = project.rodBodies[b];
    activation_.push_back(body.activation);
    Body out;
    if (body.surface) {
      const MeshObject* mesh = project.findMesh(body.surface);
      if (!mesh) throw InputError("viper", "rod body '" + body.name + "' skins a mesh that is not in the project");
      std::vector<int32_t> segments;
      for (int32_t k = input_.bodyFirstRod[b]; k < input_.bodyFirstRod[b + 1]; ++k)
        for (int32_t s = model->first[size_t(k)] - k; s < model->first[size_t(k) + 1] - k - 1; ++s) segments.push_back(s);
      out.surface = body.surface;
      out.skin = buildRodSkin(mesh->mesh, *model, segments);
    }
    bodies_.push_back(std::move(out));
  }
  applyActivation();
  // Bones at their poses of t = 0 (a clip may start away from the rest pose).
  lastGood_ = solver_->state();
  for (size_t b = 0; b < bodies_.size() && triangles_.empty(); ++b)
    if (bodies_[b].surface) triangles_ = project.findMesh(bodies_[b].surface)->mesh.triangles;
  // The pills' topology: consecutive nodes of every rod; the bones' capsules come last.
  const auto bodyRods = size_t(input_.bodyFirstRod.back());
  layout_.bodyNodes = bodyNodeEnd();
  const auto firstBone = int32_t(layout_.bodyNodes);
  for (size_t k = 0; k < model->rodCount(); ++k)
    for (int32_t i = model->first[k]; i + 1 < model->first[k + 1]; ++i) {
      if (k < bodyRods) layout_.bodySegments.push_back({i, i + 1});
      else layout_.boneSegments.push_back({i - firstBone, i + 1 - firstBone});  // numbered from the first bone node
    }
  layout_.restRadius = model->restRadius;
}

void ViperSimulation::setDrive(const Drive& drive) {
  if (drive.mode == DriveMode::Hold || !drive.clip) {
    if (clip_) setMotion(std::nullopt);
    return;
  }
  if (clip_ && clip_->name == drive.clip->name && loop_ == drive.loop) return;
  setMotion(*drive.clip, drive.loop);
}

void ViperSimulation::setMuscleActivation(double activation) {
  for (size_t b = 0; b < bodyCount(); ++b) setActivation(b, activation);
}

std::vector<std::pair<ObjectId, std::vector<Vec3>>> ViperSimulation::otherSurfaces() const {
  std::vector<std::pair<ObjectId, std::vector<Vec3>>> all = surfaces();
  if (!all.empty()) all.erase(all.begin());  // the first is surfaceMesh()
  return all;
}

RodNodes ViperSimulation::rodNodes() const {
  const RodState& state = solver_->state();
  RodNodes n;
  n.centres = state.c;
  n.radii.resize(state.c.size());
  for (size_t i = 0; i < state.c.size(); ++i) n.radii[i] = state.s[i] * model().restRadius[i];
  return n;
}

size_t ViperSimulation::bodyNodeEnd() const { return size_t(model().first[size_t(input_.bodyFirstRod.back())]); }

std::vector<Transform> ViperSimulation::posesAt(double t) const {
  if (skeleton_.size() == 0) return {};
  if (clip_) return skeletonPoseFromClip(skeleton_, *clip_, t, loop_);
  return skeleton_.worldRest();
}

void ViperSimulation::setMotion(std::optional<MotionClip> clip, bool loop) {
  if (clip && skeleton_.size() == 0) throw InputError("viper", "a motion needs the project's skeleton");
  if (clip) (void)skeletonPoseFromClip(skeleton_, *clip, 0.0, loop);  // throws when no joint matches
  clip_ = std::move(clip);
  loop_ = loop;
}

void ViperSimulation::setActivation(size_t body, double a) {
  if (!(a >= 0 && a <= 1)) throw InputError("viper", "activation must lie in [0, 1]");
  activation_.at(body) = a;
  applyActivation();
}

void ViperSimulation::applyActivation() {
  RodSettings& s = solver_->settings();
  s.activation.assign(model().rodCount(), 0.0);
  for (size_t b = 0; b < activation_.size(); ++b)
    for (int32_t k = input_.bodyFirstRod[b]; k < input_.bodyFirstRod[b + 1]; ++k) s.activation[size_t(k)] = activation_[b];
}

void ViperSimulation::setToggles(const SimToggles& t) {
  toggles_ = t;
  RodSettings& s = solver_->settings();
  s.gravity = t.gravity ? base_.gravity : Vec3::Zero();
  s.collisions = t.contact;
  s.ground = t.contact && base_.ground;
}

void ViperSimulation::step() {
  const RodModel& m = model();
  const double h = options_.dt, t0 = time();
  const std::vector<Transform> p0 = posesAt(t0), p1 = posesAt(t0 + h);
  // Kinematic first (Section 7): the bones and the nodes they carry.
  for (const ViperInput::Carried& c : input_.carried)
    solver_->moveNode(size_t(m.first[size_t(c.rod)] + c.node), c.joint < 0 ? c.local : p1[size_t(c.joint)].apply(c.local));
  // Section 8.2: the muscles' nodes start from the bones' motion.
  std::vector<Vec3> offset;
  const RodState& x = solver_->state();
  if (!input_.blends.empty() && !p0.empty()) {
    offset.assign(m.nodeCount(), Vec3::Zero());
    std::vector<Transform> delta(p0.size());
    for (size_t j = 0; j < p0.size(); ++j) delta[j] = p1[j] * p0[j].inverse();
    for (const ViperInput::Blend& b : input_.blends) {
      const size_t i = size_t(m.first[size_t(b.rod)] + b.node);
      offset[i] = (1 - b.weightB) * (delta[size_t(b.jointA)].apply(x.c[i]) - x.c[i]) +
                  b.weightB * (delta[size_t(b.jointB)].apply(x.c[i]) - x.c[i]);
    }
  }
  // The mouse: the grabbed vertex's heaviest pill is pulled towards the target.
  if (grab_ && !bodies_.empty()) {
    const Body* body = nullptr;
    for (const Body& b : bodies_)
      if (b.surface) { body = &b; break; }
    if (body && grab_->vertex >= 0 && size_t(grab_->vertex) < body->skin.vertexCount()) {
      const size_t v = size_t(grab_->vertex);
      int32_t best = body->skin.offsets[v];
      for (int32_t k = body->skin.offsets[v]; k < body->skin.offsets[v + 1]; ++k)
        if (body->skin.weight[size_t(k)] > body->skin.weight[size_t(best)]) best = k;
      const size_t segment = size_t(body->skin.segment[size_t(best)]);
      const std::vector<Vec3> now = skinnedPositions(body->skin, m, x);
      const Vec3 pull = grab_->target - now[v];
      if (offset.empty()) offset.assign(m.nodeCount(), Vec3::Zero());
      for (size_t i : {size_t(m.segmentNode[segment]), size_t(m.segmentNode[segment]) + 1}) {
        const double fraction = grab_->stiffness > 0 ? std::min(1.0, grab_->stiffness * h * h / m.nodeMass[i]) : 0.1;
        offset[i] += fraction * pull;
      }
    }
  }
  if (!offset.empty()) solver_->setPredictionOffset(std::move(offset));
  solver_->step();
  const RodState& s = solver_->state();
  for (size_t i = 0; i < s.c.size(); ++i)
    if (!s.c[i].allFinite() || !std::isfinite(s.s[i]) || !(s.s[i] > 0)) {
      size_t rod = 0;
      while (m.first[rod + 1] <= int32_t(i)) ++rod;
      const std::string what = "viper: rod '" + m.names[rod] + "', node " + std::to_string(i - size_t(m.first[rod])) +
                               (std::isfinite(s.s[i]) && s.c[i].allFinite() ? " collapsed (scale " + std::to_string(s.s[i]) + ")"
                                                                           : " became non-finite") +
                               " at t = " + std::to_string(s.time) + " s (a smaller time step or more iterations may help)";
      solver_->setState(lastGood_);
      throw SimulationError(what, lastGood_.time);
    }
  lastGood_ = s;
}

ObjectId ViperSimulation::surfaceMesh() const {
  for (const Body& b : bodies_)
    if (b.surface) return b.surface;
  return 0;
}

std::vector<Vec3> ViperSimulation::surfacePositions() const {
  for (const Body& b : bodies_)
    if (b.surface) return skinnedPositions(b.skin, model(), solver_->state());
  return {};
}

std::vector<std::pair<ObjectId, std::vector<Vec3>>> ViperSimulation::surfaces() const {
  std::vector<std::pair<ObjectId, std::vector<Vec3>>> out;
  for (const Body& b : bodies_)
    if (b.surface) out.emplace_back(b.surface, skinnedPositions(b.skin, model(), solver_->state()));
  return out;
}

SimMeasures ViperSimulation::measure() const {
  const RodModel& m = model();
  const RodState& s = solver_->state();
  SimMeasures out;
  out.time = s.time;
  const size_t end = bodyNodeEnd();
  double mass = 0;
  for (size_t i = 0; i < end; ++i) {
    mass += m.nodeMass[i];
    out.centerOfMass += m.nodeMass[i] * s.c[i];
    out.linearMomentum += m.nodeMass[i] * s.cDot[i];
    // Translation and the scale's own kinetic energy (the disc's second moment, eq. 23).
    out.kineticEnergy += 0.5 * m.nodeMass[i] * (s.cDot[i].squaredNorm() + 0.5 * m.restRadius[i] * m.restRadius[i] * s.sDot[i] * s.sDot[i]);
  }
  if (mass > 0) out.centerOfMass /= mass;
  for (size_t i = 0; i < end; ++i) out.angularMomentum += m.nodeMass[i] * (s.c[i] - out.centerOfMass).cross(s.cDot[i]);
  const size_t endSegment = end - size_t(input_.bodyFirstRod.back());
  for (size_t j = 0; j < endSegment; ++j) {
    out.angularMomentum += m.segmentInertia[j] * s.omega[j];
    out.kineticEnergy += 0.5 * m.segmentInertia[j] * s.omega[j].squaredNorm();
  }
  return out;
}

std::unique_ptr<SimSnapshot> ViperSimulation::snapshot() const { return std::make_unique<ViperSnapshot>(solver_->state()); }

void ViperSimulation::restore(const SimSnapshot& s) {
  const auto* v = dynamic_cast<const ViperSnapshot*>(&s);
  if (!v) throw std::invalid_argument("viper: snapshot of another solver");
  solver_->setState(v->state);
  lastGood_ = v->state;
}

std::string ViperSimulation::setupJson() const {
  const RodModel& m = solver_->model();
  const auto boneRods = size_t(input_.boneRodCount);
  return nlohmann::json{{"rod_bodies", bodyCount()},
                        {"rods", m.rodCount() - boneRods},
                        {"bone_pills", boneRods},
                        {"nodes", bodyNodeEnd()},
                        {"pills", m.segmentCount() - boneRods},
                        {"bundles", m.bundles.size()},
                        {"pinned_nodes", input_.carried.size()},
                        {"iterations", options_.iterations},
                        {"surface_vertices", surfacePositions().size()},
                        {"activation", activation_},
                        {"colliders", 0},
                        {"ground_height", options_.groundHeight},
                        {"friction", options_.friction}}
      .dump();
}

}  // namespace sinew::viper
