#include "viper/RodSkin.h"

#include "core/Error.h"
#include "viper/Pill.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <numeric>

namespace sinew::viper {

namespace {

using Sparse = std::vector<std::pair<int32_t, double>>;  // (segment, weight), sorted by segment

// Keeps the `keep` largest weights (ties: lower segment), sorted by segment.
void truncate(Sparse& w, size_t keep) {
  if (w.size() > keep) {
    std::partial_sort(w.begin(), w.begin() + Eigen::Index(keep), w.end(),
                      [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    w.resize(keep);
  }
  std::sort(w.begin(), w.end());
}

}  // namespace

RodSkin buildRodSkin(const TriMesh& surface, const RodModel& model, const std::vector<int32_t>& segmentsIn,
                     const RodSkinOptions& o) {
  std::vector<int32_t> segments = segmentsIn;
  if (segments.empty()) {
    segments.resize(model.segmentCount());
    std::iota(segments.begin(), segments.end(), 0);
  }
  if (segments.empty()) throw InputError("rod skin", "there are no rods to skin to");
  if (surface.vertexCount() == 0) throw InputError("rod skin", "the surface has no vertices");
  for (int32_t j : segments)
    if (j < 0 || size_t(j) >= model.segmentCount()) throw InputError("rod skin", "segment " + std::to_string(j) + " does not exist");
  const size_t nv = surface.vertexCount();
  const size_t keep = size_t(std::max(o.maxInfluences, 1));
  const size_t candidates = std::max<size_t>(2 * keep, 8);
  auto pill = [&](int32_t j) {
    const size_t a = size_t(model.segmentNode[size_t(j)]);
    return Pill{model.restCenter[a], model.restCenter[a + 1], model.restRadius[a], model.restRadius[a + 1]};
  };
  // Pills near each vertex from a uniform grid of their bounding spheres
  // (cell: the largest diameter), widened ring by ring until some are found.
  double largest = 0;
  std::vector<Vec3> centre(segments.size());
  for (size_t k = 0; k < segments.size(); ++k) {
    const Pill p = pill(segments[k]);
    centre[k] = 0.5 * (p.c1 + p.c2);
    largest = std::max(largest, 0.5 * (p.c2 - p.c1).norm() + std::max(p.r1, p.r2));
  }
  const double cell = 2 * largest;
  auto cellOf = [&](const Vec3& x) {
    return Eigen::Vector3i(int(std::floor(x.x() / cell)), int(std::floor(x.y() / cell)), int(std::floor(x.z() / cell)));
  };
  auto key = [](const Eigen::Vector3i& c) {
    auto bits = [](int v) { return uint64_t(uint32_t(v)) & ((uint64_t(1) << 21) - 1); };
    return (bits(c.x()) << 42) | (bits(c.y()) << 21) | bits(c.z());
  };
  std::unordered_map<uint64_t, std::vector<int32_t>> grid;
  for (size_t k = 0; k < segments.size(); ++k) grid[key(cellOf(centre[k]))].push_back(int32_t(k));
  // Initial weights: inverse square distance to each pill's surface (a
  // vertex inside a pill is at a tiny distance: it belongs to that pill).
  double scale = 0;
  for (int32_t j : segments) scale = std::max(scale, model.restRadius[size_t(model.segmentNode[size_t(j)])]);
  const double floor = 1e-4 * scale;
  std::vector<Sparse> w(nv);
  for (size_t v = 0; v < nv; ++v) {
    const Vec3& x = surface.positions[v];
    const Eigen::Vector3i c = cellOf(x);
    Sparse& wv = w[v];
    for (int ring = 1; wv.empty(); ++ring) {
      for (int dx = -ring; dx <= ring; ++dx)
        for (int dy = -ring; dy <= ring; ++dy)
          for (int dz = -ring; dz <= ring; ++dz) {
            if (std::max({std::abs(dx), std::abs(dy), std::abs(dz)}) != ring && ring > 1) continue;
            const auto it = grid.find(key(c + Eigen::Vector3i(dx, dy, dz)));
            if (it == grid.end()) continue;
            for (int32_t k : it->second) {
              const double d = std::max(signedDistance(pill(segments[size_t(k)]), x), floor);
              wv.emplace_back(k, 1.0 / (d * d));
            }
          }
      if (ring > 1 << 20) break;
    }
    truncate(wv, candidates);
    double sum = 0;
    for (const auto& [k, wk] : wv) sum += wk;
    for (auto& [k, wk] : wv) wk /= sum;
  }
  // Fairing over the surface's edges (sparse: each vertex keeps its largest
  // `candidates` influences).
  std::vector<std::vector<int32_t>> ring(nv);
  for (const Tri& t : surface.triangles)
    for (int e = 0; e < 3; ++e) {
      ring[size_t(t[size_t(e)])].push_back(t[size_t((e + 1) % 3)]);
      ring[size_t(t[size_t((e + 1) % 3)])].push_back(t[size_t(e)]);
    }
  for (auto& r : ring) {
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
  }
  for (int it = 0; it < o.fairingIterations; ++it) {
    std::vector<Sparse> next(nv);
    for (size_t v = 0; v < nv; ++v) {
      if (ring[v].empty()) {
        next[v] = w[v];
        continue;
      }
      std::map<int32_t, double> sum;
      for (const auto& [k, wk] : w[v]) sum[k] += (1 - o.fairing) * wk;
      const double share = o.fairing / double(ring[v].size());
      for (int32_t u : ring[v])
        for (const auto& [k, wk] : w[size_t(u)]) sum[k] += share * wk;
      next[v].assign(sum.begin(), sum.end());
      truncate(next[v], candidates);
    }
    w.swap(next);
  }
  // Keep the largest influences, normalised.
  RodSkin skin;
  skin.restPositions = surface.positions;
  skin.offsets.push_back(0);
  for (size_t v = 0; v < nv; ++v) {
    truncate(w[v], keep);
    double sum = 0;
    for (const auto& [k, wk] : w[v]) sum += wk;
    for (const auto& [k, wk] : w[v]) {
      if (wk <= 0) continue;
      skin.segment.push_back(segments[size_t(k)]);
      skin.weight.push_back(wk / sum);
    }
    skin.offsets.push_back(int32_t(skin.segment.size()));
  }
  return skin;
}

PillTransform pillTransform(const RodModel& m, const RodState& s, size_t j) {
  const size_t a = size_t(m.segmentNode[j]), b = a + 1;
  PillTransform t;
  t.scale = 0.5 * (s.s[a] + s.s[b]);
  t.rotation = (s.q[j] * m.restOrientation[j].conjugate()).toRotationMatrix();
  const Vec3 restMid = 0.5 * (m.restCenter[a] + m.restCenter[b]);
  const Vec3 mid = 0.5 * (s.c[a] + s.c[b]);
  t.translation = mid - t.scale * t.rotation * restMid;
  return t;
}

std::vector<Vec3> skinnedPositions(const RodSkin& skin, const RodModel& m, const RodState& s) {
  std::vector<PillTransform> t(m.segmentCount());
  std::vector<uint8_t> done(m.segmentCount(), 0);
  std::vector<Vec3> out(skin.vertexCount(), Vec3::Zero());
  for (size_t v = 0; v < skin.vertexCount(); ++v)
    for (int32_t k = skin.offsets[v]; k < skin.offsets[v + 1]; ++k) {
      const size_t j = size_t(skin.segment[size_t(k)]);
      if (!done[j]) t[j] = pillTransform(m, s, j), done[j] = 1;
      out[v] += skin.weight[size_t(k)] * (t[j].scale * t[j].rotation * skin.restPositions[v] + t[j].translation);
    }
  return out;
}

}  // namespace sinew::viper
