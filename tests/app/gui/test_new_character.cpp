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
#include "io/SkinnedExport.h"
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

// File > New Character on a production file (Z-up, centimetres, 64 joints,
// torso, legs and head skinned, two rigid eyes): the body parts join, the
// flow rigs and simulates in one go, the eyes ride along with the head.
TEST(NewCharacter, OneActionTakesAProductionFileToASimulation) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  {
    HumanoidOptions o;
    o.gridSpacing = 0.045;
    const ExchangeCharacter c = makeExchangeCharacter(makeHumanoidProject(o));
    SkinnedExportOptions e;
    e.zUp = true;
    e.unitsPerMetre = 100;
    exportSkinnedCharacter(c.skeleton, c.parts, dir.filePath("character.fbx").toStdString(), e);
  }
  QSettings().setValue("import/scale", 0.0);
  QSettings().setValue("import/grouping", 0);  // body parts join
  auto window = std::make_unique<MainWindow>(MainWindow::RecoveryPolicy::Ignore);
  window->setInteractive(false);
  window->resize(1400, 900);
  window->show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));

  bool ended = false, ok = false;
  QString message;
  QObject::connect(window->newCharacterFlow(), &NewCharacterFlow::ended, [&](bool success, const QString& m) {
    ended = true;
    ok = success;
    message = m;
  });
  ASSERT_TRUE(window->newCharacterFlow()->start(dir.filePath("character.fbx")));
  ASSERT_TRUE(waitUntil([&] { return ended; }, 280000));
  ASSERT_TRUE(ok) << message.toStdString();
  const Project& p = window->document()->project();
  ASSERT_EQ(p.meshes.size(), 3u);  // the body, two eyes
  ASSERT_TRUE(p.skeleton);
  EXPECT_EQ(p.volumes.size(), 1u);

  SimulationController* sim = window->simulation();
  ASSERT_TRUE(waitUntil([&] { return sim->simulatedTime() >= 0.5 || !sim->lastError().isEmpty(); }, 240000));
  sim->pause();
  ASSERT_TRUE(sim->lastError().isEmpty()) << sim->lastError().toStdString();
  // The eyes are drawn where the simulated head took them.
  const auto others = sim->frameOtherSurfaces(sim->frameCount() - 1);
  ASSERT_EQ(others.size(), 2u);
  for (const auto& [id, positions] : others) {
    const MeshObject* eye = p.findMesh(id);
    ASSERT_NE(eye, nullptr);
    ASSERT_EQ(positions.size(), eye->mesh.vertexCount());
  }
  window->viewport()->frameAll();
  QTest::qWait(300);
  window->grab().save("/tmp/sinew-new-character-flow.png");
  window->close();
}

// A mesh that is no humanoid: the flow stops at Auto-Place Joints with the
// reason, and keeps the imported mesh.
TEST(NewCharacter, TheFlowStopsWithAReasonOnAMeshThatIsNoHumanoid) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  {
    MeshObject box;
    box.name = "Crate";
    box.mesh.positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    box.mesh.triangles = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                          {2, 3, 7}, {2, 7, 6}, {1, 2, 6}, {1, 6, 5}, {0, 4, 7}, {0, 7, 3}};
    exportMeshes({&box}, dir.filePath("crate.obj").toStdString());
  }
  auto window = std::make_unique<MainWindow>(MainWindow::RecoveryPolicy::Ignore);
  window->setInteractive(false);
  window->show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
  bool ended = false, ok = true;
  QString message;
  QObject::connect(window->newCharacterFlow(), &NewCharacterFlow::ended, [&](bool success, const QString& m) {
    ended = true;
    ok = success;
    message = m;
  });
  ASSERT_TRUE(window->newCharacterFlow()->start(dir.filePath("crate.obj")));
  ASSERT_TRUE(waitUntil([&] { return ended; }, 60000));
  EXPECT_FALSE(ok);
  EXPECT_TRUE(message.contains("Auto-Place Joints")) << message.toStdString();
  bool reason = false;
  for (const LogEntry& e : window->log()->entries()) reason |= e.message.contains("cannot find two legs and two arms");
  EXPECT_TRUE(reason);
  EXPECT_EQ(window->document()->project().meshes.size(), 1u);
  EXPECT_FALSE(window->document()->project().skeleton);
  window->close();
}

}  // namespace
