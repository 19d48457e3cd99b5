// Embedding a surface in a tet mesh (Liu et al. 2013, Section 4.2, after Kim
// and Pollard 2011): each surface vertex follows the four nodes of the tet
// around it with fixed barycentric weights, x~ = J_phi x.
#pragma once

#include "core/Progress.h"
#include "volume/TetMesh.h"

#include <Eigen/Sparse>

#include <utility>
#include <vector>

namespace sinew {

// Bounding-volume hierarchy over the boxes of a mesh's tets: point location
// and nearest tet.
class TetTree {
 public:
  TetTree() = default;
  // Builds over `mesh`, which must outlive the tree and not change.
  explicit TetTree(const TetMesh& mesh);

  // The tet containing p (barycentric weights all >= -tolerance); among
  // several, the one where p lies deepest (largest smallest weight), ties by
  // lower index. -1 when p is outside every tet.
  int32_t locate(const Vec3& p, double tolerance = 1e-10) const;
  // The tet nearest to p and the squared distance to it (0 inside), m^2;
  // among tets at the same distance, the one needing the least
  // extrapolation. {-1, inf} for an empty mesh.
  std::pair<int32_t, double> nearest(const Vec3& p) const;

 private:
  struct Node {
    Aabb box;
    int32_t left = -1, right = -1;
    int32_t first = 0, count = 0;
  };
  int32_t build(int32_t first, int32_t count, const std::vector<Vec3>& centres, const std::vector<Aabb>& boxes);

  const TetMesh* mesh_ = nullptr;
  std::vector<Node> nodes_;
  std::vector<int32_t> order_;
};

struct EmbedOptions {
  double insideTolerance = 1e-10;  // barycentric weights >= -tolerance count as inside
};

// Embeds `points` (e.g. a surface's vertices, metres) in `mesh`: for each,
// the containing tet and its barycentric weights, or for points outside
// every tet the nearest tet with extrapolated weights (flagged). Weights
// always sum to 1 and reproduce the point from the rest nodes.
Embedding embedPoints(const std::vector<Vec3>& points, const TetMesh& mesh, const EmbedOptions& options = {},
                      const Progress& progress = Progress::none());

// J_phi of Liu et al. 2013 (Section 4.2): the sparse (nVertices x nNodes)
// matrix with x~ = J_phi x per coordinate; four entries per row.
Eigen::SparseMatrix<double> embeddingMatrix(const Embedding& embedding, const TetMesh& mesh);

}  // namespace sinew
