#include "geometry/MeshValidation.h"

#include "geometry/Intersect.h"
#include "geometry/TriangleTree.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace sinew {

namespace {

// Directed half-edge record, sorted so that all uses of an undirected edge are adjacent.
struct HalfEdge {
  int32_t lo, hi;       // undirected key
  int32_t triangle;
  bool forward;         // true if the triangle traverses lo -> hi
  bool operator<(const HalfEdge& o) const {
    return lo != o.lo ? lo < o.lo : hi != o.hi ? hi < o.hi : triangle < o.triangle;
  }
};

int32_t findRoot(std::vector<int32_t>& parent, int32_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

template <class T>
void pushLimited(std::vector<T>& v, const T& x, size_t limit) {
  if (v.size() < limit) v.push_back(x);
}

}  // namespace

MeshReport validateMesh(const TriMesh& mesh, const MeshValidationOptions& options, const Progress& progress) {
  MeshReport r;
  r.vertexCount = mesh.vertexCount();
  r.triangleCount = mesh.triangleCount();
  const auto nv = static_cast<int32_t>(mesh.vertexCount());
  const auto nt = static_cast<int32_t>(mesh.triangleCount());
  progress.update(0.0, "edges");

  // Degenerate triangles: repeated index or (numerically) zero area.
  const double diag = mesh.bounds().diagonal();
  const double minArea = options.degenerateAreaFraction * diag * diag;
  std::vector<char> degenerate(nt, 0);
  for (int32_t t = 0; t < nt; ++t) {
    const Tri& tri = mesh.triangles[t];
    if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] || triangleArea(mesh, t) <= minArea) {
      degenerate[t] = 1;
      ++r.degenerateCount;
      pushLimited(r.degenerateTriangles, t, options.maxListed);
    }
  }

  // Edge incidence from sorted half-edges.
  std::vector<HalfEdge> he;
  he.reserve(3 * static_cast<size_t>(nt));
  for (int32_t t = 0; t < nt; ++t) {
    const Tri& tri = mesh.triangles[t];
    for (int k = 0; k < 3; ++k) {
      const int32_t a = tri[k], b = tri[(k + 1) % 3];
      if (a == b) continue;
      he.push_back({std::min(a, b), std::max(a, b), t, a < b});
    }
  }
  std::sort(he.begin(), he.end());
  for (size_t i = 0; i < he.size();) {
    size_t j = i;
    while (j < he.size() && he[j].lo == he[i].lo && he[j].hi == he[i].hi) ++j;
    const size_t uses = j - i;
    const Edge e{he[i].lo, he[i].hi};
    if (uses == 1) {
      ++r.boundaryEdgeCount;
      pushLimited(r.boundaryEdges, e, options.maxListed);
    } else if (uses > 2) {
      ++r.nonManifoldEdgeCount;
      pushLimited(r.nonManifoldEdges, e, options.maxListed);
    } else if (he[i].forward == he[i + 1].forward) {
      ++r.misorientedEdgeCount;
    }
    i = j;
  }
  progress.update(0.2, "vertices");

  // Connected components and unreferenced vertices.
  std::vector<int32_t> parent(nv);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<char> used(nv, 0);
  for (const Tri& tri : mesh.triangles) {
    for (int32_t v : tri) used[v] = 1;
    const int32_t r0 = findRoot(parent, tri[0]);
    for (int k = 1; k < 3; ++k) {
      const int32_t rk = findRoot(parent, tri[k]);
      if (rk != r0) parent[rk] = r0;
    }
  }
  for (int32_t v = 0; v < nv; ++v) {
    if (!used[v]) {
      ++r.unreferencedVertices;
      continue;
    }
    if (findRoot(parent, v) == v) ++r.componentCount;
  }

  // Non-manifold vertices: the triangles around a vertex must form a single
  // fan (connected through shared edges). Count fans per vertex with a
  // union-find over the vertex's incident triangles.
  {
    std::vector<int32_t> offset(nv + 1, 0);
    for (const Tri& tri : mesh.triangles)
      for (int32_t v : tri) ++offset[v + 1];
    std::partial_sum(offset.begin(), offset.end(), offset.begin());
    std::vector<int32_t> incident(offset[nv]);
    std::vector<int32_t> fill(offset.begin(), offset.end() - 1);
    for (int32_t t = 0; t < nt; ++t)
      for (int32_t v : mesh.triangles[t]) incident[fill[v]++] = t;
    std::vector<int32_t> local;
    std::vector<std::pair<int32_t, int32_t>> ring;  // (other vertex, local triangle index)
    for (int32_t v = 0; v < nv; ++v) {
      const int32_t b = offset[v], e = offset[v + 1];
      const int32_t n = e - b;
      if (n <= 1) continue;
      local.resize(n);
      std::iota(local.begin(), local.end(), 0);
      // Two incident triangles are in one fan if they share another vertex
      // (an edge through v): sort (other vertex, triangle) and join runs.
      ring.clear();
      for (int32_t i = 0; i < n; ++i)
        for (int32_t x : mesh.triangles[incident[b + i]])
          if (x != v) ring.push_back({x, i});
      std::sort(ring.begin(), ring.end());
      for (size_t k = 1; k < ring.size(); ++k)
        if (ring[k].first == ring[k - 1].first) {
          const int32_t ri = findRoot(local, ring[k - 1].second), rj = findRoot(local, ring[k].second);
          if (ri != rj) local[rj] = ri;
        }
      int32_t fans = 0;
      for (int32_t i = 0; i < n; ++i)
        if (findRoot(local, i) == i) ++fans;
      if (fans > 1) {
        ++r.nonManifoldVertexCount;
        pushLimited(r.nonManifoldVertices, v, options.maxListed);
      }
      if ((v & 1023) == 0) progress.update(0.2 + 0.2 * v / std::max(nv, 1), "vertices");
    }
  }

  // Self-intersections: candidate pairs from the BVH, exact tests, skipping
  // pairs that share an edge; pairs sharing one vertex are tested on the
  // opposite edges (the only way they can cross away from the shared vertex).
  if (options.checkSelfIntersections && nt > 1) {
    progress.update(0.4, "self-intersections");
    const TriangleTree tree(mesh);
    const double tol = 1e-12 * diag;
    std::vector<std::array<int32_t, 2>> candidates;
    r.selfIntersectionsChecked = tree.selfOverlapPairs(0.0, [&](int32_t a, int32_t b) {
      candidates.push_back({a, b});
      if ((candidates.size() & 65535) == 0) progress.update(0.4, "self-intersections");
      return candidates.size() < options.maxCandidatePairs;
    });
    if (!r.selfIntersectionsChecked) {
      r.selfIntersectionsGaveUp = true;
      candidates.clear();
    }
    std::sort(candidates.begin(), candidates.end());
    const auto& P = mesh.positions;
    for (size_t c = 0; c < candidates.size(); ++c) {
      if ((c & 4095) == 0) progress.update(0.4 + 0.6 * double(c) / double(candidates.size()), "self-intersections");
      const auto [a, b] = candidates[c];
      if (degenerate[a] || degenerate[b]) continue;
      const Tri& ta = mesh.triangles[a];
      const Tri& tb = mesh.triangles[b];
      int shared = 0, sa = -1, sb = -1;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          if (ta[i] == tb[j]) {
            ++shared;
            sa = i;
            sb = j;
          }
      bool hit = false;
      if (shared == 0) {
        hit = trianglesIntersect(P[ta[0]], P[ta[1]], P[ta[2]], P[tb[0]], P[tb[1]], P[tb[2]], tol);
      } else if (shared == 1) {
        const Vec3& a1 = P[ta[(sa + 1) % 3]];
        const Vec3& a2 = P[ta[(sa + 2) % 3]];
        const Vec3& b1 = P[tb[(sb + 1) % 3]];
        const Vec3& b2 = P[tb[(sb + 2) % 3]];
        hit = segmentCrossesTriangle(a1, a2, P[tb[0]], P[tb[1]], P[tb[2]]) ||
              segmentCrossesTriangle(b1, b2, P[ta[0]], P[ta[1]], P[ta[2]]);
      }
      if (hit) {
        ++r.selfIntersectionCount;
        pushLimited(r.intersectingPairs, {a, b}, options.maxListed);
      }
    }
  }
  progress.update(1.0, "done");
  return r;
}

namespace {
// " (e.g. 3-7, 8-9, ...)": the first few listed items, so a user can find them.
template <class T, class F>
std::string examples(const std::vector<T>& items, size_t count, F&& format) {
  if (items.empty()) return {};
  constexpr size_t kShown = 5;
  std::string s = " (";
  for (size_t i = 0; i < std::min(items.size(), kShown); ++i) s += (i ? ", " : "") + format(items[i]);
  return s + (count > kShown ? ", ...)" : ")");
}
std::string edgeText(const Edge& e) { return std::to_string(e[0]) + "-" + std::to_string(e[1]); }
std::string indexText(int32_t i) { return std::to_string(i); }
std::string pairText(const std::array<int32_t, 2>& p) { return std::to_string(p[0]) + "/" + std::to_string(p[1]); }
}  // namespace

Diagnostics MeshReport::diagnostics(const std::string& name) const {
  Diagnostics d;
  auto warn = [&](size_t n, const std::string& what, const std::string& listed) {
    if (n) d.push_back({Severity::Warning, name + ": " + std::to_string(n) + " " + what + listed});
  };
  warn(boundaryEdgeCount, "open boundary edge(s) (the surface is not closed); edges",
       examples(boundaryEdges, boundaryEdgeCount, edgeText));
  warn(nonManifoldEdgeCount, "non-manifold edge(s) (shared by three or more faces); edges",
       examples(nonManifoldEdges, nonManifoldEdgeCount, edgeText));
  warn(nonManifoldVertexCount, "non-manifold vertex(es) (faces around it form several fans); vertices",
       examples(nonManifoldVertices, nonManifoldVertexCount, indexText));
  warn(degenerateCount, "degenerate face(s) (zero area); faces",
       examples(degenerateTriangles, degenerateCount, indexText));
  warn(misorientedEdgeCount, "edge(s) with inconsistent face orientation", "");
  warn(selfIntersectionCount, "self-intersecting face pair(s); faces",
       examples(intersectingPairs, selfIntersectionCount, pairText));
  warn(unreferencedVertices, "unreferenced vertex(es)", "");
  if (selfIntersectionsGaveUp)
    d.push_back({Severity::Warning, name + ": self-intersections not checked (too many overlapping faces)"});
  if (d.empty())
    d.push_back({Severity::Info, name + ": closed manifold surface, " + std::to_string(triangleCount) +
                                     " faces, " + std::to_string(componentCount) + " component(s)" +
                                     (selfIntersectionsChecked ? ", no self-intersections" : "")});
  return d;
}

std::vector<int32_t> MeshReport::problemTriangles() const {
  std::vector<int32_t> t = degenerateTriangles;
  for (const auto& p : intersectingPairs) {
    t.push_back(p[0]);
    t.push_back(p[1]);
  }
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

}  // namespace sinew
