// The main window: actions, menus, docks, the selection (viewport, Outliner,
// Properties) and edit operations; the rig docks, project files and the
// playback bar live in MainWindowRig.cpp, MainWindowFile.cpp and
// MainWindowPlayback.cpp.
#include "MainWindow.h"
#include "MainWindowParts.h"

#include "ControlsDialog.h"
#include "PanelScrollArea.h"
#include "WheelGuard.h"

#include "Commands.h"
#include "io/AnimationExport.h"
#include "io/AssimpImport.h"
#include "io/Bvh.h"
#include "io/ProjectFile.h"
#include "io/TetFiles.h"
#include "liu2013/Liu2013.h"
#include "rig/AutoJoints.h"
#include "rig/BoneShapes.h"
#include "rig/SkeletonEdit.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QToolButton>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QRegularExpression>
#include <QSettings>
#include <QSlider>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <cmath>

namespace sinew::app {

namespace detail {

// Asks how to import meshes: scale to metres, merging, welding. Remembers the
// answers (QSettings "import/*"); returns false if the user cancelled.
bool askImportOptions(QWidget* parent) {
  QSettings settings;
  QDialog dialog(parent);
  dialog.setWindowTitle(QObject::tr("Import Options"));
  auto* form = new QFormLayout(&dialog);
  auto* units = new QComboBox(&dialog);
  const std::pair<QString, double> presets[] = {{QObject::tr("detect (from the file)"), 0.0},
                                                {QObject::tr("metres"), 1.0},
                                                {QObject::tr("centimetres"), 0.01},
                                                {QObject::tr("millimetres"), 0.001},
                                                {QObject::tr("inches"), 0.0254},
                                                {QObject::tr("feet"), 0.3048}};
  for (const auto& [name, scale] : presets) units->addItem(name, scale);
  auto* scale = new QDoubleSpinBox(&dialog);
  scale->setDecimals(6);
  scale->setRange(0, 1e6);
  scale->setSpecialValueText(QObject::tr("detect"));  // 0: the file's declared unit, checked against a plausible size
  scale->setValue(settings.value("import/scale", 0.0).toDouble());
  QObject::connect(units, &QComboBox::activated, scale, [units, scale](int i) { scale->setValue(units->itemData(i).toDouble()); });
  auto* meshes = new QComboBox(&dialog);
  meshes->addItem(QObject::tr("join the body parts; small parts follow"), int(MeshGrouping::BodyParts));
  meshes->addItem(QObject::tr("merge all into one object"), int(MeshGrouping::All));
  meshes->addItem(QObject::tr("keep every mesh apart"), int(MeshGrouping::Separate));
  meshes->setCurrentIndex(std::max(0, meshes->findData(settings.value("import/grouping", 0).toInt())));
  auto* weld = new QCheckBox(QObject::tr("Weld duplicate vertices (needed for simulation)"), &dialog);
  weld->setChecked(settings.value("import/weld", true).toBool());
  form->addRow(QObject::tr("File units:"), units);
  form->addRow(QObject::tr("Metres per file unit:"), scale);
  form->addRow(QObject::tr("Meshes:"), meshes);
  form->addRow(weld);
  form->addRow(new QLabel(QObject::tr("BVH motion clips detect their units by themselves."), &dialog));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  form->addRow(buttons);
  if (dialog.exec() != QDialog::Accepted) return false;
  settings.setValue("import/scale", scale->value());
  settings.setValue("import/grouping", meshes->currentData().toInt());
  settings.setValue("import/weld", weld->isChecked());
  return true;
}

QString filterFor(const std::vector<std::string>& exts, const QString& label) {
  QStringList patterns;
  for (const std::string& e : exts) patterns << "*." + QString::fromStdString(e);
  return label + " (" + patterns.join(' ') + ")";
}

QAction* makeAction(QObject* parent, const QString& name, const QString& text, const QKeySequence& key) {
  auto* a = new QAction(text, parent);
  a->setObjectName("action" + name);
  if (!key.isEmpty()) a->setShortcut(key);
  return a;
}

}  // namespace detail

using namespace detail;

MainWindow::MainWindow(RecoveryPolicy recovery, QWidget* parent)
    : QMainWindow(parent), recoveryPolicy_(recovery) {
  setObjectName("SinewMainWindow");
  setAcceptDrops(true);
  WheelGuard::install(this);  // values change by the wheel only in a focused box
  tasks_ = new TaskRunner(this);
  viewport_ = new ViewportWidget(&doc_, this);
  viewport_->setObjectName("viewport");
  recovery_ = std::make_unique<Recovery>(Recovery::defaultDirectory());

  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(viewport_, 1);
  setCentralWidget(central);

  rig_ = new RigController(&doc_, viewport_, &log_, this);
  paint_ = new PaintController(&doc_, viewport_, &log_, this);
  rig_->paintInteraction = paint_;
  musclePaint_ = new MusclePaintController(&doc_, viewport_, this);
  rig_->musclePaintInteraction = musclePaint_;
  sim_ = new SimulationController(&doc_, viewport_, &log_, rig_, this);  // wraps the rig tools
  buildActions();
  buildDocks();
  buildRig();
  buildSimulate();
  buildControl();
  buildMenus();
  buildPlaybackBar();
  layout->addWidget(findChild<QToolBar*>("playbackBar"));

  statusPick_ = new QLabel(this);
  statusBar()->addPermanentWidget(statusPick_, 1);
  statusBar()->showMessage(tr("Ready"), 3000);

  connect(&doc_, &Document::modifiedChanged, this, [this] { updateTitle(); });
  connect(&doc_, &Document::pathChanged, this, [this] { updateTitle(); });
  connect(&doc_, &Document::structureChanged, this, [this] { refreshClipList(); });
  connect(&doc_.selection(), &Selection::changed, this, &MainWindow::onSelectionChanged);
  connect(&doc_, &Document::objectChanged, this, [this](ObjectId) { refreshClipList(); });
  connect(viewport_, &ViewportWidget::picked, this, &MainWindow::onPicked);
  connect(viewport_, &ViewportWidget::hovered, this, &MainWindow::onHovered);
  connect(viewport_, &ViewportWidget::settingsChanged, this, &MainWindow::applyViewSettingsToActions);
  connect(viewport_, &ViewportWidget::glError, this, [this](const QString& m) {
    log_.error(m);
    showError(tr("Viewport"), m);
  });
  connect(tasks_, &TaskRunner::started, this, [this](const QString& title) {
    statusBar()->showMessage(title + "...");
  });
  connect(tasks_, &TaskRunner::finished, this, [this] { statusBar()->clearMessage(); });

  // Autosave: every SINEW_AUTOSAVE_SECONDS (default 60) while there are unsaved changes.
  autosaveTimer_ = new QTimer(this);
  bool ok = false;
  int seconds = qEnvironmentVariableIntValue("SINEW_AUTOSAVE_SECONDS", &ok);
  if (!ok || seconds <= 0) seconds = QSettings().value("autosave/intervalSeconds", 60).toInt();
  autosaveTimer_->start(std::max(1, seconds) * 1000);
  connect(autosaveTimer_, &QTimer::timeout, this, &MainWindow::autosaveNow);

  updateTitle();
  updateRecentMenu();
  resize(1280, 800);
}

MainWindow::~MainWindow() {
  if (sim_) sim_->pause();  // joins the simulation thread
}

// ---------------------------------------------------------------------------
// Construction

void MainWindow::buildActions() {
  actNew = makeAction(this, "New", tr("&New"), QKeySequence::New);
  actNewCharacter = makeAction(this, "NewCharacter", tr("New &Character..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N));
  actNewCharacter->setToolTip(tr("A character file to a simulation: import, place joints if it has none, rig, simulate"));
  actOpen = makeAction(this, "Open", tr("&Open..."), QKeySequence::Open);
  actSave = makeAction(this, "Save", tr("&Save"), QKeySequence::Save);
  actSaveAs = makeAction(this, "SaveAs", tr("Save &As..."), QKeySequence::SaveAs);
  actImport = makeAction(this, "Import", tr("&Import..."), QKeySequence(Qt::CTRL | Qt::Key_I));
  actExport = makeAction(this, "Export", tr("&Export Selection..."), QKeySequence(Qt::CTRL | Qt::Key_E));
  actQuit = makeAction(this, "Quit", tr("&Quit"), QKeySequence::Quit);
  connect(actNew, &QAction::triggered, this, [this] {
    if (maybeSave()) newProject();
  });
  connect(actOpen, &QAction::triggered, this, [this] {
    if (!maybeSave()) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Project"), QString(),
                                                      tr("Sinew projects (*.sinew);;All files (*)"));
    if (!path.isEmpty()) openProject(path);
  });
  connect(actSave, &QAction::triggered, this, &MainWindow::save);
  connect(actSaveAs, &QAction::triggered, this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Save Project As"), doc_.path(),
                                                tr("Sinew projects (*.sinew)"));
    if (path.isEmpty()) return;
    if (!path.endsWith(kProjectExtension)) path += kProjectExtension;
    saveProjectTo(path);
  });
  connect(actImport, &QAction::triggered, this, [this] {
    const QStringList files = QFileDialog::getOpenFileNames(
        this, tr("Import Meshes and Motion Clips"), QSettings().value("paths/import").toString(),
        filterFor(importExtensions(), tr("Meshes and motion clips")) + ";;" + tr("BVH motion clips (*.bvh)") +
            ";;" + tr("All files (*)"));
    if (files.isEmpty()) return;
    QSettings().setValue("paths/import", QFileInfo(files.front()).absolutePath());
    const bool meshes = std::any_of(files.begin(), files.end(), [](const QString& f) { return !f.endsWith(".bvh", Qt::CaseInsensitive); });
    if (meshes && !askImportOptions(this)) return;
    importFiles(files);
  });
  newCharacter_ = new NewCharacterFlow(this);
  connect(actNewCharacter, &QAction::triggered, this, [this] {
    if (!maybeSave()) return;
    const QString file = QFileDialog::getOpenFileName(
        this, tr("New Character from a File"), QSettings().value("paths/import").toString(),
        filterFor(importExtensions(), tr("Characters (meshes, rigged or bare)")) + ";;" + tr("All files (*)"));
    if (file.isEmpty() || !askImportOptions(this)) return;
    QSettings().setValue("paths/import", QFileInfo(file).absolutePath());
    newCharacter_->start(file);
  });
  connect(actExport, &QAction::triggered, this, &MainWindow::exportSelection);
  connect(actQuit, &QAction::triggered, this, &QWidget::close);

  actUndo = doc_.undoStack()->createUndoAction(this, tr("&Undo"));
  actUndo->setObjectName("actionUndo");
  actUndo->setShortcut(QKeySequence::Undo);
  actRedo = doc_.undoStack()->createRedoAction(this, tr("&Redo"));
  actRedo->setObjectName("actionRedo");
  actRedo->setShortcut(QKeySequence::Redo);
  actRename = makeAction(this, "Rename", tr("Re&name..."), QKeySequence(Qt::Key_F2));
  actDelete = makeAction(this, "Delete", tr("&Delete"), QKeySequence::Delete);
  actValidate = makeAction(this, "Validate", tr("&Validate Mesh"));
  actScale = makeAction(this, "Scale", tr("&Scale Mesh..."));
  actGround = makeAction(this, "Ground", tr("Drop Mesh to &Ground"));
  connect(actRename, &QAction::triggered, this, [this] { renameObject(selectedObject()); });
  connect(actDelete, &QAction::triggered, this, [this] {
    if (!rig_->selectedJoint().isEmpty()) rig_->deleteSelectedJoint();
    else deleteObject(selectedObject());
  });
  connect(actValidate, &QAction::triggered, this, &MainWindow::validateSelectedMesh);
  connect(actScale, &QAction::triggered, this, &MainWindow::scaleSelectedMesh);
  connect(actGround, &QAction::triggered, this, &MainWindow::dropSelectedMeshToGround);

  displayGroup_ = new QActionGroup(this);
  actShaded = makeAction(this, "Shaded", tr("&Shaded"), QKeySequence(Qt::Key_1));
  actWireframe = makeAction(this, "Wireframe", tr("&Wireframe"), QKeySequence(Qt::Key_2));
  actXray = makeAction(this, "Xray", tr("&X-ray"), QKeySequence(Qt::Key_3));
  for (QAction* a : {actShaded, actWireframe, actXray}) {
    a->setCheckable(true);
    displayGroup_->addAction(a);
  }
  actShaded->setChecked(true);
  auto setMode = [this](render::DisplayMode m) {
    render::ViewSettings s = viewport_->settings();
    s.mode = m;
    viewport_->setSettings(s);
  };
  connect(actShaded, &QAction::triggered, this, [setMode] { setMode(render::DisplayMode::Shaded); });
  connect(actWireframe, &QAction::triggered, this, [setMode] { setMode(render::DisplayMode::Wireframe); });
  connect(actXray, &QAction::triggered, this, [setMode] { setMode(render::DisplayMode::XRay); });
  auto toggle = [this](const QString& name, const QString& text, bool render::ViewSettings::*member,
                       const QKeySequence& key = {}) {
    QAction* a = makeAction(this, name, text, key);
    a->setCheckable(true);
    a->setChecked(viewport_->settings().*member);
    connect(a, &QAction::toggled, this, [this, member](bool on) {
      render::ViewSettings s = viewport_->settings();
      s.*member = on;
      viewport_->setSettings(s);
    });
    return a;
  };
  actGrid = toggle("Grid", tr("&Grid"), &render::ViewSettings::grid, QKeySequence(Qt::Key_G));
  actAxes = toggle("Axes", tr("&Axis Gizmo"), &render::ViewSettings::axes);
  actSkeleton = toggle("Skeleton", tr("S&keleton"), &render::ViewSettings::skeleton, QKeySequence(Qt::Key_K));
  actProblems = toggle("Problems", tr("Mesh &Problems"), &render::ViewSettings::problems);
  actPills = toggle("Pills", tr("Rod &Pills"), &render::ViewSettings::pills);
  actPills->setToolTip(tr("VIPER rods as pills coloured by their radius; rod bodies' skins see-through"));
  actFollow = toggle("Follow", tr("F&ollow the Character"), &render::ViewSettings::follow, QKeySequence(Qt::SHIFT | Qt::Key_F));
  actFollow->setToolTip(tr("While a simulation plays, the camera moves across the ground with the character "
                           "(not while the mouse pulls it); back at rest it returns"));
  actFrameSelected = makeAction(this, "FrameSelected", tr("&Frame Selected"), QKeySequence(Qt::Key_F));
  actFrameAll = makeAction(this, "FrameAll", tr("Frame &All"), QKeySequence(Qt::Key_A));
  connect(actFrameSelected, &QAction::triggered, this, [this] {
    if (!rig_->selectedJoint().isEmpty()) viewport_->frameJoint(rig_->selectedJoint());
    else if (selectedObject()) viewport_->frameObject(selectedObject());
    else viewport_->frameAll();
  });
  connect(actFrameAll, &QAction::triggered, viewport_, &ViewportWidget::frameAll);

  actPlay = makeAction(this, "Play", tr("&Play"), QKeySequence(Qt::Key_Space));
  actPlay->setCheckable(true);
  actStepForward = makeAction(this, "StepForward", tr("Step &Forward"), QKeySequence(Qt::Key_Period));
  actStepBack = makeAction(this, "StepBack", tr("Step &Back"), QKeySequence(Qt::Key_Comma));
  actRewind = makeAction(this, "Rewind", tr("&Rewind"), QKeySequence(Qt::Key_Home));
  actLoop = makeAction(this, "Loop", tr("&Loop"));
  actLoop->setCheckable(true);
  actLoop->setChecked(true);
  connect(actPlay, &QAction::toggled, this, &MainWindow::setPlaying);
  connect(actStepForward, &QAction::triggered, this, [this] { stepPlayback(1); });
  connect(actStepBack, &QAction::triggered, this, [this] { stepPlayback(-1); });
  connect(actRewind, &QAction::triggered, this, [this] {
    playTime_ = 0;
    updatePlayback();
  });

  actAbout = makeAction(this, "About", tr("&About Sinew"));
  actControls = makeAction(this, "Controls", tr("&Keys and Mouse"), QKeySequence::HelpContents);
  connect(actAbout, &QAction::triggered, this, [this] {
    QMessageBox::about(
        this, tr("About Sinew"),
        tr("<h3>Sinew 0.1</h3><p>Authoring and simulation of soft-bodied characters: flesh over a rigid "
           "skeleton, muscles made of rods.</p><p>Built on Liu et al. 2013, Li, Liu &amp; Kavan 2019, Sheth et al. "
           "2015 and Angles et al. 2019 (VIPER).</p><p>Renderer: %1</p>")
            .arg(viewport_->glInfo().toHtmlEscaped()));
  });
  connect(actControls, &QAction::triggered, this, [this] {
    auto* dialog = findChild<ControlsDialog*>();  // one, kept: built from the menus when first asked for
    if (!dialog) dialog = new ControlsDialog(menuBar(), this);
    dialog->show();
    dialog->raise();
  });
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(actNew);
  file->addAction(actNewCharacter);
  file->addAction(actOpen);
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  recentMenu_->setObjectName("menuRecent");
  file->addSeparator();
  file->addAction(actSave);
  file->addAction(actSaveAs);
  file->addSeparator();
  file->addAction(actImport);
  file->addAction(actExport);
  file->addSeparator();
  file->addAction(actQuit);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addAction(actUndo);
  edit->addAction(actRedo);
  edit->addSeparator();
  edit->addAction(actRename);
  edit->addAction(actDelete);
  edit->addSeparator();
  edit->addAction(actValidate);
  edit->addAction(actScale);
  edit->addAction(actGround);

  QMenu* rigMenu = menuBar()->addMenu(tr("&Rig"));
  for (QAction* a : {actToolSelect, actToolPlace, actToolMove, actToolPose, actToolPaint, actToolPaintMuscle})
    rigMenu->addAction(a);
  rigMenu->addSeparator();
  for (QAction* a : {actInsertJoint, actMirrorLR, actMirrorRL, actSymmetrize, actBoneShapes, actFitSkeleton,
                     actImportSkeleton, actAutoJoints, actResetPose})
    rigMenu->addAction(a);
  rigMenu->addSeparator();
  rigMenu->addAction(actAddMuscle);
  rigMenu->addAction(actViperize);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(actShaded);
  view->addAction(actWireframe);
  view->addAction(actXray);
  view->addSeparator();
  view->addAction(actGrid);
  view->addAction(actAxes);
  view->addAction(actSkeleton);
  view->addAction(actProblems);
  view->addAction(actPills);
  view->addSeparator();
  view->addAction(actFrameSelected);
  view->addAction(actFrameAll);
  view->addAction(actFollow);
  view->addSeparator();
  // Front, side and top views (orthographic, Ctrl+1/3/7 as on Blender's keypad); orbiting leaves them.
  const std::tuple<QString, QString, int, render::Camera::Axis> axes[] = {
      {"FrontView", tr("F&ront View"), Qt::Key_1, render::Camera::Axis::Front},
      {"SideView", tr("Si&de View"), Qt::Key_3, render::Camera::Axis::Side},
      {"TopView", tr("&Top View"), Qt::Key_7, render::Camera::Axis::Top}};
  for (const auto& [name, text, key, axis] : axes) {
    QAction* a = makeAction(this, name, text, QKeySequence(Qt::CTRL | key));
    connect(a, &QAction::triggered, viewport_, [this, axis = axis] {
      viewport_->camera().lookAlong(axis);
      viewport_->update();
    });
    view->addAction(a);
  }
  QAction* perspective = makeAction(this, "PerspectiveView", tr("&Perspective View"), QKeySequence(Qt::CTRL | Qt::Key_5));
  connect(perspective, &QAction::triggered, viewport_, [this] {
    viewport_->camera().orthographic = false;
    viewport_->update();
  });
  view->addAction(perspective);
  view->addSeparator();
  for (QDockWidget* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());

  QMenu* sim = menuBar()->addMenu(tr("&Simulate"));
  sim->addAction(actPlay);
  sim->addAction(actStepBack);
  sim->addAction(actStepForward);
  sim->addAction(actRewind);
  sim->addAction(actLoop);
  sim->addSeparator();
  sim->addAction(actSimPlay);
  sim->addAction(actSimStep);
  sim->addAction(actSimReset);
  sim->addSeparator();
  sim->addAction(actSimExport);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(actControls);
  help->addAction(actAbout);
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::buildDocks() {
  auto dock = [this](const QString& title, const QString& name, QWidget* w, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(w);
    addDockWidget(area, d);
    return d;
  };
  outliner_ = new OutlinerPanel(&doc_, this);
  outliner_->setObjectName("outliner");
  properties_ = new PropertiesPanel(&doc_, this);
  properties_->setObjectName("properties");
  logPanel_ = new LogPanel(&log_, this);
  logPanel_->setObjectName("log");
  dock(tr("Outliner"), "dockOutliner", outliner_, Qt::LeftDockWidgetArea);
  dock(tr("Properties"), "dockProperties", properties_, Qt::RightDockWidgetArea);
  outliner_->setMinimumWidth(170);
  properties_->setMinimumWidth(250);
  QDockWidget* logDock = dock(tr("Log"), "dockLog", logPanel_, Qt::BottomDockWidgetArea);
  resizeDocks({logDock}, {130}, Qt::Vertical);
  connect(&doc_, &Document::projectReplaced, this, [this] { onHovered({}); });  // no label of the old project's
  connect(outliner_, &OutlinerPanel::renameRequested, this, &MainWindow::renameObject);
  connect(outliner_, &OutlinerPanel::deleteRequested, this, &MainWindow::deleteObject);
  connect(outliner_, &OutlinerPanel::frameRequested, viewport_, &ViewportWidget::frameObject);
}

void MainWindow::buildControl() {
  ctlPanel_ = new ControllerPanel(&doc_, sim_, &log_, this);
  ctlPanel_->setObjectName("controllerPanel");
  auto* scroll = new PanelScrollArea(ctlPanel_, this);
  auto* dock = new QDockWidget(tr("Control"), this);
  dock->setObjectName("dockControl");
  dock->setWidget(scroll);
  addDockWidget(Qt::RightDockWidgetArea, dock);
  tabifyDockWidget(findChild<QDockWidget*>("dockSimulate"), dock);
  findChild<QDockWidget*>("dockProperties")->raise();
}

void MainWindow::buildSimulate() {
  simPanel_ = new SimulatePanel(&doc_, sim_, this);
  simPanel_->setObjectName("simulatePanel");
  auto* scroll = new PanelScrollArea(simPanel_, this);
  auto* dock = new QDockWidget(tr("Simulate"), this);
  dock->setObjectName("dockSimulate");
  dock->setWidget(scroll);
  addDockWidget(Qt::RightDockWidgetArea, dock);
  tabifyDockWidget(findChild<QDockWidget*>("dockRig"), dock);
  findChild<QDockWidget*>("dockProperties")->raise();

  actSimPlay = makeAction(this, "SimPlay", tr("Simulate: Play/Pause"), QKeySequence(Qt::SHIFT | Qt::Key_Space));
  actSimStep = makeAction(this, "SimStep", tr("Simulate: Step One Frame"), QKeySequence(Qt::SHIFT | Qt::Key_Period));
  actSimReset = makeAction(this, "SimReset", tr("Simulate: Reset"), QKeySequence(Qt::SHIFT | Qt::Key_Home));
  actSimExport = makeAction(this, "SimExport", tr("Export Simulation..."), QKeySequence());
  actSimExport->setToolTip(tr("Write the simulated frames as an OBJ sequence, a .pc2 point cache (Blender) and a .bvh"));
  for (QAction* a : {actSimPlay, actSimStep, actSimReset}) addAction(a);
  connect(actSimExport, &QAction::triggered, this, [this] {
    if (!sim_->hasSimulation()) {
      showError(tr("Export Simulation"), tr("Nothing is simulated yet: press Play in the Simulate panel first."));
      return;
    }
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export Simulation To"));
    if (!dir.isEmpty()) exportSimulation(dir);
  });
  auto* exportButton = new QPushButton(tr("Export Simulation..."), simPanel_);
  exportButton->setObjectName("simExport");
  exportButton->setToolTip(actSimExport->toolTip());
  connect(exportButton, &QPushButton::clicked, actSimExport, &QAction::trigger);
  simPanel_->layout()->addWidget(exportButton);
  connect(actSimPlay, &QAction::triggered, sim_, &SimulationController::togglePlay);
  connect(actSimStep, &QAction::triggered, sim_, &SimulationController::step);
  connect(actSimReset, &QAction::triggered, sim_, &SimulationController::reset);
  connect(sim_, &SimulationController::failed, this,
          [this](const QString& title, const QString& message) { showError(title, message); });
}

bool MainWindow::exportSimulation(const QString& directory) {
  SimulatedAnimation anim = sim_->recordedAnimation();
  if (anim.surfaces.empty()) {
    log_.error(tr("Export Simulation: nothing is simulated yet"));
    return false;
  }
  const Project& p = doc_.project();
  std::optional<Skeleton> skeleton;
  if (p.skeleton) skeleton = p.skeleton->skeleton;
  QString base = QString::fromStdString(p.name).trimmed();
  base.replace(QRegularExpression("[^A-Za-z0-9_.-]+"), "_");
  if (base.isEmpty()) base = "simulation";
  const std::string dir = directory.toStdString(), name = base.toStdString();
  const size_t frames = anim.surfaces.size();
  auto written = std::make_shared<std::vector<std::string>>();
  return tasks_->run(
      tr("Exporting the simulation"),
      [anim = std::move(anim), skeleton, dir, name, written](const Progress& progress) {
        *written = exportSimulatedAnimation(dir, name, anim, skeleton ? &*skeleton : nullptr, progress);
      },
      [this, written, frames, directory] {
        QStringList files;
        for (const std::string& f : *written) files << QFileInfo(QString::fromStdString(f)).fileName();
        log_.info(tr("Exported %1 simulated frames to %2: %3 (OBJ sequence), %4")
                      .arg(frames).arg(directory).arg(files.value(0)).arg(files.mid(1).join(", ")));
        statusBar()->showMessage(tr("Simulation exported"), 4000);
      },
      [this](const QString& message, bool cancelled) {
        if (cancelled) return log_.info(tr("Export Simulation: cancelled; the files written so far are kept"));
        log_.error(tr("Export Simulation: %1").arg(message));
        showError(tr("Export Simulation"), message);
      });
}

// ---------------------------------------------------------------------------
// Title, recent files, errors

void MainWindow::updateTitle() {
  setWindowTitle(doc_.displayName() + "[*] - Sinew");
  setWindowModified(doc_.isModified());
  actSave->setEnabled(true);
}

void MainWindow::addRecent(const QString& path) {
  QSettings s;
  QStringList recent = s.value("recentFiles").toStringList();
  const QString abs = QFileInfo(path).absoluteFilePath();
  recent.removeAll(abs);
  recent.prepend(abs);
  while (recent.size() > 10) recent.removeLast();
  s.setValue("recentFiles", recent);
  updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
  recentMenu_->clear();
  const QStringList recent = QSettings().value("recentFiles").toStringList();
  for (const QString& path : recent) {
    QAction* a = recentMenu_->addAction(QFileInfo(path).fileName());
    a->setToolTip(path);
    a->setStatusTip(path);
    connect(a, &QAction::triggered, this, [this, path] {
      if (maybeSave()) openProject(path);
    });
  }
  recentMenu_->setEnabled(!recent.isEmpty());
  if (!recent.isEmpty()) {
    recentMenu_->addSeparator();
    recentMenu_->addAction(tr("Clear List"), this, [this] {
      QSettings().remove("recentFiles");
      updateRecentMenu();
    });
  }
}

void MainWindow::showError(const QString& title, const QString& message) {
  if (interactive_) QMessageBox::warning(this, title, message);
}

// ---------------------------------------------------------------------------
// File operations

void MainWindow::resizeEvent(QResizeEvent* e) {
  QMainWindow::resizeEvent(e);
  // The side docks take at most a fifth (left) and a third (right) of the width, down to their minimum.
  auto* left = findChild<QDockWidget*>("dockOutliner");
  auto* right = findChild<QDockWidget*>("dockProperties");
  if (!left || !right || left->isFloating() || right->isFloating()) return;
  const int w = width();
  const int l = std::max(left->minimumSizeHint().width(), w / 5), r = std::max(right->minimumSizeHint().width(), w / 3);
  if (left->width() > l || right->width() > r)
    resizeDocks({left, right}, {std::min(left->width(), l), std::min(right->width(), r)}, Qt::Horizontal);
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (tasks_->busy()) tasks_->cancel();
  sim_->pause();
  if (!maybeSave()) {
    e->ignore();
    return;
  }
  tasks_->waitForIdle(5000);
  recovery_->discardSession();
  e->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  QStringList files;
  for (const QUrl& u : e->mimeData()->urls())
    if (u.isLocalFile()) files << u.toLocalFile();
  if (files.size() == 1 && files.front().endsWith(kProjectExtension)) {
    if (maybeSave()) openProject(files.front());
  } else if (!files.isEmpty()) {
    importFiles(files);
  }
}

// ---------------------------------------------------------------------------
// Autosave and recovery

// ---------------------------------------------------------------------------
// Selection and picking

void MainWindow::selectJoint(const QString& name) { rig_->selectJoint(name); }

void MainWindow::selectObject(ObjectId id, const render::PickResult& detail) {
  doc_.selection().selectObject(id, detail);
}

// The window's part of a new selection (the Outliner, Properties and the rig
// tools follow the Document's selection themselves): the viewport highlight,
// the tools' target mesh, the Muscles section's body, the clip box and the
// Edit menu.
void MainWindow::onSelectionChanged() {
  const Selection& sel = doc_.selection();
  const ObjectId id = sel.object();
  const bool joint = !sel.joint().isEmpty();
  rig_->setSelectedObject(id);
  if (!joint && doc_.project().findMesh(id)) {
    rig_->setTargetMesh(id);
    if (paint_->active) paint_->setMesh(id);
  }
  // A rod body, or the surface of one, becomes the Muscles section's body (and the muscle brush's).
  for (const RodBodyObject& b : doc_.project().rodBodies)
    if (b.id == id || (b.surface && b.surface == id)) {
      musclePanel_->setCurrentBody(b.id);
      break;
    }
  viewport_->setSelection(id, sel.detail());
  const bool mesh = !joint && doc_.project().findMesh(id) != nullptr;
  actValidate->setEnabled(mesh);
  actScale->setEnabled(mesh);
  actGround->setEnabled(mesh);
  actRename->setEnabled(id != 0 && !joint);
  actDelete->setEnabled(id != 0);
  if (const ClipObject* c = doc_.project().findClip(id)) {
    const int i = clipBox_->findData(QVariant::fromValue<qulonglong>(c->id));
    if (i >= 0) clipBox_->setCurrentIndex(i);
  }
}

QString MainWindow::pickDescription(const render::PickResult& r) const {
  const Project& p = doc_.project();
  auto v3 = [](const Vec3& x) { return QString("(%1, %2, %3)").arg(x.x(), 0, 'f', 3).arg(x.y(), 0, 'f', 3).arg(x.z(), 0, 'f', 3); };
  switch (r.kind) {
    case render::PickKind::None: return {};
    case render::PickKind::Joint:
      return tr("joint '%1' at %2").arg(QString::fromStdString(p.skeleton->skeleton.joints[r.joint].name), v3(r.point));
    case render::PickKind::Vertex:
      return tr("%1: vertex %2 (face %3) at %4")
          .arg(QString::fromStdString(p.objectName(r.object)))
          .arg(r.vertex)
          .arg(r.face)
          .arg(v3(p.findMesh(r.object)->mesh.positions[r.vertex]));
    case render::PickKind::Face:
      return tr("%1: face %2 at %3").arg(QString::fromStdString(p.objectName(r.object))).arg(r.face).arg(v3(r.point));
  }
  return {};
}

void MainWindow::onPicked(const render::PickResult& r) {
  if (r.kind == render::PickKind::Joint)
    doc_.selection().selectJoint(r.object, QString::fromStdString(doc_.project().skeleton->skeleton.joints[size_t(r.joint)].name), r);
  else
    doc_.selection().selectObject(r.object, r);
  const QString text = pickDescription(r);
  if (r.kind != render::PickKind::None) {
    QStringList rows;
    rows << text;
    if (r.kind == render::PickKind::Joint) {
      const Joint& j = doc_.project().skeleton->skeleton.joints[r.joint];
      rows << tr("parent: %1").arg(j.parent >= 0 ? QString::fromStdString(doc_.project().skeleton->skeleton.joints[j.parent].name)
                                                 : tr("none (root)"));
    }
    properties_->setDetails(tr("Picked"), rows);
    log_.info(tr("Picked %1").arg(text));
  }
  statusBar()->showMessage(text, 5000);
}

void MainWindow::onHovered(const render::PickResult& r) {
  const QString text = pickDescription(r);
  statusPick_->setText(text);
  viewport_->setStatusText(text);
}

// ---------------------------------------------------------------------------
// Edit operations

void MainWindow::renameObject(ObjectId id) {
  const QString kind = objectKind(doc_.project(), id);
  if (kind.isEmpty()) return;
  const QString old = QString::fromStdString(doc_.project().objectName(id));
  bool ok = false;
  const QString name = QInputDialog::getText(this, tr("Rename %1").arg(kind), tr("Name:"), QLineEdit::Normal, old, &ok).trimmed();
  if (!ok || name.isEmpty() || name == old) return;
  for (const PropertyDesc& d : propertiesOf(doc_, id))
    if (d.name == tr("Name")) doc_.undoStack()->push(new SetPropertyCommand(&doc_, id, d.name, old, name, d.set, d.change));
}

void MainWindow::deleteObject(ObjectId id) {
  if (objectKind(doc_.project(), id).isEmpty()) return;
  doc_.undoStack()->push(new RemoveObjectCommand(&doc_, id));
}

void MainWindow::validateSelectedMesh() {
  const MeshObject* m = doc_.project().findMesh(selectedObject());
  if (!m) return;
  auto mesh = std::make_shared<TriMesh>(m->mesh);  // the worker reads a copy: edits may continue
  auto report = std::make_shared<MeshReport>();
  const ObjectId id = m->id;
  const uint64_t revision = doc_.revision(id);
  const QString name = QString::fromStdString(m->name);
  tasks_->run(
      tr("Validating %1").arg(name),
      [mesh, report](const Progress& p) { *report = validateMesh(*mesh, {}, p); },
      [this, report, id, revision, name] {
        if (doc_.revision(id) != revision) return log_.warning(tr("%1 changed during validation; run it again").arg(name));
        log_.add(report->diagnostics(name.toStdString()));
        doc_.setMeshReport(id, std::move(*report));
      },
      [this](const QString& message, bool cancelled) {
        if (!cancelled) log_.error(message);
      });
}

void MainWindow::scaleSelectedMesh() {
  const MeshObject* m = doc_.project().findMesh(selectedObject());
  if (!m) return;
  bool ok = false;
  const double s = QInputDialog::getDouble(this, tr("Scale Mesh"), tr("Scale factor (e.g. 0.01 for centimetres to metres):"),
                                           1.0, 1e-6, 1e6, 6, &ok);
  if (!ok || s == 1.0) return;
  Vec3 pivot = m->mesh.bounds().center();
  pivot.y() = m->mesh.bounds().min.y();
  doc_.undoStack()->push(new TransformMeshCommand(&doc_, m->id, s, pivot, Vec3::Zero(), tr("Scale %1").arg(QString::fromStdString(m->name))));
  viewport_->frameAll();
}

void MainWindow::dropSelectedMeshToGround() {
  const MeshObject* m = doc_.project().findMesh(selectedObject());
  if (!m || m->mesh.positions.empty()) return;
  const double dy = -m->mesh.bounds().min.y();
  if (dy == 0) return;
  doc_.undoStack()->push(new TransformMeshCommand(&doc_, m->id, 1.0, Vec3::Zero(), Vec3(0, dy, 0),
                                                  tr("Drop %1 to ground").arg(QString::fromStdString(m->name))));
}

// ---------------------------------------------------------------------------
// View settings and playback

void MainWindow::applyViewSettingsToActions() {
  const render::ViewSettings& s = viewport_->settings();
  const QSignalBlocker b1(actGrid), b2(actAxes), b3(actSkeleton), b4(actProblems), b5(actPills), b6(actFollow);
  actShaded->setChecked(s.mode == render::DisplayMode::Shaded);
  actWireframe->setChecked(s.mode == render::DisplayMode::Wireframe);
  actXray->setChecked(s.mode == render::DisplayMode::XRay);
  actGrid->setChecked(s.grid);
  actAxes->setChecked(s.axes);
  actSkeleton->setChecked(s.skeleton);
  actProblems->setChecked(s.problems);
  actPills->setChecked(s.pills);
  actFollow->setChecked(s.follow);
}

}  // namespace sinew::app
