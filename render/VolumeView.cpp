#include "VolumeView.h"

#include <algorithm>
#include <map>
#include <unordered_set>

namespace sinew::render {

Vec3f regionColor(int k) {
  if (k < 0) return Vec3f(0.93f, 0.62f, 0.60f);  // flesh
  // Bones: light, well separated hues (golden-ratio steps around the wheel).
  const float h = std::fmod(0.13f + 0.618034f * float(k), 1.0f) * 6.0f;
  const float f = h - std::floor(h);
  const float v = 0.95f, s = 0.45f;
  const float p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  switch (int(h) % 6) {
    case 0: return {v, t, p};
    case 1: return {q, v, p};
    case 2: return {p, v, t};
    case 3: return {p, q, v};
    case 4: return {t, p, v};
    default: return {v, p, q};
  }
}

VolumeGeometry volumeGeometry(const TetMesh& m, const std::vector<int32_t>& fixedBone, const CutAway& cut,
                              const std::vector<int32_t>& highlight) {
  VolumeGeometry g;
  const size_t nt = m.tetCount();
  std::vector<char> kept(nt, 1);
  if (cut.enabled)
    for (size_t t = 0; t < nt; ++t) {
      double c = 0;
      for (int32_t n : m.tets[t]) c += m.nodes[size_t(n)][cut.axis];
      kept[t] = c / 4 <= cut.position;
    }
  const std::unordered_set<int32_t> red(highlight.begin(), highlight.end());
  // Faces of kept tets not shared with another kept tet, outward for positive tets.
  static const int face[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  std::map<std::array<int32_t, 3>, std::pair<int, int64_t>> count;  // sorted face -> (uses, t*4+f)
  for (size_t t = 0; t < nt; ++t) {
    if (!kept[t]) continue;
    ++g.keptTets;
    for (int f = 0; f < 4; ++f) {
      std::array<int32_t, 3> key{m.tets[t][face[f][0]], m.tets[t][face[f][1]], m.tets[t][face[f][2]]};
      std::sort(key.begin(), key.end());
      auto& e = count[key];
      ++e.first;
      e.second = int64_t(t) * 4 + f;
    }
  }
  for (const auto& [key, e] : count) {
    if (e.first != 1) continue;
    const size_t t = size_t(e.second / 4);
    const int f = int(e.second % 4);
    const auto base = int32_t(g.faces.positions.size());
    const int region = m.region.empty() ? -1 : m.region[t];
    const Vec3f color = red.count(int32_t(t)) ? Vec3f(0.95f, 0.1f, 0.1f) : regionColor(region);
    for (int c = 0; c < 3; ++c) {
      g.faces.positions.push_back(m.nodes[size_t(m.tets[t][face[f][c]])]);
      g.colors.push_back(color);
    }
    g.faces.triangles.push_back({base, base + 1, base + 2});
    g.faceTet.push_back(int32_t(t));
  }
  for (size_t n = 0; n < fixedBone.size() && n < m.nodeCount(); ++n) {
    if (fixedBone[n] < 0) continue;
    if (cut.enabled && m.nodes[n][cut.axis] > cut.position) continue;
    g.nodePoints.push_back(m.nodes[n].cast<float>());
    g.nodeColors.push_back(regionColor(fixedBone[n]) * 0.75f);
  }
  return g;
}

TriMesh cutSurface(const TriMesh& mesh, const CutAway& cut) {
  if (!cut.enabled) return mesh;
  TriMesh out;
  out.positions = mesh.positions;
  for (const Tri& t : mesh.triangles) {
    const double c = (mesh.positions[size_t(t[0])][cut.axis] + mesh.positions[size_t(t[1])][cut.axis] +
                      mesh.positions[size_t(t[2])][cut.axis]) / 3;
    if (c <= cut.position) out.triangles.push_back(t);
  }
  return out;
}

}  // namespace sinew::render
