// The Simulate dock's live plot (Qt Charts): per cached frame, the quantities
// of the CLI's stats JSON (|linear momentum|, |angular momentum| about the
// centre of mass, kinetic and elastic energy, inverted tets). The user picks
// the series; quantities with the same unit share a y axis, one unit on each
// side. A vertical line marks the displayed frame. The measures are recorded
// on the worker thread with each frame (SimulationController::frameMeasures);
// the chart pulls the new ones at most kRefreshHz times a second and starts
// again when the timeline's frames are dropped (Reset). A series draws at
// most four points per pixel column (decimateForPlot): a minute of frames
// (3600 x 5 series) would otherwise cost about 12 ms per redraw.
#pragma once

#include "SimulationController.h"

#include <QList>
#include <QPointF>
#include <QWidget>

#include <array>
#include <vector>

class QChart;
class QChartView;
class QCheckBox;
class QLineSeries;
class QTimer;
class QValueAxis;

namespace sinew::app {

// The points of `data` (in time order) to draw in `columns` pixel columns
// spanning times [t0, t1]: all of them when there are few, else the first,
// the lowest, the highest and the last of each column, in time order, so the
// drawn line covers the same pixels.
QList<QPointF> decimateForPlot(const std::vector<QPointF>& data, double t0, double t1, int columns);

class SimStatsChart : public QWidget {
  Q_OBJECT
 public:
  enum Quantity { LinearMomentum, AngularMomentum, KineticEnergy, ElasticEnergy, InvertedTets, kQuantities };
  static constexpr int kRefreshHz = 5;

  SimStatsChart(SimulationController* sim, QWidget* parent = nullptr);

  void setShown(Quantity q, bool shown);
  bool shown(Quantity q) const;
  int frameCount() const { return int(data_[0].size()); }  // frames plotted
  QPointF value(Quantity q, int frame) const { return data_[q][size_t(frame)]; }  // (time s, value)
  int pointCount(Quantity q) const;   // points drawn (fewer than frames when they outnumber the pixels)
  const QLineSeries* series(Quantity q) const { return series_[q]; }
  double markerTime() const;          // s: where the displayed-frame line is
  QChartView* view() const { return view_; }
  void refresh();                     // pull new frames now (the timer calls it)
  int refreshCount() const { return refreshes_; }

 protected:
  void showEvent(QShowEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;

 private:
  void scheduleRefresh();
  void updateSeries(Quantity q);  // from data_, decimated to the plot's width
  void updateAxes();

  SimulationController* sim_;
  QChart* chart_;
  QChartView* view_;
  QTimer* timer_;
  std::array<QLineSeries*, kQuantities> series_{};
  std::array<QCheckBox*, kQuantities> boxes_{};
  std::array<std::vector<QPointF>, kQuantities> data_;  // every frame: (time, value)
  std::array<double, kQuantities> maxValue_{};
  std::array<int, kQuantities> unitOf_{};
  std::vector<std::array<QValueAxis*, 2>> unitAxes_;  // per unit: its y axis on the left and on the right
  std::array<int, kQuantities> axisSide_{};             // the one each series is attached to
  QValueAxis* time_;
  QValueAxis* markerAxis_;  // hidden 0..1: the marker spans the plot's height
  QLineSeries* marker_;
  uint64_t revision_ = 0;
  double lastTime_ = 0;
  int refreshes_ = 0;
};

}  // namespace sinew::app
