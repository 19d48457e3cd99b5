// Isosurface extraction by surface nets: one vertex per grid cell that the
// surface crosses, one quad (two triangles) per grid edge that it crosses.
// The result is closed when the field is positive on the grid boundary.
#pragma once

#include "core/Progress.h"
#include "geometry/TriMesh.h"

#include <functional>

namespace sinew {

struct SurfaceNetsOptions {
  double spacing = 0.02;        // grid cell size (metres)
  int projectionSteps = 3;      // Newton steps moving each vertex onto the zero level set
};

// Extracts {x : field(x) = 0} inside `bounds` (grown by two cells); the field
// is negative inside. Triangles face outward (towards positive values).
TriMesh extractSurfaceNets(const std::function<double(const Vec3&)>& field, const Aabb& bounds,
                           const SurfaceNetsOptions& options = {}, const Progress& progress = Progress::none());

}  // namespace sinew
