// Test character files made by Sinew's own code (examples/ExchangeCharacters.h):
// the example's surface in an A-pose with no skeleton, as a bare OBJ, for the
// CLI and GUI journeys from a bare mesh to a simulation.
#pragma once

#include "examples/ExchangeCharacters.h"
#include "examples/Humanoid.h"
#include "io/AssimpImport.h"

#include <string>

namespace sinew::test {

// Writes the A-pose surface (arms `degrees` down, surface cells of `spacing`
// metres) to `path` (.obj) and returns the path.
inline std::string writeBareAPose(const std::string& path, double spacing, double degrees = 40) {
  HumanoidOptions o;
  o.gridSpacing = spacing;
  const BarePose pose = makeAPoseSurface(makeHumanoidProject(o), degrees);
  MeshObject m;
  m.name = "Body";
  m.mesh = pose.surface;
  exportMeshes({&m}, path);
  return path;
}

}  // namespace sinew::test
