// A closed, manifold, self-intersection-free surface enclosing any input
// surface (open, non-manifold, self-intersecting, several pieces): the first
// step of the automatic coarse cage (Liu et al. 2013 drew theirs by hand,
// Section 6: "we first manually generate a low resolution surface mesh to
// enclose the fine surface mesh").
//
// How: on a regular grid,
//  1. solid = grid points within `offset` of the surface (unsigned distance),
//     plus, when the surface has open edges, the points whose generalised
//     winding number is at least 1/2 (so a cube with a missing face is
//     filled, not hollow);
//     and the eight corners of the cell around every input vertex;
//  2. everything not reachable from the grid boundary through empty points
//     becomes solid (closed surfaces are filled, cavities removed);
//  3. the solid set is made well-composed (Latecki 1997): voxels are added
//     where two solid voxels meet only along an edge or at a corner (or two
//     empty ones do), so that the boundary of the union of voxels is a
//     2-manifold;
//  4. that boundary is extracted with one vertex per grid cell (surface nets:
//     the vertex moves from the cell centre to the mean of the offset
//     surface's crossings of the cell's edges); where moving vertices makes
//     two triangles intersect, those vertices go back to their cell centres,
//     where the surface is exactly the (embedded) boundary of the voxels.
// Every input vertex lies strictly inside the result (its cell is solid, and
// the surface only passes through cells with solid and empty corners); the
// rest of the input lies within about `offset` of the inside.
#pragma once

#include "core/Progress.h"
#include "geometry/TriMesh.h"

namespace sinew {

struct HullOptions {
  double spacing = 0.02;         // grid cell size, metres
  double offset = 0.02;          // distance kept outside the surface, metres
  bool windingFill = true;       // fill open surfaces by winding number
  size_t maxGridPoints = 16'000'000;  // refuse larger grids (InputError)
};

struct HullReport {
  int gridSize[3] = {0, 0, 0};   // grid points along x, y, z
  bool openInput = false;        // the input had open edges (winding fill ran)
  size_t solidPoints = 0;        // grid points inside the hull
  size_t wellComposedAdded = 0;  // voxels added to make the boundary manifold
  size_t centredVertices = 0;    // vertices put back at their cell centre (self-intersections)
  double seconds = 0.0;
};

// Throws InputError("hull: ...") when the input is empty or the grid would
// be too large.
TriMesh voxelHull(const TriMesh& surface, const HullOptions& options = {}, const Progress& progress = Progress::none(),
                  HullReport* report = nullptr);

}  // namespace sinew
