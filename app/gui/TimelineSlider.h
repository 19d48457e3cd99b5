// The Simulate dock's timeline: a slider over the cached frames that also
// marks one frame (where a played controller ends), with a tooltip saying why.
#pragma once

#include <QSlider>

namespace sinew::app {

class TimelineSlider : public QSlider {
  Q_OBJECT
 public:
  explicit TimelineSlider(QWidget* parent = nullptr);
  // Marks frame `frame` (< 0: no mark); `what` is the mark's tooltip.
  void setMarker(int frame, const QString& what);
  int marker() const { return marker_; }

 protected:
  void paintEvent(QPaintEvent* e) override;

 private:
  int marker_ = -1;
};

}  // namespace sinew::app
