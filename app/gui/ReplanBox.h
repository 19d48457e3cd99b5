// The Control dock's "Re-plan Against a Shove" box: plays the selected
// controller shoved (a velocity given to the whole body at a time), each
// window from the shove on re-planned from the live state by a small
// sampling search (control::replanPlayback), in the background with a
// progress dialog and Cancel. The run is added to the project as a new
// controller (undoable) that carries its shove, so Play replays it exactly,
// shove and all. Play Shoved plays the selected controller with the box's
// shove and no re-planning, to see what re-planning buys. Widgets are named
// ("ctlReplan...") for tests.
#pragma once

#include "Document.h"
#include "Log.h"
#include "TaskRunner.h"

#include <QGroupBox>

#include <functional>

class QDoubleSpinBox;
class QPushButton;
class QSpinBox;

namespace sinew::app {

class ReplanBox : public QGroupBox {
  Q_OBJECT
 public:
  // `selected` gives the controller to re-plan (null: none selected).
  ReplanBox(Document* doc, Log* log, std::function<const ControllerObject*()> selected, QWidget* parent = nullptr);
  TaskRunner* runner() const { return runner_; }
  void updateButtons();  // the selection or the search changed
  // The shove the box gives (its time and velocity).
  ControllerShove shove() const;
  // Shows `shove` in the box (a selected controller's own, to re-plan it again).
  void showShove(const ControllerShove& shove);

 signals:
  void added(const QString& name);  // a re-planned run was added as this controller
  void playShoved(const ControllerShove& shove);  // Play Shoved: the selected controller with this shove

 private:
  void replanSelected();
  Document* doc_;
  Log* log_;
  std::function<const ControllerObject*()> selected_;
  TaskRunner* runner_;
  bool forOtherProject_ = false;  // the project was replaced while it ran
  QDoubleSpinBox *at_, *vx_, *vy_, *vz_, *reanchor_, *hold_;
  QSpinBox *samples_, *keep_, *horizon_, *seed_;
  QPushButton *replan_, *playShoved_;
};

}  // namespace sinew::app
