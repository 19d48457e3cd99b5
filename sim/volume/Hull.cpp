#include "volume/Hull.h"

#include "core/Error.h"
#include "geometry/MeshValidation.h"
#include "volume/Closest.h"
#include "volume/WindingNumber.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace sinew {

namespace {

// A regular grid of points origin + h * (i, j, k); cells are indexed by their
// minimum corner.
struct Grid {
  Vec3 origin = Vec3::Zero();
  double h = 1;
  int n[3] = {0, 0, 0};
  size_t size() const { return size_t(n[0]) * size_t(n[1]) * size_t(n[2]); }
  size_t index(int i, int j, int k) const { return (size_t(k) * size_t(n[1]) + size_t(j)) * size_t(n[0]) + size_t(i); }
  Vec3 point(int i, int j, int k) const { return origin + h * Vec3(i, j, k); }
  size_t cellIndex(int i, int j, int k) const {
    return (size_t(k) * size_t(n[1] - 1) + size_t(j)) * size_t(n[0] - 1) + size_t(i);
  }
  size_t cellCount() const { return size_t(n[0] - 1) * size_t(n[1] - 1) * size_t(n[2] - 1); }
};

bool hasOpenEdges(const TriMesh& m) {
  std::vector<std::array<int32_t, 2>> edges;
  edges.reserve(3 * m.triangleCount());
  for (const Tri& t : m.triangles)
    for (int c = 0; c < 3; ++c) {
      const int32_t a = t[c], b = t[(c + 1) % 3];
      if (a != b) edges.push_back({std::min(a, b), std::max(a, b)});
    }
  std::sort(edges.begin(), edges.end());
  for (size_t i = 0; i < edges.size();) {
    size_t j = i;
    while (j < edges.size() && edges[j] == edges[i]) ++j;
    if (j - i == 1) return true;
    i = j;
  }
  return false;
}

// Unsigned distance (squared) from every grid point within `radius` of the
// surface to the surface; radius^2 elsewhere. Unreferenced vertices count as
// points of the surface.
std::vector<double> distanceField(const TriMesh& m, const Grid& g, double radius, const Progress& progress) {
  std::vector<double> d2(g.size(), radius * radius);
  auto range = [&](const Aabb& box, int lo[3], int hi[3]) {
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::max(0, int(std::floor((box.min[a] - radius - g.origin[a]) / g.h)));
      hi[a] = std::min(g.n[a] - 1, int(std::ceil((box.max[a] + radius - g.origin[a]) / g.h)));
    }
  };
  std::vector<char> used(m.vertexCount(), 0);
  for (size_t t = 0; t < m.triangleCount(); ++t) {
    if ((t & 1023) == 0) progress.update(double(t) / double(m.triangleCount()), "distance field");
    const Tri& k = m.triangles[t];
    const Vec3 &a = m.positions[k[0]], &b = m.positions[k[1]], &c = m.positions[k[2]];
    for (int32_t v : k) used[size_t(v)] = 1;
    Aabb box;
    box.add(a);
    box.add(b);
    box.add(c);
    int lo[3], hi[3];
    range(box, lo, hi);
    for (int z = lo[2]; z <= hi[2]; ++z)
      for (int y = lo[1]; y <= hi[1]; ++y)
        for (int x = lo[0]; x <= hi[0]; ++x) {
          double& d = d2[g.index(x, y, z)];
          d = std::min(d, pointTriangleDistanceSquared(g.point(x, y, z), a, b, c));
        }
  }
  for (size_t v = 0; v < m.vertexCount(); ++v) {
    if (used[v]) continue;
    Aabb box;
    box.add(m.positions[v]);
    int lo[3], hi[3];
    range(box, lo, hi);
    for (int z = lo[2]; z <= hi[2]; ++z)
      for (int y = lo[1]; y <= hi[1]; ++y)
        for (int x = lo[0]; x <= hi[0]; ++x) {
          double& d = d2[g.index(x, y, z)];
          d = std::min(d, (g.point(x, y, z) - m.positions[v]).squaredNorm());
        }
  }
  return d2;
}

// Marks grid points reachable from the grid boundary through non-solid
// points (6-connected); returns the flags.
std::vector<char> floodOutside(const Grid& g, const std::vector<char>& solid) {
  std::vector<char> outside(g.size(), 0);
  std::vector<size_t> stack;
  auto push = [&](int i, int j, int k) {
    const size_t id = g.index(i, j, k);
    if (!solid[id] && !outside[id]) {
      outside[id] = 1;
      stack.push_back(id);
    }
  };
  for (int k = 0; k < g.n[2]; ++k)
    for (int j = 0; j < g.n[1]; ++j)
      for (int i = 0; i < g.n[0]; ++i)
        if (i == 0 || j == 0 || k == 0 || i == g.n[0] - 1 || j == g.n[1] - 1 || k == g.n[2] - 1) push(i, j, k);
  const size_t sy = size_t(g.n[0]), sz = size_t(g.n[0]) * size_t(g.n[1]);
  while (!stack.empty()) {
    const size_t id = stack.back();
    stack.pop_back();
    const int i = int(id % sy), j = int((id / sy) % size_t(g.n[1])), k = int(id / sz);
    if (i > 0) push(i - 1, j, k);
    if (i + 1 < g.n[0]) push(i + 1, j, k);
    if (j > 0) push(i, j - 1, k);
    if (j + 1 < g.n[1]) push(i, j + 1, k);
    if (k > 0) push(i, j, k - 1);
    if (k + 1 < g.n[2]) push(i, j, k + 1);
  }
  return outside;
}

// Adds solid voxels until the set is well-composed: no 2x2 square of voxels
// around an edge with exactly two diagonal solid ones, no 2x2x2 block with
// exactly two antipodal solid (or exactly two antipodal empty) ones. Of the
// candidate voxels, the one closest to the surface (smallest `d2`) is added.
size_t makeWellComposed(const Grid& g, std::vector<char>& solid, const std::vector<double>& d2) {
  size_t added = 0;
  auto fill = [&](std::initializer_list<size_t> candidates) {
    size_t best = *candidates.begin();
    for (size_t c : candidates)
      if (!solid[c] && (solid[best] || d2[c] < d2[best] || (d2[c] == d2[best] && c < best))) best = c;
    solid[best] = 1;
    ++added;
  };
  const size_t dx = 1, dy = size_t(g.n[0]), dz = size_t(g.n[0]) * size_t(g.n[1]);
  for (bool changed = true; changed;) {
    changed = false;
    for (int k = 0; k + 1 < g.n[2]; ++k)
      for (int j = 0; j + 1 < g.n[1]; ++j)
        for (int i = 0; i + 1 < g.n[0]; ++i) {
          const size_t o = g.index(i, j, k);
          // Squares in the three planes through corner o.
          for (const auto& [u, v] : {std::pair{dx, dy}, std::pair{dy, dz}, std::pair{dz, dx}}) {
            const bool s00 = solid[o], s10 = solid[o + u], s01 = solid[o + v], s11 = solid[o + u + v];
            if (s00 && s11 && !s10 && !s01) {
              fill({o + u, o + v});
              changed = true;
            } else if (!s00 && !s11 && s10 && s01) {
              fill({o, o + u + v});
              changed = true;
            }
          }
          // The 2x2x2 block at o.
          size_t c[8];
          int count = 0;
          for (int b = 0; b < 8; ++b) {
            c[b] = o + ((b & 1) ? dx : 0) + ((b & 2) ? dy : 0) + ((b & 4) ? dz : 0);
            count += solid[c[b]];
          }
          if (count == 2 || count == 6) {
            const bool want = count == 2;  // the two odd ones out are solid (2) or empty (6)
            int first = -1, second = -1;
            for (int b = 0; b < 8; ++b)
              if (bool(solid[c[b]]) == want) (first < 0 ? first : second) = b;
            if ((first ^ second) == 7) {
              if (count == 6) fill({c[first], c[second]});
              else fill({c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]});
              changed = true;
            }
          }
        }
  }
  return added;
}

}  // namespace

TriMesh voxelHull(const TriMesh& surface, const HullOptions& o, const Progress& progress, HullReport* report) {
  const auto start = std::chrono::steady_clock::now();
  if (surface.positions.empty()) throw InputError("hull", "the surface has no vertices");
  if (hasInvalidIndices(surface)) throw InputError("hull", "a triangle refers to a vertex that does not exist");
  for (const Vec3& p : surface.positions)
    if (!p.allFinite()) throw InputError("hull", "the surface has a non-finite coordinate");
  if (!(o.spacing > 0) || !(o.offset > 0)) throw InputError("hull", "spacing and offset must be positive");

  // Grid: the surface's box grown by the offset and two more cells.
  HullReport rep;
  Grid g;
  g.h = o.spacing;
  const Aabb box = surface.bounds();
  // (Solid points stay at least two cells from the grid's faces.)
  const double margin = o.offset + 3.5 * g.h;
  g.origin = box.min - Vec3::Constant(margin);
  double points = 1;
  for (int a = 0; a < 3; ++a) {
    const double n = std::ceil((box.max[a] - box.min[a] + 2 * margin) / g.h) + 1;
    points *= n;
    g.n[a] = int(std::min(n, 1e9));
  }
  if (points > double(o.maxGridPoints))
    throw InputError("hull", "a grid of " + std::to_string(size_t(points)) + " points is too large (spacing " +
                                 std::to_string(o.spacing) + " m); use a coarser spacing");
  for (int a = 0; a < 3; ++a) rep.gridSize[a] = g.n[a];

  // 1. Solid: near the surface, or (open surfaces) inside by winding number.
  const double radius = o.offset + 2.0 * g.h;
  const std::vector<double> d2 = distanceField(surface, g, radius, progress.sub(0.0, 0.4));
  std::vector<char> solid(g.size(), 0);
  for (size_t id = 0; id < g.size(); ++id) solid[id] = d2[id] <= o.offset * o.offset;
  rep.openInput = !surface.triangles.empty() && hasOpenEdges(surface);
  if (rep.openInput && o.windingFill) {
    const WindingNumber winding(surface);
    for (int k = 0; k < g.n[2]; ++k) {
      progress.update(0.4 + 0.3 * k / g.n[2], "winding numbers");
      for (int j = 0; j < g.n[1]; ++j)
        for (int i = 0; i < g.n[0]; ++i) {
          const size_t id = g.index(i, j, k);
          const Vec3 p = g.point(i, j, k);
          // Outside the input's box the winding number is below 1/2.
          if (solid[id] || (p.array() < box.min.array()).any() || (p.array() > box.max.array()).any()) continue;
          solid[id] = std::abs(winding(p)) >= 0.5;
        }
    }
  }
  // Every input vertex in a cell whose corners are all solid: then it lies
  // strictly inside the extracted surface, whatever the offset.
  for (const Vec3& v : surface.positions) {
    const Vec3 c = (v - g.origin) / g.h;
    const int i = std::clamp(int(std::floor(c.x())), 0, g.n[0] - 2);
    const int j = std::clamp(int(std::floor(c.y())), 0, g.n[1] - 2);
    const int k = std::clamp(int(std::floor(c.z())), 0, g.n[2] - 2);
    for (int b = 0; b < 8; ++b) solid[g.index(i + (b & 1), j + ((b >> 1) & 1), k + ((b >> 2) & 1))] = 1;
  }
  // 2. Fill everything the outside cannot reach.
  progress.update(0.7, "filling");
  {
    const std::vector<char> outside = floodOutside(g, solid);
    for (size_t id = 0; id < g.size(); ++id) solid[id] = !outside[id];
  }
  // 3. Well-composed, so that the boundary is a manifold.
  progress.update(0.75, "manifold repair");
  rep.wellComposedAdded = makeWellComposed(g, solid, d2);
  for (char s : solid) rep.solidPoints += size_t(s);

  // 4. One vertex per boundary cell, at the mean of the crossings of the
  //    offset surface phi = d - offset along the cell's solid/empty edges.
  progress.update(0.8, "surface");
  const double eps = 0.02 * g.h;
  auto phi = [&](size_t id) {
    const double v = std::sqrt(d2[id]) - o.offset;
    return solid[id] ? std::min(v, -eps) : std::max(v, eps);
  };
  static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0},
                                   {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}};
  static const int cellEdges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                       {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  std::vector<int32_t> cellVertex(g.cellCount(), -1);
  TriMesh mesh;
  std::vector<Vec3> centre;  // (nVertices) cell centres
  for (int k = 0; k + 1 < g.n[2]; ++k)
    for (int j = 0; j + 1 < g.n[1]; ++j)
      for (int i = 0; i + 1 < g.n[0]; ++i) {
        size_t id[8];
        int inside = 0;
        for (int c = 0; c < 8; ++c) {
          id[c] = g.index(i + corner[c][0], j + corner[c][1], k + corner[c][2]);
          inside += solid[id[c]];
        }
        if (inside == 0 || inside == 8) continue;
        Vec3 sum = Vec3::Zero();
        int count = 0;
        for (const auto& e : cellEdges) {
          if (solid[id[e[0]]] == solid[id[e[1]]]) continue;
          const double a = phi(id[e[0]]), b = phi(id[e[1]]);
          const double t = std::clamp(a / (a - b), 0.05, 0.95);
          const Vec3 pa(corner[e[0]][0], corner[e[0]][1], corner[e[0]][2]);
          const Vec3 pb(corner[e[1]][0], corner[e[1]][1], corner[e[1]][2]);
          sum += pa + t * (pb - pa);
          ++count;
        }
        cellVertex[g.cellIndex(i, j, k)] = int32_t(mesh.positions.size());
        mesh.positions.push_back(g.point(i, j, k) + g.h * sum / count);
        centre.push_back(g.point(i, j, k) + Vec3::Constant(0.5 * g.h));
      }
  // One quad per solid/empty grid edge, around the edge counter-clockwise
  // seen from the empty side, split along a diagonal that keeps both
  // triangles facing that side.
  struct Quad {
    std::array<int32_t, 4> v;
    Vec3 outward;
  };
  std::vector<Quad> quads;
  for (int k = 1; k + 1 < g.n[2]; ++k)
    for (int j = 1; j + 1 < g.n[1]; ++j)
      for (int i = 1; i + 1 < g.n[0]; ++i) {
        const bool s0 = solid[g.index(i, j, k)];
        auto add = [&](bool s1, int axis, std::array<size_t, 4> cells) {
          if (s0 == s1) return;
          Quad q;
          for (int c = 0; c < 4; ++c) q.v[size_t(c)] = cellVertex[cells[size_t(c)]];
          q.outward = Vec3::Zero();
          q.outward[axis] = s0 ? 1.0 : -1.0;
          if (!s0) std::swap(q.v[1], q.v[3]);
          quads.push_back(q);
        };
        add(solid[g.index(i + 1, j, k)], 0,
            {g.cellIndex(i, j - 1, k - 1), g.cellIndex(i, j, k - 1), g.cellIndex(i, j, k), g.cellIndex(i, j - 1, k)});
        add(solid[g.index(i, j + 1, k)], 1,
            {g.cellIndex(i - 1, j, k - 1), g.cellIndex(i - 1, j, k), g.cellIndex(i, j, k), g.cellIndex(i, j, k - 1)});
        add(solid[g.index(i, j, k + 1)], 2,
            {g.cellIndex(i - 1, j - 1, k), g.cellIndex(i, j - 1, k), g.cellIndex(i, j, k), g.cellIndex(i - 1, j, k)});
      }
  auto triangulate = [&](TriMesh& out) {
    out.triangles.clear();
    const auto& P = out.positions;
    auto facing = [&](int32_t a, int32_t b, int32_t c, const Vec3& n) {
      const Vec3 cr = (P[b] - P[a]).cross(P[c] - P[a]);
      const double q = cr.dot(n);
      // Quality: projected area over squared edge lengths (0 when flat or facing away).
      const double e = (P[b] - P[a]).squaredNorm() + (P[c] - P[b]).squaredNorm() + (P[a] - P[c]).squaredNorm();
      return q > 0 ? q / e : -1.0;
    };
    for (const Quad& q : quads) {
      const auto [a, b, c, d] = q.v;
      const double qa = std::min(facing(a, b, c, q.outward), facing(a, c, d, q.outward));
      const double qb = std::min(facing(a, b, d, q.outward), facing(b, c, d, q.outward));
      if (qa >= qb) {
        out.triangles.push_back({a, b, c});
        out.triangles.push_back({a, c, d});
      } else {
        out.triangles.push_back({a, b, d});
        out.triangles.push_back({b, c, d});
      }
    }
  };
  triangulate(mesh);

  // Where moved vertices made triangles cross, put them back at their cell
  // centres (all centred, the surface is the voxels' boundary: embedded).
  MeshValidationOptions vo;
  vo.maxListed = size_t(-1);
  std::vector<char> centred(mesh.vertexCount(), 0);
  auto centreAll = [&] {
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
      rep.centredVertices += !centred[v];
      centred[v] = 1;
      mesh.positions[v] = centre[v];
    }
    triangulate(mesh);
  };
  for (int round = 0;; ++round) {
    progress.update(0.85 + 0.15 * std::min(round, 5) / 6.0, "self-intersections");
    const MeshReport r = validateMesh(mesh, vo);
    if (r.selfIntersectionCount == 0 && r.degenerateCount == 0) break;
    if (round == 8) {
      centreAll();
      break;
    }
    size_t moved = 0;
    for (int32_t t : r.problemTriangles())
      for (int32_t v : mesh.triangles[size_t(t)])
        if (!centred[size_t(v)]) {
          centred[size_t(v)] = 1;
          mesh.positions[size_t(v)] = centre[size_t(v)];
          ++moved;
        }
    if (moved == 0) {
      centreAll();
      break;
    }
    rep.centredVertices += moved;
    triangulate(mesh);
  }
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (report) *report = rep;
  progress.update(1.0, "hull");
  return mesh;
}

}  // namespace sinew
