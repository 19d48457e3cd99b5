// Nothing leaks between what the user does (issue 25's reproduced defects):
// a played controller ends with File > New and with a solver chosen; an
// Outliner click selects for Properties and Delete; New empties the Control
// panel, the plots and the hover label; the wheel changes only a focused box;
// F frames the selected joint; playback is paced to real time; the layout
// holds at 1024x700.
#include "GuiTestUtil.h"
#include "MainWindow.h"
#include "ReplanBox.h"
#include "control/SearchParams.h"
#include "io/ProjectFile.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineSeries>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTest>
#include <QTreeWidget>
#include <QUndoStack>
#include <QWheelEvent>

#include <chrono>

using namespace sinew;
using namespace sinew::app;
using namespace sinew::test;

namespace {

class StateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    window = std::make_unique<MainWindow>(MainWindow::RecoveryPolicy::Ignore);
    window->setInteractive(false);
    window->resize(1400, 900);
    window->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
  }
  void TearDown() override {
    window->document()->undoStack()->setClean();
    window->close();
    window.reset();
  }
  void open(const char* rel) {
    const QString path = sourcePath(rel);
    window->openProjectData(loadProject(path.toStdString()), path);
  }
  bool logHas(const QString& text) {
    for (const LogEntry& e : window->log()->entries())
      if (e.message.contains(text)) return true;
    return false;
  }
  template <class T> T* child(const char* name) { return window->findChild<T*>(name); }
  void chooseSolver(SimulationController::Solver kind) {
    auto* solver = child<QComboBox>("simSolver");
    solver->setCurrentIndex(solver->findData(int(kind)));
  }
  // From the Control dock: a small search on the first second of the walk clip.
  ControllerPanel* startWalkSearch() {
    window->findChild<QDockWidget*>("dockControl")->raise();
    ControllerPanel* panel = window->controllerPanel();
    auto* clip = panel->findChild<QComboBox*>("ctlClip");
    clip->setCurrentIndex(clip->findText("Walk in place"));
    panel->findChild<QDoubleSpinBox*>("ctlSegmentStart")->setValue(0.0);
    panel->findChild<QDoubleSpinBox*>("ctlSegmentEnd")->setValue(1.0);
    panel->findChild<QSpinBox*>("ctlSamples")->setValue(8);
    panel->findChild<QSpinBox*>("ctlKeep")->setValue(2);
    QTest::mouseClick(panel->findChild<QPushButton*>("ctlRun"), Qt::LeftButton);
    return panel;
  }
  std::unique_ptr<MainWindow> window;
};

// Played once, a controller no longer overrides the solver once another is
// chosen, nor survives File > New.
TEST_F(StateTest, APlayedControllerEndsWithASolverChoiceAndWithNew) {
  open("projects/humanoid/humanoid-walk.sinew");
  SimulationController* sim = window->simulation();
  const ControllerObject c = window->document()->project().controllers.at(0);
  sim->setController(c, false);
  ASSERT_TRUE(sim->controller());
  chooseSolver(SimulationController::Solver::Li2019);
  EXPECT_FALSE(sim->controller()) << "the chosen solver runs";
  EXPECT_TRUE(logHas("Simulate panel's solver runs"));
  chooseSolver(SimulationController::Solver::Liu2013);
  sim->setController(c, false);
  ASSERT_TRUE(sim->controller());
  window->actNew->trigger();
  EXPECT_FALSE(sim->controller());
  EXPECT_FALSE(sim->playingKinematicClip());
  // An unrelated project plays with its own solver: Li 2019 is built.
  open("projects/humanoid/humanoid-rigged.sinew");
  chooseSolver(SimulationController::Solver::Li2019);
  sim->play();
  ASSERT_TRUE(waitUntil([&] { return sim->frameCount() >= 2 || !sim->lastError().isEmpty(); }, 120000));
  sim->pause();
  EXPECT_TRUE(logHas("building the Li 2019 model")) << "the Li 2019 model is built";
  EXPECT_FALSE(logHas("joint map does not match"));
}

// An Outliner click on a joint selects it for Properties and Delete, which
// removes that joint and not the one last picked in the viewport.
TEST_F(StateTest, AnOutlinerJointClickSelectsItForPropertiesAndDelete) {
  open("projects/humanoid/humanoid.sinew");
  window->selectJoint("LeftHand");  // as a viewport pick would
  auto* tree = window->outliner();
  QTreeWidgetItem* row = nullptr;
  for (QTreeWidgetItemIterator it(tree); *it; ++it)
    if ((*it)->text(0) == "RightFoot") row = *it;
  ASSERT_NE(row, nullptr);
  tree->scrollToItem(row);
  QTest::mouseClick(tree->viewport(), Qt::LeftButton, Qt::NoModifier, tree->visualItemRect(row).center());
  EXPECT_EQ(window->rig()->selectedJoint(), "RightFoot");
  EXPECT_TRUE(window->actDelete->isEnabled());
  bool nothing = false;
  for (QLabel* l : window->properties()->findChildren<QLabel*>()) nothing |= l->isVisible() && l->text().contains("Nothing selected");
  EXPECT_FALSE(nothing) << "Properties shows the joint";
  window->actDelete->trigger();
  const Skeleton& s = window->document()->project().skeleton->skeleton;
  EXPECT_LT(s.find("RightFoot"), 0);
  EXPECT_GE(s.find("LeftHand"), 0);
}

// One selection: whichever panel sets it, the Outliner, Properties, the
// viewport and the Edit menu show the same; deleting the selected object or
// File > New leaves nothing selected anywhere.
TEST_F(StateTest, EveryPanelShowsTheOneSelection) {
  open("projects/humanoid/humanoid-rigged.sinew");
  const Project& p = window->document()->project();
  const ObjectId mesh = p.meshes.at(0).id, skeleton = p.skeleton->id;
  auto* tree = window->outliner();
  auto outlinerRow = [&] { return tree->selectedItems().isEmpty() ? QString() : tree->selectedItems().front()->text(0); };
  auto propertiesSays = [&](const QString& text) {
    for (QLabel* l : window->properties()->findChildren<QLabel*>())
      if (l->isVisible() && l->text().contains(text)) return true;
    return false;
  };
  // The Outliner sets it.
  QTreeWidgetItem* row = nullptr;
  for (QTreeWidgetItemIterator it(tree); *it; ++it)
    if ((*it)->text(0) == QString::fromStdString(p.meshes[0].name)) row = *it;
  ASSERT_NE(row, nullptr);
  tree->scrollToItem(row);
  QTest::mouseClick(tree->viewport(), Qt::LeftButton, Qt::NoModifier, tree->visualItemRect(row).center());
  EXPECT_EQ(window->document()->selection().object(), mesh);
  EXPECT_EQ(window->viewport()->selectedObject(), mesh);
  EXPECT_EQ(window->properties()->object(), mesh);
  EXPECT_TRUE(window->actValidate->isEnabled());
  // The viewport (a joint pick) sets it: the Outliner's row follows.
  window->selectJoint("LeftForeArm");
  EXPECT_EQ(outlinerRow(), "LeftForeArm");
  EXPECT_EQ(window->properties()->joint(), "LeftForeArm");
  EXPECT_EQ(window->viewport()->selectedObject(), skeleton);
  EXPECT_EQ(window->viewport()->selectionDetail().joint, p.skeleton->skeleton.find("LeftForeArm"));
  EXPECT_FALSE(window->actValidate->isEnabled()) << "a joint is not a mesh";
  EXPECT_FALSE(window->actRename->isEnabled()) << "joints are renamed in Properties";
  QApplication::processEvents();
  window->grab().save("/tmp/sinew-selection.png");  // looked at: the row, the ring and Properties agree
  // Deleting the selected object empties the selection everywhere; Undo brings the object back unselected.
  window->selectObject(mesh);
  EXPECT_EQ(window->rig()->selectedJoint(), "");
  window->actDelete->trigger();
  EXPECT_EQ(window->document()->project().findMesh(mesh), nullptr);
  EXPECT_TRUE(window->document()->selection().empty());
  EXPECT_EQ(window->viewport()->selectedObject(), 0u);
  EXPECT_TRUE(outlinerRow().isEmpty());
  EXPECT_TRUE(propertiesSays("Nothing selected"));
  EXPECT_FALSE(window->actDelete->isEnabled());
  window->document()->undoStack()->undo();
  ASSERT_NE(window->document()->project().findMesh(mesh), nullptr);
  EXPECT_TRUE(window->document()->selection().empty());
  // A joint deleted by the rig tools leaves no stale name behind.
  window->selectJoint("RightHand");
  window->actDelete->trigger();
  EXPECT_TRUE(window->document()->selection().empty());
  EXPECT_TRUE(propertiesSays("Nothing selected"));
  // New: nothing selected anywhere.
  window->selectJoint("Head");
  window->document()->undoStack()->setClean();
  window->actNew->trigger();
  EXPECT_TRUE(window->document()->selection().empty());
  EXPECT_EQ(window->rig()->selectedJoint(), "");
  EXPECT_TRUE(outlinerRow().isEmpty());
  EXPECT_EQ(window->viewport()->selectedObject(), 0u);
  EXPECT_TRUE(propertiesSays("Nothing selected"));
}

// New empties what the old project left in the panels and the viewport.
TEST_F(StateTest, NewClearsTheControlPanelThePlotsAndTheHoverLabel) {
  open("projects/humanoid/humanoid-rigged.sinew");
  SimulationController* sim = window->simulation();
  sim->play();
  ASSERT_TRUE(waitUntil([&] { return sim->frameCount() >= 5 || !sim->lastError().isEmpty(); }, 60000));
  sim->pause();
  ASSERT_TRUE(waitUntil([&] { return !sim->simulating(); }));
  EXPECT_NE(child<QLabel>("simMsPerStep")->text(), "-");
  // A search that has shown progress.
  ControllerPanel* panel = startWalkSearch();
  auto* series = qobject_cast<QLineSeries*>(panel->findChild<QChartView*>("ctlCostChart")->chart()->series().at(0));
  ASSERT_TRUE(waitUntil([&] { return series->count() >= 1; }, 180000));
  // A hover label.
  window->viewport()->setStatusText("Michelin body: vertex 4515");
  window->actNew->trigger();
  ASSERT_TRUE(waitUntil([&] { return !panel->session()->running(); }, 60000));
  QCoreApplication::processEvents();
  EXPECT_EQ(series->count(), 0);
  EXPECT_EQ(panel->findChild<QProgressBar*>("ctlProgress")->value(), 0);
  EXPECT_TRUE(window->document()->project().controllers.empty()) << "the old search's result is dropped";
  EXPECT_EQ(child<QLabel>("simMsPerStep")->text(), "-");
  EXPECT_EQ(child<QLabel>("simRealtime")->text(), "-");
  EXPECT_EQ(sim->frameCount(), 0);
  EXPECT_TRUE(window->viewport()->statusText().isEmpty());
}

// New while a re-plan (Re-plan Against a Shove) runs: it is cancelled and its
// result never reaches the new project; opening a project with controllers
// again, the box works on that project's selected controller.
TEST_F(StateTest, NewCancelsARunningReplanAndDropsItsResult) {
  open("projects/humanoid/humanoid-walk.sinew");
  window->findChild<QDockWidget*>("dockControl")->raise();
  ControllerPanel* panel = window->controllerPanel();
  panel->findChild<QListWidget*>("ctlControllers")->setCurrentRow(0);
  ReplanBox* box = panel->replanBox();
  auto* replan = box->findChild<QPushButton*>("ctlReplan");
  ASSERT_TRUE(replan->isEnabled());
  box->findChild<QSpinBox*>("ctlReplanSamples")->setValue(400);  // minutes: still running at New
  QTest::mouseClick(replan, Qt::LeftButton);
  ASSERT_TRUE(box->runner()->busy());
  QTest::qWait(500);
  window->actNew->trigger();
  ASSERT_TRUE(box->runner()->waitForIdle(120000)) << "New cancels it";
  QCoreApplication::processEvents();
  EXPECT_TRUE(window->document()->project().controllers.empty()) << "nothing of the old project's re-plan arrives";
  EXPECT_FALSE(replan->isEnabled()) << "no controller to re-plan in the new project";
  EXPECT_TRUE(logHas("cancelled, nothing changed"));
  open("projects/humanoid/humanoid-walk.sinew");
  panel->findChild<QListWidget*>("ctlControllers")->setCurrentRow(0);
  EXPECT_TRUE(replan->isEnabled());
  EXPECT_EQ(window->document()->project().controllers.size(), 1u);
}

// A search stopped after some windows keeps them under the name of the
// segment they cover, not the one asked for.
TEST_F(StateTest, AStoppedSearchIsNamedForTheSegmentItCovered) {
  open("projects/humanoid/humanoid-rigged.sinew");
  ControllerPanel* panel = startWalkSearch();
  ASSERT_TRUE(waitUntil([&] { return panel->session()->windowsDone() >= 1; }, 180000));
  QTest::mouseClick(panel->findChild<QPushButton*>("ctlStop"), Qt::LeftButton);
  ASSERT_TRUE(waitUntil([&] { return !panel->session()->running() && !window->document()->project().controllers.empty(); },
                        120000));
  const ControllerObject& c = window->document()->project().controllers.front();
  EXPECT_LT(c.end, 1.0 - 1e-6);
  EXPECT_NEAR(c.end, c.start + c.duration(), 1e-9);
  EXPECT_EQ(c.name, QString("Walk in place 0-%1 s").arg(c.end, 0, 'g', 3).toStdString());
  EXPECT_EQ(c.name.find("0-1 s"), std::string::npos) << c.name;
}

// The wheel over a spin box that has no focus scrolls past it.
TEST_F(StateTest, TheWheelChangesOnlyAFocusedSpinBox) {
  open("projects/humanoid/humanoid-rigged.sinew");
  window->findChild<QDockWidget*>("dockControl")->raise();
  auto* keep = window->controllerPanel()->findChild<QSpinBox*>("ctlKeep");
  ASSERT_NE(keep, nullptr);
  QTest::qWait(50);
  const int before = keep->value();
  auto wheel = [&](int delta) {
    const QPointF at = QPointF(keep->rect().center());
    QWheelEvent e(at, keep->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(keep, &e);
  };
  window->activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(window.get()));
  window->viewport()->setFocus();
  wheel(-120 * 3);
  EXPECT_EQ(keep->value(), before);
  EXPECT_FALSE(keep->hasFocus());
  keep->setFocus();
  ASSERT_TRUE(keep->hasFocus());
  wheel(-120);
  EXPECT_EQ(keep->value(), before - 1);
}

// F with a joint selected frames that joint, not the whole skeleton.
TEST_F(StateTest, FrameSelectedFramesTheSelectedJoint) {
  open("projects/humanoid/humanoid.sinew");
  window->selectObject(window->document()->project().skeleton->id);
  window->actFrameSelected->trigger();
  const double whole = window->viewport()->camera().distance;
  window->selectJoint("LeftHand");
  window->actFrameSelected->trigger();
  const Skeleton& s = window->document()->project().skeleton->skeleton;
  EXPECT_LT((window->viewport()->camera().target - s.restPositions()[size_t(s.find("LeftHand"))]).norm(), 1e-9);
  EXPECT_LT(window->viewport()->camera().distance, 0.5 * whole);
}

// Real time by default: a second on the wall clock simulates about a second.
TEST_F(StateTest, PlaybackIsPacedToRealTime) {
  open("projects/humanoid/humanoid-rigged.sinew");
  SimulationController* sim = window->simulation();
  ASSERT_NE(child<QCheckBox>("simAsFastAsPossible"), nullptr);
  sim->setRealTime(true);  // the tests' default is as fast as possible
  sim->play();
  ASSERT_TRUE(waitUntil([&] { return sim->frameCount() >= 2 || !sim->lastError().isEmpty(); }, 60000));
  const double t0 = sim->simulatedTime();
  const auto w0 = std::chrono::steady_clock::now();
  QTest::qWait(1500);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  const double simulated = sim->simulatedTime() - t0;
  sim->pause();
  sim->setRealTime(false);
  EXPECT_LE(simulated, wall + 0.1) << "no faster than the wall clock";
}

// The Simulate dock's solver parameters are generated from the registry's
// table: one editor per parameter of the chosen solver, its range and
// default from there, its value used by the next build.
TEST_F(StateTest, SolverParameterEditorsComeFromTheRegistry) {
  open("projects/humanoid/humanoid-rigged.sinew");
  window->findChild<QDockWidget*>("dockSimulate")->raise();
  chooseSolver(SimulationController::Solver::Li2019);
  QCoreApplication::processEvents();  // new rows show on the next event loop turn
  for (const ParamSpec& spec : solverParams(SolverKind::Li2019)) {
    QWidget* editor = window->findChild<QWidget*>(QString::fromStdString("simParam_" + spec.name));
    ASSERT_NE(editor, nullptr) << spec.name;
    EXPECT_TRUE(editor->isVisibleTo(window.get())) << spec.name;
    if (auto* box = qobject_cast<QCheckBox*>(editor)) {  // a 0/1 switch
      EXPECT_TRUE(spec.integer && spec.min == 0 && spec.max == 1) << spec.name;
      EXPECT_EQ(box->isChecked(), spec.defaultValue != 0);
    } else if (auto* box = qobject_cast<QSpinBox*>(editor)) {
      EXPECT_EQ(box->maximum(), int(spec.max));
      EXPECT_EQ(box->value(), int(spec.defaultValue));
    } else {
      auto* d = qobject_cast<QDoubleSpinBox*>(editor);
      ASSERT_NE(d, nullptr);
      const double scale = spec.unit == "s" ? 1000 : 1;  // times read in ms
      if (scale != 1) {
        EXPECT_EQ(d->suffix(), " ms");
      }
      EXPECT_DOUBLE_EQ(d->maximum(), spec.max * scale);
      EXPECT_NEAR(d->value(), spec.defaultValue * scale, 1e-3);
    }
  }
  child<QSpinBox>("simParam_iterations")->setValue(7);
  EXPECT_EQ(window->simulation()->solverParams(SolverKind::Li2019).at("iterations"), 7.0);
  window->findChild<QDockWidget*>("dockSimulate")->grab().save("/tmp/sinew-solver-params.png");
  // The value is the project's: saved with it, one undo step, read back by another window.
  const Project& p = window->document()->project();
  EXPECT_EQ(p.simulation.solverParams.at("li2019").at("iterations"), 7.0);
  const std::string saved = (tempDir("solver-params") + "/p.sinew").toStdString();
  saveProject(p, saved);
  EXPECT_EQ(loadProject(saved).simulation.solverParams.at("li2019").at("iterations"), 7.0);
  window->document()->undoStack()->undo();
  EXPECT_TRUE(p.simulation.solverParams.empty());
  EXPECT_EQ(child<QSpinBox>("simParam_iterations")->value(), int(paramValue(SolverKind::Li2019, {}, "iterations")))
      << "the editor follows the undo";
  window->document()->undoStack()->redo();
  EXPECT_EQ(child<QSpinBox>("simParam_iterations")->value(), 7);
  window->document()->undoStack()->setClean();
  window->actNew->trigger();
  chooseSolver(SimulationController::Solver::Liu2013);
  chooseSolver(SimulationController::Solver::Li2019);
  QCoreApplication::processEvents();
  EXPECT_EQ(child<QSpinBox>("simParam_iterations")->value(), int(paramValue(SolverKind::Li2019, {}, "iterations")))
      << "a new project starts from the defaults";
  // Liu 2013's step is in the table too: the one rigging chose shows in ms,
  // and an edit is the project's (no second editor in the Scene box).
  chooseSolver(SimulationController::Solver::Liu2013);
  QCoreApplication::processEvents();
  auto* dt = child<QDoubleSpinBox>("simParam_dt");
  EXPECT_NEAR(dt->value(), paramValue(SolverKind::Liu2013, {}, "dt") * 1000, 1e-9);
  EXPECT_EQ(window->findChild<QWidget*>("simTimeStep"), nullptr);
  dt->setValue(0.25);
  EXPECT_DOUBLE_EQ(window->document()->project().simulation.solverParam("liu2013", "dt").value_or(0), 0.00025);
  EXPECT_NE(window->findChild<QWidget*>("simParam_threads"), nullptr);
}

// The Control dock's search editors come from the search's table
// (control/SearchParams.h), as the CLI's flags do: the same ranges and
// defaults in both (the GUI used to allow 100,000 samples, the CLI 1,000,000).
TEST_F(StateTest, SearchEditorsComeFromTheSearchTable) {
  window->findChild<QDockWidget*>("dockControl")->raise();
  for (const ParamSpec& spec : control::searchParams()) {
    QString name = "ctl";
    bool upper = true;
    for (char c : spec.name) {
      if (c == '-') upper = true;
      else name += upper ? QChar(c).toUpper() : QChar(c), upper = false;
    }
    QWidget* editor = window->findChild<QWidget*>(name);
    ASSERT_NE(editor, nullptr) << name.toStdString();
    if (auto* box = qobject_cast<QSpinBox*>(editor)) {
      EXPECT_EQ(box->minimum(), int(spec.min)) << spec.name;
      EXPECT_EQ(box->maximum(), int(spec.max)) << spec.name;
      EXPECT_EQ(box->value(), int(spec.defaultValue)) << spec.name;
    } else {
      auto* d = qobject_cast<QDoubleSpinBox*>(editor);
      ASSERT_NE(d, nullptr) << spec.name;
      EXPECT_DOUBLE_EQ(d->minimum(), spec.min) << spec.name;
      EXPECT_DOUBLE_EQ(d->maximum(), spec.max) << spec.name;
      EXPECT_DOUBLE_EQ(d->value(), spec.defaultValue) << spec.name;
    }
    EXPECT_TRUE(editor->toolTip().contains(QString::fromStdString(spec.help).left(20))) << spec.name;
  }
}

// At 1024x700 the timeline and the playback bar keep their room.
TEST_F(StateTest, TheLayoutHoldsAt1024x700) {
  open("projects/humanoid/humanoid-rigged.sinew");
  window->resize(1024, 700);
  QTest::qWait(300);
  EXPECT_LE(window->width(), 1024);
  EXPECT_LE(window->height(), 700);
  window->findChild<QDockWidget*>("dockSimulate")->raise();
  QTest::qWait(100);
  auto* timeline = child<QSlider>("simTimeline");
  ASSERT_NE(timeline, nullptr);
  EXPECT_TRUE(timeline->isVisible());
  EXPECT_GE(timeline->width(), 60);
  window->grab().save("/tmp/sinew-1024x700.png");
  // The viewport keeps about half the width; the playback bar's slider shows.
  EXPECT_GE(window->viewport()->width(), 440);
  auto* slider = child<QSlider>("timeSlider");
  ASSERT_NE(slider, nullptr);
  EXPECT_TRUE(slider->isVisible());
}

}  // namespace
