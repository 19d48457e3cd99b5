// The coarse volumetric cage of Liu et al. 2013, built automatically.
//
// The paper (Section 6) draws a low-resolution surface around the fine
// surface by hand, places fixed nodes on the bones, and tetrahedralises with
// TetGen into about 1.2K nodes and 4K tets; the fine surface is embedded in
// the cage (Section 4.2) and the fixed nodes couple it to the skeleton
// (Section 4.3). Here, from ANY surface (closed or open, non-manifold,
// self-intersecting, several pieces):
//  1. voxelHull(): a closed manifold hull `offset` outside the surface;
//  2. Decimator: quadric simplification of the hull to the size that gives
//     about `targetNodes` nodes, never letting a surface vertex or bone
//     anchor out, never self-intersecting;
//  3. tetrahedralizeSurface(): TetGen with quality bounds, the bone shapes'
//     anchor points (fixedNodeAnchors) inserted as nodes;
//  4. every node inside a bone shape is fixed to that bone; every bone must
//     hold at least four non-coplanar fixed nodes;
//  5. the surface is embedded in the cage (every vertex inside, or flagged).
#pragma once

#include "core/Progress.h"
#include "model/Project.h"
#include "volume/Decimate.h"
#include "volume/Hull.h"
#include "volume/TetQuality.h"
#include "volume/Tetrahedralize.h"

#include <string>

namespace sinew {

struct CageOptions {
  size_t targetNodes = 1200;     // about this many tet nodes (within nodeTolerance)
  double nodeTolerance = 0.1;    // accepted relative deviation from targetNodes
  double spacing = 0;            // hull grid cell, metres; 0: from the target (a third of the cage's edge length)
  double offset = 0;             // hull distance outside the surface, metres; 0: one cell
  // The simplified hull is kept as it is ('Y'): splitting its faces would
  // triple the node count for the same interior resolution.
  TetrahedralizeOptions tetgen{.quality = true, .radiusEdgeRatio = 1.6, .minDihedralDeg = 12.0, .preserveSurface = true};
  bool embedSurface = true;      // fill VolumeObject::embedding with the surface's vertices
  std::string name = "Cage";
};

struct CageReport {
  size_t surfaceVertices = 0;       // of the input
  size_t hullVertices = 0;          // voxel hull before simplification
  size_t cageVertices = 0;          // simplified cage surface
  size_t cageTriangles = 0;
  size_t nodes = 0, tets = 0;
  size_t anchors = 0;               // bone anchor points requested as nodes
  size_t anchorsInserted = 0;
  size_t fixedNodes = 0;
  std::vector<size_t> fixedPerBone; // (nBones)
  size_t extrapolatedVertices = 0;  // surface vertices outside the cage (0 unless something went wrong)
  double spacing = 0, offset = 0;   // metres, as used
  int tetgenRuns = 0;
  TetQuality quality;
  HullReport hull;
  DecimateReport simplify;
  double hullSeconds = 0, simplifySeconds = 0, tetgenSeconds = 0, embedSeconds = 0, totalSeconds = 0;
  Diagnostics diagnostics;          // one line per finding, for the Log panel / CLI
};

struct CageResult {
  VolumeObject volume;   // kind Cage, name, mesh (no regions), bones, fixedBone, embedding; id and surface are 0
  TriMesh cageSurface;   // the simplified hull TetGen meshed
  CageReport report;
};

// Builds the cage around `surface` (metres). Bones are the skeleton's joints
// with a bone shape (an empty skeleton or one without shapes gives a cage
// without fixed nodes). Throws InputError("<name>: ...") when no cage can be
// built: empty surface, TetGen failure, or a bone left with fewer than four
// non-coplanar fixed nodes (its shape lies outside the surface).
CageResult buildCage(const TriMesh& surface, const Skeleton& skeleton, const CageOptions& options = {},
                     const Progress& progress = Progress::none());

}  // namespace sinew
