// File > New Character...: a character from outside to a running simulation
// in one action. A fresh project, then Import -> Auto-Place Joints (only when
// the file has no skeleton) -> Build Everything Missing (which runs the fall
// test that picks the time step) -> Simulate. Each long step runs in the
// background with progress and Cancel (TaskRunner); a step that fails or is
// cancelled ends the flow there, keeping what the earlier steps did (each is
// one undo step) and saying in the Log where it stopped and why.
#pragma once

#include <QObject>
#include <QString>

namespace sinew::app {

class MainWindow;

class NewCharacterFlow : public QObject {
  Q_OBJECT
 public:
  enum class Step { Idle, Import, Joints, Rig, TimeStep, Simulate };
  explicit NewCharacterFlow(MainWindow* window);

  // Starts the flow on `file` in a new project (the caller has offered to
  // save the current one). False if another task is running.
  bool start(const QString& file);
  Step step() const { return step_; }
  bool running() const { return step_ != Step::Idle; }

 signals:
  // The flow ended: simulating (ok), or stopped at a step (message says which and why).
  void ended(bool ok, const QString& message);

 private:
  void onTaskFinished(bool ok);
  void advance();  // from the step just done to the next
  void stop(const QString& why);
  static QString stepName(Step s);

  MainWindow* window_;
  Step step_ = Step::Idle;
  QString file_;
};

}  // namespace sinew::app
