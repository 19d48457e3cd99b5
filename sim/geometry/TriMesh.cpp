#include "geometry/TriMesh.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace sinew {

Aabb TriMesh::bounds() const {
  Aabb b;
  for (const Vec3& p : positions) b.add(p);
  return b;
}

Vec3 triangleNormal(const TriMesh& mesh, size_t t) {
  const Tri& tri = mesh.triangles[t];
  const Vec3 n = (mesh.positions[tri[1]] - mesh.positions[tri[0]])
                     .cross(mesh.positions[tri[2]] - mesh.positions[tri[0]]);
  const double len = n.norm();
  return len > 0 ? Vec3(n / len) : Vec3::Zero();
}

double triangleArea(const TriMesh& mesh, size_t t) {
  const Tri& tri = mesh.triangles[t];
  return 0.5 * (mesh.positions[tri[1]] - mesh.positions[tri[0]])
                   .cross(mesh.positions[tri[2]] - mesh.positions[tri[0]])
                   .norm();
}

double surfaceArea(const TriMesh& mesh) {
  double a = 0;
  for (size_t t = 0; t < mesh.triangleCount(); ++t) a += triangleArea(mesh, t);
  return a;
}

std::vector<Vec3> vertexNormals(const TriMesh& mesh) {
  std::vector<Vec3> n(mesh.vertexCount(), Vec3::Zero());
  for (const Tri& tri : mesh.triangles) {
    // Cross product length is twice the area: area weighting for free.
    const Vec3 fn = (mesh.positions[tri[1]] - mesh.positions[tri[0]])
                        .cross(mesh.positions[tri[2]] - mesh.positions[tri[0]]);
    for (int32_t v : tri) n[v] += fn;
  }
  for (Vec3& v : n) {
    const double len = v.norm();
    if (len > 0) v /= len;
  }
  return n;
}

double enclosedVolume(const TriMesh& mesh) {
  double v = 0;
  for (const Tri& tri : mesh.triangles)
    v += mesh.positions[tri[0]].dot(mesh.positions[tri[1]].cross(mesh.positions[tri[2]]));
  return v / 6.0;
}

bool hasInvalidIndices(const TriMesh& mesh) {
  const auto n = static_cast<int64_t>(mesh.positions.size());
  for (const Tri& tri : mesh.triangles)
    for (int32_t v : tri)
      if (v < 0 || v >= n) return true;
  return false;
}

double defaultWeldTolerance(const Aabb& bounds) {
  const double d = bounds.diagonal();
  return d > 0 ? 1e-7 * d : 1e-12;
}

namespace {
struct CellKey {
  int64_t x, y, z;
  bool operator==(const CellKey&) const = default;
};
struct CellHash {
  size_t operator()(const CellKey& k) const {
    // In unsigned arithmetic: far-away cells must wrap, not overflow.
    return static_cast<size_t>(uint64_t(k.x) * 73856093ull ^ uint64_t(k.y) * 19349663ull ^
                               uint64_t(k.z) * 83492791ull);
  }
};
}  // namespace

WeldResult weldVertices(const std::vector<Vec3>& positions, const std::vector<Tri>& triangles,
                        double tolerance) {
  WeldResult r;
  r.remap.assign(positions.size(), -1);
  const double cell = tolerance > 0 ? tolerance : 1e-12;
  const double tol2 = tolerance * tolerance;
  // Representatives per grid cell; a query looks at the 27 neighbouring cells.
  std::unordered_map<CellKey, std::vector<int32_t>, CellHash> grid;
  grid.reserve(positions.size());
  // Cell coordinates are clamped so that converting them to integers is
  // defined for any finite input (very distant points share boundary cells,
  // which is slower but still correct).
  auto cellOf = [&](double x) { return static_cast<int64_t>(std::clamp(std::floor(x / cell), -4e18, 4e18)); };
  auto keyOf = [&](const Vec3& p) { return CellKey{cellOf(p.x()), cellOf(p.y()), cellOf(p.z())}; };
  for (size_t i = 0; i < positions.size(); ++i) {
    const Vec3& p = positions[i];
    const CellKey k = keyOf(p);
    int32_t found = -1;
    for (int64_t dx = -1; dx <= 1; ++dx)
      for (int64_t dy = -1; dy <= 1; ++dy)
        for (int64_t dz = -1; dz <= 1; ++dz) {
          auto it = grid.find({k.x + dx, k.y + dy, k.z + dz});
          if (it == grid.end()) continue;
          for (int32_t rep : it->second)
            if ((r.mesh.positions[rep] - p).squaredNorm() <= tol2 && (found < 0 || rep < found))
              found = rep;
        }
    if (found >= 0) {
      r.remap[i] = found;
      ++r.mergedCount;
    } else {
      const auto id = static_cast<int32_t>(r.mesh.positions.size());
      r.mesh.positions.push_back(p);
      grid[k].push_back(id);
      r.remap[i] = id;
    }
  }
  r.mesh.triangles.reserve(triangles.size());
  for (const Tri& t : triangles) r.mesh.triangles.push_back({r.remap[t[0]], r.remap[t[1]], r.remap[t[2]]});
  return r;
}

}  // namespace sinew
