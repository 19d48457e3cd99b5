// Benchmarks for the foundation's heavy operations, on paper-sized inputs:
// the example humanoid at about 20K triangles, the CMU 01_01 clip, and the
// volumetric meshes of the example humanoid.
//   build/bin/bench_sim --benchmark_min_time=1
#include "examples/ExchangeCharacters.h"
#include "examples/Humanoid.h"
#include "io/SkinnedExport.h"
#include "rig/AutoJoints.h"
#include "geometry/MeshValidation.h"
#include "geometry/TriangleTree.h"
#include "io/AssimpImport.h"
#include "io/Bvh.h"
#include "io/FileUtil.h"
#include "io/ProjectFile.h"
#include "volume/Cage.h"
#include "volume/Embed.h"
#include "volume/RegionMesh.h"
#include "rig/BoneWeights.h"
#include "rig/Skinning.h"
#include "rig/WeightPaint.h"
#include "rig/RigBuild.h"
#include "liu2013/Liu2013.h"
#include "control/Optimize.h"
#include "li2019/Li2019.h"
#include "examples/Bars.h"
#include "examples/ViperScenes.h"
#include "viper/ViperSimulation.h"
#include "examples/ShethScenes.h"
#include "sheth2015/Sheth2015Simulation.h"

#include "../sim/control/CmuClip.h"
#include "../sim/rig/RigScenes.h"
#include "../TestPaths.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <map>

using namespace sinew;

namespace {
const TriMesh& humanoid20k() {
  static const TriMesh m = [] {
    HumanoidOptions o;
    o.gridSpacing = 0.019;
    return makeHumanoidSurface(o);
  }();
  return m;
}
const char* kClip = "/usr/share/assimp/models/BVH/01_01.bvh";
}  // namespace

static void BM_GenerateHumanoid(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(makeHumanoidProject());
}
BENCHMARK(BM_GenerateHumanoid)->Unit(benchmark::kMillisecond);

static void BM_ValidateMesh20k(benchmark::State& state) {
  const TriMesh& m = humanoid20k();
  for (auto _ : state) benchmark::DoNotOptimize(validateMesh(m));
  state.counters["triangles"] = double(m.triangleCount());
}
BENCHMARK(BM_ValidateMesh20k)->Unit(benchmark::kMillisecond);

static void BM_WeldTriangleSoup20k(benchmark::State& state) {
  // Every triangle with its own three vertices, as many file formats store them.
  const TriMesh& m = humanoid20k();
  std::vector<Vec3> soup;
  std::vector<Tri> tris;
  for (const Tri& t : m.triangles) {
    const auto b = int32_t(soup.size());
    for (int32_t v : t) soup.push_back(m.positions[v]);
    tris.push_back({b, b + 1, b + 2});
  }
  for (auto _ : state) benchmark::DoNotOptimize(weldVertices(soup, tris, defaultWeldTolerance(m.bounds())));
}
BENCHMARK(BM_WeldTriangleSoup20k)->Unit(benchmark::kMillisecond);

static void BM_RaycastPick20k(benchmark::State& state) {
  const TriMesh& m = humanoid20k();
  const TriangleTree tree(m);
  uint64_t i = 0;
  for (auto _ : state) {
    const double a = 0.001 * double(i++ % 1000);
    benchmark::DoNotOptimize(tree.raycast(Vec3(std::sin(a) * 4, 1.0 + 0.5 * std::cos(3 * a), std::cos(a) * 4),
                                          Vec3(-std::sin(a), 0, -std::cos(a))));
  }
}
BENCHMARK(BM_RaycastPick20k)->Unit(benchmark::kMicrosecond);

static void BM_ParseCmuBvh(benchmark::State& state) {
  const std::string text = readFileChecked(kClip);
  for (auto _ : state) benchmark::DoNotOptimize(parseBvh(text, kClip));
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(text.size()));
}
BENCHMARK(BM_ParseCmuBvh)->Unit(benchmark::kMillisecond);

static void BM_ImportObjWithValidation(benchmark::State& state) {
  const std::string dir = std::string(SINEW_BINARY_DIR) + "/bench-tmp";
  std::filesystem::create_directories(dir);
  const std::string obj = dir + "/humanoid20k.obj";
  MeshObject mo;
  mo.name = "humanoid";
  mo.mesh = humanoid20k();
  exportMeshes({&mo}, obj);
  ImportOptions options;
  options.isolate = state.range(0) != 0;
  for (auto _ : state) benchmark::DoNotOptimize(importFile(obj, options));
}
// Argument: 1 reads the file in a child process first (the default), 0 does not.
BENCHMARK(BM_ImportObjWithValidation)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

// Bring your own character: a production file (the example as a DCC tool
// writes it: 64 joints, three skinned meshes and two eyes, Z-up, centimetres,
// glTF binary; about 10K triangles) to the first simulated Liu 2013 frame:
// import (merged), simulation skeleton, stand on the ground, bone shapes,
// cage, weights, model, one frame (33 ms). Argument 1 adds the fall test
// that picks the time step (2.5 s simulated at each step tried).
static void BM_ImportToFirstFrame(benchmark::State& state) {
  const std::string dir = std::string(SINEW_BINARY_DIR) + "/bench-tmp";
  std::filesystem::create_directories(dir);
  const std::string file = dir + "/production.glb";
  HumanoidOptions ho;
  ho.gridSpacing = 0.027;
  const Project humanoid = makeHumanoidProject(ho);
  const ExchangeCharacter c = makeExchangeCharacter(humanoid);
  SkinnedExportOptions eo;
  eo.zUp = true;
  eo.unitsPerMetre = 100;
  exportSkinnedCharacter(c.skeleton, c.parts, file, eo);
  size_t triangles = 0;
  for (auto _ : state) {
    ImportOptions io;
    io.grouping = MeshGrouping::All;
    io.checkSelfIntersections = false;
    Project p;
    Diagnostics d;
    addToProject(p, importFile(file, io), d);
    triangles = p.meshes[0].mesh.triangleCount();
    applyRigBuild(p, buildRig(p, 0, {}));
    if (state.range(0)) {
      const liu2013::StepChoice step = liu2013::chooseStableStep(p);
      if (step.dt < liu2013::Settings{}.dt) p.simulation.setSolverParam("liu2013", "dt", step.dt);
    }
    liu2013::Settings settings;
    liu2013::applyScene(p.simulation, settings);
    liu2013::Liu2013Solver solver(liu2013::buildLiu2013Model(p, liu2013::modelOptionsFor(p.simulation)), settings);
    while (solver.time() < 1.0 / 30) solver.step();
    benchmark::DoNotOptimize(solver.surfacePositions());
  }
  state.counters["triangles"] = double(triangles);
}
BENCHMARK(BM_ImportToFirstFrame)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

// Automatic joints in the example's bare surface (about 9K triangles):
// argument 0 the T-pose, 1 an A-pose, 2 the T-pose standing along Z.
static void BM_AutoPlaceJoints(benchmark::State& state) {
  const Project humanoid = makeHumanoidProject();
  TriMesh surface = state.range(0) == 1 ? makeAPoseSurface(humanoid, 45).surface : humanoid.meshes[0].mesh;
  if (state.range(0) == 2)
    for (Vec3& x : surface.positions) x = Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()) * x;
  for (auto _ : state) benchmark::DoNotOptimize(autoPlaceJoints(surface));
  state.counters["triangles"] = double(surface.triangleCount());
}
BENCHMARK(BM_AutoPlaceJoints)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_SaveLoadProject(benchmark::State& state) {
  const std::string dir = std::string(SINEW_BINARY_DIR) + "/bench-tmp";
  std::filesystem::create_directories(dir);
  Project p = makeHumanoidProject();
  p.meshes[0].mesh = humanoid20k();
  ClipObject c;
  c.id = p.allocateId();
  c.clip = readBvh(kClip);
  p.clips.push_back(c);
  const std::string path = dir + "/bench.sinew";
  for (auto _ : state) {
    saveProject(p, path);
    benchmark::DoNotOptimize(loadProject(path));
  }
}
BENCHMARK(BM_SaveLoadProject)->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------------------
// Skinning weights (Liu et al. 2013, Section 4.2.2): a voxel cage of the
// humanoid of about 1,200 nodes / 4,000 tets, the nodes in 17 bone shapes as
// handles (targets: 5 s or less, partition of unity to 1e-6, exact bounds).

namespace {
const test::HumanoidCage& cage17() {
  static const test::HumanoidCage c = test::humanoidCage(0.072, 17);
  return c;
}

void weightCounters(benchmark::State& state, const test::HumanoidCage& c, const BoneWeightsResult& r) {
  double pou = 0;
  for (Eigen::Index i = 0; i < r.weights.rows(); ++i) pou = std::max(pou, std::abs(r.weights.row(i).sum() - 1.0));
  state.counters["nodes"] = double(c.mesh.nodeCount());
  state.counters["tets"] = double(c.mesh.tetCount());
  state.counters["bones"] = double(c.bones.size());
  state.counters["iterations"] = double(r.totalIterations);
  state.counters["kktResidual"] = r.maxResidual;
  state.counters["partitionError"] = pou;
  state.counters["partitionDefect"] = r.partitionDefect;
  state.counters["outOfBounds"] = double((r.weights.array() < 0).count() + (r.weights.array() > 1).count());
}
}  // namespace

static void BM_BoundedBiharmonicWeights(benchmark::State& state) {
  const test::HumanoidCage& c = cage17();
  BoneWeightOptions o;
  o.parallel = state.range(0) != 0;
  BoneWeightsResult r;
  for (auto _ : state) r = computeBoneWeights(c.mesh, c.fixedBone, int32_t(c.bones.size()), o);
  weightCounters(state, c, r);
  int most = 0, factorizations = 0;
  for (const BoneWeightStats& b : r.bones) {
    most = std::max(most, b.iterations);
    factorizations += b.factorizations;
  }
  state.counters["maxIterationsPerBone"] = double(most);
  state.counters["factorizations"] = double(factorizations);
}
// Argument: 1 solves the bones on TBB threads (the default), 0 one after another.
BENCHMARK(BM_BoundedBiharmonicWeights)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_HarmonicWeights(benchmark::State& state) {
  const test::HumanoidCage& c = cage17();
  BoneWeightOptions o;
  o.method = WeightMethod::Harmonic;
  BoneWeightsResult r;
  for (auto _ : state) r = computeBoneWeights(c.mesh, c.fixedBone, int32_t(c.bones.size()), o);
  weightCounters(state, c, r);
}
BENCHMARK(BM_HarmonicWeights)->Unit(benchmark::kMillisecond);

// One weight-paint brush sample on the 10K-vertex humanoid with 19 bones,
// auto-normalise, mirror and 4 influences per vertex on, Hips locked
// (target: 16 ms or less per sample). The brush jumps over the surface;
// "add" alternates adding and subtracting so that weights never saturate.
static void BM_PaintBrushSample(benchmark::State& state) {
  const TriMesh& m = humanoid20k();
  static const PaintSurface surface(m);
  const Skeleton skeleton = makeHumanoidSkeleton();
  std::vector<std::string> names;
  for (const Joint& j : skeleton.joints) names.push_back(j.name);
  WeightPaintState s;
  s.weights = toWeightMatrix(nearestBoneWeights(m.positions, skeleton), names);
  s.locked.assign(names.size(), 0);
  s.locked[0] = 1;  // Hips
  s.vertexMirror = mirrorVertexMap(surface, 1e-4);
  s.boneMirror = mirrorBoneMap(names);
  s.settings.mirror = true;
  s.settings.maxInfluences = 4;
  s.selectedBone = skeleton.find("LeftForeArm");
  const auto mode = BrushMode(state.range(0));
  BrushSample brush;
  brush.radius = 0.001 * double(state.range(1));
  brush.strength = 0.3;
  size_t i = 0, changed = 0, inside = 0;
  std::vector<int32_t> near;
  for (auto _ : state) {
    brush.center = m.positions[(i * 7919) % m.vertexCount()];
    brush.mode = mode == BrushMode::Add && i % 2 ? BrushMode::Subtract : mode;
    changed += applyBrush(surface, s, brush).vertices.size();
    ++i;
  }
  for (size_t k = 0; k < std::min<size_t>(i, 1000); ++k) {
    near.clear();
    surface.verticesInSphere(m.positions[(k * 7919) % m.vertexCount()], brush.radius, near);
    inside += near.size();
  }
  state.counters["vertices"] = double(m.vertexCount());
  state.counters["bones"] = double(names.size());
  state.counters["insidePerSample"] = double(inside) / double(std::max<size_t>(std::min<size_t>(i, 1000), 1));
  state.counters["changedPerSample"] = double(changed) / double(std::max<size_t>(i, 1));
  state.SetLabel(mode == BrushMode::Add ? "add/subtract" : brushModeName(mode));
}
// Arguments: BrushMode (0 add, 1 subtract, 2 replace, 3 smooth), radius in mm.
BENCHMARK(BM_PaintBrushSample)->Args({0, 80})->Args({3, 80})->Args({0, 250})->Args({3, 250})->Unit(benchmark::kMicrosecond);

// Volumetric meshing of the example humanoid (9,260 triangles, 19 bones).
namespace {
const Project& humanoidProject() {
  static const Project p = makeHumanoidProject();
  return p;
}
}  // namespace

// The coarse cage of Liu et al. 2013 (target 1,200 nodes): hull, simplification,
// TetGen, fixed nodes and the embedding of the surface.
static void BM_CageHumanoid(benchmark::State& state) {
  const Project& p = humanoidProject();
  CageReport r;
  for (auto _ : state) {
    CageResult c = buildCage(p.meshes[0].mesh, p.skeleton->skeleton);
    r = c.report;
    benchmark::DoNotOptimize(c);
  }
  state.counters["nodes"] = double(r.nodes);
  state.counters["tets"] = double(r.tets);
  state.counters["fixed"] = double(r.fixedNodes);
  state.counters["minDihedral"] = r.quality.minDihedralDeg;
  state.counters["slivers"] = double(r.quality.sliverCount);
  state.counters["hull_ms"] = 1e3 * r.hullSeconds;
  state.counters["simplify_ms"] = 1e3 * r.simplifySeconds;
  state.counters["tetgen_ms"] = 1e3 * r.tetgenSeconds;
}
BENCHMARK(BM_CageHumanoid)->Unit(benchmark::kMillisecond)->UseRealTime();

// The conforming mesh of Li et al. 2019: argument 1 simplifies the exterior
// to 2,000 vertices first (the default), 0 meshes it as it is.
static void BM_RegionMeshHumanoid(benchmark::State& state) {
  const Project& p = humanoidProject();
  RegionMeshOptions o;
  o.simplifyExterior = state.range(0) != 0;
  RegionMeshReport r;
  for (auto _ : state) {
    RegionMeshResult m = buildRegionMesh(p.meshes[0].mesh, p.skeleton->skeleton, o);
    r = m.report;
    benchmark::DoNotOptimize(m);
  }
  state.counters["nodes"] = double(r.nodes);
  state.counters["tets"] = double(r.tets);
  state.counters["boneTets"] = double(r.tets - r.fleshTets);
  state.counters["minDihedral"] = r.quality.minDihedralDeg;
  state.counters["tetgen_ms"] = 1e3 * r.tetgenSeconds;
}
BENCHMARK(BM_RegionMeshHumanoid)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

// Embedding the humanoid's 4,632 vertices in its cage (point location by BVH).
static void BM_EmbedHumanoid(benchmark::State& state) {
  const Project& p = humanoidProject();
  const TriMesh& surface = p.meshes[0].mesh;
  static const CageResult cage = buildCage(surface, p.skeleton->skeleton);
  Embedding e;
  for (auto _ : state) {
    e = embedPoints(surface.positions, cage.volume.mesh);
    benchmark::DoNotOptimize(e);
  }
  const std::vector<Vec3> x = embeddedPositions(e, cage.volume.mesh, cage.volume.mesh.nodes);
  double worst = 0;
  for (size_t v = 0; v < x.size(); ++v) worst = std::max(worst, (x[v] - surface.positions[v]).norm());
  state.counters["vertices"] = double(e.vertexCount());
  state.counters["extrapolated"] = double(e.extrapolatedCount());
  state.counters["maxError"] = worst;
}
BENCHMARK(BM_EmbedHumanoid)->Unit(benchmark::kMillisecond);


// Liu 2013: one 0.5 ms step of the example character (rigged example project:
// ~1.2K nodes / 4.6K tets / 19 joints), PD-tracking the kick with gravity and
// ground contact; argument = threads.
static void BM_Liu2013Step(benchmark::State& state) {
  static const Project project = loadProject(std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew");
  static const auto model = liu2013::buildLiu2013Model(project);
  liu2013::Settings s;
  s.threads = static_cast<int>(state.range(0));
  s.drive = DriveMode::Pd;
  s.clip = project.clips.at(0).clip;
  liu2013::Liu2013Solver sim(model, s);
  for (int i = 0; i < 200; ++i) sim.step();  // settle onto the ground
  const liu2013::Liu2013State start = sim.state();
  int64_t n = 0;
  for (auto _ : state) {
    sim.step();
    if (++n % 1000 == 0) sim.setState(start);  // stay in the standing phase
  }
  state.counters["nodes"] = static_cast<double>(model->nodeCount());
  state.counters["tets"] = static_cast<double>(model->tetCount());
  state.counters["realtime_factor"] = benchmark::Counter(0.0005 * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Liu2013Step)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Controller search (Liu et al. 2013, Section 5): one 0.1 s control window of
// CMU 01_01 (8.0-8.1 s, the standing before the turn) sampled 40 times on the
// example character, from its settled start, with balance feedback in the
// loop, as `sinew-cli optimize` runs it; arguments: threads, and the time step
// in microseconds (500: the paper's, 200 steps per sample; 1000: `optimize
// --step 0.001`, 100). items_per_second is samples per second (each simulates
// 0.1 s and is scored).
static void BM_SamconWindow(benchmark::State& state) {
  constexpr int kSamples = 40;
  static const Project project =
      test::withCmuClip(loadProject(std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew"));
  static std::map<int64_t, control::PreparedOptimization> prepared;
  const int64_t micros = state.range(1);
  if (!prepared.count(micros)) {
    control::OptimizeSpec spec;
    spec.clip = "01_01";
    spec.start = 8.0;
    spec.end = 8.5;
    spec.step = double(micros) * 1e-6;
    spec.samcon.samples = kSamples;
    spec.samcon.keep = 10;
    spec.samcon.feedback = true;
    prepared.emplace(micros, control::prepareOptimization(project, spec));
  }
  for (auto _ : state) {
    control::SamconSearch search(prepared.at(micros).problem,
                                 control::makeThreadedEvaluator(static_cast<int>(state.range(0))));
    search.runWindow();
    benchmark::DoNotOptimize(search.bestState());
  }
  state.SetItemsProcessed(state.iterations() * kSamples);
}
BENCHMARK(BM_SamconWindow)
    ->Args({1, 500})
    ->Args({2, 500})
    ->Args({1, 1000})
    ->Args({2, 1000})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(10.0);

// Li et al. 2019, Table 1 (20 local/global iterations, dt = 1/30 s): one step
// of a generated scene dropped onto the ground, with the time split as in the
// paper (local + global = "affine", the joint solve, total) and "PD time", the
// same mesh as plain projective dynamics (no rigid bones, no joints).
//   arg 0: the bar, 26 x 8 x 8 nodes (1,664 nodes / 7,350 tets / 2 bones / 1 joint; paper: 1,690 / 7,661)
//   arg 1: a chain creature, 61 x 11 x 11 nodes (7,381 / 36,000 / 9 bones / 8 joints; paper's mermaid: 7,570 / 32,270)
//   arg 2: the example humanoid's conforming mesh (sinew-cli rig --regions: 8,897 / 36,427 / 19 bones / 18 joints;
//          paper's humanoid: 12,683 / 45,888 / 9 / 8), a passive character collapsing onto the ground
//   arg 3: the same humanoid meshed at the paper's size (exterior simplified to 3,000 instead of 2,000
//          vertices: 11,482 / 46,441 / 19 / 18)
// second arg: 1 exact bones (the paper's method), 0 plain PD.
static li2019::Input li2019Scene(int64_t which) {
  if (which == 3) {
    const Project p = loadProject(std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew");
    RegionMeshOptions ro;
    ro.exteriorTargetVertices = 3000;
    const RegionMeshResult r = buildRegionMesh(p.meshes.at(0).mesh, p.skeleton->skeleton, ro);
    return {r.volume.mesh, r.volume.bones, r.joints};
  }
  if (which == 2) {
    Project p = loadProject(std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew");
    RigBuildOptions o;
    o.regions = true;
    o.weights = false;
    applyRigBuild(p, buildRig(p, p.meshes.at(0).id, o));
    for (const VolumeObject& v : p.volumes)
      if (v.kind == VolumeKind::Conforming) return {v.mesh, v.bones, regionJoints(p.skeleton->skeleton, v.bones)};
    throw std::runtime_error("no conforming mesh");
  }
  examples::GridBox box;
  int bones = 2;
  if (which == 1) {
    box.size = Vec3(3.0, 0.5, 0.5);
    box.cellsX = 60;
    box.cellsY = box.cellsZ = 10;
    bones = 9;
  }
  const examples::BarScene scene = examples::chainScene(bones, box);
  return {scene.mesh, scene.joints.bones, scene.joints.joints};
}

static void BM_Li2019Step(benchmark::State& state) {
  static std::map<int64_t, li2019::Input> scenes;
  if (!scenes.count(state.range(0))) scenes[state.range(0)] = li2019Scene(state.range(0));
  li2019::ModelOptions o;
  o.rigid = state.range(1) ? li2019::RigidMode::Exact : li2019::RigidMode::Stiffness;
  o.boneStiffnessRatio = 1;  // "PD time": the same mesh as flesh
  const auto model = li2019::buildLi2019Model(scenes[state.range(0)], o);
  li2019::Li2019Solver sim(model, {});
  li2019::Li2019State start = li2019::restState(*model);
  const double lift = state.range(0) >= 2 ? 0.0 : 0.4;  // the humanoid stands on its soles
  for (Vec3& x : start.x) x.y() += lift;
  for (auto& b : start.bones) b.centroid.y() += lift;
  sim.setState(start);
  double local = 0, global = 0, joint = 0;
  int64_t n = 0;
  for (auto _ : state) {
    const li2019::StepStats& st = sim.step();
    local += st.localSeconds, global += st.globalSeconds, joint += st.jointSeconds;
    if (++n % 60 == 0) sim.setState(start);  // fall and land again
  }
  state.counters["nodes"] = static_cast<double>(model->nodeCount());
  state.counters["tets"] = static_cast<double>(model->tetCount());
  state.counters["affine_ms"] = 1e3 * (local + global) / double(n);
  state.counters["joint_ms"] = 1e3 * joint / double(n);
}
BENCHMARK(BM_Li2019Step)->Args({0, 1})->Args({0, 0})->Args({1, 1})->Args({1, 0})->Args({2, 1})->Args({2, 0})->Args({3, 1})->Args({3, 0})->Unit(benchmark::kMillisecond)->UseRealTime();

// VIPER (Angles et al. 2019, Section 7): N octopi of 37 pills each dropped
// on the ground (sim/examples/ViperScenes.h), 10 Jacobi iterations per step
// at 60 Hz; arg 1 is the thread count. Steps run from the drop to rest and
// again (reset every 2 s of simulated time), so landing and resting contacts
// are both in the figure.
static void BM_ViperOctopus(benchmark::State& state) {
  const int count = int(state.range(0));
  const Project p = examples::makeOctopusProject(count);
  viper::ViperSimulation sim(p);
  sim.setThreads(int(state.range(1)));
  const auto start = sim.snapshot();
  int64_t n = 0;
  for (auto _ : state) {
    sim.step();
    if (++n % 120 == 0) sim.restore(*start);
  }
  const viper::RodModel& m = sim.model();
  const double dofs = 4.0 * double(m.nodeCount()) + 3.0 * double(m.segmentCount());  // c, s per node; rotation per segment
  state.counters["pills"] = double(m.segmentCount());
  state.counters["dofs"] = dofs;
  state.counters["dofs_x_hz"] = benchmark::Counter(dofs, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ViperOctopus)->Args({1, 1})->Args({20, 1})->Args({20, 2})->Args({40, 2})->Args({100, 2})->Unit(benchmark::kMillisecond)->UseRealTime();

// Sheth et al. 2015 (Table 2's Pachinko machine): one humanoid as deformable
// bones falling through four rows of pegs (sim/examples/ShethScenes.h),
// 10 modes per bone, 60 Hz. Arg 0: the volume's cage nodes (1200: the
// example project; 10500: about the paper's 19K particles once the bones
// overlap); arg 1: joints per overlap (5 gives 90 joints, the paper's 87);
// arg 2: collision/contact/post-stabilization iterations (the paper used 1
// for the Pachinko). Steps run from the drop through the pegs to the ground
// (reset every 4 s of simulated time). Decomposition and modal analysis are
// set-up, outside the timing (reported as build_s).
static void BM_Sheth2015Pachinko(benchmark::State& state) {
  static std::map<int64_t, Project> projects;
  const int64_t cage = state.range(0);
  if (!projects.count(cage)) projects[cage] = examples::makePachinkoProject(size_t(cage), 4, 4, cage != 1200);
  sheth2015::Sheth2015Options o = sheth2015::optionsFor(projects[cage]);
  o.decompose.jointsPerOverlap = int(state.range(1));
  o.decompose.proxySites = 1536;
  o.sweeps = o.postStabilization = int(state.range(2));
  const auto t0 = std::chrono::steady_clock::now();
  sheth2015::Sheth2015Simulation sim(projects[cage], o);
  const double build = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto start = sim.snapshot();
  int64_t n = 0;
  for (auto _ : state) {
    sim.step();
    if (++n % 240 == 0) sim.restore(*start);
  }
  state.counters["particles"] = double(sim.bones().particleCount());
  state.counters["bones"] = double(sim.bones().models.size());
  state.counters["joints"] = double(sim.bones().joints.size());
  state.counters["proxy"] = double(sim.bones().proxyNodes.size());
  state.counters["build_s"] = build;
}
BENCHMARK(BM_Sheth2015Pachinko)->Args({1200, 3, 5})->Args({10500, 5, 5})->Args({10500, 5, 1})->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(4.0);

BENCHMARK_MAIN();
