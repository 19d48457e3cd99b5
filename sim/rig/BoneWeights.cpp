#include "rig/BoneWeights.h"

#include "rig/TetOperators.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <unordered_map>

namespace sinew {

const char* weightMethodName(WeightMethod m) {
  switch (m) {
    case WeightMethod::BoundedBiharmonic: return "bounded biharmonic";
    case WeightMethod::Harmonic: return "harmonic";
  }
  return "?";
}

namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The nodes that are unknowns (`free`, ascending) and the Dirichlet nodes
// (`known`, ascending) of a solve; nodes in components without any known node
// are in neither (`unreached`).
struct Partition {
  std::vector<int32_t> free, known, unreached;
};

Partition partitionNodes(const TetMesh& mesh, const std::vector<uint8_t>& isKnown) {
  int32_t nComponents = 0;
  const std::vector<int32_t> component = nodeComponents(mesh, &nComponents);
  std::vector<uint8_t> reached(size_t(nComponents), 0);
  for (size_t i = 0; i < isKnown.size(); ++i)
    if (isKnown[i]) reached[size_t(component[i])] = 1;
  Partition p;
  for (size_t i = 0; i < isKnown.size(); ++i) {
    if (isKnown[i]) p.known.push_back(int32_t(i));
    else if (reached[size_t(component[i])]) p.free.push_back(int32_t(i));
    else p.unreached.push_back(int32_t(i));
  }
  return p;
}

// Dirichlet solve of A X = 0 at the free nodes with X = values at the known
// nodes (values: known.size() x nCols, rows in the order of p.known); writes
// the free rows of `out` (nNodes x nCols). False if A_FF is not positive definite.
bool solveDirichlet(const SparseMatrix& A, const Partition& p, const Eigen::MatrixXd& values, WeightMatrix& out) {
  if (p.free.empty()) return true;
  const SparseMatrix AFF = principalSubmatrix(A, p.free);
  const SparseMatrix AFK = submatrix(A, p.free, p.known);
  const SpdFactor factor(AFF);
  if (!factor.ok()) return false;
  const Eigen::MatrixXd X = factor.solve(-(AFK * values));
  for (size_t k = 0; k < p.free.size(); ++k) out.row(p.free[k]) = X.row(Eigen::Index(k));
  return true;
}

// Rows `nodes` of `out` become the weights of the nearest node in `sources`
// (a copy of that node's row). Ties go to the lower index.
void copyNearest(const TetMesh& mesh, const std::vector<int32_t>& nodes, const std::vector<int32_t>& sources,
                 WeightMatrix& out) {
  for (int32_t i : nodes) {
    int32_t best = -1;
    double bestD = std::numeric_limits<double>::infinity();
    for (int32_t s : sources) {
      const double d = (mesh.nodes[size_t(s)] - mesh.nodes[size_t(i)]).squaredNorm();
      if (d < bestD) {
        bestD = d;
        best = s;
      }
    }
    if (best >= 0) out.row(i) = out.row(best);
  }
}

void checkHandles(const TetMesh& mesh, const std::vector<int32_t>& fixedBone, int32_t nBones) {
  if (fixedBone.size() != mesh.nodeCount())
    throw InputError("", "skinning weights: " + std::to_string(fixedBone.size()) + " handle entries for " +
                             std::to_string(mesh.nodeCount()) + " tet nodes");
  if (nBones <= 0) throw InputError("", "skinning weights: there are no bones");
  bool any = false;
  for (int32_t b : fixedBone) {
    if (b < -1 || b >= nBones)
      throw InputError("", "skinning weights: handle bone index " + std::to_string(b) + " out of range");
    any = any || b >= 0;
  }
  if (!any) throw InputError("", "skinning weights: no tet node is fixed to a bone");
  for (const Tet& t : mesh.tets)
    for (int32_t i : t)
      if (i < 0 || size_t(i) >= mesh.nodeCount()) throw InputError("", "skinning weights: tet node index out of range");
}

}  // namespace

std::vector<int32_t> clampAndNormalizeRows(WeightMatrix& w) {
  std::vector<int32_t> zero;
  for (Eigen::Index i = 0; i < w.rows(); ++i) {
    double sum = 0;
    for (Eigen::Index j = 0; j < w.cols(); ++j) {
      const double v = std::clamp(w(i, j), 0.0, 1.0);
      w(i, j) = std::isnan(v) ? 0.0 : v;
      sum += w(i, j);
    }
    // Each w_ij <= sum (a floating-point sum of non-negatives never falls
    // below a term), so w_ij / sum <= 1 exactly.
    if (sum > 0) w.row(i) /= sum;
    else zero.push_back(int32_t(i));
  }
  return zero;
}

BoneWeightsResult computeBoneWeights(const TetMesh& mesh, const std::vector<int32_t>& fixedBone, int32_t nBones,
                                     const BoneWeightOptions& options, const Progress& progress) {
  const auto t0 = Clock::now();
  checkHandles(mesh, fixedBone, nBones);
  const size_t n = mesh.nodeCount();
  BoneWeightsResult result;
  WeightMatrix W = WeightMatrix::Zero(Eigen::Index(n), nBones);

  // Handles: one-hot rows; the Dirichlet values of every solve.
  std::vector<uint8_t> isHandle(n, 0);
  std::vector<int32_t> handleCount(size_t(nBones), 0);
  for (size_t i = 0; i < n; ++i)
    if (fixedBone[i] >= 0) {
      isHandle[i] = 1;
      W(Eigen::Index(i), fixedBone[i]) = 1.0;
      ++handleCount[size_t(fixedBone[i])];
    }
  const Partition part = partitionNodes(mesh, isHandle);
  Eigen::MatrixXd handleValues = Eigen::MatrixXd::Zero(Eigen::Index(part.known.size()), nBones);
  for (size_t k = 0; k < part.known.size(); ++k) handleValues(Eigen::Index(k), fixedBone[size_t(part.known[k])]) = 1.0;
  for (int32_t b = 0; b < nBones; ++b)
    if (handleCount[size_t(b)] == 0)
      result.diagnostics.push_back({Severity::Warning, "bone " + std::to_string(b) +
                                                           " has no fixed tet nodes: its weights are zero"});

  progress.update(0.0, "stiffness matrix");
  const SparseMatrix K = stiffnessMatrix(mesh);

  if (options.method == WeightMethod::Harmonic) {
    progress.update(0.3, "harmonic weights");
    if (!solveDirichlet(K, part, handleValues, W))
      result.diagnostics.push_back({Severity::Warning, "the stiffness matrix is singular: degenerate tets"});
  } else {
    // The unconstrained biharmonic solutions (all bones, one factorisation)
    // start the constrained solves: most of their free nodes are already
    // feasible, so few active-set changes remain.
    progress.update(0.05, "bilaplacian");
    const SparseMatrix Q = bilaplacian(K, lumpedMass(mesh));
    const SparseMatrix QFF = principalSubmatrix(Q, part.free);
    const Eigen::MatrixXd B = submatrix(Q, part.free, part.known) * handleValues;  // linear terms (nFree x nBones)
    Eigen::MatrixXd X0 = Eigen::MatrixXd::Zero(B.rows(), nBones);
    if (!part.free.empty()) {
      progress.update(0.1, "unconstrained biharmonic weights");
      const SpdFactor factor(QFF);
      if (factor.ok()) X0 = factor.solve(-B);
      else result.diagnostics.push_back({Severity::Warning, "the bilaplacian is singular: degenerate tets"});
    }

    // One box QP per bone, in parallel; each is independent and
    // deterministic, so the threads change nothing but the time. Batches let
    // this thread report progress between them.
    result.bones.resize(size_t(nBones));
    Eigen::MatrixXd X = Eigen::MatrixXd::Zero(B.rows(), nBones);
    const Eigen::VectorXd lower = Eigen::VectorXd::Zero(B.rows()), upper = Eigen::VectorXd::Ones(B.rows());
    auto solveBone = [&](int32_t b) {
      const auto tb = Clock::now();
      BoneWeightStats& s = result.bones[size_t(b)];
      s.handleNodes = handleCount[size_t(b)];
      if (s.handleNodes == 0 || part.free.empty()) {
        s.converged = true;
        return;
      }
      Eigen::VectorXd x = X0.col(b);
      const BoxQpResult r = solveBoxQp(QFF, B.col(b), lower, upper, x, options.qp, progress);
      X.col(b) = x;
      s.iterations = r.iterations;
      s.factorizations = r.factorizations;
      s.residual = r.residual;
      s.converged = r.converged;
      s.atZero = r.atLower;
      s.atOne = r.atUpper;
      s.seconds = secondsSince(tb);
    };
    const int32_t batch = options.parallel ? std::max(1, 2 * tbb::this_task_arena::max_concurrency()) : 1;
    for (int32_t first = 0; first < nBones; first += batch) {
      progress.update(0.15 + 0.8 * double(first) / double(nBones), "bounded biharmonic weights");
      const int32_t last = std::min(nBones, first + batch);
      if (options.parallel)
        tbb::parallel_for(first, last, [&](int32_t b) { solveBone(b); });
      else
        for (int32_t b = first; b < last; ++b) solveBone(b);
    }
    for (size_t k = 0; k < part.free.size(); ++k) W.row(part.free[k]) = X.row(Eigen::Index(k));
    for (int32_t b = 0; b < nBones; ++b) {
      const BoneWeightStats& s = result.bones[size_t(b)];
      result.totalIterations += s.iterations;
      result.maxResidual = std::max(result.maxResidual, s.residual);
      if (!s.converged)
        result.diagnostics.push_back({Severity::Warning, "bone " + std::to_string(b) + ": the weight solve stopped at KKT residual " +
                                                             std::to_string(s.residual)});
    }
  }

  // Partition of unity: each row divided by its sum (exact for harmonic
  // weights up to the clamping of tiny overshoots at poorly shaped tets).
  for (int32_t i : part.free) result.partitionDefect = std::max(result.partitionDefect, std::abs(W.row(i).sum() - 1.0));
  // Rows that come out all zero: the unreached nodes, and (not seen in
  // practice) free nodes every bone's solve left at zero.
  std::vector<int32_t> orphans = clampAndNormalizeRows(W);
  if (!orphans.empty()) {
    copyNearest(mesh, orphans, part.known, W);
    result.diagnostics.push_back({Severity::Warning, std::to_string(orphans.size()) +
                                                         " tet nodes are not connected to any fixed node: they follow the nearest one"});
  }
  result.weights = std::move(W);
  result.seconds = secondsSince(t0);
  progress.update(1.0, weightMethodName(options.method));
  return result;
}

// ---------------------------------------------------------------------------

SkinWeights toSkinWeights(const WeightMatrix& w, const std::vector<std::string>& names, const SparsifyOptions& o) {
  assert(Eigen::Index(names.size()) == w.cols());
  SkinWeights s;
  s.bones = names;
  s.offsets.reserve(size_t(w.rows()) + 1);
  s.offsets.push_back(0);
  std::vector<std::pair<double, int32_t>> row;
  for (Eigen::Index i = 0; i < w.rows(); ++i) {
    row.clear();
    int32_t best = -1;
    for (Eigen::Index j = 0; j < w.cols(); ++j) {
      const double v = w(i, j);
      if (!(v > 0)) continue;
      if (best < 0 || v > w(i, best)) best = int32_t(j);
      if (v >= o.threshold) row.emplace_back(v, int32_t(j));
    }
    if (row.empty() && best >= 0) row.emplace_back(w(i, best), best);
    // Largest first, ties by bone index; then back to bone order.
    std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    if (o.maxInfluences > 0 && row.size() > size_t(o.maxInfluences)) row.resize(size_t(o.maxInfluences));
    std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    double sum = 0;
    for (const auto& [v, j] : row) sum += v;
    for (const auto& [v, j] : row) {
      s.bone.push_back(j);
      s.weight.push_back(v / sum);
    }
    s.offsets.push_back(int32_t(s.bone.size()));
  }
  return s;
}

WeightMatrix toWeightMatrix(const SkinWeights& skin, const std::vector<std::string>& names,
                            std::vector<std::string>* unknownBones) {
  std::unordered_map<std::string, int32_t> column;
  for (size_t j = 0; j < names.size(); ++j) column.emplace(names[j], int32_t(j));
  std::vector<int32_t> map(skin.bones.size(), -1);
  for (size_t b = 0; b < skin.bones.size(); ++b) {
    const auto it = column.find(skin.bones[b]);
    if (it != column.end()) map[b] = it->second;
  }
  std::vector<uint8_t> reported(skin.bones.size(), 0);
  WeightMatrix w = WeightMatrix::Zero(Eigen::Index(skin.vertexCount()), Eigen::Index(names.size()));
  for (size_t v = 0; v < skin.vertexCount(); ++v) {
    bool dropped = false;
    for (int32_t k = skin.offsets[v]; k < skin.offsets[v + 1]; ++k) {
      const int32_t b = skin.bone[size_t(k)];
      if (map[size_t(b)] >= 0) {
        w(Eigen::Index(v), map[size_t(b)]) += skin.weight[size_t(k)];
      } else if (skin.weight[size_t(k)] != 0) {
        dropped = true;
        if (unknownBones && !reported[size_t(b)]) unknownBones->push_back(skin.bones[size_t(b)]);
        reported[size_t(b)] = 1;
      }
    }
    const double sum = w.row(Eigen::Index(v)).sum();
    if (dropped && sum > 0) w.row(Eigen::Index(v)) /= sum;
  }
  return w;
}

// ---------------------------------------------------------------------------

WeightMatrix surfaceWeightsFromNodes(const TetMesh& mesh, const Embedding& e, const WeightMatrix& nodeWeights) {
  assert(size_t(nodeWeights.rows()) == mesh.nodeCount());
  WeightMatrix w = WeightMatrix::Zero(Eigen::Index(e.vertexCount()), nodeWeights.cols());
  for (size_t v = 0; v < e.vertexCount(); ++v) {
    const Tet& t = mesh.tets[size_t(e.tet[v])];
    for (int c = 0; c < 4; ++c) w.row(Eigen::Index(v)) += e.weights[v][size_t(c)] * nodeWeights.row(t[size_t(c)]);
  }
  // Extrapolated vertices (outside the mesh) can come out slightly negative.
  clampAndNormalizeRows(w);
  return w;
}

WeightMatrix nodeWeightsFromSurface(const TetMesh& mesh, const Embedding& e, const WeightMatrix& surfaceWeights,
                                    const std::vector<int32_t>& fixedBone) {
  const size_t n = mesh.nodeCount();
  const Eigen::Index nBones = surfaceWeights.cols();
  assert(size_t(surfaceWeights.rows()) == e.vertexCount());
  assert(fixedBone.empty() || fixedBone.size() == n);
  WeightMatrix W = WeightMatrix::Zero(Eigen::Index(n), nBones);
  Eigen::VectorXd denom = Eigen::VectorXd::Zero(Eigen::Index(n));
  // J+^T W and J+^T 1.
  for (size_t v = 0; v < e.vertexCount(); ++v) {
    const Tet& t = mesh.tets[size_t(e.tet[v])];
    for (int c = 0; c < 4; ++c) {
      const double a = std::max(0.0, e.weights[v][size_t(c)]);
      if (a == 0) continue;
      W.row(t[size_t(c)]) += a * surfaceWeights.row(Eigen::Index(v));
      denom[t[size_t(c)]] += a;
    }
  }
  // A node counts as touched when the vertices around it give it at least
  // this much barycentric weight in all (one vertex at the node gives 1);
  // grazing touches (a vertex on the far face of a tet) say nothing about it.
  constexpr double kTouched = 1e-3;
  std::vector<uint8_t> known(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (!fixedBone.empty() && fixedBone[i] >= 0 && fixedBone[i] < nBones) {
      W.row(Eigen::Index(i)).setZero();
      W(Eigen::Index(i), fixedBone[i]) = 1.0;
      known[i] = 1;
    } else if (denom[Eigen::Index(i)] >= kTouched) {
      W.row(Eigen::Index(i)) /= denom[Eigen::Index(i)];
      known[i] = 1;
    } else {
      W.row(Eigen::Index(i)).setZero();
    }
  }
  // Untouched nodes: harmonic interpolation of the known ones.
  const Partition part = partitionNodes(mesh, known);
  if (!part.free.empty()) {
    Eigen::MatrixXd values(Eigen::Index(part.known.size()), nBones);
    for (size_t k = 0; k < part.known.size(); ++k) values.row(Eigen::Index(k)) = W.row(part.known[k]);
    if (!solveDirichlet(stiffnessMatrix(mesh), part, values, W)) copyNearest(mesh, part.free, part.known, W);
  }
  copyNearest(mesh, part.unreached, part.known, W);
  clampAndNormalizeRows(W);
  return W;
}

}  // namespace sinew
