// Skinning a surface to rods (Angles et al. 2019, Section 7.4): every pill
// (rod segment) moves by the similarity that takes its rest frame to its
// current one (scale = the segment's mean scale, rotation = its orientation
// relative to rest, translation = its midpoint), and surface vertices blend
// these transforms by linear blend skinning. The weights start proportional
// to the inverse square distance from the vertex to each pill's surface
// (not the nearest pill only, which is ambiguous where pills are equally
// near, as the paper notes of Thiery et al. 2013) and are then faired:
// smoothed over the surface's edges, as a discrete harmonic fairing.
#pragma once

#include "geometry/TriMesh.h"
#include "viper/Rod.h"

#include <vector>

namespace sinew::viper {

struct RodSkinOptions {
  int maxInfluences = 4;       // pills per vertex kept after fairing
  int fairingIterations = 10;  // Jacobi smoothing sweeps over the surface's edges
  double fairing = 0.5;        // per sweep: w <- (1 - f) w + f mean(neighbours' w)
};

// Per-vertex weights in CSR form: vertex v blends pills segment[offsets[v] ..
// offsets[v+1]) with weight[...] (summing to 1).
struct RodSkin {
  std::vector<Vec3> restPositions;
  std::vector<int32_t> offsets, segment;
  std::vector<double> weight;
  size_t vertexCount() const { return restPositions.size(); }
};

// Weights of `surface` (at the rods' rest state) to the pills of `segments`
// (segment indices of `model`; empty: all). Throws InputError when the
// model has no segment or the surface no vertex.
RodSkin buildRodSkin(const TriMesh& surface, const RodModel& model, const std::vector<int32_t>& segments = {},
                     const RodSkinOptions& options = {});

// The similarity of segment j: x_rest -> s R x_rest + t.
struct PillTransform {
  double scale = 1;
  Mat3 rotation = Mat3::Identity();
  Vec3 translation = Vec3::Zero();
};
PillTransform pillTransform(const RodModel& model, const RodState& state, size_t segment);

// The skinned vertex positions for `state`.
std::vector<Vec3> skinnedPositions(const RodSkin& skin, const RodModel& model, const RodState& state);

}  // namespace sinew::viper
