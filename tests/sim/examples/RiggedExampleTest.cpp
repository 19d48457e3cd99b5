// The ready-to-simulate example project in projects/ is exactly what the
// generator makes today (regenerate with
// `sinew-cli example humanoid-rigged -o projects/humanoid/humanoid-rigged.sinew --overwrite`).
#include "examples/Humanoid.h"
#include "io/ProjectFile.h"
#include "liu2013/Liu2013.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace sinew;

TEST(RiggedExample, CommittedProjectIsUpToDateAndSimulates) {
  const Project generated = makeRiggedHumanoidProject();
  const Project onDisk = loadProject(std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew");
  EXPECT_TRUE(onDisk == generated) << "projects/humanoid/humanoid-rigged.sinew is stale: regenerate it";
  ASSERT_EQ(onDisk.volumes.size(), 1u);
  ASSERT_EQ(onDisk.clips.size(), 4u);  // Kick, Walk in place, Elbow bend, Run (generated)
  const auto model = liu2013::buildLiu2013Model(onDisk);
  EXPECT_GT(model->nodeCount(), 1000u);
  EXPECT_LT(model->nodeCount(), 1500u);
}

namespace {

// A committed project that is the rigged one plus controllers (made by
// sinew-cli optimize; ControllerQuality replays them) must not go stale
// either: without the controllers, and with the ids they took, it is the
// generated one.
void expectRiggedPlusControllers(const char* file, const std::vector<std::string>& controllers, const char* clip,
                                 int idsTaken) {
  Project p = loadProject(std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/" + file);
  ASSERT_EQ(p.controllers.size(), controllers.size());
  for (size_t c = 0; c < controllers.size(); ++c) {
    EXPECT_EQ(p.controllers[c].name, controllers[c]);
    EXPECT_EQ(p.controllers[c].sourceClip, clip);
  }
  p.controllers.clear();
  const Project rigged = makeRiggedHumanoidProject();
  EXPECT_EQ(p.nextId, rigged.nextId + idsTaken);
  p.nextId = rigged.nextId;
  EXPECT_TRUE(p == rigged) << file << " is stale: regenerate it (docs/PERFORMANCE.md has the command)";
}

}  // namespace

TEST(RiggedExample, CommittedWalkProjectIsTheRiggedOneWithAController) {
  expectRiggedPlusControllers("humanoid-walk.sinew", {"Walk in place 0-2 s"}, "Walk in place", 1);
}

// The turn's controller was made from CMU 01_01 (8-10 s), which the search
// added to the project as a clip; the committed file leaves that 2 MB clip out
// (assimp-testmodels installs it; the controller carries its retargeted
// segment), so the clip and the controller each took an id.
TEST(RiggedExample, CommittedTurnProjectIsTheRiggedOneWithAController) {
  expectRiggedPlusControllers("humanoid-turn.sinew", {"01_01 8-10 s"}, "01_01", 2);
}

// The first jump of 01_01 (1.0-2.7 s), searched with stiffer servos (8 Hz)
// and the root-position weight 4 (docs/PERFORMANCE.md has the command), and
// both jumps of 0-4 s with the same settings, added to it; their 01_01 clip is
// left out as the turn's is (the clip and the two controllers took an id each,
// and the clip one more when the 0-4 s controller was searched again in place),
// and the whole clip's controller (searched in four parts, the clip and the
// controller one id each).
TEST(RiggedExample, CommittedJumpProjectIsTheRiggedOneWithItsControllers) {
  expectRiggedPlusControllers("humanoid-jump.sinew", {"01_01 1-2.7 s", "01_01 0-4 s", "01_01 whole"}, "01_01", 6);
}

// The kick: the first 2.5 s of the project's own Kick clip (docs/PERFORMANCE.md
// has the command); the controller took one id.
TEST(RiggedExample, CommittedKickProjectIsTheRiggedOneWithAController) {
  expectRiggedPlusControllers("humanoid-kick.sinew", {"Kick 0-2.5 s"}, "Kick", 1);
}
