// The Simulate dock's timeline slider over cached frames, with marked frames (TimelineSlider.h).
#include "TimelineSlider.h"

#include <QPainter>
#include <QStringList>
#include <QStyle>
#include <QStyleOptionSlider>

namespace sinew::app {

TimelineSlider::TimelineSlider(QWidget* parent) : QSlider(Qt::Horizontal, parent) {}

void TimelineSlider::setMarks(std::vector<Mark> marks) {
  if (marks == marks_) return;
  marks_ = std::move(marks);
  QStringList lines;
  for (const Mark& m : marks_) lines << m.what;
  setToolTip(lines.join('\n'));
  update();
}

void TimelineSlider::paintEvent(QPaintEvent* e) {
  QSlider::paintEvent(e);
  if (maximum() <= minimum()) return;
  // The groove's span as the style lays it out, so a mark sits where the handle would.
  QStyleOptionSlider opt;
  initStyleOption(&opt);
  const QRect groove = style()->subControlRect(QStyle::CC_Slider, &opt, QStyle::SC_SliderGroove, this);
  const QRect handle = style()->subControlRect(QStyle::CC_Slider, &opt, QStyle::SC_SliderHandle, this);
  const int span = groove.width() - handle.width();
  QPainter p(this);
  for (const Mark& m : marks_) {
    if (m.frame < minimum() || m.frame > maximum()) continue;
    const int x = groove.left() + handle.width() / 2 +
                  QStyle::sliderPositionFromValue(minimum(), maximum(), m.frame, span, opt.upsideDown);
    p.setPen(QPen(m.colour, 2));
    p.drawLine(x, rect().top() + 1, x, rect().bottom() - 1);
  }
}

}  // namespace sinew::app
