#include "volume/Decimate.h"

#include "core/Error.h"
#include "geometry/Intersect.h"
#include "volume/Closest.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <queue>

namespace sinew {

namespace {

// Symmetric 4x4 quadric, upper triangle row by row.
struct Quadric {
  double q[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  void addPlane(const Vec3& n, double d, double w) {
    const double v[4] = {n.x(), n.y(), n.z(), d};
    int k = 0;
    for (int i = 0; i < 4; ++i)
      for (int j = i; j < 4; ++j) q[k++] += w * v[i] * v[j];
  }
  Quadric& operator+=(const Quadric& o) {
    for (int i = 0; i < 10; ++i) q[i] += o.q[i];
    return *this;
  }
  double error(const Vec3& p) const {
    const double x = p.x(), y = p.y(), z = p.z();
    return q[0] * x * x + 2 * q[1] * x * y + 2 * q[2] * x * z + 2 * q[3] * x + q[4] * y * y + 2 * q[5] * y * z +
           2 * q[6] * y + q[7] * z * z + 2 * q[8] * z + q[9];
  }
  // Minimiser, when the 3x3 part is well conditioned.
  bool optimum(Vec3& out) const {
    Mat3 a;
    a << q[0], q[1], q[2], q[1], q[4], q[5], q[2], q[5], q[7];
    const double det = a.determinant();
    const double scale = a.trace();
    if (!(std::abs(det) > 1e-9 * scale * scale * scale)) return false;
    out = a.inverse() * Vec3(-q[3], -q[6], -q[8]);
    return out.allFinite();
  }
};

double triangleQuality(const Vec3& a, const Vec3& b, const Vec3& c) {
  const double area2 = (b - a).cross(c - a).norm();  // twice the area
  const double e = (b - a).squaredNorm() + (c - b).squaredNorm() + (a - c).squaredNorm();
  return e > 0 ? 2.0 * std::sqrt(3.0) * area2 / e : 0.0;
}

// A dense grid of buckets over a box (points or triangle boxes); coordinates
// outside the box clamp to its border cells.
struct BucketGrid {
  Vec3 origin = Vec3::Zero();
  double cell = 1;
  int n[3] = {1, 1, 1};
  std::vector<std::vector<int32_t>> buckets;
  size_t entries = 0;

  void init(const Aabb& box, double cellSize) {
    cell = cellSize;
    origin = box.min;
    for (int a = 0; a < 3; ++a) n[a] = std::clamp(int(std::ceil((box.max[a] - box.min[a]) / cell)), 1, 160);
    // Keep cells cubic-ish after clamping.
    double c = cell;
    for (int a = 0; a < 3; ++a) c = std::max(c, (box.max[a] - box.min[a]) / n[a]);
    cell = c;
    buckets.assign(size_t(n[0]) * size_t(n[1]) * size_t(n[2]), {});
    entries = 0;
  }
  int coord(double x, int a) const { return std::clamp(int(std::floor((x - origin[a]) / cell)), 0, n[a] - 1); }
  template <class F>
  void forCells(const Aabb& box, F&& f) {
    const int x0 = coord(box.min.x(), 0), x1 = coord(box.max.x(), 0);
    const int y0 = coord(box.min.y(), 1), y1 = coord(box.max.y(), 1);
    const int z0 = coord(box.min.z(), 2), z1 = coord(box.max.z(), 2);
    for (int z = z0; z <= z1; ++z)
      for (int y = y0; y <= y1; ++y)
        for (int x = x0; x <= x1; ++x) f(buckets[(size_t(z) * size_t(n[1]) + size_t(y)) * size_t(n[0]) + size_t(x)]);
  }
  void insert(const Aabb& box, int32_t id) {
    forCells(box, [&](std::vector<int32_t>& b) {
      b.push_back(id);
      ++entries;
    });
  }
};

Aabb boxOf(const Vec3& a, const Vec3& b, const Vec3& c) {
  Aabb box;
  box.add(a);
  box.add(b);
  box.add(c);
  return box;
}

// A triangle with its vertex ids (ids decide which vertices are shared).
struct TriRef {
  std::array<int32_t, 3> id;
  std::array<Vec3, 3> x;
};

// Whether two triangles of one surface cross: away from shared vertices; a
// shared edge never counts (folds are checked separately).
bool crosses(const TriRef& a, const TriRef& b, double tol) {
  int shared = 0, sa = -1, sb = -1;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (a.id[size_t(i)] == b.id[size_t(j)]) {
        ++shared;
        sa = i;
        sb = j;
      }
  if (shared == 0) return trianglesIntersect(a.x[0], a.x[1], a.x[2], b.x[0], b.x[1], b.x[2], tol);
  if (shared == 1) {
    const Vec3& a1 = a.x[size_t((sa + 1) % 3)];
    const Vec3& a2 = a.x[size_t((sa + 2) % 3)];
    const Vec3& b1 = b.x[size_t((sb + 1) % 3)];
    const Vec3& b2 = b.x[size_t((sb + 2) % 3)];
    return segmentCrossesTriangle(a1, a2, b.x[0], b.x[1], b.x[2]) ||
           segmentCrossesTriangle(b1, b2, a.x[0], a.x[1], a.x[2]);
  }
  return false;
}

struct Entry {
  double cost;
  int32_t a, b;
  uint32_t sa, sb;
  bool operator<(const Entry& o) const {  // for a min-heap through std::priority_queue
    if (cost != o.cost) return cost > o.cost;
    if (a != o.a) return a > o.a;
    return b > o.b;
  }
};

}  // namespace

struct Decimator::State {
  DecimateOptions opt;
  DecimateReport rep;
  std::vector<Vec3> P;
  std::vector<Tri> T;
  std::vector<char> tAlive, vAlive;
  std::vector<std::vector<int32_t>> vTris;
  std::vector<uint32_t> stamp;
  std::vector<Quadric> Q;
  std::priority_queue<Entry> heap;
  BucketGrid triGrid, pointGrid;
  std::vector<uint32_t> visited;
  uint32_t visitStamp = 0;
  size_t aliveVertices = 0;
  size_t triGridBase = 0;
  double diag = 1, tol = 0;

  Vec3 normal(int32_t t) const {
    const Tri& k = T[size_t(t)];
    return (P[k[1]] - P[k[0]]).cross(P[k[2]] - P[k[0]]);
  }
  Aabb triBox(int32_t t) const {
    const Tri& k = T[size_t(t)];
    return boxOf(P[k[0]], P[k[1]], P[k[2]]);
  }
  void neighbours(int32_t v, std::vector<int32_t>& out) const {
    out.clear();
    for (int32_t t : vTris[size_t(v)])
      for (int32_t u : T[size_t(t)])
        if (u != v) out.push_back(u);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  bool hasTriangle(int32_t a, int32_t b, int32_t c) const {
    for (int32_t t : vTris[size_t(a)]) {
      const Tri& k = T[size_t(t)];
      if (std::find(k.begin(), k.end(), b) != k.end() && std::find(k.begin(), k.end(), c) != k.end()) return true;
    }
    return false;
  }

  // Candidate positions for collapsing (a, b), cheapest first.
  void candidates(int32_t a, int32_t b, std::vector<std::pair<double, Vec3>>& out) const {
    out.clear();
    Quadric q = Q[size_t(a)];
    q += Q[size_t(b)];
    const Vec3 mid = 0.5 * (P[size_t(a)] + P[size_t(b)]);
    const double len = (P[size_t(a)] - P[size_t(b)]).norm();
    const double lengthCost = opt.lengthWeight * len * len * len * len;
    Vec3 best;
    if (q.optimum(best) && (best - mid).norm() <= len) out.push_back({q.error(best) + lengthCost, best});
    for (const Vec3& p : {mid, P[size_t(a)], P[size_t(b)]}) out.push_back({q.error(p) + lengthCost, p});
    std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  }

  void push(int32_t a, int32_t b) {
    if (a > b) std::swap(a, b);
    std::vector<std::pair<double, Vec3>> c;
    candidates(a, b, c);
    heap.push({c.front().first, a, b, stamp[size_t(a)], stamp[size_t(b)]});
  }

  void rebuildHeap() {
    heap = {};
    std::vector<int32_t> nb;
    for (size_t v = 0; v < P.size(); ++v) {
      if (!vAlive[v]) continue;
      neighbours(int32_t(v), nb);
      for (int32_t u : nb)
        if (u > int32_t(v)) push(int32_t(v), u);
    }
  }

  void rebuildTriGrid() {
    for (auto& b : triGrid.buckets) b.clear();
    triGrid.entries = 0;
    for (size_t t = 0; t < T.size(); ++t)
      if (tAlive[t]) triGrid.insert(triBox(int32_t(t)), int32_t(t));
    triGridBase = triGrid.entries;
  }

  // Whether replacing triangles `removed` by `added` keeps every constraint:
  // `reference` holds a normal per added triangle it must not turn away from,
  // `swept` the tets covering the volume between old and new surface, and
  // `oldWorst` the worst quality among the removed triangles.
  bool allowed(const std::vector<int32_t>& removed, const std::vector<TriRef>& added,
               const std::vector<Vec3>& reference, const std::vector<std::array<Vec3, 4>>& swept, double oldWorst);
  // Tries to collapse edge (a, b) into a at p; applies it and returns true
  // when every constraint holds.
  bool tryCollapse(int32_t a, int32_t b, const Vec3& p);
  // Tries to flip edge (a, b) when that improves the two triangles' shape.
  bool tryFlip(int32_t a, int32_t b);
  // Tries to move v to x.
  bool tryMove(int32_t v, const Vec3& x);
  void eraseFromFans(int32_t t) {
    for (int32_t v : T[size_t(t)]) {
      auto& list = vTris[size_t(v)];
      list.erase(std::remove(list.begin(), list.end(), t), list.end());
    }
  }
  void addToFans(int32_t t) {
    for (int32_t v : T[size_t(t)]) {
      auto& list = vTris[size_t(v)];
      list.insert(std::upper_bound(list.begin(), list.end(), t), t);
    }
  }
};

bool Decimator::State::allowed(const std::vector<int32_t>& removed, const std::vector<TriRef>& added,
                               const std::vector<Vec3>& reference, const std::vector<std::array<Vec3, 4>>& swept,
                               double oldWorst) {
  const double cosMax = std::cos(opt.maxNormalChangeDeg * M_PI / 180.0);
  std::vector<Vec3> n(added.size());
  for (size_t i = 0; i < added.size(); ++i) {
    const TriRef& r = added[i];
    const Vec3 c = (r.x[1] - r.x[0]).cross(r.x[2] - r.x[0]);
    if (!(c.norm() > 1e-14 * diag * diag)) return false;
    n[i] = c.normalized();
    if (n[i].dot(reference[i]) < cosMax * reference[i].norm()) return false;
    const double q = triangleQuality(r.x[0], r.x[1], r.x[2]);
    if (q < opt.minTriangleQuality && q < oldWorst) return false;
  }
  auto isRemoved = [&](int32_t t) { return std::find(removed.begin(), removed.end(), t) != removed.end(); };
  // Folds: the neighbour across each edge (another new triangle or an
  // untouched one) must not turn back onto the new triangle.
  for (size_t i = 0; i < added.size(); ++i)
    for (int e = 0; e < 3; ++e) {
      const int32_t u = added[i].id[size_t(e)], v = added[i].id[size_t((e + 1) % 3)];
      Vec3 m = Vec3::Zero();
      bool found = false;
      for (size_t j = 0; j < added.size() && !found; ++j)
        for (int f = 0; f < 3; ++f)
          if (j != i && added[j].id[size_t(f)] == v && added[j].id[size_t((f + 1) % 3)] == u) {
            m = n[j];
            found = true;
          }
      if (!found)
        for (int32_t t : vTris[size_t(u)]) {
          if (isRemoved(t)) continue;
          const Tri& k = T[size_t(t)];
          if (std::find(k.begin(), k.end(), v) != k.end()) {
            m = normal(t).normalized();
            found = true;
            break;
          }
        }
      if (found && n[i].dot(m) < opt.minFoldCos) return false;
    }

  // Enclosure: no kept point in the swept tets, none too close to the new triangles.
  if (!opt.keepInside.empty()) {
    Aabb query;
    for (const auto& tet : swept)
      for (const Vec3& x : tet) query.add(x);
    for (const TriRef& r : added)
      for (const Vec3& x : r.x) query.add(x);
    query.min -= Vec3::Constant(opt.clearance);
    query.max += Vec3::Constant(opt.clearance);
    bool bad = false;
    const double c2 = opt.clearance * opt.clearance;
    pointGrid.forCells(query, [&](std::vector<int32_t>& bucket) {
      for (int32_t i : bucket) {
        if (bad) return;
        const Vec3& x = opt.keepInside[size_t(i)];
        if ((x.array() < query.min.array()).any() || (x.array() > query.max.array()).any()) continue;
        for (const auto& tet : swept) {
          const std::array<double, 4> w = tetBarycentric(x, tet[0], tet[1], tet[2], tet[3]);
          const double sum = w[0] + w[1] + w[2] + w[3];
          if (sum > 0 && *std::min_element(w.begin(), w.end()) >= -1e-9) {
            bad = true;
            return;
          }
        }
        for (const TriRef& r : added)
          if (pointTriangleDistanceSquared(x, r.x[0], r.x[1], r.x[2]) < c2) {
            bad = true;
            return;
          }
      }
    });
    if (bad) return false;
  }

  // Self-intersections: new triangles against each other and their surroundings.
  if (opt.preventIntersections) {
    for (size_t i = 0; i < added.size(); ++i)
      for (size_t j = i + 1; j < added.size(); ++j)
        if (crosses(added[i], added[j], tol)) return false;
    Aabb query;
    for (const TriRef& r : added)
      for (const Vec3& x : r.x) query.add(x);
    query.min -= Vec3::Constant(tol);
    query.max += Vec3::Constant(tol);
    if (++visitStamp == 0) {
      std::fill(visited.begin(), visited.end(), 0u);
      visitStamp = 1;
    }
    for (int32_t t : removed) visited[size_t(t)] = visitStamp;
    bool bad = false;
    triGrid.forCells(query, [&](std::vector<int32_t>& bucket) {
      for (int32_t t : bucket) {
        if (bad) return;
        if (visited[size_t(t)] == visitStamp || !tAlive[size_t(t)]) continue;
        visited[size_t(t)] = visitStamp;
        const Aabb tb = triBox(t);
        if (!tb.overlaps(query)) continue;
        const Tri& k = T[size_t(t)];
        const TriRef other{{k[0], k[1], k[2]}, {P[k[0]], P[k[1]], P[k[2]]}};
        for (const TriRef& r : added)
          if (boxOf(r.x[0], r.x[1], r.x[2]).overlaps(tb) && crosses(r, other, tol)) {
            bad = true;
            return;
          }
      }
    });
    if (bad) return false;
  }
  return true;
}

bool Decimator::State::tryCollapse(int32_t a, int32_t b, const Vec3& p) {
  // Triangles around a and b; the two on edge ab disappear.
  std::vector<int32_t> fan, shared;
  for (int32_t t : vTris[size_t(a)]) fan.push_back(t);
  for (int32_t t : vTris[size_t(b)]) {
    const Tri& k = T[size_t(t)];
    if (std::find(k.begin(), k.end(), a) != k.end()) shared.push_back(t);
    else fan.push_back(t);
  }
  if (shared.size() != 2) return false;
  // Link condition: a and b have exactly the two opposite vertices in common,
  // and are not two faces of a tetrahedron.
  int32_t opposite[2] = {-1, -1};
  for (int s = 0; s < 2; ++s)
    for (int32_t u : T[size_t(shared[size_t(s)])])
      if (u != a && u != b) opposite[s] = u;
  {
    std::vector<int32_t> na, nb, common;
    neighbours(a, na);
    neighbours(b, nb);
    std::set_intersection(na.begin(), na.end(), nb.begin(), nb.end(), std::back_inserter(common));
    if (common.size() != 2) return false;
    if (hasTriangle(a, opposite[0], opposite[1]) && hasTriangle(b, opposite[0], opposite[1])) return false;
  }
  // New triangles: the fan minus the shared two, b replaced by a, at p. The
  // swept volume is the cone from p over the old fan.
  std::vector<TriRef> added;
  std::vector<Vec3> reference;
  std::vector<std::array<Vec3, 4>> swept;
  double oldWorst = 1.0;
  for (int32_t t : fan) {
    const Tri& k = T[size_t(t)];
    swept.push_back({p, P[k[0]], P[k[1]], P[k[2]]});
    if (std::find(shared.begin(), shared.end(), t) != shared.end()) continue;
    oldWorst = std::min(oldWorst, triangleQuality(P[k[0]], P[k[1]], P[k[2]]));
    TriRef r;
    for (int c = 0; c < 3; ++c) {
      r.id[size_t(c)] = k[c] == b ? a : k[c];
      r.x[size_t(c)] = (k[c] == a || k[c] == b) ? p : P[k[c]];
    }
    added.push_back(r);
    reference.push_back(normal(t).normalized());
  }
  if (!allowed(fan, added, reference, swept, oldWorst)) return false;

  // Apply.
  for (int32_t t : shared) {
    tAlive[size_t(t)] = 0;
    eraseFromFans(t);
  }
  for (int32_t t : vTris[size_t(b)]) {
    for (int32_t& v : T[size_t(t)])
      if (v == b) v = a;
    vTris[size_t(a)].push_back(t);
  }
  std::sort(vTris[size_t(a)].begin(), vTris[size_t(a)].end());
  vTris[size_t(b)].clear();
  vAlive[size_t(b)] = 0;
  --aliveVertices;
  P[size_t(a)] = p;
  Q[size_t(a)] += Q[size_t(b)];
  ++stamp[size_t(a)];
  ++stamp[size_t(b)];
  for (int32_t t : vTris[size_t(a)]) triGrid.insert(triBox(t), t);
  if (triGrid.entries > 4 * triGridBase + 1024) rebuildTriGrid();
  std::vector<int32_t> nb;
  neighbours(a, nb);
  for (int32_t u : nb) push(a, u);
  return true;
}

bool Decimator::State::tryFlip(int32_t a, int32_t b) {
  // The two triangles (a, b, c) and (b, a, d) become (a, d, c) and (d, b, c).
  int32_t t1 = -1, t2 = -1, c = -1, d = -1;
  for (int32_t t : vTris[size_t(a)]) {
    const Tri& k = T[size_t(t)];
    for (int i = 0; i < 3; ++i) {
      if (k[i] == a && k[(i + 1) % 3] == b) {
        t1 = t;
        c = k[(i + 2) % 3];
      }
      if (k[i] == b && k[(i + 1) % 3] == a) {
        t2 = t;
        d = k[(i + 2) % 3];
      }
    }
  }
  if (t1 < 0 || t2 < 0 || c == d) return false;
  for (int32_t t : vTris[size_t(c)]) {
    const Tri& k = T[size_t(t)];
    if (std::find(k.begin(), k.end(), d) != k.end()) return false;  // edge cd exists
  }
  const Vec3 &pa = P[size_t(a)], &pb = P[size_t(b)], &pc = P[size_t(c)], &pd = P[size_t(d)];
  const double before = std::min(triangleQuality(pa, pb, pc), triangleQuality(pb, pa, pd));
  const double after = std::min(triangleQuality(pa, pd, pc), triangleQuality(pd, pb, pc));
  if (after <= 1.1 * before) return false;
  // Only across nearly flat edges: a flip across a crease changes the shape.
  const Vec3 n1 = normal(t1).normalized(), n2 = normal(t2).normalized();
  if (n1.dot(n2) < std::cos(20.0 * M_PI / 180.0)) return false;
  const Vec3 ref = (n1 + n2).normalized();
  std::vector<TriRef> added{{{a, d, c}, {pa, pd, pc}}, {{d, b, c}, {pd, pb, pc}}};
  if (!allowed({t1, t2}, added, {ref, ref}, {{pa, pb, pc, pd}}, before)) return false;
  eraseFromFans(t1);
  eraseFromFans(t2);
  T[size_t(t1)] = {a, d, c};
  T[size_t(t2)] = {d, b, c};
  addToFans(t1);
  addToFans(t2);
  for (int32_t v : {a, b, c, d}) ++stamp[size_t(v)];
  triGrid.insert(triBox(t1), t1);
  triGrid.insert(triBox(t2), t2);
  return true;
}

bool Decimator::State::tryMove(int32_t v, const Vec3& x) {
  const std::vector<int32_t> fan = vTris[size_t(v)];
  std::vector<TriRef> added;
  std::vector<Vec3> reference;
  std::vector<std::array<Vec3, 4>> swept;
  double oldWorst = 1.0;
  for (int32_t t : fan) {
    const Tri& k = T[size_t(t)];
    swept.push_back({x, P[k[0]], P[k[1]], P[k[2]]});
    oldWorst = std::min(oldWorst, triangleQuality(P[k[0]], P[k[1]], P[k[2]]));
    TriRef r;
    for (int c = 0; c < 3; ++c) {
      r.id[size_t(c)] = k[c];
      r.x[size_t(c)] = k[c] == v ? x : P[k[c]];
    }
    added.push_back(r);
    reference.push_back(normal(t).normalized());
  }
  double newWorst = 1.0;
  for (const TriRef& r : added) newWorst = std::min(newWorst, triangleQuality(r.x[0], r.x[1], r.x[2]));
  if (newWorst <= oldWorst) return false;
  if (!allowed(fan, added, reference, swept, oldWorst)) return false;
  P[size_t(v)] = x;
  ++stamp[size_t(v)];
  for (int32_t t : fan) triGrid.insert(triBox(t), t);
  return true;
}

Decimator::Decimator(const TriMesh& mesh, const DecimateOptions& options) : s_(std::make_unique<State>()) {
  State& s = *s_;
  s.opt = options;
  s.P = mesh.positions;
  s.T = mesh.triangles;
  const size_t nv = mesh.vertexCount(), nt = mesh.triangleCount();
  if (hasInvalidIndices(mesh)) throw InputError("simplify", "a triangle refers to a vertex that does not exist");
  // Closed, manifold, oriented: every directed edge once, its reverse once.
  {
    std::vector<std::array<int32_t, 2>> directed;
    for (const Tri& t : mesh.triangles)
      for (int c = 0; c < 3; ++c) directed.push_back({t[c], t[(c + 1) % 3]});
    std::sort(directed.begin(), directed.end());
    for (size_t i = 0; i < directed.size(); ++i) {
      const auto& e = directed[i];
      if (e[0] == e[1] || (i > 0 && directed[i - 1] == e) ||
          !std::binary_search(directed.begin(), directed.end(), std::array<int32_t, 2>{e[1], e[0]}))
        throw InputError("simplify", "the surface is not a closed, consistently oriented manifold");
    }
  }
  s.rep.inputVertices = nv;
  s.tAlive.assign(nt, 1);
  s.vAlive.assign(nv, 0);
  s.vTris.assign(nv, {});
  s.stamp.assign(nv, 0);
  s.Q.assign(nv, {});
  s.visited.assign(nt, 0);
  for (size_t t = 0; t < nt; ++t)
    for (int32_t v : s.T[t]) {
      s.vTris[size_t(v)].push_back(int32_t(t));
      s.vAlive[size_t(v)] = 1;
    }
  for (char a : s.vAlive) s.aliveVertices += size_t(a);
  const Aabb box = mesh.bounds();
  s.diag = std::max(box.diagonal(), 1e-300);
  s.tol = 1e-7 * s.diag;
  // Area-weighted plane quadrics.
  for (size_t t = 0; t < nt; ++t) {
    const Vec3 n2 = s.normal(int32_t(t));
    const double len = n2.norm();
    if (len <= 0) continue;
    const Vec3 n = n2 / len;
    const double d = -n.dot(s.P[size_t(s.T[t][0])]);
    for (int32_t v : s.T[t]) s.Q[size_t(v)].addPlane(n, d, 0.5 * len);
  }
  // Grids: cells of about two mean edge lengths.
  double edge = 0;
  for (size_t t = 0; t < nt; ++t) edge += (s.P[size_t(s.T[t][0])] - s.P[size_t(s.T[t][1])]).norm();
  edge = nt ? edge / double(nt) : s.diag;
  Aabb gridBox = box;
  gridBox.min -= Vec3::Constant(0.05 * s.diag);
  gridBox.max += Vec3::Constant(0.05 * s.diag);
  s.triGrid.init(gridBox, std::max(2.0 * edge, 1e-9 * s.diag));
  s.rebuildTriGrid();
  s.pointGrid.init(gridBox, std::max(2.0 * edge, 1e-9 * s.diag));
  for (size_t i = 0; i < s.opt.keepInside.size(); ++i) {
    Aabb b;
    b.add(s.opt.keepInside[i]);
    s.pointGrid.insert(b, int32_t(i));
  }
  s.rebuildHeap();
}

Decimator::~Decimator() = default;

bool Decimator::run(size_t target, const Progress& progress) {
  State& s = *s_;
  const auto start = std::chrono::steady_clock::now();
  const size_t from = s.aliveVertices;
  size_t sinceRebuild = 0, rebuilds = 0, iterations = 0;
  std::vector<std::pair<double, Vec3>> cands;
  while (s.aliveVertices > target) {
    if ((++iterations & 255) == 0)
      progress.update(double(from - s.aliveVertices) / double(std::max<size_t>(from - target, 1)), "simplifying");
    if (s.heap.empty()) {
      // Collapses refused earlier may be allowed now that their
      // surroundings changed.
      if (sinceRebuild == 0 || rebuilds >= 4) break;
      s.rebuildHeap();
      sinceRebuild = 0;
      ++rebuilds;
      continue;
    }
    const Entry e = s.heap.top();
    s.heap.pop();
    if (!s.vAlive[size_t(e.a)] || !s.vAlive[size_t(e.b)] || s.stamp[size_t(e.a)] != e.sa ||
        s.stamp[size_t(e.b)] != e.sb)
      continue;
    s.candidates(e.a, e.b, cands);
    bool done = false;
    for (const auto& c : cands)
      if (s.tryCollapse(e.a, e.b, c.second)) {
        done = true;
        break;
      }
    if (done) {
      ++s.rep.collapses;
      ++sinceRebuild;
    } else {
      ++s.rep.rejected;
    }
  }
  s.rep.outputVertices = s.aliveVertices;
  s.rep.reachedTarget = s.aliveVertices <= target;
  s.rep.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.update(1.0, "simplifying");
  return s.rep.reachedTarget;
}

void Decimator::improve(int rounds, const Progress& progress) {
  State& s = *s_;
  const auto start = std::chrono::steady_clock::now();
  std::vector<int32_t> nb;
  for (int round = 0; round < rounds; ++round) {
    progress.update(double(round) / rounds, "improving");
    size_t changes = 0;
    // Flips, over the edges as they are now (in vertex order).
    std::vector<std::array<int32_t, 2>> edges;
    for (size_t v = 0; v < s.P.size(); ++v) {
      if (!s.vAlive[v]) continue;
      s.neighbours(int32_t(v), nb);
      for (int32_t u : nb)
        if (u > int32_t(v)) edges.push_back({int32_t(v), u});
    }
    for (const auto& e : edges) changes += s.tryFlip(e[0], e[1]);
    // Tangential smoothing: halfway towards the neighbours' centroid, within
    // the tangent plane, when that improves the worst triangle around.
    for (size_t v = 0; v < s.P.size(); ++v) {
      if (!s.vAlive[v]) continue;
      s.neighbours(int32_t(v), nb);
      Vec3 c = Vec3::Zero(), n = Vec3::Zero();
      for (int32_t u : nb) c += s.P[size_t(u)];
      c /= double(nb.size());
      for (int32_t t : s.vTris[v]) n += s.normal(t);
      if (!(n.norm() > 0)) continue;
      n.normalize();
      Vec3 d = c - s.P[v];
      d -= d.dot(n) * n;
      if (d.norm() <= 1e-9 * s.diag) continue;
      changes += s.tryMove(int32_t(v), s.P[v] + 0.5 * d);
    }
    s.rep.improvements += changes;
    if (changes == 0) break;
  }
  s.rebuildHeap();
  s.rep.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.update(1.0, "improving");
}

size_t Decimator::vertexCount() const { return s_->aliveVertices; }

TriMesh Decimator::mesh() const {
  const State& s = *s_;
  TriMesh m;
  std::vector<int32_t> remap(s.P.size(), -1);
  for (size_t v = 0; v < s.P.size(); ++v)
    if (s.vAlive[v]) {
      remap[v] = int32_t(m.positions.size());
      m.positions.push_back(s.P[v]);
    }
  for (size_t t = 0; t < s.T.size(); ++t)
    if (s.tAlive[t]) m.triangles.push_back({remap[size_t(s.T[t][0])], remap[size_t(s.T[t][1])], remap[size_t(s.T[t][2])]});
  return m;
}

const DecimateReport& Decimator::report() const { return s_->rep; }

TriMesh decimateSurface(const TriMesh& mesh, size_t targetVertices, const DecimateOptions& options,
                        const Progress& progress, DecimateReport* report) {
  Decimator d(mesh, options);
  d.run(targetVertices, progress);
  if (report) *report = d.report();
  return d.mesh();
}

}  // namespace sinew
