// A controller search running window by window on a worker thread for the Control dock (OptimizerSession.h).
#include "OptimizerSession.h"

#include "core/Error.h"

#include <QMetaObject>

#include <chrono>

namespace sinew::app {

OptimizerSession::OptimizerSession(QObject* parent) : QObject(parent) {}

OptimizerSession::~OptimizerSession() {
  stop();
  if (worker_.joinable()) worker_.join();
}

bool OptimizerSession::start(Project project, control::OptimizeSpec spec, QString name,
                             std::vector<std::vector<ControlWindow>> from, SearchBacktrackRecord record) {
  if (running()) return false;
  if (worker_.joinable()) worker_.join();
  cancel_ = false;
  paused_ = false;
  ended_ = false;
  {
    std::lock_guard lock(mutex_);
    done_ = total_ = 0;
    reports_.clear();
    best_.reset();
  }
  worker_ = std::thread(&OptimizerSession::run, this, std::move(project), std::move(spec), std::move(name), std::move(from),
                        std::move(record));
  return true;
}

void OptimizerSession::pause() { paused_ = true; }

void OptimizerSession::resume() {
  paused_ = false;
  wake_.notify_all();
}

void OptimizerSession::stop() {
  cancel_ = true;
  paused_ = false;
  wake_.notify_all();
}

bool OptimizerSession::wait(int ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (!ended_ && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return ended_;
}

int OptimizerSession::windowsDone() const {
  std::lock_guard lock(mutex_);
  return done_;
}

int OptimizerSession::windowCount() const {
  std::lock_guard lock(mutex_);
  return total_;
}

std::vector<control::WindowReport> OptimizerSession::reports() const {
  std::lock_guard lock(mutex_);
  return reports_;
}

std::optional<ControllerObject> OptimizerSession::best() const {
  std::lock_guard lock(mutex_);
  return best_;
}

void OptimizerSession::run(Project project, control::OptimizeSpec spec, QString name,
                           std::vector<std::vector<ControlWindow>> from, SearchBacktrackRecord record) {
  auto post = [this](auto fn) { QMetaObject::invokeMethod(this, fn, Qt::QueuedConnection); };
  QString stopped;
  try {
    const Progress cancellable([](double, std::string_view) {}, &cancel_);
    const control::PreparedOptimization prep = control::prepareOptimization(project, spec, cancellable);
    control::SamconSearch search(prep.problem, control::makeThreadedEvaluator(spec.samcon.threads));
    QString notes;
    for (const std::string& n : prep.notes) notes += QString::fromStdString(n) + "\n";
    const int total = search.windowCount();
    {
      std::lock_guard lock(mutex_);
      total_ = total;
    }
    post([this, total, notes] { emit prepared(total, notes.trimmed()); });
    if (!from.empty()) {
      // Throws InputError when the saved windows no longer replay (checked
      // under the weights each was ranked with).
      search.resume(from, cancellable, control::windowScoring(spec, int32_t(from.front().size())), record);
      ControllerObject c = control::makeControllerObject(project, spec, prep, search, name.toStdString());
      QVector<double> costs;
      for (const ControlWindow& w : c.windows) costs.push_back(w.cost);
      const int done = search.windowsDone();
      {
        std::lock_guard lock(mutex_);
        done_ = done;
        best_ = std::move(c);
      }
      post([this, done, costs] { emit resumed(done, costs); });
    }
    const int resumedWindows = search.windowsDone();
    const auto started = std::chrono::steady_clock::now();
    const Progress perSample(
        [this, post](double f, std::string_view) {
          static thread_local auto last = std::chrono::steady_clock::now();
          const auto now = std::chrono::steady_clock::now();
          if (now - last < std::chrono::milliseconds(100) && f < 1) return;
          last = now;
          post([this, f] { emit sampleProgress(f); });
        },
        &cancel_);
    while (!search.finished()) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return !paused_ || cancel_; });
      }
      if (cancel_) {
        stopped = tr("stopped by the user");
        break;
      }
      control::WindowReport r;
      try {
        r = search.runWindow(perSample);
      } catch (const Cancelled&) {
        stopped = tr("stopped by the user");
        break;
      }
      if (search.failed()) break;  // the failed window is not kept: the controller so far stays
      ControllerObject c = control::makeControllerObject(project, spec, prep, search, name.toStdString());
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      const int done = search.windowsDone();
      const double left = elapsed / std::max(1, done - resumedWindows) * (total - done);
      const double rate = r.samples / std::max(r.wallSeconds, 1e-9);
      {
        std::lock_guard lock(mutex_);
        done_ = done;
        reports_.push_back(r);
        best_ = std::move(c);
      }
      const double cost = r.best.total;
      const bool handedOver = r.furthestGood || r.backTo > r.window;
      post([this, k = r.window, cost, rate, left, done, handedOver] { emit windowFinished(k, cost, rate, left, done, handedOver); });
    }
    if (search.failed()) stopped = tr("every sample of window %1 fell").arg(search.windowsDone() + 1);
  } catch (const Cancelled&) {
    stopped = tr("stopped by the user");
  } catch (const std::exception& e) {
    stopped = QString::fromStdString(e.what());
  }
  ended_ = true;
  post([this, stopped] { emit finished(stopped); });
}

}  // namespace sinew::app
