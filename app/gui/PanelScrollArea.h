// A dock's panel in a scroll area that scrolls up and down only: the dock is
// never narrower than what the panel needs, so no row is cut off at the right
// and no sideways scroll bar appears, at any window size.
#pragma once

#include <QScrollArea>

namespace sinew::app {

class PanelScrollArea : public QScrollArea {
  Q_OBJECT
 public:
  // Takes `panel` (the scroll area owns it from here on).
  PanelScrollArea(QWidget* panel, QWidget* parent);

  // The panel's least width, plus the frame and the vertical scroll bar.
  QSize minimumSizeHint() const override;

 protected:
  // The panel's layout changed (rows shown, longer texts): the least width may have.
  bool eventFilter(QObject* watched, QEvent* event) override;
};

}  // namespace sinew::app
