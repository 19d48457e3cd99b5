// Automatic skinning weights for the nodes of a tet mesh, and their transfer
// to and from an embedded surface.
//
// Liu et al. 2013 (Section 4.2.2) drive the pose-based plasticity with linear
// blend skinning of the tet nodes, with weights from the bounded biharmonic
// method of Jacobson et al. 2011 "Bounded biharmonic weights for real-time
// deformation" (SIGGRAPH 2011); the nodes fixed to each bone are its handles.
// Weights are dense matrices here (rows: nodes or vertices, columns: bones);
// SkinWeights (sparse, by bone name) is what a project stores.
#pragma once

#include "core/Error.h"
#include "core/Progress.h"
#include "model/SkinWeights.h"
#include "rig/QuadraticProgram.h"
#include "volume/TetMesh.h"

#include <Eigen/Core>

#include <string>
#include <vector>

namespace sinew {

// Dense weights: one row per node (or vertex), one column per bone. Row-major
// so that a vertex's influences are contiguous (painting, skinning).
using WeightMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

enum class WeightMethod : uint8_t {
  BoundedBiharmonic,  // Jacobson et al. 2011: smooth, bounded, local (seconds)
  Harmonic,           // Laplace equation, clamped and renormalised: a fast preview (milliseconds)
};
const char* weightMethodName(WeightMethod m);

struct BoneWeightOptions {
  WeightMethod method = WeightMethod::BoundedBiharmonic;
  BoxQpOptions qp;        // the per-bone box QP (tolerance: KKT residual in weight units)
  bool parallel = true;   // bones solved on TBB worker threads; results are identical either way
};

// How the constrained solve went for one bone (bounded biharmonic only).
struct BoneWeightStats {
  int32_t handleNodes = 0;   // nodes fixed to this bone
  int iterations = 0;        // projected Newton iterations
  int factorizations = 0;    // sparse factorisations in them
  double residual = 0;       // final KKT residual (scaled projected gradient), weight units
  bool converged = false;
  int32_t atZero = 0, atOne = 0;  // free nodes on a bound at the end
  double seconds = 0;
};

struct BoneWeightsResult {
  WeightMatrix weights;                 // (nNodes x nBones), 0 <= w <= 1, rows sum to 1
  std::vector<BoneWeightStats> bones;   // (nBones); empty for the harmonic method
  int totalIterations = 0;              // over all bones
  double maxResidual = 0;               // over all bones
  double partitionDefect = 0;           // max_i |sum_j w_ij - 1| before the final normalisation
  double seconds = 0;                   // wall time
  Diagnostics diagnostics;              // bones without handles, nodes out of reach of every handle
};

// Weights of the nodes of `mesh` for `nBones` bones, given the handles:
// fixedBone[i] is the bone node i is fixed to, or -1 (nNodes). Handle nodes
// get weight 1 for their bone and 0 for the others.
//
// Bounded biharmonic (Jacobson et al. 2011, eq. 3-5), per bone j:
//   minimise 1/2 w_j^T (K M^-1 K) w_j   (K: stiffness, M: lumped mass, TetOperators.h)
//   subject to w_j = 1 on bone j's handles, 0 on the other bones' handles, 0 <= w_j <= 1,
// solved one bone at a time as a box QP over the free nodes (solveBoxQp,
// projected Newton, started from the unconstrained biharmonic solution that
// all bones share one factorisation for), then each row divided by its sum
// (the paper's choice: the separate solves are close to a partition of unity
// already; partitionDefect reports how close).
// Harmonic: K w_j = 0 at free nodes with the same handle values, all bones
// with one factorisation; clamped to [0,1] and renormalised.
//
// Nodes in a part of the mesh that no handle reaches take the weights of the
// nearest handle node (with a warning). Throws InputError when fixedBone has
// the wrong size or a bone index out of range, or when no node is a handle.
// Deterministic.
BoneWeightsResult computeBoneWeights(const TetMesh& mesh, const std::vector<int32_t>& fixedBone, int32_t nBones,
                                     const BoneWeightOptions& options = {},
                                     const Progress& progress = Progress::none());

// Clamps every entry to [0,1] and divides each row by its sum. Rows that sum
// to zero stay zero; their indices are returned.
std::vector<int32_t> clampAndNormalizeRows(WeightMatrix& weights);

// ---------------------------------------------------------------------------
// Dense <-> SkinWeights

struct SparsifyOptions {
  double threshold = 1e-4;   // influences below this are dropped
  int maxInfluences = 0;     // per vertex, the largest kept (0: no limit)
};

// Sparse weights by bone name (names: nBones) from a dense matrix: small
// influences dropped, at most maxInfluences kept (largest first; ties by bone
// index), rows renormalised. A row whose every weight is below the threshold
// keeps its largest influence; an all-zero row stays empty.
SkinWeights toSkinWeights(const WeightMatrix& weights, const std::vector<std::string>& names,
                          const SparsifyOptions& options = {});

// Dense weights (skin.vertexCount() x names.size()) with columns in the order
// of `names`, matched by name. Influences on bones not in `names` are dropped
// (their names appended to *unknownBones when given) and their rows
// renormalised.
WeightMatrix toWeightMatrix(const SkinWeights& skin, const std::vector<std::string>& names,
                            std::vector<std::string>* unknownBones = nullptr);

// ---------------------------------------------------------------------------
// Tet nodes <-> embedded surface

// Surface weights from node weights through the embedding (J_phi of Liu et
// al. 2013): W_surface = J_phi W_nodes, then the small negatives that
// extrapolated vertices get are clamped and rows renormalised
// (nVertices x nBones).
WeightMatrix surfaceWeightsFromNodes(const TetMesh& mesh, const Embedding& embedding, const WeightMatrix& nodeWeights);

// Node weights from (painted) surface weights, so that painting drives the
// tet nodes. A node touched by the surface takes the barycentric-weighted
// average of the vertices around it,
//   W_nodes = (J+^T W_surface) / (J+^T 1),   J+ = max(J_phi, 0),
// a convex combination, so bounds and partition of unity hold exactly;
// handle nodes keep their bone (fixedBone, as in computeBoneWeights; may be
// empty); nodes no vertex touches (deep inside; J+^T 1 < 1e-3) are filled
// harmonically from the known ones. Least squares (min |J_phi W - W_surface|) was rejected: it
// leaves interior nodes undetermined without a regulariser and overshoots
// the bounds at sharp painted borders.
WeightMatrix nodeWeightsFromSurface(const TetMesh& mesh, const Embedding& embedding,
                                    const WeightMatrix& surfaceWeights, const std::vector<int32_t>& fixedBone = {});

}  // namespace sinew
