// Runs long operations (import, open, validation) on a worker thread while
// the UI stays live: a progress dialog appears after a short delay and its
// Cancel button stops the work at the next sim::Progress checkpoint.
#pragma once

#include "core/Progress.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

class QProgressDialog;
class QThread;
class QTimer;
class QWidget;

namespace sinew::app {

class TaskRunner : public QObject {
  Q_OBJECT
 public:
  explicit TaskRunner(QWidget* window);
  ~TaskRunner() override;

  using Work = std::function<void(const Progress&)>;   // runs on the worker thread
  using Done = std::function<void()>;                  // UI thread, on success
  using Failed = std::function<void(const QString& message, bool cancelled)>;  // UI thread

  // Starts `work`; returns false (and does nothing) if a task is running.
  bool run(const QString& title, Work work, Done done, Failed failed);
  bool busy() const { return thread_ != nullptr; }
  void cancel();
  // Processes events until no task runs or `timeoutMs` passes; true if idle.
  bool waitForIdle(int timeoutMs);

 signals:
  void started(const QString& title);
  void finished(bool ok);
  void progressChanged(double fraction, const QString& stage);

 private:
  void onThreadFinished();
  QWidget* window_;
  QThread* thread_ = nullptr;
  QProgressDialog* dialog_ = nullptr;
  QTimer* poll_ = nullptr;
  std::atomic<bool> cancel_{false};
  struct Shared;
  std::shared_ptr<Shared> shared_;
  Done done_;
  Failed failed_;
};

}  // namespace sinew::app
