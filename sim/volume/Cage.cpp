#include "volume/Cage.h"

#include "volume/Embed.h"
#include "volume/FixedNodes.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

namespace sinew {

namespace {

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Nodes per cage surface vertex after quality tetrahedralisation (about 1.6
// for the example humanoid): the first guess of how far to simplify,
// corrected from the first tetrahedralisation.
constexpr double kNodesPerSurfaceVertex = 1.6;

}  // namespace

CageResult buildCage(const TriMesh& surface, const Skeleton& skeleton, const CageOptions& options,
                     const Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  const std::string& name = options.name;
  if (surface.positions.empty() || surface.triangles.empty()) throw InputError(name, "the surface is empty");
  if (hasInvalidIndices(surface)) throw InputError(name, "a triangle refers to a vertex that does not exist");
  if (options.targetNodes < 8) throw InputError(name, "the target node count is too small");
  CageResult result;
  CageReport& rep = result.report;
  rep.surfaceVertices = surface.vertexCount();

  // Bones and their anchor points.
  const BoneSet bones = boneSet(skeleton);
  std::vector<Vec3> anchors;
  std::vector<int32_t> anchorBone;  // the bone each anchor was placed for
  for (size_t b = 0; b < bones.joints.size(); ++b)
    for (const Vec3& p : fixedNodeAnchors(skeleton.joints[size_t(bones.joints[b])].bone, bones.world[b])) {
      anchors.push_back(p);
      anchorBone.push_back(int32_t(b));
    }
  rep.anchors = anchors.size();

  // Sizes: the cage's expected edge length from the surface area and the
  // number of surface vertices the target implies (a triangle of edge L
  // covers sqrt(3)/4 L^2; a closed surface has two triangles per vertex).
  const Aabb box = surface.bounds();
  const Vec3 size = box.size();
  const double boxArea = 2 * (size.x() * size.y() + size.y() * size.z() + size.z() * size.x());
  const double area = std::min(surfaceArea(surface), 3.0 * boxArea);
  const double surfaceTarget =
      std::max(32.0, (double(options.targetNodes) - double(anchors.size())) / kNodesPerSurfaceVertex);
  const double edge = std::sqrt(area * 4.0 / std::sqrt(3.0) / (2.0 * surfaceTarget));
  double h = options.spacing > 0 ? options.spacing : edge / 3.0;
  {
    // Keep the grid to a few million points.
    const Vec3 grown = size + Vec3::Constant(8 * h + 4 * (options.offset > 0 ? options.offset : h));
    const double minH = std::cbrt(grown.x() * grown.y() * grown.z() / 4e6);
    if (options.spacing <= 0) h = std::max(h, minH);
  }
  if (!(h > 0)) throw InputError(name, "the surface has no extent");
  const double offset = options.offset > 0 ? options.offset : h;
  rep.spacing = h;
  rep.offset = offset;

  // 1. Hull.
  auto t0 = std::chrono::steady_clock::now();
  HullOptions ho;
  ho.spacing = h;
  ho.offset = offset;
  const TriMesh hull = voxelHull(surface, ho, progress.sub(0.0, 0.35), &rep.hull);
  rep.hullVertices = hull.vertexCount();
  rep.hullSeconds = secondsSince(t0);

  // 2-3. Simplify and tetrahedralise, correcting the simplification target
  // until the node count is near the target.
  DecimateOptions dopt;
  dopt.keepInside = surface.positions;
  dopt.keepInside.insert(dopt.keepInside.end(), anchors.begin(), anchors.end());
  dopt.clearance = 0.25 * offset;
  std::unique_ptr<Decimator> decimator;
  auto startDecimator = [&] {
    t0 = std::chrono::steady_clock::now();
    decimator = std::make_unique<Decimator>(hull, dopt);
    rep.simplifySeconds += secondsSince(t0);
  };
  startDecimator();
  const double target = double(options.targetNodes);
  double surfaceVertices = std::min(surfaceTarget, double(hull.vertexCount()));
  TriMesh cage;
  TetrahedralizeResult tet;
  bool haveTet = false;
  double bestMiss = std::numeric_limits<double>::infinity();
  for (int iteration = 0; iteration < 4; ++iteration) {
    const Progress step = progress.sub(0.35 + 0.13 * iteration, 0.48 + 0.13 * iteration);
    const auto want = size_t(std::max(16.0, std::round(surfaceVertices)));
    if (want > decimator->vertexCount()) startDecimator();  // more vertices than left: start over
    t0 = std::chrono::steady_clock::now();
    decimator->run(want, step.sub(0.0, 0.5));
    decimator->improve(3, step.sub(0.5, 0.6));
    rep.simplifySeconds += secondsSince(t0);
    TriMesh candidate = decimator->mesh();
    TetrahedralizeResult r =
        tetrahedralizeSurface(candidate, anchors, {}, options.tetgen, name, step.sub(0.6, 1.0));
    ++rep.tetgenRuns;
    rep.tetgenSeconds += r.seconds;
    const double nodes = double(r.mesh.nodeCount());
    const double miss = std::abs(nodes - target);
    if (miss < bestMiss) {
      bestMiss = miss;
      cage = std::move(candidate);
      tet = std::move(r);
      haveTet = true;
    }
    if (miss <= options.nodeTolerance * target) break;
    // Nodes per surface vertex of this run predicts the next target.
    const double cageVertices = double(decimator->vertexCount());
    const double perVertex = std::max(nodes - double(anchors.size()), 1.0) / cageVertices;
    const double next = std::max(16.0, (target - double(anchors.size())) / perVertex);
    if (std::abs(next - cageVertices) < 1.0 || (next < cageVertices && !decimator->report().reachedTarget))
      break;  // no further change possible
    surfaceVertices = next;
  }
  if (!haveTet) throw InputError(name, "no cage could be built");
  rep.simplify = decimator->report();
  rep.cageVertices = cage.vertexCount();
  rep.cageTriangles = cage.triangleCount();
  progress.update(0.9, "fixed nodes");

  // 4. Fixed nodes: every node inside a bone shape.
  VolumeObject& v = result.volume;
  v.name = name;
  v.kind = VolumeKind::Cage;
  v.mesh = std::move(tet.mesh);
  v.bones = bones.names;
  v.fixedBone = nodesInBoneShapes(v.mesh, skeleton, bones);
  for (int32_t n : tet.steinerNode) rep.anchorsInserted += n >= 0;
  rep.fixedPerBone = fixedNodeCounts(v.fixedBone, bones.names.size());
  for (size_t c : rep.fixedPerBone) rep.fixedNodes += c;
  std::vector<FixedNodeProblem> problems = checkFixedNodes(v.mesh, v.fixedBone, bones.names.size());
  if (!problems.empty()) {
    // Where shapes overlap, a node goes to the deepest one, which can leave a
    // thin bone too few: give such a bone back the anchor nodes inserted for it.
    for (const FixedNodeProblem& problem : problems)
      for (size_t a = 0; a < anchors.size(); ++a)
        if (anchorBone[a] == problem.bone && tet.steinerNode[a] >= 0) v.fixedBone[size_t(tet.steinerNode[a])] = problem.bone;
    rep.fixedPerBone = fixedNodeCounts(v.fixedBone, bones.names.size());
    problems = checkFixedNodes(v.mesh, v.fixedBone, bones.names.size());
  }
  if (!problems.empty()) {
    std::vector<std::string> names;
    std::string list;
    for (const FixedNodeProblem& problem : problems) {  // every one of them: the user has to find them all
      names.push_back(bones.names[size_t(problem.bone)]);
      list += (names.size() > 1 ? ", " : "") + ("'" + names.back() + "' (" + std::to_string(problem.fixedNodes) + ")");
    }
    throw JointsError(name, std::to_string(problems.size()) + " bone(s) hold fewer than 4 non-coplanar fixed nodes: " +
                                list + "; is the bone shape outside the surface?",
                      std::move(names));
  }

  // 5. Embedding of the surface's vertices.
  t0 = std::chrono::steady_clock::now();
  if (options.embedSurface) {
    v.embedding = embedPoints(surface.positions, v.mesh, {}, progress.sub(0.92, 0.99));
    rep.extrapolatedVertices = v.embedding.extrapolatedCount();
  }
  rep.embedSeconds = secondsSince(t0);

  rep.nodes = v.mesh.nodeCount();
  rep.tets = v.mesh.tetCount();
  rep.quality = measureTetQuality(v.mesh);
  rep.totalSeconds = secondsSince(start);

  // Findings for the user.
  Diagnostics& d = rep.diagnostics;
  d.push_back({Severity::Info, name + ": " + describeTetQuality(rep.quality) + ", " + std::to_string(rep.fixedNodes) +
                                   " fixed nodes on " + std::to_string(bones.names.size()) + " bones"});
  if (rep.hull.openInput)
    d.push_back({Severity::Info, name + ": the surface is open; the hull was closed by winding number"});
  if (rep.extrapolatedVertices > 0)
    d.push_back({Severity::Warning, name + ": " + std::to_string(rep.extrapolatedVertices) +
                                        " surface vertices lie outside the cage (extrapolated)"});
  if (std::abs(double(rep.nodes) - target) > options.nodeTolerance * target)
    d.push_back({Severity::Info, name + ": " + std::to_string(rep.nodes) + " nodes (target " +
                                     std::to_string(options.targetNodes) + ")"});
  if (rep.anchorsInserted < rep.anchors)
    d.push_back({Severity::Warning, name + ": " + std::to_string(rep.anchors - rep.anchorsInserted) +
                                        " bone anchor point(s) lie outside the cage"});
  if (rep.quality.sliverCount > 0)
    d.push_back({Severity::Warning, name + ": " + std::to_string(rep.quality.sliverCount) + " sliver tet(s)"});
  progress.update(1.0, "cage");
  result.cageSurface = std::move(cage);
  return result;
}

}  // namespace sinew
