#include "control/Samcon.h"

#include "core/Error.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
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

// Round r's share of a window's `samples` (the first rounds take the remainder).
int32_t samplesInRound(int32_t samples, int32_t rounds, int32_t round) {
  rounds = std::max(1, rounds);
  return samples / rounds + (round < samples % rounds ? 1 : 0);
}

// A window's samples on its `attempt`-th search (more after backtracking).
int32_t windowSamples(const SamconOptions& o, int32_t attempt) {
  return attempt == 0 ? o.samples : std::max(1, int32_t(std::lround(o.samples * o.backtrackSamples)));
}

}  // namespace

std::vector<SampleTask> drawSamples(const SamconProblem& p, int32_t window, int32_t parents, int32_t attempt,
                                    int32_t count) {
  SampleDistribution d;
  d.noise = p.options.noise;
  d.scaleRange = p.options.timeScaling ? p.options.timeScaleRange : 0.0;
  d.attempt = attempt;
  for (int32_t i = 0; i < std::max(parents, 1); ++i) d.parents.push_back(i);
  if (count < 0) count = windowSamples(p.options, attempt);
  return drawSamples(p, window, 0, samplesInRound(count, p.options.rounds, 0), d);
}

std::vector<SampleTask> drawSamples(const SamconProblem& p, int32_t window, int32_t round, int32_t count,
                                    const SampleDistribution& d) {
  const ControlWindow& w = p.windows[size_t(window)];
  const dyn::ArticulatedModel& skel = p.model->skeleton;
  std::vector<SampleTask> tasks(size_t(std::max(count, 0)));
  for (int32_t i = 0; i < count; ++i) {
    // Round 0 of a window's first search keeps the streams of the single-draw search.
    const uint64_t stream = (uint64_t(d.attempt) << 48) | (uint64_t(round) << 32) | uint64_t(i);
    std::mt19937_64 rng(mix(mix(mix(p.options.seed) ^ uint64_t(window)) ^ stream));
    std::normal_distribution<double> gauss(0.0, d.noise);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    SampleTask& t = tasks[size_t(i)];
    t.window = window;
    t.parent = d.parents.empty() ? 0 : d.parents[size_t(i) % d.parents.size()];
    t.targets = w.targets;
    for (size_t l = 1; l < skel.links.size(); ++l) {
      const dyn::Link& link = skel.links[l];
      const Vec3 mean = l < d.mean.size() ? d.mean[l] : Vec3::Zero();
      if (link.kind == dyn::JointKind::Ball) {
        const Vec3 r(gauss(rng), gauss(rng), gauss(rng));
        t.targets[l] = (t.targets[l] * fromRotationVector(mean + r)).normalized();
      } else if (link.kind == dyn::JointKind::Hinge) {
        t.targets[l] = (t.targets[l] * Quat(Eigen::AngleAxisd(mean.x() + gauss(rng), link.hingeAxis))).normalized();
      }
    }
    const double scale = d.scaleRange > 0 ? d.scaleCentre + d.scaleRange * uniform(rng) : d.scaleCentre;
    t.steps = std::max(1, int32_t(std::lround(w.referenceDuration * scale / p.settings.dt)));
    t.scale = t.steps * p.settings.dt / w.referenceDuration;
    t.shove = p.options.scoreShove;
    t.tangentWeight = p.options.tangentWeight;
  }
  return tasks;
}

SampleDistribution refinedDistribution(const SamconProblem& p, int32_t window, int32_t round,
                                       const std::vector<const SampleTask*>& elite) {
  const SamconOptions& o = p.options;
  const ControlWindow& w = p.windows[size_t(window)];
  const dyn::ArticulatedModel& skel = p.model->skeleton;
  const double shrink = std::pow(o.refineShrink, round);
  SampleDistribution d;
  d.noise = o.noise * shrink;
  d.mean.assign(skel.links.size(), Vec3::Zero());
  double scale = 0;
  for (const SampleTask* t : elite) {
    for (size_t l = 1; l < skel.links.size(); ++l) {
      const Vec3 r = rotationVector(w.targets[l].conjugate() * t->targets[l]);
      d.mean[l] += skel.links[l].kind == dyn::JointKind::Hinge ? Vec3(r.dot(skel.links[l].hingeAxis), 0, 0) : r;
    }
    scale += t->scale;
    d.parents.push_back(t->parent);
  }
  if (!elite.empty()) {
    for (Vec3& m : d.mean) m /= double(elite.size());
    scale /= double(elite.size());
  } else {
    scale = 1;
  }
  if (o.timeScaling) {
    const double lo = 1 - o.timeScaleRange, hi = 1 + o.timeScaleRange;
    d.scaleRange = o.timeScaleRange * shrink;
    d.scaleCentre = std::clamp(scale, lo + d.scaleRange, hi - d.scaleRange);
  } else {
    d.scaleCentre = 1, d.scaleRange = 0;
  }
  return d;
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

namespace {
// The terms of one run of `task` from `start` (fallen and total 1e30 when
// the simulation went unstable), shoved by `push` at its start.
CostTerms runOnce(const SamconProblem& problem, liu2013::Liu2013Solver& solver, const liu2013::Liu2013State& start,
                  const SampleTask& task, double referenceEnd, const Vec3& push) {
  if (push.isZero()) {
    solver.setState(start);
  } else {
    liu2013::Liu2013State s = start;
    liu2013::addRigidVelocity(*problem.model, s, push, Vec3::Zero(), Vec3::Zero());
    solver.setState(s);
  }
  solver.setTargets(dyn::PdTargets{task.targets, {}});
  const FeedbackPolicy& fb = problem.feedback;
  const int32_t period = feedbackPeriodSteps(fb, problem.settings.dt);
  CostTerms cost;
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
    cost.fallen = true;
    cost.total = 1e30;  // unstable: never kept
    return cost;
  }
  const ReferenceMotion& ref = *problem.reference;
  cost = trackingCost(ref.features(solver.state().skeleton), ref.features(referenceEnd), problem.options.weights);
  cost.total = sampleCost(cost, problem.options.weights, problem.options, task.scale);
  return cost;
}
}  // namespace

Vec3 shoveVelocity(const SampleTask& task) {
  uint64_t h = mix(uint64_t(task.window) ^ (uint64_t(uint32_t(task.steps)) << 32));
  for (const Quat& q : task.targets)
    for (const double c : {q.w(), q.x(), q.y(), q.z()}) {
      uint64_t bits;
      std::memcpy(&bits, &c, sizeof bits);
      h = mix(h ^ bits);
    }
  const double angle = 2 * M_PI * double(h >> 11) * 0x1.0p-53;
  return task.shove * Vec3(std::sin(angle), 0, std::cos(angle));
}

namespace {
// The distance between a state and its twin: node velocities and positions
// over 0.1 s, rms over the nodes (m/s).
double twinDistance(const liu2013::Liu2013State& a, const liu2013::Liu2013State& twin) {
  double sum = 0;
  for (size_t i = 0; i < a.x.size(); ++i)
    sum += ((twin.x[i] - a.x[i]) / 0.1).squaredNorm() + (twin.v[i] - a.v[i]).squaredNorm();
  return std::sqrt(sum / double(std::max<size_t>(a.x.size(), 1)));
}

// `base` moved `lambda` of the way toward `twin`: the nodes, the skeleton
// (rotations along the shorter arc) and the friction anchors both hold; the
// rest (plastic and warm-start rotations, contact sources) is `base`'s.
liu2013::Liu2013State towardTwin(const liu2013::Liu2013State& base, const liu2013::Liu2013State& twin, double lambda) {
  liu2013::Liu2013State t = base;
  for (size_t i = 0; i < base.x.size(); ++i) {
    t.x[i] += lambda * (twin.x[i] - base.x[i]);
    t.v[i] += lambda * (twin.v[i] - base.v[i]);
  }
  dyn::ArticulatedState& s = t.skeleton;
  s.rootPosition += lambda * (twin.skeleton.rootPosition - base.skeleton.rootPosition);
  s.velocity += lambda * (twin.skeleton.velocity - base.skeleton.velocity);
  for (size_t l = 0; l < s.rotation.size(); ++l) {
    Quat b = twin.skeleton.rotation[l];
    if (s.rotation[l].dot(b) < 0) b.coeffs() = -b.coeffs();
    s.rotation[l].coeffs() += lambda * (b.coeffs() - s.rotation[l].coeffs());
    s.rotation[l].normalize();
  }
  if (twin.contactSource.size() == base.contactSource.size())
    for (size_t v = 0; v < base.contactSource.size(); ++v)
      if (twin.contactSource[v] == base.contactSource[v])
        t.contactAnchor[v] += lambda * (twin.contactAnchor[v] - base.contactAnchor[v]);
  return t;
}

// The twin a sample starts from: its start's twin pulled back to
// kTangentSize from it (the direction the difference grew into on the way
// here), or, without one, its start shoved by kTangentSize in the task's
// shove direction.
liu2013::Liu2013State twinStart(const SamconProblem& problem, const SearchState& start, const SampleTask& task) {
  if (start.twin) {
    const double d = twinDistance(start.character, *start.twin);
    if (d > 0 && std::isfinite(d)) return towardTwin(start.character, *start.twin, kTangentSize / d);
  }
  liu2013::Liu2013State s = start.character;
  SampleTask unit = task;
  unit.shove = kTangentSize;
  liu2013::addRigidVelocity(*problem.model, s, shoveVelocity(unit), Vec3::Zero(), Vec3::Zero());
  return s;
}
}  // namespace

SampleOutcome SampleRunner::run(const SearchState& start, const SampleTask& task, double referenceEnd) {
  SampleOutcome out;
  const double weight = task.tangentWeight;
  twin.reset();
  // The twin's run first (when the tangent is scored), then the shoved run,
  // so that the solver ends holding the plain run's end (state()).
  std::shared_ptr<liu2013::Liu2013State> twinEnd;
  double twinBefore = 0;
  if (weight > 0) {
    const liu2013::Liu2013State from = twinStart(problem, start, task);
    twinBefore = twinDistance(start.character, from);
    SampleTask plain = task;
    plain.shove = 0;
    if (runOnce(problem, solver, from, plain, referenceEnd, Vec3::Zero()).total != 1e30)
      twinEnd = std::make_shared<liu2013::Liu2013State>(solver.state());
  }
  if (task.shove > 0) out.shoved = runOnce(problem, solver, start.character, task, referenceEnd, shoveVelocity(task));
  out.cost = runOnce(problem, solver, start.character, task, referenceEnd, Vec3::Zero());
  if (task.shove > 0 && out.cost.total != 1e30)
    out.cost.total = out.shoved.total == 1e30 ? 1e30 : 0.5 * (out.cost.total + out.shoved.total);
  if (weight > 0 && out.cost.total != 1e30) {
    // A twin that went unstable where the character did not: grown without bound.
    out.amplification = twinEnd ? twinDistance(solver.state(), *twinEnd) / twinBefore
                                : std::numeric_limits<double>::infinity();
    const double tangent = tangentCost(out.amplification, weight);
    out.cost.total = tangent >= 1e30 ? 1e30 : out.cost.total + tangent;
    twin = std::move(twinEnd);
  }
  return out;
}

double sampleCost(const CostTerms& terms, const CostWeights& weights, const SamconOptions& options, double scale) {
  const double stretch = std::log(scale);
  return weightedTotal(terms, weights) + options.timeScaleWeight * stretch * stretch;
}

double tangentCost(double amplification, double weight) {
  if (!(weight > 0) || amplification <= 1) return 0;
  const double c = weight * std::log(amplification);
  return std::isfinite(c) ? c : 1e30;
}

double scoredCost(const SampleOutcome& o, const WindowScoring& scoring, const SamconOptions& options, double scale) {
  const bool shoved = scoring.shove > 0;
  if (o.cost.total == 1e30 || (shoved && o.shoved.total == 1e30)) return 1e30;
  const double plain = sampleCost(o.cost, scoring.weights, options, scale);
  const double cost = shoved ? 0.5 * (plain + sampleCost(o.shoved, scoring.weights, options, scale)) : plain;
  if (!(scoring.tangentWeight > 0)) return cost;
  const double tangent = tangentCost(o.amplification, scoring.tangentWeight);
  return tangent >= 1e30 ? 1e30 : cost + tangent;
}

// ---------------------------------------------------------------------------
// Threads

namespace {

class ThreadedEvaluator final : public SampleEvaluator {
 public:
  explicit ThreadedEvaluator(int threads)
      : threads_(threads > 0 ? threads : std::max(1, int(std::thread::hardware_concurrency()))) {}
  int workers() const override { return threads_; }

  void evaluate(const SamconProblem& problem, double referenceEnd, const std::vector<SearchState>& starts,
                const std::vector<SampleTask>& tasks, int keep, std::vector<SampleOutcome>& outcomes,
                std::vector<std::pair<int32_t, SearchState>>& kept, const Progress& progress) override {
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
            kept.insert(kept.begin() + (at - bestKeys.begin()), {int32_t(i), runner.end()});
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
  kept_.push_back({{problem_.start, nullptr}, {}, 0.0});
  attempts_.assign(problem_.windows.size(), 0);
  history_.resize(problem_.windows.size() + 1);
  remember();
}

// How many windows back the search may go: backtrackWindows, and further
// for a repeated backtrack (one reach per backtrack allowed, at most
// kBacktrackReach).
int32_t SamconSearch::historyDepth() const {
  const SamconOptions& o = problem_.options;
  return std::max(o.backtrackWindows, 0) * std::clamp(o.backtracks, 1, kBacktrackReach);
}

// The kept set after done_ windows, for backtracking (the last few only;
// none once out of backtracks, when no backtrack will read them again).
void SamconSearch::remember() {
  const SamconOptions& o = problem_.options;
  if (o.backtracks <= 0) return;
  if (backtracks_ >= o.backtracks) {
    for (std::vector<Node>& h : history_) std::vector<Node>().swap(h);
    return;
  }
  history_[size_t(done_)] = kept_;
  const int32_t old = done_ - historyDepth() - 1;
  if (old >= 0) std::vector<Node>().swap(history_[size_t(old)]);
}

// Window `window` went badly (or every sample fell: `kept` empty or fallen):
// go back backtrackWindows windows, or that much further back than the last
// backtrack went when the search has not got past the window that sent it
// back then (as far as the remembered kept sets reach); mark the windows from
// there to this one for a fresh search, and keep what this one found for the
// comparison on the way back. False when out of backtracks.
bool SamconSearch::goBack(int32_t window, std::vector<Node>& kept, WindowReport& report) {
  const SamconOptions& o = problem_.options;
  if (backtracks_ >= o.backtracks) return false;
  const int32_t reach = std::max(o.backtrackWindows, 0);
  int32_t to = window - reach;
  if (window <= lastFrom_) to = std::min(to, lastTo_ - reach);
  to = std::max(to, std::max(0, window - historyDepth()));
  while (to < window && history_[size_t(to)].empty()) ++to;
  if (history_[size_t(to)].empty()) return false;
  ++backtracks_;
  for (int32_t w = to; w <= window; ++w) ++attempts_[size_t(w)];
  pending_.push_back({window, std::move(kept), report});
  kept_ = history_[size_t(to)];
  done_ = to;
  lastFrom_ = std::max(lastFrom_, window);
  lastTo_ = to;
  report.backTo = to;
  if (backtracks_ >= o.backtracks) remember();  // the last backtrack: the history is dropped
  return true;
}

WindowReport SamconSearch::runWindow(const Progress& progress) {
  if (finished()) throw std::logic_error("SamconSearch::runWindow: the search has finished");
  const auto t0 = std::chrono::steady_clock::now();
  const int32_t k = done_;
  const ControlWindow& layout = problem_.windows[size_t(k)];
  const SamconOptions& o = problem_.options;
  const int32_t attempt = attempts_[size_t(k)];
  const int32_t samples = windowSamples(o, attempt);
  const int32_t rounds = std::max(1, std::min(o.rounds, samples));
  const int keep = o.keep;
  std::vector<SearchState> starts;
  for (const Node& n : kept_) starts.push_back(n.state);
  const double referenceEnd = layout.referenceStart + layout.referenceDuration;

  // All rounds' samples, in order; the kept set over all of them by (cost, index).
  std::vector<SampleTask> tasks;
  std::vector<SampleOutcome> outcomes;
  std::vector<std::pair<int32_t, SearchState>> best;
  for (int32_t r = 0; r < rounds; ++r) {
    std::vector<SampleTask> round;
    if (r == 0) {
      round = drawSamples(problem_, k, int32_t(kept_.size()), attempt, samples);
    } else {
      std::vector<const SampleTask*> elite;
      for (const auto& b : best) elite.push_back(&tasks[size_t(b.first)]);
      SampleDistribution d = refinedDistribution(problem_, k, r, elite);
      d.attempt = attempt;
      round = drawSamples(problem_, k, r, samplesInRound(samples, rounds, r), d);
    }
    std::vector<SampleOutcome> roundOutcomes;
    std::vector<std::pair<int32_t, SearchState>> roundBest;
    evaluator_->evaluate(problem_, referenceEnd, starts, round, keep, roundOutcomes, roundBest,
                         progress.sub(double(r) / rounds, double(r + 1) / rounds));
    const int32_t offset = int32_t(tasks.size());
    tasks.insert(tasks.end(), std::make_move_iterator(round.begin()), std::make_move_iterator(round.end()));
    outcomes.insert(outcomes.end(), roundOutcomes.begin(), roundOutcomes.end());
    for (auto& [index, state] : roundBest) best.emplace_back(index + offset, std::move(state));
    std::stable_sort(best.begin(), best.end(), [&](const auto& a, const auto& b) {
      const double ca = outcomes[size_t(a.first)].cost.total, cb = outcomes[size_t(b.first)].cost.total;
      return ca < cb || (ca == cb && a.first < b.first);
    });
    if (int(best.size()) > keep) best.resize(size_t(keep));
  }

  WindowReport report;
  report.window = k;
  report.attempt = attempt;
  report.samples = int32_t(tasks.size());
  for (const SampleOutcome& out : outcomes) report.fallen += out.cost.fallen ? 1 : 0;
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
    report.shovedCost = outcomes[size_t(best.front().first)].shoved.total;
    report.amplification = outcomes[size_t(best.front().first)].amplification;
    report.timeScale = top.steps * problem_.settings.dt / layout.referenceDuration;
  }
  report.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto fell = [](const std::vector<Node>& n) { return n.empty() || n.front().cost >= kFallenCost; };
  auto bestCost = [&](const std::vector<Node>& n) { return fell(n) ? kFallenCost : n.front().cost; };
  // Back at a window that sent the search back: the better search of it goes on.
  if (!pending_.empty() && pending_.back().window == k) {
    if (bestCost(pending_.back().kept) < bestCost(next)) {
      next = std::move(pending_.back().kept);
      report.earlierKept = true;
      report.best = pending_.back().report.best;
      report.shovedCost = pending_.back().report.shovedCost;
      report.amplification = pending_.back().report.amplification;
      report.timeScale = pending_.back().report.timeScale;
    }
    pending_.pop_back();
  }
  const bool bad = fell(next) || (o.backtrackAbove > 0 && next.front().cost > o.backtrackAbove);
  if (bad && goBack(k, next, report)) {
    reports_.push_back(report);
    return report;
  }
  // Out of backtracks: an earlier pass that got past this window with good
  // costs goes on from where it got to, rather than this worse one.
  if (bad && !furthest_.empty() && furthestDone_ > k) {
    kept_ = furthest_;
    done_ = furthestDone_;
    report.backTo = done_;
    report.furthestGood = true;
    std::erase_if(pending_, [&](const Pending& p) { return p.window < done_; });
    forgetHistoryOutsideReach();
    remember();
    reports_.push_back(report);
    return report;
  }
  // Every sample fell (or blew up) and there is no going back: the search
  // cannot go on from here. The window is not kept: the path and states stay
  // those of the windows that worked (an unstable sample's state is not even
  // at the window's end). A window that sent the search back and found a way
  // on is taken up again instead.
  if (fell(next) && !pending_.empty() && !fell(pending_.back().kept)) {
    kept_ = std::move(pending_.back().kept);
    done_ = pending_.back().window + 1;
    report.backTo = done_;
    pending_.pop_back();
    remember();
  } else if (fell(next)) {
    failed_ = true;
  } else {
    kept_ = std::move(next);
    ++done_;
    remember();
    noteGood();
  }
  reports_.push_back(report);
  return report;
}

// The kept set after done_ windows, when it is good and the furthest yet.
void SamconSearch::noteGood() {
  const SamconOptions& o = problem_.options;
  if (o.backtracks <= 0 || !(o.backtrackAbove > 0) || done_ <= furthestDone_) return;
  if (kept_.front().cost > o.backtrackAbove) return;
  furthest_ = kept_;
  furthestDone_ = done_;
}

// After a jump ahead: the remembered sets a backtrack from here cannot reach
// are dropped (an earlier pass's, past or before the reach).
void SamconSearch::forgetHistoryOutsideReach() {
  for (int32_t d = 0; d < int32_t(history_.size()); ++d)
    if (d < done_ - historyDepth() || d > done_) std::vector<Node>().swap(history_[size_t(d)]);
}

std::vector<ControlWindow> SamconSearch::best() const { return kept_.front().path; }

std::vector<std::vector<ControlWindow>> SamconSearch::keptPaths() const {
  std::vector<std::vector<ControlWindow>> paths;
  for (const Node& n : kept_) paths.push_back(n.path);
  return paths;
}

std::vector<SamconSearch::Replayed> SamconSearch::replay(const std::vector<std::vector<ControlWindow>>& paths,
                                                        const Progress& progress,
                                                        const std::vector<WindowScoring>& saved) {
  const double dt = problem_.settings.dt;
  size_t windows = 0;
  for (const auto& path : paths) windows = std::max(windows, path.size());
  // The paths share their beginnings: level by level, each distinct window
  // (after the same parent) is simulated once. `at[p]`: path p's node on the
  // current level; a path that has ended keeps its end (a path of no
  // windows: the start).
  std::vector<Replayed> ends(paths.size());
  for (size_t p = 0; p < paths.size(); ++p)
    if (paths[p].empty()) ends[p].node = {{problem_.start, nullptr}, {}, 0.0};
  std::vector<Node> level{{{problem_.start, nullptr}, {}, 0.0}};
  std::vector<int32_t> at(paths.size(), 0);
  for (size_t k = 0; k < windows; ++k) {
    const ControlWindow& layout = problem_.windows[k];
    std::vector<SampleTask> tasks;
    std::vector<int32_t> next(paths.size(), -1);
    for (size_t p = 0; p < paths.size(); ++p) {
      if (paths[p].size() <= k) continue;
      const ControlWindow& w = paths[p][k];
      if (w.referenceStart != layout.referenceStart || w.referenceDuration != layout.referenceDuration ||
          w.targets.size() != layout.targets.size())
        throw InputError("--resume", "window " + std::to_string(k + 1) + " of the saved search does not match this segment's windows");
      int32_t found = -1;
      for (size_t q = 0; q < p && found < 0; ++q)
        if (next[q] >= 0 && at[q] == at[p] && paths[q][k] == w) found = next[q];
      if (found < 0) {
        SampleTask t;
        t.window = int32_t(k);
        t.parent = at[p];
        t.steps = std::max(1, int32_t(std::lround(w.duration / dt)));
        t.scale = t.steps * dt / layout.referenceDuration;
        t.targets = w.targets;
        t.shove = k < saved.size() ? saved[k].shove : problem_.options.scoreShove;
        t.tangentWeight = k < saved.size() ? saved[k].tangentWeight : problem_.options.tangentWeight;
        found = int32_t(tasks.size());
        tasks.push_back(std::move(t));
      }
      next[p] = found;
    }
    std::vector<SearchState> starts;
    for (const Node& n : level) starts.push_back(n.state);
    std::vector<SampleOutcome> outcomes;
    std::vector<std::pair<int32_t, SearchState>> states;
    evaluator_->evaluate(problem_, layout.referenceStart + layout.referenceDuration, starts, tasks, int(tasks.size()),
                         outcomes, states, progress.sub(double(k) / windows, double(k + 1) / windows));
    std::vector<Node> nodes(tasks.size());
    for (auto& [index, state] : states) nodes[size_t(index)].state = std::move(state);
    for (size_t p = 0; p < paths.size(); ++p) {
      if (next[p] < 0) continue;
      Node& n = nodes[size_t(next[p])];
      const ControlWindow& w = paths[p][k];
      if (n.path.empty() && k > 0) n.path = level[size_t(at[p])].path;
      if (n.path.size() == k) {
        const SampleOutcome& o = outcomes[size_t(next[p])];
        const SampleTask& t = tasks[size_t(next[p])];
        const double replayed =
            k < saved.size() ? scoredCost(o, saved[k], problem_.options, t.scale) : o.cost.total;
        if (replayed != w.cost)
          throw InputError("--resume", "window " + std::to_string(k + 1) + " replays to cost " + std::to_string(replayed) +
                                           ", not the saved " + std::to_string(w.cost) +
                                           ": the character, its scene or the solver changed since the search stopped");
        n.cost = o.cost.total;  // ranked under this search's weights and the saved shove and tangent (the saved cost when they are the same)
        n.path.push_back(w);
      }
      if (paths[p].size() == k + 1) ends[p] = {n, outcomes[size_t(next[p])].cost};
    }
    level = std::move(nodes);
    for (size_t p = 0; p < paths.size(); ++p)
      if (next[p] >= 0) at[p] = next[p];
  }
  return ends;
}

void SamconSearch::resume(const std::vector<std::vector<ControlWindow>>& kept, const Progress& progress,
                          const std::vector<WindowScoring>& saved, const SearchBacktrackRecord& record) {
  if (done_ != 0) throw std::logic_error("SamconSearch::resume: the search has already run");
  if (kept.empty() || (kept.front().empty() && record.empty()))
    throw InputError("--resume", "the saved search has no kept states");
  const size_t windows = kept.front().size();
  if (windows > problem_.windows.size())
    throw InputError("--resume", "the saved search has " + std::to_string(windows) + " windows; this segment has " +
                                     std::to_string(problem_.windows.size()));
  for (const auto& path : kept)
    if (path.size() != windows) throw InputError("--resume", "the saved kept paths differ in length");
  // The kept set's paths, then those of the record's sets.
  std::vector<std::vector<ControlWindow>> paths = kept;
  if (!record.empty()) {
    if (record.attempts.size() != problem_.windows.size())
      throw InputError("--resume", "the saved backtracking record has " + std::to_string(record.attempts.size()) +
                                       " windows; this segment has " + std::to_string(problem_.windows.size()));
    if (problem_.options.backtracks <= 0) throw InputError("--resume", "the saved search backtracks; this one does not");
    if (record.parent.size() != record.nodes.size())
      throw InputError("--resume", "the saved backtracking record's tree has a parent per node");
    for (size_t i = 0; i < record.parent.size(); ++i)
      if (record.parent[i] < -1 || record.parent[i] >= int32_t(i))
        throw InputError("--resume", "the saved backtracking record's node " + std::to_string(i) + " follows no earlier node");
    const std::vector<SearchBacktrackRecord::KeptSet> furthest{record.furthest};
    for (const auto* sets : {&record.remembered, &record.pending, &furthest})
      for (const SearchBacktrackRecord::KeptSet& set : *sets) {
        // A remembered (or the furthest) set is `window` windows long, a pending one window + 1.
        const size_t length = size_t(set.window) + (sets == &record.pending ? 1 : 0);
        if (length > problem_.windows.size())
          throw InputError("--resume", "a kept set of the saved backtracking record lies past the segment's end");
        for (int32_t leaf : set.leaves) {
          if (leaf < -1 || leaf >= int32_t(record.nodes.size()))
            throw InputError("--resume", "a kept set of the saved backtracking record names a node it does not have");
          paths.push_back(record.path(leaf));
          if (paths.back().size() != length)
            throw InputError("--resume", "a kept set of the saved backtracking record has a path of " +
                                             std::to_string(paths.back().size()) + " windows, not " + std::to_string(length));
        }
      }
  }
  std::vector<Replayed> ends = replay(paths, progress, saved);
  size_t next = 0;
  auto take = [&](size_t count) {
    std::vector<Node> set;
    for (size_t i = 0; i < count; ++i) set.push_back(std::move(ends[next++].node));
    return set;
  };
  kept_ = take(kept.size());
  done_ = int32_t(windows);
  failed_ = kept_.front().cost >= kFallenCost;
  // A backtrack never reaches before the windows taken over (a redone
  // search keeps them): only the sets remembered from here on, or exactly
  // those the saved search remembered (a backtrack skips the empty ones).
  for (std::vector<Node>& h : history_) std::vector<Node>().swap(h);
  if (!record.empty()) {
    for (const SearchBacktrackRecord::KeptSet& set : record.remembered) history_[size_t(set.window)] = take(set.leaves.size());
    for (const SearchBacktrackRecord::KeptSet& set : record.pending) {
      Pending p{set.window, {}, {}};
      p.report.window = set.window;
      if (!set.leaves.empty()) {
        // What the window's search reported, from the replay of its best sample.
        const ControlWindow& w = paths[next].back();
        p.report.best = ends[next].terms;
        p.report.timeScale = std::max(1, int32_t(std::lround(w.duration / problem_.settings.dt))) *
                             problem_.settings.dt / w.referenceDuration;
      }
      p.kept = take(set.leaves.size());
      pending_.push_back(std::move(p));
    }
    furthest_ = take(record.furthest.leaves.size());
    furthestDone_ = furthest_.empty() ? 0 : record.furthest.window;
    attempts_ = record.attempts;
    backtracks_ = record.used;
    lastFrom_ = record.lastFrom;
    lastTo_ = record.lastTo;
  }
  remember();
}

SearchBacktrackRecord SamconSearch::backtrackRecord() const {
  SearchBacktrackRecord r;
  if (problem_.options.backtracks <= 0) return r;
  r.attempts = attempts_;
  r.used = backtracks_;
  r.lastFrom = lastFrom_;
  r.lastTo = lastTo_;
  // Each path into the tree, sharing the windows it has in common with
  // earlier ones: children[n + 1] are node n's (children[0] the start's).
  std::vector<std::vector<int32_t>> children(1);
  auto leaf = [&](const std::vector<ControlWindow>& path) {
    int32_t at = -1;
    for (const ControlWindow& w : path) {
      std::vector<int32_t>& siblings = children[size_t(at + 1)];
      auto found = std::find_if(siblings.begin(), siblings.end(), [&](int32_t c) { return r.nodes[size_t(c)] == w; });
      if (found != siblings.end()) {
        at = *found;
        continue;
      }
      const int32_t node = int32_t(r.nodes.size());
      r.nodes.push_back(w);
      r.parent.push_back(at);
      siblings.push_back(node);
      children.emplace_back();
      at = node;
    }
    return at;
  };
  auto set = [&](int32_t window, const std::vector<Node>& nodes) {
    SearchBacktrackRecord::KeptSet k{window, {}};
    for (const Node& n : nodes) k.leaves.push_back(leaf(n.path));
    return k;
  };
  // The remembered sets a backtrack from here can reach (goBack), as they are.
  for (int32_t d = std::max(0, done_ - historyDepth()); d <= done_; ++d)
    if (!history_[size_t(d)].empty()) r.remembered.push_back(set(d, history_[size_t(d)]));
  for (const Pending& p : pending_) r.pending.push_back(set(p.window, p.kept));
  if (!furthest_.empty()) r.furthest = set(furthestDone_, furthest_);
  return r;
}

const liu2013::Liu2013State& SamconSearch::bestState() const { return kept_.front().state.character; }

}  // namespace sinew::control
