#include "volume/Embed.h"

#include "volume/Closest.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace sinew {

namespace {
constexpr int kLeafSize = 4;

double boxDistanceSquared(const Aabb& b, const Vec3& p) {
  const Vec3 d = (b.min - p).cwiseMax(p - b.max).cwiseMax(0.0);
  return d.squaredNorm();
}

std::array<double, 4> weightsIn(const TetMesh& m, int32_t t, const Vec3& p) {
  const Tet& k = m.tets[size_t(t)];
  return tetBarycentric(p, m.nodes[k[0]], m.nodes[k[1]], m.nodes[k[2]], m.nodes[k[3]]);
}

double minWeight(const std::array<double, 4>& w) { return std::min(std::min(w[0], w[1]), std::min(w[2], w[3])); }
}  // namespace

TetTree::TetTree(const TetMesh& mesh) : mesh_(&mesh) {
  const size_t n = mesh.tetCount();
  if (n == 0) return;
  std::vector<Vec3> centres(n);
  std::vector<Aabb> boxes(n);
  for (size_t t = 0; t < n; ++t) {
    Vec3 c = Vec3::Zero();
    for (int32_t v : mesh.tets[t]) {
      boxes[t].add(mesh.nodes[size_t(v)]);
      c += mesh.nodes[size_t(v)];
    }
    centres[t] = c / 4.0;
  }
  order_.resize(n);
  std::iota(order_.begin(), order_.end(), 0);
  nodes_.reserve(2 * n / kLeafSize + 1);
  build(0, int32_t(n), centres, boxes);
}

int32_t TetTree::build(int32_t first, int32_t count, const std::vector<Vec3>& centres, const std::vector<Aabb>& boxes) {
  const auto index = int32_t(nodes_.size());
  nodes_.emplace_back();
  Aabb box, cbox;
  for (int32_t i = first; i < first + count; ++i) {
    box.add(boxes[size_t(order_[size_t(i)])]);
    cbox.add(centres[size_t(order_[size_t(i)])]);
  }
  nodes_[size_t(index)].box = box;
  if (count <= kLeafSize) {
    nodes_[size_t(index)].first = first;
    nodes_[size_t(index)].count = count;
    return index;
  }
  int axis = 0;
  cbox.size().maxCoeff(&axis);
  const int32_t half = count / 2;
  std::nth_element(order_.begin() + first, order_.begin() + first + half, order_.begin() + first + count,
                   [&](int32_t a, int32_t b) {
                     const double ca = centres[size_t(a)][axis], cb = centres[size_t(b)][axis];
                     return ca != cb ? ca < cb : a < b;
                   });
  const int32_t left = build(first, half, centres, boxes);
  const int32_t right = build(first + half, count - half, centres, boxes);
  nodes_[size_t(index)].left = left;
  nodes_[size_t(index)].right = right;
  return index;
}

int32_t TetTree::locate(const Vec3& p, double tolerance) const {
  if (nodes_.empty()) return -1;
  int32_t best = -1;
  double bestWeight = -std::numeric_limits<double>::infinity();
  const double slack = 1e-12 * std::max(1.0, nodes_[0].box.diagonal());
  std::vector<int32_t> stack{0};
  while (!stack.empty()) {
    const Node& n = nodes_[size_t(stack.back())];
    stack.pop_back();
    if (boxDistanceSquared(n.box, p) > slack * slack) continue;
    if (n.left >= 0) {
      stack.push_back(n.right);
      stack.push_back(n.left);
      continue;
    }
    for (int32_t i = n.first; i < n.first + n.count; ++i) {
      const int32_t t = order_[size_t(i)];
      const double w = minWeight(weightsIn(*mesh_, t, p));
      if (w >= -tolerance && (w > bestWeight || (w == bestWeight && t < best))) {
        best = t;
        bestWeight = w;
      }
    }
  }
  return best;
}

std::pair<int32_t, double> TetTree::nearest(const Vec3& p) const {
  if (nodes_.empty()) return {-1, std::numeric_limits<double>::infinity()};
  int32_t best = -1;
  double bestD2 = std::numeric_limits<double>::infinity(), bestW = -std::numeric_limits<double>::infinity();
  // Distances within this band count as equal (the same closest face seen
  // from neighbouring tets).
  const double band = 1e-9 * std::max(nodes_[0].box.diagonal(), 1e-300);
  std::vector<std::pair<double, int32_t>> stack{{boxDistanceSquared(nodes_[0].box, p), 0}};
  while (!stack.empty()) {
    const auto [boxD2, id] = stack.back();
    stack.pop_back();
    if (std::sqrt(boxD2) > std::sqrt(bestD2) + band) continue;
    const Node& n = nodes_[size_t(id)];
    if (n.left >= 0) {
      const double dl = boxDistanceSquared(nodes_[size_t(n.left)].box, p);
      const double dr = boxDistanceSquared(nodes_[size_t(n.right)].box, p);
      // Nearer child last, so it is visited first.
      if (dl <= dr) {
        stack.push_back({dr, n.right});
        stack.push_back({dl, n.left});
      } else {
        stack.push_back({dl, n.left});
        stack.push_back({dr, n.right});
      }
      continue;
    }
    for (int32_t i = n.first; i < n.first + n.count; ++i) {
      const int32_t t = order_[size_t(i)];
      const Tet& k = mesh_->tets[size_t(t)];
      const auto& x = mesh_->nodes;
      const double d2 = pointTetDistanceSquared(p, x[k[0]], x[k[1]], x[k[2]], x[k[3]]);
      const double d = std::sqrt(d2), bd = std::sqrt(bestD2);
      const double w = minWeight(weightsIn(*mesh_, t, p));
      const bool closer = d < bd - band;
      const bool tie = !closer && d <= bd + band;
      if (closer || (tie && (w > bestW || (w == bestW && t < best)))) {
        best = t;
        bestD2 = std::min(bestD2, d2);
        bestW = w;
      }
    }
  }
  return {best, bestD2};
}

Embedding embedPoints(const std::vector<Vec3>& points, const TetMesh& mesh, const EmbedOptions& options,
                      const Progress& progress) {
  Embedding e;
  const size_t n = points.size();
  e.tet.assign(n, -1);
  e.weights.assign(n, {0, 0, 0, 0});
  e.extrapolated.assign(n, 0);
  if (mesh.tets.empty()) return e;
  const TetTree tree(mesh);
  for (size_t v = 0; v < n; ++v) {
    if ((v & 1023) == 0) progress.update(double(v) / double(n), "embedding");
    int32_t t = tree.locate(points[v], options.insideTolerance);
    if (t < 0) {
      t = tree.nearest(points[v]).first;
      e.extrapolated[v] = 1;
    }
    e.tet[v] = t;
    e.weights[v] = weightsIn(mesh, t, points[v]);
  }
  progress.update(1.0, "embedding");
  return e;
}

Eigen::SparseMatrix<double> embeddingMatrix(const Embedding& e, const TetMesh& mesh) {
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(4 * e.vertexCount());
  for (size_t v = 0; v < e.vertexCount(); ++v) {
    const Tet& k = mesh.tets[size_t(e.tet[v])];
    for (int c = 0; c < 4; ++c) entries.emplace_back(int(v), int(k[c]), e.weights[v][size_t(c)]);
  }
  Eigen::SparseMatrix<double> j(Eigen::Index(e.vertexCount()), Eigen::Index(mesh.nodeCount()));
  j.setFromTriplets(entries.begin(), entries.end());  // duplicates (never in a valid tet) would be summed
  return j;
}

}  // namespace sinew
