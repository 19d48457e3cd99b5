// Constrained Delaunay tetrahedralisation of closed surfaces with TetGen
// (Si 2015), the mesher both volumetric models use: the coarse cage of Liu et
// al. 2013, Section 6 ("we generate the tetrahedral volumetric mesh from the
// low-res surface mesh and the fixed nodes using ... TETGEN") and the
// conforming mesh of Li et al. 2019, Section 4 (TetGen region attributes, one
// region per bone).
//
// TetGen stays behind this interface: no other file includes tetgen.h.
#pragma once

#include "core/Error.h"
#include "core/Progress.h"
#include "geometry/TriMesh.h"
#include "volume/TetMesh.h"

#include <string>
#include <vector>

namespace sinew {

// TetGen's switches, as named quantities.
struct TetrahedralizeOptions {
  // Add Steiner points until every tet meets the bounds below ('q' switch).
  // TetGen guarantees the radius-edge bound (away from small input angles);
  // the dihedral bound is a target its optimisation pursues, not a guarantee.
  bool quality = true;
  double radiusEdgeRatio = 1.5;    // circumradius / shortest edge, > 1 (TetGen's default 2.0)
  double minDihedralDeg = 10.0;    // degrees
  double maxVolume = 0.0;          // m^3 per tet ('a' switch); 0: no bound
  bool preserveSurface = false;    // 'Y': no Steiner points on the input surface
  int maxSteinerPoints = -1;       // 'S': at most this many added points; -1: no limit
  int optimizationLevel = 2;       // 'O': flips and smoothing passes after meshing, 0-10 (TetGen's default 2)
};

// A point strictly inside a closed region of the input (between its
// surfaces) and the region id given to every tet of that region.
struct RegionSeed {
  Vec3 point = Vec3::Zero();  // metres
  int32_t region = 0;         // >= 0
};

struct TetrahedralizeResult {
  TetMesh mesh;  // positively oriented tets; region[] filled (seed ids, -1 elsewhere) when seeds were given
  std::vector<int32_t> surfaceNode;   // (nSurfaceVertices) node of each input vertex, -1 if TetGen dropped it
  std::vector<int32_t> steinerNode;   // (nSteinerPoints) node of each requested point, -1 if dropped (outside)
  std::vector<int32_t> missingRegions;  // seed regions that received no tet (seed outside the domain)
  size_t addedPoints = 0;             // nodes TetGen added (quality, boundary recovery)
  double seconds = 0.0;               // wall time of TetGen itself
};

// Tetrahedralises the volume bounded by `surface`: one or several disjoint,
// closed, outward-oriented shells (an exterior and shells inside it make
// separate regions). `steinerPoints` are inserted as nodes where they lie
// inside; `seeds` name regions. Nodes are in metres, as the input.
//
// Throws InputError(context, "TetGen: <reason>") when TetGen refuses the
// input (self-intersecting or touching facets, a feature too small for its
// tolerance, ...) or fails, e.g. "cage of 'body': TetGen: the surface
// intersects itself".
TetrahedralizeResult tetrahedralizeSurface(const TriMesh& surface, const std::vector<Vec3>& steinerPoints,
                                           const std::vector<RegionSeed>& seeds,
                                           const TetrahedralizeOptions& options, const std::string& context,
                                           const Progress& progress = Progress::none());

// The TetGen switch string for `options` (for logs and reports), e.g. "pzQq1.5/10".
std::string tetgenSwitches(const TetrahedralizeOptions& options, bool withRegions);

// What TetGen's library error code means (the codes it throws in library mode).
std::string tetgenErrorReason(int code);

}  // namespace sinew
