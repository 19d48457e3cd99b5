// Running sinew-cli from the CLI tests: the binary next to the tests, its
// output captured, a timeout or a signal failing the test.
#pragma once

#include "TestPaths.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace sinew::test {

inline const std::string kCli = std::string(SINEW_BIN_DIR) + "/sinew-cli";

inline ProcessResult runCli(const TempDir& dir, std::vector<std::string> args, double timeoutSeconds) {
  args.insert(args.begin(), kCli);
  ProcessResult r = runProcess(args, dir.path().string(), timeoutSeconds);
  EXPECT_FALSE(r.timedOut) << "sinew-cli timed out after " << timeoutSeconds << " s";
  EXPECT_EQ(r.signal, 0) << "sinew-cli died with signal " << r.signal << "\nstderr:\n" << r.err;
  return r;
}

}  // namespace sinew::test
