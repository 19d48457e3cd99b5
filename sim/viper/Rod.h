// VIPER rods (Angles et al. 2019, Sections 3-6): a centre line of nodes, each
// with a position c and a scale s (the cross-section's radius is s times the
// node's rest radius), and per segment an orientation q (a quaternion at the
// segment's midpoint; its third axis d3 is the rod's direction). The
// elastic potentials of Section 5 (stretch/shear eq. 11, radial scale 12,
// scale gradient 13, bend/twist with scale 14 and 40, scale Laplacian 15,
// volume 18) are constraints of an XPBD-style solver (eq. 26-28) run as
// Jacobi iterations over all constraints, each correction averaged over the
// constraints that touch a degree of freedom and relaxed by beta.
//
// The immutable model (rest shape, masses, stiffness) is RodModel; the
// mutable state (positions, scales, orientations and their velocities) is
// RodState; RodSolver::step() runs the paper's pipeline: prediction
// (eq. 21-23), Jacobi constraint iterations, new velocities.
#pragma once

#include "core/Types.h"
#include "model/RodBody.h"
#include "viper/ShapeMatching.h"

#include <array>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace sinew::viper {

using sinew::RodMaterial;  // model/RodBody.h

// One rod as given: rest node positions (a polyline) and radii.
struct RodInput {
  std::string name;
  std::vector<Vec3> nodes;
  std::vector<double> radii;
  RodMaterial material;
  // Per segment, how much of the rod's activation shortens it (0..1; empty:
  // all 1). A muscle's fibres contract in the belly, not in the tendons.
  std::vector<double> contractile;
  // Rods with the same group >= 0 never collide with each other (a
  // muscle's own fibres, Section 8.2); -1: the rod's own group.
  int32_t group = -1;
};

// A bundle (Section 7.3): nodes of several rods that form one cross-section,
// as (rod, node within the rod). Its shape is kept up to a similarity.
struct BundleInput {
  std::vector<std::array<int32_t, 2>> members;
};

struct RodModel {
  // Nodes of all rods in one array; rod k has nodes [first[k], first[k+1]).
  std::vector<int32_t> first;
  std::vector<std::string> names;
  std::vector<Vec3> restCenter;
  std::vector<double> restRadius;          // r: the radius at scale 1
  std::vector<double> nodeMass;            // rho pi r^2 (half the adjacent lengths)
  // Segments (node a = segment index + rod offset, node b = a + 1).
  std::vector<int32_t> segmentNode;        // its first node
  std::vector<int32_t> segmentRod;
  std::vector<double> restLength;
  std::vector<Quat> restOrientation;       // d3 along the rest segment
  std::vector<double> segmentInertia;      // rho pi r^2 l * r^2 / 4 (disc about a diameter)
  std::vector<double> segmentContractile;   // 0..1 (RodInput::contractile)
  std::vector<int32_t> rodGroup;           // collision group per rod (unique where the input gave -1)
  // Segment pairs (i < j, sorted) that never collide: they overlap at rest
  // (neighbours on a thick rod, fibres of one bundle, a muscle's end inside
  // its bone) or share a group.
  std::vector<std::pair<int32_t, int32_t>> noCollision;
  std::vector<RodMaterial> material;       // per rod
  // Bundles: node indices of each cross-section.
  std::vector<std::vector<int32_t>> bundles;
  size_t nodeCount() const { return restCenter.size(); }
  size_t segmentCount() const { return segmentNode.size(); }
  size_t rodCount() const { return names.size(); }
};

// Throws InputError naming the rod: fewer than 2 nodes, radii not positive,
// a zero-length segment, non-finite values; bundles with fewer than 2 members
// or members out of range.
std::shared_ptr<const RodModel> buildRodModel(const std::vector<RodInput>& rods,
                                              const std::vector<BundleInput>& bundles = {});

struct RodState {
  double time = 0;
  std::vector<Vec3> c, cDot;               // per node
  std::vector<double> s, sDot;             // per node (rest 1)
  std::vector<Quat> q;                     // per segment
  std::vector<Vec3> omega;                 // per segment, world
};
RodState restState(const RodModel& m);

struct RodSettings {
  double dt = 1.0 / 60;
  int iterations = 10;                     // Jacobi iterations per step
  double relaxation = 1.0;                 // beta of eq. 28, applied to the averaged corrections
  Vec3 gravity = Vec3(0, -9.81, 0);
  std::vector<uint8_t> pinned;             // per node (empty: none): kinematic, c and s held
  double damping = 0;                      // velocity kept per step: 1 - damping
  // Per rod activation in [0, 1] (empty: none): contractile segments aim at
  // (1 - maxContraction * activation) of their rest length, while the volume
  // term keeps their volume, so a held muscle's belly bulges (Fig. 10).
  std::vector<double> activation;
  // Bundles are projected onto their best similarity (eq. 33-36) after every
  // `bundleInterval` iterations and after the last one.
  int bundleInterval = 5;
  // Collisions (Section 7): every segment is a pill (its end spheres of
  // radius s r); pills of different segments that share no node collide
  // (eq. 30-31, after a uniform-grid broad phase on their bounding spheres
  // with cells as wide as the largest one), nodes collide with the ground.
  bool collisions = true;
  bool ground = true;
  double groundHeight = 0;
  double friction = 0.5;                   // ground, position-level Coulomb
  // Scales are kept at or above this (a hard impact's contact projection
  // shrinks the radius twice as fast as it moves the centre, eq. 23's
  // second moment, and could otherwise turn a sphere inside out).
  double minScale = 0.2;
  // Threads for the constraint loops (0: all cores; set through
  // RodSolver::setThreads). Results do not depend on it.
  int threads = 0;
};

struct RodStepStats {
  double seconds = 0;
  int constraints = 0;
  int candidatePairs = 0;                  // pill pairs from the broad phase
  int contacts = 0;                        // penetrating pill pairs and ground nodes (last iteration)
};

// Pill pairs (segment indices, i < j) whose bounding spheres overlap, from a
// uniform grid (cell: the largest bounding sphere's diameter); pairs sharing
// a node are left out. In ascending order.
std::vector<std::pair<int32_t, int32_t>> pillPairs(const RodModel& m, const RodState& s);
// The same without the model's exclusions, for bounding spheres grown by
// `margin` (m).
std::vector<std::pair<int32_t, int32_t>> overlappingPills(const RodModel& m, const RodState& s, double margin);

class RodSolver {
 public:
  RodSolver(std::shared_ptr<const RodModel> model, RodSettings settings = {});
  const RodModel& model() const { return *model_; }
  const RodState& state() const { return state_; }
  void setState(RodState s) { state_ = std::move(s); }
  RodSettings& settings() { return settings_; }
  const RodSettings& settings() const { return settings_; }
  const RodStepStats& stats() const { return stats_; }
  const RodStepStats& step();
  void setThreads(int threads);
  // A displacement added to the next step's prediction of the free nodes
  // (Section 8.2: the bones' motion skinned onto a muscle's nodes, so fast
  // motion starts close to the answer). Used once.
  void setPredictionOffset(std::vector<Vec3> offset) { predictionOffset_ = std::move(offset); }
  // Moves node i kinematically (a pinned node following a bone): its
  // position now, and its velocity from where it was.
  void moveNode(size_t i, const Vec3& position);

  // Measures of the current state.
  double volume(int32_t rod) const;        // sum over segments of pi (s_m r_m)^2 |c_b - c_a|
  double length(int32_t rod) const;

 private:
  RodFrame nodeFrame(size_t node, bool rest) const;
  void projectBundles();
  // The stages of step(), in order (StepWork: the step's working data).
  struct StepWork;
  void predict(StepWork& w);
  void projectElastic(size_t rod, StepWork& w);
  void applyCorrections(StepWork& w);
  int projectContacts(StepWork& w);
  void updateVelocities(const StepWork& w);
  bool pinned(size_t i) const;
  void parallelFor(size_t count, const std::function<void(size_t)>& body);

  std::shared_ptr<const RodModel> model_;
  RodSettings settings_;
  RodState state_;
  RodStepStats stats_;
  std::vector<Vec3> predictionOffset_;
  std::shared_ptr<void> arena_;            // tbb::task_arena
};

}  // namespace sinew::viper
