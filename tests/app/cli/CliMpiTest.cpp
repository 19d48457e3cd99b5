// mpirun -np 2 sinew-cli optimize gives the controller of the threaded run,
// bit for bit (the MPI evaluator: app/cli/MpiEvaluator.h), refinement rounds
// scored shoves (both runs' cost terms sent) and the tangent (the twins of the
// kept states sent with them) included.
#include "TestPaths.h"
#include "TestUtil.h"
#include "io/ProjectFile.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace sinew {
namespace {

using json = nlohmann::json;
using test::ProcessResult;
using test::TempDir;

TEST(CliMpi, TwoRanksEqualTheThreadedRun) {
  const TempDir dir;
  const std::string cli = std::string(SINEW_BIN_DIR) + "/sinew-cli";
  const std::string project = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew";
  auto args = [&](const std::string& out) {
    return std::vector<std::string>{cli, "optimize", project, "--clip", "/usr/share/assimp/models/BVH/01_01.bvh",
                                    "--start", "0.1", "--end", "0.3", "--samples", "6", "--rounds", "2", "--keep", "2", "--seed", "11", "--score-shove", "0.1", "--tangent-weight", "0.05",
                                    "-o", dir.file(out + ".sinew"), "--stats-json", dir.file(out + ".json"), "--name", "c"};
  };
  std::vector<std::string> threaded = args("threads");
  threaded.insert(threaded.end(), {"--threads", "2"});
  const ProcessResult t = test::runProcess(threaded, dir.path().string(), 300);
  ASSERT_EQ(t.exitCode, 0) << t.out << t.err;

  std::vector<std::string> mpi = {SINEW_MPIEXEC, "-np", "2", "--oversubscribe", "--allow-run-as-root"};
  const std::vector<std::string> rest = args("mpi");
  mpi.insert(mpi.end(), rest.begin(), rest.end());
  const ProcessResult m = test::runProcess(mpi, dir.path().string(), 300);
  ASSERT_EQ(m.exitCode, 0) << m.out << m.err;
  // Rank 0 alone reports.
  EXPECT_NE(m.out.find("2 MPI rank(s)"), std::string::npos) << m.out;
  size_t finished = 0;
  for (size_t at = m.out.find("finished:"); at != std::string::npos; at = m.out.find("finished:", at + 1)) ++finished;
  EXPECT_EQ(finished, 1u) << m.out;

  const json a = json::parse(test::readBytes(dir.file("threads.json")));
  const json b = json::parse(test::readBytes(dir.file("mpi.json")));
  EXPECT_EQ(b["mpi_ranks"], 2);
  EXPECT_EQ(a["samples_evaluated"], b["samples_evaluated"]);
  ASSERT_EQ(a["windows"].size(), b["windows"].size());
  for (size_t w = 0; w < a["windows"].size(); ++w) {
    EXPECT_EQ(a["windows"][w]["cost"].get<double>(), b["windows"][w]["cost"].get<double>()) << "window " << w;
    EXPECT_EQ(a["windows"][w]["fallen_samples"], b["windows"][w]["fallen_samples"]);
    EXPECT_EQ(a["windows"][w]["shoved_cost"].get<double>(), b["windows"][w]["shoved_cost"].get<double>());
    EXPECT_GT(b["windows"][w]["shoved_cost"].get<double>(), 0.0);
    EXPECT_EQ(a["windows"][w]["amplification"].get<double>(), b["windows"][w]["amplification"].get<double>());
    EXPECT_NE(b["windows"][w]["amplification"].get<double>(), 1.0);
  }
  EXPECT_EQ(b["replay"]["matches_search"], true);
  const Project pa = loadProject(dir.file("threads.sinew")), pb = loadProject(dir.file("mpi.sinew"));
  ASSERT_EQ(pa.controllers.size(), 1u);
  ASSERT_EQ(pb.controllers.size(), 1u);
  EXPECT_TRUE(pa.controllers[0].windows == pb.controllers[0].windows);
}

}  // namespace
}  // namespace sinew
