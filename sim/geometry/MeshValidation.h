// Checks a triangle mesh for what breaks volumetric meshing and simulation:
// open boundaries, non-manifold edges and vertices, degenerate faces,
// inconsistent orientation and self-intersections.
#pragma once

#include "core/Error.h"
#include "core/Progress.h"
#include "geometry/TriMesh.h"

#include <array>
#include <string>
#include <vector>

namespace sinew {

using Edge = std::array<int32_t, 2>;  // vertex indices, smaller first

struct MeshValidationOptions {
  bool checkSelfIntersections = true;
  // Triangles with area below this fraction of (bbox diagonal)^2, or with a
  // repeated vertex index, are degenerate.
  double degenerateAreaFraction = 1e-12;
  // At most this many items of each kind are listed (all are counted).
  size_t maxListed = 100000;
  // The self-intersection check gives up (and says so) beyond this many
  // candidate pairs: hostile input must not exhaust memory or time.
  size_t maxCandidatePairs = 20'000'000;
};

struct MeshReport {
  size_t vertexCount = 0;
  size_t triangleCount = 0;
  size_t componentCount = 0;          // connected components (by shared vertices)
  size_t unreferencedVertices = 0;    // vertices no triangle uses

  size_t boundaryEdgeCount = 0;       // edges used by one triangle (open boundary)
  size_t nonManifoldEdgeCount = 0;    // edges used by three or more triangles
  size_t nonManifoldVertexCount = 0;  // vertices whose triangle fan is not one disc/half-disc
  size_t degenerateCount = 0;         // zero-area triangles
  size_t misorientedEdgeCount = 0;    // manifold edges whose two triangles disagree on orientation
  size_t selfIntersectionCount = 0;   // intersecting pairs of non-adjacent triangles
  bool selfIntersectionsChecked = false;  // the check ran to completion
  bool selfIntersectionsGaveUp = false;   // the check stopped: too many candidate pairs

  std::vector<Edge> boundaryEdges;
  std::vector<Edge> nonManifoldEdges;
  std::vector<int32_t> nonManifoldVertices;
  std::vector<int32_t> degenerateTriangles;
  std::vector<std::array<int32_t, 2>> intersectingPairs;  // triangle pairs, smaller first

  bool closed() const { return boundaryEdgeCount == 0; }
  bool manifold() const { return nonManifoldEdgeCount == 0 && nonManifoldVertexCount == 0; }
  // Closed, manifold, consistently oriented, no degenerate faces, no self-intersections.
  bool watertight() const {
    return closed() && manifold() && degenerateCount == 0 && misorientedEdgeCount == 0 &&
           selfIntersectionCount == 0;
  }
  // One line per kind of problem found, prefixed by `name` (the mesh or file).
  Diagnostics diagnostics(const std::string& name) const;
  // Triangles to highlight in a viewport: degenerate and self-intersecting ones.
  std::vector<int32_t> problemTriangles() const;
};

MeshReport validateMesh(const TriMesh& mesh, const MeshValidationOptions& options = {},
                        const Progress& progress = Progress::none());

}  // namespace sinew
