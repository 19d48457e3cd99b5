// The Control dock: clip, segment, joint map and search settings; start, pause and stop
// a controller search and play its result (ControllerPanel.h).
#include "ControllerPanel.h"

#include "Commands.h"
#include "control/Feedback.h"
#include "control/Optimize.h"
#include "control/SearchParams.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace sinew::app {

namespace {

QDoubleSpinBox* doubleBox(QWidget* parent, const char* name, double lo, double hi, double value, int decimals,
                          double step, const QString& suffix = {}) {
  auto* b = new QDoubleSpinBox(parent);
  b->setObjectName(name);
  b->setRange(lo, hi);
  b->setDecimals(decimals);
  b->setSingleStep(step);
  b->setValue(value);
  if (!suffix.isEmpty()) b->setSuffix(suffix);
  return b;
}

QSpinBox* intBox(QWidget* parent, const char* name, int lo, int hi, int value) {
  auto* b = new QSpinBox(parent);
  b->setObjectName(name);
  b->setRange(lo, hi);
  b->setValue(value);
  return b;
}

// An editor of the search's table (control/SearchParams.h): its range,
// default, unit and help from there; named "ctl" + the name in camel case
// ("pd-frequency": ctlPdFrequency).
QAbstractSpinBox* searchBox(QWidget* parent, const std::string& name) {
  const ParamSpec* spec = nullptr;
  for (const ParamSpec& p : control::searchParams())
    if (p.name == name) spec = &p;
  QString object = "ctl";
  bool upper = true;
  for (char c : name) {
    if (c == '-') upper = true;
    else object += upper ? QChar(c).toUpper() : QChar(c), upper = false;
  }
  const QString tip = QString::fromStdString(spec->help) +
                      QObject::tr(" (default %1%2, %3 to %4)")
                          .arg(spec->defaultValue)
                          .arg(spec->unit.empty() ? QString() : " " + QString::fromStdString(spec->unit))
                          .arg(spec->min)
                          .arg(spec->max);
  QAbstractSpinBox* box = nullptr;
  if (spec->integer) {
    box = intBox(parent, object.toLatin1().constData(), int(spec->min), int(spec->max), int(spec->defaultValue));
  } else {
    const bool fine = spec->max < 0.01;  // a time step: tenths of a millisecond
    box = doubleBox(parent, object.toLatin1().constData(), spec->min, spec->max, spec->defaultValue, fine ? 4 : 3,
                    spec->defaultValue > 0 ? spec->defaultValue / 10 : fine ? 0.0001 : spec->max >= 5 ? 0.1 : 0.01,
                    spec->unit.empty() ? QString() : " " + QString::fromStdString(spec->unit));
  }
  box->setToolTip(tip);
  return box;
}

QString seconds(double s) {
  if (!std::isfinite(s)) return "?";
  if (s < 90) return QString::number(std::lround(s)) + " s";
  if (s < 5400) return QString::number(std::lround(s / 60)) + " min";
  return QString::number(s / 3600, 'f', 1) + " h";
}

}  // namespace

ControllerPanel::ControllerPanel(Document* doc, SimulationController* sim, Log* log, QWidget* parent)
    : QWidget(parent), doc_(doc), sim_(sim), log_(log), session_(new OptimizerSession(this)), fitter_(new TaskRunner(this)) {
  auto* v = new QVBoxLayout(this);

  // The motion.
  auto* motion = new QGroupBox(tr("Motion"), this);
  auto* mf = new QFormLayout(motion);
  clip_ = new QComboBox(motion);
  clip_->setObjectName("ctlClip");
  clip_->setToolTip(tr("A motion clip of the project (File > Import a .bvh)"));
  start_ = doubleBox(motion, "ctlSegmentStart", 0, 1e5, 0, 3, 0.1, " s");
  end_ = doubleBox(motion, "ctlSegmentEnd", 0, 1e5, 1, 3, 0.1, " s");
  auto* seg = new QHBoxLayout;
  seg->addWidget(start_);
  seg->addWidget(new QLabel(tr("to"), motion));
  seg->addWidget(end_);
  mf->addRow(tr("Clip"), clip_);
  mf->addRow(tr("Segment"), seg);
  jointMap_ = new QTableWidget(0, 2, motion);
  jointMap_->setObjectName("ctlJointMap");
  jointMap_->setHorizontalHeaderLabels({tr("Character joint"), tr("Clip joint")});
  jointMap_->horizontalHeader()->setStretchLastSection(true);
  jointMap_->verticalHeader()->setVisible(false);
  jointMap_->setMinimumHeight(150);
  jointMap_->setToolTip(tr("Which joint of the clip each joint of the character follows (automatic for CMU, Mixamo, "
                           "biped and MotionBuilder names)"));
  auto* autoMap = new QPushButton(tr("Map Automatically"), motion);
  autoMap->setObjectName("ctlAutoMap");
  mf->addRow(jointMap_);
  showRetarget_ = new QPushButton(tr("Show on Character"), motion);
  showRetarget_->setObjectName("ctlShowRetarget");
  showRetarget_->setToolTip(tr("Play the segment retargeted to the character, kinematically (the flesh simulated)"));
  auto* mapRow = new QHBoxLayout;
  mapRow->addWidget(autoMap);
  mapRow->addWidget(showRetarget_);
  mf->addRow(mapRow);
  v->addWidget(motion);

  // The search.
  auto* search = new QGroupBox(tr("Search"), this);
  auto* sf = new QFormLayout(search);
  sf->setRowWrapPolicy(QFormLayout::WrapLongRows);  // a narrow dock puts labels above their fields
  // The search's tunables come from its table, as the CLI's flags do.
  samples_ = static_cast<QSpinBox*>(searchBox(search, "samples"));
  keep_ = static_cast<QSpinBox*>(searchBox(search, "keep"));
  rounds_ = static_cast<QSpinBox*>(searchBox(search, "rounds"));
  seed_ = intBox(search, "ctlSeed", 0, 1 << 30, 1);
  threads_ = intBox(search, "ctlThreads", 1, 256, std::max(1, QThread::idealThreadCount()));
  window_ = static_cast<QDoubleSpinBox*>(searchBox(search, "window"));
  noise_ = static_cast<QDoubleSpinBox*>(searchBox(search, "noise"));
  pdFrequency_ = static_cast<QDoubleSpinBox*>(searchBox(search, "pd-frequency"));
  stanceAngle_ = static_cast<QDoubleSpinBox*>(searchBox(search, "stance-angle"));
  step_ = static_cast<QDoubleSpinBox*>(searchBox(search, "step"));
  step_->setSpecialValueText(tr("project's"));
  settle_ = static_cast<QDoubleSpinBox*>(searchBox(search, "settle"));
  settle_->setSpecialValueText(tr("none"));
  backtracks_ = static_cast<QSpinBox*>(searchBox(search, "backtracks"));
  backtracks_->setSpecialValueText(tr("never"));
  backtrackAbove_ = static_cast<QDoubleSpinBox*>(searchBox(search, "backtrack-above"));
  backtrackAbove_->setSpecialValueText(tr("falls only"));
  backtrackWindows_ = static_cast<QSpinBox*>(searchBox(search, "backtrack-windows"));
  backtrackSamples_ = static_cast<QDoubleSpinBox*>(searchBox(search, "backtrack-samples"));
  scoreShove_ = static_cast<QDoubleSpinBox*>(searchBox(search, "score-shove"));
  scoreShove_->setSpecialValueText(tr("off"));
  tangentWeight_ = static_cast<QDoubleSpinBox*>(searchBox(search, "tangent-weight"));
  tangentWeight_->setSpecialValueText(tr("off"));
  timeScaleRange_ = static_cast<QDoubleSpinBox*>(searchBox(search, "time-scale-range"));
  timeScaleRange_->setPrefix(QStringLiteral("\u00b1 "));
  timeScaleWeight_ = static_cast<QDoubleSpinBox*>(searchBox(search, "time-scale-weight"));
  timeScaling_ = new QCheckBox(tr("Time scaling"), search);
  timeScaling_->setObjectName("ctlTimeScaling");
  timeScaling_->setChecked(true);
  timeScaling_->setToolTip(tr("Sample each window's duration too (Liu et al. 2013, Section 5.2)"));
  idInit_ = new QCheckBox(tr("Inverse dynamics"), search);
  idInit_->setObjectName("ctlIdInit");
  idInit_->setChecked(true);
  idInit_->setToolTip(tr("Start each window from inverse-dynamics targets (Section 5.1) instead of the reference pose"));
  balance_ = new QCheckBox(tr("Balance feedback"), search);
  balance_->setObjectName("ctlBalance");
  balance_->setChecked(true);
  balance_->setToolTip(tr("Correct the hips and ankles from the body's tilt and centre of mass while sampling, and save "
                          "that feedback with the controller (off: pure open-loop control, which this character "
                          "cannot stand with)"));
  const control::BalanceGains gains = control::defaultBalanceGains();
  swingBalance_ = doubleBox(search, "ctlSwingBalance", -5, 5, gains.swingHipBalance, 2, 0.1);
  swingVelocity_ = doubleBox(search, "ctlSwingVelocity", -5, 5, gains.swingHipVelocity, 2, 0.1);
  for (QDoubleSpinBox* b : {swingBalance_, swingVelocity_})
    b->setToolTip(tr("Foot placement (with balance feedback): the gain of a swinging leg's hip on the centre of mass's "
                     "%1 (off the reference's, rad per rad); negative swings the foot toward where the body goes, as "
                     "SIMBICON does. 0: a swinging leg is not corrected")
                      .arg(b == swingBalance_ ? tr("offset over the feet") : tr("velocity")));
  name_ = new QLineEdit(search);
  name_->setObjectName("ctlName");
  name_->setPlaceholderText(tr("clip and segment"));
  sf->addRow(tr("Samples / window"), samples_);
  sf->addRow(tr("Kept states"), keep_);
  sf->addRow(tr("Refinement rounds"), rounds_);
  sf->addRow(tr("Seed"), seed_);
  sf->addRow(tr("Threads"), threads_);
  sf->addRow(tr("Window"), window_);
  sf->addRow(tr("Noise"), noise_);
  sf->addRow(tr("PD frequency"), pdFrequency_);
  sf->addRow(tr("Stance angle"), stanceAngle_);
  sf->addRow(tr("Time step"), step_);
  sf->addRow(tr("Standing tail"), settle_);
  auto* back = new QHBoxLayout;
  back->addWidget(backtracks_);
  back->addWidget(new QLabel(tr("times, above cost"), search));
  back->addWidget(backtrackAbove_);
  sf->addRow(tr("Go back"), back);
  auto* backOver = new QHBoxLayout;
  backOver->addWidget(backtrackWindows_);
  backOver->addWidget(new QLabel(tr("windows, samples x"), search));
  backOver->addWidget(backtrackSamples_);
  sf->addRow(tr("Go back over"), backOver);
  sf->addRow(tr("Score shoved"), scoreShove_);
  sf->addRow(tr("Score twin growth"), tangentWeight_);
  auto* timing = new QHBoxLayout;
  timing->addWidget(timeScaleRange_);
  timing->addWidget(new QLabel(tr("weight"), search));
  timing->addWidget(timeScaleWeight_);
  sf->addRow(tr("Time scale"), timing);
  connect(timeScaling_, &QCheckBox::toggled, this, [this](bool on) {
    timeScaleRange_->setEnabled(on);
    timeScaleWeight_->setEnabled(on);
  });
  auto* checks = new QGridLayout;  // two to a row: the dock stays narrow
  checks->addWidget(timeScaling_, 0, 0);
  checks->addWidget(idInit_, 0, 1);
  checks->addWidget(balance_, 1, 0);
  sf->addRow(checks);
  auto* swing = new QHBoxLayout;
  swing->addWidget(swingBalance_);
  swing->addWidget(new QLabel(tr("velocity"), search));
  swing->addWidget(swingVelocity_);
  sf->addRow(tr("Foot placement"), swing);
  sf->addRow(tr("Name"), name_);
  auto* buttons = new QHBoxLayout;
  run_ = new QPushButton(tr("Start"), search);
  run_->setObjectName("ctlRun");
  pause_ = new QPushButton(tr("Pause"), search);
  pause_->setObjectName("ctlPause");
  stop_ = new QPushButton(tr("Stop"), search);
  stop_->setObjectName("ctlStop");
  stop_->setToolTip(tr("Stop now and keep the windows done as a controller"));
  buttons->addWidget(run_);
  buttons->addWidget(pause_);
  buttons->addWidget(stop_);
  sf->addRow(buttons);
  progress_ = new QProgressBar(search);
  progress_->setObjectName("ctlProgress");
  progress_->setFormat(tr("%v of %m windows"));
  progress_->setRange(0, 1);
  progress_->setValue(0);
  status_ = new QLabel(tr("Not started"), search);
  status_->setObjectName("ctlStatus");
  status_->setWordWrap(true);
  sf->addRow(progress_);
  sf->addRow(status_);
  auto* chart = new QChart;
  chart->legend()->hide();
  chart->setTitle(tr("Cost per window"));
  chart->setMargins(QMargins(2, 2, 2, 2));
  costSeries_ = new QLineSeries(chart);
  costSeries_->setObjectName("ctlCostSeries");
  costSeries_->setPointsVisible(true);
  chart->addSeries(costSeries_);
  axisX_ = new QValueAxis(chart);
  axisX_->setTitleText(tr("window"));
  axisX_->setLabelFormat("%d");
  axisX_->setTickType(QValueAxis::TicksDynamic);
  axisX_->setTickAnchor(1);
  axisX_->setTickInterval(1);
  axisY_ = new QValueAxis(chart);
  axisY_->setTitleText(tr("cost"));
  chart->addAxis(axisX_, Qt::AlignBottom);
  chart->addAxis(axisY_, Qt::AlignLeft);
  costSeries_->attachAxis(axisX_);
  costSeries_->attachAxis(axisY_);
  chartView_ = new QChartView(chart, search);
  chartView_->setObjectName("ctlCostChart");
  chartView_->setRenderHint(QPainter::Antialiasing);
  chartView_->setMinimumHeight(180);
  sf->addRow(chartView_);
  preview_ = new QPushButton(tr("Preview Best So Far"), search);
  preview_->setObjectName("ctlPreview");
  preview_->setToolTip(tr("Play the best controller found so far in the viewport (the search goes on)"));
  sf->addRow(preview_);
  v->addWidget(search);

  // The project's controllers.
  auto* saved = new QGroupBox(tr("Controllers"), this);
  auto* cv = new QVBoxLayout(saved);
  controllers_ = new QListWidget(saved);
  controllers_->setObjectName("ctlControllers");
  controllers_->setMaximumHeight(110);
  feedback_ = new QCheckBox(tr("Feedback"), saved);
  feedback_->setObjectName("ctlFeedback");
  feedback_->setToolTip(tr("Play with the controller's feedback policy (when it has one)"));
  shove_ = new QCheckBox(tr("Shove"), saved);
  shove_->setObjectName("ctlShove");
  shove_->setToolTip(tr("Play with the shove the controller was re-planned against (when it has one)"));
  play_ = new QPushButton(tr("Play"), saved);
  play_->setObjectName("ctlPlay");
  play_->setToolTip(tr("Play the controller in the viewport, its reference beside it as a ghost; Ctrl+drag pushes"));
  delete_ = new QPushButton(tr("Delete"), saved);
  delete_->setObjectName("ctlDelete");
  auto* row = new QHBoxLayout;
  row->addWidget(play_);
  row->addWidget(feedback_);
  row->addWidget(shove_);
  row->addWidget(delete_);
  fit_ = new QPushButton(tr("Fit Feedback"), saved);
  fit_->setObjectName("ctlFitFeedback");
  fit_->setToolTip(tr("Fit the selected controller's feedback by least squares on pushed rollouts (Liu et al. 2012): "
                      "kept only if held-out pushes score lower"));
  fitRollouts_ = intBox(saved, "ctlFitRollouts", 0, 1000, 8);
  fitRollouts_->setToolTip(tr("Pushed rollouts that record corrections (and one unpushed); half as many held out"));
  fitCorrections_ = intBox(saved, "ctlFitCorrections", 1, 1000, 8);
  fitCorrections_->setToolTip(tr("Corrections tried per window of a rollout"));
  auto* fitRow = new QHBoxLayout;
  fitRow->addWidget(fit_);
  fitRow->addWidget(new QLabel(tr("rollouts"), saved));
  fitRow->addWidget(fitRollouts_);
  fitRow->addWidget(new QLabel(tr("tries"), saved));
  fitRow->addWidget(fitCorrections_);
  searchOn_ = new QPushButton(tr("Search On From"), saved);
  searchOn_->setObjectName("ctlSearchOn");
  searchOn_->setToolTip(tr("Search the selected controller again from this time of its clip: the windows that end by "
                           "then are kept, the rest searched anew with the Search box's samples, kept states, rounds, "
                           "seed and noise (a stopped search goes on where it stopped)"));
  searchFrom_ = doubleBox(saved, "ctlSearchFrom", 0, 1e5, 0, 2, 0.1, " s");
  searchFrom_->setToolTip(tr("Time of the clip to search on from (starts at where the selected controller's windows end)"));
  auto* searchOnRow = new QHBoxLayout;
  searchOnRow->addWidget(searchOn_);
  searchOnRow->addWidget(searchFrom_);
  cv->addWidget(controllers_);
  cv->addLayout(row);
  cv->addLayout(fitRow);
  cv->addLayout(searchOnRow);
  v->addWidget(saved);
  replanBox_ = new ReplanBox(doc_, log_, [this] { return selectedController(); }, this);
  v->addWidget(replanBox_);
  v->addStretch(1);

  connect(clip_, &QComboBox::currentIndexChanged, this, [this] {
    fillJointMap();
    if (const ClipObject* c = doc_->project().findClip(ObjectId(clip_->currentData().toULongLong()))) {
      const QSignalBlocker b(end_);
      end_->setValue(std::min(2.0, c->clip.duration()));
    }
  });
  connect(autoMap, &QPushButton::clicked, this, &ControllerPanel::fillJointMap);
  connect(showRetarget_, &QPushButton::clicked, this, &ControllerPanel::showRetargeted);
  connect(run_, &QPushButton::clicked, this, &ControllerPanel::startSearch);
  connect(pause_, &QPushButton::clicked, this, [this] {
    if (session_->paused()) session_->resume();
    else session_->pause();
    updateButtons();
  });
  connect(stop_, &QPushButton::clicked, this, [this] {
    session_->stop();
    status_->setText(tr("Stopping..."));
  });
  connect(preview_, &QPushButton::clicked, this, [this] {
    if (auto best = session_->best()) {
      sim_->setController(std::move(best), false);
      sim_->play();
    }
  });
  connect(play_, &QPushButton::clicked, this, &ControllerPanel::playSelected);
  connect(controllers_, &QListWidget::currentRowChanged, replanBox_, &ReplanBox::updateButtons);
  connect(replanBox_, &ReplanBox::playShoved, this, [this](const ControllerShove& shove) {
    if (const ControllerObject* c = selectedController()) {
      ControllerObject played = *c;
      played.shove = shove;
      sim_->setController(std::move(played), feedback_->isChecked());
      sim_->play();
    }
  });
  connect(replanBox_, &ReplanBox::added, this, [this](const QString& name) {
    const QList<QListWidgetItem*> items = controllers_->findItems(name, Qt::MatchExactly);
    if (!items.isEmpty()) controllers_->setCurrentItem(items.front());
  });
  connect(delete_, &QPushButton::clicked, this, &ControllerPanel::deleteSelected);
  connect(fit_, &QPushButton::clicked, this, &ControllerPanel::fitSelectedFeedback);
  connect(searchOn_, &QPushButton::clicked, this, &ControllerPanel::searchOnSelected);
  connect(controllers_, &QListWidget::currentRowChanged, this, [this] {
    // Where the selected controller's windows end: a stopped search goes on from there.
    if (const ControllerObject* c = selectedController()) {
      double reached = c->start;
      for (const ControlWindow& w : c->windows) reached = c->start + w.referenceStart + w.referenceDuration;
      searchFrom_->setRange(c->start, std::max(c->start, reached));
      searchFrom_->setValue(reached);
    }
  });
  connect(&doc_->selection(), &Selection::changed, this, &ControllerPanel::followSelection);
  connect(controllers_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
    doc_->selection().selectObject(ObjectId(item->data(Qt::UserRole).toULongLong()));
  });
  // The keyboard moving through the list (not the list refilled or following the selection).
  connect(controllers_, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
    if (item && controllers_->hasFocus()) doc_->selection().selectObject(ObjectId(item->data(Qt::UserRole).toULongLong()));
  });
  connect(fitter_, &TaskRunner::finished, this, &ControllerPanel::updateButtons);
  connect(controllers_, &QListWidget::currentRowChanged, this, &ControllerPanel::updateButtons);
  connect(session_, &OptimizerSession::prepared, this, &ControllerPanel::onPrepared);
  connect(session_, &OptimizerSession::windowFinished, this, &ControllerPanel::onWindow);
  connect(session_, &OptimizerSession::resumed, this, [this](int windows, const QVector<double>& costs) {
    for (int k = 0; k < costs.size(); ++k) costSeries_->append(k + 1, costs[k]);
    double top = 0;
    for (double c : costs) top = std::max(top, c);
    axisY_->setRange(0, top > 0 ? top * 1.1 : 1);
    progress_->setValue(windows);
    status_->setText(tr("Kept %1 of %2 windows; searching on from window %3").arg(windows).arg(windowsTotal_).arg(windows + 1));
  });
  connect(session_, &OptimizerSession::sampleProgress, this, [this](double f) {
    if (windowsTotal_ > 0) progress_->setValue(session_->windowsDone());
    status_->setText(tr("Window %1 of %2: %3% of its samples")
                         .arg(session_->windowsDone() + 1)
                         .arg(windowsTotal_)
                         .arg(std::lround(100 * f)));
  });
  connect(session_, &OptimizerSession::finished, this, &ControllerPanel::onFinished);
  connect(doc_, &Document::structureChanged, this, &ControllerPanel::refresh);
  // New or Open: a running search is stopped (its result dropped), the progress and the plot start empty.
  connect(doc_, &Document::projectReplaced, this, [this] {
    if (session_->running()) {
      forOtherProject_ = true;
      session_->stop();
    }
    clearSearchDisplay(tr("Ready"));
  });
  refresh();
}

void ControllerPanel::clearSearchDisplay(const QString& status) {
  costSeries_->clear();
  axisX_->setRange(0, 1);
  axisY_->setRange(0, 1);
  samplesPerSecond_ = 0;
  windowsTotal_ = 0;
  progress_->setRange(0, 1);
  progress_->setValue(0);
  status_->setText(status);
}

QString ControllerPanel::segmentName(const std::string& clip, double start, double end) {
  return QString("%1 %2-%3 s").arg(QString::fromStdString(clip)).arg(start, 0, 'g', 3).arg(end, 0, 'g', 3);
}

void ControllerPanel::refresh() {
  const Project& p = doc_->project();
  {
    const QSignalBlocker b(clip_);
    const ObjectId current = ObjectId(clip_->currentData().toULongLong());
    clip_->clear();
    for (const ClipObject& c : p.clips) clip_->addItem(QString::fromStdString(c.clip.name), QVariant::fromValue(qulonglong(c.id)));
    const int at = clip_->findData(QVariant::fromValue(qulonglong(current)));
    clip_->setCurrentIndex(at >= 0 ? at : 0);
  }
  fillJointMap();
  const QString selected = controllers_->currentItem() ? controllers_->currentItem()->text() : QString();
  controllers_->clear();
  for (const ControllerObject& c : p.controllers) {
    auto* item = new QListWidgetItem(QString::fromStdString(c.name), controllers_);
    item->setData(Qt::UserRole, QVariant::fromValue(qulonglong(c.id)));
    item->setToolTip(tr("%1, %2-%3 s: %4 windows, %5 s simulated%6%7")
                         .arg(QString::fromStdString(c.sourceClip))
                         .arg(c.start, 0, 'f', 2)
                         .arg(c.end, 0, 'f', 2)
                         .arg(c.windows.size())
                         .arg(c.duration(), 0, 'f', 2)
                         .arg(c.step > 0 ? tr(" in steps of %1 ms").arg(c.step * 1000, 0, 'g', 3) : QString())
                         .arg(c.feedback.empty() ? tr(", no feedback policy") : QString()));
    if (item->text() == selected) controllers_->setCurrentItem(item);
  }
  if (!controllers_->currentItem() && controllers_->count() > 0) controllers_->setCurrentRow(controllers_->count() - 1);
  updateButtons();
}

void ControllerPanel::followSelection() {
  const ObjectId id = doc_->selection().object();
  if (id == 0) return;
  const QVariant key = QVariant::fromValue(qulonglong(id));
  for (int row = 0; row < controllers_->count(); ++row)
    if (controllers_->item(row)->data(Qt::UserRole) == key) {
      controllers_->setCurrentRow(row);
      return;
    }
  const int clip = clip_->findData(key);
  if (clip >= 0) clip_->setCurrentIndex(clip);
}

void ControllerPanel::fillJointMap() {
  const Project& p = doc_->project();
  jointMap_->setRowCount(0);
  const ClipObject* clip = p.findClip(ObjectId(clip_->currentData().toULongLong()));
  if (!p.skeleton || !clip) return;
  const Skeleton& skel = p.skeleton->skeleton;
  const control::JointMap map = control::autoJointMap(skel, clip->clip);
  jointMap_->setRowCount(int(skel.size()));
  for (size_t j = 0; j < skel.size(); ++j) {
    auto* name = new QTableWidgetItem(QString::fromStdString(skel.joints[j].name));
    name->setFlags(name->flags() & ~Qt::ItemIsEditable);
    jointMap_->setItem(int(j), 0, name);
    auto* box = new QComboBox(jointMap_);
    box->setObjectName(QString("ctlMap_%1").arg(QString::fromStdString(skel.joints[j].name)));
    box->addItem(tr("(none)"), QString());
    for (const ClipJoint& cj : clip->clip.joints) box->addItem(QString::fromStdString(cj.name), QString::fromStdString(cj.name));
    const int at = box->findData(QString::fromStdString(map.clipJoint[j]));
    box->setCurrentIndex(std::max(0, at));
    jointMap_->setCellWidget(int(j), 1, box);
  }
}

control::OptimizeSpec ControllerPanel::spec() const {
  control::OptimizeSpec s;
  if (const ClipObject* c = doc_->project().findClip(ObjectId(clip_->currentData().toULongLong()))) s.clip = c->clip.name;
  s.start = start_->value();
  s.end = end_->value();
  for (int r = 0; r < jointMap_->rowCount(); ++r)
    if (auto* box = qobject_cast<QComboBox*>(jointMap_->cellWidget(r, 1)))
      s.jointMap.push_back(box->currentData().toString().toStdString());
  s.pdFrequency = pdFrequency_->value();
  s.stanceAngle = stanceAngle_->value();
  s.step = step_->value();
  s.settle = settle_->value();
  control::SamconOptions& o = s.samcon;
  o.samples = samples_->value();
  o.keep = keep_->value();
  o.rounds = std::min(rounds_->value(), o.samples);
  o.seed = uint64_t(seed_->value());
  o.threads = threads_->value();
  o.window = window_->value();
  o.noise = noise_->value();
  o.timeScaling = timeScaling_->isChecked();
  o.timeScaleRange = timeScaleRange_->value();
  o.timeScaleWeight = timeScaleWeight_->value();
  o.idInit = idInit_->isChecked();
  o.feedback = balance_->isChecked();
  o.balance.swingHipBalance = swingBalance_->value();
  o.balance.swingHipVelocity = swingVelocity_->value();
  setRobustness(o);
  return s;
}

void ControllerPanel::setRobustness(control::SamconOptions& o) const {
  o.backtracks = backtracks_->value();
  o.backtrackAbove = backtrackAbove_->value();
  o.backtrackWindows = backtrackWindows_->value();
  o.backtrackSamples = backtrackSamples_->value();
  o.scoreShove = scoreShove_->value();
  o.tangentWeight = tangentWeight_->value();
}

void ControllerPanel::startSearch() {
  if (session_->running()) return;
  const control::OptimizeSpec s = spec();
  if (s.clip.empty()) {
    log_->error(tr("Controller: the project has no motion clip to follow (import a .bvh first)"));
    return;
  }
  if (!(s.end > s.start)) {
    log_->error(tr("Controller: the segment must end after it starts"));
    return;
  }
  QString name = name_->text().trimmed();
  autoNamed_ = name.isEmpty();
  if (autoNamed_) name = segmentName(s.clip, s.start, s.end);
  clearSearchDisplay(tr("Preparing: retargeting, model, inverse dynamics, settling..."));
  sim_->pause();
  session_->start(doc_->project(), s, name);
  log_->info(tr("Controller: optimising '%1' (%2 samples per window, keeping %3, %4 thread(s), seed %5)")
                 .arg(name)
                 .arg(s.samcon.samples)
                 .arg(s.samcon.keep)
                 .arg(s.samcon.threads)
                 .arg(s.samcon.seed));
  updateButtons();
}

void ControllerPanel::onPrepared(int windows, const QString& notes) {
  windowsTotal_ = windows;
  progress_->setRange(0, windows);
  progress_->setValue(0);
  axisX_->setRange(1, std::max(2, windows));
  axisX_->setTickInterval(std::max(1, windows / 8));
  if (!notes.isEmpty()) log_->info(tr("Controller: %1").arg(notes));
  status_->setText(tr("Window 1 of %1").arg(windows));
}

void ControllerPanel::onWindow(int window, double cost, double samplesPerSecond, double secondsLeft, int windowsDone,
                               bool handedOver) {
  samplesPerSecond_ = samplesPerSecond;
  // Backtracking searches windows again: their points go until they are redone.
  const int plotted = std::min(window, windowsDone);
  while (costSeries_->count() > 0 && costSeries_->at(costSeries_->count() - 1).x() > plotted + 0.5)
    costSeries_->remove(costSeries_->count() - 1);
  if (handedOver) {
    // The window went badly; an earlier search that got to windowsDone goes on: its path's costs.
    log_->info(tr("Controller: window %1 went badly (cost %2): going on from an earlier search that got to window %3")
                   .arg(window + 1)
                   .arg(cost, 0, 'g', 3)
                   .arg(windowsDone));
    costSeries_->clear();
    if (const std::optional<ControllerObject> best = session_->best())
      for (size_t k = 0; k < best->windows.size(); ++k) costSeries_->append(double(k + 1), best->windows[k].cost);
  } else if (windowsDone > window) {
    costSeries_->append(window + 1, cost);
  } else {
    log_->info(tr("Controller: window %1 went badly (cost %2): searching windows %3-%1 again with fresh samples")
                   .arg(window + 1)
                   .arg(cost, 0, 'g', 3)
                   .arg(windowsDone + 1));
  }
  double top = 0;
  for (const QPointF& p : costSeries_->points()) top = std::max(top, p.y());
  axisY_->setRange(0, top > 0 ? top * 1.1 : 1);
  progress_->setValue(windowsDone);
  status_->setText(tr("Window %1 of %2 done: cost %3; %4 samples/s; about %5 left")
                       .arg(window + 1)
                       .arg(windowsTotal_)
                       .arg(cost, 0, 'g', 3)
                       .arg(samplesPerSecond, 0, 'f', 1)
                       .arg(seconds(secondsLeft)));
  updateButtons();
}

void ControllerPanel::onFinished(const QString& stopped) {
  std::optional<ControllerObject> best = session_->best();
  if (best && forOtherProject_) {
    // Searched for the project that was open when it started: not this one's.
    log_->warning(tr("Controller: the search for the previous project ended; its result was dropped"));
    best.reset();
  }
  forOtherProject_ = false;
  if (best && !stopped.isEmpty() && best->duration() < best->end - best->start - 1e-9) {
    // A stopped search covers only the windows done: its segment and (generated) name say so.
    best->end = best->start + best->duration();
    if (autoNamed_) best->name = segmentName(best->sourceClip, best->start, best->end).toStdString();
  }
  if (best) {
    // Into the project (undoable), replacing a controller of the same name.
    Project p = doc_->project();
    std::vector<ControllerObject> all = p.controllers;
    bool replaced = false;
    for (ControllerObject& c : all)
      if (c.name == best->name) {
        best->id = c.id;
        c = *best;
        replaced = true;
      }
    if (!replaced) {
      best->id = p.allocateId();
      all.push_back(*best);
    }
    doc_->undoStack()->push(new SetControllersCommand(doc_, all, p.nextId, tr("Add Controller '%1'").arg(QString::fromStdString(best->name))));
  }
  const int done = session_->windowsDone();
  if (stopped.isEmpty()) {
    status_->setText(tr("Finished: %1 windows; the controller is in the list below").arg(done));
    log_->info(tr("Controller: finished %1 windows").arg(done));
  } else if (best) {
    status_->setText(tr("Stopped (%1): kept the %2 windows done").arg(stopped).arg(done));
    log_->warning(tr("Controller: %1; kept the %2 windows done").arg(stopped).arg(done));
  } else {
    status_->setText(tr("Stopped: %1").arg(stopped));
    log_->error(tr("Controller: %1").arg(stopped));
  }
  updateButtons();
}

const ControllerObject* ControllerPanel::selectedController() const {
  const QListWidgetItem* item = controllers_->currentItem();
  if (!item) return nullptr;
  for (const ControllerObject& c : doc_->project().controllers)
    if (c.id == ObjectId(item->data(Qt::UserRole).toULongLong())) return &c;
  return nullptr;
}

void ControllerPanel::searchOnSelected() {
  const ControllerObject* c = selectedController();
  if (!c || session_->running()) return;
  const QString name = QString::fromStdString(c->name);
  try {
    const control::OptimizeSpec saved = control::specFromJson(c->settings, c->name);
    const auto& clips = doc_->project().clips;
    if (std::none_of(clips.begin(), clips.end(), [&](const ClipObject& k) { return k.clip.name == saved.clip; }))
      throw InputError(saved.clip, "is not a clip of the project (File > Import its .bvh again to search on)");
    const double from = searchFrom_->value();
    const std::vector<std::vector<ControlWindow>> paths = control::pathsBefore(*c, from - c->start);
    if (paths.empty()) throw InputError(QString::number(from).toStdString() + " s", "no window of the controller ends by then");
    control::OptimizeSpec s = saved;
    control::SamconOptions& o = s.samcon;
    const control::SamconOptions before = o;
    o.samples = samples_->value();
    o.keep = keep_->value();
    o.rounds = rounds_->value();
    o.seed = uint64_t(seed_->value());
    o.noise = noise_->value();
    o.threads = threads_->value();
    setRobustness(o);
    const int32_t kept = int32_t(paths.front().size());
    const bool resumed = !c->searchKept.empty() && size_t(kept) == c->windows.size() && o.samples == before.samples &&
                         o.keep == before.keep && o.rounds == before.rounds && o.seed == before.seed &&
                         o.noise == before.noise && o.backtracks == before.backtracks &&
                         o.backtrackAbove == before.backtrackAbove && o.backtrackWindows == before.backtrackWindows &&
                         o.backtrackSamples == before.backtrackSamples && o.scoreShove == before.scoreShove &&
                         o.tangentWeight == before.tangentWeight;
    if (!resumed) s.earlier = control::earlierSampling(saved, kept);  // a resume keeps the saved record as it is
    if (c->searchKept.empty() && size_t(kept) == c->windows.size())
      throw InputError(c->name, "is finished: choose an earlier time to search on from");
    autoNamed_ = false;
    clearSearchDisplay(tr("Preparing: retargeting, model, inverse dynamics, settling, replaying the kept windows..."));
    sim_->pause();
    session_->start(doc_->project(), s, name, paths, resumed ? c->searchBacktrack : SearchBacktrackRecord{});
    log_->info(tr("Controller: searching '%1' on from %2 s of its clip (%3 windows kept; %4 samples per window, seed %5)")
                   .arg(name).arg(from).arg(kept).arg(o.samples).arg(o.seed));
  } catch (const InputError& e) {
    log_->error(tr("Controller '%1': cannot search on: %2").arg(name, QString::fromStdString(e.what())));
  }
  updateButtons();
}

void ControllerPanel::playSelected() {
  const QListWidgetItem* item = controllers_->currentItem();
  if (!item) return;
  const ObjectId id = ObjectId(item->data(Qt::UserRole).toULongLong());
  for (const ControllerObject& c : doc_->project().controllers)
    if (c.id == id) {
      ControllerObject played = c;
      if (!shove_->isChecked()) played.shove = {};
      sim_->setController(std::move(played), feedback_->isChecked());
      sim_->play();
      return;
    }
}

void ControllerPanel::showRetargeted() {
  const Project& p = doc_->project();
  const ClipObject* clip = p.findClip(ObjectId(clip_->currentData().toULongLong()));
  if (!p.skeleton || !clip) {
    log_->error(tr("Controller: a skeleton and a motion clip are needed to show a retargeted motion"));
    return;
  }
  const control::OptimizeSpec s = spec();
  control::RetargetOptions o;
  o.start = s.start;
  o.end = s.end;
  // Where the character stands at rest: the lowest point of its skinned surface.
  double lowest = std::numeric_limits<double>::infinity();
  for (const MeshObject& m : p.meshes)
    if (m.skin)
      for (const Vec3& v : m.mesh.positions) lowest = std::min(lowest, v.y());
  if (std::isfinite(lowest)) o.restGround = lowest;
  try {
    control::JointMap map;
    map.clipJoint = s.jointMap;
    control::RetargetResult r = control::retargetClip(clip->clip, p.skeleton->skeleton, map, o);
    r.clip.name = clip->clip.name + " (retargeted)";
    sim_->setKinematicClip(std::move(r.clip));
    sim_->play();
  } catch (const InputError& e) {
    log_->error(tr("Controller: %1").arg(QString::fromStdString(e.what())));
  }
}

void ControllerPanel::deleteSelected() {
  const QListWidgetItem* item = controllers_->currentItem();
  if (!item) return;
  const ObjectId id = ObjectId(item->data(Qt::UserRole).toULongLong());
  std::vector<ControllerObject> all;
  for (const ControllerObject& c : doc_->project().controllers)
    if (c.id != id) all.push_back(c);
  if (sim_->controller() && sim_->controller()->id == id) sim_->setController(std::nullopt, false);
  doc_->undoStack()->push(new SetControllersCommand(doc_, all, doc_->project().nextId, tr("Delete Controller '%1'").arg(item->text())));
}

void ControllerPanel::fitSelectedFeedback() {
  const QListWidgetItem* item = controllers_->currentItem();
  if (!item || fitter_->busy()) return;
  const ObjectId id = ObjectId(item->data(Qt::UserRole).toULongLong());
  const ControllerObject* found = nullptr;
  for (const ControllerObject& c : doc_->project().controllers)
    if (c.id == id) found = &c;
  if (!found) return;
  if (found->feedback.empty()) {
    log_->warning(tr("Controller '%1' has no feedback policy to fit (build it with Balance feedback on)")
                      .arg(QString::fromStdString(found->name)));
    return;
  }
  struct Job {
    Project project;
    ControllerObject controller;
    control::FeedbackRegressionResult result;
  };
  auto job = std::make_shared<Job>(Job{doc_->project(), *found, {}});
  control::FeedbackRegressionOptions o;
  o.rollouts = fitRollouts_->value();
  o.corrections = fitCorrections_->value();
  o.validation = std::max(1, o.rollouts / 2);
  o.seed = uint64_t(seed_->value());
  o.threads = threads_->value();
  const QString name = QString::fromStdString(found->name);
  log_->info(tr("Controller: fitting the feedback of '%1' by least squares (%2 pushed rollouts, %3 tries per window)")
                 .arg(name).arg(o.rollouts).arg(o.corrections));
  fitter_->run(
      tr("Fitting the feedback of '%1'").arg(name),
      [job, o](const Progress& progress) { job->result = control::regressFeedback(job->project, job->controller, o, progress); },
      [this, job, id, name] {
        const control::FeedbackRegressionResult& r = job->result;
        const QString figures = tr("%1 pairs from %2 simulated windows; held-out score %3 -> %4")
                                    .arg(r.pairs).arg(r.simulations).arg(r.initialScore, 0, 'g', 4).arg(r.fittedScore, 0, 'g', 4);
        if (!r.kept) {
          log_->info(tr("Controller '%1': the fitted feedback scored no lower, the previous gains are kept (%2)").arg(name, figures));
          return;
        }
        std::vector<ControllerObject> all = doc_->project().controllers;
        bool replaced = false;
        for (ControllerObject& c : all)
          if (c.id == id) c.feedback = job->controller.feedback, replaced = true;
        if (!replaced) {
          log_->warning(tr("Controller '%1' was deleted while its feedback was fitted").arg(name));
          return;
        }
        doc_->undoStack()->push(new SetControllersCommand(doc_, all, doc_->project().nextId, tr("Fit Feedback of '%1'").arg(name)));
        log_->info(tr("Controller '%1': fitted feedback kept (%2)").arg(name, figures));
      },
      [this, name](const QString& message, bool cancelled) {
        if (cancelled)
          log_->info(tr("Controller '%1': fitting the feedback cancelled, nothing changed").arg(name));
        else
          log_->error(tr("Controller '%1': fitting the feedback failed: %2").arg(name, message));
      });
  updateButtons();
}

void ControllerPanel::updateButtons() {
  const bool running = session_->running();
  run_->setEnabled(!running);
  pause_->setEnabled(running);
  pause_->setText(session_->paused() ? tr("Resume") : tr("Pause"));
  stop_->setEnabled(running);
  preview_->setEnabled(session_->windowsDone() > 0);
  const bool selected = controllers_->currentItem() != nullptr;
  play_->setEnabled(selected);
  delete_->setEnabled(selected && !running);
  bool hasFeedback = false, hasShove = false;
  ObjectId current = 0;
  if (const ControllerObject* c = selectedController())
    hasFeedback = !c->feedback.empty(), hasShove = !c->shove.empty(), current = c->id;
  feedback_->setEnabled(hasFeedback);
  shove_->setEnabled(hasShove);
  if (current != feedbackShownFor_) {
    shove_->setChecked(hasShove);  // a newly selected controller plays with its shove
    if (hasShove && replanBox_) replanBox_->showShove(selectedController()->shove);
  }
  if (const ControllerObject* c = selectedController(); c && hasShove)
    shove_->setToolTip(tr("Play with the shove it was re-planned against: (%1, %2, %3) m/s at %4 s")
                           .arg(c->shove.velocity.x()).arg(c->shove.velocity.y()).arg(c->shove.velocity.z())
                           .arg(c->shove.time, 0, 'f', 3));
  else
    shove_->setToolTip(tr("Play with the shove the controller was re-planned against (when it has one)"));
  fit_->setEnabled(hasFeedback && !fitter_->busy());
  searchOn_->setEnabled(selected && !running);
  searchFrom_->setEnabled(selected);
  if (!hasFeedback) feedback_->setChecked(false);
  else if (current != feedbackShownFor_) feedback_->setChecked(true);  // a newly selected controller plays with its feedback
  feedbackShownFor_ = current;
}

}  // namespace sinew::app
