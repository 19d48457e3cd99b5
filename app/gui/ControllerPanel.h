// The Control dock: build a controller that makes the character perform a
// motion clip (Liu et al. 2013, Section 5) and play it. Choose the clip and
// segment, check the joint map, set the search's parameters; Start / Pause /
// Stop run the search in the background (OptimizerSession) with a progress
// bar, samples per second, the time left and a live plot of the cost per
// window; Preview plays the best controller so far in the viewport. A finished
// or stopped search adds its controller to the project (undoable); the saved
// controllers play with the reference drawn beside the character as a ghost,
// and the character can be pushed with Ctrl+drag. Fit Feedback fits a saved
// controller's feedback by least squares on pushed rollouts in the background
// (control::regressFeedback; progress dialog, Cancel) and replaces its policy
// when held-out pushes score lower (undoable). Search On From goes back
// into a saved controller's search part-way (or on from where it stopped)
// with new sampling settings. Re-plan Against a Shove (ReplanBox) plays it
// shoved, re-planning as it goes, and adds the run as a controller whose
// shove Play gives (the Shove box). The list and the Clip box follow the
// Outliner's and viewport's selection. Widgets are named ("ctl...") for tests.
#pragma once

#include "Document.h"
#include "Log.h"
#include "OptimizerSession.h"
#include "ReplanBox.h"
#include "SimulationController.h"
#include "TaskRunner.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QLineSeries;
class QValueAxis;
class QChartView;

namespace sinew::app {

class ControllerPanel : public QWidget {
  Q_OBJECT
 public:
  ControllerPanel(Document* doc, SimulationController* sim, Log* log, QWidget* parent = nullptr);
  OptimizerSession* session() const { return session_; }
  TaskRunner* fitter() const { return fitter_; }
  ReplanBox* replanBox() const { return replanBox_; }
  // The search's settings as the widgets say (the joint map from the table).
  control::OptimizeSpec spec() const;

 private:
  void refresh();                 // the project changed: clips, joints, controllers
  // The Document's selection changed: a selected controller becomes the
  // list's current one (Play, Re-plan and Delete act on it), a selected clip
  // the Clip box's. Clicking a controller in the list selects it in turn.
  void followSelection();
  void fillJointMap();            // automatic map for the chosen clip
  void startSearch();
  void updateButtons();
  void onPrepared(int windows, const QString& notes);
  void onWindow(int window, double cost, double samplesPerSecond, double secondsLeft, int windowsDone, bool handedOver);
  void onFinished(const QString& stopped);
  void playSelected();
  void showRetargeted();          // the segment retargeted, played kinematically in the viewport
  void deleteSelected();
  void fitSelectedFeedback();     // least squares on pushed rollouts, in the background
  // The selected controller's search again from "from" s of its clip: the
  // windows that end by then kept (control::pathsBefore), the rest searched
  // with the Search box's sampling; a stopped search goes on where it stopped.
  void searchOnSelected();
  const ControllerObject* selectedController() const;

  Document* doc_;
  SimulationController* sim_;
  Log* log_;
  bool autoNamed_ = false;        // the running search's name was generated from its segment
  bool forOtherProject_ = false;  // the project was replaced while it ran
  static QString segmentName(const std::string& clip, double start, double end);
  void clearSearchDisplay(const QString& status);  // an empty plot and progress bar
  OptimizerSession* session_;
  TaskRunner* fitter_;
  QComboBox* clip_;
  QDoubleSpinBox *start_, *end_, *window_, *noise_, *pdFrequency_, *stanceAngle_, *step_, *settle_, *swingBalance_, *swingVelocity_;
  QSpinBox *samples_, *keep_, *rounds_, *seed_, *threads_, *fitRollouts_, *fitCorrections_;
  QSpinBox *backtracks_, *backtrackWindows_;
  QDoubleSpinBox *backtrackAbove_, *backtrackSamples_, *scoreShove_, *tangentWeight_, *timeScaleRange_, *timeScaleWeight_;
  void setRobustness(control::SamconOptions& o) const;  // from the "Go back", "Score shoved" and "Score twin growth" editors
  QCheckBox *timeScaling_, *idInit_, *balance_, *feedback_, *shove_;
  ReplanBox* replanBox_ = nullptr;
  ObjectId feedbackShownFor_ = 0;     // the controller the Feedback box was last set for
  QLineEdit* name_;
  QTableWidget* jointMap_;
  QPushButton *run_, *pause_, *stop_, *preview_, *play_, *delete_, *showRetarget_, *fit_, *searchOn_;
  QDoubleSpinBox* searchFrom_;    // s of the selected controller's clip
  QProgressBar* progress_;
  QLabel* status_;
  QChartView* chartView_;
  QLineSeries* costSeries_;
  QValueAxis *axisX_, *axisY_;
  QListWidget* controllers_;
  double samplesPerSecond_ = 0;
  int windowsTotal_ = 0;
};

}  // namespace sinew::app
