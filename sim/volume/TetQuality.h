// Element quality of a tet mesh: the figures a volumetric model's report
// shows (and that tests hold TetGen to).
//
// Measures of one tet (regular tet in brackets):
//  - dihedral angles, degrees [70.53 each]: small ones make slivers and
//    ill-conditioned stiffness, large ones (near 180) make flat "caps";
//  - radius-edge ratio: circumradius / shortest edge [0.612]; TetGen's 'q'
//    switch bounds it;
//  - volume-edge ratio: 6 sqrt(2) volume / (longest edge)^3 [1]; near 0 for
//    any flat tet (sliver, cap, needle, wedge).
// A tet is a sliver when its smallest dihedral angle is below
// `sliverDihedralDeg` or its volume-edge ratio below `sliverVolumeEdge`.
#pragma once

#include "volume/TetMesh.h"

#include <string>
#include <vector>

namespace sinew {

struct TetShape {
  double volume = 0;          // signed, m^3
  double minDihedralDeg = 0;  // degrees
  double maxDihedralDeg = 0;  // degrees
  double radiusEdge = 0;      // circumradius / shortest edge (infinity when flat)
  double volumeEdge = 0;      // 6 sqrt(2) volume / longest edge^3 (negative when inverted)
};

// Shape of the tet (x0, x1, x2, x3).
TetShape tetShape(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3);
TetShape tetShape(const TetMesh& mesh, size_t t);

struct TetQualityOptions {
  double sliverDihedralDeg = 5.0;
  double sliverVolumeEdge = 0.01;
  size_t worstCount = 10;      // how many of the worst tets to list
};

struct TetQuality {
  size_t nodeCount = 0;
  size_t tetCount = 0;
  size_t invertedCount = 0;       // volume <= 0
  size_t sliverCount = 0;
  double totalVolume = 0;         // m^3
  double minVolume = 0, maxVolume = 0;  // m^3
  double minDihedralDeg = 0, maxDihedralDeg = 0;
  double maxRadiusEdge = 0, meanRadiusEdge = 0;
  double minVolumeEdge = 0, meanVolumeEdge = 0;
  // The worst tets (at most worstCount): ascending smallest dihedral angle,
  // ties by index; inverted tets first.
  std::vector<int32_t> worst;
};

TetQuality measureTetQuality(const TetMesh& mesh, const TetQualityOptions& options = {});

// One-line summary, e.g. "1204 nodes, 4012 tets, dihedral 11.2-158.3 deg,
// radius-edge max 1.49 mean 0.81, 0 slivers, 0 inverted".
std::string describeTetQuality(const TetQuality& q);

}  // namespace sinew
