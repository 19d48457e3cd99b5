// A controller optimisation running in the background for the Controller
// panel: prepares the search (retargeting, model, inverse dynamics) and runs
// it window by window on a worker thread (the samples themselves on all
// cores), so the UI never waits. Pause holds between windows; Stop abandons
// the window in progress and keeps the windows done; the best controller so
// far is available after every window. Signals arrive on the UI thread.
#pragma once

#include "control/Optimize.h"

#include <QObject>
#include <QString>
#include <QVector>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

namespace sinew::app {

class OptimizerSession : public QObject {
  Q_OBJECT
 public:
  explicit OptimizerSession(QObject* parent = nullptr);
  ~OptimizerSession() override;

  // Starts an optimisation of `project`'s character (a copy is kept).
  // Returns false if one is running. With `from` (control::pathsBefore of a
  // saved controller), the search first replays those paths and goes on
  // after them (resumed() says how far); `record`: the saved search's
  // backtracking state, when it is resumed as it was.
  bool start(Project project, control::OptimizeSpec spec, QString name,
             std::vector<std::vector<ControlWindow>> from = {}, SearchBacktrackRecord record = {});
  void pause();
  void resume();
  void stop();      // keeps the windows done; finished() follows
  bool running() const { return worker_.joinable() && !ended_; }
  bool paused() const { return paused_; }
  // Waits for the worker (tests, closing): true when it ended within `ms`.
  bool wait(int ms);

  int windowsDone() const;
  int windowCount() const;
  std::vector<control::WindowReport> reports() const;
  // The controller made of the windows done so far (nullopt before the first).
  std::optional<ControllerObject> best() const;

 signals:
  void prepared(int windows, const QString& notes);
  // The windows replayed from `from`, with their saved costs.
  void resumed(int windows, const QVector<double>& costs);
  // `windowsDone` is at most `window` when the search went back (backtracking).
  // handedOver: the window went badly and an earlier search of it (or one that got further) goes on.
  void windowFinished(int window, double cost, double samplesPerSecond, double secondsLeft, int windowsDone, bool handedOver);
  void sampleProgress(double fractionOfWindow);
  // "" when every window was optimised, else why it stopped (stopped by the
  // user, every sample fell, an error).
  void finished(const QString& stopped);

 private:
  void run(Project project, control::OptimizeSpec spec, QString name, std::vector<std::vector<ControlWindow>> from,
           SearchBacktrackRecord record);

  std::thread worker_;
  std::atomic<bool> cancel_{false}, paused_{false}, ended_{true};
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  int done_ = 0, total_ = 0;
  std::vector<control::WindowReport> reports_;
  std::optional<ControllerObject> best_;
};

}  // namespace sinew::app
