// Helpers shared by the Sinew test suites: small meshes, per-test temporary
// directories, file bytes and running child processes. Header-only; depends
// on sinew_sim, GoogleTest and POSIX only (the sanitizer build links nothing
// else into the "unit" and "import" suites).
#pragma once

#include "TestPaths.h"
#include "geometry/TriMesh.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sinew::test {

namespace fs = std::filesystem;

// Assimp's sample files (Debian package assimp-testmodels).
inline const std::string kModels = "/usr/share/assimp/models";
inline std::string model(const std::string& relative) { return kModels + "/" + relative; }

// ---------------------------------------------------------------------------
// Meshes

// Axis-aligned cube [origin, origin + size]^3: 8 vertices, 12 outward triangles.
inline TriMesh cube(const Vec3& origin = Vec3::Zero(), double size = 1.0) {
  TriMesh m;
  for (int i = 0; i < 8; ++i) {
    // 0:(0,0,0) 1:(1,0,0) 2:(1,1,0) 3:(0,1,0) 4:(0,0,1) 5:(1,0,1) 6:(1,1,1) 7:(0,1,1)
    static const int c[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    m.positions.push_back(origin + size * Vec3(c[i][0], c[i][1], c[i][2]));
  }
  m.triangles = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                 {3, 7, 6}, {3, 6, 2}, {0, 4, 7}, {0, 7, 3}, {1, 2, 6}, {1, 6, 5}};
  return m;
}

// Surface of the tetrahedron (p0..p3), oriented outward.
inline TriMesh tetrahedron(const Vec3& p0, const Vec3& p1, const Vec3& p2, const Vec3& p3) {
  TriMesh m;
  m.positions = {p0, p1, p2, p3};
  m.triangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  if (enclosedVolume(m) < 0)
    for (Tri& t : m.triangles) std::swap(t[1], t[2]);
  return m;
}

// Appends b to a (b's indices shifted): two components in one mesh.
inline TriMesh merged(TriMesh a, const TriMesh& b) {
  const auto base = static_cast<int32_t>(a.positions.size());
  a.positions.insert(a.positions.end(), b.positions.begin(), b.positions.end());
  for (const Tri& t : b.triangles) a.triangles.push_back({t[0] + base, t[1] + base, t[2] + base});
  return a;
}

// ---------------------------------------------------------------------------
// Files

// A fresh, empty directory SINEW_BINARY_DIR/test-tmp/<Suite>.<Test>, removed
// again when the test ends.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "misc";
    for (char& ch : name)
      if (ch == '/') ch = '_';
    path_ = fs::path(SINEW_BINARY_DIR) / "test-tmp" / name;
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

inline std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void writeBytes(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

// Regular files directly under `dir`, sorted.
inline std::vector<std::string> filesIn(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

// ---------------------------------------------------------------------------
// Child processes

struct ProcessResult {
  int exitCode = -1;      // exit status, or -1 when killed by a signal
  int signal = 0;         // terminating signal, or 0
  bool timedOut = false;  // killed after `timeoutSeconds`
  std::string out, err;   // captured stdout and stderr
};

// Runs argv[0] (a path) with arguments, stdin from /dev/null, capturing its
// output through files in `scratchDir`; kills it after `timeoutSeconds`.
inline ProcessResult runProcess(const std::vector<std::string>& argv, const std::string& scratchDir,
                                double timeoutSeconds = 60.0) {
  ProcessResult r;
  static int counter = 0;
  const std::string stem = scratchDir + "/.proc" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  const std::string outPath = stem + ".out", errPath = stem + ".err";
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork failed";
    return r;
  }
  if (pid == 0) {
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0) ::_exit(127);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
  int status = 0;
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0) {
      ADD_FAILURE() << "waitpid failed";
      return r;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      r.timedOut = true;
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = readBytes(outPath);
  r.err = readBytes(errPath);
  std::error_code ec;
  fs::remove(outPath, ec);
  fs::remove(errPath, ec);
  return r;
}

}  // namespace sinew::test
