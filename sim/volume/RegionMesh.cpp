#include "volume/RegionMesh.h"

#include "geometry/Intersect.h"
#include "geometry/TriangleTree.h"
#include "volume/Decimate.h"
#include "volume/Embed.h"
#include "volume/FixedNodes.h"
#include "volume/WindingNumber.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

namespace sinew {

namespace {

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void sortUnique(std::vector<int32_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Triangles using any of the listed edges.
std::vector<int32_t> trianglesOnEdges(const TriMesh& m, const std::vector<Edge>& edges) {
  std::vector<Edge> sorted = edges;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int32_t> out;
  for (size_t t = 0; t < m.triangleCount(); ++t)
    for (int c = 0; c < 3; ++c) {
      const int32_t a = m.triangles[t][c], b = m.triangles[t][(c + 1) % 3];
      if (std::binary_search(sorted.begin(), sorted.end(), Edge{std::min(a, b), std::max(a, b)})) {
        out.push_back(int32_t(t));
        break;
      }
    }
  return out;
}

// Triangles of `m` with a vertex in the list.
std::vector<int32_t> trianglesOnVertices(const TriMesh& m, const std::vector<int32_t>& vertices) {
  std::vector<char> mark(m.vertexCount(), 0);
  for (int32_t v : vertices) mark[size_t(v)] = 1;
  std::vector<int32_t> out;
  for (size_t t = 0; t < m.triangleCount(); ++t)
    if (mark[size_t(m.triangles[t][0])] || mark[size_t(m.triangles[t][1])] || mark[size_t(m.triangles[t][2])])
      out.push_back(int32_t(t));
  return out;
}

std::string plural(size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

// Crossing triangle pairs (a triangle of `a`, a triangle of `b`); touching
// within `tol` counts.
std::vector<std::array<int32_t, 2>> crossingPairs(const TriMesh& a, const TriMesh& b, const TriangleTree& treeB,
                                                  double tol) {
  std::vector<std::array<int32_t, 2>> pairs;
  for (size_t t = 0; t < a.triangleCount(); ++t) {
    const Tri& k = a.triangles[t];
    Aabb box;
    for (int32_t v : k) box.add(a.positions[size_t(v)]);
    box.min -= Vec3::Constant(tol);
    box.max += Vec3::Constant(tol);
    treeB.query(box, [&](int32_t u) {
      const Tri& l = b.triangles[size_t(u)];
      if (trianglesIntersect(a.positions[k[0]], a.positions[k[1]], a.positions[k[2]], b.positions[l[0]],
                             b.positions[l[1]], b.positions[l[2]], tol))
        pairs.push_back({int32_t(t), u});
    });
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

// A point strictly inside a closed surface: from the centroid of a large
// triangle, halfway to the next crossing along the inward normal (checked by
// winding number). nullopt when none of the largest triangles gives one.
std::optional<Vec3> interiorPoint(const TriMesh& m) {
  if (m.triangles.empty()) return std::nullopt;
  std::vector<int32_t> order(m.triangleCount());
  for (size_t t = 0; t < order.size(); ++t) order[t] = int32_t(t);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return triangleArea(m, size_t(a)) > triangleArea(m, size_t(b)); });
  const TriangleTree tree(m);
  const WindingNumber winding(m);
  const double diag = m.bounds().diagonal();
  for (size_t i = 0; i < order.size() && i < 16; ++i) {
    const Tri& k = m.triangles[size_t(order[i])];
    const Vec3 c = (m.positions[k[0]] + m.positions[k[1]] + m.positions[k[2]]) / 3.0;
    const Vec3 n = triangleNormal(m, size_t(order[i]));
    if (n.isZero()) continue;
    const Vec3 origin = c - 1e-9 * diag * n;
    const auto hit = tree.raycast(origin, -n);
    if (!hit || hit->t <= 0) continue;
    const Vec3 p = origin - 0.5 * hit->t * n;
    if (winding.exact(p) > 0.5) return p;
  }
  return std::nullopt;
}

}  // namespace

std::vector<BoneSurface> boneSurfaces(const Skeleton& skeleton, int segments) {
  const BoneSet bones = boneSet(skeleton);
  std::vector<BoneSurface> out;
  for (size_t b = 0; b < bones.joints.size(); ++b) {
    TriMesh m = boneShapeSurface(skeleton.joints[size_t(bones.joints[b])].bone, bones.world[b], segments);
    // A capsule shrunk to a sphere repeats its equator ring (zero-area
    // triangles between the copies): weld, then drop collapsed triangles.
    WeldResult w = weldVertices(m.positions, m.triangles, 1e-9 * std::max(m.bounds().diagonal(), 1e-12));
    if (w.mergedCount > 0) {
      std::vector<Tri> kept;
      for (const Tri& t : w.mesh.triangles)
        if (t[0] != t[1] && t[1] != t[2] && t[0] != t[2]) kept.push_back(t);
      w.mesh.triangles = std::move(kept);
      m = std::move(w.mesh);
    }
    out.push_back({bones.names[b], std::move(m)});
  }
  return out;
}

std::vector<RegionJoint> regionJoints(const Skeleton& skeleton, const std::vector<std::string>& bones) {
  std::vector<RegionJoint> joints;
  const std::vector<Vec3> pos = skeleton.restPositions();
  const std::vector<Transform> rest = skeleton.worldRest();
  auto boneOf = [&](int32_t joint) -> int32_t {
    const auto it = std::find(bones.begin(), bones.end(), skeleton.joints[size_t(joint)].name);
    return it == bones.end() ? -1 : int32_t(it - bones.begin());
  };
  for (size_t k = 0; k < bones.size(); ++k) {
    const int32_t j = skeleton.find(bones[k]);
    if (j < 0) continue;
    // The nearest ancestor that owns a bone of this volume.
    for (int32_t a = skeleton.joints[size_t(j)].parent; a >= 0; a = skeleton.joints[size_t(a)].parent) {
      const int32_t parentBone = boneOf(a);
      if (parentBone < 0) continue;
      RegionJoint joint{bones[k], pos[size_t(j)], parentBone, int32_t(k), std::nullopt};
      const Joint& sj = skeleton.joints[size_t(j)];
      if (sj.type == JointType::Hinge) joint.hingeAxis = (rest[size_t(j)].rotation * sj.hingeAxis).normalized();
      joints.push_back(joint);
      break;
    }
  }
  return joints;
}

std::vector<int32_t> RegionCheck::exteriorProblemTriangles() const {
  std::vector<int32_t> t;
  for (const RegionProblem& p : problems) t.insert(t.end(), p.exteriorTriangles.begin(), p.exteriorTriangles.end());
  sortUnique(t);
  return t;
}

std::string RegionCheck::text() const {
  if (problems.empty()) return {};
  std::string s = problems.front().message;
  if (problems.size() > 1) s += " (and " + plural(problems.size() - 1, "more problem", "more problems") + ")";
  return s + "; build a cage instead, it accepts any surface";
}

RegionCheck checkRegionInput(const TriMesh& exterior, const std::vector<BoneSurface>& bones,
                             const Progress& progress) {
  RegionCheck check;
  auto add = [&](RegionProblem p) {
    sortUnique(p.exteriorTriangles);
    sortUnique(p.boneTriangles);
    sortUnique(p.otherTriangles);
    check.problems.push_back(std::move(p));
  };
  // The exterior: watertight.
  progress.update(0.0, "checking the exterior");
  check.exterior = validateMesh(exterior, {}, progress.sub(0.0, 0.5));
  if (exterior.triangles.empty()) {
    add({RegionProblem::Kind::ExteriorNotWatertight, -1, -1, "the exterior surface is empty", {}, {}, {}});
    return check;
  }
  if (!check.exterior.watertight()) {
    const MeshReport& r = check.exterior;
    std::vector<std::string> what;
    if (r.boundaryEdgeCount) what.push_back(plural(r.boundaryEdgeCount, "open edge", "open edges"));
    if (r.nonManifoldEdgeCount) what.push_back(plural(r.nonManifoldEdgeCount, "non-manifold edge", "non-manifold edges"));
    if (r.nonManifoldVertexCount)
      what.push_back(plural(r.nonManifoldVertexCount, "non-manifold vertex", "non-manifold vertices"));
    if (r.misorientedEdgeCount)
      what.push_back(plural(r.misorientedEdgeCount, "misoriented edge", "misoriented edges"));
    if (r.degenerateCount) what.push_back(plural(r.degenerateCount, "degenerate face", "degenerate faces"));
    if (r.selfIntersectionCount)
      what.push_back(plural(r.selfIntersectionCount, "self-intersecting face pair", "self-intersecting face pairs"));
    std::string list;
    for (size_t i = 0; i < what.size(); ++i) list += (i ? ", " : "") + what[i];
    RegionProblem p{RegionProblem::Kind::ExteriorNotWatertight, -1, -1,
                    "the exterior surface is not watertight (" + list + ")", r.problemTriangles(), {}, {}};
    for (const auto* edges : {&r.boundaryEdges, &r.nonManifoldEdges}) {
      const std::vector<int32_t> t = trianglesOnEdges(exterior, *edges);
      p.exteriorTriangles.insert(p.exteriorTriangles.end(), t.begin(), t.end());
    }
    const std::vector<int32_t> t = trianglesOnVertices(exterior, r.nonManifoldVertices);
    p.exteriorTriangles.insert(p.exteriorTriangles.end(), t.begin(), t.end());
    add(std::move(p));
    return check;  // inside/outside means nothing for an open exterior
  }

  // Each bone: closed, inside the exterior, crossing nothing.
  const double diag = exterior.bounds().diagonal();
  const double tol = 1e-9 * diag;
  const TriangleTree exteriorTree(exterior);
  const WindingNumber exteriorWinding(exterior);
  std::vector<char> usable(bones.size(), 1);
  for (size_t b = 0; b < bones.size(); ++b) {
    progress.update(0.5 + 0.3 * double(b) / double(bones.size()), "checking the bones");
    const TriMesh& m = bones[b].surface;
    const std::string who = "bone '" + bones[b].name + "'";
    const MeshReport r = validateMesh(m);
    if (m.triangles.empty() || !r.watertight()) {
      add({RegionProblem::Kind::BoneNotWatertight, int32_t(b), -1, who + " has no closed, watertight surface", {},
           r.problemTriangles(), {}});
      usable[b] = 0;
      continue;
    }
    const auto pairs = crossingPairs(m, exterior, exteriorTree, tol);
    if (!pairs.empty()) {
      RegionProblem p{RegionProblem::Kind::BoneCrossesExterior, int32_t(b), -1,
                      who + " crosses the exterior surface (" + plural(pairs.size(), "face pair", "face pairs") + ")",
                      {}, {}, {}};
      for (const auto& [bt, et] : pairs) {
        p.boneTriangles.push_back(bt);
        p.exteriorTriangles.push_back(et);
      }
      add(std::move(p));
      usable[b] = 0;
      continue;
    }
    std::vector<int32_t> outside;
    for (size_t v = 0; v < m.vertexCount(); ++v)
      if (exteriorWinding(m.positions[v]) < 0.5) outside.push_back(int32_t(v));
    if (!outside.empty()) {
      add({RegionProblem::Kind::BoneOutside, int32_t(b), -1, who + " lies outside the exterior surface", {},
           trianglesOnVertices(m, outside), {}});
      usable[b] = 0;
    }
  }
  // Bone pairs: no crossing, no nesting.
  for (size_t a = 0; a < bones.size(); ++a) {
    progress.update(0.8 + 0.2 * double(a) / double(bones.size()), "checking the bones");
    if (!usable[a]) continue;
    const TriMesh& ma = bones[a].surface;
    const Aabb boxA = ma.bounds();
    for (size_t b = a + 1; b < bones.size(); ++b) {
      if (!usable[b] || !boxA.overlaps(bones[b].surface.bounds())) continue;
      const TriMesh& mb = bones[b].surface;
      const std::string who = "bones '" + bones[a].name + "' and '" + bones[b].name + "'";
      const auto pairs = crossingPairs(ma, mb, TriangleTree(mb), tol);
      if (!pairs.empty()) {
        RegionProblem p{RegionProblem::Kind::BonesCross, int32_t(a), int32_t(b),
                        who + " cross (" + plural(pairs.size(), "face pair", "face pairs") + ")", {}, {}, {}};
        for (const auto& [ta, tb] : pairs) {
          p.boneTriangles.push_back(ta);
          p.otherTriangles.push_back(tb);
        }
        add(std::move(p));
        continue;
      }
      const bool aInB = WindingNumber(mb).exact(ma.positions[0]) > 0.5;
      const bool bInA = WindingNumber(ma).exact(mb.positions[0]) > 0.5;
      if (aInB || bInA) {
        std::vector<int32_t> all(aInB ? ma.triangleCount() : mb.triangleCount());
        for (size_t t = 0; t < all.size(); ++t) all[t] = int32_t(t);
        add({RegionProblem::Kind::BoneInsideBone, int32_t(aInB ? a : b), int32_t(aInB ? b : a),
             "bone '" + bones[aInB ? a : b].name + "' lies inside bone '" + bones[aInB ? b : a].name + "'", {}, all,
             {}});
      }
    }
  }
  progress.update(1.0, "checked");
  return check;
}

RegionMeshResult buildRegionMesh(const TriMesh& exterior, const std::vector<BoneSurface>& bones,
                                 const RegionMeshOptions& options, const Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  const std::string& name = options.name;
  RegionMeshResult result;
  RegionMeshReport& rep = result.report;

  // 1. Checks.
  auto t0 = std::chrono::steady_clock::now();
  RegionCheck check = checkRegionInput(exterior, bones, progress.sub(0.0, 0.2));
  std::vector<Vec3> seeds(bones.size());
  if (check.ok())
    for (size_t b = 0; b < bones.size(); ++b) {
      const auto p = interiorPoint(bones[b].surface);
      if (!p)
        check.problems.push_back({RegionProblem::Kind::BoneWithoutInterior, int32_t(b), -1,
                                  "bone '" + bones[b].name + "' encloses no volume", {}, {}, {}});
      else seeds[b] = *p;
    }
  rep.checkSeconds = secondsSince(t0);
  if (!check.ok()) throw RegionMeshError(name, std::move(check));

  // 2. The exterior, simplified if asked (the bones stay inside, clear of it).
  TriMesh outer = exterior;
  if (options.simplifyExterior && exterior.vertexCount() > options.exteriorTargetVertices) {
    t0 = std::chrono::steady_clock::now();
    DecimateOptions d;
    double edge = 0;
    for (size_t t = 0; t < exterior.triangleCount(); ++t)
      edge += (exterior.positions[exterior.triangles[t][0]] - exterior.positions[exterior.triangles[t][1]]).norm();
    edge /= double(std::max<size_t>(exterior.triangleCount(), 1));
    for (const BoneSurface& b : bones) d.keepInside.insert(d.keepInside.end(), b.surface.positions.begin(), b.surface.positions.end());
    d.clearance = 0.25 * edge;
    Decimator decimator(exterior, d);
    decimator.run(options.exteriorTargetVertices, progress.sub(0.2, 0.4));
    decimator.improve(2);
    outer = decimator.mesh();
    rep.simplifySeconds = secondsSince(t0);
  }
  rep.exteriorVertices = outer.vertexCount();

  // 3. TetGen: all shells in one PLC, a seed per bone (region id = bone index).
  TriMesh plc = outer;
  for (const BoneSurface& b : bones) {
    const auto base = int32_t(plc.positions.size());
    plc.positions.insert(plc.positions.end(), b.surface.positions.begin(), b.surface.positions.end());
    for (const Tri& t : b.surface.triangles) plc.triangles.push_back({t[0] + base, t[1] + base, t[2] + base});
  }
  std::vector<RegionSeed> regionSeeds;
  for (size_t b = 0; b < bones.size(); ++b) regionSeeds.push_back({seeds[b], int32_t(b)});
  TetrahedralizeResult tet =
      tetrahedralizeSurface(plc, {}, regionSeeds, options.tetgen, name, progress.sub(0.4, 0.85));
  rep.tetgenSeconds = tet.seconds;
  if (!tet.missingRegions.empty())
    throw InputError(name, "bone '" + bones[size_t(tet.missingRegions.front())].name + "' received no tetrahedra");
  if (tet.mesh.region.empty()) tet.mesh.region.assign(tet.mesh.tetCount(), -1);
  sortSpatially(tet.mesh);  // TetGen's order scatters neighbours: the solvers' loops read faster in Z-order

  // 4. Fixed nodes: the nodes of each bone's tets.
  VolumeObject& v = result.volume;
  v.name = name;
  v.kind = VolumeKind::Conforming;
  v.mesh = std::move(tet.mesh);
  for (const BoneSurface& b : bones) v.bones.push_back(b.name);
  v.fixedBone.assign(v.mesh.nodeCount(), -1);
  rep.tetsPerBone.assign(bones.size(), 0);
  size_t conflicts = 0;
  for (size_t t = 0; t < v.mesh.tetCount(); ++t) {
    const int32_t r = v.mesh.region[t];
    if (r < 0) {
      ++rep.fleshTets;
      continue;
    }
    ++rep.tetsPerBone[size_t(r)];
    for (int32_t n : v.mesh.tets[t]) {
      if (v.fixedBone[size_t(n)] >= 0 && v.fixedBone[size_t(n)] != r) ++conflicts;
      if (v.fixedBone[size_t(n)] < 0) v.fixedBone[size_t(n)] = r;
    }
  }
  rep.fixedPerBone = fixedNodeCounts(v.fixedBone, bones.size());
  const std::vector<FixedNodeProblem> problems = checkFixedNodes(v.mesh, v.fixedBone, bones.size());
  if (!problems.empty())
    throw InputError(name, "bone '" + bones[size_t(problems.front().bone)].name +
                               "' holds fewer than 4 non-coplanar nodes");

  // 5. Embedding of the exterior's vertices.
  t0 = std::chrono::steady_clock::now();
  if (options.embedSurface) {
    v.embedding = embedPoints(exterior.positions, v.mesh, {}, progress.sub(0.85, 0.99));
    rep.extrapolatedVertices = v.embedding.extrapolatedCount();
  }
  rep.embedSeconds = secondsSince(t0);

  rep.nodes = v.mesh.nodeCount();
  rep.tets = v.mesh.tetCount();
  rep.quality = measureTetQuality(v.mesh);
  rep.totalSeconds = secondsSince(start);
  rep.diagnostics.push_back({Severity::Info, name + ": " + describeTetQuality(rep.quality) + ", " +
                                                 std::to_string(rep.fleshTets) + " flesh tets, " +
                                                 std::to_string(bones.size()) + " bones"});
  if (conflicts)
    rep.diagnostics.push_back({Severity::Warning, name + ": " + std::to_string(conflicts) +
                                                      " node(s) touch two bones; each kept the first"});
  if (rep.extrapolatedVertices)
    rep.diagnostics.push_back({Severity::Info, name + ": " + std::to_string(rep.extrapolatedVertices) +
                                                   " surface vertices lie outside the simplified exterior"});
  result.exterior = std::move(outer);
  progress.update(1.0, "conforming mesh");
  return result;
}

RegionMeshResult buildRegionMesh(const TriMesh& exterior, const Skeleton& skeleton, const RegionMeshOptions& options,
                                 const Progress& progress) {
  RegionMeshResult r = buildRegionMesh(exterior, boneSurfaces(skeleton, options.boneSegments), options, progress);
  r.joints = regionJoints(skeleton, r.volume.bones);
  return r;
}

}  // namespace sinew
