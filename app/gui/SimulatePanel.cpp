#include "SimulatePanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>

namespace sinew::app {

namespace {

QDoubleSpinBox* spin(QWidget* parent, const char* name, double lo, double hi, double value, int decimals, double step,
                     const QString& suffix) {
  auto* s = new QDoubleSpinBox(parent);
  s->setObjectName(name);
  s->setRange(lo, hi);
  s->setDecimals(decimals);
  s->setSingleStep(step);
  s->setValue(value);
  s->setSuffix(suffix);
  return s;
}

}  // namespace

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
  realtime_ = new QLabel(this);
  realtime_->setObjectName("simRealtime");
  msPerStep_ = new QLabel(this);
  msPerStep_->setObjectName("simMsPerStep");
  stats->addRow(tr("Time"), time_);
  stats->addRow(tr("Real-time factor"), realtime_);
  stats->addRow(tr("Per step"), msPerStep_);
  v->addLayout(stats);

  // Drive.
  auto* driveBox = new QGroupBox(tr("Drive"), this);
  auto* df = new QFormLayout(driveBox);
  drive_ = new QComboBox(driveBox);
  drive_->setObjectName("simDrive");
  drive_->addItem(tr("Hold pose"), int(DriveMode::Hold));
  drive_->addItem(tr("Kinematic clip"), int(DriveMode::Kinematic));
  drive_->addItem(tr("PD-tracked clip"), int(DriveMode::Pd));
  clip_ = new QComboBox(driveBox);
  clip_->setObjectName("simClip");
  df->addRow(tr("Mode"), drive_);
  df->addRow(tr("Clip"), clip_);
  v->addWidget(driveBox);

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

  // Material.
  auto* matBox = new QGroupBox(tr("Material"), this);
  auto* mf = new QFormLayout(matBox);
  const liu2013::Material m = sim_->material();
  youngs_ = spin(matBox, "simYoungs", 1e2, 1e8, m.youngsModulus, 0, 1e4, tr(" Pa"));
  poisson_ = spin(matBox, "simPoisson", 0.0, 0.49, m.poissonRatio, 3, 0.01, QString());
  density_ = spin(matBox, "simDensity", 10, 1e5, m.density, 0, 50, tr(" kg/m³"));
  poseDamping_ = spin(matBox, "simPoseDamping", 0, 1e4, m.damping, 1, 5, tr(" 1/s"));
  mf->addRow(tr("Young's modulus"), youngs_);
  mf->addRow(tr("Poisson ratio"), poisson_);
  mf->addRow(tr("Density"), density_);
  mf->addRow(tr("Damping"), poseDamping_);
  materialNote_ = new QLabel(tr("Material changes rebuild the model on the next Reset or Play."), matBox);
  materialNote_->setObjectName("simMaterialNote");
  materialNote_->setWordWrap(true);
  mf->addRow(materialNote_);
  v->addWidget(matBox);
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
  connect(drive_, &QComboBox::currentIndexChanged, this, &SimulatePanel::applyDrive);
  connect(clip_, &QComboBox::currentIndexChanged, this, &SimulatePanel::applyDrive);
  for (QCheckBox* c : {gravity_, contact_, plasticity_}) connect(c, &QCheckBox::toggled, this, &SimulatePanel::applyToggles);
  connect(damping_, &QComboBox::currentIndexChanged, this, &SimulatePanel::applyToggles);
  for (QDoubleSpinBox* s : {youngs_, poisson_, density_, poseDamping_})
    connect(s, &QDoubleSpinBox::valueChanged, this, &SimulatePanel::applyMaterial);
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

void SimulatePanel::applyMaterial() {
  liu2013::Material m;
  m.youngsModulus = youngs_->value();
  m.poissonRatio = poisson_->value();
  m.density = density_->value();
  m.damping = poseDamping_->value();
  sim_->setMaterial(m);
}

void SimulatePanel::updateState() {
  play_->setText(sim_->active() ? tr("Pause") : tr("Play"));
  materialNote_->setText(sim_->modelOutdated()
                             ? tr("<b>Changed:</b> the model is rebuilt on the next Reset or Play.")
                             : tr("Material changes rebuild the model on the next Reset or Play."));
}

void SimulatePanel::updateFrames() {
  const int n = sim_->frameCount();
  {
    QSignalBlocker block(timeline_);
    timeline_->setRange(0, std::max(0, n - 1));
    timeline_->setValue(std::max(0, sim_->displayedFrame()));
  }
  timeline_->setEnabled(n > 1);
  time_->setText(n ? tr("%1 s (frame %2 of %3, simulated %4 s)")
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
