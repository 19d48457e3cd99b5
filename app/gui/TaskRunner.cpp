// Long operations on a worker thread with a delayed progress dialog and Cancel (TaskRunner.h).
#include "TaskRunner.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QMutex>
#include <QProgressDialog>
#include <QThread>
#include <QTimer>

namespace sinew::app {

// State written by the worker and read by the UI thread.
struct TaskRunner::Shared {
  QMutex mutex;
  double fraction = 0;
  QString stage;
  bool ok = false, cancelled = false;
  QString error;
};

TaskRunner::TaskRunner(QWidget* window) : QObject(window), window_(window) {
  poll_ = new QTimer(this);
  poll_->setInterval(50);
  connect(poll_, &QTimer::timeout, this, [this] {
    if (!shared_) return;
    double f;
    QString stage;
    {
      QMutexLocker lock(&shared_->mutex);
      f = shared_->fraction;
      stage = shared_->stage;
    }
    if (dialog_ && !cancel_) {
      // setValue() of a shown modal dialog processes events, in which the task
      // may finish and onThreadFinished() drop the dialog: check again after it.
      dialog_->setValue(int(f * 1000));
      if (dialog_ && !stage.isEmpty()) dialog_->setLabelText(dialog_->windowTitle() + ": " + stage + "...");
    }
    emit progressChanged(f, stage);
  });
}

TaskRunner::~TaskRunner() {
  if (thread_) {
    cancel_ = true;
    thread_->wait();
  }
}

bool TaskRunner::run(const QString& title, Work work, Done done, Failed failed) {
  if (thread_) return false;
  cancel_ = false;
  shared_ = std::make_shared<Shared>();
  done_ = std::move(done);
  failed_ = std::move(failed);
  auto shared = shared_;
  const std::atomic<bool>* cancelFlag = &cancel_;
  thread_ = QThread::create([work = std::move(work), shared, cancelFlag] {
    const Progress progress(
        [shared](double f, std::string_view stage) {
          QMutexLocker lock(&shared->mutex);
          shared->fraction = f;
          if (!stage.empty()) shared->stage = QString::fromUtf8(stage.data(), int(stage.size()));
        },
        cancelFlag);
    try {
      work(progress);
      shared->ok = true;
    } catch (const Cancelled&) {
      shared->cancelled = true;
    } catch (const std::bad_alloc&) {
      shared->error = QObject::tr("out of memory");
    } catch (const std::exception& e) {
      shared->error = QString::fromStdString(e.what());
    }
  });
  connect(thread_, &QThread::finished, this, &TaskRunner::onThreadFinished);

  dialog_ = new QProgressDialog(title + "...", tr("Cancel"), 0, 1000, window_);
  dialog_->setWindowTitle(title);
  dialog_->setWindowModality(Qt::WindowModal);
  dialog_->setMinimumDuration(300);
  dialog_->setAutoClose(false);
  dialog_->setAutoReset(false);
  dialog_->setValue(0);
  connect(dialog_, &QProgressDialog::canceled, this, &TaskRunner::cancel);
  poll_->start();
  emit started(title);
  thread_->start();
  return true;
}

void TaskRunner::cancel() {
  cancel_ = true;
  if (dialog_) dialog_->setLabelText(tr("Cancelling..."));
}

void TaskRunner::onThreadFinished() {
  poll_->stop();
  // finished() is emitted from the worker just before it exits: wait for the
  // exit before the QThread object may be deleted.
  thread_->wait();
  thread_->deleteLater();
  thread_ = nullptr;
  if (dialog_) {
    dialog_->hide();
    dialog_->deleteLater();
    dialog_ = nullptr;
  }
  const auto shared = std::move(shared_);
  const Done done = std::move(done_);
  const Failed failed = std::move(failed_);
  if (shared->ok) {
    if (done) done();
  } else if (failed) {
    failed(shared->cancelled ? tr("cancelled") : shared->error, shared->cancelled);
  }
  emit finished(shared->ok);
}

bool TaskRunner::waitForIdle(int timeoutMs) {
  QDeadlineTimer deadline(timeoutMs);
  while (thread_ && !deadline.hasExpired()) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  return !thread_;
}

}  // namespace sinew::app
