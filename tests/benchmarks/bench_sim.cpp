// Benchmarks for the foundation's heavy operations, on paper-sized inputs:
// the example humanoid at about 20K triangles, the CMU 01_01 clip.
//   build/bin/bench_sim --benchmark_min_time=1
#include "examples/Humanoid.h"
#include "geometry/MeshValidation.h"
#include "geometry/TriangleTree.h"
#include "io/AssimpImport.h"
#include "io/Bvh.h"
#include "io/FileUtil.h"
#include "io/ProjectFile.h"

#include <benchmark/benchmark.h>

#include <filesystem>

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

BENCHMARK_MAIN();
