// The simulation skeleton of a production armature: which joints carry
// volume and are simulated, and which (fingers, toes, face, twist and end
// "nub" bones) follow their simulated ancestor rigidly.
//
// Each joint is given the surface nearest its bone (the segments from the
// joint to its children, or into the flesh along its direction for a leaf);
// from the leaves up, a joint whose share, with the shares of the followers
// below it, reaches `minAreaFraction` of the whole surface is simulated, and
// the rest fold into their parent. Names move the bar: lower for major body
// parts, higher for fingers, toes, face, twist and end bones; the bar rises
// while more than `maxJoints` qualify. Joints outside the surface follow.
// The root is always simulated.
#pragma once

#include "geometry/TriMesh.h"
#include "model/Skeleton.h"

#include <string>
#include <vector>

namespace sinew {

struct SimulationSkeletonOptions {
  double minAreaFraction = 0.015;    // of the surface's area, for a joint to carry volume
  double majorAreaFraction = 0.005;  // ...for one named as a major part ("hand", "neck", "foot", ...)
  double minorAreaFraction = 0.04;   // ...for one named as a small part ("finger", "toe", "eye", "twist", "_end", ...)
  size_t maxJoints = 30;
};

struct SimulationSkeletonChoice {
  std::vector<bool> simulated;     // (nJoints)
  std::vector<double> areaShare;   // (nJoints) surface area fraction each joint carries, followers included
  size_t count() const;
};

// Chooses the simulated joints of `skeleton` inside `surface` (metres).
SimulationSkeletonChoice chooseSimulatedJoints(const Skeleton& skeleton, const TriMesh& surface,
                                               const SimulationSkeletonOptions& options = {});

// Marks the joints (Joint::simulated); a joint that follows loses its bone shape.
void applySimulatedJoints(Skeleton& skeleton, const std::vector<bool>& simulated);

}  // namespace sinew
