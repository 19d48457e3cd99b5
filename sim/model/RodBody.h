// Soft bodies made of VIPER rods (Angles et al. 2019), as the user authors
// them: a muscle viperized from its painted surface (sources at the origin,
// sinks at the insertion, its rod ends riding on two bones), or rods made
// directly (an octopus, an elastic band). Plain data: the viper solver
// (sim/viper) builds its model and state from it.
#pragma once

#include "core/Types.h"

#include <array>
#include <string>
#include <vector>

namespace sinew {

// The rods' material (stiffnesses are the k of the paper's potentials).
struct RodMaterial {
  double density = 1000;        // kg/m^3
  double stretch = 1e6;         // k_s^z (eq. 11), Pa
  double shear = 1e6;           // (eq. 11 acts on the whole vector: stretch and shear alike)
  double radial = 1e5;          // k_s^x + k_s^y of eq. 12 (and 13), Pa
  double bend = 1e5;            // H_s of eq. 14 (bend and twist), Pa
  double scaleBend = 1e3;       // k_b^x + k_b^y of eq. 15, Pa
  double volume = 1e6;          // k_v of eq. 18, Pa
  double maxContraction = 0.3;  // fibre rest length at full activation: 1 - this (Section 8.2)
  bool operator==(const RodMaterial&) const = default;
};

struct RodBodyRod {
  std::vector<Vec3> nodes;          // rest centre line (>= 2 nodes), m
  std::vector<double> radii;        // rest radius per node, m
  std::vector<double> contractile;  // per segment, 0..1 (empty: all 1)
  bool operator==(const RodBodyRod&) const = default;
};

// A node held kinematically: it follows `bone` (a skeleton joint's name)
// rigidly from the rest pose, or stays where it is when `bone` is "".
struct RodPin {
  int32_t rod = 0, node = 0;
  std::string bone;
  bool operator==(const RodPin&) const = default;
};

// What the paint tool writes on a muscle surface's vertices.
enum class MusclePaint : uint8_t { None = 0, Source = 1, Sink = 2 };

struct RodBodyObject {
  ObjectId id = 0;
  std::string name;
  ObjectId surface = 0;                  // project mesh skinned to the rods (0: none)
  // Muscle authoring (Section 8.1): paint per surface vertex (empty: none),
  // the bones the ends attach to, and K rods of M nodes for viperize.
  std::vector<MusclePaint> paint;
  std::string originBone, insertionBone;
  int32_t rodCount = 5, sliceCount = 8;
  RodMaterial material;
  double activation = 0;                 // 0..1
  bool selfCollision = true;             // pills of this body collide with each other (off for muscles)
  std::vector<RodBodyRod> rods;
  std::vector<std::vector<std::array<int32_t, 2>>> bundles;  // cross-sections: (rod, node) members
  std::vector<RodPin> pins;
  bool visible = true;
  bool operator==(const RodBodyObject&) const = default;

  size_t nodeCount() const;
  size_t segmentCount() const;
  // Throws InputError(context, "rod body '<name>': ...") naming the rod, node,
  // bundle or pin at fault. `surfaceVertices`: of the mesh `surface` (-1: not checked).
  void validate(const std::string& context, int64_t surfaceVertices = -1) const;
};

}  // namespace sinew
