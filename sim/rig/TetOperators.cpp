#include "rig/TetOperators.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace sinew {

namespace {
bool degenerate(double volume, const Vec3& e1, const Vec3& e2, const Vec3& e3) {
  const double l = std::max({e1.norm(), e2.norm(), e3.norm(), (e2 - e1).norm(), (e3 - e1).norm(), (e3 - e2).norm()});
  return !(std::abs(volume) > 1e-14 * l * l * l);
}

int32_t findRoot(std::vector<int32_t>& parent, int32_t i) {
  while (parent[size_t(i)] != i) {
    parent[size_t(i)] = parent[size_t(parent[size_t(i)])];
    i = parent[size_t(i)];
  }
  return i;
}
}  // namespace

std::array<Vec3, 4> tetGradients(const TetMesh& mesh, size_t t) {
  const Tet& k = mesh.tets[t];
  const Vec3& x0 = mesh.nodes[size_t(k[0])];
  const Vec3 e1 = mesh.nodes[size_t(k[1])] - x0, e2 = mesh.nodes[size_t(k[2])] - x0,
             e3 = mesh.nodes[size_t(k[3])] - x0;
  std::array<Vec3, 4> g;
  const double det = e1.dot(e2.cross(e3));  // 6 V
  if (degenerate(det / 6.0, e1, e2, e3)) {
    g.fill(Vec3::Zero());
    return g;
  }
  // Rows of D^-1 with D = [e1 e2 e3]: grad phi_1..3; phi_0 = 1 - phi_1 - phi_2 - phi_3.
  g[1] = e2.cross(e3) / det;
  g[2] = e3.cross(e1) / det;
  g[3] = e1.cross(e2) / det;
  g[0] = -(g[1] + g[2] + g[3]);
  return g;
}

SparseMatrix stiffnessMatrix(const TetMesh& mesh) {
  const auto n = Eigen::Index(mesh.nodeCount());
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(mesh.tetCount() * 16);
  for (size_t t = 0; t < mesh.tetCount(); ++t) {
    const std::array<Vec3, 4> g = tetGradients(mesh, t);
    const double v = std::abs(tetVolume(mesh, t));
    if (g[0].isZero(0.0) && g[1].isZero(0.0)) continue;
    const Tet& k = mesh.tets[t];
    // Off-diagonals from the element matrix, diagonals as minus their row sum,
    // so that rows sum to zero up to rounding of the assembly only.
    for (int a = 0; a < 4; ++a) {
      double diag = 0;
      for (int b = 0; b < 4; ++b) {
        if (a == b) continue;
        const double kab = v * g[a].dot(g[b]);
        triplets.emplace_back(k[a], k[b], kab);
        diag -= kab;
      }
      triplets.emplace_back(k[a], k[a], diag);
    }
  }
  SparseMatrix K(n, n);
  K.setFromTriplets(triplets.begin(), triplets.end());
  K.makeCompressed();
  return K;
}

Eigen::VectorXd lumpedMass(const TetMesh& mesh) {
  Eigen::VectorXd m = Eigen::VectorXd::Zero(Eigen::Index(mesh.nodeCount()));
  for (size_t t = 0; t < mesh.tetCount(); ++t) {
    const double q = std::abs(tetVolume(mesh, t)) / 4.0;
    for (int32_t i : mesh.tets[t]) m[i] += q;
  }
  return m;
}

SparseMatrix bilaplacian(const SparseMatrix& K, const Eigen::VectorXd& mass) {
  Eigen::VectorXd inv(mass.size());
  for (Eigen::Index i = 0; i < mass.size(); ++i) inv[i] = mass[i] > 0 ? 1.0 / mass[i] : 0.0;
  SparseMatrix MinvK = inv.asDiagonal() * K;
  SparseMatrix Q = (K * MinvK).pruned();
  // K M^-1 K is symmetric in exact arithmetic; make it so bitwise.
  SparseMatrix Qt = Q.transpose();
  SparseMatrix S = 0.5 * (Q + Qt);
  S.makeCompressed();
  return S;
}

std::vector<int32_t> nodeComponents(const TetMesh& mesh, int32_t* outCount) {
  const size_t n = mesh.nodeCount();
  std::vector<int32_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  for (size_t t = 0; t < mesh.tetCount(); ++t) {
    const std::array<Vec3, 4> g = tetGradients(mesh, t);
    if (g[0].isZero(0.0) && g[1].isZero(0.0)) continue;
    const Tet& k = mesh.tets[t];
    for (int c = 1; c < 4; ++c) {
      const int32_t a = findRoot(parent, k[0]), b = findRoot(parent, k[c]);
      if (a != b) parent[size_t(std::max(a, b))] = std::min(a, b);
    }
  }
  std::vector<int32_t> id(n, -1), out(n);
  int32_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    const int32_t r = findRoot(parent, int32_t(i));
    if (id[size_t(r)] < 0) id[size_t(r)] = count++;
    out[i] = id[size_t(r)];
  }
  if (outCount) *outCount = count;
  return out;
}

NodeAdjacency nodeAdjacency(const TetMesh& mesh) {
  const size_t n = mesh.nodeCount();
  std::vector<std::pair<int32_t, int32_t>> edges;
  edges.reserve(mesh.tetCount() * 12);
  for (const Tet& k : mesh.tets)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        if (a != b) edges.emplace_back(k[a], k[b]);
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  NodeAdjacency adj;
  adj.offsets.assign(n + 1, 0);
  for (const auto& e : edges) ++adj.offsets[size_t(e.first) + 1];
  for (size_t i = 0; i < n; ++i) adj.offsets[i + 1] += adj.offsets[i];
  adj.neighbors.reserve(edges.size());
  for (const auto& e : edges) adj.neighbors.push_back(e.second);
  return adj;
}

}  // namespace sinew
