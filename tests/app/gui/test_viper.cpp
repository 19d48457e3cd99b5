// VIPER rods (Angles et al. 2019) in the GUI, driven like a user: the arm
// example (a viperized biceps on two capsule bones) plays with its Flex clip
// through the Simulate dock's VIPER solver while the activation slider moves,
// the timeline caches surfaces and pills, Ctrl+drag grabs the muscle; the
// Viperize action rebuilds the rods in the background as one undo step;
// muscle ends are painted and unpainted; a muscle is added between two bones;
// bad input is named; four octopi fall and land. Screenshots go to /tmp.
#include "Commands.h"
#include "GuiTestUtil.h"
#include "MainWindow.h"
#include "examples/ViperScenes.h"
#include "io/ProjectFile.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>

#include <algorithm>
#include <cmath>

using namespace sinew;
using namespace sinew::app;
using namespace sinew::test;

namespace {

class ViperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    window = std::make_unique<MainWindow>(MainWindow::RecoveryPolicy::Ignore);
    window->setInteractive(false);
    window->resize(1400, 900);
    window->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
    window->findChild<QDockWidget*>("dockSimulate")->raise();
    ASSERT_TRUE(waitUntil([&] { return view()->framesRendered() >= 1; }));
  }
  void TearDown() override {
    window->document()->undoStack()->setClean();
    window->close();
    window.reset();
  }

  // Saves `project` as a .sinew file and opens it through File > Open's path
  // (asynchronous, on the task runner), then looks at it from the front.
  void open(const Project& project, const QString& name) {
    // One folder per test: ctest runs tests of this binary in parallel processes.
    const QString test = QString::fromStdString(::testing::UnitTest::GetInstance()->current_test_info()->name());
    const QString path = tempDir("viper-" + test + "-" + name) + "/" + name + ".sinew";
    saveProject(project, path.toStdString());
    ASSERT_TRUE(window->openProject(path));
    ASSERT_TRUE(window->tasks()->waitForIdle(60000));
    ASSERT_EQ(window->document()->path(), path);
    view()->camera().yaw = 0;
    view()->camera().pitch = 0.15;
    view()->frameAll();
  }
  void openArm() { open(examples::makeArmProject(), "arm"); }

  ViewportWidget* view() { return window->viewport(); }
  SimulationController* sim() { return window->simulation(); }
  template <class T>
  T* child(const char* name) {
    T* w = window->findChild<T*>(name);
    EXPECT_NE(w, nullptr) << name;
    return w;
  }
  void chooseViper() {
    auto* solver = child<QComboBox>("simSolver");
    solver->setCurrentIndex(solver->findData(int(SimulationController::Solver::Viper)));
    ASSERT_EQ(sim()->solver(), SimulationController::Solver::Viper);
  }
  const RodBodyObject& body(size_t i = 0) { return window->document()->project().rodBodies.at(i); }
  bool logHas(const QString& text) {
    for (const LogEntry& e : window->log()->entries())
      if (e.message.contains(text)) return true;
    return false;
  }
  QPoint projected(const Vec3& p) {
    double x, y;
    EXPECT_TRUE(view()->camera().project(p, view()->width(), view()->height(), &x, &y));
    return QPoint(int(std::lround(x)), int(std::lround(y)));
  }
  void send(QEvent::Type type, QPoint pos, Qt::MouseButtons buttons, Qt::KeyboardModifiers mods) {
    QMouseEvent e(type, QPointF(pos), QPointF(view()->mapToGlobal(pos)), Qt::LeftButton, buttons, mods);
    QApplication::sendEvent(view(), &e);
  }
  void drag(QPoint from, QPoint to, Qt::KeyboardModifiers mods = Qt::NoModifier) {
    send(QEvent::MouseButtonPress, from, Qt::LeftButton, mods);
    for (int i = 1; i <= 8; ++i) send(QEvent::MouseMove, from + (to - from) * i / 8, Qt::LeftButton, mods);
    send(QEvent::MouseButtonRelease, to, Qt::NoButton, mods);
  }
  QImage shot(const QString& path) {
    const int before = view()->framesRendered();
    view()->update();
    EXPECT_TRUE(waitUntil([&] { return view()->framesRendered() > before; }));
    QTest::qWait(100);
    const QImage image = window->grab().toImage();
    image.save(path);
    return image;
  }
  // Plays until the simulated time reaches `seconds` (or an error stops it).
  void playUntil(double seconds) {
    if (!sim()->simulating()) QTest::mouseClick(window->simulatePanel()->playButton(), Qt::LeftButton);
    const auto reached = [&] { return sim()->simulatedTime() >= seconds - 1e-9 || !sim()->lastError().isEmpty(); };
    ASSERT_TRUE(waitUntil(reached, 120000))
        << "simulated " << sim()->simulatedTime() << " s";
    ASSERT_TRUE(sim()->lastError().isEmpty()) << sim()->lastError().toStdString();
    // The worker runs many times faster than real time: let the UI show a frame of it.
    ASSERT_TRUE(waitUntil([&] { return sim()->displayedFrame() >= 0; }));
  }

  std::unique_ptr<MainWindow> window;
};

double maxScale(const render::PillSet& pills) {
  double s = 0;
  for (double x : pills.scales) s = std::max(s, x);
  return s;
}

}  // namespace

// The arm plays 1 s with the Flex clip (bones kinematic), then the
// activation slider goes to 1 while it plays: the timeline holds the skinned
// surface and the rods' nodes for every frame, the surface follows the bent
// elbow, and the activated belly bulges (scale s > 1, drawn red). Ctrl+drag
// grabs the muscle.
TEST_F(ViperTest, ArmFlexesWithItsClipAndBulgesWhenActivated) {
  openArm();
  EXPECT_EQ(window->outliner()->itemsUnder("Muscles"), QStringList{"Biceps"});
  chooseViper();
  auto* drive = child<QComboBox>("simDrive");
  drive->setCurrentIndex(drive->findData(int(DriveMode::Kinematic)));
  auto* clip = child<QComboBox>("simClip");
  clip->setCurrentIndex(clip->findText("Flex"));
  ASSERT_EQ(clip->currentText(), "Flex");
  auto* activation = child<QSlider>("simActivation");
  ASSERT_TRUE(activation->isEnabled());
  EXPECT_EQ(activation->value(), 0);
  ASSERT_NE(child<QCheckBox>("viewPills"), nullptr);
  EXPECT_TRUE(child<QCheckBox>("viewPills")->isChecked());

  playUntil(1.0);
  // Halfway through the bend, the muscle fully activated while playing.
  activation->setValue(activation->maximum());
  EXPECT_DOUBLE_EQ(sim()->activation(), 1.0);
  const int activatedFrom = sim()->frameCount();
  playUntil(1.6);

  // Grab the middle of the muscle (a displayed vertex facing the camera) and pull it towards the viewer's up.
  const std::vector<Vec3> surface = sim()->displayedSurface();
  ASSERT_FALSE(surface.empty());
  Vec3 centre = Vec3::Zero();
  for (const Vec3& p : surface) centre += p;
  centre /= double(surface.size());
  const QPoint aim = projected(centre);
  int32_t vertex = -1;
  double best = 0;
  QPoint from;
  for (size_t i = 0; i < surface.size(); ++i) {
    if ((view()->camera().eye() - surface[i]).dot(surface[i] - centre) <= 0) continue;  // the near side
    const QPoint p = projected(surface[i]);
    const double d = std::hypot(p.x() - aim.x(), p.y() - aim.y());
    if (vertex < 0 || d < best) {
      vertex = int32_t(i);
      best = d;
      from = p;
    }
  }
  ASSERT_GE(vertex, 0);
  send(QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::ControlModifier);
  ASSERT_GE(sim()->grabbedVertex(), 0) << "pressed on vertex " << vertex;
  for (int i = 1; i <= 8; ++i) send(QEvent::MouseMove, from + QPoint(0, -8 * i), Qt::LeftButton, Qt::ControlModifier);
  const double grabbedAt = sim()->simulatedTime();
  playUntil(grabbedAt + 0.3);
  send(QEvent::MouseButtonRelease, from + QPoint(0, -64), Qt::NoButton, Qt::ControlModifier);
  EXPECT_EQ(sim()->grabbedVertex(), -1);
  sim()->pause();
  ASSERT_TRUE(waitUntil([&] { return !sim()->simulating(); }));
  ASSERT_TRUE(sim()->lastError().isEmpty()) << sim()->lastError().toStdString();

  // Every frame cached: 1/60 s apart, each with the surface and all 40 rod nodes.
  const int n = sim()->frameCount();
  ASSERT_GE(n, 100);
  EXPECT_NEAR(sim()->frameTime(), 1.0 / 60, 1e-12);
  const MeshObject* mesh = window->document()->project().findMesh(body().surface);
  ASSERT_NE(mesh, nullptr);
  EXPECT_EQ(sim()->surfaceMesh(), mesh->id);
  const std::vector<Vec3> first = sim()->frameSurface(0), last = sim()->frameSurface(n - 1);
  ASSERT_EQ(first.size(), mesh->mesh.vertexCount());
  ASSERT_EQ(last.size(), mesh->mesh.vertexCount());
  double moved = 0;
  for (size_t i = 0; i < first.size(); ++i) moved = std::max(moved, (last[i] - first[i]).norm());
  EXPECT_GT(moved, 0.03) << "the skin follows the bent elbow";  // 0.046-0.07 m, by where the worker stopped
  for (int f : {0, n / 2, n - 1}) {
    const render::PillSet pills = sim()->framePills(f);
    EXPECT_EQ(pills.centres.size(), body().nodeCount()) << "frame " << f;
    EXPECT_EQ(pills.segments.size(), body().segmentCount()) << "frame " << f;
  }
  EXPECT_NEAR(maxScale(sim()->framePills(0)), 1.0, 1e-9) << "rest scale at t = 0";
  double bulge = 0;
  for (int f = activatedFrom; f < n; ++f) bulge = std::max(bulge, maxScale(sim()->framePills(f)));
  EXPECT_GT(bulge, 1.05) << "the activated belly bulges";

  // Scrubbing shows the cached frame's pills in the viewport (one item in place of the rest pills).
  window->simulatePanel()->timeline()->setValue(n - 1);
  shot("/tmp/sinew-viper-arm.png");
  EXPECT_EQ(sim()->displayedFrame(), n - 1);

  // Hiding the pills makes the skin opaque again; the image changes.
  const QImage withPills = window->grab().toImage();
  child<QCheckBox>("viewPills")->setChecked(false);
  EXPECT_FALSE(view()->settings().pills);
  EXPECT_FALSE(window->actPills->isChecked());
  const QImage without = shot("/tmp/sinew-viper-arm-skin.png");
  const QRect viewport(view()->mapTo(window.get(), QPoint(0, 0)), view()->size());
  EXPECT_GT(meanAbsDifference(withPills, without, viewport), 0.05);
  window->actPills->trigger();
  EXPECT_TRUE(child<QCheckBox>("viewPills")->isChecked());
}

// Activation alone, the arm held at rest: the slider set while paused
// reaches the solver at once; the contracting belly thickens (Fig. 10). The
// thickest node of each frame, by its median over the frames (a rod touching
// a bone can spike for a frame or two).
TEST_F(ViperTest, ActivationMakesTheRestingMuscleBulge) {
  openArm();
  chooseViper();
  auto* drive = child<QComboBox>("simDrive");
  drive->setCurrentIndex(drive->findData(int(DriveMode::Hold)));
  playUntil(0.5);
  sim()->pause();
  ASSERT_TRUE(waitUntil([&] { return !sim()->simulating(); }));
  const int relaxed = sim()->frameCount();
  auto activation = child<QSlider>("simActivation");
  activation->setValue(activation->maximum());
  EXPECT_DOUBLE_EQ(sim()->activation(), 1.0);
  playUntil(sim()->simulatedTime() + 1.0);
  sim()->pause();
  ASSERT_TRUE(waitUntil([&] { return !sim()->simulating(); }));
  auto medianThickest = [&](int from, int to) {
    std::vector<double> s;
    for (int f = from; f < to; ++f) s.push_back(maxScale(sim()->framePills(f)));
    std::nth_element(s.begin(), s.begin() + long(s.size() / 2), s.end());
    return s[s.size() / 2];
  };
  EXPECT_LT(medianThickest(1, relaxed), 1.02) << "relaxed, the muscle keeps its rest radii";
  EXPECT_GT(medianThickest(relaxed + 30, sim()->frameCount()), 1.04) << "activated, its belly thickens";
}

// Viperize from the Muscles section with K = 4: a background task (the UI
// stays live), one undo step; what viperize cannot work with is said before
// any work starts.
TEST_F(ViperTest, ViperizeActionRebuildsTheRodsAsOneUndoStep) {
  openArm();
  MusclePanel* muscles = window->musclePanel();
  ASSERT_EQ(muscles->currentBody(), body().id) << "the only muscle is the current one";
  EXPECT_EQ(child<QSpinBox>("viperRods")->value(), 5);
  EXPECT_EQ(child<QSpinBox>("viperSlices")->value(), 8);
  ASSERT_EQ(body().rods.size(), 5u);
  const RodBodyObject before = body();
  const int undoIndex = window->document()->undoStack()->index();

  child<QSpinBox>("viperRods")->setValue(4);
  window->actViperize->trigger();
  EXPECT_TRUE(window->tasks()->busy() || body().rods.size() == 4u) << "runs in the background";
  ASSERT_TRUE(window->tasks()->waitForIdle(120000));
  ASSERT_EQ(body().rods.size(), 4u);
  EXPECT_EQ(body().rodCount, 4);
  EXPECT_EQ(body().sliceCount, 8);
  for (const RodBodyRod& r : body().rods) EXPECT_EQ(r.nodes.size(), 8u);
  EXPECT_EQ(body().pins.size(), 8u) << "both ends of every rod";
  EXPECT_EQ(body().paint, before.paint);
  EXPECT_EQ(window->document()->undoStack()->index(), undoIndex + 1);
  EXPECT_TRUE(logHas("Viperized 'Biceps': 4 rods of 8 nodes"));
  EXPECT_EQ(window->outliner()->itemsUnder("Muscles"), QStringList{"Biceps"});

  // The new rods simulate.
  chooseViper();
  QTest::mouseClick(window->simulatePanel()->stepButton(), Qt::LeftButton);
  ASSERT_TRUE(waitUntil([&] { return !sim()->simulating() && sim()->frameCount() == 2; }, 60000));
  EXPECT_EQ(sim()->framePills(1).centres.size(), 32u);

  window->actUndo->trigger();
  EXPECT_EQ(body(), before);
  window->actRedo->trigger();
  EXPECT_EQ(body().rods.size(), 4u);

  // Cancelled (the progress dialog's Cancel): nothing changes.
  child<QSpinBox>("viperRods")->setValue(3);
  ASSERT_TRUE(muscles->viperize());
  window->tasks()->cancel();
  ASSERT_TRUE(window->tasks()->waitForIdle(120000));
  EXPECT_EQ(body().rods.size(), 4u);
  EXPECT_TRUE(logHas("Viperizing Biceps cancelled; nothing changed"));

  // Only sources painted: said at once, no task, nothing changed.
  RodBodyObject sourcesOnly = body();
  for (MusclePaint& m : sourcesOnly.paint)
    if (m == MusclePaint::Sink) m = MusclePaint::None;
  window->document()->undoStack()->push(new SetRodBodyCommand(window->document(), sourcesOnly, "test"));
  const int index = window->document()->undoStack()->index();
  EXPECT_FALSE(muscles->viperize());
  EXPECT_FALSE(window->tasks()->busy());
  EXPECT_TRUE(logHas("only sources are painted"));
  EXPECT_EQ(window->document()->undoStack()->index(), index);
}

// The muscle brush: a Source stroke across the biceps' belly marks the
// vertices under it (and only those), is one undo step, and undo brings the
// paint back.
TEST_F(ViperTest, PaintingMuscleEndsIsOneUndoStepPerStroke) {
  openArm();
  window->actToolPaintMuscle->trigger();
  MusclePaintController* paint = window->musclePaint();
  ASSERT_TRUE(paint->active);
  ASSERT_EQ(paint->body(), body().id);
  ASSERT_EQ(paint->surface(), body().surface);
  const std::vector<MusclePaint> before = body().paint;
  ASSERT_EQ(paint->marks(), before);
  auto* mode = child<QComboBox>("musclePaintMode");
  mode->setCurrentIndex(mode->findData(int(MusclePaintController::Mode::Source)));
  EXPECT_EQ(paint->mode, MusclePaintController::Mode::Source);
  // Across the belly, seen from the front: the middle of the spindle lies unpainted.
  const QPoint from = projected(Vec3(0.17, 0.665, 0.03)), to = projected(Vec3(0.23, 0.655, 0.03));
  ASSERT_TRUE(paint->surfacePoint(from).has_value());
  ASSERT_TRUE(paint->surfacePoint(to).has_value());
  const int undoIndex = window->document()->undoStack()->index();
  drag(from, to);
  EXPECT_EQ(window->document()->undoStack()->index(), undoIndex + 1) << "one stroke, one undo step";
  const std::vector<MusclePaint>& after = body().paint;
  ASSERT_EQ(after.size(), before.size());
  const TriMesh& surface = window->document()->project().findMesh(body().surface)->mesh;
  int painted = 0;
  for (size_t v = 0; v < after.size(); ++v) {
    if (after[v] == before[v]) continue;
    ++painted;
    EXPECT_EQ(after[v], MusclePaint::Source);
    const Vec3& p = surface.positions[v];
    EXPECT_GT(p.x(), 0.17 - paint->radius - 0.01);
    EXPECT_LT(p.x(), 0.23 + paint->radius + 0.01);
  }
  EXPECT_GT(painted, 5);
  window->findChild<QDockWidget*>("dockRig")->raise();
  shot("/tmp/sinew-viper-paint.png");
  window->musclePanel()->grab().save("/tmp/sinew-viper-muscle-panel.png");
  window->actUndo->trigger();
  EXPECT_EQ(body().paint, before);
  EXPECT_EQ(paint->marks(), before);
  window->actRedo->trigger();
  EXPECT_EQ(body().paint, after);
}

// Add Muscle Between Bones: a spindle over UpperArm and Forearm with its ends
// painted, as one undo step; undo takes both the surface and the body away.
TEST_F(ViperTest, AddsAMuscleBetweenTwoBones) {
  openArm();
  const size_t meshes = window->document()->project().meshes.size();
  child<QComboBox>("muscleOrigin")->setCurrentText("UpperArm");
  child<QComboBox>("muscleInsertion")->setCurrentText("Forearm");
  const int undoIndex = window->document()->undoStack()->index();
  window->actAddMuscle->trigger();
  ASSERT_EQ(window->document()->project().rodBodies.size(), 2u);
  EXPECT_EQ(window->document()->undoStack()->index(), undoIndex + 1);
  const RodBodyObject& added = body(1);
  EXPECT_EQ(added.name, "UpperArm-Forearm");
  EXPECT_EQ(added.originBone, "UpperArm");
  EXPECT_EQ(added.insertionBone, "Forearm");
  EXPECT_FALSE(added.selfCollision);
  EXPECT_TRUE(added.rods.empty());
  const MeshObject* surface = window->document()->project().findMesh(added.surface);
  ASSERT_NE(surface, nullptr);
  ASSERT_EQ(added.paint.size(), surface->mesh.vertexCount());
  EXPECT_GT(std::count(added.paint.begin(), added.paint.end(), MusclePaint::Source), 0);
  EXPECT_GT(std::count(added.paint.begin(), added.paint.end(), MusclePaint::Sink), 0);
  EXPECT_GT(surface->mesh.bounds().min.y(), 0.6) << "above the bones";
  EXPECT_EQ(window->musclePanel()->currentBody(), added.id);
  EXPECT_EQ(window->selectedObject(), added.id);
  EXPECT_TRUE(window->outliner()->itemsUnder("Muscles").contains("UpperArm-Forearm"));

  // Not viperized yet: the VIPER solver says so instead of simulating.
  chooseViper();
  QTest::mouseClick(window->simulatePanel()->playButton(), Qt::LeftButton);
  ASSERT_TRUE(waitUntil([&] { return !sim()->simulating(); }, 60000));
  QCoreApplication::processEvents();
  EXPECT_TRUE(logHas("has no rods yet: viperize it first"));
  EXPECT_FALSE(sim()->hasSimulation());

  // Viperized, it plays.
  ASSERT_TRUE(window->musclePanel()->viperize());
  ASSERT_TRUE(window->tasks()->waitForIdle(120000));
  EXPECT_FALSE(body(1).rods.empty());
  shot("/tmp/sinew-viper-added.png");

  // Its properties, and Delete (undoable like any object).
  EXPECT_EQ(window->properties()->object(), body(1).id);
  window->actDelete->trigger();
  ASSERT_EQ(window->document()->project().rodBodies.size(), 1u);
  window->actUndo->trigger();
  ASSERT_EQ(window->document()->project().rodBodies.size(), 2u);
  EXPECT_FALSE(body(1).rods.empty());

  window->actUndo->trigger();  // the viperization
  window->actUndo->trigger();  // the muscle
  EXPECT_EQ(window->document()->project().rodBodies.size(), 1u);
  EXPECT_EQ(window->document()->project().meshes.size(), meshes);
  EXPECT_EQ(window->outliner()->itemsUnder("Muscles"), QStringList{"Biceps"});
}

// A project without rod bodies: the solver's message in the log, no crash.
TEST_F(ViperTest, AProjectWithoutRodBodiesSaysSo) {
  window->openProjectData(loadProject(examplePath().toStdString()), examplePath());
  chooseViper();
  QTest::mouseClick(window->simulatePanel()->playButton(), Qt::LeftButton);
  ASSERT_TRUE(waitUntil([&] { return !sim()->simulating(); }, 60000));
  QCoreApplication::processEvents();
  EXPECT_TRUE(logHas("the project has no rod bodies"));
  EXPECT_FALSE(sim()->hasSimulation());
  EXPECT_FALSE(sim()->lastError().isEmpty());
  EXPECT_FALSE(window->musclePanel()->viperize()) << "nothing to viperize either";
  EXPECT_TRUE(logHas("There is no muscle to viperize"));
  const int before = view()->framesRendered();
  view()->update();
  EXPECT_TRUE(waitUntil([&] { return view()->framesRendered() > before; }));
}

// Four octopi (one rod body of 36 rods, skinned) fall onto the ground.
TEST_F(ViperTest, OctopiFallAndLand) {
  open(examples::makeOctopusProject(4), "octopus");
  view()->camera().pitch = 0.45;
  view()->frameAll();
  chooseViper();
  playUntil(1.0);
  sim()->pause();
  ASSERT_TRUE(waitUntil([&] { return !sim()->simulating(); }));
  const int n = sim()->frameCount();
  ASSERT_GE(n, 60);
  const render::PillSet start = sim()->framePills(0), end = sim()->framePills(n - 1);
  ASSERT_EQ(start.centres.size(), end.centres.size());
  ASSERT_FALSE(start.centres.empty());
  double y0 = 0, y1 = 0, lowest = 1e9;
  for (size_t i = 0; i < start.centres.size(); ++i) {
    y0 += start.centres[i].y();
    y1 += end.centres[i].y();
    lowest = std::min(lowest, end.centres[i].y() - end.radii[i]);
  }
  EXPECT_LT(y1, y0 - 0.05 * double(start.centres.size())) << "they fell";
  EXPECT_GT(lowest, -0.02) << "and rest on the ground";
  const std::vector<Vec3> skin0 = sim()->frameSurface(0), skin1 = sim()->frameSurface(n - 1);
  ASSERT_EQ(skin0.size(), skin1.size());
  ASSERT_FALSE(skin0.empty());
  EXPECT_GT((skin1[0] - skin0[0]).norm(), 0.05) << "the skin follows the pills";
  const QImage image = shot("/tmp/sinew-viper-octopus.png");
  EXPECT_GT(imageStats(image).distinctColors, 50);
}

// The elastic band (Fig. 8): three bundled rods, one end held in the world,
// the other carried by the Stretch clip's handle, which pulls it longer.
TEST_F(ViperTest, TheBandStretchesWithItsClip) {
  open(examples::makeBandProject(), "band");
  chooseViper();
  auto* drive = child<QComboBox>("simDrive");
  drive->setCurrentIndex(drive->findData(int(DriveMode::Kinematic)));
  auto* clip = child<QComboBox>("simClip");
  ASSERT_GT(clip->count(), 0);
  playUntil(1.0);
  sim()->pause();
  ASSERT_TRUE(waitUntil([&] { return !sim()->simulating(); }));
  const int n = sim()->frameCount();
  const render::PillSet start = sim()->framePills(0), end = sim()->framePills(n - 1);
  ASSERT_FALSE(start.centres.empty());
  ASSERT_EQ(start.centres.size(), end.centres.size());
  double moved = 0;
  for (size_t i = 0; i < start.centres.size(); ++i) moved = std::max(moved, (end.centres[i] - start.centres[i]).norm());
  EXPECT_GT(moved, 0.05) << "the handle pulled the band";
  // Frame All takes in the displayed (stretched) band, not only its rest pose.
  const double restDistance = view()->camera().distance;
  view()->frameAll();
  EXPECT_GT(view()->camera().distance, restDistance);
  shot("/tmp/sinew-viper-band.png");
}
