// The Li et al. 2019 solver behind the application's Simulation interface
// (solver/Simulation.h): a project's conforming volume (sinew-cli rig
// --regions) with its skeleton's joints between the bone regions, the
// embedded surface for display and export, measures, snapshots, toggles
// (gravity and contact; plasticity and damping do not apply) and the grab
// spring. Bones are passive (the character falls as a rag doll of exact
// bones and soft flesh) unless a motion clip drives them kinematically
// (setMotion): then the flesh, and any bone left free, follows physically.
#pragma once

#include "li2019/Li2019.h"
#include "model/Project.h"
#include "solver/Simulation.h"

namespace sinew::li2019 {

// The project's first conforming volume (`live`: its first live copy,
// VolumeObject::live); throws InputError saying how to build it when there
// is none.
const VolumeObject& conformingVolume(const Project& project, bool live = false);
// That volume as the solver's input; throws InputError when there is none
// or the project has no skeleton.
Input inputFromProject(const Project& project, bool live = false);

// The project's flesh material (Project::simulation) as model options.
ModelOptions modelOptionsFor(const SimulationSetup& setup);

class Li2019Simulation final : public Simulation {
 public:
  // `live`: run the live copy of the conforming mesh instead of the full one.
  Li2019Simulation(const Project& project, const ModelOptions& options, Settings settings, bool live = false);
  std::string solverName() const override { return "li2019"; }
  double time() const override { return solver_->state().time; }
  double dt() const override { return solver_->model().options.dt; }
  // Throws SimulationError on instability, back at the last good state.
  void step() override;
  ObjectId surfaceMesh() const override { return surface_; }
  std::vector<Vec3> surfacePositions() const override;
  std::vector<Transform> jointPoses() const override;
  SimMeasures measure() const override;
  std::unique_ptr<SimSnapshot> snapshot() const override;
  void restore(const SimSnapshot& s) override;
  void setToggles(const SimToggles& t) override;
  SimToggles toggles() const override { return toggles_; }
  void setGrab(const std::optional<Grab>& grab) override;
  const std::vector<Tri>& surfaceTriangles() const override { return triangles_; }
  std::string setupJson() const override;
  // Both the Kinematic and the Pd drive play the clip on every bone.
  void setDrive(const Drive& drive) override;

  // Drives bones kinematically from a clip of the project's skeleton (joints
  // matched by name; skeletonPoseFromClip at the simulation time): the named
  // bones (empty: every bone) follow the clip from the next step on,
  // blending in from their current poses over `blendSeconds`. nullopt: all
  // bones passive again. Throws InputError naming an unknown bone, or the
  // clip when none of its joints is the skeleton's.
  void setMotion(std::optional<MotionClip> clip, bool loop = true, const std::vector<std::string>& bones = {},
                 double blendSeconds = 0.5);
  const std::optional<MotionClip>& motion() const { return clip_; }
  size_t drivenBones() const;

  const Li2019Solver& solver() const { return *solver_; }
  const Li2019Model& model() const { return solver_->model(); }
  const std::string& volumeName() const { return volumeName_; }  // the conforming volume it runs

 private:
  void applySettings();
  std::unique_ptr<Li2019Solver> solver_;
  Settings base_;                      // as given (before the toggles)
  SimToggles toggles_;
  std::string volumeName_;
  ObjectId surface_ = 0;
  Embedding embedding_;
  std::vector<Tri> triangles_;
  std::vector<Transform> jointRest_;   // world rest transform per skeleton joint
  std::vector<int32_t> jointBone_;     // the bone (volume region) that carries each joint, or -1
  std::optional<Grab> grab_;
  Skeleton skeleton_;
  std::optional<MotionClip> clip_;
  bool loop_ = true;
  std::vector<std::string> drivenNames_;  // as setDrive() was last given them
  std::vector<uint8_t> drivenBone_;    // per bone region
  std::vector<int32_t> boneJoint_;     // the skeleton joint of each bone region
  double motionStart_ = 0, blendSeconds_ = 0;
  std::vector<BonePose> blendFrom_;    // the bones' poses when the motion was set
  Li2019State lastGood_;
};

}  // namespace sinew::li2019
