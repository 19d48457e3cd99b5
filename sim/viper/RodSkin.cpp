#include "viper/RodSkin.h"

#include "core/Error.h"
#include "viper/Pill.h"

#include <algorithm>
#include <numeric>

namespace sinew::viper {

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
  const size_t nv = surface.vertexCount(), np = segments.size();
  // Initial weights: inverse square distance to each pill's surface (a
  // vertex inside a pill is at a tiny distance: it belongs to that pill).
  double scale = 0;
  for (int32_t j : segments) scale = std::max(scale, model.restRadius[size_t(model.segmentNode[size_t(j)])]);
  const double floor = 1e-4 * scale;
  Eigen::MatrixXd w(np, nv);
  for (size_t v = 0; v < nv; ++v) {
    for (size_t k = 0; k < np; ++k) {
      const size_t a = size_t(model.segmentNode[size_t(segments[k])]);
      const Pill p{model.restCenter[a], model.restCenter[a + 1], model.restRadius[a], model.restRadius[a + 1]};
      const double d = std::max(signedDistance(p, surface.positions[v]), floor);
      w(Eigen::Index(k), Eigen::Index(v)) = 1.0 / (d * d);
    }
    w.col(Eigen::Index(v)) /= w.col(Eigen::Index(v)).sum();
  }
  // Fairing over the surface's edges.
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
    Eigen::MatrixXd next = w;
    for (size_t v = 0; v < nv; ++v) {
      if (ring[v].empty()) continue;
      Eigen::VectorXd mean = Eigen::VectorXd::Zero(Eigen::Index(np));
      for (int32_t u : ring[v]) mean += w.col(Eigen::Index(u));
      next.col(Eigen::Index(v)) = (1 - o.fairing) * w.col(Eigen::Index(v)) + o.fairing * mean / double(ring[v].size());
    }
    w.swap(next);
  }
  // Keep the largest influences, normalised.
  RodSkin skin;
  skin.restPositions = surface.positions;
  skin.offsets.push_back(0);
  const size_t keep = size_t(std::clamp(o.maxInfluences, 1, int(np)));
  std::vector<size_t> order(np);
  for (size_t v = 0; v < nv; ++v) {
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + Eigen::Index(keep), order.end(), [&](size_t a, size_t b) {
      const double wa = w(Eigen::Index(a), Eigen::Index(v)), wb = w(Eigen::Index(b), Eigen::Index(v));
      return wa != wb ? wa > wb : a < b;
    });
    double sum = 0;
    for (size_t k = 0; k < keep; ++k) sum += w(Eigen::Index(order[k]), Eigen::Index(v));
    for (size_t k = 0; k < keep; ++k) {
      const double wk = w(Eigen::Index(order[k]), Eigen::Index(v)) / sum;
      if (wk <= 0) continue;
      skin.segment.push_back(segments[order[k]]);
      skin.weight.push_back(wk);
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
