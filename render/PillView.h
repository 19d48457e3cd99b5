// What VIPER rods look like in the viewport (Angles et al. 2019): every rod
// segment a "pill", the tapered capsule swept between its two node spheres,
// coloured by the nodes' scale s (radius = s times the rest radius): blue
// where a rod is thinner than at rest, white at rest, red where it bulges.
// CPU-side, like VolumeView: plain geometry for a MeshItem with vertex colours.
#pragma once

#include "Renderer.h"

#include <array>
#include <vector>

namespace sinew::render {

// The rods to draw: nodes with their current radius and scale, and the
// segments joining them.
struct PillSet {
  std::vector<Vec3> centres;                    // per node, metres
  std::vector<double> radii;                    // per node, metres (s times the rest radius)
  std::vector<double> scales;                   // per node, s (1 at rest)
  std::vector<std::array<int32_t, 2>> segments;  // node pairs
  bool empty() const { return centres.empty(); }
};

struct PillGeometry {
  TriMesh mesh;                // a sphere per node and a cone per segment, own vertices
  std::vector<Vec3f> colors;   // per vertex of `mesh`
};

// Colour of scale s: blue at s <= 1 - kScaleColorRange, white at 1, red at s >= 1 + kScaleColorRange.
inline constexpr double kScaleColorRange = 0.25;
Vec3f scaleColor(double s);

// Spheres of `sides` segments around (and sides / 2 rings), and the cones
// tangent to both spheres of each segment (none where one sphere holds the other).
PillGeometry pillGeometry(const PillSet& pills, int sides = 14);

}  // namespace sinew::render
