#include "FuzzTargets.h"

#include "core/Error.h"
#include "core/Hash.h"
#include "io/Bvh.h"
#include "io/FileUtil.h"
#include "io/ProjectFile.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace sinew::fuzz {

namespace fs = std::filesystem;

namespace {

// SINEW_FUZZ_VERBOSE=1: why an input was refused, on stderr.
bool refused(const InputError& e) {
  if (std::getenv("SINEW_FUZZ_VERBOSE")) std::fprintf(stderr, "refused: %s\n", e.what());
  return false;
}

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A scratch folder of this process for the project targets.
const fs::path& scratch() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("sinew-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(d / "p.sinew.data");
    return d;
  }();
  return dir;
}

void write(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

}  // namespace

bool bvh(const uint8_t* data, size_t size) {
  try {
    (void)parseBvh(std::string(reinterpret_cast<const char*>(data), size), "fuzz.bvh");
    return true;
  } catch (const InputError& e) {
    return refused(e);
  }
}

bool projectJson(const uint8_t* data, size_t size) {
  static const bool blobsCopied = [] {
    for (const char* project : {"humanoid", "humanoid-walk"})
      for (const auto& e : fs::directory_iterator(fs::path(SINEW_SOURCE_DIR) / "projects/humanoid" / (std::string(project) + ".sinew.data")))
        if (e.path().extension() == ".bin")
          fs::copy_file(e.path(), scratch() / "p.sinew.data" / e.path().filename(), fs::copy_options::overwrite_existing);
    return true;
  }();
  (void)blobsCopied;
  const fs::path doc = scratch() / "p.sinew";
  write(doc, std::string(reinterpret_cast<const char*>(data), size));
  try {
    (void)loadProject(doc.string());
    return true;
  } catch (const InputError& e) {
    return refused(e);
  }
}

bool blob(const uint8_t* data, size_t size) {
  // Split: positions (doubles, rows of 3) first, triangles (int32, rows of 3) after.
  const size_t split = (size / 2) / 24 * 24;
  const std::string positions(reinterpret_cast<const char*>(data), split);
  std::string triangles(reinterpret_cast<const char*>(data) + split, size - split);
  triangles.resize(triangles.size() / 12 * 12);
  auto named = [](const std::string& bytes) { return toHex64(fnv1a64(bytes.data(), bytes.size())) + ".bin"; };
  const fs::path dir = scratch() / "b.sinew.data";
  fs::create_directories(dir);
  write(dir / named(positions), positions);
  write(dir / named(triangles), triangles);
  const std::string doc =
      "{\"format\": \"sinew-project\", \"version\": 3, \"name\": \"fuzz\", \"nextId\": 2, \"clips\": [], \"volumes\": [],"
      " \"meshes\": [{\"id\": 1, \"name\": \"m\", \"visible\": true, \"source\": \"\","
      " \"positions\": {\"blob\": \"" + named(positions) + "\", \"type\": \"f64\", \"shape\": [" +
      std::to_string(split / 24) + ", 3]},"
      " \"triangles\": {\"blob\": \"" + named(triangles) + "\", \"type\": \"i32\", \"shape\": [" +
      std::to_string(triangles.size() / 12) + ", 3]}}]}";
  write(scratch() / "b.sinew", doc);
  bool accepted = false;
  try {
    (void)loadProject((scratch() / "b.sinew").string());
    accepted = true;
  } catch (const InputError& e) {
    refused(e);
  }
  fs::remove(dir / named(positions));
  fs::remove(dir / named(triangles));
  return accepted;
}

std::vector<std::string> seeds(const std::string& target) {
  std::vector<std::string> out;
  if (target == "bvh") {
    for (const char* f : {"BVH/01_01.bvh", "BVH/Boxing_Toes.bvh", "BVH/RotationCube.bvh"}) {
      const fs::path p = fs::path("/usr/share/assimp/models") / f;
      if (fs::exists(p)) out.push_back(readAll(p));
    }
  } else if (target == "project") {
    for (const char* f : {"projects/humanoid/humanoid.sinew", "projects/humanoid/humanoid-walk.sinew"})
      out.push_back(readAll(fs::path(SINEW_SOURCE_DIR) / f));
  } else if (target == "blob") {
    // A real mesh's positions and triangles, concatenated as the target splits them.
    const Project p = loadProject(std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid.sinew");
    const TriMesh& m = p.meshes.at(0).mesh;
    const size_t n = std::min<size_t>(m.positions.size(), 200);
    std::string bytes(reinterpret_cast<const char*>(m.positions.data()), n * 24);
    std::string valid;
    for (const Tri& t : m.triangles)
      if (size_t(std::max({t[0], t[1], t[2]})) < n) valid.append(reinterpret_cast<const char*>(t.data()), 12);
    // As many triangle bytes as position bytes: the target's split falls between them.
    std::string tris;
    while (!valid.empty() && tris.size() < bytes.size()) tris += valid;
    tris.resize(bytes.size());
    out.push_back(bytes + tris);
  }
  return out;
}

}  // namespace sinew::fuzz
