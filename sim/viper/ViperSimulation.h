// A project's rod bodies (muscles, octopi, bands) as one VIPER simulation
// behind the application's Simulation interface: `sinew-cli simulate
// --solver viper` and the GUI's Simulate dock run it like the other solvers.
//
// What it adds around RodSolver (Section 7's engine loop): the skeleton's
// bones animate first (a clip, or the rest pose) and carry the pinned rod
// nodes (a muscle's ends on its origin and insertion bones) and the bones'
// capsules as kinematic pills; muscle nodes start each step from the bones'
// motion skinned onto them (Section 8.2); activation per body; the surfaces
// skinned to the rods (Section 7.4).
#pragma once

#include "model/Project.h"
#include "solver/Simulation.h"
#include "viper/Rod.h"
#include "viper/RodSkin.h"

#include <memory>
#include <optional>

namespace sinew::viper {

struct ViperOptions {
  double dt = 1.0 / 60;
  int iterations = 10;          // Jacobi iterations per step (the paper's 10)
  double damping = 0.0;         // velocity lost per step
  double relaxation = 1.0;      // beta of eq. 28
  bool boneColliders = true;    // the skeleton's capsule bones become kinematic pills
  double groundHeight = 0;      // m
  double friction = 0.5;        // ground
  bool ground = true;
  int threads = 0;              // constraint loops (0: all cores); results do not depend on it
};

// The solver's input gathered from a project: one RodInput per rod of every
// body (bodies in project order, then one 2-node rod per capsule bone when
// options.boneColliders), the bundles, and how each pinned node is carried.
struct ViperInput {
  std::vector<RodInput> rods;
  std::vector<BundleInput> bundles;
  std::vector<int32_t> bodyFirstRod;      // (bodies + 1): rods of body b are [bodyFirstRod[b], bodyFirstRod[b+1])
  int32_t boneRodCount = 0;               // the last rods are bones
  struct Carried {
    int32_t rod = 0, node = 0;            // RodInput indices
    int32_t joint = -1;                   // skeleton joint carrying it, -1: fixed in the world
    Vec3 local = Vec3::Zero();            // position in that joint's rest frame (world if -1)
  };
  std::vector<Carried> carried;
  // Section 8.2: a muscle's free nodes get the LBS prediction from its two bones.
  struct Blend {
    int32_t rod = 0, node = 0;
    int32_t jointA = -1, jointB = -1;
    double weightB = 0;
  };
  std::vector<Blend> blends;
};

// Throws InputError naming the body: no rod bodies, a body that is not
// viperized yet (a muscle without rods: say `sinew-cli viperize`), a pin or
// attachment on a bone the skeleton lacks.
ViperInput viperInputFromProject(const Project& project, const ViperOptions& options);

class ViperSimulation final : public Simulation {
 public:
  ViperSimulation(const Project& project, const ViperOptions& options = {});
  std::string solverName() const override { return "viper"; }
  double time() const override { return solver_->state().time; }
  double dt() const override { return options_.dt; }
  void step() override;
  ObjectId surfaceMesh() const override;
  std::vector<Vec3> surfacePositions() const override;
  std::vector<Transform> jointPoses() const override { return posesAt(time()); }
  SimMeasures measure() const override;
  std::unique_ptr<SimSnapshot> snapshot() const override;
  void restore(const SimSnapshot& s) override;
  void setToggles(const SimToggles& t) override;
  SimToggles toggles() const override { return toggles_; }
  void setGrab(const std::optional<Grab>& grab) override { grab_ = grab; }
  const std::vector<Tri>& surfaceTriangles() const override { return triangles_; }
  std::string setupJson() const override;
  // Both the Kinematic and the Pd drive move the skeleton by the clip.
  void setDrive(const Drive& drive) override;
  void setMuscleActivation(double activation) override;
  std::vector<std::pair<ObjectId, std::vector<Vec3>>> otherSurfaces() const override;
  const RodLayout* rodLayout() const override { return &layout_; }
  RodNodes rodNodes() const override;

  // Every skinned body's surface (project mesh id, positions now).
  std::vector<std::pair<ObjectId, std::vector<Vec3>>> surfaces() const;
  // The skeleton follows `clip` (joints matched by name), looping; nullopt: rest pose.
  void setMotion(std::optional<MotionClip> clip, bool loop = true);
  const std::optional<MotionClip>& motion() const { return clip_; }
  // Activation of body `body` (index into the project's rod bodies), 0..1.
  void setActivation(size_t body, double activation);
  double activation(size_t body) const { return activation_.at(body); }

  const RodSolver& solver() const { return *solver_; }
  void setThreads(int threads) { solver_->setThreads(threads); }
  const RodModel& model() const { return solver_->model(); }
  const ViperInput& input() const { return input_; }
  size_t bodyCount() const { return bodies_.size(); }
  // Rods of the bodies (bones excluded): nodes [0, bodyNodeEnd()).
  size_t bodyNodeEnd() const;

 private:
  std::vector<Transform> posesAt(double t) const;
  void applyActivation();

  ViperOptions options_;
  ViperInput input_;
  std::unique_ptr<RodSolver> solver_;
  RodSettings base_;
  SimToggles toggles_;
  Skeleton skeleton_;
  std::vector<Transform> restInverse_;    // per joint
  std::optional<MotionClip> clip_;
  bool loop_ = true;
  struct Body {
    ObjectId surface = 0;
    RodSkin skin;
  };
  std::vector<Body> bodies_;
  std::vector<double> activation_;
  std::optional<Grab> grab_;
  RodState lastGood_;
  std::vector<Tri> triangles_;  // of surfaceMesh()
  RodLayout layout_;
};

}  // namespace sinew::viper
