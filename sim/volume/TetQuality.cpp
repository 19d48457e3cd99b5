#include "volume/TetQuality.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <string>

namespace sinew {

TetShape tetShape(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3) {
  TetShape s;
  const Vec3 a = x1 - x0, b = x2 - x0, c = x3 - x0;
  s.volume = a.dot(b.cross(c)) / 6.0;
  const std::array<Vec3, 4> x{x0, x1, x2, x3};
  double shortest = std::numeric_limits<double>::infinity(), longest = 0;
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j) {
      const double l = (x[i] - x[j]).norm();
      shortest = std::min(shortest, l);
      longest = std::max(longest, l);
    }
  // Outward face normals (face k is opposite node k); the dihedral angle at
  // the edge shared by faces k and l is pi minus the angle between them.
  static const int face[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  std::array<Vec3, 4> n;
  bool flat = false;
  for (int k = 0; k < 4; ++k) {
    n[k] = (x[face[k][1]] - x[face[k][0]]).cross(x[face[k][2]] - x[face[k][0]]);
    const double len = n[k].norm();
    if (len <= 0) flat = true;
    else n[k] /= len;
  }
  if (s.volume < 0)
    for (Vec3& v : n) v = -v;
  s.minDihedralDeg = 180.0;
  s.maxDihedralDeg = 0.0;
  if (flat || s.volume == 0) {
    s.minDihedralDeg = 0.0;
    s.maxDihedralDeg = 180.0;
  } else {
    for (int k = 0; k < 4; ++k)
      for (int l = k + 1; l < 4; ++l) {
        const double angle = 180.0 - std::acos(std::clamp(n[k].dot(n[l]), -1.0, 1.0)) * 180.0 / M_PI;
        s.minDihedralDeg = std::min(s.minDihedralDeg, angle);
        s.maxDihedralDeg = std::max(s.maxDihedralDeg, angle);
      }
  }
  // Circumradius: |a^2 (b x c) + b^2 (c x a) + c^2 (a x b)| / (12 V).
  const Vec3 num = a.squaredNorm() * b.cross(c) + b.squaredNorm() * c.cross(a) + c.squaredNorm() * a.cross(b);
  const double radius = s.volume != 0 ? num.norm() / (12.0 * std::abs(s.volume)) : std::numeric_limits<double>::infinity();
  s.radiusEdge = shortest > 0 ? radius / shortest : std::numeric_limits<double>::infinity();
  s.volumeEdge = longest > 0 ? 6.0 * std::sqrt(2.0) * s.volume / (longest * longest * longest) : 0.0;
  return s;
}

TetShape tetShape(const TetMesh& m, size_t t) {
  const Tet& k = m.tets[t];
  return tetShape(m.nodes[k[0]], m.nodes[k[1]], m.nodes[k[2]], m.nodes[k[3]]);
}

TetQuality measureTetQuality(const TetMesh& mesh, const TetQualityOptions& o) {
  TetQuality q;
  q.nodeCount = mesh.nodeCount();
  q.tetCount = mesh.tetCount();
  if (mesh.tets.empty()) return q;
  q.minVolume = q.minDihedralDeg = q.minVolumeEdge = std::numeric_limits<double>::infinity();
  q.maxVolume = -std::numeric_limits<double>::infinity();
  std::vector<double> key(mesh.tetCount());  // sort key for the worst list
  for (size_t t = 0; t < mesh.tetCount(); ++t) {
    const TetShape s = tetShape(mesh, t);
    q.totalVolume += s.volume;
    q.minVolume = std::min(q.minVolume, s.volume);
    q.maxVolume = std::max(q.maxVolume, s.volume);
    q.minDihedralDeg = std::min(q.minDihedralDeg, s.minDihedralDeg);
    q.maxDihedralDeg = std::max(q.maxDihedralDeg, s.maxDihedralDeg);
    q.maxRadiusEdge = std::max(q.maxRadiusEdge, s.radiusEdge);
    q.meanRadiusEdge += s.radiusEdge;
    q.minVolumeEdge = std::min(q.minVolumeEdge, s.volumeEdge);
    q.meanVolumeEdge += s.volumeEdge;
    const bool inverted = s.volume <= 0;
    q.invertedCount += inverted;
    q.sliverCount += !inverted && (s.minDihedralDeg < o.sliverDihedralDeg || s.volumeEdge < o.sliverVolumeEdge);
    key[t] = inverted ? -1.0 : s.minDihedralDeg;
  }
  q.meanRadiusEdge /= double(mesh.tetCount());
  q.meanVolumeEdge /= double(mesh.tetCount());
  std::vector<int32_t> order(mesh.tetCount());
  std::iota(order.begin(), order.end(), 0);
  const size_t n = std::min(o.worstCount, order.size());
  std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(n), order.end(), [&](int32_t a, int32_t b) {
    return key[size_t(a)] != key[size_t(b)] ? key[size_t(a)] < key[size_t(b)] : a < b;
  });
  q.worst.assign(order.begin(), order.begin() + std::ptrdiff_t(n));
  return q;
}

std::string describeTetQuality(const TetQuality& q) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%zu nodes, %zu tets, dihedral %.1f-%.1f deg, radius-edge max %.2f mean %.2f, %zu slivers, "
                "%zu inverted",
                q.nodeCount, q.tetCount, q.minDihedralDeg, q.maxDihedralDeg, q.maxRadiusEdge, q.meanRadiusEdge,
                q.sliverCount, q.invertedCount);
  return buf;
}

}  // namespace sinew
