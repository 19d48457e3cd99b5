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

// projects/humanoid/humanoid-walk.sinew is that project with one controller
// (made by sinew-cli optimize; ControllerQuality replays it): apart from the
// controller it must not go stale either.
TEST(RiggedExample, CommittedWalkProjectIsTheRiggedOneWithAController) {
  Project walk = loadProject(std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-walk.sinew");
  ASSERT_EQ(walk.controllers.size(), 1u);
  EXPECT_EQ(walk.controllers[0].name, "Walk in place 0-2 s");
  EXPECT_EQ(walk.controllers[0].sourceClip, "Walk in place");
  walk.controllers.clear();
  const Project rigged = makeRiggedHumanoidProject();
  EXPECT_EQ(walk.nextId, rigged.nextId + 1) << "the controller took one id";
  walk.nextId = rigged.nextId;
  EXPECT_TRUE(walk == rigged)
      << "projects/humanoid/humanoid-walk.sinew is stale: regenerate it (docs/PERFORMANCE.md has the command)";
}
