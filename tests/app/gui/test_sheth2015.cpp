// Sheth et al. 2015 "deformable bones" in the GUI, driven like a user: the
// rigged humanoid's cage is cut into reduced bodies in the background (the
// progress bar moves, the UI stays live), the passive character falls under
// gravity, Ctrl+drag pulls it away from the ungrabbed motion, the mode viewer
// swings one body in one mode and gives the frame back when unchecked, and a
// project without skinning weights says to run rig. Screenshots go to /tmp.
#include "GuiTestUtil.h"
#include "MainWindow.h"
#include "io/ProjectFile.h"
#include "model/MotionClip.h"
#include "SimulationController.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QGroupBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>

#include <algorithm>
#include <cmath>
#include <iostream>

using namespace sinew;
using namespace sinew::app;
using namespace sinew::test;

namespace {

QString riggedPath() { return sourcePath("projects/humanoid/humanoid-rigged.sinew"); }

class ShethTest : public ::testing::Test {
 protected:
  void SetUp() override {
    window = std::make_unique<MainWindow>(MainWindow::RecoveryPolicy::Ignore);
    window->setInteractive(false);
    window->openProjectData(loadProject(riggedPath().toStdString()), riggedPath());
    window->resize(1400, 900);
    window->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
    window->findChild<QDockWidget*>("dockSimulate")->raise();
    ASSERT_TRUE(waitUntil([&] { return view()->framesRendered() >= 1; }));
    view()->camera().yaw = 0.3;
    view()->camera().pitch = 0.1;
    view()->frameAll();
  }
  void TearDown() override {
    window->document()->undoStack()->setClean();
    window->close();
    window.reset();
  }

  ViewportWidget* view() { return window->viewport(); }
  SimulationController* sim() { return window->simulation(); }
  template <class T>
  T* child(const char* name) {
    T* w = window->findChild<T*>(name);
    EXPECT_NE(w, nullptr) << name;
    return w;
  }
  bool logHas(const QString& text) {
    for (const LogEntry& e : window->log()->entries())
      if (e.message.contains(text)) return true;
    return false;
  }
  void chooseSheth() {
    auto* solver = child<QComboBox>("simSolver");
    const int i = solver->findData(int(SimulationController::Solver::Sheth2015));
    ASSERT_GE(i, 0);
    EXPECT_EQ(solver->itemText(i), "Sheth 2015 (deformable bones)");
    solver->setCurrentIndex(i);
    ASSERT_EQ(sim()->solver(), SimulationController::Solver::Sheth2015);
    EXPECT_TRUE(child<QGroupBox>("simShethBox")->isVisible());
  }
  void send(QEvent::Type type, QPoint pos, Qt::MouseButtons buttons) {
    QMouseEvent e(type, QPointF(pos), QPointF(view()->mapToGlobal(pos)), Qt::LeftButton, buttons, Qt::ControlModifier);
    QApplication::sendEvent(view(), &e);
  }
  // Plays until the simulated time reaches `seconds`, then pauses.
  void playUntil(double seconds) {
    if (!sim()->simulating()) QTest::mouseClick(window->simulatePanel()->playButton(), Qt::LeftButton);
    ASSERT_TRUE(waitUntil([&] { return sim()->simulatedTime() >= seconds - 1e-9 || !sim()->lastError().isEmpty(); },
                          120000))
        << "simulated " << sim()->simulatedTime() << " s";
    sim()->pause();
    ASSERT_TRUE(waitUntil([&] { return !sim()->simulating(); }));
    ASSERT_TRUE(sim()->lastError().isEmpty()) << sim()->lastError().toStdString();
  }
  void shot(const QString& path) {
    const int before = view()->framesRendered();
    view()->update();
    EXPECT_TRUE(waitUntil([&] { return view()->framesRendered() > before; }));
    QTest::qWait(100);
    const QImage image = window->grab().toImage();
    image.save(path);
    EXPECT_GT(imageStats(image).distinctColors, 50);
  }

  std::unique_ptr<MainWindow> window;
};

double maxDistance(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  double d = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) d = std::max(d, (a[i] - b[i]).norm());
  return d;
}

}  // namespace

// The humanoid's deformable bones are built in the background with
// progress, fall under gravity, and Ctrl+drag pulls the grabbed vertex well
// above where the same run without the grab has it.
TEST_F(ShethTest, BuildsInTheBackgroundFallsAndIsGrabbed) {
  chooseSheth();
  // The editor is generated from the solver registry's table.
  auto* modes = child<QSpinBox>("simParam_modes");
  ASSERT_NE(modes, nullptr);
  const ParamSpec* spec = nullptr;
  for (const ParamSpec& p : solverParams(SolverKind::Sheth2015))
    if (p.name == "modes") spec = &p;
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(modes->minimum(), int(spec->min));
  EXPECT_EQ(modes->maximum(), int(spec->max));
  EXPECT_EQ(modes->value(), 10);
  EXPECT_NE(child<QSpinBox>("simParam_sweeps"), nullptr);
  EXPECT_TRUE(child<QComboBox>("simDrive")->isEnabled()) << "a clip can move the pelvis";
  EXPECT_FALSE(child<QCheckBox>("simModeAnimate")->isEnabled()) << "no bodies before the build";

  // Step builds the model on the worker: the UI keeps processing events and the progress bar moves.
  QSignalSpy progress(sim(), &SimulationController::buildProgress);
  QTest::mouseClick(window->simulatePanel()->stepButton(), Qt::LeftButton);
  EXPECT_TRUE(sim()->building());
  EXPECT_TRUE(child<QProgressBar>("simBuildProgress")->isVisible());
  QElapsedTimer gap;
  gap.start();
  qint64 longest = 0;
  while (sim()->simulating()) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    longest = std::max(longest, gap.restart());
  }
  QCoreApplication::processEvents();
  ASSERT_TRUE(sim()->lastError().isEmpty()) << sim()->lastError().toStdString();
  EXPECT_LT(longest, 500) << "the UI thread stalled for " << longest << " ms during the build";
  EXPECT_GE(progress.count(), 5);
  EXPECT_FALSE(child<QProgressBar>("simBuildProgress")->isVisible());
  EXPECT_TRUE(logHas("building the Sheth 2015 deformable bones (10 modes per body)"));
  EXPECT_TRUE(logHas("deformable bones, 10 modes each"));
  ASSERT_EQ(sim()->frameCount(), 2);
  EXPECT_NEAR(sim()->frameTime(), 1.0 / 60, 1e-12);
  const MeshObject* mesh = window->document()->project().findMesh(sim()->surfaceMesh());
  ASSERT_NE(mesh, nullptr);
  ASSERT_EQ(sim()->frameSurface(0).size(), mesh->mesh.vertexCount());
  ASSERT_NE(sim()->display().jointPose(), nullptr);
  EXPECT_EQ(sim()->display().jointPose()->size(), window->document()->project().skeleton->skeleton.joints.size());

  // Without a grab: 0.5 s of falling.
  QTest::mouseClick(window->simulatePanel()->resetButton(), Qt::LeftButton);
  ASSERT_EQ(sim()->frameCount(), 1);
  playUntil(0.5);
  constexpr int kFrame = 30;  // t = 0.5 s
  ASSERT_GT(sim()->frameCount(), kFrame);
  const std::vector<Vec3> rest = sim()->frameSurface(0), free = sim()->frameSurface(kFrame);
  const std::vector<SimMeasures> m = sim()->frameMeasures(0, nullptr);
  EXPECT_LT(m[kFrame].centerOfMass.y(), m[0].centerOfMass.y() - 0.02) << "falls under gravity";
  EXPECT_GT(maxDistance(rest, free), 0.05) << "the surface moved";
  for (const SimMeasures& f : m) EXPECT_GT(f.centerOfMass.y(), 0.0) << "above the ground at t = " << f.time;
  shot("/tmp/sinew-sheth-fall.png");

  // Again from the start, a chest vertex facing the camera held 120 px above where it was.
  QTest::mouseClick(window->simulatePanel()->resetButton(), Qt::LeftButton);
  ASSERT_EQ(sim()->displayedFrame(), 0);
  const render::Camera& camera = view()->camera();
  std::vector<Vec3> normal(rest.size(), Vec3::Zero());
  for (const Tri& t : mesh->mesh.triangles) {
    const Vec3 n = (rest[size_t(t[1])] - rest[size_t(t[0])]).cross(rest[size_t(t[2])] - rest[size_t(t[0])]);
    for (int32_t v : t) normal[size_t(v)] += n;
  }
  Vec3 c = Vec3::Zero();
  for (const Vec3& p : rest) c += p;
  c /= double(rest.size());
  c.y() += 0.3;  // the chest, above the centre
  double cx, cy;
  ASSERT_TRUE(camera.project(c, view()->width(), view()->height(), &cx, &cy));
  int32_t vertex = -1;
  double best = 0, x = 0, y = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    const Vec3 toEye = (camera.eye() - rest[i]).normalized();
    if (normal[i].norm() == 0 || normal[i].normalized().dot(toEye) < 0.5) continue;
    double px, py;
    if (!camera.project(rest[i], view()->width(), view()->height(), &px, &py)) continue;
    if (px < 20 || px > view()->width() - 20 || py < 140 || py > view()->height() - 20) continue;
    const double d = std::hypot(px - cx, py - cy);
    if (vertex < 0 || d < best) {
      vertex = int32_t(i);
      best = d;
      x = px;
      y = py;
    }
  }
  ASSERT_GE(vertex, 0);
  const QPoint from{int(std::lround(x)), int(std::lround(y))};
  const QPoint to = from + QPoint(0, -120);
  send(QEvent::MouseButtonPress, from, Qt::LeftButton);
  const int32_t grabbed = sim()->grabbedVertex();
  ASSERT_GE(grabbed, 0);
  for (int i = 1; i <= 8; ++i) send(QEvent::MouseMove, from + (to - from) * i / 8, Qt::LeftButton);
  playUntil(0.5);
  view()->frameAll();
  shot("/tmp/sinew-sheth-sim.png");
  send(QEvent::MouseButtonRelease, to, Qt::NoButton);
  EXPECT_EQ(sim()->grabbedVertex(), -1);
  const std::vector<Vec3> pulled = sim()->frameSurface(kFrame);
  ASSERT_EQ(pulled.size(), free.size());
  const size_t g = size_t(grabbed);
  EXPECT_GT(pulled[g].y(), free[g].y() + 0.05) << "the grab holds the vertex up (" << pulled[g].y() << " m with, "
                                               << free[g].y() << " m without)";
  EXPECT_GT(maxDistance(pulled, free), 0.05);

  // Play and pause still work after the grab; Reset goes back to the rest surface.
  QTest::mouseClick(window->simulatePanel()->playButton(), Qt::LeftButton);
  EXPECT_EQ(window->simulatePanel()->playButton()->text(), "Pause");
  QTest::mouseClick(window->simulatePanel()->playButton(), Qt::LeftButton);
  ASSERT_TRUE(waitUntil([&] { return !sim()->simulating(); }));
  EXPECT_EQ(window->simulatePanel()->playButton()->text(), "Play");
  QTest::mouseClick(window->simulatePanel()->resetButton(), Qt::LeftButton);
  EXPECT_EQ(sim()->frameCount(), 1);
  EXPECT_LT(maxDistance(sim()->displayedSurface(), rest), 1e-12);
}

// The mode viewer: bodies with their modes' frequencies; Animate mode swings
// the chosen body in one mode while paused, unchecked gives the frame back.
// A changed mode count rebuilds the model on the next Play.
TEST_F(ShethTest, ModeViewerAnimatesOneMode) {
  chooseSheth();
  QTest::mouseClick(window->simulatePanel()->stepButton(), Qt::LeftButton);
  ASSERT_TRUE(waitUntil([&] { return !sim()->simulating(); }, 120000));
  QCoreApplication::processEvents();
  ASSERT_TRUE(sim()->lastError().isEmpty()) << sim()->lastError().toStdString();

  const std::vector<SimulationController::ModalBody> bodies = sim()->modalBodies();
  ASSERT_GE(bodies.size(), 5u);
  auto* body = child<QComboBox>("simModeBody");
  auto* mode = child<QSpinBox>("simMode");
  auto* amplitude = child<QSlider>("simModeAmplitude");
  auto* animate = child<QCheckBox>("simModeAnimate");
  auto* frequency = child<QLabel>("simModeFrequency");
  ASSERT_EQ(body->count(), int(bodies.size()));
  ASSERT_TRUE(animate->isEnabled());
  // The softest body (lowest first mode) swings the most visibly.
  size_t softest = 0;
  for (size_t k = 0; k < bodies.size(); ++k) {
    ASSERT_EQ(bodies[k].frequencies.size(), 10u) << bodies[k].name.toStdString();
    EXPECT_TRUE(std::is_sorted(bodies[k].frequencies.begin(), bodies[k].frequencies.end()));
    EXPECT_GT(bodies[k].frequencies.front(), 0.0);
    if (bodies[k].frequencies.front() < bodies[softest].frequencies.front()) softest = k;
  }
  body->setCurrentIndex(int(softest));
  std::cout << "mode viewer: body '" << bodies[softest].name.toStdString() << "', mode 0 at "
            << bodies[softest].frequencies[0] << " Hz\n";
  EXPECT_TRUE(body->currentText().startsWith(bodies[softest].name));
  EXPECT_EQ(mode->minimum(), 0);
  EXPECT_EQ(mode->maximum(), 9);
  mode->setValue(0);
  EXPECT_TRUE(frequency->text().contains("Hz"));
  EXPECT_TRUE(frequency->text().startsWith(QString::number(bodies[softest].frequencies[0], 'f', 2)))
      << frequency->text().toStdString();
  mode->setValue(1);
  EXPECT_TRUE(frequency->text().startsWith(QString::number(bodies[softest].frequencies[1], 'f', 2)));
  mode->setValue(0);
  amplitude->setValue(amplitude->maximum());

  const int shown = sim()->displayedFrame();
  const std::vector<Vec3> frame = sim()->frameSurface(shown);
  animate->setChecked(true);
  ASSERT_TRUE(waitUntil([&] { return sim()->showingMode(); }));
  // Rest placement plus the mode: wait for a swing near its peak (the peak vertex moves 0.2 m).
  const std::vector<Vec3> rest = sim()->frameSurface(0);
  double swing = 0;
  ASSERT_TRUE(waitUntil([&] {
    swing = maxDistance(sim()->displayedSurface(), rest);
    return swing > 0.12;
  }, 5000)) << "largest displacement " << swing << " m";
  view()->frameAll();
  // The dock scrolled to the mode viewer.
  for (QWidget* w = window->simulatePanel(); w; w = w->parentWidget())
    if (auto* scroll = qobject_cast<QScrollArea*>(w)) scroll->ensureWidgetVisible(child<QGroupBox>("simShethBox"));
  shot("/tmp/sinew-sheth-mode.png");
  // It animates: the shape changes between ticks.
  const std::vector<Vec3> a = sim()->displayedSurface();
  ASSERT_TRUE(waitUntil([&] { return maxDistance(sim()->displayedSurface(), a) > 0.02; }, 3000));
  // Another mode is another shape (same amplitude, same instant).
  ASSERT_TRUE(sim()->showMode(int(softest), 0, 0.1));
  const std::vector<Vec3> mode0 = sim()->displayedSurface();
  ASSERT_TRUE(sim()->showMode(int(softest), 1, 0.1));
  EXPECT_GT(maxDistance(sim()->displayedSurface(), mode0), 0.01);

  animate->setChecked(false);
  EXPECT_FALSE(sim()->showingMode());
  EXPECT_LT(maxDistance(sim()->displayedSurface(), frame), 1e-12) << "the simulated frame again";

  // Checked while playing: the simulation's frames are shown, the mode again once paused.
  animate->setChecked(true);
  QTest::mouseClick(window->simulatePanel()->playButton(), Qt::LeftButton);
  ASSERT_TRUE(waitUntil([&] { return sim()->displayedFrame() >= 5 || !sim()->lastError().isEmpty(); }, 60000));
  EXPECT_FALSE(sim()->showingMode());
  QTest::mouseClick(window->simulatePanel()->playButton(), Qt::LeftButton);
  ASSERT_TRUE(waitUntil([&] { return !sim()->simulating(); }));
  EXPECT_TRUE(waitUntil([&] { return sim()->showingMode(); }));
  animate->setChecked(false);

  // Fewer modes per body: the model is outdated and the next Step rebuilds it.
  child<QSpinBox>("simParam_modes")->setValue(4);
  EXPECT_TRUE(sim()->modelOutdated());
  QTest::mouseClick(window->simulatePanel()->stepButton(), Qt::LeftButton);
  ASSERT_TRUE(waitUntil([&] { return !sim()->simulating(); }, 120000));
  QCoreApplication::processEvents();
  ASSERT_TRUE(sim()->lastError().isEmpty()) << sim()->lastError().toStdString();
  EXPECT_EQ(sim()->frameCount(), 2);
  for (const auto& b : sim()->modalBodies()) EXPECT_EQ(b.frequencies.size(), 4u);
  EXPECT_EQ(mode->maximum(), 3);
}

// A project without a volume with skinning weights: the log and the error
// dialog say to run rig; nothing is simulated and the window stays usable.
TEST_F(ShethTest, ProjectWithoutWeightsSaysToRig) {
  window->openProjectData(loadProject(examplePath().toStdString()), examplePath());
  chooseSheth();
  QSignalSpy failed(sim(), &SimulationController::failed);
  QTest::mouseClick(window->simulatePanel()->playButton(), Qt::LeftButton);
  ASSERT_TRUE(waitUntil([&] { return !sim()->simulating(); }, 60000));
  QCoreApplication::processEvents();
  ASSERT_EQ(failed.count(), 1);
  EXPECT_EQ(failed.at(0).at(0).toString(), "Cannot simulate");
  EXPECT_TRUE(failed.at(0).at(1).toString().contains("sinew-cli rig")) << failed.at(0).at(1).toString().toStdString();
  EXPECT_TRUE(logHas("no volume with skinning weights"));
  EXPECT_FALSE(sim()->hasSimulation());
  EXPECT_FALSE(sim()->building());
  EXPECT_FALSE(child<QProgressBar>("simBuildProgress")->isVisible());
  EXPECT_EQ(window->simulatePanel()->playButton()->text(), "Play");
  EXPECT_TRUE(sim()->modalBodies().empty());
  const int before = view()->framesRendered();
  view()->update();
  EXPECT_TRUE(waitUntil([&] { return view()->framesRendered() > before; }));
}

// With the Kinematic drive and a clip, the pelvis' body follows the clip
// (its joint pose is the clip's, exactly) and the other bones hang from it.
TEST_F(ShethTest, AClipMovesThePelvisAndTheRestHangs) {
  chooseSheth();
  auto* drive = child<QComboBox>("simDrive");
  ASSERT_TRUE(drive->isEnabled());
  drive->setCurrentIndex(drive->findData(int(DriveMode::Kinematic)));
  auto* clip = child<QComboBox>("simClip");
  ASSERT_TRUE(clip->isEnabled());
  clip->setCurrentIndex(clip->findText("Walk in place"));
  ASSERT_EQ(clip->currentText(), "Walk in place");
  playUntil(1.0);
  EXPECT_TRUE(logHas("the pelvis follows 'Walk in place' kinematically"));
  const Project& project = window->document()->project();
  const Skeleton& skeleton = project.skeleton->skeleton;
  const MotionClip* walk = nullptr;
  for (const ClipObject& c : project.clips)
    if (c.clip.name == "Walk in place") walk = &c.clip;
  ASSERT_NE(walk, nullptr);
  const int frame = sim()->frameCount() - 1;
  sim()->showFrame(frame);
  const std::vector<Transform>* poses = sim()->display().jointPose();
  ASSERT_NE(poses, nullptr);
  const std::vector<Transform> want = skeletonPoseFromClip(skeleton, *walk, sim()->frameTime() * frame, true);
  EXPECT_LT(((*poses)[0].translation - want[0].translation).norm(), 1e-6) << "the pelvis is where the clip puts it";
  EXPECT_LT((*poses)[0].rotation.angularDistance(want[0].rotation), 1e-6);
  // The free hands are not where the clip's forward kinematics would put them: they hang.
  const int32_t hand = skeleton.find("LeftHand");
  ASSERT_GE(hand, 0);
  EXPECT_GT(((*poses)[size_t(hand)].translation - want[size_t(hand)].translation).norm(), 0.05);
  shot("/tmp/sinew-sheth-walk.png");
}

