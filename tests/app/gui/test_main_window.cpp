// The main window driven with simulated input under Xvfb: it opens the
// example project and renders it, navigates in both conventions, picks,
// imports with undo/redo, plays a clip, saves, reopens, cancels long work,
// autosaves and recovers.
#include "GuiTestUtil.h"
#include "MainWindow.h"
#include "io/FileUtil.h"
#include "io/ProjectFile.h"

#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QApplication>
#include <QFile>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QSignalSpy>
#include <QTableWidget>
#include <QMenu>
#include <QMenuBar>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>

using namespace sinew;
using namespace sinew::app;
using namespace sinew::test;

namespace {

class MainWindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    window = std::make_unique<MainWindow>(MainWindow::RecoveryPolicy::Ignore);
    window->setInteractive(false);
    window->openProjectData(loadProject(examplePath().toStdString()), examplePath());
    window->resize(1280, 800);
    window->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
    ASSERT_TRUE(waitUntil([&] { return view()->framesRendered() >= 1; })) << "the viewport never rendered";
    window->viewport()->frameAll();
  }
  void TearDown() override {
    window->document()->undoStack()->setClean();  // no "save changes?" on close
    window->close();
    window.reset();
  }
  ViewportWidget* view() { return window->viewport(); }
  QImage renderedImage() {
    const int before = view()->framesRendered();
    view()->update();
    EXPECT_TRUE(waitUntil([&] { return view()->framesRendered() > before; }));
    return view()->grabFramebuffer();
  }
  // Drag in the viewport with a button and modifiers (press, moves, release).
  void drag(Qt::MouseButton button, Qt::KeyboardModifiers mods, QPoint from, QPoint to) {
    QWidget* w = view();
    auto send = [&](QEvent::Type type, QPoint pos, Qt::MouseButtons buttons) {
      QMouseEvent e(type, QPointF(pos), QPointF(w->mapToGlobal(pos)), button, buttons, mods);
      QApplication::sendEvent(w, &e);
    };
    send(QEvent::MouseButtonPress, from, button);
    for (int i = 1; i <= 5; ++i) send(QEvent::MouseMove, from + (to - from) * i / 5, button);
    send(QEvent::MouseButtonRelease, to, Qt::NoButton);
  }
  QPoint projected(const Vec3& p) {
    double x, y;
    EXPECT_TRUE(view()->camera().project(p, view()->width(), view()->height(), &x, &y));
    return QPoint(int(std::lround(x)), int(std::lround(y)));
  }
  const MeshObject& body() { return window->document()->project().meshes.front(); }
  std::unique_ptr<MainWindow> window;
};

const char* kBox = "/usr/share/assimp/models/OBJ/box.obj";
const char* kClip = "/usr/share/assimp/models/BVH/01_01.bvh";

}  // namespace

TEST_F(MainWindowTest, OpensExampleProjectAndShowsTheCharacter) {
  EXPECT_EQ(window->outliner()->itemsUnder("Meshes"), QStringList{"Michelin body"});
  EXPECT_EQ(window->outliner()->itemsUnder("Skeleton"), QStringList{"Michelin skeleton"});
  EXPECT_TRUE(window->outliner()->itemsUnder("Motion clips").isEmpty());
  EXPECT_TRUE(window->windowTitle().startsWith("humanoid.sinew"));
  EXPECT_FALSE(window->isWindowModified());
  const QImage img = renderedImage();
  const ImageStats s = imageStats(img);
  EXPECT_GT(s.lumaStdDev, 15.0) << "image looks uniform";
  // The white character covers a good part of the framed view, including its centre.
  EXPECT_GT(s.brightFraction, 0.05);
  const QRect centre(img.width() / 2 - 20, img.height() / 2 - 20, 40, 40);
  EXPECT_GT(imageStats(img, centre).brightFraction, 0.5) << "no character in the middle of the view";
  EXPECT_EQ(view()->lastTriangles(), body().mesh.triangleCount());
}

TEST_F(MainWindowTest, NavigatesInMayaAndBlenderConventions) {
  render::Camera& cam = view()->camera();
  const QPoint c(view()->width() / 2, view()->height() / 2);
  // Maya: Alt+LMB orbit, Alt+MMB pan, Alt+RMB dolly.
  double yaw = cam.yaw, pitch = cam.pitch;
  drag(Qt::LeftButton, Qt::AltModifier, c, c + QPoint(80, 30));
  EXPECT_NE(cam.yaw, yaw);
  EXPECT_NE(cam.pitch, pitch);
  Vec3 target = cam.target;
  drag(Qt::MiddleButton, Qt::AltModifier, c, c + QPoint(60, 0));
  EXPECT_GT((cam.target - target).norm(), 1e-3);
  double dist = cam.distance;
  drag(Qt::RightButton, Qt::AltModifier, c, c + QPoint(0, 80));
  EXPECT_GT(cam.distance, dist * 1.1) << "dragging down with Alt+RMB moves away";
  // Blender: MMB orbit, Shift+MMB pan, wheel zoom.
  yaw = cam.yaw;
  target = cam.target;
  dist = cam.distance;
  drag(Qt::MiddleButton, Qt::NoModifier, c, c + QPoint(-70, 0));
  EXPECT_NE(cam.yaw, yaw);
  EXPECT_LT((cam.target - target).norm(), 1e-12) << "orbit keeps the target";
  drag(Qt::MiddleButton, Qt::ShiftModifier, c, c + QPoint(0, 50));
  EXPECT_GT((cam.target - target).norm(), 1e-3);
  dist = cam.distance;
  QWheelEvent wheel(QPointF(c), QPointF(view()->mapToGlobal(c)), QPoint(), QPoint(0, 240), Qt::NoButton,
                    Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(view(), &wheel);
  EXPECT_LT(cam.distance, dist) << "wheel up zooms in";
  // Frame all brings the character back into view after all that.
  window->actFrameAll->trigger();
  const QImage img = renderedImage();
  EXPECT_GT(imageStats(img).brightFraction, 0.05);
  // A plain left drag does not move the camera (it belongs to tools).
  yaw = cam.yaw;
  drag(Qt::LeftButton, Qt::NoModifier, c, c + QPoint(50, 50));
  EXPECT_EQ(cam.yaw, yaw);
}

TEST_F(MainWindowTest, PicksJointsVerticesAndFaces) {
  const Project& p = window->document()->project();
  // A joint: click where the Head joint projects.
  const int head = p.skeleton->skeleton.find("Head");
  const QPoint headPx = projected(p.skeleton->skeleton.restPositions()[head]);
  QTest::mouseClick(view(), Qt::LeftButton, Qt::NoModifier, headPx);
  EXPECT_EQ(window->selectedObject(), p.skeleton->id);
  render::PickResult r = view()->pickAt(headPx);
  EXPECT_EQ(r.kind, render::PickKind::Joint);
  EXPECT_EQ(r.joint, head);

  // A vertex: the front-most vertex of the belly beside the spine (the spine's
  // joints, drawn on top, would be picked in front of its midline), seen from
  // the front.
  view()->camera().yaw = 0;
  view()->camera().pitch = 0;
  window->actFrameAll->trigger();
  int best = -1;
  for (size_t v = 0; v < body().mesh.vertexCount(); ++v) {
    const Vec3& x = body().mesh.positions[v];
    if (std::abs(x.y() - 1.15) < 0.03 && std::abs(x.x() - 0.1) < 0.03 && (best < 0 || x.z() > body().mesh.positions[best].z()))
      best = int(v);
  }
  ASSERT_GE(best, 0);
  r = view()->pickAt(projected(body().mesh.positions[best]));
  EXPECT_EQ(r.kind, render::PickKind::Vertex);
  EXPECT_EQ(r.object, body().id);
  EXPECT_EQ(r.vertex, best);
  // Between vertices, a face of the body.
  const Tri& t = body().mesh.triangles[r.face];
  const Vec3 centroid = (body().mesh.positions[t[0]] + body().mesh.positions[t[1]] + body().mesh.positions[t[2]]) / 3;
  window->viewport()->camera().dolly(3.0);  // further away: vertices get closer in pixels
  window->viewport()->camera().dolly(1.0 / 27.0);  // much closer: the face is large on screen
  const render::PickResult f = view()->pickAt(projected(centroid));
  EXPECT_EQ(f.kind, render::PickKind::Face);
  EXPECT_EQ(f.object, body().id);
  // Clicking selects the mesh and shows the pick in the properties panel.
  QTest::mouseClick(view(), Qt::LeftButton, Qt::NoModifier, projected(centroid));
  EXPECT_EQ(window->selectedObject(), body().id);
  // Nothing under the cursor: the corner of the view.
  view()->camera().dolly(27.0);
  EXPECT_EQ(view()->pickAt(QPoint(2, 2)).kind, render::PickKind::None);
}

TEST_F(MainWindowTest, DisplayModesChangeTheImage) {
  const QImage shaded = renderedImage();
  window->actWireframe->trigger();
  EXPECT_EQ(view()->settings().mode, render::DisplayMode::Wireframe);
  const QImage wire = renderedImage();
  window->actXray->trigger();
  EXPECT_EQ(view()->settings().mode, render::DisplayMode::XRay);
  const QImage xray = renderedImage();
  // The body looks different in each mode (compared over the middle of the view).
  const QRect middle(shaded.width() / 3, shaded.height() / 4, shaded.width() / 3, shaded.height() / 2);
  EXPECT_GT(meanAbsDifference(shaded, wire, middle), 8.0);
  EXPECT_GT(meanAbsDifference(shaded, xray, middle), 8.0);
  EXPECT_GT(meanAbsDifference(wire, xray, middle), 8.0);
  // X-ray lets the grid behind the body through: the body is darker than when shaded.
  EXPECT_LT(imageStats(xray, middle).brightFraction, imageStats(shaded, middle).brightFraction);
  window->actGrid->trigger();
  EXPECT_FALSE(view()->settings().grid);
  window->actShaded->trigger();
}

// Help > Keys and Mouse (F1) lists every menu command that has a key, read
// from the menus, with its key and what it does, and the viewport's mouse
// gestures; it stays open beside the work (not modal) and opening it again
// raises the same window. Screenshot: /tmp/sinew-keys-and-mouse.png.
TEST_F(MainWindowTest, KeysAndMouseListsEveryShortcutOfTheMenus) {
  window->activateWindow();  // a key reaches the window's shortcuts when it is the active one
  ASSERT_TRUE(QTest::qWaitForWindowActive(window.get()));
  QTest::keyClick(window.get(), Qt::Key_F1);
  QTest::qWait(100);
  auto* dialog = window->findChild<QDialog*>("controlsDialog");
  ASSERT_NE(dialog, nullptr) << "F1 opens Help > Keys and Mouse";
  EXPECT_TRUE(dialog->isVisible());
  EXPECT_FALSE(dialog->isModal());
  auto* table = dialog->findChild<QTableWidget*>("controlsTable");
  ASSERT_NE(table, nullptr);
  std::map<QString, QString> keys, what;
  for (int r = 0; r < table->rowCount(); ++r) {
    keys[table->item(r, 0)->text()] = table->item(r, 1)->text();
    what[table->item(r, 0)->text()] = table->item(r, 2)->text();
  }
  EXPECT_EQ(keys["View > Follow the Character"], "Shift+F");
  EXPECT_TRUE(what["View > Follow the Character"].contains("camera moves across the ground"));
  EXPECT_EQ(keys["View > Frame All"], "A");
  EXPECT_EQ(keys["View > Side View"], "Ctrl+3");
  EXPECT_TRUE(what["Rig > Move Joint"].contains("hold X, Y or Z")) << "a tool's mouse use comes with it";
  EXPECT_EQ(keys["Viewport > Pull the character"], "Ctrl+Left drag");
  // Every key of every menu is there (a command added later is listed without anyone writing it in).
  int withKeys = 0;
  std::function<void(const QMenu*)> walk = [&](const QMenu* menu) {
    for (const QAction* a : menu->actions()) {
      if (a->menu()) walk(a->menu());
      else if (!a->shortcut().isEmpty()) {
        ++withKeys;
        const QString shortcut = a->shortcut().toString(QKeySequence::NativeText);
        const QString name = " > " + QString(a->text()).remove('&').remove("...");
        EXPECT_TRUE(std::any_of(keys.begin(), keys.end(), [&](const auto& k) { return k.first.endsWith(name) && k.second == shortcut; }))
            << a->text().toStdString() << " (" << shortcut.toStdString() << ") is not listed with its key";
      }
    }
  };
  for (const QAction* a : window->menuBar()->actions())
    if (a->menu()) walk(a->menu());
  EXPECT_GT(withKeys, 25);
  EXPECT_EQ(table->rowCount(), withKeys + 5) << "the menus' keys and the five mouse gestures, once each";
  dialog->grab().save("/tmp/sinew-keys-and-mouse.png");
  window->actControls->trigger();
  EXPECT_EQ(window->findChildren<QDialog*>("controlsDialog").size(), 1) << "the same window again";
  dialog->close();
}

TEST_F(MainWindowTest, InViewportWidgetsTakeTheMouse) {
  renderedImage();
  const QRectF wire = view()->overlayWidget("Wire");
  ASSERT_FALSE(wire.isEmpty()) << "the HUD's display-mode widgets were not drawn";
  // ImGui sees the button go down in one frame and up in a later one.
  const QPoint at = wire.center().toPoint();
  QTest::mouseMove(view(), at);
  renderedImage();
  QTest::mousePress(view(), Qt::LeftButton, Qt::NoModifier, at);
  renderedImage();
  QTest::mouseRelease(view(), Qt::LeftButton, Qt::NoModifier, at);
  renderedImage();
  EXPECT_EQ(view()->settings().mode, render::DisplayMode::Wireframe);
  EXPECT_TRUE(window->actWireframe->isChecked()) << "the menu follows the HUD";
  // Dragging over the HUD does not move the camera.
  const double yaw = view()->camera().yaw;
  drag(Qt::MiddleButton, Qt::NoModifier, at, at + QPoint(-40, 0));
  EXPECT_EQ(view()->camera().yaw, yaw);
  // The grid checkbox toggles the grid.
  const QPoint grid = view()->overlayWidget("Grid").center().toPoint();
  QTest::mouseMove(view(), grid);
  renderedImage();
  QTest::mousePress(view(), Qt::LeftButton, Qt::NoModifier, grid);
  renderedImage();
  QTest::mouseRelease(view(), Qt::LeftButton, Qt::NoModifier, grid);
  renderedImage();
  EXPECT_FALSE(view()->settings().grid);
  EXPECT_FALSE(window->actGrid->isChecked());
}

TEST_F(MainWindowTest, ImportUndoRedoAndTitle) {
  ASSERT_TRUE(window->importFiles({kBox, kClip}));
  ASSERT_TRUE(window->tasks()->waitForIdle(30000));
  EXPECT_EQ(window->outliner()->itemsUnder("Meshes").size(), 2);
  EXPECT_EQ(window->outliner()->itemsUnder("Motion clips"), QStringList{"01_01"});
  EXPECT_TRUE(window->isWindowModified());
  EXPECT_TRUE(window->windowTitle().contains("[*]"));
  // The import validated the box: its report is there.
  const ObjectId boxId = window->document()->project().meshes.back().id;
  ASSERT_NE(window->document()->meshReport(boxId), nullptr);
  EXPECT_TRUE(window->document()->meshReport(boxId)->closed());
  window->actUndo->trigger();
  EXPECT_EQ(window->outliner()->itemsUnder("Meshes").size(), 1);
  EXPECT_TRUE(window->outliner()->itemsUnder("Motion clips").isEmpty());
  EXPECT_FALSE(window->isWindowModified());
  window->actRedo->trigger();
  EXPECT_EQ(window->outliner()->itemsUnder("Meshes").size(), 2);
  EXPECT_EQ(window->document()->project().meshes.back().id, boxId) << "redo restores the same object";
  // Delete and undo.
  window->selectObject(boxId);
  window->actDelete->trigger();
  EXPECT_EQ(window->outliner()->itemsUnder("Meshes").size(), 1);
  window->actUndo->trigger();
  EXPECT_EQ(window->outliner()->itemsUnder("Meshes").size(), 2);
}

TEST_F(MainWindowTest, ImportsSkinnedMeshesWithTheirSkeleton) {
  const char* fbx = "/usr/share/assimp/models/FBX/huesitos.fbx";
  window->newProject();
  ASSERT_TRUE(window->importFiles({fbx}));
  ASSERT_TRUE(window->tasks()->waitForIdle(30000));
  const Project& p = window->document()->project();
  ASSERT_TRUE(p.skeleton.has_value());
  EXPECT_EQ(p.skeleton->skeleton.size(), 9u);
  ASSERT_EQ(p.meshes.size(), 1u);
  ASSERT_TRUE(p.meshes[0].skin.has_value());
  EXPECT_EQ(window->outliner()->itemsUnder("Skeleton").size(), 1);
  // A second skinned import keeps the project's one skeleton (non-interactive: no question asked).
  const ObjectId skeletonId = p.skeleton->id;
  ASSERT_TRUE(window->importFiles({fbx}));
  ASSERT_TRUE(window->tasks()->waitForIdle(30000));
  EXPECT_EQ(p.meshes.size(), 2u);
  EXPECT_EQ(p.skeleton->id, skeletonId);
  bool warned = false;
  for (const LogEntry& e : window->log()->entries())
    warned |= e.severity == Severity::Warning && e.message.contains("was not added");
  EXPECT_TRUE(warned);
  window->actUndo->trigger();
  window->actUndo->trigger();
  EXPECT_FALSE(p.skeleton.has_value());
  EXPECT_TRUE(p.meshes.empty());
}

TEST_F(MainWindowTest, RenamingInThePropertiesPanelIsUndoable) {
  window->selectObject(body().id);
  QLineEdit* name = window->properties()->findChild<QLineEdit*>();
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name->text(), "Michelin body");
  name->setText("Bibendum");
  emit name->editingFinished();
  EXPECT_EQ(body().name, "Bibendum");
  EXPECT_EQ(window->outliner()->itemsUnder("Meshes"), QStringList{"Bibendum"});
  window->actUndo->trigger();
  EXPECT_EQ(body().name, "Michelin body");
  EXPECT_EQ(name->text(), "Michelin body");
}

TEST_F(MainWindowTest, PlaysMotionClips) {
  ASSERT_TRUE(window->importFiles({kClip}));
  ASSERT_TRUE(window->tasks()->waitForIdle(30000));
  const QImage before = renderedImage();
  window->actPlay->trigger();
  EXPECT_TRUE(window->actPlay->isChecked());
  QTest::qWait(400);
  window->actPlay->trigger();
  EXPECT_FALSE(window->actPlay->isChecked());
  auto* slider = window->findChild<QSlider*>("timeSlider");
  ASSERT_NE(slider, nullptr);
  EXPECT_GT(slider->value(), 5) << "about 0.4 s at 120 Hz";
  EXPECT_EQ(slider->maximum(), 2751);
  const int frame = slider->value();
  window->actStepForward->trigger();
  EXPECT_EQ(slider->value(), frame + 1);
  window->actRewind->trigger();
  EXPECT_EQ(slider->value(), 0);
  EXPECT_NE(renderedImage(), before) << "the clip's stick figure is drawn";
}

TEST_F(MainWindowTest, SavesAndReopens) {
  const QString dir = tempDir("save");
  const QString path = dir + "/copy.sinew";
  ASSERT_TRUE(window->importFiles({kBox}));
  ASSERT_TRUE(window->tasks()->waitForIdle(30000));
  ASSERT_TRUE(window->saveProjectTo(path));
  EXPECT_FALSE(window->isWindowModified());
  EXPECT_TRUE(window->windowTitle().startsWith("copy.sinew"));
  const Project saved = window->document()->project();
  window->newProject();
  EXPECT_TRUE(window->outliner()->itemsUnder("Meshes").isEmpty());
  ASSERT_TRUE(window->openProject(path));
  ASSERT_TRUE(window->tasks()->waitForIdle(30000));
  EXPECT_EQ(window->document()->project(), saved);
  EXPECT_EQ(window->outliner()->itemsUnder("Meshes").size(), 2);
}

// Another process saving the same project (here: its lock held): Save says
// so within seconds instead of freezing the window, and the work stays
// unsaved; once the lock is free, Save works.
TEST_F(MainWindowTest, SaveDoesNotFreezeWhileAnotherProcessSavesTheProject) {
  const QString path = tempDir("locked") + "/p.sinew";
  ASSERT_TRUE(window->importFiles({kBox}));
  ASSERT_TRUE(window->tasks()->waitForIdle(30000));
  ASSERT_TRUE(window->saveProjectTo(path));
  window->document()->undoStack()->undo();  // an unsaved change
  {
    const FileLock other(projectLockFile(path.toStdString()), true);
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_FALSE(window->saveProjectTo(path));
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
    EXPECT_TRUE(window->isWindowModified()) << "the work is still unsaved";
    bool logged = false;
    for (const LogEntry& e : window->log()->entries())
      logged |= e.severity == Severity::Error && e.message.contains("being saved by process");
    EXPECT_TRUE(logged);
  }
  EXPECT_TRUE(window->saveProjectTo(path));
}

TEST_F(MainWindowTest, BadFilesAreReportedAndChangeNothing) {
  const Project before = window->document()->project();
  ASSERT_TRUE(window->importFiles({"/usr/share/assimp/models/invalid/malformed.obj"}));
  ASSERT_TRUE(window->tasks()->waitForIdle(30000));
  EXPECT_EQ(window->document()->project(), before);
  bool logged = false;
  for (const LogEntry& e : window->log()->entries())
    logged |= e.severity == Severity::Error && e.message.contains("malformed.obj");
  EXPECT_TRUE(logged) << "an error naming the file is in the Log";

  // A file that crashes Assimp's ASE loader (one byte changed in a real file):
  // the importer's child process dies, Sinew reports it and carries on.
  {
    const QString dir = tempDir("crashing");
    QFile src("/usr/share/assimp/models/ASE/TestUVTransform/UVTransform_ScaleUV2x.ASE");
    ASSERT_TRUE(src.open(QIODevice::ReadOnly));
    QByteArray bytes = src.readAll();
    bytes[3173] = '{';
    QFile out(dir + "/crash.ASE");
    ASSERT_TRUE(out.open(QIODevice::WriteOnly));
    out.write(bytes);
    out.close();
    ASSERT_TRUE(window->importFiles({dir + "/crash.ASE"}));
    ASSERT_TRUE(window->tasks()->waitForIdle(60000));
    EXPECT_EQ(window->document()->project(), before);
    EXPECT_TRUE(window->log()->entries().back().message.contains("crashed")) << window->log()->entries().back().message.toStdString();
    EXPECT_GT(renderedImage().width(), 0) << "the application still renders";
  }

  // A project from a newer Sinew: refused, nothing replaced.
  const QString dir = tempDir("newer");
  QFile f(dir + "/future.sinew");
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(R"({"format": "sinew-project", "version": 99, "name": "future"})");
  f.close();
  ASSERT_TRUE(window->openProject(dir + "/future.sinew"));
  ASSERT_TRUE(window->tasks()->waitForIdle(30000));
  EXPECT_EQ(window->document()->project(), before);
  EXPECT_EQ(window->document()->path(), examplePath());
  EXPECT_TRUE(window->log()->entries().back().message.contains("newer"));

  // 60,000 nested objects (a stack overflow in the parser before): refused with a message.
  QFile bomb(dir + "/bomb.sinew");
  ASSERT_TRUE(bomb.open(QIODevice::WriteOnly));
  bomb.write(R"({"format": "sinew-project", "version": 3, "name": "bomb", "nextId": 1, "x": )");
  bomb.write(QByteArray(60000, '['));
  bomb.write(QByteArray(60000, ']'));
  bomb.write("}");
  bomb.close();
  ASSERT_TRUE(window->openProject(dir + "/bomb.sinew"));
  ASSERT_TRUE(window->tasks()->waitForIdle(30000));
  EXPECT_EQ(window->document()->project(), before);
  EXPECT_TRUE(window->log()->entries().back().message.contains("nest deeper than"))
      << window->log()->entries().back().message.toStdString();
}

TEST_F(MainWindowTest, LongImportCanBeCancelled) {
  // A big OBJ (a finely tessellated sphere) takes long enough to cancel.
  const QString dir = tempDir("cancel");
  const std::string file = (dir + "/big.obj").toStdString();
  {
    std::ofstream out(file);
    const int nu = 600, nv = 300;
    for (int j = 0; j <= nv; ++j)
      for (int i = 0; i < nu; ++i) {
        const double th = M_PI * j / nv, ph = 2 * M_PI * i / nu;
        out << "v " << std::sin(th) * std::cos(ph) << ' ' << std::cos(th) << ' ' << std::sin(th) * std::sin(ph) << "\n";
      }
    for (int j = 0; j < nv; ++j)
      for (int i = 0; i < nu; ++i) {
        const int a = j * nu + i + 1, b = j * nu + (i + 1) % nu + 1;
        out << "f " << a << ' ' << b << ' ' << b + nu << "\nf " << a << ' ' << b + nu << ' ' << a + nu << "\n";
      }
  }
  const Project before = window->document()->project();
  QSignalSpy started(window->tasks(), &TaskRunner::started);
  ASSERT_TRUE(window->importFiles({QString::fromStdString(file)}));
  EXPECT_TRUE(window->tasks()->busy());
  // The UI keeps rendering while the import runs.
  const int frames = view()->framesRendered();
  view()->update();
  EXPECT_TRUE(waitUntil([&] { return view()->framesRendered() > frames; }, 5000));
  window->tasks()->cancel();
  ASSERT_TRUE(window->tasks()->waitForIdle(60000));
  EXPECT_EQ(window->document()->project(), before) << "a cancelled import adds nothing";
  bool logged = false;
  for (const LogEntry& e : window->log()->entries()) logged |= e.message.contains("cancelled");
  EXPECT_TRUE(logged);
}

TEST_F(MainWindowTest, ClosingWithUnsavedChangesAsks) {
  window->setInteractive(true);
  window->selectObject(body().id);
  window->actDelete->trigger();
  ASSERT_TRUE(window->isWindowModified());
  bool asked = false;
  QTimer::singleShot(300, [&] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
      asked = box->text().contains("unsaved");
      box->button(QMessageBox::Cancel)->click();
    }
  });
  window->close();
  EXPECT_TRUE(asked);
  EXPECT_TRUE(window->isVisible()) << "Cancel keeps the window open";
  window->setInteractive(false);
}

TEST_F(MainWindowTest, AutosavesAndRecoversAfterACrash) {
  // Edit, autosave, then pretend this session crashed: its note gets the pid
  // of a process that has exited.
  window->selectObject(body().id);
  window->actDelete->trigger();
  window->autosaveNow();
  ASSERT_TRUE(window->recovery()->hasSessionCopy());
  QProcess dead;
  dead.start("true");
  ASSERT_TRUE(dead.waitForFinished());
  const qint64 deadPid = dead.processId();
  const QDir dir(window->recovery()->directory());
  for (const QString& note : dir.entryList({"session-*.json"})) {
    QFile f(dir.filePath(note));
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    QByteArray json = f.readAll();
    f.close();
    json.replace(QByteArray("\"pid\": ") + QByteArray::number(QCoreApplication::applicationPid()),
                 QByteArray("\"pid\": ") + QByteArray::number(deadPid));
    ASSERT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(json);
  }
  MainWindow second(MainWindow::RecoveryPolicy::Recover);
  second.setInteractive(false);
  second.checkRecovery();
  EXPECT_TRUE(second.document()->project().meshes.empty()) << "the recovered project has the deletion";
  EXPECT_TRUE(second.document()->isModified()) << "recovered work is unsaved";
  EXPECT_EQ(second.document()->path(), examplePath()) << "saving goes to the original file";
  EXPECT_TRUE(second.recovery()->orphaned().empty());
  second.recovery()->discardSession();
  second.document()->reset(Project{}, {});
}
