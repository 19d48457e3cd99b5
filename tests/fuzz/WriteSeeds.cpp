// fuzz_seeds TARGET DIR: writes TARGET's seed corpus (FuzzTargets.h) into DIR
// as seed-0, seed-1, ... for libFuzzer (scripts/fuzz.sh).
#include "FuzzTargets.h"

#include <cstdio>
#include <fstream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: fuzz_seeds TARGET DIR\n");
    return 1;
  }
  const std::vector<std::string> seeds = sinew::fuzz::seeds(argv[1]);
  for (size_t i = 0; i < seeds.size(); ++i) {
    std::ofstream out(std::string(argv[2]) + "/seed-" + std::to_string(i), std::ios::binary);
    out.write(seeds[i].data(), std::streamsize(seeds[i].size()));
    if (!out) return 2;
  }
  std::printf("%zu seed(s) for %s\n", seeds.size(), argv[1]);
  return seeds.empty() ? 2 : 0;
}
