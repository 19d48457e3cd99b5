// Damaged real files: every mesh format Assimp reads, truncated at several
// points and with bytes overwritten (fixed seed), through `sinew-cli info
// --json`. Each must give exit 0 (the damage was harmless) or exit 2 with one
// line naming the file; never a crash, a hang, or invalid JSON. Files that
// crash or hang Assimp's own loaders (fuzzed .ASE, .x, .ac, .smd files did)
// must be caught by the importer's child process.
#include "TestPaths.h"
#include "TestUtil.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <random>

namespace sinew {
namespace {

using test::ProcessResult;
using test::TempDir;

// A few files per format (small ones, so the test stays quick).
std::vector<std::string> sampleFiles() {
  const std::vector<std::string> picks = {
      "OBJ/box.obj",          "OBJ/spider.obj",        "PLY/cube.ply",         "PLY/cube_binary.ply",
      "PLY/Wuson.ply",        "OFF/Cube.off",          "STL/Spider_binary.stl", "STL/Spider_ascii.stl",
      "FBX/huesitos.fbx",     "FBX/box.fbx",           "Collada/duck.dae",     "X/test.x",
      "X/fromtruespace_bin32.x", "X/test_cube_compressed.x", "ASE/MotionCaptureROM.ase", "ASE/TestUVTransform/UVTransform_ScaleUV2x.ASE", "AC/Wuson.ac",
      "SMD/holy_grailref.smd", "BVH/01_01.bvh",        "glTF2/BoxTextured-glTF-Binary/BoxTextured.glb",
      "3DS/fels.3ds",          "MD2/faerie.md2",       "MS3D/jeep1.ms3d",      "LWO/LWO2/box_2uv_1unused.lwo"};
  std::vector<std::string> out;
  for (const std::string& p : picks)
    if (test::fs::exists(test::model(p))) out.push_back(test::model(p));
  return out;
}

TEST(HostileFiles, TruncatedAndCorruptedFilesFailCleanly) {
  const TempDir dir;
  const std::vector<std::string> files = sampleFiles();
  ASSERT_GE(files.size(), 15u) << "assimp-testmodels is missing files";
  std::mt19937 rng(20261122);
  int rejected = 0, accepted = 0;
  for (const std::string& file : files) {
    const std::string data = test::readBytes(file);
    const std::string name = test::fs::path(file).filename().string();
    std::vector<std::pair<std::string, std::string>> variants;
    for (double f : {0.2, 0.5, 0.8, 0.97}) variants.push_back({"trunc" + std::to_string(int(f * 100)) + "_" + name,
                                                                data.substr(0, size_t(f * data.size()))});
    for (int k = 0; k < 3; ++k) {
      std::string d = data;
      std::uniform_int_distribution<size_t> at(0, d.size() - 1);
      for (size_t n = 0; n < std::max<size_t>(1, d.size() / 300); ++n) d[at(rng)] = char(rng() & 0xff);
      variants.push_back({"flip" + std::to_string(k) + "_" + name, d});
    }
    for (const auto& [variant, bytes] : variants) {
      const std::string path = dir.file(variant);
      test::writeBytes(path, bytes);
      const ProcessResult r =
          test::runProcess({std::string(SINEW_BIN_DIR) + "/sinew-cli", "info", "--json", path}, dir.path().string(), 120);
      ASSERT_FALSE(r.timedOut) << variant << " hung sinew-cli";
      ASSERT_EQ(r.signal, 0) << variant << " crashed sinew-cli (signal " << r.signal << ")";
      if (r.exitCode == 0) {
        ++accepted;
        EXPECT_FALSE(nlohmann::json::parse(r.out, nullptr, false).is_discarded()) << variant << ": invalid JSON";
      } else {
        ++rejected;
        EXPECT_EQ(r.exitCode, 2) << variant << ": " << r.err;
        EXPECT_EQ(test::lines(r.err).size(), 1u) << variant << ": " << r.err;
        EXPECT_NE(r.err.find(path), std::string::npos) << variant << ": " << r.err;
      }
    }
  }
  RecordProperty("accepted", accepted);
  RecordProperty("rejected", rejected);
  EXPECT_GT(rejected, 40) << "the damage should make most files unreadable";
}

// Single-byte edits of real files, found by fuzzing and minimised, that crash
// Assimp 5.2's ASE loader (a segfault) and make its .x loader allocate without
// bound. Read in-process they would kill sinew-cli (or the GUI) or exhaust the
// machine; the importer's child process turns them into exit code 2.
TEST(HostileFiles, KnownLoaderCrashAndMemoryBomb) {
  const TempDir dir;
  struct Case {
    const char* source;
    size_t offset;
    char value;
    const char* name;
  };
  const Case cases[] = {{"ASE/TestUVTransform/UVTransform_ScaleUV2x.ASE", 3173, '{', "crash.ASE"},
                        {"X/test_cube_compressed.x", 558, char(204), "bomb.x"}};
  for (const Case& c : cases) {
    std::string data = test::readBytes(test::model(c.source));
    ASSERT_GT(data.size(), c.offset) << c.source;
    data[c.offset] = c.value;
    const std::string path = dir.file(c.name);
    test::writeBytes(path, data);
    const ProcessResult r =
        test::runProcess({std::string(SINEW_BIN_DIR) + "/sinew-cli", "info", path}, dir.path().string(), 120);
    ASSERT_FALSE(r.timedOut) << c.name;
    ASSERT_EQ(r.signal, 0) << c.name << " crashed sinew-cli";
    EXPECT_EQ(r.exitCode, 2) << c.name << ": " << r.err;
    EXPECT_EQ(test::lines(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace sinew
