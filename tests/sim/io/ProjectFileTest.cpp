// Project files: exact round trips, atomic and kill-safe saving, versioning,
// migration and damaged files.
#include "io/ProjectFile.h"
#include "examples/ViperScenes.h"

#include "core/Hash.h"
#include "io/AssimpImport.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <random>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sinew {
namespace {

using test::model;
using test::readBytes;
using test::TempDir;
using test::writeBytes;

// A project with a skinned mesh and its skeleton (huesitos.fbx), a plain mesh
// and a motion clip (01_01.bvh).
Project sampleProject() {
  Project p;
  p.name = "Round \"trip\" ünïcode";
  Diagnostics d;
  addToProject(p, importFile(model("FBX/huesitos.fbx")), d);
  addToProject(p, importFile(model("BVH/01_01.bvh")), d);
  MeshObject cube;
  cube.id = p.allocateId();
  cube.name = "cube";
  cube.mesh = test::cube(Vec3(0.1, 0.2, 0.3), 1.0 / 3.0);
  cube.color = Vec3(0.1, 1.0 / 7.0, 0.9);
  cube.visible = false;
  p.meshes.push_back(cube);
  p.allocateId();  // an unused id: nextId must survive as it is
  return p;
}

// A project with `n` random vertices and triangles (~36 bytes per vertex).
Project bigProject(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int32_t> idx(0, n - 1);
  Project p;
  p.name = "big " + std::to_string(seed);
  MeshObject m;
  m.id = p.allocateId();
  m.name = "random";
  for (int i = 0; i < n; ++i) {
    m.mesh.positions.push_back(Vec3(u(rng), u(rng), u(rng)));
    m.mesh.triangles.push_back({idx(rng), idx(rng), idx(rng)});
  }
  p.meshes.push_back(std::move(m));
  return p;
}

std::map<std::string, std::string> dataFiles(const std::string& project) {
  std::map<std::string, std::string> out;
  for (const std::string& f : test::filesIn(projectDataDir(project)))
    out[test::fs::path(f).filename().string()] = readBytes(f);
  return out;
}

// Expects loadProject(path) to throw an InputError whose message contains every fragment.
void expectLoadError(const std::string& path, const std::vector<std::string>& fragments) {
  try {
    loadProject(path);
    ADD_FAILURE() << "loaded " << path;
  } catch (const InputError& e) {
    const std::string msg = e.what();
    for (const std::string& f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << "'" << f << "' not in: " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "not one line: " << msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

TEST(ProjectFile, SaveLoadSaveIsExact) {
  const TempDir dir;
  const Project p = sampleProject();
  ASSERT_EQ(p.meshes.size(), 2u);
  ASSERT_TRUE(p.meshes[0].skin.has_value());
  ASSERT_TRUE(p.skeleton.has_value());
  ASSERT_EQ(p.clips.size(), 2u);  // huesitos.fbx's animation and 01_01.bvh

  const std::string a = dir.file("a.sinew"), b = dir.file("b.sinew");
  saveProject(p, a);
  const Project loaded = loadProject(a);
  EXPECT_TRUE(loaded == p);
  EXPECT_EQ(loaded.nextId, p.nextId);
  EXPECT_TRUE(loaded.meshes[0].skin == p.meshes[0].skin);
  EXPECT_TRUE(loaded.clips[0].clip == p.clips[0].clip);
  EXPECT_TRUE(loaded.clips[1].clip == p.clips[1].clip);
  EXPECT_TRUE(loaded.skeleton == p.skeleton);

  saveProject(loaded, b);
  EXPECT_EQ(readBytes(a), readBytes(b));
  const auto blobsA = dataFiles(a), blobsB = dataFiles(b);
  EXPECT_EQ(blobsA, blobsB);
  EXPECT_GE(blobsA.size(), 7u);  // positions, triangles, 3 skin arrays (x1), cube arrays, clip values
  // Every blob is named by the hash of its content.
  for (const auto& [name, bytes] : blobsA) EXPECT_EQ(name, toHex64(fnv1a64(bytes.data(), bytes.size())) + ".bin");
  // Saving again over the same file changes nothing.
  saveProject(loaded, a);
  EXPECT_EQ(readBytes(a), readBytes(b));
  EXPECT_EQ(dataFiles(a), blobsB);
  EXPECT_EQ(projectFileVersion(a), kProjectFormatVersion);
}

TEST(ProjectFile, UnreferencedBlobsAreRemoved) {
  const TempDir dir;
  const std::string path = dir.file("p.sinew");
  Project p = sampleProject();
  saveProject(p, path);
  const size_t before = dataFiles(path).size();
  p.clips.clear();
  saveProject(p, path);
  EXPECT_EQ(dataFiles(path).size(), before - 2);  // the two clips' values
  EXPECT_TRUE(loadProject(path) == p);
  // Files that are not blobs are left alone.
  writeBytes(projectDataDir(path) + "/README.txt", "mine");
  saveProject(p, path);
  EXPECT_EQ(readBytes(projectDataDir(path) + "/README.txt"), "mine");
}

TEST(ProjectFile, FailedSaveLeavesPreviousProject) {
  const TempDir dir;
  const Project a = sampleProject();
  const Project b = bigProject(60000, 1);  // positions blob spans two write chunks
  // How many write calls a full save of b makes.
  int total = 0;
  {
    const std::string probe = dir.file("probe.sinew");
    SaveOptions counting;
    counting.hook = [&](uint64_t) { ++total; };
    saveProject(b, probe, counting);
  }
  ASSERT_GE(total, 3);
  for (int failAt = 0; failAt < total; ++failAt) {
    SCOPED_TRACE("write call " + std::to_string(failAt));
    const std::string path = dir.file("p" + std::to_string(failAt) + ".sinew");
    saveProject(a, path);
    const std::string json = readBytes(path);
    int calls = 0;
    SaveOptions failing;
    failing.hook = [&](uint64_t bytes) {
      if (calls++ == failAt) throw std::runtime_error("simulated disk full after " + std::to_string(bytes) + " bytes");
    };
    try {
      saveProject(b, path, failing);
      ADD_FAILURE() << "save did not fail";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("simulated disk full"), std::string::npos) << e.what();
    }
    EXPECT_EQ(readBytes(path), json);
    EXPECT_TRUE(loadProject(path) == a);
    // No temporary files are left next to the project.
    for (const std::string& d : {dir.path().string(), projectDataDir(path)})
      for (const std::string& f : test::filesIn(d))
        EXPECT_EQ(test::fs::path(f).filename().string().find(".tmp"), std::string::npos) << f;
    // A later save that succeeds gives the new project.
    saveProject(b, path);
    EXPECT_TRUE(loadProject(path) == b);
  }
}

TEST(ProjectFile, SurvivesSigkillDuringSave) {
  const TempDir dir;
  const std::string path = dir.file("kill.sinew");
  const Project a = bigProject(120000, 11), b = bigProject(110000, 12);
  saveProject(a, path);
  std::mt19937 rng(20240601);
  std::uniform_int_distribution<int> delayMs(1, 120);
  int sawA = 0, sawB = 0;
  for (int round = 0; round < 20; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // Child: save the two projects alternately until killed.
      for (int i = round;; ++i) {
        try {
          saveProject(i % 2 ? b : a, path);
        } catch (...) {
          ::_exit(3);
        }
      }
    }
    ::usleep(1000 * delayMs(rng));
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child stopped by itself with status " << status;
    const Project loaded = loadProject(path);
    const bool isA = loaded == a, isB = loaded == b;
    EXPECT_TRUE(isA || isB) << "loaded project is neither of the two saved ones";
    sawA += isA;
    sawB += isB;
  }
  EXPECT_EQ(sawA + sawB, 20);
  // For the record: how often each was found, and how many writes the kills interrupted.
  size_t interrupted = 0;
  for (const std::string& d : {dir.path().string(), projectDataDir(path)})
    for (const std::string& f : test::filesIn(d)) interrupted += f.find(".tmp-") != std::string::npos;
  RecordProperty("loadedA", sawA);
  RecordProperty("loadedB", sawB);
  RecordProperty("interruptedWrites", static_cast<int>(interrupted));
  // A normal save afterwards leaves exactly the blobs it references, and
  // removes the temporaries of the killed saves.
  saveProject(b, path);
  EXPECT_TRUE(loadProject(path) == b);
  for (const std::string& d : {dir.path().string(), projectDataDir(path)})
    for (const std::string& f : test::filesIn(d)) EXPECT_EQ(f.find(".tmp-"), std::string::npos) << f;
  size_t blobs = 0;
  for (const auto& [name, bytes] : dataFiles(path)) blobs += name.size() == 20 && name.substr(16) == ".bin";
  EXPECT_EQ(blobs, 2u);
}

TEST(ProjectFile, NewerVersionIsRefusedAndNeverOverwritten) {
  const TempDir dir;
  const std::string path = dir.file("future.sinew");
  const std::string doc =
      "{\"format\": \"sinew-project\", \"version\": 99, \"name\": \"from the future\", \"meshes\": [], "
      "\"clips\": [], \"nextId\": 1, \"hologram\": {\"x\": 1}}\n";
  writeBytes(path, doc);
  EXPECT_EQ(projectFileVersion(path), 99);
  expectLoadError(path, {path, "newer", "99"});
  EXPECT_EQ(readBytes(path), doc);
  try {
    saveProject(sampleProject(), path);
    ADD_FAILURE() << "saved over a newer project";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
  }
  EXPECT_EQ(readBytes(path), doc);
}

TEST(ProjectFile, Version1IsMigrated) {
  const TempDir dir;
  const std::string path = dir.file("old.sinew");
  writeBytes(path, R"({
  "format": "sinew-project",
  "version": 1,
  "name": "legacy",
  "meshes": [
    {"name": "tet", "color": [0.5, 0.25, 1.0],
     "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]],
     "faces": [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]}
  ],
  "skeleton": {
    "joints": [
      {"name": "root", "parent": -1, "offset": [0, 1, 0]},
      {"name": "tip", "parent": 0, "offset": [0, 0.5, 0]}
    ]
  }
})");
  Diagnostics notes;
  const Project p = loadProject(path, &notes);
  EXPECT_EQ(p.name, "legacy");
  ASSERT_EQ(p.meshes.size(), 1u);
  const MeshObject& m = p.meshes[0];
  EXPECT_EQ(m.name, "tet");
  EXPECT_EQ(m.mesh.positions, (std::vector<Vec3>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}));
  EXPECT_EQ(m.mesh.triangles, (std::vector<Tri>{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}));
  EXPECT_EQ(m.color, Vec3(0.5, 0.25, 1.0));
  EXPECT_NEAR(enclosedVolume(m.mesh), 1.0 / 6.0, 1e-15);
  ASSERT_TRUE(p.skeleton.has_value());
  EXPECT_EQ(p.skeleton->name, "skeleton");
  ASSERT_EQ(p.skeleton->skeleton.size(), 2u);
  EXPECT_EQ(p.skeleton->skeleton.restPositions()[1], Vec3(0, 1.5, 0));
  EXPECT_TRUE(p.clips.empty());
  // Ids were assigned and are all below nextId.
  EXPECT_EQ(m.id, 1u);
  EXPECT_EQ(p.skeleton->id, 2u);
  EXPECT_EQ(p.nextId, 3u);
  ASSERT_EQ(notes.size(), 2u);  // every step, in order
  EXPECT_NE(notes[0].message.find("migrated project format 1 -> 2"), std::string::npos);
  EXPECT_NE(notes[1].message.find("migrated project format 2 -> 3"), std::string::npos);
  EXPECT_TRUE(p.volumes.empty());
  EXPECT_EQ(p.skeleton->skeleton.joints[1].type, JointType::Ball) << "version 2 had only ball joints";
  // Loading did not touch the file; saving writes the current version.
  EXPECT_EQ(projectFileVersion(path), 1);
  saveProject(p, path);
  EXPECT_EQ(projectFileVersion(path), kProjectFormatVersion);
  Diagnostics none;
  EXPECT_TRUE(loadProject(path, &none) == p);
  EXPECT_TRUE(none.empty());
}

// Version 3 content: joint types, limits, bone shapes, a volume with regions,
// fixed nodes, an embedding and node weights survive a save and load exactly.
TEST(ProjectFile, RigContentRoundTrips) {
  const TempDir dir;
  Project p;
  MeshObject m;
  m.id = p.allocateId();
  m.name = "tri";
  m.mesh.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  m.mesh.triangles = {{0, 1, 2}};
  p.meshes.push_back(m);
  SkeletonObject s;
  s.id = p.allocateId();
  s.name = "sk";
  Joint a;
  a.name = "A";
  a.type = JointType::Fixed;
  a.bone = BoneShape::capsule({0, 0, 0}, {0, 1, 0}, 0.1);
  Joint b;
  b.name = "B";
  b.parent = 0;
  b.restLocal.translation = {0, 1, 0};
  b.type = JointType::Hinge;
  b.hingeAxis = Vec3(0, 0, 1);
  b.limits.lower = {-0.5, -0.1, -0.2};
  b.limits.upper = {2.0, 0.1, 0.2};
  b.bone = BoneShape::box({0, 0.2, 0}, {0.1, 0.2, 0.05}, Quat(Eigen::AngleAxisd(0.3, Vec3::UnitY())));
  s.skeleton.joints = {a, b};
  p.skeleton = s;
  VolumeObject v;
  v.id = p.allocateId();
  v.name = "cage";
  v.kind = VolumeKind::Conforming;
  v.mesh.nodes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};
  v.mesh.tets = {{0, 1, 2, 3}, {1, 2, 3, 4}};
  v.mesh.region = {-1, 1};
  v.bones = {"A", "B"};
  v.fixedBone = {0, -1, -1, 1, 1};
  v.surface = m.id;
  v.embedding.tet = {0, 0, 1};
  v.embedding.weights = {{{1, 0, 0, 0}}, {{0, 1, 0, 0}}, {{0.25, 0.25, 0.25, 0.25}}};
  v.embedding.extrapolated = {0, 0, 1};
  SkinWeights w;
  w.bones = {"A", "B"};
  w.offsets = {0, 1, 2, 3, 5, 6};
  w.bone = {0, 0, 1, 0, 1, 1};
  w.weight = {1, 1, 1, 0.5, 0.5, 1};
  v.weights = w;
  p.volumes.push_back(v);
  ASSERT_NO_THROW(p.validate("rig"));
  const std::string path = dir.file("rig.sinew");
  saveProject(p, path);
  const Project back = loadProject(path);
  EXPECT_TRUE(back == p);
  EXPECT_TRUE(back.skeleton->skeleton.joints[1] == b);
  EXPECT_TRUE(back.volumes[0] == v);
  saveProject(back, dir.file("again.sinew"));
  EXPECT_EQ(readBytes(path), readBytes(dir.file("again.sinew")));
  EXPECT_EQ(readBytes(path).find("\"live\""), std::string::npos) << "a full mesh writes no live flag";

  // A live copy beside it round-trips; a cage cannot be one.
  VolumeObject copy = v;
  copy.id = p.allocateId();
  copy.name = "live copy";
  copy.live = true;
  p.volumes.push_back(copy);
  saveProject(p, path);
  const Project withCopy = loadProject(path);
  ASSERT_EQ(withCopy.volumes.size(), 2u);
  EXPECT_FALSE(withCopy.volumes[0].live);
  EXPECT_TRUE(withCopy.volumes[1].live);
  EXPECT_TRUE(withCopy == p);
  std::string text = readBytes(path);
  const size_t kind = text.rfind("\"kind\": \"conforming\"");  // the last volume's: the copy
  ASSERT_NE(kind, std::string::npos);
  text.replace(kind, std::string("\"kind\": \"conforming\"").size(), "\"kind\": \"cage\"");
  writeBytes(path, text);
  expectLoadError(path, {path, "live copy", "only a conforming mesh can be a live copy"});
}

// Simulation materials (flesh and per-bone regions) round-trip exactly; a
// project without them writes no "simulation" section (older version-3 files
// keep their bytes) and reads back with the solver's defaults; bad values are
// refused with the region named.
TEST(ProjectFile, SimulationMaterialsRoundTrip) {
  const TempDir dir;
  Project p = sampleProject();
  const std::string plain = dir.file("plain.sinew");
  saveProject(p, plain);
  EXPECT_EQ(readBytes(plain).find("\"simulation\""), std::string::npos);
  EXPECT_TRUE(loadProject(plain).simulation.empty());

  p.simulation.flesh = FleshMaterial{7.5e4, 0.45, 1050, 35.5};
  p.simulation.regions.push_back({"LeftFoot", FleshMaterial{3e5, 0.3, 1100, 0}});
  p.simulation.regions.push_back({"Spine 1", FleshMaterial{1.0 / 3.0 * 1e5, 0.0, 900.25, 60}});
  const std::string path = dir.file("sim.sinew");
  saveProject(p, path);
  const Project back = loadProject(path);
  EXPECT_TRUE(back.simulation == p.simulation);
  EXPECT_TRUE(back == p);
  saveProject(back, dir.file("again.sinew"));
  EXPECT_EQ(readBytes(path), readBytes(dir.file("again.sinew")));

  // Regions only: the flesh stays the solver's default.
  p.simulation.flesh.reset();
  saveProject(p, path);
  EXPECT_FALSE(loadProject(path).simulation.flesh.has_value());
  EXPECT_EQ(loadProject(path).simulation.regions.size(), 2u);

  // Out of range, or the same bone twice.
  std::string text = readBytes(path);
  const size_t at = text.find("\"poissonRatio\": 0.3");
  ASSERT_NE(at, std::string::npos);
  writeBytes(path, text.substr(0, at) + "\"poissonRatio\": 0.5" + text.substr(at + 19));
  expectLoadError(path, {path, "region 'LeftFoot'", "Poisson ratio"});
  p.simulation.regions[1].bone = "LeftFoot";
  EXPECT_THROW(p.validate("dup"), InputError);
}

// The scene (ground and colliders) round-trips exactly with the materials;
// a bad collider is refused with its name.
TEST(ProjectFile, SimulationSceneRoundTrips) {
  const TempDir dir;
  Project p = sampleProject();
  p.simulation.groundHeight = -0.25;
  p.simulation.groundFriction = 0.4;
  Collider box;
  box.name = "Step";
  box.shape = ColliderShape::Box;
  box.center = Vec3(0.5, 0.1, -0.2);
  box.rotationDegrees = Vec3(0, 33.5, 10);
  box.size = Vec3(0.3, 0.1, 0.25);
  box.friction = 1.2;
  Collider ball;
  ball.name = "Ball";
  ball.center = Vec3(0, 1.5, 0.4);
  ball.size = Vec3(0.15, 0, 0);
  p.simulation.colliders = {box, ball};
  EXPECT_FALSE(p.simulation.empty());
  const std::string path = dir.file("scene.sinew");
  saveProject(p, path);
  const Project back = loadProject(path);
  EXPECT_TRUE(back.simulation == p.simulation);
  EXPECT_FALSE(back.simulation.flesh.has_value());

  std::string text = readBytes(path);
  const size_t at = text.find("\"box\"");
  ASSERT_NE(at, std::string::npos);
  writeBytes(path, text.substr(0, at) + "\"cone\"" + text.substr(at + 5));
  expectLoadError(path, {path, "collider 'Step'", "unknown shape"});
  p.simulation.colliders[1].size.x() = 0;
  EXPECT_THROW(p.validate("zero radius"), InputError);
  p.simulation.colliders[1] = box;
  EXPECT_THROW(p.validate("same name"), InputError);
}

// The solver parameters a user chose are the project's; every value is
// checked by the registry's table on load, naming the solver and parameter.
TEST(ProjectFile, SolverParametersRoundTripAndAreChecked) {
  const TempDir dir;
  Project p = sampleProject();
  p.simulation.solverParams["li2019"] = {{"iterations", 7}, {"dt", 0.02}};
  p.simulation.solverParams["sheth2015"] = {{"modes", 12}};
  const std::string path = dir.file("params.sinew");
  saveProject(p, path);
  EXPECT_TRUE(loadProject(path).simulation == p.simulation);
  const std::string text = readBytes(path);
  auto replaced = [&](const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.substr(0, at) + to + text.substr(at + from.size());
  };
  const std::string bad = dir.file("bad.sinew");
  std::filesystem::copy(path + ".data", bad + ".data", std::filesystem::copy_options::recursive);
  writeBytes(bad, replaced("\"iterations\": 7.0", "\"iterations\": 0"));
  expectLoadError(bad, {bad, "simulation.solvers.li2019.iterations", "out of range"});
  writeBytes(bad, replaced("\"iterations\": 7.0", "\"iterations\": 7.5"));
  expectLoadError(bad, {bad, "whole number"});
  writeBytes(bad, replaced("\"iterations\": 7.0", "\"sweeps\": 7"));
  expectLoadError(bad, {bad, "sweeps", "not a parameter of the li2019 solver"});
  writeBytes(bad, replaced("\"iterations\": 7.0", "\"iterations\": \"7\""));
  expectLoadError(bad, {bad, "must be a number"});
  writeBytes(bad, replaced("\"li2019\"", "\"bullet\""));
  expectLoadError(bad, {bad, "'bullet' is not a solver"});
}

// Projects written before the table kept Liu 2013's step as
// simulation.timeStep: it loads as the table's liu2013 dt, checked there,
// and is saved back in the table only.
TEST(ProjectFile, AnOldTimeStepIsLiu2013sTableStep) {
  const TempDir dir;
  Project p = sampleProject();
  p.simulation.groundHeight = 0.5;
  const std::string path = dir.file("old.sinew");
  saveProject(p, path);
  const std::string text = readBytes(path);
  const size_t at = text.find("\"groundHeight\"");
  ASSERT_NE(at, std::string::npos);
  auto withStep = [&](const std::string& dt) { return text.substr(0, at) + "\"timeStep\": " + dt + ", " + text.substr(at); };
  writeBytes(path, withStep("0.00025"));
  const Project old = loadProject(path);
  EXPECT_EQ(old.simulation.solverParam("liu2013", "dt"), 0.00025);
  saveProject(old, path);
  EXPECT_EQ(readBytes(path).find("timeStep"), std::string::npos);
  EXPECT_EQ(loadProject(path).simulation.solverParam("liu2013", "dt"), 0.00025);
  writeBytes(path, withStep("0.5"));
  expectLoadError(path, {path, "simulation.timeStep", "out of range"});
}

TEST(ProjectFile, ControllersRoundTrip) {
  const TempDir dir;
  Project p = sampleProject();
  const size_t joints = p.skeleton->skeleton.joints.size();
  ControllerObject c;
  c.id = p.allocateId();
  c.name = "walk \"1\"";
  c.sourceClip = p.clips.at(0).clip.name;
  c.start = 0.25;
  c.end = 1.0 / 3.0;
  c.jointMap.assign(joints, "");
  c.jointMap[0] = "Hips";
  c.reference = p.clips.at(0).clip;
  c.pdFrequency = 5.5;
  c.stanceAngle = 0;  // plain inertia gains (the default, 0.1, stiffens the legs)
  c.step = 0.001;     // made at twice the paper's step
  for (int w = 0; w < 3; ++w) {
    ControlWindow win;
    win.referenceStart = c.start + w * 0.1;
    win.referenceDuration = 0.1;
    win.duration = 0.1 * (0.9 + w / 7.0);
    for (size_t j = 0; j < joints; ++j)
      win.targets.push_back(Quat(Eigen::AngleAxisd(0.1 * double(j) + w / 3.0, Vec3(1, 2, 3).normalized())));
    win.cost = 1.0 / (w + 3.0);
    c.windows.push_back(win);
  }
  c.feedback.joints = {1, 2};
  c.feedback.stateSize = 5;
  for (int w = 0; w < 3; ++w) {
    std::vector<double> g(6 * 5);
    for (size_t i = 0; i < g.size(); ++i) g[i] = std::sin(double(i * 7 + w));
    c.feedback.gains.push_back(g);
    for (double& x : g) x = -0.5 * x;
    c.feedback.swingGains.push_back(g);  // foot placement: optional, same shape
  }
  c.settings = R"({"samples":200,"seed":7})";
  c.shove = {0.5695, Vec3(0.05, 0, -0.01)};  // re-planned against this shove
  p.controllers.push_back(c);
  const std::string path = dir.file("controllers.sinew");
  saveProject(p, path);
  const Project back = loadProject(path);
  ASSERT_EQ(back.controllers.size(), 1u);
  EXPECT_TRUE(back.controllers[0] == c);
  {
    // An unfinished backtracking search's state, the furthest good set included.
    Project searching = p;
    ControllerObject& s = searching.controllers[0];
    s.searchKept = {s.windows};
    SearchBacktrackRecord& r = s.searchBacktrack;
    r.nodes = s.windows;
    r.parent = {-1, 0, 1};
    r.remembered = {{1, {0}}};
    r.pending = {{2, {2}}};
    r.furthest = {2, {1}};
    r.attempts = {0, 1, 1};
    r.used = 1;
    r.lastFrom = 2;
    r.lastTo = 1;
    saveProject(searching, dir.file("searching.sinew"));
    EXPECT_TRUE(loadProject(dir.file("searching.sinew")).controllers[0] == s);
    r.furthest = {};  // none found: not written
    saveProject(searching, dir.file("searching2.sinew"));
    EXPECT_TRUE(loadProject(dir.file("searching2.sinew")).controllers[0] == s);
    r.furthest = {2, {3}};
    try {
      searching.validate("furthest");
      ADD_FAILURE() << "a furthest set naming a node the record lacks was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("names node 3"), std::string::npos) << e.what();
    }
  }
  saveProject(back, dir.file("again.sinew"));
  EXPECT_EQ(readBytes(dir.file("again.sinew")), readBytes(path));

  // Swing gains for some windows only are refused.
  p.controllers[0].feedback.swingGains.pop_back();
  EXPECT_THROW(p.validate("swing gains"), InputError);
  p.controllers[0].feedback.swingGains.clear();  // none: fine, and not written
  saveProject(p, dir.file("noswing.sinew"));
  EXPECT_TRUE(loadProject(dir.file("noswing.sinew")).controllers[0].feedback.swingGains.empty());

  // A stance angle outside [0, 1] rad is refused.
  p.controllers[0].stanceAngle = -0.1;
  EXPECT_THROW(p.validate("stance angle"), InputError);
  p.controllers[0].stanceAngle = 0.1;

  // A time step outside [0.0001, 0.005] s (other than 0, the project's) is refused, by name.
  for (double bad : {-0.001, 1e-5, 0.01, std::nan("")}) {
    p.controllers[0].step = bad;
    try {
      p.validate("step");
      ADD_FAILURE() << "step " << bad << " accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("step must be 0"), std::string::npos) << e.what();
    }
  }
  p.controllers[0].step = 0;  // the project's: fine, and not written
  saveProject(p, dir.file("nostep.sinew"));
  EXPECT_EQ(readBytes(dir.file("nostep.sinew")).find("\"step\""), std::string::npos);
  EXPECT_EQ(loadProject(dir.file("nostep.sinew")).controllers[0].step, 0.0);

  // Unshoved: no shove written, none read back.
  p.controllers[0].shove = {};
  saveProject(p, dir.file("noshove.sinew"));
  EXPECT_EQ(readBytes(dir.file("noshove.sinew")).find("\"shove\""), std::string::npos);
  EXPECT_TRUE(loadProject(dir.file("noshove.sinew")).controllers[0].shove.empty());
  // A shove with a negative time, two numbers for a velocity, or faster than
  // 100 m/s in a file is named.
  {
    const std::string text = readBytes(path);
    auto edited = [&](const std::string& from, const std::string& to) {
      std::string t = text;
      const size_t at = t.find(from, t.find("\"shove\""));
      EXPECT_NE(at, std::string::npos) << from;
      if (at != std::string::npos) t.replace(at, from.size(), to);
      writeBytes(path, t);  // beside its data files
      return path;
    };
    expectLoadError(edited("\"time\": 0.5695", "\"time\": -2.0"), {"shove", "0 s or later"});
    expectLoadError(edited("0.05,", "[0.05, 1],"), {"shove"});
    expectLoadError(edited("0.05,", "500.0,"), {"shove", "at most 100 m/s"});
  }
  p.controllers[0].shove = {0.5, Vec3(0, std::nan(""), 0)};
  EXPECT_THROW(p.validate("nan shove"), InputError);
  p.controllers[0].shove = {};

  // A window whose targets do not cover the skeleton is named.
  p.controllers[0].windows[1].targets.pop_back();
  EXPECT_THROW(p.validate("short window"), InputError);
}

TEST(ProjectFile, RodBodiesRoundTrip) {
  const TempDir dir;
  // The generated arm: a painted, viperized muscle pinned to two bones.
  const Project p = examples::makeArmProject();
  ASSERT_EQ(p.rodBodies.size(), 1u);
  const RodBodyObject& b = p.rodBodies[0];
  EXPECT_EQ(b.rods.size(), 5u);
  EXPECT_FALSE(b.paint.empty());
  EXPECT_FALSE(b.bundles.empty());
  const std::string path = dir.file("arm.sinew");
  saveProject(p, path);
  const Project back = loadProject(path);
  ASSERT_EQ(back.rodBodies.size(), 1u);
  EXPECT_TRUE(back.rodBodies[0] == b);
  saveProject(back, dir.file("again.sinew"));
  EXPECT_EQ(readBytes(dir.file("again.sinew")), readBytes(path));
  // The octopus (no paint, no pins, rods without contractile weights).
  const Project o = examples::makeOctopusProject(2);
  saveProject(o, dir.file("octopus.sinew"));
  EXPECT_TRUE(loadProject(dir.file("octopus.sinew")).rodBodies == o.rodBodies);
  // Inconsistent bodies are named.
  Project bad = p;
  bad.rodBodies[0].pins.push_back({7, 0, "UpperArm"});
  EXPECT_THROW(bad.validate("bad pin"), InputError);
  bad = p;
  bad.rodBodies[0].pins[0].bone = "Tail";
  try {
    bad.validate("ctx");
    ADD_FAILURE() << "accepted a pin on a missing bone";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'Tail'"), std::string::npos) << e.what();
  }
  bad = p;
  bad.rodBodies[0].rods[2].radii[1] = -1;
  EXPECT_THROW(bad.validate("negative radius"), InputError);
  bad = p;
  bad.rodBodies[0].paint.pop_back();
  EXPECT_THROW(bad.validate("short paint"), InputError);
}

TEST(ProjectFile, CorruptedBlobIsNamed) {
  const TempDir dir;
  const std::string path = dir.file("p.sinew");
  saveProject(sampleProject(), path);
  // Flip one byte in the middle of the largest blob (the clip values).
  std::string largest;
  size_t size = 0;
  for (const auto& [name, bytes] : dataFiles(path))
    if (bytes.size() > size) {
      size = bytes.size();
      largest = name;
    }
  const std::string file = projectDataDir(path) + "/" + largest;
  std::string bytes = readBytes(file);
  bytes[bytes.size() / 2] ^= 0x20;
  writeBytes(file, bytes);
  expectLoadError(path, {path, largest, "corrupted"});
  // Truncated instead: the size check names it too.
  writeBytes(file, bytes.substr(0, bytes.size() - 8));
  expectLoadError(path, {largest, "bytes, expected"});
}

TEST(ProjectFile, MissingBlobIsNamed) {
  const TempDir dir;
  const std::string path = dir.file("p.sinew");
  saveProject(sampleProject(), path);
  const auto blobs = dataFiles(path);
  const std::string victim = blobs.begin()->first;
  test::fs::remove(projectDataDir(path) + "/" + victim);
  expectLoadError(path, {path, "missing data file", victim});
  // The whole data directory gone.
  test::fs::remove_all(projectDataDir(path));
  expectLoadError(path, {path, "missing data file"});
}

TEST(ProjectFile, TruncatedOrForeignJson) {
  const TempDir dir;
  const std::string path = dir.file("p.sinew");
  saveProject(sampleProject(), path);
  const std::string json = readBytes(path);
  writeBytes(path, json.substr(0, json.size() / 2));
  expectLoadError(path, {path, "not valid JSON"});
  writeBytes(path, "");
  expectLoadError(path, {path, "empty"});
  writeBytes(path, "[1, 2, 3]");
  expectLoadError(path, {path, "not a Sinew project"});
  writeBytes(path, "{\"format\": \"sinew-project\"}");
  expectLoadError(path, {path, "no format version"});
  writeBytes(path, "{\"format\": \"sinew-project\", \"version\": 2, \"name\": 7, \"nextId\": 1, \"meshes\": [], \"clips\": []}");
  expectLoadError(path, {path, "'name' has the wrong type"});
  writeBytes(path, "{\"format\": \"sinew-project\", \"version\": 0}");
  expectLoadError(path, {path, "invalid project format version 0"});
  expectLoadError(dir.file("nothing-here.sinew"), {"nothing-here.sinew", "no such file"});
}

// A v2 document with one mesh "tri" whose positions come from a blob
// reference `positions` (JSON text) and whose triangles are inline.
std::string docWithPositions(const std::string& positions, const std::string& triangles = "[[0, 1, 2]]") {
  return "{\"format\": \"sinew-project\", \"version\": 2, \"name\": \"t\", \"nextId\": 2, \"clips\": [], "
         "\"meshes\": [{\"id\": 1, \"name\": \"tri\", \"positions\": " +
         positions + ", \"triangles\": " + triangles + "}]}";
}

// Writes `values` as a blob of the project at `path`; returns its name.
std::string writeBlob(const std::string& path, const std::vector<double>& values) {
  const std::string bytes(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
  const std::string name = toHex64(fnv1a64(bytes.data(), bytes.size())) + ".bin";
  test::fs::create_directories(projectDataDir(path));
  writeBytes(projectDataDir(path) + "/" + name, bytes);
  return name;
}

TEST(ProjectFile, HandWrittenBlobReference) {
  const TempDir dir;
  const std::string path = dir.file("p.sinew");
  const std::string blob = writeBlob(path, {0, 0, 0, 1, 0, 0, 0, 1, 0});
  writeBytes(path, docWithPositions("{\"blob\": \"" + blob + "\", \"type\": \"f64\", \"shape\": [3, 3]}"));
  const Project p = loadProject(path);
  ASSERT_EQ(p.meshes.size(), 1u);
  EXPECT_EQ(p.meshes[0].mesh.positions, (std::vector<Vec3>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}));
  // Wrong element type, bad blob names, and indices out of range are refused.
  writeBytes(path, docWithPositions("{\"blob\": \"" + blob + "\", \"type\": \"i32\", \"shape\": [3, 3]}"));
  expectLoadError(path, {"blob type 'i32', expected 'f64'"});
  writeBytes(path, docWithPositions("{\"blob\": \"../../etc/passwd\", \"type\": \"f64\", \"shape\": [3, 3]}"));
  expectLoadError(path, {"invalid blob name"});
  writeBytes(path, docWithPositions("{\"blob\": \"" + blob + "\", \"type\": \"f64\", \"shape\": [3, 3]}", "[[0, 1, 3]]"));
  expectLoadError(path, {path, "mesh 'tri' has a face index out of range"});
  writeBytes(path, docWithPositions("[[0, 0, 0], [1, 0], [0, 1, 0]]"));
  expectLoadError(path, {"inline row has 2 values, expected 3"});
}

TEST(ProjectFile, AbsurdBlobShapesAreRefused) {
  const TempDir dir;
  const std::string path = dir.file("p.sinew");
  const std::string nine = writeBlob(path, {0, 0, 0, 1, 0, 0, 0, 1, 0});
  const std::string ten = writeBlob(path, {0, 0, 0, 1, 0, 0, 0, 1, 0, 5});
  auto ref = [](const std::string& blob, const std::string& shape) {
    return "{\"blob\": \"" + blob + "\", \"type\": \"f64\", \"shape\": " + shape + "}";
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {nine, "[1000000000000, 3]"},                                 // terabytes
      {nine, "[18446744073709551615, 3]"},                          // size_t max
      {nine, "[-1, 3]"},                                            // negative
      {nine, "[3, 4]"},                                             // wrong row width
      {nine, "\"nine\""},                                           // not an array
      {nine, "[]"},                                                 // no dimensions
      {nine, "[1.5, 3]"},                                           // not an integer
      {nine, "[12884901891, 18446744069414584321, 3]"},             // product overflows to 9
      {ten, "[10]"},                                                // 10 doubles are not whole rows of 3
  };
  for (const auto& [blob, shape] : cases) {
    SCOPED_TRACE("shape " + shape);
    writeBytes(path, docWithPositions(ref(blob, shape)));
    expectLoadError(path, {path, "mesh 'tri' positions"});
  }
}

}  // namespace
}  // namespace sinew
