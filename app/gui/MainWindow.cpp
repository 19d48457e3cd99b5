#include "MainWindow.h"

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
#include <QScrollArea>
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

namespace {

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

QAction* makeAction(QObject* parent, const QString& name, const QString& text, const QKeySequence& key = {}) {
  auto* a = new QAction(text, parent);
  a->setObjectName("action" + name);
  if (!key.isEmpty()) a->setShortcut(key);
  return a;
}

}  // namespace

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
  connect(&doc_, &Document::structureChanged, this, [this] {
    if (!objectKind(doc_.project(), selected_).size()) selectObject(0);
    refreshClipList();
  });
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
  connect(actRename, &QAction::triggered, this, [this] { renameObject(selected_); });
  connect(actDelete, &QAction::triggered, this, [this] {
    if (!rig_->selectedJoint().isEmpty()) rig_->deleteSelectedJoint();
    else deleteObject(selected_);
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
  actFrameSelected = makeAction(this, "FrameSelected", tr("&Frame Selected"), QKeySequence(Qt::Key_F));
  actFrameAll = makeAction(this, "FrameAll", tr("Frame &All"), QKeySequence(Qt::Key_A));
  connect(actFrameSelected, &QAction::triggered, this, [this] {
    if (!rig_->selectedJoint().isEmpty()) viewport_->frameJoint(rig_->selectedJoint());
    else if (selected_) viewport_->frameObject(selected_);
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
  actControls = makeAction(this, "Controls", tr("Viewport &Controls"), QKeySequence::HelpContents);
  connect(actAbout, &QAction::triggered, this, [this] {
    QMessageBox::about(
        this, tr("About Sinew"),
        tr("<h3>Sinew 0.1</h3><p>Authoring and simulation of soft-bodied characters: flesh over a rigid "
           "skeleton, muscles made of rods.</p><p>Built on Liu et al. 2013, Li, Liu &amp; Kavan 2019, Sheth et al. "
           "2015 and Angles et al. 2019 (VIPER).</p><p>Renderer: %1</p>")
            .arg(viewport_->glInfo().toHtmlEscaped()));
  });
  connect(actControls, &QAction::triggered, this, [this] {
    QMessageBox::information(
        this, tr("Viewport Controls"),
        tr("<table>"
           "<tr><td><b>Orbit</b></td><td>Alt+Left drag (Maya) or Middle drag (Blender)</td></tr>"
           "<tr><td><b>Pan</b></td><td>Alt+Middle drag (Maya) or Shift+Middle drag (Blender)</td></tr>"
           "<tr><td><b>Dolly</b></td><td>Alt+Right drag (Maya), Ctrl+Middle drag or wheel (Blender)</td></tr>"
           "<tr><td><b>Pick</b></td><td>Left click: joint, vertex or face under the cursor</td></tr>"
           "<tr><td><b>Frame</b></td><td>F selected, A all</td></tr>"
           "<tr><td><b>Display</b></td><td>1 shaded, 2 wireframe, 3 x-ray, G grid, K skeleton</td></tr>"
           "<tr><td><b>Playback</b></td><td>Space play/pause, comma/period step, Home rewind</td></tr>"
           "</table>"));
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
  connect(outliner_, &OutlinerPanel::objectSelected, this, [this](ObjectId id) { selectObject(id); });
  connect(outliner_, &OutlinerPanel::jointSelected, this, &MainWindow::selectJoint);  // Properties and Delete follow
  connect(&doc_, &Document::projectReplaced, this, [this] { onHovered({}); });  // no label of the old project's
  connect(outliner_, &OutlinerPanel::renameRequested, this, &MainWindow::renameObject);
  connect(outliner_, &OutlinerPanel::deleteRequested, this, &MainWindow::deleteObject);
  connect(outliner_, &OutlinerPanel::frameRequested, viewport_, &ViewportWidget::frameObject);
}

void MainWindow::buildRig() {
  // Tools (exclusive), on the Rig menu and as buttons in the Rig dock.
  auto* tools = new QActionGroup(this);
  auto tool = [&](const QString& name, const QString& text, const QKeySequence& key, RigTool t, const QString& tip) {
    QAction* a = makeAction(this, name, text, key);
    a->setCheckable(true);
    a->setToolTip(tip);
    a->setStatusTip(tip);
    tools->addAction(a);
    connect(a, &QAction::triggered, this, [this, t] { rig_->setTool(t); });
    return a;
  };
  actToolSelect = tool("ToolSelect", tr("&Select"), QKeySequence(Qt::Key_Q), RigTool::Select,
                       tr("Click to pick joints, vertices and faces"));
  actToolPlace = tool("ToolPlace", tr("&Place Joint"), QKeySequence(Qt::Key_J), RigTool::PlaceJoint,
                      tr("Click on a mesh: a joint lands inside the limb, as a child of the selected joint"));
  actToolMove = tool("ToolMove", tr("&Move Joint"), QKeySequence(Qt::Key_W), RigTool::MoveJoint,
                     tr("Drag joints in the view plane (children follow); hold X, Y or Z to move along an axis, Shift to move the joint alone, Ctrl to snap it to the middle of the limb under the cursor"));
  actToolPose = tool("ToolPose", tr("P&ose"), QKeySequence(Qt::Key_R), RigTool::Pose,
                     tr("Drag the rings of the selected joint (or the joint itself) to rotate it and watch the skin follow"));
  actToolPaint = tool("ToolPaint", tr("Paint &Weights"), QKeySequence(Qt::Key_P), RigTool::Paint,
                      tr("Paint skinning weights on the surface"));
  actToolPaintMuscle = tool("ToolPaintMuscle", tr("Paint M&uscle Ends"), QKeySequence(Qt::SHIFT | Qt::Key_P),
                            RigTool::PaintMuscle,
                            tr("Paint a muscle's sources (origin, green) and sinks (insertion, red) on its surface"));
  actToolSelect->setChecked(true);
  connect(rig_, &RigController::toolChanged, this, [this](RigTool t) {
    QAction* a = t == RigTool::Select       ? actToolSelect
                 : t == RigTool::PlaceJoint ? actToolPlace
                 : t == RigTool::MoveJoint  ? actToolMove
                 : t == RigTool::Pose       ? actToolPose
                 : t == RigTool::Paint      ? actToolPaint
                                            : actToolPaintMuscle;
    a->setChecked(true);
    statusBar()->showMessage(a->statusTip(), 4000);
  });
  connect(rig_, &RigController::jointSelected, this, &MainWindow::selectJoint);
  connect(rig_, &RigController::toolChanged, this, [this](RigTool t) {
    paint_->active = t == RigTool::Paint;
    if (paint_->active) {
      paint_->setMesh(rig_->targetMesh());
      if (!paint_->mesh()) statusBar()->showMessage(tr("Paint weights: there is no mesh to paint"), 5000);
      else if (paint_->bones().empty()) statusBar()->showMessage(tr("Paint weights: the project needs a skeleton"), 5000);
    }
    musclePaint_->active = t == RigTool::PaintMuscle;
    if (musclePaint_->active) {
      musclePaint_->setBody(musclePanel_->currentBody());
      if (!musclePaint_->surface())
        statusBar()->showMessage(tr("Paint muscle ends: there is no muscle with a surface (Rig panel: Add Muscle)"), 5000);
    }
    viewport_->update();
  });
  connect(rig_, &RigController::message, this, [this](const QString& m) {
    statusBar()->showMessage(m, 6000);
    log_.info(m);
  });

  actInsertJoint = makeAction(this, "InsertJoint", tr("&Insert Joint in Bone"));
  actMirrorLR = makeAction(this, "MirrorLR", tr("Mirror &Left to Right"));
  actMirrorRL = makeAction(this, "MirrorRL", tr("Mirror &Right to Left"));
  actSymmetrize = makeAction(this, "Symmetrize", tr("S&ymmetrize Skeleton"));
  actBoneShapes = makeAction(this, "BoneShapes", tr("Default &Bone Shapes"));
  actFitSkeleton = makeAction(this, "FitSkeleton", tr("&Fit Skeleton to Mesh"));
  actImportSkeleton = makeAction(this, "ImportSkeleton", tr("Import S&keleton..."));
  actResetPose = makeAction(this, "ResetPose", tr("Reset &Pose"));
  actAutoJoints = makeAction(this, "AutoJoints", tr("&Auto-Place Joints"));
  actAutoJoints->setToolTip(tr("Place a 19-joint skeleton (CMU names) in a bare humanoid mesh in a T- or A-pose"));
  connect(actAutoJoints, &QAction::triggered, this, [this] { autoPlaceJoints(); });
  connect(actInsertJoint, &QAction::triggered, rig_, &RigController::insertJointInBone);
  connect(actMirrorLR, &QAction::triggered, this, [this] { rig_->mirror(+1); });
  connect(actMirrorRL, &QAction::triggered, this, [this] { rig_->mirror(-1); });
  connect(actSymmetrize, &QAction::triggered, rig_, &RigController::symmetrize);
  connect(actBoneShapes, &QAction::triggered, rig_, &RigController::assignBoneShapes);
  connect(actFitSkeleton, &QAction::triggered, this, [this] { rig_->fitSkeletonTo(rig_->targetMesh()); });
  connect(actResetPose, &QAction::triggered, rig_, &RigController::resetPose);
  connect(actImportSkeleton, &QAction::triggered, this, [this] {
    const QString file = QFileDialog::getOpenFileName(
        this, tr("Import Skeleton"), QSettings().value("paths/import").toString(),
        tr("Skeletons (*.fbx *.gltf *.glb *.dae *.bvh);;All files (*)"));
    if (!file.isEmpty()) importSkeleton(file);
  });

  // The Rig dock: tools, skeleton operations, volume display.
  auto* panel = new QWidget(this);
  panel->setObjectName("rigPanel");
  auto* v = new QVBoxLayout(panel);
  auto button = [panel](QAction* a) {
    auto* b = new QToolButton(panel);
    b->setDefaultAction(a);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    b->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    return b;
  };
  auto* toolBox = new QGroupBox(tr("Tools"), panel);
  auto* tg = new QGridLayout(toolBox);
  tg->addWidget(button(actToolSelect), 0, 0);
  tg->addWidget(button(actToolPlace), 0, 1);
  tg->addWidget(button(actToolMove), 1, 0);
  tg->addWidget(button(actToolPose), 1, 1);
  tg->addWidget(button(actToolPaint), 2, 0);
  tg->addWidget(button(actToolPaintMuscle), 2, 1);
  v->addWidget(toolBox);
  auto* skBox = new QGroupBox(tr("Skeleton"), panel);
  auto* sg = new QGridLayout(skBox);
  sg->addWidget(button(actInsertJoint), 0, 0, 1, 2);
  sg->addWidget(button(actMirrorLR), 1, 0);
  sg->addWidget(button(actMirrorRL), 1, 1);
  sg->addWidget(button(actSymmetrize), 2, 0);
  sg->addWidget(button(actBoneShapes), 2, 1);
  sg->addWidget(button(actFitSkeleton), 3, 0);
  sg->addWidget(button(actImportSkeleton), 3, 1);
  sg->addWidget(button(actAutoJoints), 4, 0);
  sg->addWidget(button(actResetPose), 4, 1);
  v->addWidget(skBox);
  auto* volBox = new QGroupBox(tr("Volume display"), panel);
  auto* vf = new QFormLayout(volBox);
  auto* cut = new QCheckBox(tr("Cut away"), volBox);
  cut->setObjectName("cutAway");
  auto* axis = new QComboBox(volBox);
  axis->setObjectName("cutAxis");
  axis->addItems({"x", "y", "z"});
  axis->setCurrentIndex(2);
  auto* where = new QSlider(Qt::Horizontal, volBox);
  where->setObjectName("cutPosition");
  where->setRange(0, 100);
  where->setValue(50);
  auto* fixed = new QCheckBox(tr("Fixed nodes"), volBox);
  fixed->setChecked(true);
  auto* worst = new QCheckBox(tr("Highlight worst tets"), volBox);
  vf->addRow(cut, axis);
  vf->addRow(tr("Plane"), where);
  vf->addRow(fixed);
  vf->addRow(worst);
  auto apply = [this, cut, axis, where, fixed, worst] {
    RigController::VolumeView vv;
    vv.cutAway = cut->isChecked();
    vv.axis = axis->currentIndex();
    vv.fraction = where->value() / 100.0;
    vv.fixedNodes = fixed->isChecked();
    vv.worstTets = worst->isChecked();
    rig_->setVolumeView(vv);
  };
  connect(cut, &QCheckBox::toggled, this, apply);
  connect(axis, &QComboBox::currentIndexChanged, this, apply);
  connect(where, &QSlider::valueChanged, this, apply);
  connect(fixed, &QCheckBox::toggled, this, apply);
  connect(worst, &QCheckBox::toggled, this, apply);
  v->addWidget(volBox);
  rigLayout_ = v;  // later sections (volumes, weights, painting) are added below
  buildVolumePanel();
  buildPaintPanel();
  buildMusclePanel();
  v->addStretch(1);
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(panel);
  scroll->setWidgetResizable(true);
  auto* dock = new QDockWidget(tr("Rig"), this);
  dock->setObjectName("dockRig");
  dock->setWidget(scroll);
  addDockWidget(Qt::RightDockWidgetArea, dock);
  tabifyDockWidget(findChild<QDockWidget*>("dockProperties"), dock);
  findChild<QDockWidget*>("dockProperties")->raise();
}

void MainWindow::buildControl() {
  ctlPanel_ = new ControllerPanel(&doc_, sim_, &log_, this);
  ctlPanel_->setObjectName("controllerPanel");
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(ctlPanel_);
  scroll->setWidgetResizable(true);
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
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(simPanel_);
  scroll->setWidgetResizable(true);
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

void MainWindow::buildVolumePanel() {
  auto* box = new QGroupBox(tr("Volumes and weights"), this);
  box->setObjectName("volumePanel");
  auto* f = new QFormLayout(box);
  auto* nodes = new QSpinBox(box);
  nodes->setObjectName("cageNodes");
  nodes->setRange(100, 50000);
  nodes->setSingleStep(100);
  nodes->setValue(1200);
  nodes->setToolTip(tr("Target number of cage nodes (Liu et al. 2013 used about 1,200)"));
  auto* method = new QComboBox(box);
  method->setObjectName("weightMethod");
  method->addItems({tr("Bounded biharmonic"), tr("Harmonic (fast preview)")});
  auto* cage = new QPushButton(tr("Build Cage"), box);
  cage->setObjectName("buildCage");
  auto* regions = new QPushButton(tr("Build Conforming Mesh"), box);
  regions->setObjectName("buildRegions");
  auto* weights = new QPushButton(tr("Compute Weights"), box);
  weights->setObjectName("computeWeights");
  auto* all = new QPushButton(tr("Build Everything Missing"), box);
  all->setObjectName("buildRig");
  auto* exportTets = new QPushButton(tr("Export .mesh/.joint..."), box);
  f->addRow(tr("Cage nodes"), nodes);
  f->addRow(tr("Weights"), method);
  auto* row1 = new QHBoxLayout;
  row1->addWidget(cage);
  row1->addWidget(regions);
  f->addRow(row1);
  auto* row2 = new QHBoxLayout;
  row2->addWidget(weights);
  row2->addWidget(all);
  f->addRow(row2);
  f->addRow(exportTets);
  auto options = [nodes, method] {
    RigBuildOptions o;
    o.cageNodes = size_t(nodes->value());
    o.method = method->currentIndex() == 0 ? WeightMethod::BoundedBiharmonic : WeightMethod::Harmonic;
    o.cage = o.regions = o.weights = false;
    return o;
  };
  connect(cage, &QPushButton::clicked, this, [this, options] {
    RigBuildOptions o = options();
    o.cage = o.weights = o.rebuild = true;  // new cage, new weights on it
    runRigBuild(o, tr("Building the cage"));
  });
  connect(regions, &QPushButton::clicked, this, [this, options] {
    RigBuildOptions o = options();
    o.regions = o.rebuild = true;
    runRigBuild(o, tr("Building the conforming mesh"));
  });
  connect(weights, &QPushButton::clicked, this, [this, options] {
    RigBuildOptions o = options();
    o.weights = o.rebuild = true;
    o.cage = true;  // needs a cage (kept if present)
    runRigBuild(o, tr("Computing weights"));
  });
  connect(all, &QPushButton::clicked, this, [this, options] {
    RigBuildOptions o = options();
    o.cage = o.weights = true;
    runRigBuild(o, tr("Building the rig"));
  });
  connect(exportTets, &QPushButton::clicked, this, [this] {
    const VolumeObject* v = doc_.project().findVolume(selected_);
    if (!v && !doc_.project().volumes.empty()) v = &doc_.project().volumes.front();
    if (!v) return showError(tr("Export"), tr("There is no volume to export: build a cage or a conforming mesh first."));
    QString path = QFileDialog::getSaveFileName(this, tr("Export Tet Mesh"), QString::fromStdString(v->name) + ".mesh",
                                                tr("Medit mesh (*.mesh)"));
    if (path.isEmpty()) return;
    if (!path.endsWith(".mesh")) path += ".mesh";
    try {
      writeMedit(path.toStdString(), v->mesh);
      if (v->kind == VolumeKind::Conforming && doc_.project().skeleton) {
        JointFile jf;
        jf.bones = v->bones;
        jf.joints = regionJoints(doc_.project().skeleton->skeleton, v->bones);
        writeJointFile(QString(path).replace(QRegularExpression("\\.mesh$"), ".joint").toStdString(), jf);
      }
      log_.info(tr("Exported %1").arg(path));
    } catch (const std::exception& e) {
      log_.error(QString::fromStdString(e.what()));
      showError(tr("Export failed"), QString::fromStdString(e.what()));
    }
  });
  rigLayout_->addWidget(box);
}

bool MainWindow::autoPlaceJoints() {
  const MeshObject* m = doc_.project().findMesh(rig_->targetMesh());
  if (!m) {
    showError(tr("Auto-Place Joints"), tr("Select the mesh to place joints in"));
    return false;
  }
  auto mesh = std::make_shared<MeshObject>(*m);
  auto placed = std::make_shared<Skeleton>();
  auto report = std::make_shared<AutoJointReport>();
  return tasks_->run(
      tr("Placing joints in %1").arg(QString::fromStdString(m->name)),
      [mesh, placed, report](const Progress& progress) {
        *placed = sinew::autoPlaceJoints(mesh->mesh, {}, report.get(), progress, mesh->name);
      },
      [this, mesh, placed, report] {
        if (doc_.project().skeleton) {
          doc_.undoStack()->push(new SkeletonEditCommand(&doc_, std::move(*placed), tr("Auto-place joints")));
        } else {
          Project added;
          added.nextId = doc_.project().nextId;
          SkeletonObject so;
          so.id = added.allocateId();
          so.name = mesh->name + " skeleton";
          so.skeleton = std::move(*placed);
          added.skeleton = std::move(so);
          doc_.undoStack()->push(new AddObjectsCommand(&doc_, std::move(added), tr("Auto-place joints")));
        }
        log_.info(tr("Placed 19 joints in '%1' (standing along %2, %3 s)")
                      .arg(QString::fromStdString(mesh->name), QString::fromStdString(report->upAxis))
                      .arg(report->seconds, 0, 'f', 2));
      },
      [this](const QString& message, bool cancelled) {
        if (cancelled) return log_.info(tr("Auto-place joints: cancelled; nothing changed"));
        log_.error(message);
        showError(tr("Auto-Place Joints"), message);
      });
}

bool MainWindow::findStableStep() {
  const Project snapshot = doc_.project();
  auto step = std::make_shared<liu2013::StepChoice>();
  return tasks_->run(
      tr("Finding a stable time step"),
      [snapshot, step](const Progress& progress) { *step = liu2013::chooseStableStep(snapshot, {}, progress); },
      [this, step] {
        for (const std::string& f : step->failures) log_.info(QString::fromStdString("A larger step failed: " + f));
        SimulationSetup s = doc_.project().simulation;
        const std::optional<double> dt = step->dt < liu2013::Settings{}.dt ? std::optional<double>(step->dt) : std::nullopt;
        log_.info(tr("Time step: %1 ms (a fall onto the ground ran stable)").arg(step->dt * 1000, 0, 'g', 4));
        if (s.timeStep == dt) return;
        s.timeStep = dt;
        doc_.undoStack()->push(new SetSimulationSetupCommand(&doc_, std::move(s), tr("Stable time step")));
      },
      [this](const QString& message, bool cancelled) {
        if (cancelled) return log_.info(tr("Time step search cancelled; the step is unchanged"));
        log_.warning(message);
      });
}

bool MainWindow::runRigBuild(const RigBuildOptions& options, const QString& title) {
  const Project snapshot = doc_.project();  // the worker reads a copy; editing may go on
  const ObjectId mesh = rig_->targetMesh();
  auto result = std::make_shared<RigBuildResult>();
  auto regionProblem = std::make_shared<std::optional<RegionCheck>>();
  auto joints = std::make_shared<QStringList>();
  return tasks_->run(
      title,
      [snapshot, mesh, options, result, regionProblem, joints](const Progress& progress) {
        try {
          *result = sinew::buildRig(snapshot, mesh, options, progress);
        } catch (const RegionMeshError& e) {
          *regionProblem = e.check();  // to highlight where the surface is unfit
          throw;
        } catch (const JointsError& e) {
          for (const std::string& j : e.joints()) *joints << QString::fromStdString(j);  // to mark them
          throw;
        }
      },
      [this, result, title] {
        const RigBuildReport& rep = result->report;
        log_.add(rep.diagnostics);
        if (!result->skeleton && result->volumes.empty() && !result->surfaceWeights) {
          log_.info(tr("Nothing to build: the rig has everything asked for"));
          return;
        }
        doc_.undoStack()->beginMacro(title);
        if (result->lift != 0) {  // stood on the ground: every mesh moves with the skeleton
          for (const MeshObject& m : doc_.project().meshes)
            doc_.undoStack()->push(new TransformMeshCommand(&doc_, m.id, 1.0, Vec3::Zero(), Vec3(0, result->lift, 0),
                                                            tr("Stand on the ground")));
          log_.info(tr("Moved the character %1 m along +Y to stand on the ground").arg(result->lift, 0, 'f', 3));
        }
        if (result->skeleton) doc_.undoStack()->push(new SkeletonEditCommand(&doc_, *result->skeleton, tr("Default bone shapes")));
        for (const VolumeObject& v : result->volumes)
          doc_.undoStack()->push(new SetVolumeCommand(&doc_, v, tr("Set %1").arg(QString::fromStdString(v.name))));
        if (result->surfaceWeights)
          doc_.undoStack()->push(new SetWeightsCommand(&doc_, result->mesh, result->surfaceWeights, 0, std::nullopt,
                                                       tr("Set weights")));
        doc_.undoStack()->endMacro();
        if (rep.cage)
          log_.info(tr("Cage: %1 nodes, %2 tets, %3 fixed nodes in %4 s").arg(rep.cage->nodes).arg(rep.cage->tets)
                        .arg(rep.cage->fixedNodes).arg(rep.cage->totalSeconds, 0, 'f', 2));
        if (rep.regions)
          log_.info(tr("Conforming mesh: %1 nodes, %2 tets in %3 s").arg(rep.regions->nodes).arg(rep.regions->tets)
                        .arg(rep.regions->totalSeconds, 0, 'f', 2));
        if (rep.weights)
          log_.info(tr("Weights (%1): %2 bones in %3 s, partition of unity within %4")
                        .arg(weightMethodName(rep.method))
                        .arg(rep.weights->weights.cols()).arg(rep.weights->seconds, 0, 'f', 2).arg(rep.maxPartitionError, 0, 'g', 2));
        statusBar()->showMessage(tr("%1: done").arg(title), 4000);
        if (rep.cage && rep.weights) QTimer::singleShot(0, this, [this] { findStableStep(); });
      },
      [this, title, mesh, options, regionProblem, joints](const QString& message, bool cancelled) {
        if (cancelled) return log_.info(tr("%1: cancelled; nothing changed").arg(title));
        log_.error(message);
        if (!joints->isEmpty()) {
          rig_->flagJoints(*joints);
          log_.warning(tr("Joints concerned, marked red in the view (the first selected): %1").arg(joints->join(", ")));
        }
        if (*regionProblem) {
          // Show where the exterior is unfit, and offer the cage, which takes any surface.
          const std::vector<int32_t> where = (*regionProblem)->exteriorProblemTriangles();
          doc_.setHighlight(mesh, where);
          log_.warning(tr("%1 problem triangle(s) highlighted in red; a cage accepts any surface").arg(where.size()));
          if (interactive_ &&
              QMessageBox::question(this, title, tr("%1\n\nBuild a cage instead?").arg(message)) == QMessageBox::Yes) {
            RigBuildOptions cage = options;
            cage.regions = false;
            cage.cage = cage.weights = true;
            QTimer::singleShot(0, this, [this, cage] { runRigBuild(cage, tr("Building the cage")); });
          }
          return;
        }
        showError(title, message);
      });
}

void MainWindow::buildPaintPanel() {
  auto* box = new QGroupBox(tr("Paint weights"), this);
  box->setObjectName("paintPanel");
  auto* f = new QFormLayout(box);
  auto* bone = new QComboBox(box);
  bone->setObjectName("paintBone");
  auto* locks = new QListWidget(box);
  locks->setObjectName("paintLocks");
  locks->setMaximumHeight(90);
  locks->setToolTip(tr("Checked bones are locked: painting never changes them"));
  auto* mode = new QComboBox(box);
  mode->setObjectName("paintMode");
  for (BrushMode m : {BrushMode::Add, BrushMode::Subtract, BrushMode::Replace, BrushMode::Smooth})
    mode->addItem(brushModeName(m));
  auto* radius = new QDoubleSpinBox(box);
  radius->setObjectName("paintRadius");
  radius->setRange(0.002, 2.0);
  radius->setDecimals(3);
  radius->setSingleStep(0.005);
  radius->setSuffix(" m");
  radius->setValue(paint_->brush.radius);
  auto* strength = new QDoubleSpinBox(box);
  strength->setObjectName("paintStrength");
  strength->setRange(0.0, 1.0);
  strength->setSingleStep(0.05);
  strength->setValue(paint_->brush.strength);
  auto* falloff = new QComboBox(box);
  falloff->setObjectName("paintFalloff");
  for (BrushFalloff x : {BrushFalloff::Constant, BrushFalloff::Linear, BrushFalloff::Smooth}) falloff->addItem(brushFalloffName(x));
  falloff->setCurrentIndex(2);
  auto* value = new QDoubleSpinBox(box);
  value->setObjectName("paintValue");
  value->setRange(0.0, 1.0);
  value->setSingleStep(0.1);
  value->setValue(1.0);
  value->setToolTip(tr("Target weight of Replace, and the value Flood sets"));
  auto* normalize = new QCheckBox(tr("Auto-normalise"), box);
  normalize->setChecked(paint_->settings().autoNormalize);
  auto* maxInf = new QSpinBox(box);
  maxInf->setRange(0, 16);
  maxInf->setSpecialValueText(tr("no limit"));
  maxInf->setValue(paint_->settings().maxInfluences);
  auto* mirror = new QCheckBox(tr("Mirror left/right"), box);
  auto* dominant = new QCheckBox(tr("Show dominant bone"), box);
  auto* floodButton = new QPushButton(tr("Flood"), box);
  auto* normalizeButton = new QPushButton(tr("Normalise all"), box);
  f->addRow(tr("Bone"), bone);
  f->addRow(tr("Locked"), locks);
  f->addRow(tr("Mode"), mode);
  f->addRow(tr("Radius"), radius);
  f->addRow(tr("Strength"), strength);
  f->addRow(tr("Falloff"), falloff);
  f->addRow(tr("Value"), value);
  f->addRow(normalize);
  f->addRow(tr("Max influences"), maxInf);
  f->addRow(mirror);
  f->addRow(dominant);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(floodButton);
  buttons->addWidget(normalizeButton);
  f->addRow(buttons);
  auto refill = [this, bone, locks] {
    const QSignalBlocker b1(bone), b2(locks);
    bone->clear();
    locks->clear();
    for (size_t i = 0; i < paint_->bones().size(); ++i) {
      const QString name = QString::fromStdString(paint_->bones()[i]);
      bone->addItem(name);
      auto* item = new QListWidgetItem(name, locks);
      item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
      item->setCheckState(paint_->locked(int32_t(i)) ? Qt::Checked : Qt::Unchecked);
    }
    bone->setCurrentIndex(paint_->selectedBone());
  };
  connect(paint_, &PaintController::bonesChanged, this, refill);
  connect(bone, &QComboBox::currentIndexChanged, this, [this](int i) { paint_->setSelectedBone(i); });
  connect(locks, &QListWidget::itemChanged, this, [this, locks](QListWidgetItem* item) {
    paint_->setLocked(locks->row(item), item->checkState() == Qt::Checked);
  });
  connect(mode, &QComboBox::currentIndexChanged, this, [this](int i) { paint_->brush.mode = BrushMode(i); });
  connect(radius, &QDoubleSpinBox::valueChanged, this, [this](double r) {
    paint_->brush.radius = r;
    viewport_->update();
  });
  connect(strength, &QDoubleSpinBox::valueChanged, this, [this](double x) { paint_->brush.strength = x; });
  connect(falloff, &QComboBox::currentIndexChanged, this, [this](int i) { paint_->brush.falloff = BrushFalloff(i); });
  connect(value, &QDoubleSpinBox::valueChanged, this, [this](double x) { paint_->brush.value = x; });
  connect(normalize, &QCheckBox::toggled, this, [this](bool on) { paint_->settings().autoNormalize = on; });
  connect(maxInf, &QSpinBox::valueChanged, this, [this](int n) { paint_->settings().maxInfluences = n; });
  connect(mirror, &QCheckBox::toggled, this, [this](bool on) { paint_->settings().mirror = on; });
  connect(dominant, &QCheckBox::toggled, this, [this](bool on) {
    paint_->showDominant = on;
    paint_->setSelectedBone(paint_->selectedBone());  // recolour
  });
  connect(floodButton, &QPushButton::clicked, this, [this, value] { paint_->floodSelected(value->value()); });
  connect(normalizeButton, &QPushButton::clicked, paint_, &PaintController::normalizeAll);
  rigLayout_->addWidget(box);
}

void MainWindow::buildMusclePanel() {
  actViperize = makeAction(this, "Viperize", tr("&Viperize Muscle"));
  actViperize->setToolTip(tr("Turn the muscle's painted surface into K rods of M nodes (Angles et al. 2019, Section 8.1)"));
  actAddMuscle = makeAction(this, "AddMuscle", tr("&Add Muscle Between Bones"));
  actAddMuscle->setToolTip(tr("A spindle muscle over the two chosen bones, its ends painted as source and sink"));
  musclePanel_ =
      new MusclePanel(&doc_, tasks_, &log_, musclePaint_, actToolPaintMuscle, actViperize, actAddMuscle, this);
  musclePanel_->setObjectName("musclePanel");
  connect(actViperize, &QAction::triggered, musclePanel_, &MusclePanel::viperize);
  connect(actAddMuscle, &QAction::triggered, musclePanel_, &MusclePanel::addMuscleBetweenBones);
  connect(musclePanel_, &MusclePanel::failed, this,
          [this](const QString& title, const QString& m) { showError(title, m); });
  connect(musclePanel_, &MusclePanel::message, this, [this](const QString& m) { statusBar()->showMessage(m, 4000); });
  connect(musclePanel_, &MusclePanel::bodyAdded, this, [this](ObjectId id) { selectObject(id); });
  rigLayout_->addWidget(musclePanel_);
}

bool MainWindow::importSkeleton(const QString& file) {
  auto skeleton = std::make_shared<Skeleton>();
  const std::string path = file.toStdString();
  return tasks_->run(
      tr("Importing skeleton from %1").arg(QFileInfo(file).fileName()),
      [skeleton, path](const Progress& progress) {
        ImportResult r = importFile(path, {}, progress);
        if (r.skeleton) *skeleton = std::move(*r.skeleton);
        else if (!r.clips.empty()) *skeleton = r.clips.front().skeleton();  // a BVH hierarchy
        else throw InputError(path, "has no skeleton (no armature, no BVH hierarchy)");
      },
      [this, skeleton, file] {
        if (const MeshObject* m = doc_.project().findMesh(rig_->targetMesh())) {
          const double scale = fitSkeletonToMesh(*skeleton, m->mesh);
          assignDefaultBoneShapes(*skeleton, m->mesh);
          log_.info(tr("Fitted the imported skeleton to '%1' (scale %2)").arg(QString::fromStdString(m->name)).arg(scale, 0, 'g', 4));
          const std::vector<int32_t> outside = jointsOutside(*skeleton, TriangleTree(m->mesh));
          if (!outside.empty()) log_.warning(tr("%1 imported joint(s) lie outside '%2'").arg(outside.size()).arg(QString::fromStdString(m->name)));
        }
        if (doc_.project().skeleton) {
          doc_.undoStack()->push(new SkeletonEditCommand(&doc_, std::move(*skeleton), tr("Import skeleton")));
        } else {
          Project added;
          added.nextId = doc_.project().nextId;
          SkeletonObject so;
          so.id = added.allocateId();
          so.name = QFileInfo(file).completeBaseName().toStdString() + " skeleton";
          so.skeleton = std::move(*skeleton);
          added.skeleton = std::move(so);
          doc_.undoStack()->push(new AddObjectsCommand(&doc_, std::move(added), tr("Import skeleton")));
        }
        log_.info(tr("Imported the skeleton of %1").arg(file));
      },
      [this](const QString& message, bool cancelled) {
        if (cancelled) return;
        log_.error(message);
        showError(tr("Import skeleton failed"), message);
      });
}

void MainWindow::buildPlaybackBar() {
  auto* bar = new QToolBar(tr("Playback"), this);
  bar->setObjectName("playbackBar");
  bar->setIconSize(QSize(16, 16));
  clipBox_ = new QComboBox(bar);
  clipBox_->setObjectName("clipBox");
  clipBox_->setMinimumContentsLength(8);
  clipBox_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  clipBox_->setToolTip(tr("Motion clip to play"));
  bar->addWidget(clipBox_);
  actRewind->setIcon(style()->standardIcon(QStyle::SP_MediaSkipBackward));
  actStepBack->setIcon(style()->standardIcon(QStyle::SP_MediaSeekBackward));
  actPlay->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
  actStepForward->setIcon(style()->standardIcon(QStyle::SP_MediaSeekForward));
  actLoop->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
  bar->addAction(actRewind);
  bar->addAction(actStepBack);
  bar->addAction(actPlay);
  bar->addAction(actStepForward);
  bar->addAction(actLoop);
  timeSlider_ = new QSlider(Qt::Horizontal, bar);
  timeSlider_->setObjectName("timeSlider");
  timeSlider_->setRange(0, 0);
  timeSlider_->setMinimumWidth(80);
  timeSlider_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  bar->addWidget(timeSlider_);
  timeLabel_ = new QLabel(bar);
  timeLabel_->setMinimumWidth(90);
  bar->addWidget(timeLabel_);
  playTimer_ = new QTimer(this);
  playTimer_->setInterval(16);
  connect(playTimer_, &QTimer::timeout, this, [this] {
    const ClipObject* c = doc_.project().findClip(clipBox_->currentData().toULongLong());
    if (!c) return setPlaying(false);
    playTime_ += playClock_.restart() * 1e-3;
    if (playTime_ > c->clip.duration()) {
      if (actLoop->isChecked() && c->clip.duration() > 0) playTime_ = std::fmod(playTime_, c->clip.duration());
      else {
        playTime_ = c->clip.duration();
        actPlay->setChecked(false);
      }
    }
    updatePlayback();
  });
  connect(timeSlider_, &QSlider::valueChanged, this, [this](int frame) {
    const ClipObject* c = doc_.project().findClip(clipBox_->currentData().toULongLong());
    if (!c || playing_) return;
    playTime_ = frame * c->clip.frameTime;
    updatePlayback();
  });
  connect(clipBox_, &QComboBox::currentIndexChanged, this, [this] {
    playTime_ = 0;
    updatePlayback();
  });
  refreshClipList();
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

void MainWindow::newProject() {
  Project p;
  p.name = "Untitled";
  doc_.reset(std::move(p), QString());
  recovery_->discardSession();
  log_.info(tr("New project"));
  viewport_->frameAll();
}

bool MainWindow::openProject(const QString& path) {
  auto result = std::make_shared<Project>();
  auto notes = std::make_shared<Diagnostics>();
  const std::string file = path.toStdString();
  return tasks_->run(
      tr("Opening %1").arg(QFileInfo(path).fileName()),
      [result, notes, file](const Progress& progress) {
        progress.update(0.1, "reading");
        *result = loadProject(file, notes.get());
        progress.update(1.0, "done");
      },
      [this, result, notes, path] {
        log_.add(*notes);
        openProjectData(std::move(*result), path);
        addRecent(path);
      },
      [this, path](const QString& message, bool cancelled) {
        if (cancelled) return log_.info(tr("Opening %1 cancelled").arg(path));
        log_.error(message);
        showError(tr("Cannot open project"), message);
      });
}

void MainWindow::openProjectData(Project project, const QString& path) {
  doc_.reset(std::move(project), path);
  log_.info(tr("Opened %1: %2 object(s)").arg(doc_.displayName()).arg(doc_.project().objectCount()));
  selectObject(0);
  viewport_->frameAll();
}

bool MainWindow::saveProjectTo(const QString& path) {
  try {
    saveProject(doc_.project(), path.toStdString());
  } catch (const std::exception& e) {
    const QString msg = QString::fromStdString(e.what());
    log_.error(msg);
    showError(tr("Save failed"), tr("%1\n\nYour work is still open and unchanged.").arg(msg));
    return false;
  }
  doc_.setPath(path);
  doc_.markSaved();
  recovery_->discardSession();
  autosavedIndex_ = doc_.undoStack()->index();
  addRecent(path);
  log_.info(tr("Saved %1").arg(path));
  statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 3000);
  return true;
}

bool MainWindow::save() {
  if (doc_.path().isEmpty()) {
    QString path = QFileDialog::getSaveFileName(this, tr("Save Project"),
                                                QString::fromStdString(doc_.project().name) + kProjectExtension,
                                                tr("Sinew projects (*.sinew)"));
    if (path.isEmpty()) return false;
    if (!path.endsWith(kProjectExtension)) path += kProjectExtension;
    return saveProjectTo(path);
  }
  return saveProjectTo(doc_.path());
}

bool MainWindow::importFiles(const QStringList& files) {
  struct Result {
    Project objects;  // new objects, ids allocated above the document's
    Diagnostics diagnostics;
    std::vector<std::pair<ObjectId, MeshReport>> reports;
    QStringList failures;
  };
  auto result = std::make_shared<Result>();
  const ObjectId firstId = doc_.project().nextId;
  QSettings settings;
  ImportOptions opt;
  opt.scale = settings.value("import/scale", 0.0).toDouble();  // 0: detected
  opt.grouping = MeshGrouping(std::clamp(settings.value("import/grouping", 0).toInt(), 0, 2));
  opt.weld = settings.value("import/weld", true).toBool();
  std::vector<std::string> paths;
  for (const QString& f : files) paths.push_back(f.toStdString());
  const QString title = files.size() == 1 ? tr("Importing %1").arg(QFileInfo(files.front()).fileName())
                                          : tr("Importing %1 files").arg(files.size());
  return tasks_->run(
      title,
      [result, paths, opt, firstId](const Progress& progress) {
        // Objects are staged in a project of their own, with ids above the document's.
        result->objects.nextId = firstId;
        for (size_t i = 0; i < paths.size(); ++i) {
          const Progress p = progress.sub(double(i) / paths.size(), double(i + 1) / paths.size());
          try {
            ImportResult r = importFile(paths[i], opt, p);
            std::vector<MeshReport> reports;
            for (ImportedMesh& m : r.meshes) reports.push_back(m.report.value_or(MeshReport{}));
            result->diagnostics.insert(result->diagnostics.end(), r.diagnostics.begin(), r.diagnostics.end());
            const size_t meshBase = result->objects.meshes.size();
            addToProject(result->objects, std::move(r), result->diagnostics);
            for (size_t k = 0; k < reports.size(); ++k)
              result->reports.push_back({result->objects.meshes[meshBase + k].id, std::move(reports[k])});
            result->diagnostics.push_back({Severity::Info, "imported " + paths[i]});
          } catch (const InputError& e) {
            result->failures << QString::fromStdString(e.what());
          }
        }
      },
      [this, result, files] {
        log_.add(result->diagnostics);
        for (const QString& f : result->failures) log_.error(f);
        // One skeleton per project: an imported one replaces the current one only if the user agrees.
        if (result->objects.skeleton && doc_.project().skeleton) {
          const QString current = QString::fromStdString(doc_.project().skeleton->name);
          const QString incoming = QString::fromStdString(result->objects.skeleton->name);
          const bool replace =
              interactive_ &&
              QMessageBox::question(this, tr("Replace skeleton?"),
                                    tr("The project already has the skeleton '%1'. Replace it with '%2' from the "
                                       "imported file?").arg(current, incoming)) == QMessageBox::Yes;
          if (!replace) {
            log_.warning(tr("Kept skeleton '%1'; the imported skeleton '%2' was not added").arg(current, incoming));
            result->objects.skeleton.reset();
          }
        }
        if (result->objects.objectCount() > 0) {
          const size_t n = result->objects.objectCount();
          doc_.undoStack()->push(new AddObjectsCommand(
              &doc_, std::move(result->objects),
              files.size() == 1 ? tr("Import %1").arg(QFileInfo(files.front()).fileName())
                                : tr("Import %1 files").arg(files.size())));
          for (auto& [id, report] : result->reports) doc_.setMeshReport(id, std::move(report));
          statusBar()->showMessage(tr("Imported %1 object(s)").arg(n), 4000);
          viewport_->frameAll();
        }
        if (!result->failures.isEmpty())
          showError(tr("Import failed"), result->failures.join("\n"));
      },
      [this](const QString& message, bool cancelled) {
        if (cancelled) {
          log_.info(tr("Import cancelled; nothing was added"));
          return;
        }
        log_.error(message);
        showError(tr("Import failed"), message);
      });
}

void MainWindow::exportSelection() {
  const Project& p = doc_.project();
  if (const ClipObject* c = p.findClip(selected_)) {
    QString path = QFileDialog::getSaveFileName(this, tr("Export Motion Clip"),
                                                QString::fromStdString(c->clip.name) + ".bvh", tr("BVH (*.bvh)"));
    if (path.isEmpty()) return;
    try {
      writeBvh(c->clip, path.toStdString());
      log_.info(tr("Exported %1").arg(path));
    } catch (const std::exception& e) {
      log_.error(QString::fromStdString(e.what()));
      showError(tr("Export failed"), QString::fromStdString(e.what()));
    }
    return;
  }
  std::vector<const MeshObject*> meshes;
  if (const MeshObject* m = p.findMesh(selected_)) meshes.push_back(m);
  else
    for (const MeshObject& m : p.meshes) meshes.push_back(&m);
  if (meshes.empty()) return showError(tr("Export"), tr("There are no meshes to export."));
  const QString path = QFileDialog::getSaveFileName(this, tr("Export Meshes"), QString(),
                                                    filterFor(exportExtensions(), tr("Mesh files")));
  if (path.isEmpty()) return;
  try {
    exportMeshes(meshes, path.toStdString());
    log_.info(tr("Exported %1 mesh(es) to %2").arg(meshes.size()).arg(path));
  } catch (const std::exception& e) {
    log_.error(QString::fromStdString(e.what()));
    showError(tr("Export failed"), QString::fromStdString(e.what()));
  }
}

bool MainWindow::maybeSave() {
  if (!doc_.isModified()) return true;
  if (!interactive_) return true;
  const auto answer = QMessageBox::warning(this, tr("Unsaved changes"),
                                           tr("%1 has unsaved changes. Save them?").arg(doc_.displayName()),
                                           QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel,
                                           QMessageBox::Save);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Save) return save();
  return true;
}

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

void MainWindow::autosaveNow() {
  if (!doc_.isModified() || doc_.undoStack()->index() == autosavedIndex_) return;
  try {
    recovery_->autosave(doc_.project(), doc_.path());
    autosavedIndex_ = doc_.undoStack()->index();
    statusBar()->showMessage(tr("Autosaved"), 2000);
  } catch (const std::exception& e) {
    log_.warning(tr("Autosave failed: %1").arg(QString::fromStdString(e.what())));
  }
}

void MainWindow::checkRecovery() {
  if (recoveryPolicy_ == RecoveryPolicy::Ignore) return;
  const auto entries = recovery_->orphaned();
  if (entries.empty()) return;
  const Recovery::Entry& e = entries.front();
  const QString what = e.originalPath.isEmpty() ? e.projectName : QFileInfo(e.originalPath).fileName();
  bool recover = recoveryPolicy_ == RecoveryPolicy::Recover;
  if (recoveryPolicy_ == RecoveryPolicy::Ask) {
    const auto answer = QMessageBox::question(
        this, tr("Recover unsaved work?"),
        tr("Sinew did not shut down cleanly. Unsaved changes to <b>%1</b> were autosaved at %2.<br><br>"
           "Recover them?")
            .arg(what.toHtmlEscaped(), e.time.toString("yyyy-MM-dd HH:mm:ss")),
        QMessageBox::Yes | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Yes);
    if (answer == QMessageBox::Cancel) return;  // keep it for next time
    recover = answer == QMessageBox::Yes;
  }
  if (recover) {
    try {
      Project p = loadProject(e.projectFile.toStdString());
      doc_.reset(std::move(p), e.originalPath, /*modified=*/true);
      log_.warning(tr("Recovered unsaved work on %1 from %2; save it to keep it")
                       .arg(what, e.time.toString("yyyy-MM-dd HH:mm:ss")));
      viewport_->frameAll();
    } catch (const std::exception& ex) {
      log_.error(tr("Recovery failed: %1").arg(QString::fromStdString(ex.what())));
      showError(tr("Recovery failed"), QString::fromStdString(ex.what()));
      return;  // keep the files: the user may try again
    }
  }
  for (const Recovery::Entry& old : entries) Recovery::discard(old);
  if (recover) autosaveNow();  // protect the recovered work in this session
}

// ---------------------------------------------------------------------------
// Selection and picking

void MainWindow::selectJoint(const QString& name) {
  if (rig_->selectedJoint() != name) {
    rig_->selectJoint(name);  // comes back here through jointSelected
    return;
  }
  if (name.isEmpty()) return selectObject(0);
  selected_ = doc_.project().skeleton ? doc_.project().skeleton->id : 0;
  outliner_->selectJoint(name);
  properties_->setJoint(name);
  render::PickResult detail;
  const Skeleton& s = doc_.project().skeleton->skeleton;
  detail.kind = render::PickKind::Joint;
  detail.object = selected_;
  detail.joint = s.find(name.toStdString());
  viewport_->setSelection(selected_, detail);
  actRename->setEnabled(false);
  actDelete->setEnabled(true);
}

void MainWindow::selectObject(ObjectId id, const render::PickResult& detail) {
  if (detail.kind != render::PickKind::Joint && !rig_->selectedJoint().isEmpty()) {
    const QSignalBlocker block(rig_);
    rig_->selectJoint({});
  }
  selected_ = id;
  rig_->setSelectedObject(id);
  if (doc_.project().findMesh(id)) {
    rig_->setTargetMesh(id);
    if (paint_->active) paint_->setMesh(id);
  }
  // A rod body, or the surface of one, becomes the Muscles section's body (and the muscle brush's).
  for (const RodBodyObject& b : doc_.project().rodBodies)
    if (b.id == id || (b.surface && b.surface == id)) {
      musclePanel_->setCurrentBody(b.id);
      break;
    }
  outliner_->selectObject(id);
  properties_->setObject(id);
  viewport_->setSelection(id, detail);
  const bool mesh = doc_.project().findMesh(id) != nullptr;
  actValidate->setEnabled(mesh);
  actScale->setEnabled(mesh);
  actGround->setEnabled(mesh);
  actRename->setEnabled(id != 0);
  actDelete->setEnabled(id != 0);
  if (const ClipObject* c = doc_.project().findClip(id)) {
    const int i = clipBox_->findData(QVariant::fromValue<qulonglong>(c->id));
    if (i >= 0) clipBox_->setCurrentIndex(i);
  }
  if (detail.kind == render::PickKind::None) properties_->setDetails({}, {});
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
  if (r.kind == render::PickKind::Joint) {
    selectJoint(QString::fromStdString(doc_.project().skeleton->skeleton.joints[size_t(r.joint)].name));
    viewport_->setSelection(r.object, r);
  } else {
    selectObject(r.object, r);
  }
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
  const MeshObject* m = doc_.project().findMesh(selected_);
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
  const MeshObject* m = doc_.project().findMesh(selected_);
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
  const MeshObject* m = doc_.project().findMesh(selected_);
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
  const QSignalBlocker b1(actGrid), b2(actAxes), b3(actSkeleton), b4(actProblems), b5(actPills);
  actShaded->setChecked(s.mode == render::DisplayMode::Shaded);
  actWireframe->setChecked(s.mode == render::DisplayMode::Wireframe);
  actXray->setChecked(s.mode == render::DisplayMode::XRay);
  actGrid->setChecked(s.grid);
  actAxes->setChecked(s.axes);
  actSkeleton->setChecked(s.skeleton);
  actProblems->setChecked(s.problems);
  actPills->setChecked(s.pills);
}

void MainWindow::refreshClipList() {
  const ObjectId current = clipBox_->currentData().toULongLong();
  const QSignalBlocker block(clipBox_);
  clipBox_->clear();
  for (const ClipObject& c : doc_.project().clips)
    clipBox_->addItem(QString::fromStdString(c.clip.name), QVariant::fromValue<qulonglong>(c.id));
  const int i = clipBox_->findData(QVariant::fromValue<qulonglong>(current));
  clipBox_->setCurrentIndex(i >= 0 ? i : 0);
  const bool any = clipBox_->count() > 0;
  for (QAction* a : {actPlay, actStepForward, actStepBack, actRewind}) a->setEnabled(any);
  timeSlider_->setEnabled(any);
  if (!any) setPlaying(false);
  updatePlayback();
}

void MainWindow::setPlaying(bool on) {
  playing_ = on && clipBox_->count() > 0;
  if (actPlay->isChecked() != playing_) {
    const QSignalBlocker b(actPlay);
    actPlay->setChecked(playing_);
  }
  actPlay->setText(playing_ ? tr("&Pause") : tr("&Play"));
  actPlay->setIcon(style()->standardIcon(playing_ ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
  if (playing_) {
    playClock_.start();
    playTimer_->start();
  } else {
    playTimer_->stop();
  }
}

void MainWindow::stepPlayback(int frames) {
  const ClipObject* c = doc_.project().findClip(clipBox_->currentData().toULongLong());
  if (!c) return;
  setPlaying(false);
  const int f = std::clamp(int(std::lround(playTime_ / c->clip.frameTime)) + frames, 0, std::max(c->clip.frameCount - 1, 0));
  playTime_ = f * c->clip.frameTime;
  updatePlayback();
}

void MainWindow::updatePlayback() {
  const ClipObject* c = doc_.project().findClip(clipBox_->currentData().toULongLong());
  if (!c) {
    viewport_->setClipPose(0, 0);
    viewport_->setTimelineText({});
    timeLabel_->setText(tr("no motion clip"));
    timeSlider_->setRange(0, 0);
    return;
  }
  const MotionClip& clip = c->clip;
  playTime_ = std::clamp(playTime_, 0.0, clip.duration());
  const int frame = int(std::lround(playTime_ / clip.frameTime));
  {
    const QSignalBlocker b(timeSlider_);
    timeSlider_->setRange(0, std::max(clip.frameCount - 1, 0));
    timeSlider_->setValue(frame);
  }
  const QString text = tr("%1  %2 / %3 s  frame %4/%5")
                           .arg(QString::fromStdString(clip.name))
                           .arg(playTime_, 0, 'f', 2)
                           .arg(clip.duration(), 0, 'f', 2)
                           .arg(frame + 1)
                           .arg(clip.frameCount);
  timeLabel_->setText(tr("%1 / %2 s").arg(playTime_, 0, 'f', 2).arg(clip.duration(), 0, 'f', 2));
  viewport_->setTimelineText(text);
  viewport_->setClipPose(c->id, playTime_);
}

}  // namespace sinew::app
