// The soft character of Liu, Yin, Wang and Guo 2013 (Section 4): a coarse
// corotated FEM cage with pose-based plasticity and damping, two-way coupled
// through its fixed nodes to a PD-driven articulated skeleton, with penalty
// contact detected on the embedded fine surface.
//
//   Liu2013Model   immutable: what buildLiu2013Model() derives from a Project
//                  (elements, lumped masses, the skeleton's links with inertia
//                  from their fixed nodes, skinning influences, embedding)
//   Liu2013State   mutable: skeleton coordinates, node positions/velocities,
//                  per-element rotations; a value type, copied to snapshot
//   Liu2013Solver  step() = the paper's pipeline (Section 4.4):
//                    updateKinematics(); accumulateForces(); integrate();
#pragma once

#include "core/Progress.h"
#include "dynamics/Articulated.h"
#include "dynamics/Colliders.h"
#include "liu2013/ElementKernel.h"
#include "model/Project.h"
#include "solver/Simulation.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sinew::liu2013 {

// Penalty contact on the fine surface (Section 4.2.4), per m^2 of surface:
// the defaults of Settings, and what ModelOptions makes the masses stable for.
// Stiff enough that two feet resist tipping far more than M g h (at 4e6 a
// sole sank 5 mm standing and the soles' rotational stiffness was about M g h).
inline constexpr double kContactStiffness = 6e7;  // N/m per m^2
inline constexpr double kContactDamping = 6e4;    // N s/m per m^2
// Sticking friction (Coulomb's static regime): a spring to where the surface
// vertex first touched, this many times the normal stiffness, and a damper
// this many times the normal damping; past mu times the normal force the
// vertex slides and its anchor follows it. (A damper alone let standing feet
// creep: any steady shear made them slide at shear / damping.)
inline constexpr double kStickingStiffnessFactor = 1;
inline constexpr double kStickingDampingFactor = 1;

struct Material {
  double youngsModulus = 6e4;   // Pa
  double poissonRatio = 0.4;
  double density = 1000;        // kg/m^3
  double damping = 40;          // pose-based damper coefficient c of eq. 17, 1/s
  bool operator==(const Material&) const = default;
};

// What changes the model (rebuild to apply).
struct ModelOptions {
  Material material;                                       // flesh everywhere...
  std::vector<std::pair<std::string, Material>> regions;   // ...except tets whose dominant bone is named here
  double pdFrequency = 4.0;        // Hz: kp = I (2 pi f)^2 per joint, I the subtree inertia about the joint
  double pdDampingRatio = 1.0;     // kd = 2 zeta I (2 pi f)
  // Stance gains (0: off): the joints between the root and the feet also get
  // kp >= M g d / stanceAngle (M the body's mass, d the joint's distance from
  // the rest centre of mass), so that the servos can carry the body with
  // errors near stanceAngle (rad); capped at the subtree's I (2 pi
  // maxPdFrequency)^2 so that a swinging foot stays stable. Subtree inertia
  // alone gives an ankle about 1/50 of what standing needs.
  double stanceAngle = 0;
  double maxPdFrequency = 40;      // Hz
  int maxInfluences = 4;           // skinning influences kept per node for the reference pose
  double soleStiffening = 5;       // Young's modulus factor for the bones nearest the ground at rest (feet)
  double solePad = 0.003;          // feet rigid down to a pad this fraction of the rest height thick (0: soft feet)
  double minNodeMassFraction = 0.3;  // mass scaling: lightest node mass as a fraction of the mean (0: off)
  // Stable by construction: a node whose stiffness and damping over its mass
  // would make this explicit step unstable gets the mass that makes it stable
  // (0: off): h^2 k + 2 h c <= 4 m (symplectic Euler on one degree of
  // freedom), with k its elements' summed stiffness (Gershgorin), plus along
  // the ground's normal the contact stiffness and damping of the surface
  // embedded in it, or across it that surface's sticking friction as c.
  // Across it, a sticking drag the step cannot take explicitly is
  // integrated implicitly instead (Liu2013Model::vertexImplicitDrag).
  // The paper's 0.5 ms by default.
  double stableStep = 0.0005;
  double contactStiffness = kContactStiffness;  // the run's contact (Settings), for that bound
  double contactDamping = kContactDamping;
  bool operator==(const ModelOptions&) const = default;
};

// The materials authored with the character (Project::simulation) as model
// options: a setup that leaves the flesh out keeps Material's defaults.
Material toMaterial(const FleshMaterial& m);
FleshMaterial toFleshMaterial(const Material& m);
ModelOptions modelOptionsFor(const SimulationSetup& setup);
struct Settings;
// The authored scene (ground height and friction, colliders) into run settings.
void applyScene(const SimulationSetup& setup, Settings& settings);

// What a run does (may change between steps).
struct Settings {
  double dt = 0.0005;              // s (the paper's 0.5 ms)
  SimToggles toggles;
  DriveMode drive = DriveMode::Hold;
  std::optional<MotionClip> clip;  // for Kinematic and Pd drives: joints matched by name
  bool loopClip = true;
  double rayleighMass = 0.5;       // alpha, 1/s (Rayleigh mode)
  double rayleighStiffness = 5e-5; // beta, s (Rayleigh mode; explicit, so keep beta * omega_max small)
  // The skinned reference F_p is clamped where it collapses (det F_p under
  // minPlasticStretch, or inverted: no inverted targets) or may stretch past
  // maxPlasticStretch (|F_p|^2 above its square: a stretched reference
  // stiffens the element, and the step is explicit); then its principal
  // stretches are kept in [min, max]. A reference sheared thin with det F_p
  // still above the minimum keeps its smallest stretch (measured on the
  // shipped jump: 0.12 % of element steps; docs/PERFORMANCE.md).
  double minPlasticStretch = 0.3;
  double maxPlasticStretch = 2.0;
  double compressionLimit = 0.3;   // volume ratio (to the reference) below which the compression limiter acts
  double compressionStiffness = 10; // the limiter's stiffness in units of lambda + 2 mu (capped per element for dt)
  double groundHeight = 0;         // m
  std::vector<dyn::Collider> colliders;
  double contactStiffness = kContactStiffness;  // N/m per m^2 of surface
  double contactDamping = kContactDamping;      // N s/m per m^2 of surface
  double friction = 0.9;           // ground Coulomb coefficient
  int threads = 0;                 // 0: all cores
  // Instability limits: beyond these the run stops with a message.
  double maxSpeed = 60;            // m/s of any node
  double maxInvertedFraction = 0.05;
  int maxInvertedSteps = 0;        // stop when elements stay inverted this many steps (0: never; counted in the stats)
};

struct Influence {
  int32_t link = 0;
  double weight = 0;
};

struct Liu2013Model {
  ObjectId volume = 0, surfaceId = 0;
  // Soft body (coarse cage).
  std::vector<Vec3> restNodes;               // X (nNodes)
  std::vector<Tet> tets;                     // (nTets)
  std::vector<Mat3> restShapeInverse;        // Bm^-1 (nTets)
  std::vector<double> restVolume;            // (nTets)
  std::vector<double> mu, lambda;            // Lame parameters (nTets)
  std::vector<double> poseDamping;           // c of eq. 17 per node (nNodes)
  std::vector<int32_t> tetRegion;            // dominant link (nTets)
  std::vector<double> nodeMass;              // lumped (nNodes)
  std::vector<int32_t> nodeLink;             // link a node is fixed to, or -1 (nNodes)
  std::vector<Vec3> nodeLocal;               // fixed node in its link frame
  std::vector<int32_t> freeNodes;
  std::vector<int32_t> influenceOffsets;     // node i: [off[i], off[i+1]) (nNodes + 1)
  std::vector<Influence> influences;
  std::vector<int32_t> cornerOffsets;        // node -> (tet*4 + corner) incidences, CSR
  std::vector<int32_t> corners;
  ElementBlocks elements;                    // the elements again, in SIMD blocks for the element loop
  // Fine surface.
  std::vector<Tri> surfaceTriangles;
  std::vector<Vec3> surfaceRest;
  Embedding embedding;
  std::vector<double> vertexArea;            // contact area per surface vertex, m^2
  std::vector<uint8_t> vertexImplicitDrag;   // its sticking friction is integrated implicitly (ModelOptions::stableStep)
  // Skeleton: one link per skeleton joint (same order).
  dyn::ArticulatedModel skeleton;
  std::vector<Transform> linkRest;           // world rest pose of each link frame
  std::vector<std::string> jointNames;
  double totalMass = 0;
  double massScale = 1;                      // lumped masses x this = the fine surface's volume x density
  double characterHeight = 0;
  std::vector<double> elementStableStep;    // s, per element (same estimate)
  double stableStepEstimate = 0;            // s: explicit step limit, roughly (element stiffness vs its lightest node)
  std::vector<double> nodeStableStep;       // s, per node: 2 sqrt(m / k), k its elements' summed stiffness (nNodes)
  std::vector<uint8_t> nodeImplicitDrag;    // per node: the sticking drag would be unstable explicit at stableStep
  size_t massScaledNodes = 0;               // nodes given mass for ModelOptions::stableStep
  double addedMass = 0;                     // kg those nodes were given

  size_t nodeCount() const { return restNodes.size(); }
  size_t tetCount() const { return tets.size(); }
};

// Builds the model from the project's cage (the first Cage volume with an
// embedded surface and node weights). Throws InputError with what is missing
// ("build the volumetric mesh first", a bone with no fixed nodes, ...).
std::shared_ptr<const Liu2013Model> buildLiu2013Model(const Project& project, const ModelOptions& options = {});

// Stability by trial: the character left to fall under gravity onto the
// ground for `seconds` at the solver's default step, halved after each
// instability, or when the masses made stable for that step
// (ModelOptions::stableStep) would weigh more than maxAddedMassFraction extra
// (at most `halvings` times). What the fall adds to that bound is the
// skeleton and large-deformation terms it leaves out.
struct StepProbe {
  double seconds = 2.5;
  int halvings = 3;
  double maxAddedMassFraction = 0.05;  // more mass scaling than this (of the body's mass): a smaller step
};
struct StepChoice {
  double dt = 0;                       // s, the largest step that ran the probe through
  std::vector<std::string> failures;   // the instability messages of the steps that did not
};
// Throws InputError when even the smallest step fails, Cancelled when cancelled.
StepChoice chooseStableStep(const Project& project, const StepProbe& probe = {},
                            const Progress& progress = Progress::none());

// A controller that sets the PD targets window by window (control/ builds
// them from an optimised controller). The solver asks for new targets when
// the window at the current time changes, and keeps them in its state, so
// snapshots carry them and a restored run continues exactly.
class TargetPolicy {
 public:
  virtual ~TargetPolicy() = default;
  // The window at simulated time t (-1: none; the drive mode decides).
  virtual int32_t windowAt(double t) const = 0;
  // The targets for `window`, given the state at its start (feedback).
  virtual dyn::PdTargets targets(int32_t window, const class Liu2013Solver& sim) const = 0;
};

struct Liu2013State {
  double time = 0;
  int64_t steps = 0;
  dyn::ArticulatedState skeleton;
  std::vector<Vec3> x, v;            // node positions and velocities (fixed nodes follow their links)
  std::vector<Mat3> rotation;        // R of each element's F (warm start of the polar decomposition)
  std::vector<Mat3> plasticRotation; // R* of each element's Fp F^T
  std::vector<int32_t> invertedRun;  // per element: consecutive steps it has been inverted (nTets)
  int32_t invertedSteps = 0;         // the longest current run over the elements
  int32_t longestInvertedRun = 0;    // the longest run of any element so far
  int32_t policyWindow = -1;         // the TargetPolicy window whose targets are held
  std::vector<Quat> policyTargets;   // (nLinks) those targets
  // Per fine-surface vertex (empty: none yet): what it sticks to (0: nothing,
  // 1: the ground, 2 + c: collider c) and where (world) its friction spring
  // is anchored.
  std::vector<int32_t> contactSource;
  std::vector<Vec3> contactAnchor;
  bool operator==(const Liu2013State& o) const;
};

// The state as bytes (for other processes of the same build) and back;
// stateFromBytes throws InputError on bytes it did not write.
std::vector<uint8_t> stateToBytes(const Liu2013State& state);
Liu2013State stateFromBytes(const uint8_t* data, size_t size);

// Timing of the pipeline's stages, accumulated over steps (seconds).
struct StageTimes {
  double kinematics = 0, elastic = 0, contact = 0, skeleton = 0, integrate = 0;
  int64_t steps = 0;
};

// The state moved rigidly: every node and bone given the velocity field
// v(x) = linear + angular x (x - about) on top of its own (linear and angular
// in world coordinates). For throwing a character, and for tests.
void addRigidVelocity(const Liu2013Model& model, Liu2013State& state, const Vec3& linear, const Vec3& angular,
                      const Vec3& about);

class Liu2013Solver final : public Simulation {
 public:
  Liu2013Solver(std::shared_ptr<const Liu2013Model> model, Settings settings);
  ~Liu2013Solver() override;

  // Simulation
  std::string solverName() const override { return "liu2013"; }
  double time() const override { return state_.time; }
  double dt() const override { return settings_.dt; }
  void step() override;
  ObjectId surfaceMesh() const override { return model_->surfaceId; }
  std::vector<Vec3> surfacePositions() const override;
  std::vector<Transform> jointPoses() const override;
  SimMeasures measure() const override;
  std::unique_ptr<SimSnapshot> snapshot() const override;
  void restore(const SimSnapshot& s) override;
  void setToggles(const SimToggles& t) override { settings_.toggles = t; }
  SimToggles toggles() const override { return settings_.toggles; }
  void setGrab(const std::optional<Grab>& grab) override { grab_ = grab; }
  const std::vector<Tri>& surfaceTriangles() const override { return model_->surfaceTriangles; }
  std::string setupJson() const override;
  bool push(const Vec3& velocity) override;
  // A drive set at t = 0 also poses the character at the clip's first frame
  // (poseAtClipStart): its servos start on target instead of snapping the
  // limbs from the rest pose.
  void setDrive(const Drive& drive) override;
  bool setScene(const SimulationSetup& setup) override;
  // With a Kinematic or Pd drive: the skeleton at rest in the clip's pose of
  // t = 0, the flesh skinned on it (setPose). Without: nothing.
  void poseAtClipStart();

  const Liu2013Model& model() const { return *model_; }
  const std::shared_ptr<const Liu2013Model>& sharedModel() const { return model_; }
  const Settings& settings() const { return settings_; }
  void setSettings(const Settings& s);
  const Liu2013State& state() const { return state_; }
  void setState(const Liu2013State& s) { state_ = s; }
  const StageTimes& stageTimes() const { return times_; }
  // Replaces the PD targets for the next steps (controllers); nullopt: the drive mode decides.
  void setTargets(std::optional<dyn::PdTargets> targets) { externalTargets_ = std::move(targets); }
  // A controller choosing the targets window by window (null: none). Takes
  // precedence over setTargets() and the drive mode where it has a window.
  void setPolicy(std::shared_ptr<const TargetPolicy> policy) { policy_ = std::move(policy); }
  // Puts the character in a pose at time 0: the skeleton as given (with its
  // velocities), every node where linear blend skinning puts it, moving with
  // the skinned velocity (the flesh at rest relative to the bones).
  void setPose(const dyn::ArticulatedState& skeleton);
  Liu2013State restState() const;

 private:
  struct Scratch;
  void updateKinematics();
  void accumulateForces();
  void integrate();
  void checkStability();
  dyn::PdTargets driveTargets() const;

  std::shared_ptr<const Liu2013Model> model_;
  Settings settings_;
  Liu2013State state_;
  Liu2013State lastGood_;
  std::optional<Grab> grab_;
  std::optional<dyn::PdTargets> externalTargets_;
  std::shared_ptr<const TargetPolicy> policy_;
  std::unique_ptr<Scratch> scratch_;
  StageTimes times_;
};

}  // namespace sinew::liu2013
