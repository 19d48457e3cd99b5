// The fuzz targets in the regular suite: each seed as it is, then
// deterministic mutations of the seeds (bytes flipped, runs deleted,
// duplicated or replaced by nesting and number bombs) for a few seconds per
// target. A crash, a sanitizer report or an exception other than InputError
// fails the test. The coverage-guided run is scripts/fuzz.sh (libFuzzer).
#include "FuzzTargets.h"

#include "io/ProjectFile.h"

#include <gtest/gtest.h>

#include <chrono>
#include <random>

namespace sinew::fuzz {
namespace {

std::string mutate(std::string s, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return n ? size_t(rng() % n) : 0; };
  static const char* const kBombs[] = {"[[[[[[[[[[[[[[[[", "1e309", "-1e309", "NaN", "\"\\u0000\"", "null", "{}",
                                       "99999999999999999999999", "-0", "\xff\xfe", "Frame Time: 1e-320", "CHANNELS 1000000"};
  const int edits = 1 + int(rng() % 4);
  for (int e = 0; e < edits && !s.empty(); ++e) switch (rng() % 6) {
      case 0: s[pick(s.size())] = char(rng()); break;                                           // flip a byte
      case 1: s.erase(pick(s.size()), 1 + pick(64)); break;                                     // delete a run
      case 2: s.resize(pick(s.size())); break;                                                  // truncate
      case 3: { const size_t a = pick(s.size()); s.insert(pick(s.size()), s.substr(a, 1 + pick(32))); break; }  // duplicate
      case 4: s.insert(pick(s.size()), kBombs[pick(std::size(kBombs))]); break;                // a bomb
      default: { const size_t a = pick(s.size()); if (std::isdigit(uint8_t(s[a]))) s[a] = char('0' + rng() % 10); }  // a digit
    }
  return s;
}

class FuzzSmoke : public ::testing::TestWithParam<Target> {};

TEST_P(FuzzSmoke, SeedsAndMutationsOnlyEverThrowInputError) {
  const Target t = GetParam();
  const std::vector<std::string> corpus = seeds(t.name);
  ASSERT_FALSE(corpus.empty()) << "no seed for " << t.name;
  for (const std::string& s : corpus)
    EXPECT_TRUE(t.run(reinterpret_cast<const uint8_t*>(s.data()), s.size())) << t.name << ": a seed is refused";
  std::mt19937_64 rng(20261126);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(8);
  int runs = 0, accepted = 0;
  for (; runs < 20000 && std::chrono::steady_clock::now() < until; ++runs) {
    const std::string input = mutate(corpus[size_t(runs) % corpus.size()], rng);
    accepted += t.run(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  }
  EXPECT_GT(runs, 20) << t.name;
  std::printf("%s: %d mutated inputs, %d accepted\n", t.name, runs, accepted);
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzSmoke, ::testing::ValuesIn(kTargets),
                         [](const ::testing::TestParamInfo<Target>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace sinew::fuzz
