#include "geometry/TriangleTree.h"

#include "geometry/Intersect.h"

#include <algorithm>
#include <numeric>

namespace sinew {

namespace {
constexpr int32_t kLeafSize = 4;

Aabb inflated(const Aabb& b, double r) {
  Aabb o = b;
  o.min.array() -= r;
  o.max.array() += r;
  return o;
}
}  // namespace

TriangleTree::TriangleTree(const TriMesh& mesh) : mesh_(&mesh) {
  const auto n = static_cast<int32_t>(mesh.triangleCount());
  if (n == 0) return;
  triBoxes_.resize(n);
  std::vector<Vec3> centroids(n);
  for (int32_t t = 0; t < n; ++t) {
    Aabb b;
    for (int32_t v : mesh.triangles[t]) b.add(mesh.positions[v]);
    triBoxes_[t] = b;
    centroids[t] = b.center();
  }
  order_.resize(n);
  std::iota(order_.begin(), order_.end(), 0);
  nodes_.reserve(2 * n / kLeafSize + 2);
  build(0, n, centroids, triBoxes_);
}

// Median split along the longest axis of the centroid bounds.
int32_t TriangleTree::build(int32_t first, int32_t count, std::vector<Vec3>& centroids,
                            std::vector<Aabb>& boxes) {
  const auto id = static_cast<int32_t>(nodes_.size());
  nodes_.push_back({});
  Aabb box, cbox;
  for (int32_t i = first; i < first + count; ++i) {
    box.add(boxes[order_[i]]);
    cbox.add(centroids[order_[i]]);
  }
  nodes_[id].box = box;
  if (count <= kLeafSize) {
    nodes_[id].first = first;
    nodes_[id].count = count;
    return id;
  }
  int axis = 0;
  cbox.size().maxCoeff(&axis);
  const int32_t mid = first + count / 2;
  std::nth_element(order_.begin() + first, order_.begin() + mid, order_.begin() + first + count,
                   [&](int32_t a, int32_t b) {
                     const double ca = centroids[a][axis], cb = centroids[b][axis];
                     return ca < cb || (ca == cb && a < b);
                   });
  const int32_t l = build(first, mid - first, centroids, boxes);
  const int32_t r = build(mid, first + count - mid, centroids, boxes);
  nodes_[id].left = l;
  nodes_[id].right = r;
  return id;
}

std::optional<RayHit> TriangleTree::raycast(const Vec3& origin, const Vec3& dir, double tMax) const {
  std::optional<RayHit> best;
  if (nodes_.empty()) return best;
  const Vec3 inv = dir.cwiseInverse();
  std::vector<int32_t> stack{0};
  while (!stack.empty()) {
    const Node& node = nodes_[stack.back()];
    stack.pop_back();
    const double limit = best ? best->t : tMax;
    if (!intersectRayAabb(origin, inv, node.box, limit)) continue;
    if (node.left < 0) {
      for (int32_t i = node.first; i < node.first + node.count; ++i) {
        const int32_t t = order_[i];
        const Tri& tri = mesh_->triangles[t];
        const auto h = intersectRayTriangle(origin, dir, mesh_->positions[tri[0]], mesh_->positions[tri[1]],
                                            mesh_->positions[tri[2]]);
        if (h && h->t <= limit && (!best || h->t < best->t || (h->t == best->t && t < best->triangle))) {
          best = RayHit{t, h->t, Vec3(1 - h->u - h->v, h->u, h->v), origin + h->t * dir};
        }
      }
    } else {
      stack.push_back(node.left);
      stack.push_back(node.right);
    }
  }
  return best;
}

std::vector<RayHit> TriangleTree::raycastAll(const Vec3& origin, const Vec3& dir) const {
  std::vector<RayHit> hits;
  if (nodes_.empty()) return hits;
  const Vec3 inv = dir.cwiseInverse();
  std::vector<int32_t> stack{0};
  while (!stack.empty()) {
    const Node& node = nodes_[stack.back()];
    stack.pop_back();
    if (!intersectRayAabb(origin, inv, node.box, std::numeric_limits<double>::infinity())) continue;
    if (node.left < 0) {
      for (int32_t i = node.first; i < node.first + node.count; ++i) {
        const int32_t t = order_[i];
        const Tri& tri = mesh_->triangles[t];
        const auto h = intersectRayTriangle(origin, dir, mesh_->positions[tri[0]], mesh_->positions[tri[1]],
                                            mesh_->positions[tri[2]]);
        if (h) hits.push_back(RayHit{t, h->t, Vec3(1 - h->u - h->v, h->u, h->v), origin + h->t * dir});
      }
    } else {
      stack.push_back(node.left);
      stack.push_back(node.right);
    }
  }
  std::sort(hits.begin(), hits.end(), [](const RayHit& a, const RayHit& b) {
    return a.t < b.t || (a.t == b.t && a.triangle < b.triangle);
  });
  return hits;
}

void TriangleTree::query(const Aabb& box, const std::function<void(int32_t)>& visit) const {
  if (nodes_.empty()) return;
  std::vector<int32_t> stack{0};
  while (!stack.empty()) {
    const Node& node = nodes_[stack.back()];
    stack.pop_back();
    if (!node.box.overlaps(box)) continue;
    if (node.left < 0) {
      for (int32_t i = node.first; i < node.first + node.count; ++i)
        if (triBoxes_[order_[i]].overlaps(box)) visit(order_[i]);
    } else {
      stack.push_back(node.right);
      stack.push_back(node.left);
    }
  }
}

bool TriangleTree::selfOverlapPairs(double inflate, const std::function<bool(int32_t, int32_t)>& visit) const {
  if (nodes_.empty()) return true;
  return pairs(0, 0, inflate, triBoxes_, visit);
}

bool TriangleTree::pairs(int32_t a, int32_t b, double inflate, const std::vector<Aabb>& boxes,
                         const std::function<bool(int32_t, int32_t)>& visit) const {
  const Node& na = nodes_[a];
  const Node& nb = nodes_[b];
  if (a != b && !inflated(na.box, inflate).overlaps(nb.box)) return true;
  const bool leafA = na.left < 0, leafB = nb.left < 0;
  if (leafA && leafB) {
    for (int32_t i = na.first; i < na.first + na.count; ++i)
      for (int32_t j = (a == b ? i + 1 : nb.first); j < nb.first + nb.count; ++j) {
        const int32_t ti = order_[i], tj = order_[j];
        if (inflated(boxes[ti], inflate).overlaps(boxes[tj]) && !visit(std::min(ti, tj), std::max(ti, tj)))
          return false;
      }
    return true;
  }
  if (a == b)
    return pairs(na.left, na.left, inflate, boxes, visit) && pairs(na.right, na.right, inflate, boxes, visit) &&
           pairs(na.left, na.right, inflate, boxes, visit);
  // Descend into the larger (or the non-leaf) node.
  if (leafB || (!leafA && na.box.diagonal() >= nb.box.diagonal()))
    return pairs(na.left, b, inflate, boxes, visit) && pairs(na.right, b, inflate, boxes, visit);
  return pairs(a, nb.left, inflate, boxes, visit) && pairs(a, nb.right, inflate, boxes, visit);
}

}  // namespace sinew
