// A scroll area for a dock's panel that never scrolls sideways (PanelScrollArea.h).
#include "PanelScrollArea.h"

#include <QEvent>
#include <QScrollBar>

#include <algorithm>

namespace sinew::app {

PanelScrollArea::PanelScrollArea(QWidget* panel, QWidget* parent) : QScrollArea(parent) {
  setWidget(panel);
  setWidgetResizable(true);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  panel->installEventFilter(this);
}

QSize PanelScrollArea::minimumSizeHint() const {
  const QSize base = QScrollArea::minimumSizeHint();
  if (!widget()) return base;
  const int width = widget()->minimumSizeHint().width() + 2 * frameWidth() + verticalScrollBar()->sizeHint().width();
  return {std::max(base.width(), width), base.height()};
}

bool PanelScrollArea::eventFilter(QObject* watched, QEvent* event) {
  if (watched == widget() && event->type() == QEvent::LayoutRequest) updateGeometry();
  return QScrollArea::eventFilter(watched, event);
}

}  // namespace sinew::app
