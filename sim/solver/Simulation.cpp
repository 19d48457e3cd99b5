#include "solver/Simulation.h"

namespace sinew {

const char* dampingModeName(DampingMode m) {
  switch (m) {
    case DampingMode::Pose: return "pose";
    case DampingMode::Rayleigh: return "rayleigh";
    case DampingMode::None: return "none";
  }
  return "?";
}

const char* driveModeName(DriveMode m) {
  switch (m) {
    case DriveMode::Hold: return "hold";
    case DriveMode::Kinematic: return "kinematic";
    case DriveMode::Pd: return "pd";
  }
  return "?";
}

}  // namespace sinew
