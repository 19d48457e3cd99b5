// The fuzz targets: Sinew's readers of untrusted bytes, each taking any input
// and either accepting it (true) or refusing it with InputError (false). Anything else (a crash, a
// sanitizer report, another exception, a hang) is a bug. Run by libFuzzer
// (scripts/fuzz.sh, a clang build: tests/fuzz/LibFuzzerMain.cpp) and, in the
// regular suite, by FuzzSmokeTest over the seed corpus and deterministic
// mutations of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sinew::fuzz {

// The BVH parser (io/Bvh.h) on the bytes as a file's text.
bool bvh(const uint8_t* data, size_t size);
// The project reader (io/ProjectFile.h) on the bytes as a project document
// (its data folder holds the shipped example's blobs).
bool projectJson(const uint8_t* data, size_t size);
// The project reader on the bytes as the contents of a mesh's blobs: the
// first part as vertex positions, the rest as triangles, each named by its
// hash so that the reader's own checks (shape, size, indices, finite
// numbers) see them.
bool blob(const uint8_t* data, size_t size);

struct Target {
  const char* name;
  bool (*run)(const uint8_t*, size_t);
};
inline constexpr Target kTargets[] = {{"bvh", bvh}, {"project", projectJson}, {"blob", blob}};

// The seed corpus of a target: real files (assimp-testmodels' BVH clips, the
// shipped projects' documents and blobs).
std::vector<std::string> seeds(const std::string& target);

}  // namespace sinew::fuzz
