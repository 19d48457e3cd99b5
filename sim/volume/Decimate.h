// Edge-collapse simplification of a closed manifold surface with quadric
// error metrics (Garland and Heckbert 1997), constrained so that the result
// stays a closed, manifold, consistently oriented surface without
// self-intersections, and keeps given points inside:
//  - topology: the link condition (Dey et al. 1999) on every collapse;
//  - shape: new triangles keep their orientation (bounded normal change),
//    a minimum shape quality and no folds against their neighbours;
//  - no self-intersections: new triangles are tested exactly against the
//    triangles near them (uniform grid);
//  - enclosure: a collapse of edge (a, b) to p sweeps exactly the union of
//    the tets (p, T) over the old triangles T around a and b, so no point to
//    keep inside may lie in those tets, nor closer than `clearance` to the
//    new triangles.
// Used to bring the voxel hull down to the coarse cage (Liu et al. 2013) and
// to simplify the exterior of a conforming mesh (Li et al. 2019).
#pragma once

#include "core/Progress.h"
#include "geometry/TriMesh.h"

#include <limits>
#include <memory>
#include <vector>

namespace sinew {

struct DecimateOptions {
  std::vector<Vec3> keepInside;      // points that must stay inside the surface, metres
  double clearance = 0.0;            // least distance from those points to the surface, metres
  double minTriangleQuality = 0.2;   // 4 sqrt(3) area / sum of squared edges (1: equilateral)
  double maxNormalChangeDeg = 60.0;  // per collapse, for each changed triangle
  double minFoldCos = -0.6;          // cosine of the angle between neighbouring normals, at least
  double lengthWeight = 0.05;        // cost += lengthWeight * edge length^4 (favours even triangles)
  bool preventIntersections = true;
};

struct DecimateReport {
  size_t inputVertices = 0;
  size_t outputVertices = 0;
  size_t collapses = 0;
  size_t rejected = 0;              // candidate collapses refused by a constraint
  size_t improvements = 0;          // flips and vertex moves made by improve()
  bool reachedTarget = false;
  double seconds = 0.0;
};

// Progressive simplification that can be continued: run(n1) then run(n2)
// with n2 < n1 gives the same mesh as run(n2) alone would not necessarily,
// but each call only removes vertices. Deterministic.
class Decimator {
 public:
  // Throws InputError("simplify: ...") unless `mesh` is closed, manifold and
  // consistently oriented.
  Decimator(const TriMesh& mesh, const DecimateOptions& options);
  ~Decimator();
  Decimator(const Decimator&) = delete;
  Decimator& operator=(const Decimator&) = delete;

  // Collapses edges, cheapest first, until at most `targetVertices` remain or
  // no allowed collapse is left; returns whether the target was reached.
  bool run(size_t targetVertices, const Progress& progress = Progress::none());
  // Improves triangle shapes without changing the vertex count, under the
  // same constraints: flips across nearly flat edges, then tangential
  // smoothing moves that improve the worst triangle around a vertex.
  void improve(int rounds = 3, const Progress& progress = Progress::none());
  size_t vertexCount() const;
  // The current surface, compacted (vertices in their original order).
  TriMesh mesh() const;
  const DecimateReport& report() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// One-shot form.
TriMesh decimateSurface(const TriMesh& mesh, size_t targetVertices, const DecimateOptions& options = {},
                        const Progress& progress = Progress::none(), DecimateReport* report = nullptr);

}  // namespace sinew
