// The Rig, Volume, Paint and Muscles docks and the rig tasks they start
// (automatic joints, skeleton import, rig builds, the stable-step search),
// each long step in the TaskRunner with progress and Cancel.
#include "MainWindow.h"
#include "MainWindowParts.h"
#include "PanelScrollArea.h"

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

using namespace detail;

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
  auto* scroll = new PanelScrollArea(panel, this);
  auto* dock = new QDockWidget(tr("Rig"), this);
  dock->setObjectName("dockRig");
  dock->setWidget(scroll);
  addDockWidget(Qt::RightDockWidgetArea, dock);
  tabifyDockWidget(findChild<QDockWidget*>("dockProperties"), dock);
  findChild<QDockWidget*>("dockProperties")->raise();
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
  auto* detail = new QSpinBox(box);
  detail->setObjectName("regionVertices");
  detail->setRange(100, 100000);
  detail->setSingleStep(100);
  detail->setValue(int(RigBuildOptions{}.regionVertices));
  detail->setToolTip(tr("Conforming mesh resolution (Li et al. 2019): its exterior simplified to about this many "
                        "vertices. Fewer make a coarser mesh that steps faster (about 400 with 5 iterations plays "
                        "the example live); the full surface stays embedded for the viewport and export"));
  auto* liveDetail = new QSpinBox(box);
  liveDetail->setObjectName("liveVertices");
  liveDetail->setRange(100, 100000);
  liveDetail->setSingleStep(100);
  liveDetail->setValue(int(RigBuildOptions{}.liveVertices));
  liveDetail->setToolTip(tr("The live copy of the conforming mesh: its exterior simplified to about this many vertices. "
                            "It is kept beside the full mesh; the Simulate panel's Live mesh switch runs it"));
  auto* method = new QComboBox(box);
  method->setObjectName("weightMethod");
  method->addItems({tr("Bounded biharmonic"), tr("Harmonic (fast preview)")});
  auto* cage = new QPushButton(tr("Build Cage"), box);
  cage->setObjectName("buildCage");
  auto* regions = new QPushButton(tr("Build Conforming Mesh"), box);
  regions->setObjectName("buildRegions");
  auto* live = new QPushButton(tr("Build Live Mesh"), box);
  live->setObjectName("buildLive");
  live->setToolTip(tr("Build a coarser copy of the conforming mesh for live Li 2019 playback, kept beside the full one"));
  auto* weights = new QPushButton(tr("Compute Weights"), box);
  weights->setObjectName("computeWeights");
  auto* all = new QPushButton(tr("Build Everything Missing"), box);
  all->setObjectName("buildRig");
  auto* exportTets = new QPushButton(tr("Export .mesh/.joint..."), box);
  f->addRow(tr("Cage nodes"), nodes);
  f->addRow(tr("Conforming detail"), detail);
  f->addRow(tr("Live detail"), liveDetail);
  f->addRow(tr("Weights"), method);
  auto* row1 = new QHBoxLayout;
  row1->addWidget(cage);
  row1->addWidget(regions);
  f->addRow(row1);
  f->addRow(live);
  auto* row2 = new QHBoxLayout;
  row2->addWidget(weights);
  row2->addWidget(all);
  f->addRow(row2);
  f->addRow(exportTets);
  auto options = [nodes, detail, liveDetail, method] {
    RigBuildOptions o;
    o.cageNodes = size_t(nodes->value());
    o.regionVertices = size_t(detail->value());
    o.liveVertices = size_t(liveDetail->value());
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
  connect(live, &QPushButton::clicked, this, [this, options] {
    RigBuildOptions o = options();
    o.live = o.rebuild = true;
    runRigBuild(o, tr("Building the live conforming mesh"));
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
    const VolumeObject* v = doc_.project().findVolume(selectedObject());
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
        if (s.solverParam("liu2013", "dt") == dt) return;
        s.setSolverParam("liu2013", "dt", dt);
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
        if (rep.liveRegions)
          log_.info(tr("Live conforming mesh: %1 nodes, %2 tets in %3 s (Simulate panel: Live mesh runs it)")
                        .arg(rep.liveRegions->nodes).arg(rep.liveRegions->tets).arg(rep.liveRegions->totalSeconds, 0, 'f', 2));
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

}  // namespace sinew::app
