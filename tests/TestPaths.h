// Where a test finds the source tree and the build, looked up at run time from
// the test executable's own place (build/bin/<test>) and the build's
// CMakeCache.txt. No absolute path is compiled into a test, so ccache serves a
// build of the same sources in any folder (CI builds a fresh clone).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace sinew::test::paths {

// The folder of the running executable: CMAKE_RUNTIME_OUTPUT_DIRECTORY.
inline const std::string& binDir() {
  static const std::string dir = std::filesystem::canonical("/proc/self/exe").parent_path().string();
  return dir;
}

// The build folder, whose bin/ holds every executable (CMakeLists.txt).
inline const std::string& binaryDir() {
  static const std::string dir = std::filesystem::path(binDir()).parent_path().string();
  return dir;
}

// The source tree that build was configured from.
inline const std::string& sourceDir() {
  static const std::string dir = [] {
    const std::string cache = binaryDir() + "/CMakeCache.txt";
    std::ifstream in(cache);
    const std::string key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
    for (std::string line; std::getline(in, line);)
      if (line.compare(0, key.size(), key) == 0) return line.substr(key.size());
    std::fprintf(stderr, "%s: no %s line; a test runs from the bin/ folder of its build\n", cache.c_str(),
                 key.c_str());
    std::exit(2);
  }();
  return dir;
}

}  // namespace sinew::test::paths

#define SINEW_SOURCE_DIR (::sinew::test::paths::sourceDir().c_str())
#define SINEW_BINARY_DIR (::sinew::test::paths::binaryDir().c_str())
#define SINEW_BIN_DIR (::sinew::test::paths::binDir().c_str())
