#include "volume/WindingNumber.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace sinew {

namespace {
constexpr int kLeafSize = 8;
}

double triangleWindingNumber(const Vec3& q, const Vec3& a0, const Vec3& b0, const Vec3& c0) {
  const Vec3 a = a0 - q, b = b0 - q, c = c0 - q;
  const double la = a.norm(), lb = b.norm(), lc = c.norm();
  const double det = a.dot(b.cross(c));
  const double div = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
  return 2.0 * std::atan2(det, div) / (4.0 * M_PI);
}

WindingNumber::WindingNumber(const TriMesh& mesh, double beta)
    : positions_(mesh.positions), triangles_(mesh.triangles), beta_(beta) {
  order_.resize(triangles_.size());
  std::iota(order_.begin(), order_.end(), 0);
  std::vector<Vec3> centres(triangles_.size());
  for (size_t t = 0; t < triangles_.size(); ++t) {
    const Tri& k = triangles_[t];
    centres[t] = (positions_[k[0]] + positions_[k[1]] + positions_[k[2]]) / 3.0;
  }
  if (!triangles_.empty()) build(0, int32_t(triangles_.size()), centres);
}

int32_t WindingNumber::build(int32_t first, int32_t count, const std::vector<Vec3>& centres) {
  const auto index = int32_t(nodes_.size());
  nodes_.emplace_back();
  // Dipole data: area-weighted centroid and normal sum; radius over vertices.
  Vec3 normal = Vec3::Zero(), weighted = Vec3::Zero(), mean = Vec3::Zero();
  double area = 0;
  Aabb box;
  for (int32_t i = first; i < first + count; ++i) {
    const Tri& k = triangles_[size_t(order_[size_t(i)])];
    const Vec3 n = 0.5 * (positions_[k[1]] - positions_[k[0]]).cross(positions_[k[2]] - positions_[k[0]]);
    const double a = n.norm();
    normal += n;
    weighted += a * centres[size_t(order_[size_t(i)])];
    mean += centres[size_t(order_[size_t(i)])];
    area += a;
    box.add(centres[size_t(order_[size_t(i)])]);
  }
  const Vec3 centroid = area > 0 ? Vec3(weighted / area) : Vec3(mean / count);
  double radius = 0;
  for (int32_t i = first; i < first + count; ++i)
    for (int32_t v : triangles_[size_t(order_[size_t(i)])])
      radius = std::max(radius, (positions_[size_t(v)] - centroid).norm());
  nodes_[size_t(index)].centroid = centroid;
  nodes_[size_t(index)].normal = normal;
  nodes_[size_t(index)].radius = radius;
  if (count <= kLeafSize) {
    nodes_[size_t(index)].first = first;
    nodes_[size_t(index)].count = count;
    return index;
  }
  // Median split along the longest axis of the centres (ties by index: deterministic).
  int axis = 0;
  box.size().maxCoeff(&axis);
  const int32_t half = count / 2;
  std::nth_element(order_.begin() + first, order_.begin() + first + half, order_.begin() + first + count,
                   [&](int32_t a, int32_t b) {
                     const double ca = centres[size_t(a)][axis], cb = centres[size_t(b)][axis];
                     return ca != cb ? ca < cb : a < b;
                   });
  const int32_t left = build(first, half, centres);
  const int32_t right = build(first + half, count - half, centres);
  nodes_[size_t(index)].left = left;
  nodes_[size_t(index)].right = right;
  return index;
}

double WindingNumber::operator()(const Vec3& q) const {
  if (nodes_.empty()) return 0.0;
  double w = 0;
  int32_t stack[128];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& n = nodes_[size_t(stack[--top])];
    const Vec3 d = n.centroid - q;
    const double dist = d.norm();
    if (dist > beta_ * n.radius && n.radius > 0) {
      w += n.normal.dot(d) / (4.0 * M_PI * dist * dist * dist);
      continue;
    }
    if (n.left < 0) {
      for (int32_t i = n.first; i < n.first + n.count; ++i) {
        const Tri& k = triangles_[size_t(order_[size_t(i)])];
        w += triangleWindingNumber(q, positions_[k[0]], positions_[k[1]], positions_[k[2]]);
      }
      continue;
    }
    stack[top++] = n.left;
    stack[top++] = n.right;
  }
  return w;
}

double WindingNumber::exact(const Vec3& q) const {
  double w = 0;
  for (const Tri& k : triangles_) w += triangleWindingNumber(q, positions_[k[0]], positions_[k[1]], positions_[k[2]]);
  return w;
}

}  // namespace sinew
