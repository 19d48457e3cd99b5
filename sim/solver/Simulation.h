// What every solver offers the application: step, read the surface and the
// skeleton, measure conservation quantities, snapshot and restore, and be
// pulled by the mouse. The GUI's Simulate panel and `sinew-cli simulate`
// talk to this interface only; each solver (Liu 2013 first) implements it.
#pragma once

#include "core/Types.h"
#include "model/Project.h"

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
};

}  // namespace sinew
