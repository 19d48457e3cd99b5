// The Simulate dock: run controls, timeline, statistics, solver, drive and clip (SimulatePanel.h).
#include "SimulatePanel.h"

#include <QCheckBox>
#include <QSettings>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QSlider>

#include "TimelineSlider.h"
#include <QTimer>

#include <QVBoxLayout>

#include <algorithm>
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
  timeline_ = new TimelineSlider(this);
  timeline_->setObjectName("simTimeline");
  timeline_->setRange(0, 0);
  loop_ = new QCheckBox(tr("Loop"), this);
  loop_->setObjectName("simLoop");
  loop_->setToolTip(tr("Play replays the cached frames in a loop instead of simulating further"));
  fast_ = new QCheckBox(tr("As fast as possible"), this);
  fast_->setObjectName("simAsFastAsPossible");
  fast_->setToolTip(tr("Simulate as fast as the solver goes instead of in real time"));
  fast_->setChecked(!QSettings().value("simulate/realTime", true).toBool());
  sim_->setRealTime(!fast_->isChecked());
  connect(fast_, &QCheckBox::toggled, this, [this](bool on) {
    sim_->setRealTime(!on);
    QSettings().setValue("simulate/realTime", !on);
  });
  tl->addWidget(timeline_, 1);
  tl->addWidget(loop_);
  v->addLayout(tl);
  v->addWidget(fast_);

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
  solver_->addItem(tr("Sheth 2015 (deformable bones)"), int(SimulationController::Solver::Sheth2015));
  solver_->setCurrentIndex(solver_->findData(int(sim_->solver())));
  solver_->setToolTip(tr("Li 2019 needs the conforming mesh (Rig panel: Build Conforming Mesh) and runs the "
                         "character passive; VIPER simulates the project's rod bodies (viperize a painted muscle "
                         "first: Rig panel, Muscles); Sheth 2015 cuts the cage (with skinning weights) into "
                         "reduced deformable bodies, one per bone (a clip drives its pelvis). Plasticity, "
                         "damping and the PD drive apply to Liu 2013 only"));
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

  // The chosen solver's parameters, generated from the registry's table.
  paramsBox_ = new QGroupBox(tr("Solver parameters"), this);
  paramsBox_->setObjectName("simParamsBox");
  paramsForm_ = new QFormLayout(paramsBox_);
  v->addWidget(paramsBox_);
  rebuildParams();

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
  pills_ = new QCheckBox(tr("Show pills"), viperBox);
  pills_->setObjectName("viewPills");
  pills_->setChecked(sim_->viewport()->settings().pills);
  pills_->setToolTip(tr("Draw every rod segment as a tapered capsule coloured by its nodes' scale; the "
                        "rod bodies' skins turn see-through"));
  vf->addRow(pills_);
  auto* legend = new QLabel(tr("A pill's colour is its radius: blue thinner, white at rest, red thicker."), viperBox);
  legend->setWordWrap(true);  // never what sets the dock's width
  vf->addRow(legend);
  v->addWidget(viperBox);

  // Sheth 2015: modes per body, the build's progress and the mode viewer.
  shethBox_ = new QGroupBox(tr("Deformable bones (Sheth 2015)"), this);
  shethBox_->setObjectName("simShethBox");
  auto* sf = new QFormLayout(shethBox_);
  buildProgress_ = new QProgressBar(shethBox_);
  buildProgress_->setObjectName("simBuildProgress");
  buildProgress_->setRange(0, 100);
  buildProgress_->setFormat(tr("Building the bodies: %p%"));
  buildProgress_->setVisible(false);
  sf->addRow(buildProgress_);
  modeBody_ = new QComboBox(shethBox_);
  modeBody_->setObjectName("simModeBody");
  modeBody_->setToolTip(tr("The reduced body (one per bone) whose modes the viewer shows; Play or Step builds them"));
  sf->addRow(tr("Body"), modeBody_);
  auto* modeRow = new QHBoxLayout;
  mode_ = new QSpinBox(shethBox_);
  mode_->setObjectName("simMode");
  mode_->setRange(0, 0);
  modeFrequency_ = new QLabel(shethBox_);
  modeFrequency_->setObjectName("simModeFrequency");
  modeRow->addWidget(mode_);
  modeRow->addWidget(modeFrequency_, 1);
  sf->addRow(tr("Mode"), modeRow);
  modeAmplitude_ = new QSlider(Qt::Horizontal, shethBox_);
  modeAmplitude_->setObjectName("simModeAmplitude");
  modeAmplitude_->setRange(0, kAmplitudeSteps);
  modeAmplitude_->setValue(kAmplitudeSteps / 4);
  modeAmplitude_->setToolTip(tr("How far the mode moves the surface's most displaced point: 0 to %1 cm")
                                 .arg(kMaxModeAmplitude * 100, 0, 'f', 0));
  sf->addRow(tr("Amplitude"), modeAmplitude_);
  modeAnimate_ = new QCheckBox(tr("Animate mode"), shethBox_);
  modeAnimate_->setObjectName("simModeAnimate");
  modeAnimate_->setToolTip(tr("While paused, the viewport shows the body swinging in this mode alone (at %1 Hz, "
                              "not the mode's own frequency); unchecked, the simulated frame again")
                               .arg(kModeAnimationHz));
  sf->addRow(modeAnimate_);
  v->insertWidget(v->indexOf(viperBox), shethBox_);  // under the solver it belongs to
  modeTimer_ = new QTimer(this);
  modeTimer_->setInterval(30);
  connect(modeTimer_, &QTimer::timeout, this, &SimulatePanel::modeTick);

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
    const bool sheth = kind == SimulationController::Solver::Sheth2015;
    if (sheth)
      drive_->setToolTip(tr("Sheth 2015: a clip moves the pelvis kinematically; the other deformable bones hang from it"));
    drive_->setEnabled(true);
    clip_->setEnabled(clip_->count() > 0);
    shethBox_->setVisible(sheth);
    rebuildParams();
    refreshModes();
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
  shethBox_->setVisible(sim_->solver() == SimulationController::Solver::Sheth2015);
  connect(sim_, &SimulationController::buildProgress, this, [this](double f) {
    buildProgress_->setValue(int(std::lround(100 * std::clamp(f, 0.0, 1.0))));
    buildProgress_->setVisible(sim_->building());
  });
  connect(modeBody_, &QComboBox::currentIndexChanged, this, [this] {
    const int body = modeBody_->currentIndex();
    const int modes = body >= 0 && size_t(body) < modal_.size() ? int(modal_[size_t(body)].frequencies.size()) : 0;
    mode_->setRange(0, std::max(0, modes - 1));
    updateModeLabel();
    modeTick();
  });
  connect(mode_, &QSpinBox::valueChanged, this, [this] {
    updateModeLabel();
    modeTick();
  });
  connect(modeAmplitude_, &QSlider::valueChanged, this, &SimulatePanel::modeTick);
  connect(modeAnimate_, &QCheckBox::toggled, this, [this](bool on) {
    if (on) {
      modeClock_.start();
      modeTimer_->start();
      modeTick();
    } else {
      modeTimer_->stop();
      sim_->hideMode();
    }
  });
  connect(drive_, &QComboBox::currentIndexChanged, this, &SimulatePanel::applyDrive);
  connect(clip_, &QComboBox::currentIndexChanged, this, &SimulatePanel::applyDrive);
  for (QCheckBox* c : {gravity_, contact_, plasticity_}) connect(c, &QCheckBox::toggled, this, &SimulatePanel::applyToggles);
  connect(damping_, &QComboBox::currentIndexChanged, this, &SimulatePanel::applyToggles);
  connect(sim_, &SimulationController::stateChanged, this, &SimulatePanel::updateState);
  connect(sim_, &SimulationController::framesChanged, this, &SimulatePanel::updateFrames);
  connect(doc_, &Document::structureChanged, this, &SimulatePanel::refreshClips);
  connect(doc_, &Document::objectChanged, this, &SimulatePanel::refreshClips);
  connect(doc_, &Document::settingsChanged, this, &SimulatePanel::refreshParamValues);  // undo, redo
  connect(doc_, &Document::projectReplaced, this, &SimulatePanel::refreshParamValues);
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

namespace {
// Editors show a parameter in seconds as milliseconds.
double displayScale(const ParamSpec& spec) { return spec.unit == "s" ? 1000.0 : 1.0; }
}  // namespace

void SimulatePanel::rebuildParams() {
  while (paramsForm_->rowCount() > 0) paramsForm_->removeRow(0);
  const SolverKind kind = sim_->solver();
  const SolverParams& current = sim_->solverParams(kind);
  for (const ParamSpec& spec : solverParams(kind)) {
    const double value = paramValue(kind, current, spec.name);
    const QString tip = QString::fromStdString(spec.help) +
                        tr(" (default %1%2, %3 to %4)")
                            .arg(spec.defaultValue)
                            .arg(spec.unit.empty() ? QString() : " " + QString::fromStdString(spec.unit))
                            .arg(spec.min)
                            .arg(spec.max);
    QWidget* editor = nullptr;
    const std::string name = spec.name;
    if (spec.integer && spec.min == 0 && spec.max == 1) {  // a switch
      auto* box = new QCheckBox(paramsBox_);
      box->setChecked(value != 0);
      connect(box, &QCheckBox::toggled, this, [this, kind, name](bool on) { sim_->setSolverParam(kind, name, on ? 1 : 0); });
      editor = box;
    } else if (spec.integer) {
      auto* box = new QSpinBox(paramsBox_);
      box->setRange(int(spec.min), int(spec.max));
      box->setValue(int(value));
      if (spec.name == "threads") box->setSpecialValueText(tr("all cores"));
      connect(box, &QSpinBox::valueChanged, this, [this, kind, name](int v) { sim_->setSolverParam(kind, name, v); });
      editor = box;
    } else {
      // Times read in milliseconds; the table and the project keep seconds.
      const double scale = displayScale(spec);
      auto* box = new QDoubleSpinBox(paramsBox_);
      box->setDecimals(scale == 1 ? 6 : 4);
      box->setRange(spec.min * scale, spec.max * scale);
      box->setSingleStep(spec.defaultValue * scale / 10);
      box->setValue(value * scale);
      if (!spec.unit.empty()) box->setSuffix(scale == 1 ? " " + QString::fromStdString(spec.unit) : tr(" ms"));
      connect(box, &QDoubleSpinBox::valueChanged, this,
              [this, kind, name, scale](double v) { sim_->setSolverParam(kind, name, v / scale); });
      editor = box;
    }
    editor->setObjectName("simParam_" + QString::fromStdString(spec.name));
    editor->setToolTip(tip);
    paramsForm_->addRow(QString::fromStdString(spec.help).section(" (", 0, 0), editor);
  }
  paramsBox_->setVisible(paramsForm_->rowCount() > 0);
}

// The editors show the project's values (after an undo, or another project).
void SimulatePanel::refreshParamValues() {
  const SolverKind kind = sim_->solver();
  const SolverParams& current = sim_->solverParams(kind);
  for (const ParamSpec& spec : solverParams(kind)) {
    const double value = paramValue(kind, current, spec.name);
    auto* editor = paramsBox_->findChild<QWidget*>("simParam_" + QString::fromStdString(spec.name));
    if (auto* c = qobject_cast<QCheckBox*>(editor); c && c->isChecked() != (value != 0)) {
      const QSignalBlocker block(c);
      c->setChecked(value != 0);
    } else if (auto* i = qobject_cast<QSpinBox*>(editor); i && i->value() != int(value)) {
      const QSignalBlocker block(i);
      i->setValue(int(value));
    } else if (auto* d = qobject_cast<QDoubleSpinBox*>(editor); d && d->value() != value * displayScale(spec)) {
      const QSignalBlocker block(d);
      d->setValue(value * displayScale(spec));
    }
  }
}

void SimulatePanel::refreshModes() {
  std::vector<SimulationController::ModalBody> modal =
      sim_->solver() == SimulationController::Solver::Sheth2015 ? sim_->modalBodies()
                                                                : std::vector<SimulationController::ModalBody>{};
  auto same = [](const SimulationController::ModalBody& a, const SimulationController::ModalBody& b) {
    return a.name == b.name && a.frequencies == b.frequencies;
  };
  const bool changed = modal.size() != modal_.size() || !std::equal(modal.begin(), modal.end(), modal_.begin(), same);
  if (changed) {
    modal_ = std::move(modal);
    const QString current = modeBody_->currentText();
    {
      const QSignalBlocker block(modeBody_);
      modeBody_->clear();
      for (const auto& b : modal_)
        modeBody_->addItem(tr("%1 (%2 modes)").arg(b.name).arg(b.frequencies.size()), b.name);
      const int i = modeBody_->findText(current);
      modeBody_->setCurrentIndex(i >= 0 ? i : (modal_.empty() ? -1 : 0));
    }
    const int body = modeBody_->currentIndex();
    const int modes = body >= 0 ? int(modal_[size_t(body)].frequencies.size()) : 0;
    mode_->setRange(0, std::max(0, modes - 1));
  }
  const bool have = !modal_.empty();
  for (QWidget* w : std::initializer_list<QWidget*>{modeBody_, mode_, modeAmplitude_, modeAnimate_}) w->setEnabled(have);
  if (!have && modeAnimate_->isChecked()) modeAnimate_->setChecked(false);
  updateModeLabel();
}

void SimulatePanel::updateModeLabel() {
  const int body = modeBody_->currentIndex();
  if (body < 0 || size_t(body) >= modal_.size()) {
    modeFrequency_->setText(sim_->building() ? tr("building...") : tr("Play or Step builds the bodies"));
    return;
  }
  const std::vector<double>& f = modal_[size_t(body)].frequencies;
  const int m = mode_->value();
  modeFrequency_->setText(m >= 0 && size_t(m) < f.size() ? tr("%1\u00a0Hz").arg(f[size_t(m)], 0, 'f', 2) : QString());
}

void SimulatePanel::modeTick() {
  if (!modeAnimate_->isChecked()) return;
  if (sim_->active() || modal_.empty()) return;  // the simulation's frames are shown while it runs
  const double t = modeClock_.isValid() ? modeClock_.elapsed() / 1000.0 : 0.0;
  const double amplitude = kMaxModeAmplitude * modeAmplitude_->value() / kAmplitudeSteps;
  sim_->showMode(modeBody_->currentIndex(), mode_->value(), amplitude * std::sin(2 * M_PI * kModeAnimationHz * t));
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
  buildProgress_->setVisible(sim_->building());
  if (!sim_->building()) buildProgress_->setValue(0);
  refreshModes();
  materials_->setModelOutdated(sim_->modelOutdated());
}

QSlider* SimulatePanel::timeline() const { return timeline_; }

void SimulatePanel::updateFrames() {
  const int n = sim_->frameCount();
  {
    QSignalBlocker block(timeline_);
    timeline_->setRange(0, std::max(0, n - 1));
    timeline_->setValue(std::max(0, sim_->displayedFrame()));
  }
  timeline_->setEnabled(n > 1);
  QString text = n ? tr("%1\u00a0s (frame %2 of %3, simulated %4\u00a0s)")
                         .arg(sim_->displayedTime(), 0, 'f', 3)
                         .arg(std::max(0, sim_->displayedFrame()))
                         .arg(n - 1)
                         .arg(sim_->simulatedTime(), 0, 'f', 3)
                   : tr("no simulation");
  // A played controller: its time, and where it ends (marked on the timeline).
  const std::optional<ControllerObject>& c = sim_->controller();
  if (c && n > 0) {
    const double end = c->duration(), t = sim_->displayedTime();
    text += t < end ? tr("\ncontroller '%1': %2 of %3\u00a0s").arg(QString::fromStdString(c->name)).arg(t, 0, 'f', 2).arg(end, 0, 'f', 2)
                    : tr("\ncontroller '%1' ended at %2\u00a0s: it holds the last pose, balancing").arg(QString::fromStdString(c->name)).arg(end, 0, 'f', 2);
  }
  time_->setText(text);
  std::vector<TimelineSlider::Mark> marks;
  if (c && sim_->frameTime() > 0) {
    const ControllerShove& shove = c->shove;
    if (!shove.empty())
      marks.push_back({int(std::lround(shove.time / sim_->frameTime())), QColor(240, 170, 30),
                       tr("The controller's shove (%1, %2, %3 m/s, which it was re-planned against) comes here (%4 s)")
                           .arg(shove.velocity.x(), 0, 'g', 3).arg(shove.velocity.y(), 0, 'g', 3)
                           .arg(shove.velocity.z(), 0, 'g', 3).arg(shove.time, 0, 'f', 3)});
    marks.push_back({int(std::lround(c->duration() / sim_->frameTime())), QColor(220, 60, 40),
                     tr("The controller ends here (%1 s); after it, the character holds the reference's last pose, balancing")
                         .arg(c->duration(), 0, 'f', 2)});
  }
  timeline_->setMarks(std::move(marks));
  realtime_->setText(sim_->realtimeFactor() > 0 ? QString::number(sim_->realtimeFactor(), 'f', 2) + "x" : "-");
  msPerStep_->setText(sim_->msPerStep() > 0 ? QString::number(sim_->msPerStep(), 'f', 2) + " ms" : "-");
  updateState();
}

}  // namespace sinew::app
