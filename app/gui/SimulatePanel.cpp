#include "SimulatePanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QStandardItemModel>
#include <QSlider>

#include <QVBoxLayout>

#include <cmath>
#include <initializer_list>

namespace sinew::app {

SimulatePanel::SimulatePanel(Document* doc, SimulationController* sim, QWidget* parent)
    : QWidget(parent), doc_(doc), sim_(sim) {
  auto* v = new QVBoxLayout(this);

  // Run controls.
  auto* buttons = new QHBoxLayout;
  play_ = new QPushButton(tr("Play"), this);
  play_->setObjectName("simPlay");
  step_ = new QPushButton(tr("Step"), this);
  step_->setObjectName("simStep");
  step_->setToolTip(tr("Simulate one display frame (1/60 s)"));
  reset_ = new QPushButton(tr("Reset"), this);
  reset_->setObjectName("simReset");
  reset_->setToolTip(tr("Back to t = 0 (rebuilds the model when the material changed)"));
  buttons->addWidget(play_);
  buttons->addWidget(step_);
  buttons->addWidget(reset_);
  v->addLayout(buttons);

  // Timeline.
  auto* tl = new QHBoxLayout;
  timeline_ = new QSlider(Qt::Horizontal, this);
  timeline_->setObjectName("simTimeline");
  timeline_->setRange(0, 0);
  loop_ = new QCheckBox(tr("Loop"), this);
  loop_->setObjectName("simLoop");
  loop_->setToolTip(tr("Play replays the cached frames in a loop instead of simulating further"));
  tl->addWidget(timeline_, 1);
  tl->addWidget(loop_);
  v->addLayout(tl);

  auto* stats = new QFormLayout;
  time_ = new QLabel(this);
  time_->setObjectName("simTime");
  time_->setWordWrap(true);  // long runs: "12.345 s (frame 740 of 3599, simulated 59.983 s)"
  realtime_ = new QLabel(this);
  realtime_->setObjectName("simRealtime");
  msPerStep_ = new QLabel(this);
  msPerStep_->setObjectName("simMsPerStep");
  stats->addRow(tr("Time"), time_);
  stats->addRow(tr("Real-time factor"), realtime_);
  stats->addRow(tr("Per step"), msPerStep_);
  v->addLayout(stats);

  // Plot of the measures per frame.
  auto* plotBox = new QGroupBox(tr("Plot"), this);
  auto* pl = new QVBoxLayout(plotBox);
  chart_ = new SimStatsChart(sim_, plotBox);
  chart_->setObjectName("simStats");
  pl->addWidget(chart_);
  v->addWidget(plotBox);

  // Solver and drive.
  auto* driveBox = new QGroupBox(tr("Solver and drive"), this);
  auto* df = new QFormLayout(driveBox);
  solver_ = new QComboBox(driveBox);
  solver_->setObjectName("simSolver");
  solver_->addItem(tr("Liu 2013 (cage, PD skeleton)"), int(SimulationController::Solver::Liu2013));
  solver_->addItem(tr("Li 2019 (conforming mesh, exact bones)"), int(SimulationController::Solver::Li2019));
  solver_->addItem(tr("VIPER rods (Angles 2019: muscles, octopi)"), int(SimulationController::Solver::Viper));
  solver_->setToolTip(tr("Li 2019 needs the conforming mesh (Rig panel: Build Conforming Mesh) and runs the "
                         "character passive; VIPER simulates the project's rod bodies (viperize a painted muscle "
                         "first: Rig panel, Muscles). Plasticity, damping and the PD drive apply to Liu 2013 only"));
  df->addRow(tr("Solver"), solver_);
  drive_ = new QComboBox(driveBox);
  drive_->setObjectName("simDrive");
  drive_->addItem(tr("Hold pose"), int(DriveMode::Hold));
  drive_->addItem(tr("Kinematic clip"), int(DriveMode::Kinematic));
  drive_->addItem(tr("PD-tracked clip"), int(DriveMode::Pd));
  clip_ = new QComboBox(driveBox);
  clip_->setObjectName("simClip");
  clip_->setObjectName("simClip");
  df->addRow(tr("Mode"), drive_);
  df->addRow(tr("Clip"), clip_);
  v->addWidget(driveBox);

  // VIPER: muscle activation (every rod body) and the pills' display.
  auto* viperBox = new QGroupBox(tr("Rods (VIPER)"), this);
  auto* vf = new QFormLayout(viperBox);
  auto* activationRow = new QHBoxLayout;
  activation_ = new QSlider(Qt::Horizontal, viperBox);
  activation_->setObjectName("simActivation");
  activation_->setRange(0, kActivationSteps);
  activation_->setValue(int(std::lround(sim_->activation() * kActivationSteps)));
  activation_->setToolTip(tr("Activation of every rod body, 0..1: contractile segments shorten by up to the "
                             "material's maximum contraction while the volume is kept, so a muscle bulges. "
                             "Applies at once while playing; a new simulation starts with it"));
  activationValue_ = new QLabel(viperBox);
  activationValue_->setObjectName("simActivationValue");
  activationValue_->setMinimumWidth(32);
  activationRow->addWidget(activation_, 1);
  activationRow->addWidget(activationValue_);
  vf->addRow(tr("Activation"), activationRow);
  pills_ = new QCheckBox(tr("Show pills (radius: blue thinner, white rest, red thicker)"), viperBox);
  pills_->setObjectName("viewPills");
  pills_->setChecked(sim_->viewport()->settings().pills);
  pills_->setToolTip(tr("Draw every rod segment as a tapered capsule coloured by its nodes' scale; the "
                        "rod bodies' skins turn see-through"));
  vf->addRow(pills_);
  v->addWidget(viperBox);

  // Toggles.
  auto* togBox = new QGroupBox(tr("Physics"), this);
  auto* tf = new QFormLayout(togBox);
  const SimToggles t = sim_->toggles();
  gravity_ = new QCheckBox(tr("Gravity"), togBox);
  gravity_->setObjectName("simGravity");
  gravity_->setChecked(t.gravity);
  contact_ = new QCheckBox(tr("Contact"), togBox);
  contact_->setObjectName("simContact");
  contact_->setChecked(t.contact);
  plasticity_ = new QCheckBox(tr("Plasticity"), togBox);
  plasticity_->setObjectName("simPlasticity");
  plasticity_->setChecked(t.plasticity);
  damping_ = new QComboBox(togBox);
  damping_->setObjectName("simDamping");
  damping_->addItem(tr("Pose-based"), int(DampingMode::Pose));
  damping_->addItem(tr("Rayleigh"), int(DampingMode::Rayleigh));
  damping_->addItem(tr("None"), int(DampingMode::None));
  damping_->setCurrentIndex(damping_->findData(int(t.damping)));
  auto* row = new QHBoxLayout;
  row->addWidget(gravity_);
  row->addWidget(contact_);
  row->addWidget(plasticity_);
  tf->addRow(row);
  tf->addRow(tr("Damping"), damping_);
  v->addWidget(togBox);

  // Materials per body region.
  materials_ = new MaterialEditor(doc_, this);
  materials_->setObjectName("simMaterials");
  v->addWidget(materials_);

  // Ground and colliders.
  scene_ = new SceneEditor(doc_, this);
  scene_->setObjectName("simScene");
  v->addWidget(scene_);
  connect(scene_, &SceneEditor::selectionChanged, sim_, &SimulationController::setHighlightedCollider);
  v->addStretch(1);

  connect(play_, &QPushButton::clicked, sim_, &SimulationController::togglePlay);
  connect(step_, &QPushButton::clicked, sim_, &SimulationController::step);
  connect(reset_, &QPushButton::clicked, sim_, &SimulationController::reset);
  connect(timeline_, &QSlider::valueChanged, this, [this](int f) {
    if (f != sim_->displayedFrame()) {
      if (sim_->active()) sim_->pause();
      sim_->showFrame(f);
    }
  });
  connect(loop_, &QCheckBox::toggled, sim_, &SimulationController::setLoop);
  connect(solver_, &QComboBox::currentIndexChanged, this, [this] {
    const auto kind = SimulationController::Solver(solver_->currentData().toInt());
    sim_->setSolver(kind);
    const bool liu = kind == SimulationController::Solver::Liu2013;
    for (QWidget* w : std::initializer_list<QWidget*>{plasticity_, damping_}) w->setEnabled(liu);
    // Li 2019 and VIPER drive bones kinematically only: no PD-tracked clip.
    const int pd = drive_->findData(int(DriveMode::Pd));
    if (auto* items = qobject_cast<QStandardItemModel*>(drive_->model())) items->item(pd)->setEnabled(liu);
    if (!liu && drive_->currentIndex() == pd) drive_->setCurrentIndex(drive_->findData(int(DriveMode::Kinematic)));
    drive_->setToolTip(liu ? QString()
                       : kind == SimulationController::Solver::Li2019
                           ? tr("Li 2019: the clip moves the bones kinematically; the flesh follows physically")
                           : tr("VIPER: the clip moves the bones kinematically; the muscles' ends ride on them"));
    activation_->setEnabled(kind == SimulationController::Solver::Viper);
  });
  connect(activation_, &QSlider::valueChanged, this, [this](int value) {
    sim_->setActivation(double(value) / kActivationSteps);
    activationValue_->setText(QString::number(sim_->activation(), 'f', 2));
  });
  activationValue_->setText(QString::number(sim_->activation(), 'f', 2));
  activation_->setEnabled(sim_->solver() == SimulationController::Solver::Viper);
  connect(pills_, &QCheckBox::toggled, this, [this](bool on) {
    render::ViewSettings settings = sim_->viewport()->settings();
    if (settings.pills == on) return;
    settings.pills = on;
    sim_->viewport()->setSettings(settings);
  });
  connect(sim_->viewport(), &ViewportWidget::settingsChanged, this, [this] {
    const QSignalBlocker block(pills_);
    pills_->setChecked(sim_->viewport()->settings().pills);
  });
  connect(drive_, &QComboBox::currentIndexChanged, this, &SimulatePanel::applyDrive);
  connect(clip_, &QComboBox::currentIndexChanged, this, &SimulatePanel::applyDrive);
  for (QCheckBox* c : {gravity_, contact_, plasticity_}) connect(c, &QCheckBox::toggled, this, &SimulatePanel::applyToggles);
  connect(damping_, &QComboBox::currentIndexChanged, this, &SimulatePanel::applyToggles);
  connect(sim_, &SimulationController::stateChanged, this, &SimulatePanel::updateState);
  connect(sim_, &SimulationController::framesChanged, this, &SimulatePanel::updateFrames);
  connect(doc_, &Document::structureChanged, this, &SimulatePanel::refreshClips);
  connect(doc_, &Document::objectChanged, this, &SimulatePanel::refreshClips);
  refreshClips();
  updateState();
  updateFrames();
}

void SimulatePanel::refreshClips() {
  const QVariant current = clip_->currentData();
  QSignalBlocker block(clip_);
  clip_->clear();
  for (const ClipObject& c : doc_->project().clips) clip_->addItem(QString::fromStdString(c.clip.name), qulonglong(c.id));
  if (const int i = clip_->findData(current); i >= 0) clip_->setCurrentIndex(i);
  clip_->setEnabled(clip_->count() > 0);
}

void SimulatePanel::applyDrive() {
  sim_->setDrive(DriveMode(drive_->currentData().toInt()), ObjectId(clip_->currentData().toULongLong()));
}

void SimulatePanel::applyToggles() {
  SimToggles t;
  t.gravity = gravity_->isChecked();
  t.contact = contact_->isChecked();
  t.plasticity = plasticity_->isChecked();
  t.damping = DampingMode(damping_->currentData().toInt());
  sim_->setToggles(t);
}

void SimulatePanel::updateState() {
  play_->setText(sim_->active() ? tr("Pause") : tr("Play"));
  materials_->setModelOutdated(sim_->modelOutdated());
}

void SimulatePanel::updateFrames() {
  const int n = sim_->frameCount();
  {
    QSignalBlocker block(timeline_);
    timeline_->setRange(0, std::max(0, n - 1));
    timeline_->setValue(std::max(0, sim_->displayedFrame()));
  }
  timeline_->setEnabled(n > 1);
  time_->setText(n ? tr("%1\u00a0s (frame %2 of %3, simulated %4\u00a0s)")
                         .arg(sim_->displayedTime(), 0, 'f', 3)
                         .arg(std::max(0, sim_->displayedFrame()))
                         .arg(n - 1)
                         .arg(sim_->simulatedTime(), 0, 'f', 3)
                   : tr("no simulation"));
  realtime_->setText(sim_->realtimeFactor() > 0 ? QString::number(sim_->realtimeFactor(), 'f', 2) + "x" : "-");
  msPerStep_->setText(sim_->msPerStep() > 0 ? QString::number(sim_->msPerStep(), 'f', 2) + " ms" : "-");
  updateState();
}

}  // namespace sinew::app
