// Bring your own character in the GUI: a bare humanoid mesh (no skeleton, an
// A-pose, written as OBJ) through Import -> Auto-Place Joints -> Build
// Everything Missing (with the fall test that picks the time step) ->
// Simulate, then File > New, which must leave nothing of it behind.
#include "CharacterFiles.h"
#include "GuiTestUtil.h"
#include "MainWindow.h"
#include "examples/ExchangeCharacters.h"
#include "examples/Humanoid.h"
#include "io/AssimpImport.h"
#include "rig/RigBuild.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QDockWidget>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace sinew;
using namespace sinew::app;
using namespace sinew::test;

namespace {

TEST(NewCharacter, BareMeshToASimulationInAFewClicks) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  test::writeBareAPose(dir.filePath("bare.obj").toStdString(), 0.035);
  QSettings().setValue("import/scale", 0.0);  // detect
  auto window = std::make_unique<MainWindow>(MainWindow::RecoveryPolicy::Ignore);
  window->setInteractive(false);
  window->resize(1400, 900);
  window->show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));

  // Import.
  ASSERT_TRUE(window->importFiles({dir.filePath("bare.obj")}));
  ASSERT_TRUE(window->tasks()->waitForIdle(60000));
  ASSERT_EQ(window->document()->project().meshes.size(), 1u);
  EXPECT_FALSE(window->document()->project().skeleton);

  // Auto-Place Joints, from the Rig dock's button.
  auto* autoJoints = window->findChild<QAction*>("actionAutoJoints");
  ASSERT_NE(autoJoints, nullptr);
  autoJoints->trigger();
  ASSERT_TRUE(window->tasks()->waitForIdle(60000));
  ASSERT_TRUE(window->document()->project().skeleton);
  EXPECT_EQ(window->document()->project().skeleton->skeleton.size(), 19u);

  // Build everything missing: bone shapes, cage, weights; then the time step.
  ASSERT_TRUE(window->runRigBuild(RigBuildOptions{}, "Building the rig"));
  ASSERT_TRUE(window->tasks()->waitForIdle(280000));
  bool found = false;
  ASSERT_TRUE(waitUntil(
      [&] {
        QCoreApplication::processEvents();
        for (const LogEntry& e : window->log()->entries()) found |= e.message.contains("Time step:");
        return found && window->tasks()->waitForIdle(10);
      },
      280000));
  const Project& rigged = window->document()->project();
  ASSERT_EQ(rigged.volumes.size(), 1u);
  ASSERT_TRUE(rigged.meshes[0].skin);

  // Simulate a second from the Simulate dock.
  window->findChild<QDockWidget*>("dockSimulate")->raise();
  SimulationController* sim = window->simulation();
  window->actSimPlay->trigger();
  ASSERT_TRUE(waitUntil([&] { return sim->simulatedTime() >= 1.0 || !sim->lastError().isEmpty(); }, 240000));
  sim->pause();
  ASSERT_TRUE(sim->lastError().isEmpty()) << sim->lastError().toStdString();
  double lowest = std::numeric_limits<double>::infinity();
  for (const Vec3& x : sim->displayedSurface()) lowest = std::min(lowest, x.y());
  EXPECT_GT(lowest, -0.05) << "on the ground, not through it";
  window->viewport()->frameAll();
  QTest::qWait(300);
  window->grab().save("/tmp/sinew-new-character.png");

  // File > New: nothing of the character stays.
  window->document()->undoStack()->setClean();
  window->findChild<QAction*>("actionNew")->trigger();
  QCoreApplication::processEvents();
  EXPECT_TRUE(window->document()->project().meshes.empty());
  EXPECT_FALSE(window->document()->project().skeleton);
  EXPECT_LE(sim->frameCount(), 1);  // no frame of the old character's run
  EXPECT_TRUE(sim->displayedSurface().empty() || sim->frameCount() == 1);
  window->close();
}

}  // namespace
