#include "viper/Viperize.h"

#include "core/Error.h"
#include "geometry/MeshValidation.h"
#include "rig/TetOperators.h"
#include "viper/Hungarian.h"
#include "volume/Closest.h"
#include "volume/Tetrahedralize.h"
#include "volume/WindingNumber.h"

#include <Eigen/SparseCholesky>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

namespace sinew::viper {

namespace {

constexpr double kPi = 3.14159265358979323846;

std::string label(const std::string& name) { return "muscle '" + name + "'"; }

double unitRandom(std::mt19937_64& rng) { return double(rng() >> 11) * (1.0 / 9007199254740992.0); }

// Iso-surface {u = level} of a piecewise-linear field on tets (marching
// tetrahedra): one triangle where one node lies on the other side of the
// level from the other three, two where the nodes split two and two.
MuscleSlice isoSurface(const TetMesh& mesh, const std::vector<double>& u, double level) {
  MuscleSlice slice;
  slice.level = level;
  auto cut = [&](int32_t i, int32_t j) {
    const double t = (level - u[size_t(i)]) / (u[size_t(j)] - u[size_t(i)]);
    return Vec3(mesh.nodes[size_t(i)] + t * (mesh.nodes[size_t(j)] - mesh.nodes[size_t(i)]));
  };
  auto add = [&](const Vec3& a, const Vec3& b, const Vec3& c) {
    slice.triangles.push_back(a);
    slice.triangles.push_back(b);
    slice.triangles.push_back(c);
    slice.area += 0.5 * (b - a).cross(c - a).norm();
  };
  for (const Tet& t : mesh.tets) {
    int32_t below[4], above[4];
    int nb = 0, na = 0;
    for (int32_t v : t) (u[size_t(v)] < level ? below[nb++] : above[na++]) = v;
    if (nb == 0 || na == 0) continue;
    if (nb == 1) add(cut(below[0], above[0]), cut(below[0], above[1]), cut(below[0], above[2]));
    else if (na == 1) add(cut(above[0], below[0]), cut(above[0], below[1]), cut(above[0], below[2]));
    else {
      // Two and two: the cut edges a0-b0, a0-b1, a1-b1, a1-b0 form a quad in that order.
      const Vec3 p0 = cut(below[0], above[0]), p1 = cut(below[0], above[1]);
      const Vec3 p2 = cut(below[1], above[1]), p3 = cut(below[1], above[0]);
      add(p0, p1, p2);
      add(p0, p2, p3);
    }
  }
  return slice;
}

Vec3 closestOnSlice(const MuscleSlice& s, const Vec3& p) {
  Vec3 best = p;
  double bestD = std::numeric_limits<double>::infinity();
  for (size_t t = 0; t + 2 < s.triangles.size(); t += 3) {
    const Vec3 q = closestPointOnTriangle(p, s.triangles[t], s.triangles[t + 1], s.triangles[t + 2]);
    const double d = (q - p).squaredNorm();
    if (d < bestD) bestD = d, best = q;
  }
  return best;
}

// Area-weighted random points on the slice.
std::vector<Vec3> slicePoints(const MuscleSlice& s, int count, uint64_t seed) {
  std::vector<double> cumulative;
  double total = 0;
  for (size_t t = 0; t + 2 < s.triangles.size(); t += 3) {
    total += 0.5 * (s.triangles[t + 1] - s.triangles[t]).cross(s.triangles[t + 2] - s.triangles[t]).norm();
    cumulative.push_back(total);
  }
  std::mt19937_64 rng(seed);
  std::vector<Vec3> points;
  points.reserve(size_t(count));
  for (int k = 0; k < count; ++k) {
    const double pick = unitRandom(rng) * total;
    size_t t = size_t(std::lower_bound(cumulative.begin(), cumulative.end(), pick) - cumulative.begin());
    t = std::min(t, cumulative.size() - 1);
    double a = unitRandom(rng), b = unitRandom(rng);
    if (a + b > 1) a = 1 - a, b = 1 - b;
    const Vec3& p = s.triangles[3 * t];
    points.push_back(p + a * (s.triangles[3 * t + 1] - p) + b * (s.triangles[3 * t + 2] - p));
  }
  return points;
}

// Farthest-point sampling: K well-spread starting generators.
std::vector<Vec3> spreadPoints(const std::vector<Vec3>& points, int k) {
  std::vector<Vec3> g{points.front()};
  std::vector<double> d(points.size(), std::numeric_limits<double>::infinity());
  while (int(g.size()) < k) {
    size_t far = 0;
    for (size_t i = 0; i < points.size(); ++i) {
      d[i] = std::min(d[i], (points[i] - g.back()).squaredNorm());
      if (d[i] > d[far]) far = i;
    }
    g.push_back(points[far]);
  }
  return g;
}

// Lloyd iterations of the restricted CVD: each generator moves to the
// centroid of the slice samples nearest to it, pulled towards `anchor`
// (its rod neighbours' mean, where it has one) by `pull`, and back onto the
// slice.
void lloyd(const MuscleSlice& slice, const std::vector<Vec3>& points, std::vector<Vec3>& g,
           const std::vector<Vec3>* anchor, double pull, int iterations) {
  const size_t k = g.size();
  for (int it = 0; it < iterations; ++it) {
    std::vector<Vec3> sum(k, Vec3::Zero());
    std::vector<int> count(k, 0);
    for (const Vec3& p : points) {
      size_t best = 0;
      for (size_t j = 1; j < k; ++j)
        if ((p - g[j]).squaredNorm() < (p - g[best]).squaredNorm()) best = j;
      sum[best] += p;
      ++count[best];
    }
    for (size_t j = 0; j < k; ++j) {
      if (!count[j]) continue;
      Vec3 target = sum[j] / count[j];
      if (anchor) target = (target + pull * (*anchor)[j]) / (1 + pull);
      g[j] = closestOnSlice(slice, target);
    }
  }
}

}  // namespace

void checkViperizeInput(const TriMesh& surface, const std::vector<MuscleMark>& marks, const ViperizeOptions& o,
                        const std::string& name) {
  const std::string who = label(name);
  if (o.rods < 1 || o.rods > kMaxRods)
    throw InputError(who, "rods K = " + std::to_string(o.rods) + " is out of range (1.." + std::to_string(kMaxRods) + ")");
  if (o.slices < 2 || o.slices > kMaxSlices)
    throw InputError(who, "slices M = " + std::to_string(o.slices) + " is out of range (2.." + std::to_string(kMaxSlices) + ")");
  if (!(o.endLevel >= 0 && o.endLevel < 0.5)) throw InputError(who, "end level must lie in [0, 0.5)");
  if (surface.triangles.empty()) throw InputError(who, "the surface has no triangles");
  if (hasInvalidIndices(surface)) throw InputError(who, "the surface has triangle indices out of range");
  if (marks.size() != surface.vertexCount())
    throw InputError(who, std::to_string(marks.size()) + " painted marks for " + std::to_string(surface.vertexCount()) +
                              " vertices");
  const size_t sources = size_t(std::count(marks.begin(), marks.end(), MuscleMark::Source));
  const size_t sinks = size_t(std::count(marks.begin(), marks.end(), MuscleMark::Sink));
  if (!sources && !sinks) throw InputError(who, "nothing is painted: paint sources (origin) and sinks (insertion)");
  if (!sources) throw InputError(who, "only sinks are painted: paint the sources (origin) too");
  if (!sinks) throw InputError(who, "only sources are painted: paint the sinks (insertion) too");
  for (const Tri& t : surface.triangles)
    for (int e = 0; e < 3; ++e) {
      const int32_t a = t[size_t(e)], b = t[size_t((e + 1) % 3)];
      if ((marks[size_t(a)] == MuscleMark::Source && marks[size_t(b)] == MuscleMark::Sink) ||
          (marks[size_t(a)] == MuscleMark::Sink && marks[size_t(b)] == MuscleMark::Source))
        throw InputError(who, "sources touch sinks at vertices " + std::to_string(std::min(a, b)) + " and " +
                                  std::to_string(std::max(a, b)) + ": leave unpainted surface between them");
    }
  MeshValidationOptions vo;
  vo.maxListed = 4;
  const MeshReport report = validateMesh(surface, vo);
  if (!report.closed())
    throw InputError(who, "the surface is not closed (" + std::to_string(report.boundaryEdgeCount) +
                              " open edges, e.g. vertices " + std::to_string(report.boundaryEdges[0][0]) + "-" +
                              std::to_string(report.boundaryEdges[0][1]) + ")");
  if (!report.watertight()) {
    std::string why;
    for (const Diagnostic& d : report.diagnostics("surface")) why += (why.empty() ? "" : "; ") + d.message;
    throw InputError(who, "the surface cannot be meshed: " + why);
  }
  if (enclosedVolume(surface) <= 0) throw InputError(who, "the surface is inside out (negative enclosed volume)");
}

ViperizeResult viperize(const TriMesh& surface, const std::vector<MuscleMark>& marks, const ViperizeOptions& o,
                        const std::string& name, const Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  checkViperizeInput(surface, marks, o, name);
  const std::string who = label(name);
  ViperizeResult r;
  r.muscleVolume = enclosedVolume(surface);
  const size_t K = size_t(o.rods), M = size_t(o.slices);

  // 1. Tets.
  progress.update(0.0, "tetrahedralize");
  TetrahedralizeOptions to;
  to.maxVolume = o.maxTetVolume > 0 ? o.maxTetVolume : r.muscleVolume / 2000;
  const TetrahedralizeResult tets = tetrahedralizeSurface(surface, {}, {}, to, who, progress.sub(0.0, 0.3));
  r.mesh = tets.mesh;
  const size_t n = r.mesh.nodeCount();

  // 2. Harmonic field: K u = 0 on the free nodes, u = 0 on sources, 1 on sinks.
  progress.update(0.3, "harmonic field");
  std::vector<int8_t> fixedValue(n, -1);
  for (size_t v = 0; v < marks.size(); ++v) {
    const int32_t node = tets.surfaceNode[v];
    if (node < 0 || marks[v] == MuscleMark::None) continue;
    fixedValue[size_t(node)] = marks[v] == MuscleMark::Source ? 0 : 1;
  }
  std::vector<int32_t> freeIndex(n, -1);
  int32_t nFree = 0;
  for (size_t i = 0; i < n; ++i)
    if (fixedValue[i] < 0) freeIndex[i] = nFree++;
  const SparseMatrix Kfull = stiffnessMatrix(r.mesh);
  std::vector<Eigen::Triplet<double>> entries;
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(nFree);
  for (int col = 0; col < Kfull.outerSize(); ++col)
    for (SparseMatrix::InnerIterator it(Kfull, col); it; ++it) {
      const int32_t fi = freeIndex[size_t(it.row())];
      if (fi < 0) continue;
      if (freeIndex[size_t(col)] >= 0) entries.emplace_back(fi, freeIndex[size_t(col)], it.value());
      else rhs[fi] -= it.value() * fixedValue[size_t(col)];
    }
  SparseMatrix Kff(nFree, nFree);
  Kff.setFromTriplets(entries.begin(), entries.end());
  Eigen::SimplicialLDLT<SparseMatrix> ldlt(Kff);
  if (ldlt.info() != Eigen::Success) throw InputError(who, "the harmonic field's system is singular (a part of the muscle touches no painted vertex?)");
  const Eigen::VectorXd uf = ldlt.solve(rhs);
  r.field.resize(n);
  for (size_t i = 0; i < n; ++i) r.field[i] = fixedValue[i] >= 0 ? double(fixedValue[i]) : uf[freeIndex[i]];
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(r.field[i])) throw InputError(who, "the harmonic field is not finite at node " + std::to_string(i));

  // 3. Slices.
  progress.update(0.4, "slices");
  for (size_t m = 0; m < M; ++m) {
    const double level = o.endLevel + (1 - 2 * o.endLevel) * double(m) / double(M - 1);
    r.slices.push_back(isoSurface(r.mesh, r.field, level));
    if (r.slices.back().triangles.empty())
      throw InputError(who, "slice " + std::to_string(m) + " (level " + std::to_string(level) + ") is empty");
  }

  // 4-5. Restricted CVD per slice, alternating with combing.
  std::vector<std::vector<Vec3>> points(M), g(M);
  for (size_t m = 0; m < M; ++m) {
    points[m] = slicePoints(r.slices[m], std::max(o.samplesPerRod * o.rods, 64), o.seed * 1000003 + m);
    g[m] = spreadPoints(points[m], o.rods);
  }
  for (int round = 0; round < std::max(1, o.rounds); ++round) {
    progress.update(0.45 + 0.5 * round / std::max(1, o.rounds), "combing");
    for (size_t m = 0; m < M; ++m) {
      std::vector<Vec3> anchor;
      if (round > 0) {
        anchor.resize(K);
        for (size_t k = 0; k < K; ++k) {
          Vec3 sum = Vec3::Zero();
          int c = 0;
          if (m > 0) sum += g[m - 1][k], ++c;
          if (m + 1 < M) sum += g[m + 1][k], ++c;
          anchor[k] = sum / c;
        }
      }
      lloyd(r.slices[m], points[m], g[m], round > 0 ? &anchor : nullptr, o.lengthPenalty, o.lloydIterations);
    }
    // Combing: slice m's samples take the rods of slice m-1 by minimum total distance.
    for (size_t m = 1; m < M; ++m) {
      Eigen::MatrixXd cost(K, K);
      for (size_t i = 0; i < K; ++i)
        for (size_t j = 0; j < K; ++j) cost(Eigen::Index(i), Eigen::Index(j)) = (g[m - 1][i] - g[m][j]).norm();
      const Assignment a = minCostAssignment(cost);
      std::vector<Vec3> sorted(K);
      for (size_t i = 0; i < K; ++i) sorted[i] = g[m][size_t(a.columnOfRow[i])];
      g[m] = sorted;
    }
  }

  // 6. Radii: K discs sharing the slice's area, capped by the distance to the surface.
  progress.update(0.95, "radii");
  const WindingNumber winding(surface);
  auto distanceToSurface = [&](const Vec3& p) {
    double best = std::numeric_limits<double>::infinity();
    for (const Tri& t : surface.triangles)
      best = std::min(best, (closestPointOnTriangle(p, surface.positions[size_t(t[0])], surface.positions[size_t(t[1])],
                                                    surface.positions[size_t(t[2])]) - p).squaredNorm());
    return std::sqrt(best);
  };
  std::vector<double> radius(M);
  std::vector<std::vector<double>> clearance(M, std::vector<double>(K));
  for (size_t m = 0; m < M; ++m) {
    const double share = std::sqrt(r.slices[m].area / (double(K) * kPi));
    double cap = std::numeric_limits<double>::infinity();
    for (size_t k = 0; k < K; ++k) {
      clearance[m][k] = winding(g[m][k]) >= 0.5 ? distanceToSurface(g[m][k]) : 0.0;
      cap = std::min(cap, clearance[m][k]);
    }
    radius[m] = std::max(std::min(share, cap), 0.05 * share);
  }
  size_t inside = 0;
  for (size_t m = 0; m < M; ++m)
    for (size_t k = 0; k < K; ++k) inside += clearance[m][k] >= radius[m] * (1 - 1e-9) ? 1 : 0;
  r.insideFraction = double(inside) / double(K * M);

  for (size_t k = 0; k < K; ++k) {
    RodInput rod;
    rod.name = name + "." + std::to_string(k);
    rod.material = o.material;
    for (size_t m = 0; m < M; ++m) {
      rod.nodes.push_back(g[m][k]);
      rod.radii.push_back(radius[m]);
    }
    // Fibres contract in the belly and not at the tendons: sin(pi z) along the rod.
    for (size_t m = 0; m + 1 < M; ++m) rod.contractile.push_back(std::sin(kPi * (double(m) + 0.5) / double(M - 1)));
    for (size_t m = 0; m + 1 < M; ++m) {
      const double rm = 0.5 * (radius[m] + radius[m + 1]);
      r.rodVolume += kPi * rm * rm * (g[m + 1][k] - g[m][k]).norm();
    }
    r.rods.push_back(std::move(rod));
  }
  if (K > 1)
    for (size_t m = 0; m < M; ++m) {
      BundleInput b;
      for (size_t k = 0; k < K; ++k) b.members.push_back({int32_t(k), int32_t(m)});
      r.bundles.push_back(std::move(b));
    }
  if (!(r.rodVolume > 0)) throw InputError(who, "the rods have no volume (the muscle is too thin for " + std::to_string(K) + " rods)");
  for (RodInput& rod : r.rods) rod.material.density = o.material.density * r.muscleVolume / r.rodVolume;
  progress.update(1.0, "done");
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

ViperizeResult viperizeBody(Project& project, const std::string& name, ViperizeOptions options, const Progress& progress) {
  RodBodyObject* body = nullptr;
  for (RodBodyObject& b : project.rodBodies)
    if (b.name == name) body = &b;
  if (!body) {
    std::string names;
    for (const RodBodyObject& b : project.rodBodies) names += (names.empty() ? "" : ", ") + b.name;
    throw InputError("viperize", "the project has no muscle (rod body) called '" + name + "' (it has: " + (names.empty() ? "none" : names) + ")");
  }
  const std::string who = label(name);
  const MeshObject* mesh = body->surface ? project.findMesh(body->surface) : nullptr;
  if (!mesh) throw InputError(who, "has no surface mesh to viperize");
  if (body->paint.empty()) throw InputError(who, "is not painted: paint its sources (origin) and sinks (insertion) first");
  for (const std::string& bone : {body->originBone, body->insertionBone})
    if (!bone.empty() && (!project.skeleton || project.skeleton->skeleton.find(bone) < 0))
      throw InputError(who, "attaches to bone '" + bone + "', which the skeleton does not have");
  options.rods = body->rodCount;
  options.slices = body->sliceCount;
  options.material = body->material;
  ViperizeResult r = viperize(mesh->mesh, body->paint, options, name, progress);
  body->rods.clear();
  for (const RodInput& rod : r.rods) body->rods.push_back({rod.nodes, rod.radii, rod.contractile});
  // The muscle's mass is its volume's: the rods' density was scaled for it.
  body->material.density = r.rods.front().material.density;
  body->bundles.clear();
  for (const BundleInput& b : r.bundles) body->bundles.push_back(b.members);
  body->pins.clear();
  for (int32_t k = 0; k < int32_t(body->rods.size()); ++k) {
    body->pins.push_back({k, 0, body->originBone});
    body->pins.push_back({k, int32_t(body->rods[size_t(k)].nodes.size()) - 1, body->insertionBone});
  }
  body->selfCollision = false;
  return r;
}

RodBodyObject& addMuscle(Project& project, const AddMuscleOptions& o) {
  const std::string who = "muscle '" + o.name + "'";
  if (o.name.empty()) throw InputError("add muscle", "the muscle needs a name");
  for (const RodBodyObject& b : project.rodBodies)
    if (b.name == o.name) throw InputError(who, "a rod body of that name exists already");
  if (!project.skeleton) throw InputError(who, "the project has no skeleton to attach a muscle to");
  const Skeleton& s = project.skeleton->skeleton;
  const std::vector<Transform> rest = s.worldRest();
  auto bone = [&](const std::string& name, double& radius) {
    const int32_t j = s.find(name);
    if (j < 0) throw InputError(who, "the skeleton has no bone '" + name + "'");
    const BoneShape& shape = s.joints[size_t(j)].bone;
    radius = shape.kind == BoneShapeKind::Capsule ? shape.radius : 0.0;
    return shape.kind == BoneShapeKind::Capsule ? rest[size_t(j)].apply(0.5 * (shape.start + shape.end))
         : shape.kind == BoneShapeKind::Box     ? rest[size_t(j)].apply(shape.center)
                                                : rest[size_t(j)].translation;
  };
  double ra = 0, rb = 0;
  Vec3 a = bone(o.originBone, ra), b = bone(o.insertionBone, rb);
  if ((b - a).norm() < 1e-6) throw InputError(who, "the origin and insertion bones are at the same place");
  if (!(o.paintReach > 0 && o.paintReach < 0.45)) throw InputError(who, "the painted ends must reach between 0 and 0.45 of the length");
  const Vec3 axis = (b - a).normalized();
  TriMesh surface;
  ObjectId meshId = 0;
  if (!o.mesh.empty()) {
    const MeshObject* m = nullptr;
    for (const MeshObject& mo : project.meshes)
      if (mo.name == o.mesh) m = &mo;
    if (!m) throw InputError(who, "the project has no mesh '" + o.mesh + "'");
    surface = m->mesh;
    meshId = m->id;
  } else {
    const double length = (b - a).norm();
    const double belly = o.belly > 0 ? o.belly : 0.12 * length;
    Vec3 side = o.side - o.side.dot(axis) * axis;
    if (side.norm() < 1e-9) side = axis.unitOrthogonal();
    side.normalize();
    const Vec3 shift = (std::max(ra, rb) + belly) * side;
    surface = spindleMesh(a + shift, b + shift, belly, 0.3 * belly, 24, 16);
    MeshObject m;
    m.id = project.allocateId();
    m.name = o.name + " surface";
    m.mesh = surface;
    m.color = Vec3(0.75, 0.25, 0.25);
    meshId = m.id;
    project.meshes.push_back(std::move(m));
  }
  // Paint the two ends along the origin-insertion direction.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const Vec3& p : surface.positions) lo = std::min(lo, p.dot(axis)), hi = std::max(hi, p.dot(axis));
  RodBodyObject body;
  body.id = project.allocateId();
  body.name = o.name;
  body.surface = meshId;
  body.paint.assign(surface.vertexCount(), MusclePaint::None);
  const double reach = o.paintReach * (hi - lo);
  for (size_t i = 0; i < surface.vertexCount(); ++i) {
    const double z = surface.positions[i].dot(axis);
    if (z <= lo + reach) body.paint[i] = MusclePaint::Source;
    else if (z >= hi - reach) body.paint[i] = MusclePaint::Sink;
  }
  body.originBone = o.originBone;
  body.insertionBone = o.insertionBone;
  body.rodCount = o.rods;
  body.sliceCount = o.slices;
  body.selfCollision = false;
  project.rodBodies.push_back(std::move(body));
  return project.rodBodies.back();
}

TriMesh spindleMesh(const Vec3& a, const Vec3& b, double belly, double tendon, int rings, int sides) {
  rings = std::max(rings, 3);
  sides = std::max(sides, 3);
  const Vec3 axis = b - a;
  const double length = axis.norm();
  const Vec3 w = axis / length;
  const Vec3 u = w.unitOrthogonal(), v = w.cross(u);
  TriMesh mesh;
  for (int i = 0; i < rings; ++i) {
    const double t = double(i) / (rings - 1);
    const double radius = tendon + (belly - tendon) * std::sin(kPi * t);
    for (int j = 0; j < sides; ++j) {
      const double phi = 2 * kPi * j / sides;
      mesh.positions.push_back(a + t * axis + radius * (std::cos(phi) * u + std::sin(phi) * v));
    }
  }
  const int32_t capA = int32_t(mesh.positions.size());
  mesh.positions.push_back(a);
  const int32_t capB = capA + 1;
  mesh.positions.push_back(b);
  auto at = [&](int i, int j) { return int32_t(i * sides + (j % sides)); };
  for (int i = 0; i + 1 < rings; ++i)
    for (int j = 0; j < sides; ++j) {
      mesh.triangles.push_back({at(i, j), at(i, j + 1), at(i + 1, j + 1)});
      mesh.triangles.push_back({at(i, j), at(i + 1, j + 1), at(i + 1, j)});
    }
  for (int j = 0; j < sides; ++j) {
    mesh.triangles.push_back({capA, at(0, j + 1), at(0, j)});
    mesh.triangles.push_back({capB, at(rings - 1, j), at(rings - 1, j + 1)});
  }
  if (enclosedVolume(mesh) < 0)
    for (Tri& t : mesh.triangles) std::swap(t[1], t[2]);
  return mesh;
}

std::vector<MuscleMark> marksNearEnds(const TriMesh& surface, const Vec3& a, const Vec3& b, double reach) {
  const Vec3 axis = b - a;
  const double length = axis.norm();
  const Vec3 w = axis / length;
  std::vector<MuscleMark> marks(surface.vertexCount(), MuscleMark::None);
  for (size_t i = 0; i < marks.size(); ++i) {
    const double z = (surface.positions[i] - a).dot(w);
    if (z <= reach) marks[i] = MuscleMark::Source;
    else if (z >= length - reach) marks[i] = MuscleMark::Sink;
  }
  return marks;
}

}  // namespace sinew::viper
