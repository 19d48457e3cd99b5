// A project's character as "deformable bones" (Sheth et al. 2015) behind the
// application's Simulation interface: `sinew-cli simulate --solver sheth2015`
// and the GUI's Simulate dock run it like the other solvers.
//
// Built from the project's volume with skinning weights (the cage of `sinew-
// cli rig`): decompose() cuts it into reduced bodies joined by point joints;
// the skin (eq. 42) is every volume node blended from the bodies holding it,
// the project's surface follows through its embedding, and only the coarse
// proxy collides (with the ground, the project's colliders and, with copies,
// the other characters). Bones named in setMotion become kinematic bodies
// that follow a clip; the rest is simulated.
#pragma once

#include "model/Project.h"
#include "sheth2015/Decompose.h"
#include "sheth2015/World.h"
#include "solver/Simulation.h"

#include <functional>
#include <memory>
#include <optional>

namespace sinew::sheth2015 {

struct Sheth2015Options {
  double dt = 1.0 / 60;
  DecomposeOptions decompose;    // modes per body, threshold, joints, proxy
  int sweeps = 5;                // contact and articulation iterations (the paper's 5)
  int postStabilization = 5;
  double groundHeight = 0;
  double friction = 0.5;
  std::vector<Collider> colliders;  // static (pegs, ramps)
  bool characterContacts = true;    // copies collide with each other
  int copies = 1;                   // characters, side by side (the Pachinko scene)
  // Copies stand side by side along x, `copiesPerRow` to a row, rows stacked
  // upward; the gap between neighbours' bounding boxes, m.
  double copyGap = 0.15;
  int copiesPerRow = 3;
  double excite = 0;             // random initial reduced displacement (Fig. 3), m-ish amplitude
  uint32_t seed = 1;
};

// The project's material and scene (ground, friction, colliders) as options.
Sheth2015Options optionsFor(const Project& project);

// Throws InputError: no skeleton, no volume with skinning weights (say `sinew-
// cli rig`), or what decompose() and buildReducedBody() report, naming the
// bone or body.
class Sheth2015Simulation final : public Simulation {
 public:
  Sheth2015Simulation(const Project& project, const Sheth2015Options& options = {},
                      const std::function<void(double)>& progress = {});
  std::string solverName() const override { return "sheth2015"; }
  double time() const override { return time_; }
  double dt() const override { return options_.dt; }
  void step() override;
  ObjectId surfaceMesh() const override { return surface_; }
  std::vector<Vec3> surfacePositions() const override { return surfacePositions(0); }
  std::vector<Transform> jointPoses() const override { return jointPoses(0); }
  SimMeasures measure() const override;
  std::unique_ptr<SimSnapshot> snapshot() const override;
  void restore(const SimSnapshot& s) override;
  void setToggles(const SimToggles& t) override;
  SimToggles toggles() const override { return toggles_; }
  void setGrab(const std::optional<Grab>& grab) override { grab_ = grab; }
  const std::vector<Tri>& surfaceTriangles() const override { return triangles_; }
  std::string setupJson() const override;
  // The clip moves the root bone's body (the pelvis) kinematically; the
  // other bones hang from it and swing (Kinematic and Pd alike).
  void setDrive(const Drive& drive) override;
  std::vector<ModalBodyInfo> modalBodies() const override;

  // Copy c of the character (0 .. copies-1).
  size_t copies() const { return size_t(options_.copies); }
  std::vector<Vec3> surfacePositions(size_t copy) const;
  std::vector<Transform> jointPoses(size_t copy) const;

  // The mode viewer: the surface in the rest pose (copy 0, where the
  // project has it) with mode `mode` of body `body` set to `amplitude`
  // (q = amplitude e_mode, the basis' own units) and every other q zero.
  std::vector<Vec3> modeShape(size_t body, int mode, double amplitude) const override;

  // Bones (by name) that follow `clip` kinematically (joints matched by
  // name, looping) from the next step, blending in from where they are over
  // `blendSeconds`; the others stay simulated. nullopt: every body simulated
  // again. Throws InputError naming an unknown bone, or when no bone is named.
  void setMotion(std::optional<MotionClip> clip, const std::vector<std::string>& bones, bool loop = true,
                 double blendSeconds = 0.5);
  const std::optional<MotionClip>& motion() const { return clip_; }

  const DeformableBones& bones() const { return bones_; }
  const World& world() const { return world_; }
  const Sheth2015Options& options() const { return options_; }
  // The bodies of copy c are [c * bodiesPerCopy(), (c + 1) * bodiesPerCopy()).
  size_t bodiesPerCopy() const { return bones_.models.size(); }

 private:
  std::vector<Vec3> nodePositions(size_t copy) const;
  Transform bodyTransform(size_t body) const;  // rest -> now, rigid part
  void applyToggles();
  void driveKinematic(double t);

  Sheth2015Options options_;
  DeformableBones bones_;
  World world_;
  std::vector<WorldBody> restBodies_;
  double time_ = 0;
  SimToggles toggles_;
  ObjectId surface_ = 0;
  Embedding embedding_;
  TetMesh mesh_;
  std::vector<Tri> triangles_;
  Skeleton skeleton_;
  std::vector<Transform> jointRest_;
  std::vector<int32_t> jointBody_;     // per skeleton joint: its body (in copy 0), or -1
  std::vector<Vec3> copyOffset_;
  std::optional<Grab> grab_;
  std::optional<MotionClip> clip_;
  bool loop_ = true;
  std::vector<std::string> drivenNames_;  // as setDrive() was last given them
  std::vector<uint8_t> driven_;        // per body of a copy
  double motionStart_ = 0, blendSeconds_ = 0;
  std::vector<Transform> blendFrom_;   // per body (all copies): rest -> its pose when the motion was set
  std::vector<WorldBody> lastGood_;
  double lastGoodTime_ = 0;
};

}  // namespace sinew::sheth2015
