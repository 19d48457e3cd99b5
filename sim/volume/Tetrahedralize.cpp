// The only translation unit that includes tetgen.h (never together with
// <ode/ode.h>: both define REAL). TetGen 1.5.0 as Debian ships it: library
// mode (errors are thrown ints), assertions enabled.
#include "volume/Tetrahedralize.h"

#include "geometry/MeshValidation.h"

#include <tetgen.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <new>

namespace sinew {

namespace {

// TetGen keeps global state (the exact-arithmetic constants set by
// exactinit(), static tables): one call at a time.
std::mutex& tetgenMutex() {
  static std::mutex m;
  return m;
}

using Key = std::array<double, 3>;
Key key(const Vec3& p) { return {p.x(), p.y(), p.z()}; }

// Refuses what would make TetGen assert or crash instead of reporting.
void checkInput(const TriMesh& surface, const std::vector<Vec3>& steiner, const std::vector<RegionSeed>& seeds,
                const std::string& context) {
  if (surface.triangles.empty()) throw InputError(context, "the surface has no triangles");
  if (hasInvalidIndices(surface)) throw InputError(context, "a triangle refers to a vertex that does not exist");
  for (size_t v = 0; v < surface.vertexCount(); ++v)
    if (!surface.positions[v].allFinite())
      throw InputError(context, "vertex " + std::to_string(v) + " has a non-finite coordinate");
  for (size_t t = 0; t < surface.triangleCount(); ++t) {
    const Tri& k = surface.triangles[t];
    if (k[0] == k[1] || k[1] == k[2] || k[0] == k[2])
      throw InputError(context, "triangle " + std::to_string(t) + " repeats a vertex");
  }
  for (size_t i = 0; i < steiner.size(); ++i)
    if (!steiner[i].allFinite())
      throw InputError(context, "Steiner point " + std::to_string(i) + " has a non-finite coordinate");
  for (size_t i = 0; i < seeds.size(); ++i) {
    if (!seeds[i].point.allFinite())
      throw InputError(context, "region seed " + std::to_string(i) + " has a non-finite coordinate");
    if (seeds[i].region < 0) throw InputError(context, "region seed " + std::to_string(i) + " has a negative id");
  }
  if (surface.vertexCount() + steiner.size() > size_t(std::numeric_limits<int>::max() / 8))
    throw InputError(context, "the surface is too large for TetGen");
  // What TetGen would stop on (or, with its assertions, abort on), said
  // with the faces to look at.
  const MeshReport r = validateMesh(surface);
  auto examples = [](const auto& items, auto&& text) {
    std::string s;
    for (size_t i = 0; i < items.size() && i < 3; ++i) s += (i ? ", " : "") + text(items[i]);
    return s + (items.size() > 3 ? ", ..." : "");
  };
  if (r.boundaryEdgeCount > 0)
    throw InputError(context, "the surface is not closed (" + std::to_string(r.boundaryEdgeCount) +
                                  " open edges, e.g. " +
                                  examples(r.boundaryEdges, [](const Edge& e) {
                                    return std::to_string(e[0]) + "-" + std::to_string(e[1]);
                                  }) +
                                  "); TetGen needs closed shells");
  if (r.degenerateCount > 0)
    throw InputError(context, "the surface has " + std::to_string(r.degenerateCount) + " zero-area faces (e.g. " +
                                  examples(r.degenerateTriangles, [](int32_t t) { return std::to_string(t); }) +
                                  "); TetGen needs proper triangles");
  if (r.selfIntersectionCount > 0)
    throw InputError(context, "the surface intersects itself (" + std::to_string(r.selfIntersectionCount) +
                                  " face pairs, e.g. " +
                                  examples(r.intersectingPairs,
                                           [](const std::array<int32_t, 2>& p) {
                                             return std::to_string(p[0]) + "/" + std::to_string(p[1]);
                                           }) +
                                  "); TetGen cannot mesh it");
}

// TetGen 1.5.0's own tetrahedralize() crashes when the mesher reports an
// error: terminatetetgen() frees the mesh's memory and throws, then the
// mesh's destructor frees it again while unwinding. This is the same
// sequence of stages for a PLC (no -r, -m, -R, -i, -d), with the mesh's
// freed pointers cleared before it is destroyed.
void forgetFreedMemory(tetgenmesh& m) {
  m.bgm = nullptr;
  m.points = nullptr;
  m.dummypoint = nullptr;
  m.tetrahedrons = nullptr;
  m.subfaces = m.subsegs = nullptr;
  m.tet2segpool = m.tet2subpool = nullptr;
  m.flippool = nullptr;
  m.unflipqueue = nullptr;
  m.cavetetlist = m.cavebdrylist = m.caveoldtetlist = m.cavetetvertlist = nullptr;
  m.caveshlist = m.caveshbdlist = m.cavesegshlist = m.cavetetshlist = m.cavetetseglist = nullptr;
  m.caveencshlist = m.caveencseglist = nullptr;
  m.subsegstack = m.subfacstack = m.subvertstack = nullptr;
  m.idx2facetlist = nullptr;
  m.facetverticeslist = nullptr;
  m.segmentendpointslist = nullptr;
  m.highordertable = nullptr;
}

void runTetGen(tetgenbehavior& b, tetgenio& in, tetgenio& out) {
  tetgenmesh m;
  try {
    m.b = &b;
    m.in = &in;
    m.addin = nullptr;
    m.initializepools();
    m.transfernodes();
    exactinit(b.verbose, b.noexact, b.nostaticfilter, m.xmax - m.xmin, m.ymax - m.ymin, m.zmax - m.zmin);
    clock_t ts = 0;
    m.incrementaldelaunay(ts);
    m.meshsurface();
    if (b.nobisect) m.recoverboundary(ts);
    else m.constraineddelaunay(ts);
    m.carveholes();
    if (b.nobisect && m.subvertstack->objects > 0l) m.suppresssteinerpoints();
    if (b.nobisect) m.recoverdelaunay();
    if (b.quality) m.delaunayrefinement();
    if (b.optlevel > 0) m.optimizemesh();
    if (!b.nojettison && (m.dupverts > 0 || m.unuverts > 0)) m.jettisonnodes();
    out.firstnumber = in.firstnumber;
    out.mesh_dim = in.mesh_dim;
    m.outnodes(&out);
    if (m.tetrahedrons->items > 0l) m.outelements(&out);
  } catch (int code) {
    // Out of memory in a pool is reported before anything is freed;
    // every other error after freeing.
    if (code != 1) forgetFreedMemory(m);
    throw;
  }
}

}  // namespace

std::string tetgenErrorReason(int code) {
  switch (code) {
    case 1: return "out of memory";
    case 2: return "internal error (TetGen could not recover the surface)";
    case 3: return "the surface intersects itself";
    case 4: return "a very small input feature size (parts of the surface are closer than TetGen's tolerance)";
    case 5: return "two input facets are very close to each other";
    case 10: return "invalid input";
    default: return "error code " + std::to_string(code);
  }
}

std::string tetgenSwitches(const TetrahedralizeOptions& o, bool withRegions) {
  // p: the input is a piecewise linear complex; z: zero-based; Q: quiet.
  std::string s = "pzQ";
  char buf[64];
  if (o.quality || o.maxVolume > 0) {
    std::snprintf(buf, sizeof buf, "q%g/%g", o.radiusEdgeRatio, o.minDihedralDeg);
    s += buf;
  }
  if (o.maxVolume > 0) {
    std::snprintf(buf, sizeof buf, "a%g", o.maxVolume);
    s += buf;
  }
  if (withRegions) s += "A";
  if (o.preserveSurface) s += "Y";
  if (o.maxSteinerPoints >= 0) {
    s += 'S';
    s += std::to_string(o.maxSteinerPoints);
  }
  return s;
}

TetrahedralizeResult tetrahedralizeSurface(const TriMesh& surface, const std::vector<Vec3>& steinerPoints,
                                           const std::vector<RegionSeed>& seeds,
                                           const TetrahedralizeOptions& options, const std::string& context,
                                           const Progress& progress) {
  checkInput(surface, steinerPoints, seeds, context);
  if (options.quality && !(options.radiusEdgeRatio >= 1.0))
    throw InputError(context, "the radius-edge bound must be at least 1");
  progress.update(0.0, "tetrahedralising");

  // The piecewise linear complex: one facet per triangle; the Steiner
  // points are isolated vertices of it (TetGen keeps those inside the domain
  // as nodes; its 'i' switch for added points crashes in TetGen 1.5.0).
  tetgenio in, out;
  in.firstnumber = 0;
  const size_t nPoints = surface.vertexCount() + steinerPoints.size();
  in.numberofpoints = int(nPoints);
  in.pointlist = new REAL[3 * nPoints];
  for (size_t v = 0; v < nPoints; ++v) {
    const Vec3& p = v < surface.vertexCount() ? surface.positions[v] : steinerPoints[v - surface.vertexCount()];
    for (int c = 0; c < 3; ++c) in.pointlist[3 * v + c] = p[c];
  }
  in.numberoffacets = int(surface.triangleCount());
  in.facetlist = new tetgenio::facet[surface.triangleCount()];
  for (size_t t = 0; t < surface.triangleCount(); ++t) {
    tetgenio::facet& f = in.facetlist[t];
    tetgenio::init(&f);
    f.numberofpolygons = 1;
    f.polygonlist = new tetgenio::polygon[1];
    tetgenio::init(&f.polygonlist[0]);
    f.polygonlist[0].numberofvertices = 3;
    f.polygonlist[0].vertexlist = new int[3];
    for (int c = 0; c < 3; ++c) f.polygonlist[0].vertexlist[c] = surface.triangles[t][c];
  }
  // Regions: TetGen attribute = id + 1; unseeded regions get larger ones.
  int32_t maxRegion = -1;
  if (!seeds.empty()) {
    in.numberofregions = int(seeds.size());
    in.regionlist = new REAL[5 * seeds.size()];
    for (size_t i = 0; i < seeds.size(); ++i) {
      for (int c = 0; c < 3; ++c) in.regionlist[5 * i + c] = seeds[i].point[c];
      in.regionlist[5 * i + 3] = double(seeds[i].region) + 1.0;
      in.regionlist[5 * i + 4] = -1.0;  // no per-region volume bound
      maxRegion = std::max(maxRegion, seeds[i].region);
    }
  }
  // Switches: parsed from the usual string, then the bounds set exactly
  // (TetGen's parser reads numbers in a limited syntax).
  tetgenbehavior b;
  std::string switches = tetgenSwitches(options, !seeds.empty());
  if (!b.parse_commandline(switches.data())) throw InputError(context, "TetGen rejected switches " + switches);
  if (options.quality || options.maxVolume > 0) {
    b.minratio = options.radiusEdgeRatio;
    b.mindihedral = options.minDihedralDeg;
  }
  if (options.maxVolume > 0) b.maxvolume = options.maxVolume;
  b.optlevel = std::clamp(options.optimizationLevel, 0, 10);
  b.quiet = 1;

  const auto start = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(tetgenMutex());
    try {
      runTetGen(b, in, out);
    } catch (int code) {
      throw InputError(context, "TetGen: " + tetgenErrorReason(code));
    } catch (const std::bad_alloc&) {
      throw InputError(context, "TetGen: " + tetgenErrorReason(1));
    }
  }
  TetrahedralizeResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.update(0.9, "tetrahedralising");
  if (out.numberoftetrahedra <= 0 || out.numberofcorners < 4)
    throw InputError(context, "TetGen produced no tetrahedra (is the surface closed?)");

  // Nodes used by some tet, in TetGen's order.
  const auto nOut = size_t(out.numberofpoints);
  std::vector<int32_t> remap(nOut, -1);
  const auto nTets = size_t(out.numberoftetrahedra);
  for (size_t t = 0; t < nTets; ++t)
    for (int c = 0; c < 4; ++c) {
      const int v = out.tetrahedronlist[size_t(out.numberofcorners) * t + c];
      if (v < 0 || size_t(v) >= nOut) throw InputError(context, "TetGen returned an invalid tetrahedron");
      remap[size_t(v)] = 0;
    }
  TetMesh& mesh = r.mesh;
  for (size_t v = 0; v < nOut; ++v) {
    if (remap[v] < 0) continue;
    remap[v] = int32_t(mesh.nodes.size());
    mesh.nodes.emplace_back(out.pointlist[3 * v], out.pointlist[3 * v + 1], out.pointlist[3 * v + 2]);
  }
  mesh.tets.resize(nTets);
  const int nAttr = out.numberoftetrahedronattributes;
  if (!seeds.empty()) mesh.region.assign(nTets, -1);
  std::vector<char> regionSeen(size_t(maxRegion + 1), 0);
  for (size_t t = 0; t < nTets; ++t) {
    Tet& k = mesh.tets[t];
    for (int c = 0; c < 4; ++c) k[c] = remap[size_t(out.tetrahedronlist[size_t(out.numberofcorners) * t + c])];
    // Positive orientation: (x1 - x0) . ((x2 - x0) x (x3 - x0)) > 0.
    if (tetVolume(mesh, t) < 0) std::swap(k[0], k[1]);
    if (!seeds.empty() && nAttr > 0) {
      const double a = out.tetrahedronattributelist[size_t(nAttr) * t + size_t(nAttr - 1)];
      const auto id = int32_t(std::lround(a)) - 1;
      if (id >= 0 && id <= maxRegion) {
        mesh.region[t] = id;
        regionSeen[size_t(id)] = 1;
      }
    }
  }
  for (const RegionSeed& s : seeds)
    if (!regionSeen[size_t(s.region)] &&
        std::find(r.missingRegions.begin(), r.missingRegions.end(), s.region) == r.missingRegions.end())
      r.missingRegions.push_back(s.region);

  // Input vertices and requested points by exact position (TetGen copies
  // coordinates; it merges duplicates and drops points outside the domain).
  std::map<Key, int32_t> nodeAt;
  for (size_t v = 0; v < mesh.nodeCount(); ++v) nodeAt.emplace(key(mesh.nodes[v]), int32_t(v));
  auto find = [&](const Vec3& p) {
    const auto it = nodeAt.find(key(p));
    return it == nodeAt.end() ? -1 : it->second;
  };
  size_t known = 0;
  r.surfaceNode.resize(surface.vertexCount());
  for (size_t v = 0; v < surface.vertexCount(); ++v) r.surfaceNode[v] = find(surface.positions[v]);
  r.steinerNode.resize(steinerPoints.size());
  for (size_t i = 0; i < steinerPoints.size(); ++i) r.steinerNode[i] = find(steinerPoints[i]);
  {
    std::vector<char> isKnown(mesh.nodeCount(), 0);
    for (int32_t n : r.surfaceNode)
      if (n >= 0) isKnown[size_t(n)] = 1;
    for (int32_t n : r.steinerNode)
      if (n >= 0) isKnown[size_t(n)] = 1;
    for (char c : isKnown) known += size_t(c);
  }
  r.addedPoints = mesh.nodeCount() - known;
  progress.update(1.0, "tetrahedralising");
  return r;
}

}  // namespace sinew
