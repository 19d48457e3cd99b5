// The solver of Li, Liu and Kavan 2019, "Fast Simulation of Deformable
// Characters with Articulated Skeletons in Projective Dynamics": backward
// Euler (eq. 5) by projective dynamics (Bouaziz et al. 2014) on a conforming
// tet mesh whose bone regions are exactly rigid and held together by joints.
//
//   model (immutable): the mesh, lumped masses, per-tet weights and gradient
//     operators, the affine reduction B (eq. 7-10: flesh nodes free, every
//     bone's nodes an affine map of their rest positions, 12 numbers per
//     bone), the prefactored B^T (M/h^2 + L) B of eq. 12, and per bone the
//     mass, centroid, second moment and inertia the constraint step needs;
//   state (mutable): node positions and velocities, the tets' rotations (warm
//     starts of the local step), the bones' rigid transforms;
//   step (Algorithm 1): predict y; iterate {local step: per-tet rotation;
//     ground/collider contact multipliers; global step: the reduced solve;
//     constraint step: per-bone Procrustes, then the linearised SE(3)
//     problem with the joints (eq. 14-19) until the joint residual is small};
//     new velocities by differences.
//
// Contact: the paper adds penetration-depth forces (Heidelberger 2007) to
// f_ext. Here every node probes the ground and the static colliders at each
// local/global iteration, and a per-node multiplier (normal force with a
// Coulomb-bounded tangential part) grows with the remaining penetration
// (dual ascent at half the node's m/h^2, or its share of its bone's M/h^2):
// forces that act within the step without changing the prefactored matrix.
// What penetration is left after the last iteration is projected out (flesh
// nodes onto the surface with Coulomb friction on the position level, a bone
// moved as a whole and the joints re-projected), which also removes that
// normal velocity: contact is inelastic.
//
// `RigidMode::Stiffness` is the baseline of Fig. 6: no reduction, the bone
// tets merely `boneStiffnessRatio` times stiffer than the flesh.
#pragma once

#include "core/Types.h"
#include "dynamics/Colliders.h"
#include "volume/RegionMesh.h"
#include "volume/TetMesh.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sinew::li2019 {

enum class RigidMode : uint8_t {
  Exact,      // bones exactly rigid, joints held (the paper's method)
  Stiffness,  // plain projective dynamics, bones as stiff flesh (Fig. 6's baseline)
};

// What changes the model (rebuild to apply).
struct ModelOptions {
  double youngsModulus = 5e4;       // Pa, flesh
  double poissonRatio = 0.4;        // only through mu: the PD energy is w ||F - R||^2, w = 2 mu V
  double density = 1000;            // kg/m^3, flesh
  double boneDensity = 1500;        // kg/m^3
  double dt = 1.0 / 30;             // s: the prefactored matrix depends on it
  RigidMode rigid = RigidMode::Exact;
  double boneStiffnessRatio = 1e4;  // Stiffness mode: bone tets' weight x this
  // Attachments: nodes pulled towards target points (Settings::pinTargets)
  // by the projective term w/2 ||x - p||^2, w = pinStiffness x the node's
  // m/h^2 (in the prefactored matrix, so the set is fixed with the model).
  std::vector<int32_t> pinnedNodes;
  double pinStiffness = 100;
};

// What a run does (may change between steps, dt excepted).
struct Settings {
  int iterations = 20;              // local/global iterations per step (the paper's default)
  // The iterations' first guess: false, the inertial prediction y = x + h v
  // + h^2 g (the paper's); true, a warm start x + h v + h^2 a with the last
  // step's acceleration a (a body at rest starts where it rests).
  bool warmStart = false;
  int maxConstraintIterations = 100;
  double jointTolerance = 1e-10;    // stop the constraint loop when the joint error <= this x the model's size
  Vec3 gravity = Vec3(0, -9.81, 0); // m/s^2
  bool ground = true;
  double groundHeight = 0;          // m
  double friction = 0.5;            // Coulomb coefficient
  std::vector<dyn::Collider> colliders;
  int threads = 0;                  // local step threads (0: all cores)
  double maxSpeed = 100;            // m/s of any node: beyond it the run stops with a message
  std::vector<Vec3> pinTargets;     // per ModelOptions::pinnedNodes, world; empty: their rest positions
};

struct Input {
  TetMesh mesh;                     // region per tet: -1 flesh, k bone k (empty: all flesh)
  std::vector<std::string> bones;   // names of the bone regions
  std::vector<RegionJoint> joints;  // ball joints (or hinges) between bone regions
};

struct Bone {
  std::string name;
  std::vector<int32_t> nodes;       // the nodes of its region
  double mass = 0;
  Vec3 restCentroid = Vec3::Zero(); // mass-weighted
  Mat3 secondMoment = Mat3::Zero(); // sum m r r^T, r relative to the centroid
  Mat3 inertia = Mat3::Zero();      // sum m (|r|^2 I - r r^T)
  double size = 0;                  // bounding-box diagonal, m
};

struct Joint {
  std::string name;
  int32_t boneA = -1, boneB = -1;
  Vec3 localA = Vec3::Zero(), localB = Vec3::Zero();  // rest position relative to each bone's rest centroid
  // A hinge also keeps bone B's axis on bone A's (two more rows: B's axis
  // orthogonal to A's two normals): in each bone's rest frame (= world rest).
  bool hinge = false;
  Vec3 axis = Vec3::UnitZ();                          // u, the same in both bones' rest frames
  Vec3 normal1 = Vec3::UnitX(), normal2 = Vec3::UnitY();  // t1, t2 orthogonal to u (bone A)
};

struct Factorization;  // the prefactored reduced matrix (CHOLMOD)
struct TetBlocks;      // the tets laid out for the local step's vector kernel

struct Li2019Model {
  ModelOptions options;
  std::vector<Vec3> restNodes;
  std::vector<Tet> tets;
  std::vector<int32_t> tetRegion;           // -1 flesh, k bone k
  std::vector<int32_t> nodeBone;            // -1 flesh, k bone k
  std::vector<double> nodeMass;
  std::vector<double> pinWeight;            // per pinned node (options.pinnedNodes), w of w/2 ||x - p||^2
  std::vector<double> tetWeight;            // w of w/2 ||F - R||^2 (2 mu V, x the ratio in Stiffness mode)
  std::vector<Eigen::Matrix<double, 4, 3>> tetGradient;  // G: F = [x0 x1 x2 x3] G
  std::vector<int32_t> cornerOffsets;       // node i: its (tet * 4 + corner) in corners[off[i], off[i+1])
  std::vector<int32_t> corners;
  std::vector<Bone> bones;
  std::vector<Joint> joints;
  // Reduction: x = B xhat, xhat = [flesh nodes; per bone the rows (A^T; b^T)]
  // so that a bone node sits at A (X - c0) + b.
  int32_t reducedSize = 0;                  // rows of xhat
  std::vector<int32_t> reducedIndex;       // node -> its row (flesh), or the bone's first row
  std::shared_ptr<const Factorization> factor;
  std::shared_ptr<const TetBlocks> tetBlocks;
  double totalMass = 0;
  double size = 0;                          // bounding-box diagonal of the rest mesh, m
  bool exact() const { return options.rigid == RigidMode::Exact && !bones.empty(); }
  size_t nodeCount() const { return restNodes.size(); }
  size_t tetCount() const { return tets.size(); }
};

// Builds and prefactors the model. Throws InputError naming the bone or joint
// on: a bone with fewer than 4 non-coplanar nodes, a node shared by two bones
// (bones must not touch: the mesh is not conforming), a joint whose bones are
// unknown or equal, a joint that does not touch one of its bones (further
// from the bone's nodes than the bone's own size), inverted tets.
std::shared_ptr<const Li2019Model> buildLi2019Model(const Input& input, const ModelOptions& options = {});

// A bone's rigid transform: x = rotation (X - restCentroid) + centroid.
struct BonePose {
  Mat3 rotation = Mat3::Identity();
  Vec3 centroid = Vec3::Zero();
};

struct Li2019State {
  double time = 0;
  int64_t steps = 0;
  std::vector<Vec3> x, v;                   // node positions and velocities
  std::vector<Vec3> a;                      // the last step's accelerations (Settings::warmStart)
  std::vector<Mat3> tetRotation;            // per tet: the local step's last rotation (its warm start)
  std::vector<BonePose> bones;
  // Contact forces per node at the end of the last step (normal, N;
  // tangential).
  std::vector<double> contactNormal;
  std::vector<Vec3> contactTangent;
};

// The model at rest, at rest velocity.
Li2019State restState(const Li2019Model& model);

struct StepStats {
  double localSeconds = 0, globalSeconds = 0, jointSeconds = 0, totalSeconds = 0;
  int constraintIterations = 0;             // summed over the local/global iterations
  int maxConstraintIterations = 0;          // of one constraint loop
  double jointError = 0;                    // largest joint gap after the step, m
  // Per local/global iteration, the constraint loop's joint error (sum of
  // squared joint gaps, eq. 13c, m^2) before each of its iterations and after
  // the last.
  std::vector<std::vector<double>> jointErrors;
  int contacts = 0;                         // nodes pressing on a collider at the end
};

class Li2019Solver {
 public:
  Li2019Solver(std::shared_ptr<const Li2019Model> model, Settings settings = {});
  ~Li2019Solver();
  const Li2019Model& model() const { return *model_; }
  const Settings& settings() const { return settings_; }
  void setSettings(const Settings& s) { settings_ = s; }
  const Li2019State& state() const { return state_; }
  void setState(Li2019State s);
  // One backward Euler step of model().options.dt. Throws SimulationError
  // when a node exceeds maxSpeed or a value is not finite.
  const StepStats& step();
  const StepStats& lastStats() const { return stats_; }
  // Forces on nodes (N, world) held through the following steps; empty: none.
  void setExternalForces(std::vector<Vec3> forces);
  // Bones moved by the caller (kinematically, e.g. from a motion clip): one
  // entry per bone, the pose it must have at the end of the next step, or
  // nullopt for a bone the solver moves; empty: all free. Held until changed.
  // The global step then holds those bones exactly (the flesh is solved with
  // them fixed) and the joint projection moves only the free bones. Needs
  // RigidMode::Exact (std::invalid_argument otherwise).
  void setBoneTargets(std::vector<std::optional<BonePose>> targets);
  const std::vector<std::optional<BonePose>>& boneTargets() const { return targets_; }

 private:
  // The stages of step(), in order.
  void predict(std::vector<BonePose>& poses);
  void localStep(const std::vector<Vec3>& x);
  void globalStep(const Eigen::MatrixXd& inertial);
  void placeNodes(const std::vector<BonePose>& poses);
  void updateVelocities(const std::vector<Vec3>& previous, const std::vector<BonePose>& poses);
  void contactStep(const std::vector<Vec3>& x, const std::vector<Vec3>& previous);
  void constraintStep(const Eigen::MatrixXd& xhat, std::vector<BonePose>& poses);
  // The bones nearest to affine maps x = A (X - c0) + b with the joints held.
  void projectBones(const std::vector<Mat3>& A, const std::vector<Vec3>& b, std::vector<BonePose>& poses);
  void resolvePenetration(std::vector<Vec3>& x, const std::vector<Vec3>& previous, std::vector<BonePose>& poses);
  // The global step's solution with the driven bones' rows at their targets.
  void holdDrivenBones(Eigen::MatrixXd& xhat);
  bool driven(size_t bone) const { return !targets_.empty() && targets_[bone].has_value(); }
  std::shared_ptr<const Li2019Model> model_;
  Settings settings_;
  Li2019State state_;
  StepStats stats_;
  struct Scratch;
  std::unique_ptr<Scratch> scratch_;
  std::vector<Vec3> external_;
  std::vector<std::optional<BonePose>> targets_;
};

}  // namespace sinew::li2019
