// The ready-to-simulate example project in projects/ is exactly what the
// generator makes today (regenerate with
// `sinew-cli example humanoid-rigged -o projects/humanoid/humanoid-rigged.sinew --overwrite`).
#include "examples/Humanoid.h"
#include "io/ProjectFile.h"
#include "liu2013/Liu2013.h"

#include <gtest/gtest.h>

using namespace sinew;

TEST(RiggedExample, CommittedProjectIsUpToDateAndSimulates) {
  const Project generated = makeRiggedHumanoidProject();
  const Project onDisk = loadProject(std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew");
  EXPECT_TRUE(onDisk == generated) << "projects/humanoid/humanoid-rigged.sinew is stale: regenerate it";
  ASSERT_EQ(onDisk.volumes.size(), 1u);
  ASSERT_EQ(onDisk.clips.size(), 3u);
  const auto model = liu2013::buildLiu2013Model(onDisk);
  EXPECT_GT(model->nodeCount(), 1000u);
  EXPECT_LT(model->nodeCount(), 1500u);
}
