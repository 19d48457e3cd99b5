// A scroll area for a dock's panel that asks for the panel's width (PanelScrollArea.h).
#include "PanelScrollArea.h"

#include <QEvent>
#include <QScrollBar>

#include <algorithm>

namespace sinew::app {

PanelScrollArea::PanelScrollArea(QWidget* panel, QWidget* window) : QScrollArea(window), window_(window) {
  setWidget(panel);
  setWidgetResizable(true);
  panel->installEventFilter(this);
  window->installEventFilter(this);
}

QSize PanelScrollArea::minimumSizeHint() const {
  const QSize base = QScrollArea::minimumSizeHint();
  if (!widget()) return base;
  const int whole = widget()->minimumSizeHint().width() + 2 * frameWidth() + verticalScrollBar()->sizeHint().width();
  const int most = int(kMostOfWindow * window_->width());
  return {std::max(base.width(), std::min(whole, most)), base.height()};
}

bool PanelScrollArea::eventFilter(QObject* watched, QEvent* event) {
  if ((watched == widget() && event->type() == QEvent::LayoutRequest) ||
      (watched == window_ && event->type() == QEvent::Resize))
    updateGeometry();
  return QScrollArea::eventFilter(watched, event);
}

}  // namespace sinew::app
