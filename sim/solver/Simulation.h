// What every solver offers the application: step, read the surface and the
// skeleton, measure conservation quantities, snapshot and restore, be pulled
// by the mouse, be driven by a clip, take the scene's changes, and show what
// is particular to it (VIPER's rods and other skins, Sheth 2015's modes).
// The GUI's Simulate panel and `sinew-cli simulate` talk to this interface
// only (built by makeSimulation, solver/Solvers.h); each solver implements it.
#pragma once

#include "core/Types.h"
#include "model/Project.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sinew {

// The run-time switches a user flips while a simulation runs.
enum class DampingMode : uint8_t { Pose, Rayleigh, None };
enum class DriveMode : uint8_t { Hold, Kinematic, Pd };  // hold: PD servos keep the rest pose
const char* dampingModeName(DampingMode m);
const char* driveModeName(DriveMode m);

struct SimToggles {
  bool gravity = true;
  bool contact = true;
  bool plasticity = true;
  DampingMode damping = DampingMode::Pose;
  bool operator==(const SimToggles&) const = default;
};

// A spring pulling surface vertex `vertex` towards `target` (world).
struct Grab {
  int32_t vertex = -1;
  Vec3 target = Vec3::Zero();
  double stiffness = 0;            // N/m; 0: a default scaled to the character's mass
};

// Whole-system quantities of one instant (soft body and skeleton together).
struct SimMeasures {
  double time = 0;
  Vec3 linearMomentum = Vec3::Zero();    // kg m/s
  Vec3 angularMomentum = Vec3::Zero();   // about the centre of mass, kg m^2/s
  Vec3 centerOfMass = Vec3::Zero();
  double kineticEnergy = 0;              // J
  double elasticEnergy = 0;              // J
  int32_t invertedTets = 0;
  int32_t invertedRunSteps = 0;          // steps the longest-inverted element has now been inverted
  int32_t longestInvertedRunSteps = 0;   // the longest any element has stayed inverted since the start
};

// How the skeleton moves. Hold: the character is passive (Liu 2013: PD
// servos hold the rest pose). Kinematic: the bones play the clip. Pd: Liu
// 2013's servos track the clip; the other solvers play it kinematically
// (Sheth 2015 drives the root bone's body and lets the others hang from it).
struct Drive {
  DriveMode mode = DriveMode::Hold;
  std::optional<MotionClip> clip;  // required unless Hold
  bool loop = true;
  // Li 2019: the bones the clip moves (empty: all; the others stay passive).
  // Sheth 2015: the bones whose bodies follow it (empty: the root's).
  std::vector<std::string> drivenBones;
  bool operator==(const Drive&) const = default;
};

// Rods drawn as spheres swept between consecutive nodes (VIPER): the
// topology, fixed for a built model, and the nodes of one instant.
struct RodLayout {
  std::vector<std::array<int32_t, 2>> bodySegments;  // node pairs of the bodies' rods
  std::vector<std::array<int32_t, 2>> boneSegments;  // of the bones' capsules, numbered from bodyNodes
  std::vector<double> restRadius;                    // per node, m
  size_t bodyNodes = 0;                              // nodes [0, bodyNodes) are the bodies'
};
struct RodNodes {
  std::vector<Vec3> centres;   // m
  std::vector<double> radii;   // m (the rest radius times the node's scale)
};

// A deformable body's vibration modes (Sheth 2015's mode viewer).
struct ModalBodyInfo {
  std::string name;
  std::vector<double> frequencies;  // Hz
};

// An opaque copy of a solver's whole state.
class SimSnapshot {
 public:
  virtual ~SimSnapshot() = default;
  virtual double time() const = 0;
};

// Raised when a run becomes unstable; the solver has already gone back to
// its last good state. what() names the elements or bones and the likely cause.
class SimulationError : public std::runtime_error {
 public:
  SimulationError(const std::string& what, double lastGoodTime) : std::runtime_error(what), lastGoodTime_(lastGoodTime) {}
  double lastGoodTime() const { return lastGoodTime_; }
 private:
  double lastGoodTime_;
};

class Simulation {
 public:
  virtual ~Simulation() = default;
  virtual std::string solverName() const = 0;
  virtual double time() const = 0;
  virtual double dt() const = 0;
  // Advances one time step. Throws SimulationError on instability.
  virtual void step() = 0;
  // The embedded surface mesh (project mesh id) and its current vertex positions.
  virtual ObjectId surfaceMesh() const = 0;
  virtual std::vector<Vec3> surfacePositions() const = 0;
  // World transforms of the skeleton's joints (the project skeleton's order).
  virtual std::vector<Transform> jointPoses() const = 0;
  virtual SimMeasures measure() const = 0;
  virtual std::unique_ptr<SimSnapshot> snapshot() const = 0;
  virtual void restore(const SimSnapshot& s) = 0;
  virtual void setToggles(const SimToggles& t) = 0;
  virtual SimToggles toggles() const = 0;
  virtual void setGrab(const std::optional<Grab>& grab) = 0;
  // The surface's triangles (indices into surfacePositions()).
  virtual const std::vector<Tri>& surfaceTriangles() const = 0;
  // What the built model is, for a run's stats: one JSON object of counts
  // (nodes, tets, bones, joints...), mass, scene (ground_height, friction,
  // colliders) and the solver's own settings (iterations, modes...).
  virtual std::string setupJson() const = 0;

  // The skeleton's motion from the next step. Throws InputError when the
  // clip does not fit the skeleton (the drive is then unchanged).
  virtual void setDrive(const Drive& drive) = 0;
  // The project's scene (ground, friction, colliders; Liu 2013 also its
  // time step) from the next step. Solvers that take the scene only when
  // built return false: the next build takes it.
  virtual bool setScene(const SimulationSetup&) { return false; }

  // Particular to some solvers; the defaults say "not this solver".
  // A shove: the whole body gains `velocity` (world, m/s) at once. False
  // where the solver cannot take one.
  virtual bool push(const Vec3& /*velocity*/) { return false; }
  // Muscle activation of every rod body, 0..1 (VIPER).
  virtual void setMuscleActivation(double) {}
  // Other skinned surfaces than surfaceMesh() that the solver moves itself
  // (VIPER's other rod bodies), with their project mesh ids.
  virtual std::vector<std::pair<ObjectId, std::vector<Vec3>>> otherSurfaces() const { return {}; }
  // Rods to draw (VIPER): null when the solver has none.
  virtual const RodLayout* rodLayout() const { return nullptr; }
  virtual RodNodes rodNodes() const { return {}; }
  // Vibration modes (Sheth 2015): the bodies, and the surface at rest with
  // mode `mode` of body `body` at amplitude q (the basis' units).
  virtual std::vector<ModalBodyInfo> modalBodies() const { return {}; }
  virtual std::vector<Vec3> modeShape(size_t /*body*/, int /*mode*/, double /*q*/) const { return {}; }
};

}  // namespace sinew
