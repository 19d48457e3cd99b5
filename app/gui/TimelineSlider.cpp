// The Simulate dock's timeline slider over cached frames, with a marked frame (TimelineSlider.h).
#include "TimelineSlider.h"

#include <QPainter>
#include <QStyle>
#include <QStyleOptionSlider>

namespace sinew::app {

TimelineSlider::TimelineSlider(QWidget* parent) : QSlider(Qt::Horizontal, parent) {}

void TimelineSlider::setMarker(int frame, const QString& what) {
  if (frame == marker_ && toolTip() == what) return;
  marker_ = frame;
  setToolTip(what);
  update();
}

void TimelineSlider::paintEvent(QPaintEvent* e) {
  QSlider::paintEvent(e);
  if (marker_ < minimum() || marker_ > maximum() || maximum() <= minimum()) return;
  // The groove's span as the style lays it out, so the mark sits where the handle would.
  QStyleOptionSlider opt;
  initStyleOption(&opt);
  const QRect groove = style()->subControlRect(QStyle::CC_Slider, &opt, QStyle::SC_SliderGroove, this);
  const QRect handle = style()->subControlRect(QStyle::CC_Slider, &opt, QStyle::SC_SliderHandle, this);
  const int span = groove.width() - handle.width();
  const int x = groove.left() + handle.width() / 2 +
                QStyle::sliderPositionFromValue(minimum(), maximum(), marker_, span, opt.upsideDown);
  QPainter p(this);
  p.setPen(QPen(QColor(220, 60, 40), 2));
  p.drawLine(x, rect().top() + 1, x, rect().bottom() - 1);
}

}  // namespace sinew::app
