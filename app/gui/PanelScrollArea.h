// A dock's panel in a scroll area that asks for the panel's whole width: at
// the usual window sizes (1280 px wide and up) no row is cut off at the right
// and no sideways scroll bar appears. In a small window the dock asks for at
// most about a third of the window's width, so that the viewport keeps its
// room, and scrolls sideways instead.
#pragma once

#include <QScrollArea>

namespace sinew::app {

class PanelScrollArea : public QScrollArea {
  Q_OBJECT
 public:
  // Takes `panel` (the scroll area owns it from here on); `window` is the
  // main window whose width bounds the dock's.
  PanelScrollArea(QWidget* panel, QWidget* window);

  // The panel's least width plus the frame and the vertical scroll bar, at
  // most kMostOfWindow of the window's width.
  QSize minimumSizeHint() const override;
  static constexpr double kMostOfWindow = 0.34;

 protected:
  // The panel's layout changed (rows shown, longer texts) or the window was
  // resized: the least width may have changed.
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QWidget* window_;
};

}  // namespace sinew::app
