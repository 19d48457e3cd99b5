#include "volume/TetMesh.h"

#include <algorithm>
#include <map>

namespace sinew {

Aabb TetMesh::bounds() const {
  Aabb b;
  for (const Vec3& p : nodes) b.add(p);
  return b;
}

double tetVolume(const TetMesh& m, size_t t) {
  const Tet& k = m.tets[t];
  const Vec3& x0 = m.nodes[k[0]];
  return (m.nodes[k[1]] - x0).dot((m.nodes[k[2]] - x0).cross(m.nodes[k[3]] - x0)) / 6.0;
}

std::vector<int32_t> sortSpatially(TetMesh& mesh) {
  const size_t n = mesh.nodeCount(), T = mesh.tetCount();
  std::vector<int32_t> newIndex(n, -1);
  if (T == 0) {
    for (size_t i = 0; i < n; ++i) newIndex[i] = int32_t(i);
    return newIndex;
  }
  const Aabb box = mesh.bounds();
  const Vec3 extent = (box.max - box.min).cwiseMax(Vec3::Constant(1e-300));
  // 10 bits per axis, interleaved z y x from the top bit down.
  auto morton = [&](const Vec3& p) {
    const Vec3 u = ((p - box.min).cwiseQuotient(extent) * 1023.0).cwiseMax(0.0).cwiseMin(1023.0);
    const uint32_t q[3] = {uint32_t(u.x()), uint32_t(u.y()), uint32_t(u.z())};
    uint32_t key = 0;
    for (int bit = 9; bit >= 0; --bit)
      for (int d = 2; d >= 0; --d) key = (key << 1) | ((q[d] >> bit) & 1u);
    return key;
  };
  std::vector<std::pair<uint32_t, int32_t>> order(T);
  for (size_t t = 0; t < T; ++t) {
    Vec3 c = Vec3::Zero();
    for (int32_t k : mesh.tets[t]) c += mesh.nodes[size_t(k)];
    order[t] = {morton(c / 4), int32_t(t)};
  }
  std::sort(order.begin(), order.end());  // ties by old index: deterministic
  int32_t next = 0;
  for (const auto& [key, t] : order)
    for (int32_t k : mesh.tets[size_t(t)])
      if (newIndex[size_t(k)] < 0) newIndex[size_t(k)] = next++;
  for (size_t i = 0; i < n; ++i)
    if (newIndex[i] < 0) newIndex[i] = next++;
  TetMesh sorted;
  sorted.nodes.resize(n);
  for (size_t i = 0; i < n; ++i) sorted.nodes[size_t(newIndex[i])] = mesh.nodes[i];
  sorted.tets.reserve(T);
  for (const auto& [key, t] : order) {
    Tet tet = mesh.tets[size_t(t)];
    for (int32_t& k : tet) k = newIndex[size_t(k)];
    sorted.tets.push_back(tet);
    if (!mesh.region.empty()) sorted.region.push_back(mesh.region[size_t(t)]);
  }
  mesh = std::move(sorted);
  return newIndex;
}

double totalVolume(const TetMesh& m) {
  double v = 0;
  for (size_t t = 0; t < m.tetCount(); ++t) v += tetVolume(m, t);
  return v;
}

TetBoundary tetBoundary(const TetMesh& m) {
  // Faces opposite each node, oriented outward for a positive tet.
  static const int face[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  std::map<std::array<int32_t, 3>, std::pair<int, int64_t>> seen;  // sorted face -> (count, t*4+f)
  for (size_t t = 0; t < m.tetCount(); ++t)
    for (int f = 0; f < 4; ++f) {
      std::array<int32_t, 3> key{m.tets[t][face[f][0]], m.tets[t][face[f][1]], m.tets[t][face[f][2]]};
      std::sort(key.begin(), key.end());
      auto& e = seen[key];
      ++e.first;
      e.second = int64_t(t) * 4 + f;
    }
  TetBoundary b;
  for (const auto& [key, e] : seen) {
    if (e.first != 1) continue;
    const int64_t t = e.second / 4;
    const int f = int(e.second % 4);
    const Tet& k = m.tets[size_t(t)];
    b.faces.push_back({k[face[f][0]], k[face[f][1]], k[face[f][2]]});
    b.tetOfFace.push_back(int32_t(t));
  }
  return b;
}

size_t Embedding::extrapolatedCount() const {
  return size_t(std::count(extrapolated.begin(), extrapolated.end(), uint8_t(1)));
}

std::vector<Vec3> embeddedPositions(const Embedding& e, const TetMesh& mesh, const std::vector<Vec3>& nodes) {
  std::vector<Vec3> out(e.vertexCount(), Vec3::Zero());
  for (size_t v = 0; v < e.vertexCount(); ++v) {
    const Tet& k = mesh.tets[size_t(e.tet[v])];
    for (int c = 0; c < 4; ++c) out[v] += e.weights[v][c] * nodes[k[c]];
  }
  return out;
}

}  // namespace sinew
