#include "li2019/Li2019Simulation.h"

#include "core/Error.h"
#include <nlohmann/json.hpp>
#include "volume/RegionMesh.h"

#include <algorithm>
#include <cmath>

namespace sinew::li2019 {

const VolumeObject& conformingVolume(const Project& project, bool live) {
  for (const VolumeObject& v : project.volumes)
    if (v.kind == VolumeKind::Conforming && v.live == live) return v;
  if (live)
    throw InputError("li2019", "the project has no live conforming mesh: build it with `sinew-cli rig PROJECT "
                               "--live-vertices 400 -o PROJECT` or the Rig panel's Build Live Mesh, or set live to 0");
  throw InputError("li2019", "the project has no conforming volume (one region per bone): build it with "
                             "`sinew-cli rig PROJECT --regions -o PROJECT` or the Rig panel's Build Conforming Mesh");
}

Input inputFromProject(const Project& project, bool live) {
  if (!project.skeleton) throw InputError("li2019", "the project has no skeleton");
  const VolumeObject& v = conformingVolume(project, live);
  return {v.mesh, v.bones, regionJoints(project.skeleton->skeleton, v.bones)};
}

ModelOptions modelOptionsFor(const SimulationSetup& setup) {
  ModelOptions o;
  if (setup.flesh) {
    o.youngsModulus = setup.flesh->youngsModulus;
    o.poissonRatio = setup.flesh->poissonRatio;
    o.density = setup.flesh->density;
  }
  return o;
}

namespace {

class Li2019Snapshot final : public SimSnapshot {
 public:
  explicit Li2019Snapshot(Li2019State s) : state(std::move(s)) {}
  double time() const override { return state.time; }
  Li2019State state;
};

}  // namespace

Li2019Simulation::Li2019Simulation(const Project& project, const ModelOptions& options, Settings settings, bool live)
    : base_(std::move(settings)) {
  const Input input = inputFromProject(project, live);
  solver_ = std::make_unique<Li2019Solver>(buildLi2019Model(input, options), base_);
  const VolumeObject& v = conformingVolume(project, live);
  volumeName_ = v.name;
  surface_ = v.surface;
  embedding_ = v.embedding;
  for (const MeshObject& mesh : project.meshes)
    if (mesh.id == v.surface) triangles_ = mesh.mesh.triangles;
  if (embedding_.vertexCount() > 0 && triangles_.empty()) surface_ = 0;
  // Each skeleton joint rides on its own bone region, else on its nearest
  // ancestor's.
  const Skeleton& skel = project.skeleton->skeleton;
  skeleton_ = skel;
  jointRest_ = skel.worldRest();
  boneJoint_.assign(input.bones.size(), -1);
  for (size_t k = 0; k < input.bones.size(); ++k) boneJoint_[k] = skel.find(input.bones[k]);
  jointBone_.assign(skel.size(), -1);
  for (size_t j = 0; j < skel.size(); ++j) {
    for (size_t k = 0; k < input.bones.size(); ++k)
      if (input.bones[k] == skel.joints[j].name) jointBone_[j] = int32_t(k);
    if (jointBone_[j] < 0 && skel.joints[j].parent >= 0) jointBone_[j] = jointBone_[size_t(skel.joints[j].parent)];
  }
  applySettings();
  lastGood_ = solver_->state();
}

void Li2019Simulation::applySettings() {
  Settings s = base_;
  if (!toggles_.gravity) s.gravity = Vec3::Zero();
  if (!toggles_.contact) {
    s.ground = false;
    s.colliders.clear();
  }
  solver_->setSettings(s);
}

void Li2019Simulation::setToggles(const SimToggles& t) {
  toggles_ = t;
  applySettings();
}

void Li2019Simulation::setGrab(const std::optional<Grab>& grab) {
  grab_ = grab;
  if (!grab_ || grab_->vertex < 0 || size_t(grab_->vertex) >= embedding_.vertexCount()) solver_->setExternalForces({});
}

void Li2019Simulation::setMotion(std::optional<MotionClip> clip, bool loop, const std::vector<std::string>& bones,
                                 double blendSeconds) {
  const Li2019Model& m = solver_->model();
  if (!clip) {
    clip_.reset();
    solver_->setBoneTargets({});
    return;
  }
  std::vector<uint8_t> driven(m.bones.size(), bones.empty() ? 1 : 0);
  for (const std::string& name : bones) {
    size_t k = 0;
    while (k < m.bones.size() && m.bones[k].name != name) ++k;
    if (k == m.bones.size()) {
      std::string known;
      for (const Bone& b : m.bones) known += (known.empty() ? "" : ", ") + b.name;
      throw InputError("li2019", "no bone called '" + name + "' (bones: " + known + ")");
    }
    driven[k] = 1;
  }
  for (size_t k = 0; k < m.bones.size(); ++k)
    if (driven[k] && boneJoint_[k] < 0)
      throw InputError("li2019", "bone '" + m.bones[k].name + "' is not a joint of the skeleton: it cannot follow a clip");
  skeletonPoseFromClip(skeleton_, *clip, 0.0, loop);  // throws when no joint of the clip is the skeleton's
  clip_ = std::move(clip);
  loop_ = loop;
  drivenBone_ = std::move(driven);
  motionStart_ = time();
  blendSeconds_ = std::max(0.0, blendSeconds);
  blendFrom_ = solver_->state().bones;
}

size_t Li2019Simulation::drivenBones() const {
  return clip_ ? size_t(std::count(drivenBone_.begin(), drivenBone_.end(), 1)) : 0;
}

void Li2019Simulation::step() {
  const Li2019Model& m = solver_->model();
  if (clip_) {
    // The driven bones' poses at the end of this step: the clip's motion of
    // their joints from rest, blended in from where they were.
    const double t = time() + dt();
    const std::vector<Transform> world = skeletonPoseFromClip(skeleton_, *clip_, t, loop_);
    const double s = blendSeconds_ > 0 ? std::clamp((t - motionStart_) / blendSeconds_, 0.0, 1.0) : 1.0;
    std::vector<std::optional<BonePose>> targets(m.bones.size());
    for (size_t k = 0; k < m.bones.size(); ++k) {
      if (!drivenBone_[k]) continue;
      const size_t j = size_t(boneJoint_[k]);
      const Transform motion = world[j] * jointRest_[j].inverse();
      const BonePose& from = blendFrom_[k];
      const Quat q = Quat(from.rotation).normalized().slerp(s, motion.rotation).normalized();
      BonePose pose;
      pose.rotation = q.toRotationMatrix();
      pose.centroid = (1 - s) * from.centroid + s * motion.apply(m.bones[k].restCentroid);
      targets[k] = pose;
    }
    solver_->setBoneTargets(std::move(targets));
  }
  if (grab_ && grab_->vertex >= 0 && size_t(grab_->vertex) < embedding_.vertexCount()) {
    // The spring on the surface vertex, spread over its tet's nodes.
    const size_t v = size_t(grab_->vertex);
    const Tet& tet = m.tets[size_t(embedding_.tet[v])];
    Vec3 p = Vec3::Zero();
    for (int k = 0; k < 4; ++k) p += embedding_.weights[v][size_t(k)] * solver_->state().x[size_t(tet[k])];
    // The spring is explicit in the step: capped so that it moves the grabbed
    // nodes at most half way to the target in one step (dt is large here).
    double nodeMass = 0;
    for (int k = 0; k < 4; ++k) nodeMass += std::abs(embedding_.weights[v][size_t(k)]) * m.nodeMass[size_t(tet[k])];
    const double h = m.options.dt;
    const double stiffness = std::min(grab_->stiffness > 0 ? grab_->stiffness : 30.0 * m.totalMass, 0.5 * nodeMass / (h * h));
    std::vector<Vec3> f(m.nodeCount(), Vec3::Zero());
    for (int k = 0; k < 4; ++k) f[size_t(tet[k])] += embedding_.weights[v][size_t(k)] * stiffness * (grab_->target - p);
    solver_->setExternalForces(std::move(f));
  }
  try {
    solver_->step();
  } catch (const SimulationError&) {
    solver_->setState(lastGood_);
    throw;
  }
  lastGood_ = solver_->state();
}

std::vector<Vec3> Li2019Simulation::surfacePositions() const {
  const Li2019Model& m = solver_->model();
  std::vector<Vec3> out(embedding_.vertexCount());
  for (size_t v = 0; v < out.size(); ++v) {
    const Tet& tet = m.tets[size_t(embedding_.tet[v])];
    Vec3 p = Vec3::Zero();
    for (int k = 0; k < 4; ++k) p += embedding_.weights[v][size_t(k)] * solver_->state().x[size_t(tet[k])];
    out[v] = p;
  }
  return out;
}

std::vector<Transform> Li2019Simulation::jointPoses() const {
  const Li2019Model& m = solver_->model();
  std::vector<Transform> out(jointRest_.size());
  for (size_t j = 0; j < out.size(); ++j) {
    const int32_t k = jointBone_[j];
    if (k < 0) {
      out[j] = jointRest_[j];
      continue;
    }
    // World = (the bone's motion from rest) x the joint's rest transform.
    const BonePose& pose = solver_->state().bones[size_t(k)];
    Transform motion;
    motion.rotation = Quat(pose.rotation).normalized();
    motion.translation = pose.centroid - pose.rotation * m.bones[size_t(k)].restCentroid;
    out[j] = motion * jointRest_[j];
  }
  return out;
}

SimMeasures Li2019Simulation::measure() const {
  const Li2019Model& m = solver_->model();
  const Li2019State& s = solver_->state();
  SimMeasures out;
  out.time = s.time;
  Vec3 com = Vec3::Zero();
  for (size_t i = 0; i < m.nodeCount(); ++i) com += m.nodeMass[i] * s.x[i];
  com /= m.totalMass;
  out.centerOfMass = com;
  for (size_t i = 0; i < m.nodeCount(); ++i) {
    const Vec3 p = m.nodeMass[i] * s.v[i];
    out.linearMomentum += p;
    out.angularMomentum += (s.x[i] - com).cross(p);
    out.kineticEnergy += 0.5 * m.nodeMass[i] * s.v[i].squaredNorm();
  }
  // The projective dynamics energy sum w/2 ||F - R||^2 with the last local
  // step's rotations; inverted tets by det F.
  for (size_t t = 0; t < m.tetCount(); ++t) {
    Mat3 F = Mat3::Zero();
    for (int c = 0; c < 4; ++c) F += s.x[size_t(m.tets[t][c])] * m.tetGradient[t].row(c);
    out.elasticEnergy += 0.5 * m.tetWeight[t] * (F - s.tetRotation[t]).squaredNorm();
    if (F.determinant() <= 0) ++out.invertedTets;
  }
  return out;
}

std::unique_ptr<SimSnapshot> Li2019Simulation::snapshot() const {
  return std::make_unique<Li2019Snapshot>(solver_->state());
}

void Li2019Simulation::restore(const SimSnapshot& s) {
  const auto* snap = dynamic_cast<const Li2019Snapshot*>(&s);
  if (!snap) throw std::invalid_argument("not a li2019 snapshot");
  solver_->setState(snap->state);
  lastGood_ = snap->state;
  // A restore before the motion began blends in again from the restored poses.
  if (clip_ && snap->state.time < motionStart_) {
    motionStart_ = snap->state.time;
    blendFrom_ = snap->state.bones;
  }
}

void Li2019Simulation::setDrive(const Drive& drive) {
  if (drive.mode == DriveMode::Hold || !drive.clip) {
    if (clip_) setMotion(std::nullopt);
    return;
  }
  if (clip_ && clip_->name == drive.clip->name && loop_ == drive.loop && drivenNames_ == drive.drivenBones) return;
  setMotion(*drive.clip, drive.loop, drive.drivenBones);
  drivenNames_ = drive.drivenBones;
}

std::string Li2019Simulation::setupJson() const {
  const Li2019Model& m = solver_->model();
  return nlohmann::json{{"volume", volumeName_},
                        {"nodes", m.nodeCount()},
                        {"tets", m.tetCount()},
                        {"bones", m.bones.size()},
                        {"joints", m.joints.size()},
                        {"reduced_rows", m.reducedSize},
                        {"iterations", base_.iterations},
                        {"surface_vertices", surfacePositions().size()},
                        {"mass_kg", m.totalMass},
                        {"pinned_nodes", m.options.pinnedNodes.size()},
                        {"driven_bones", drivenBones()},
                        {"colliders", base_.colliders.size()},
                        {"ground_height", base_.groundHeight},
                        {"friction", base_.friction},
                        {"bone_density", m.options.boneDensity}}
      .dump();
}

}  // namespace sinew::li2019
