#include "control/Samcon.h"

#include "core/Error.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

namespace sinew::control {

namespace {

// SplitMix64: independent streams from (seed, window, sample).
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

std::vector<SampleTask> drawSamples(const SamconProblem& p, int32_t window, int32_t parents) {
  const SamconOptions& o = p.options;
  const ControlWindow& w = p.windows[size_t(window)];
  const dyn::ArticulatedModel& skel = p.model->skeleton;
  std::vector<SampleTask> tasks(size_t(o.samples));
  for (int32_t i = 0; i < o.samples; ++i) {
    std::mt19937_64 rng(mix(mix(mix(o.seed) ^ uint64_t(window)) ^ uint64_t(i)));
    std::normal_distribution<double> gauss(0.0, o.noise);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    SampleTask& t = tasks[size_t(i)];
    t.window = window;
    t.parent = parents > 0 ? i % parents : 0;
    t.targets = w.targets;
    for (size_t l = 1; l < skel.links.size(); ++l) {
      const dyn::Link& link = skel.links[l];
      if (link.kind == dyn::JointKind::Ball) {
        const Vec3 r(gauss(rng), gauss(rng), gauss(rng));
        t.targets[l] = (t.targets[l] * fromRotationVector(r)).normalized();
      } else if (link.kind == dyn::JointKind::Hinge) {
        t.targets[l] = (t.targets[l] * Quat(Eigen::AngleAxisd(gauss(rng), link.hingeAxis))).normalized();
      }
    }
    const double scale = o.timeScaling ? 1.0 + o.timeScaleRange * uniform(rng) : 1.0;
    t.steps = std::max(1, int32_t(std::lround(w.referenceDuration * scale / p.settings.dt)));
    t.scale = t.steps * p.settings.dt / w.referenceDuration;
  }
  return tasks;
}

std::vector<int32_t> selectBest(const std::vector<double>& costs, int keep) {
  std::vector<int32_t> order(costs.size());
  std::iota(order.begin(), order.end(), 0);
  const size_t k = std::min(order.size(), size_t(std::max(keep, 0)));
  std::partial_sort(order.begin(), order.begin() + long(k), order.end(), [&](int32_t a, int32_t b) {
    return costs[size_t(a)] < costs[size_t(b)] || (costs[size_t(a)] == costs[size_t(b)] && a < b);
  });
  order.resize(k);
  return order;
}

// ---------------------------------------------------------------------------
// Running one sample

namespace {
liu2013::Settings singleThreaded(liu2013::Settings s) {
  s.threads = 1;
  s.drive = DriveMode::Hold;  // the sample's targets replace the drive
  s.clip.reset();
  return s;
}
}  // namespace

SampleRunner::SampleRunner(const SamconProblem& p) : problem(p), solver(p.model, singleThreaded(p.settings)) {}

SampleOutcome SampleRunner::run(const liu2013::Liu2013State& start, const SampleTask& task, double referenceEnd) {
  SampleOutcome out;
  solver.setState(start);
  solver.setTargets(dyn::PdTargets{task.targets, {}});
  const FeedbackPolicy& fb = problem.feedback;
  const int32_t period = feedbackPeriodSteps(fb, problem.settings.dt);
  try {
    for (int32_t i = 0; i < task.steps; ++i) {
      if (!fb.empty() && i % period == 0)
        solver.setTargets(dyn::PdTargets{correctedTargets(*problem.reference, problem.model->skeleton, fb,
                                                          problem.windows[size_t(task.window)], size_t(task.window),
                                                          task.targets, i, task.steps, solver.state().skeleton),
                                         {}});
      solver.step();
    }
  } catch (const SimulationError&) {
    out.cost.fallen = true;
    out.cost.total = 1e30;  // unstable: never kept
    return out;
  }
  const ReferenceMotion& ref = *problem.reference;
  out.cost = trackingCost(ref.features(solver.state().skeleton), ref.features(referenceEnd), problem.options.weights);
  const double stretch = std::log(task.scale);
  out.cost.total += problem.options.timeScaleWeight * stretch * stretch;
  return out;
}

// ---------------------------------------------------------------------------
// Threads

namespace {

class ThreadedEvaluator final : public SampleEvaluator {
 public:
  explicit ThreadedEvaluator(int threads)
      : threads_(threads > 0 ? threads : std::max(1, int(std::thread::hardware_concurrency()))) {}
  int workers() const override { return threads_; }

  void evaluate(const SamconProblem& problem, double referenceEnd, const std::vector<liu2013::Liu2013State>& starts,
                const std::vector<SampleTask>& tasks, int keep, std::vector<SampleOutcome>& outcomes,
                std::vector<std::pair<int32_t, liu2013::Liu2013State>>& kept, const Progress& progress) override {
    outcomes.assign(tasks.size(), {});
    if (runners_.empty() || &runners_.front()->problem != &problem) {
      runners_.clear();
      for (int t = 0; t < threads_; ++t) runners_.push_back(std::make_unique<SampleRunner>(problem));
    }
    // The best `keep` end states so far, by (cost, index).
    std::mutex mutex;
    std::vector<std::pair<double, int32_t>> bestKeys;
    kept.clear();
    std::atomic<size_t> next{0}, finished{0};
    std::atomic<bool> stop{false};
    std::exception_ptr error;
    auto worker = [&](int id) {
      SampleRunner& runner = *runners_[size_t(id)];
      for (size_t i; !stop && (i = next++) < tasks.size();) {
        const SampleTask& task = tasks[i];
        try {
          outcomes[i] = runner.run(starts.at(size_t(task.parent)), task, referenceEnd);
        } catch (...) {
          std::lock_guard lock(mutex);
          if (!error) error = std::current_exception();
          stop = true;
          return;
        }
        const std::pair<double, int32_t> key{outcomes[i].cost.total, int32_t(i)};
        {
          std::lock_guard lock(mutex);
          if (int(bestKeys.size()) < keep || key < bestKeys.back()) {
            const auto at = std::lower_bound(bestKeys.begin(), bestKeys.end(), key);
            kept.insert(kept.begin() + (at - bestKeys.begin()), {int32_t(i), runner.state()});
            bestKeys.insert(at, key);
            if (int(bestKeys.size()) > keep) {
              bestKeys.pop_back();
              kept.pop_back();
            }
          }
        }
        const size_t n = ++finished;
        if (id == 0 && !progress.tryUpdate(double(n) / double(tasks.size()))) stop = true;
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads_; ++t) pool.emplace_back(worker, t);
    worker(0);
    for (std::thread& t : pool) t.join();
    if (error) std::rethrow_exception(error);
    if (stop) throw Cancelled();
  }

 private:
  int threads_;
  std::vector<std::unique_ptr<SampleRunner>> runners_;
};

}  // namespace

std::unique_ptr<SampleEvaluator> makeThreadedEvaluator(int threads) { return std::make_unique<ThreadedEvaluator>(threads); }

// ---------------------------------------------------------------------------
// The search

SamconSearch::SamconSearch(SamconProblem problem, std::unique_ptr<SampleEvaluator> evaluator)
    : problem_(std::move(problem)), evaluator_(std::move(evaluator)) {
  if (problem_.windows.empty()) throw InputError("optimize", "there are no control windows");
  if (problem_.options.samples < 1 || problem_.options.keep < 1)
    throw InputError("optimize", "samples and kept states must be at least 1");
  kept_.push_back({problem_.start, {}, 0.0});
}

WindowReport SamconSearch::runWindow(const Progress& progress) {
  if (finished()) throw std::logic_error("SamconSearch::runWindow: the search has finished");
  const auto t0 = std::chrono::steady_clock::now();
  const int32_t k = done_;
  const ControlWindow& layout = problem_.windows[size_t(k)];
  const std::vector<SampleTask> tasks = drawSamples(problem_, k, int32_t(kept_.size()));
  std::vector<liu2013::Liu2013State> starts;
  for (const Node& n : kept_) starts.push_back(n.state);
  std::vector<SampleOutcome> outcomes;
  std::vector<std::pair<int32_t, liu2013::Liu2013State>> best;
  const double referenceEnd = layout.referenceStart + layout.referenceDuration;
  evaluator_->evaluate(problem_, referenceEnd, starts, tasks, problem_.options.keep, outcomes, best, progress);

  WindowReport report;
  report.window = k;
  report.samples = int32_t(tasks.size());
  for (const SampleOutcome& o : outcomes) report.fallen += o.cost.fallen ? 1 : 0;
  samplesEvaluated_ += report.samples;
  std::vector<Node> next;
  for (auto& [index, state] : best) {
    const SampleTask& task = tasks[size_t(index)];
    const Node& parent = kept_[size_t(task.parent)];
    Node n{std::move(state), parent.path, outcomes[size_t(index)].cost.total};
    ControlWindow w = layout;
    w.targets = task.targets;
    w.duration = task.steps * problem_.settings.dt;
    w.cost = n.cost;
    n.path.push_back(std::move(w));
    next.push_back(std::move(n));
  }
  if (!best.empty()) {
    const SampleTask& top = tasks[size_t(best.front().first)];
    report.best = outcomes[size_t(best.front().first)].cost;
    report.timeScale = top.steps * problem_.settings.dt / layout.referenceDuration;
  }
  // Every sample fell (or blew up): the search cannot go on from here.
  if (next.empty() || next.front().cost >= kFallenCost) failed_ = true;
  if (!next.empty()) kept_ = std::move(next);
  ++done_;
  report.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  reports_.push_back(report);
  return report;
}

std::vector<ControlWindow> SamconSearch::best() const { return kept_.front().path; }
const liu2013::Liu2013State& SamconSearch::bestState() const { return kept_.front().state; }

}  // namespace sinew::control
