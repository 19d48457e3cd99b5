// Importing real files through Assimp (Assimp's own sample models).
#include "io/AssimpImport.h"

#include "core/Error.h"
#include "io/FileUtil.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <map>

namespace sinew {
namespace {

using test::model;

// The statistics `assimp info FILE -r` prints (no post-processing), by label.
std::map<std::string, unsigned> assimpInfoRaw(const std::string& file, const std::string& scratch) {
  const test::ProcessResult r = test::runProcess({"assimp", "info", file, "-r"}, scratch, 120);
  EXPECT_EQ(r.exitCode, 0) << "assimp info failed on " << file << ":\n" << r.out << r.err;
  static const char* const keys[] = {"Nodes:",    "Maximum depth", "Meshes:", "Animations:",        "Materials:",
                                     "Vertices:", "Faces:",        "Bones:",  "Animation Channels:"};
  std::map<std::string, unsigned> out;
  for (const std::string& line : test::lines(r.out))
    for (const char* key : keys) {
      const std::string k = key;
      if (line.rfind(k, 0) != 0 || out.count(k)) continue;
      // "Meshes:  (name) [...]" heads the per-mesh list later on: only numbers count.
      const std::string rest = line.substr(k.size());
      const size_t digit = rest.find_first_not_of(" \t");
      if (digit == std::string::npos || !std::isdigit(static_cast<unsigned char>(rest[digit]))) continue;
      out[k] = static_cast<unsigned>(std::stoul(rest.substr(digit)));
    }
  return out;
}

class AssimpStatsMatchTool : public ::testing::TestWithParam<const char*> {};

TEST_P(AssimpStatsMatchTool, RawStatisticsEqualAssimpInfo) {
  const test::TempDir dir;
  const std::string file = model(GetParam());
  const auto expected = assimpInfoRaw(file, dir.path().string());
  ASSERT_EQ(expected.size(), 9u) << "could not parse `assimp info " << file << " -r`";
  ImportOptions o;
  o.checkSelfIntersections = false;  // not what this test is about; keeps it quick
  const ImportResult r = importFile(file, o);
  const AssimpStats& s = r.assimp;
  EXPECT_EQ(s.nodes, expected.at("Nodes:"));
  EXPECT_EQ(s.maxDepth, expected.at("Maximum depth"));
  EXPECT_EQ(s.meshes, expected.at("Meshes:"));
  EXPECT_EQ(s.animations, expected.at("Animations:"));
  EXPECT_EQ(s.materials, expected.at("Materials:"));
  EXPECT_EQ(s.vertices, expected.at("Vertices:"));
  EXPECT_EQ(s.faces, expected.at("Faces:"));
  EXPECT_EQ(s.bones, expected.at("Bones:"));
  EXPECT_EQ(s.animationChannels, expected.at("Animation Channels:"));
  // And the post-processed import produced something usable.
  EXPECT_FALSE(r.empty());
  for (const ImportedMesh& m : r.meshes) {
    EXPECT_FALSE(hasInvalidIndices(m.mesh)) << m.name;
    EXPECT_GT(m.mesh.triangleCount(), 0u) << m.name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Files, AssimpStatsMatchTool,
    ::testing::Values("OBJ/box.obj", "OBJ/spider.obj", "OBJ/box_mat_with_spaces.obj", "FBX/huesitos.fbx",
                      "FBX/spider.fbx", "FBX/box.fbx", "glTF2/BoxTextured-glTF/BoxTextured.gltf",
                      "glTF2/BoxTextured-glTF-Embedded/BoxTextured.gltf",
                      "glTF2/BoxTexcoords-glTF/boxTexcoords.gltf", "glTF2/BoxTextured-glTF-Binary/BoxTextured.glb",
                      "glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb", "Collada/duck.dae",
                      "Collada/sphere.dae", "PLY/cube.ply", "PLY/cube_binary.ply", "STL/Spider_binary.stl",
                      "STL/Spider_ascii.stl", "STL/sphereWithHole.stl", "X/test.x", "X/anim_test.x",
                      "BVH/01_01.bvh"),
    [](const ::testing::TestParamInfo<const char*>& info) {
      std::string n = info.param;
      for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return n;
    });

TEST(AssimpImport, SkinnedFbxGivesSkeletonAndNormalizedWeights) {
  const ImportResult r = importFile(model("FBX/huesitos.fbx"));
  ASSERT_TRUE(r.skeleton.has_value());
  const Skeleton& s = *r.skeleton;
  EXPECT_EQ(s.size(), 9u);
  EXPECT_NO_THROW(s.validate("huesitos"));
  ASSERT_EQ(r.meshes.size(), 1u);
  const ImportedMesh& m = r.meshes[0];
  ASSERT_TRUE(m.skin.has_value());
  const SkinWeights& w = *m.skin;
  EXPECT_NO_THROW(w.validate("huesitos", m.mesh.vertexCount()));
  EXPECT_EQ(w.vertexCount(), m.mesh.vertexCount());
  for (const std::string& b : w.bones) EXPECT_GE(s.find(b), 0) << "bone '" << b << "' is not a joint";
  size_t weighted = 0;
  for (size_t v = 0; v + 1 < w.offsets.size(); ++v) {
    if (w.offsets[v] == w.offsets[v + 1]) continue;
    ++weighted;
    double sum = 0;
    for (int32_t i = w.offsets[v]; i < w.offsets[v + 1]; ++i) {
      EXPECT_GT(w.weight[i], 0.0);
      sum += w.weight[i];
    }
    EXPECT_NEAR(sum, 1.0, 1e-12) << "vertex " << v;
  }
  EXPECT_EQ(weighted, m.mesh.vertexCount());  // every vertex of this model is skinned
  // The welded tube is a closed surface.
  ASSERT_TRUE(m.report.has_value());
  EXPECT_TRUE(m.report->watertight());
  // Joints are placed along the mesh: inside its bounding box (grown a little).
  Aabb box = m.mesh.bounds();
  box.min.array() -= 0.1 * box.diagonal();
  box.max.array() += 0.1 * box.diagonal();
  for (const Vec3& p : s.restPositions()) EXPECT_TRUE(box.overlaps(Aabb{p, p})) << p.transpose();
}

TEST(AssimpImport, WeldingMergesDuplicatedCorners) {
  // box.obj stores each of the 6 quads with its own 4 corners: 24 vertices.
  const ImportResult welded = importFile(model("OBJ/box.obj"));
  ASSERT_EQ(welded.meshes.size(), 1u);
  const ImportedMesh& m = welded.meshes[0];
  EXPECT_EQ(m.sourceVertices, 24u);
  EXPECT_EQ(m.mesh.vertexCount(), 8u);
  EXPECT_EQ(m.weldedVertices, 16u);
  EXPECT_EQ(m.mesh.triangleCount(), 12u);
  ASSERT_TRUE(m.report.has_value());
  EXPECT_TRUE(m.report->watertight());
  EXPECT_NEAR(enclosedVolume(m.mesh), 1.0, 1e-6);  // a unit cube, outward

  ImportOptions keep;
  keep.weld = false;
  const ImportResult raw = importFile(model("OBJ/box.obj"), keep);
  ASSERT_EQ(raw.meshes.size(), 1u);
  EXPECT_EQ(raw.meshes[0].mesh.vertexCount(), 24u);
  EXPECT_EQ(raw.meshes[0].weldedVertices, 0u);
  ASSERT_TRUE(raw.meshes[0].report.has_value());
  EXPECT_FALSE(raw.meshes[0].report->closed());  // 6 separate quads
  EXPECT_EQ(raw.meshes[0].report->componentCount, 6u);

  // Spider STL: a triangle soup, all corners duplicated.
  const ImportResult stl = importFile(model("STL/Spider_binary.stl"));
  ASSERT_EQ(stl.meshes.size(), 1u);
  EXPECT_EQ(stl.meshes[0].sourceVertices, 3 * stl.meshes[0].mesh.triangleCount());
  EXPECT_LT(stl.meshes[0].mesh.vertexCount(), stl.meshes[0].sourceVertices / 3);
}

TEST(AssimpImport, ScaleAndMergeOptions) {
  ImportOptions o;
  o.scale = 0.01;
  const ImportResult r = importFile(model("OBJ/box.obj"), o);
  ASSERT_EQ(r.meshes.size(), 1u);
  EXPECT_NEAR(r.meshes[0].mesh.bounds().diagonal(), 0.01 * std::sqrt(3.0), 1e-9);

  const ImportResult parts = importFile(model("OBJ/spider.obj"));
  EXPECT_EQ(parts.meshes.size(), 19u);
  ImportOptions m;
  m.grouping = MeshGrouping::All;
  const ImportResult one = importFile(model("OBJ/spider.obj"), m);
  ASSERT_EQ(one.meshes.size(), 1u);
  EXPECT_EQ(one.meshes[0].name, "spider");
  size_t triangles = 0;
  for (const ImportedMesh& p : parts.meshes) triangles += p.mesh.triangleCount();
  EXPECT_EQ(one.meshes[0].mesh.triangleCount(), triangles);

  o.scale = -1;
  EXPECT_THROW(importFile(model("OBJ/box.obj"), o), InputError);
}

TEST(AssimpImport, MeshScaleLeavesClipUnitsAloneClipScaleSetsThem) {
  ImportOptions o;
  o.scale = 0.01;  // centimetre meshes: clips still detect their own units
  const ImportResult detected = importFile(model("BVH/01_01.bvh"), o);
  ASSERT_EQ(detected.clips.size(), 1u);
  EXPECT_EQ(detected.clips[0].units, "cmu");
  o.clipScale = 0.02;
  const ImportResult forced = importFile(model("BVH/01_01.bvh"), o);
  EXPECT_EQ(forced.clips[0].unitScale, 0.02);
  o.clipScale = -1;
  EXPECT_THROW(importFile(model("BVH/01_01.bvh"), o), InputError);
}

TEST(AssimpImport, BvhBecomesAClip) {
  const ImportResult r = importFile(model("BVH/01_01.bvh"));
  EXPECT_EQ(r.format, "bvh");
  ASSERT_EQ(r.clips.size(), 1u);
  EXPECT_EQ(r.clips[0].frameCount, 2752);
  EXPECT_EQ(r.clips[0].joints.size(), 31u);
  EXPECT_EQ(r.clips[0].units, "cmu");
  EXPECT_TRUE(r.meshes.empty());
  // Adding to a project keeps the clip.
  Project p;
  Diagnostics d;
  const auto ids = addToProject(p, r, d);
  ASSERT_EQ(ids.size(), 1u);
  ASSERT_EQ(p.clips.size(), 1u);
  EXPECT_EQ(p.clips[0].id, ids[0]);
  EXPECT_EQ(p.clips[0].source, model("BVH/01_01.bvh"));
  EXPECT_NO_THROW(p.validate("p"));
}

TEST(AssimpImport, AddToProjectKeepsFirstSkeleton) {
  Project p;
  Diagnostics d;
  const auto first = addToProject(p, importFile(model("FBX/huesitos.fbx")), d);
  EXPECT_EQ(first.size(), 3u);  // mesh, skeleton, and the file's animation as a clip
  ASSERT_TRUE(p.skeleton.has_value());
  const Skeleton before = p.skeleton->skeleton;
  const auto second = addToProject(p, importFile(model("FBX/huesitos.fbx")), d);
  EXPECT_EQ(second.size(), 2u);  // mesh and clip, no second skeleton
  EXPECT_EQ(p.meshes.size(), 2u);
  EXPECT_TRUE(p.skeleton->skeleton == before);
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d.back().severity, Severity::Warning);
  EXPECT_NE(d.back().message.find("already has a skeleton"), std::string::npos);
  EXPECT_NO_THROW(p.validate("p"));
  // Ids are unique and below nextId.
  EXPECT_NE(p.meshes[0].id, p.meshes[1].id);
}

class InvalidFiles : public ::testing::TestWithParam<std::string> {};

TEST_P(InvalidFiles, ThrowInputErrorNamingTheFile) {
  const std::string file = GetParam();
  try {
    const ImportResult r = importFile(file);
    ADD_FAILURE() << file << " was imported: " << r.meshes.size() << " meshes";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(test::fs::path(file).filename().string()), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "not one line: " << msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << file << ": wrong exception type: " << e.what();
  }
}

std::vector<std::string> invalidFiles() { return test::filesIn(model("invalid")); }

TEST(AssimpImport, InvalidDirectoryIsThere) { EXPECT_GE(invalidFiles().size(), 10u); }

INSTANTIATE_TEST_SUITE_P(AssimpInvalidDir, InvalidFiles, ::testing::ValuesIn(invalidFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = test::fs::path(info.param).filename().string();
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(AssimpImport, TruncatedAndUnsupportedFiles) {
  const test::TempDir dir;
  // A real .glb cut in half.
  const std::string glb = test::readBytes(model("glTF2/BoxTextured-glTF-Binary/BoxTextured.glb"));
  const std::string half = dir.file("half.glb");
  test::writeBytes(half, glb.substr(0, glb.size() / 2));
  EXPECT_THROW(importFile(half), InputError);
  // A binary STL whose header promises more triangles than the file holds.
  const std::string stl = test::readBytes(model("STL/Spider_binary.stl"));
  const std::string cut = dir.file("cut.stl");
  test::writeBytes(cut, stl.substr(0, stl.size() - 100));
  EXPECT_THROW(importFile(cut), InputError);
  // Unknown extension, no extension, missing, empty, a directory.
  test::writeBytes(dir.file("notes.xyz123"), "hello");
  test::writeBytes(dir.file("noext"), "hello");
  test::writeBytes(dir.file("empty.obj"), "");
  for (const std::string& f : {dir.file("notes.xyz123"), dir.file("noext"), dir.file("missing.obj"),
                               dir.file("empty.obj"), dir.path().string()}) {
    try {
      importFile(f);
      ADD_FAILURE() << f << " imported";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), f);
    }
  }
}

TEST(AssimpImport, ImportableExtensions) {
  const std::vector<std::string> ext = importExtensions();
  for (const char* e : {"obj", "fbx", "gltf", "glb", "dae", "ply", "stl", "x", "bvh"})
    EXPECT_NE(std::find(ext.begin(), ext.end(), e), ext.end()) << e;
  EXPECT_TRUE(std::is_sorted(ext.begin(), ext.end()));
  EXPECT_TRUE(isImportable("A/B/C.OBJ"));
  EXPECT_FALSE(isImportable("notes.txt"));
}

TEST(AssimpImport, ExportAndReimportKeepsTheSurface) {
  const test::TempDir dir;
  MeshObject o;
  o.name = "cube";
  o.mesh = test::cube(Vec3(0.25, 0.5, -1), 0.5);
  for (const char* ext : {"obj", "stl", "ply", "glb"}) {
    const std::string path = dir.file(std::string("cube.") + ext);
    exportMeshes({&o}, path);
    const ImportResult r = importFile(path);
    ASSERT_EQ(r.meshes.size(), 1u) << ext;
    const TriMesh& m = r.meshes[0].mesh;
    EXPECT_EQ(m.vertexCount(), 8u) << ext;
    EXPECT_EQ(m.triangleCount(), 12u) << ext;
    EXPECT_NEAR(enclosedVolume(m), 0.125, 1e-6) << ext;
    EXPECT_TRUE(r.meshes[0].report->watertight()) << ext;
  }
  EXPECT_THROW(exportMeshes({&o}, dir.file("cube.nosuchformat")), InputError);
  EXPECT_THROW(exportMeshes({}, dir.file("nothing.obj")), InputError);
}

}  // namespace
}  // namespace sinew
