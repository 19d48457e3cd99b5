// The Simulate dock's live plot of the run's statistics per cached frame (SimStatsChart.h).
#include "SimStatsChart.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QGraphicsLayout>
#include <QGridLayout>
#include <QLineSeries>
#include <QPainter>
#include <QPixmap>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace sinew::app {

namespace {

struct QuantityInfo {
  const char* name;      // check box text
  const char* tip;
  const char* object;    // check box object name
  int unit;              // index into the units below
  QColor color;
  bool shown;            // by default
};

// Quantities with the same unit share a y axis.
const QuantityInfo kInfo[SimStatsChart::kQuantities] = {
    {"|p| linear", "Magnitude of the total linear momentum (kg m/s)", "simStatLinear", 0, QColor(31, 119, 180), false},
    {"|L| angular", "Magnitude of the total angular momentum about the centre of mass (kg m²/s)", "simStatAngular", 1,
     QColor(255, 127, 14), false},
    {"Kinetic energy", "Kinetic energy of the flesh and the skeleton (J)", "simStatKinetic", 2, QColor(44, 160, 44), true},
    {"Elastic energy", "Elastic energy of the cage elements (J)", "simStatElastic", 2, QColor(148, 103, 189), true},
    {"Inverted tets", "Elements turned inside out", "simStatInverted", 3, QColor(214, 39, 40), false},
};
const char* const kUnits[] = {"|p| kg·m/s", "|L| kg·m²/s", "energy J", "inverted tets"};

QIcon swatch(const QColor& c) {
  QPixmap pm(12, 12);
  pm.fill(Qt::transparent);
  QPainter p(&pm);
  p.fillRect(QRect(1, 4, 10, 4), c);
  return QIcon(pm);
}

}  // namespace

QList<QPointF> decimateForPlot(const std::vector<QPointF>& data, double t0, double t1, int columns) {
  QList<QPointF> out;
  if (int(data.size()) <= 4 * columns || !(t1 > t0)) {
    out.reserve(qsizetype(data.size()));
    for (const QPointF& p : data) out.append(p);
    return out;
  }
  const double perColumn = (t1 - t0) / columns;
  auto columnOf = [&](const QPointF& p) { return int64_t(std::floor((p.x() - t0) / perColumn)); };
  size_t i = 0;
  while (i < data.size()) {
    const int64_t column = columnOf(data[i]);
    size_t end = i, lo = i, hi = i;
    while (end < data.size() && columnOf(data[end]) == column) {
      if (data[end].y() < data[lo].y()) lo = end;
      if (data[end].y() > data[hi].y()) hi = end;
      ++end;
    }
    size_t keep[4] = {i, std::min(lo, hi), std::max(lo, hi), end - 1};
    for (int k = 0; k < 4; ++k)
      if (k == 0 || keep[k] != keep[k - 1]) out.append(data[keep[k]]);
    i = end;
  }
  return out;
}

SimStatsChart::SimStatsChart(SimulationController* sim, QWidget* parent) : QWidget(parent), sim_(sim) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);

  // Which series: check boxes that double as the legend.
  auto* grid = new QGridLayout;
  grid->setHorizontalSpacing(12);
  grid->setVerticalSpacing(2);
  for (int q = 0; q < kQuantities; ++q) {
    boxes_[q] = new QCheckBox(tr(kInfo[q].name), this);
    boxes_[q]->setObjectName(kInfo[q].object);
    boxes_[q]->setToolTip(tr(kInfo[q].tip));
    boxes_[q]->setIcon(swatch(kInfo[q].color));
    boxes_[q]->setChecked(kInfo[q].shown);
    grid->addWidget(boxes_[q], q / 2, q % 2);
  }
  v->addLayout(grid);

  chart_ = new QChart;
  chart_->legend()->hide();
  chart_->setMargins(QMargins(2, 2, 2, 2));
  chart_->layout()->setContentsMargins(0, 0, 0, 0);  // the chart fills its view
  chart_->setBackgroundRoundness(0);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  time_ = new QValueAxis;
  time_->setTitleText(tr("time s"));
  time_->setLabelFormat("%.3g");
  time_->setLabelsFont(small);
  time_->setTitleFont(small);
  time_->setRange(0, 1);
  chart_->addAxis(time_, Qt::AlignBottom);
  for (const char* unit : kUnits) {
    std::array<QValueAxis*, 2> sides{};
    for (int side = 0; side < 2; ++side) {
      auto* axis = new QValueAxis;
      axis->setTitleText(tr(unit));
      axis->setLabelFormat("%.3g");
      axis->setLabelsFont(small);
      axis->setTitleFont(small);
      axis->setRange(0, 1);
      axis->setVisible(false);
      chart_->addAxis(axis, side == 0 ? Qt::AlignLeft : Qt::AlignRight);
      sides[size_t(side)] = axis;
    }
    unitAxes_.push_back(sides);
  }
  markerAxis_ = new QValueAxis;
  markerAxis_->setRange(0, 1);
  markerAxis_->setVisible(false);
  chart_->addAxis(markerAxis_, Qt::AlignRight);
  for (int q = 0; q < kQuantities; ++q) {
    series_[q] = new QLineSeries;
    series_[q]->setName(tr(kInfo[q].name));
    QPen pen(kInfo[q].color);
    pen.setWidthF(1.5);
    series_[q]->setPen(pen);
    chart_->addSeries(series_[q]);
    series_[q]->attachAxis(time_);
    series_[q]->attachAxis(unitAxes_[size_t(kInfo[q].unit)][0]);
    series_[q]->setVisible(kInfo[q].shown);
    unitOf_[q] = kInfo[q].unit;
  }
  marker_ = new QLineSeries;
  QPen markerPen(QColor(90, 90, 90));
  markerPen.setStyle(Qt::DashLine);
  marker_->setPen(markerPen);
  chart_->addSeries(marker_);
  marker_->attachAxis(time_);
  marker_->attachAxis(markerAxis_);

  view_ = new QChartView(chart_, this);
  view_->setObjectName("simStatsChart");
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setFrameShape(QFrame::NoFrame);
  view_->setMinimumHeight(220);
  v->addWidget(view_, 1);

  timer_ = new QTimer(this);
  timer_->setSingleShot(true);
  timer_->setInterval(1000 / kRefreshHz);
  connect(timer_, &QTimer::timeout, this, [this] {
    if (isVisible()) refresh();
  });
  for (int q = 0; q < kQuantities; ++q)
    connect(boxes_[q], &QCheckBox::toggled, this, [this, q](bool on) { setShown(Quantity(q), on); });
  connect(sim_, &SimulationController::framesChanged, this, &SimStatsChart::scheduleRefresh);
  connect(sim_, &SimulationController::stateChanged, this, &SimStatsChart::scheduleRefresh);
  updateAxes();
}

void SimStatsChart::setShown(Quantity q, bool shown) {
  if (boxes_[q]->isChecked() != shown) return boxes_[q]->setChecked(shown);  // comes back through toggled
  series_[q]->setVisible(shown);
  updateAxes();
  updateSeries(q);
}

bool SimStatsChart::shown(Quantity q) const { return boxes_[q]->isChecked(); }
int SimStatsChart::pointCount(Quantity q) const { return int(series_[q]->count()); }
double SimStatsChart::markerTime() const { return marker_->count() ? marker_->at(0).x() : -1.0; }

void SimStatsChart::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  refresh();
}

void SimStatsChart::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  for (int q = 0; q < kQuantities; ++q)
    if (int(data_[q].size()) > 4 * 100) updateSeries(Quantity(q));  // decimated for the old width
}

void SimStatsChart::scheduleRefresh() {
  if (!timer_->isActive()) timer_->start();
}

void SimStatsChart::refresh() {
  ++refreshes_;
  uint64_t revision = 0;
  std::vector<SimMeasures> fresh = sim_->frameMeasures(frameCount(), &revision);
  const bool restart = revision != revision_;
  if (restart) {
    // Frames were dropped (Reset, resumed from a scrubbed frame, rebuilt): start again.
    fresh = sim_->frameMeasures(0, &revision);
    revision_ = revision;
    lastTime_ = 0;
    maxValue_.fill(0);
    for (auto& d : data_) d.clear();
  }
  for (const SimMeasures& f : fresh) {
    const double values[kQuantities] = {f.linearMomentum.norm(), f.angularMomentum.norm(), f.kineticEnergy,
                                        f.elasticEnergy, double(f.invertedTets)};
    for (int q = 0; q < kQuantities; ++q) {
      data_[q].push_back(QPointF(f.time, values[q]));
      if (std::isfinite(values[q])) maxValue_[q] = std::max(maxValue_[q], values[q]);
    }
    lastTime_ = std::max(lastTime_, f.time);
  }
  // The displayed frame.
  const double t = frameCount() > 0 ? sim_->displayedTime() : -1.0;
  if (markerTime() != t) marker_->replace(frameCount() > 0 ? QList<QPointF>{{t, 0}, {t, 1}} : QList<QPointF>{});
  if (restart || !fresh.empty()) {
    updateAxes();
    for (int q = 0; q < kQuantities; ++q) updateSeries(Quantity(q));
  }
}

void SimStatsChart::updateSeries(Quantity q) {
  if (!boxes_[q]->isChecked()) return series_[q]->clear();  // drawn again when shown
  const int columns = std::max(100, view_->width());  // the plot area is a little narrower
  series_[q]->replace(decimateForPlot(data_[q], time_->min(), time_->max(), columns));
}

void SimStatsChart::updateAxes() {
  time_->setRange(0, std::max(lastTime_, 0.1));
  time_->applyNiceNumbers();
  // One y axis per side: the first unit shown goes left, the second right; a
  // third or fourth is drawn to its own scale without an axis (a dock has no
  // room for more).
  int shownUnits = 0;
  for (size_t u = 0; u < unitAxes_.size(); ++u) {
    bool visible = false;
    double top = 0;
    for (int q = 0; q < kQuantities; ++q)
      if (unitOf_[q] == int(u) && boxes_[q]->isChecked()) {
        visible = true;
        top = std::max(top, maxValue_[q]);
      }
    const int side = visible ? shownUnits++ : 0;  // 0 left, 1 right, 2 or more: none
    for (int k = 0; k < 2; ++k) {
      QValueAxis* axis = unitAxes_[u][size_t(k)];
      axis->setVisible(visible && side == k);
      axis->setRange(0, top > 0 ? 1.05 * top : 1.0);
      axis->applyNiceNumbers();
    }
    const int attach = side == 1 ? 1 : 0;
    for (int q = 0; q < kQuantities; ++q)
      if (unitOf_[q] == int(u) && axisSide_[q] != attach) {
        series_[q]->detachAxis(unitAxes_[u][size_t(axisSide_[q])]);
        series_[q]->attachAxis(unitAxes_[u][size_t(attach)]);
        axisSide_[q] = attach;
      }
  }
}

}  // namespace sinew::app
