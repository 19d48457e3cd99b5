// Sample evaluation over MPI ranks for `mpirun -np K sinew-cli optimize` (MpiEvaluator.h).
#include "MpiEvaluator.h"

#include "core/Error.h"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace sinew::cli {

bool launchedByMpirun() { return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr; }

MpiSession::MpiSession() {
  int ready = 0;
  MPI_Initialized(&ready);
  if (!ready) MPI_Init(nullptr, nullptr);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
}

MpiSession::~MpiSession() {
  int done = 0;
  MPI_Finalized(&done);
  if (!done) MPI_Finalize();
}

namespace {

// Per sample, of the plain run then the shoved one: pose, root, position,
// end effector, balance, velocity, fallen, total; then the twin's growth.
constexpr int kRunTerms = 8, kTerms = 2 * kRunTerms + 1;

void toRow(const control::CostTerms& c, double* row) {
  const double terms[kRunTerms] = {c.pose, c.root, c.position, c.endEffector, c.balance, c.velocity, c.fallen ? 1.0 : 0.0, c.total};
  std::copy(terms, terms + kRunTerms, row);
}

void fromRow(const double* t, control::CostTerms& c) {
  c.pose = t[0], c.root = t[1], c.position = t[2], c.endEffector = t[3], c.balance = t[4], c.velocity = t[5];
  c.fallen = t[6] != 0.0;
  c.total = t[7];
}

// `bytes` from rank `owner` to every rank.
void broadcast(std::vector<uint8_t>& bytes, int owner) {
  uint64_t length = bytes.size();
  MPI_Bcast(&length, 1, MPI_UINT64_T, owner, MPI_COMM_WORLD);
  bytes.resize(size_t(length));
  if (length > 0) MPI_Bcast(bytes.data(), int(length), MPI_BYTE, owner, MPI_COMM_WORLD);
}

class MpiEvaluator final : public control::SampleEvaluator {
 public:
  explicit MpiEvaluator(const MpiSession& s) : rank_(s.rank), size_(s.size) {}
  int workers() const override { return size_; }

  void evaluate(const control::SamconProblem& problem, double referenceEnd,
                const std::vector<control::SearchState>& starts, const std::vector<control::SampleTask>& tasks, int keep,
                std::vector<control::SampleOutcome>& outcomes,
                std::vector<std::pair<int32_t, control::SearchState>>& kept, const Progress& progress) override {
    (void)progress;  // every rank must finish the window together: no cancellation inside one
    if (!runner_ || &runner_->problem != &problem) runner_ = std::make_unique<control::SampleRunner>(problem);
    const size_t n = tasks.size();
    std::vector<double> terms(n * kTerms, 0.0);
    // This rank's samples; it keeps the end states of its own best `keep`
    // (the global best are among the union of these).
    std::vector<std::pair<std::pair<double, int32_t>, control::SearchState>> mine;
    for (size_t i = size_t(rank_); i < n; i += size_t(size_)) {
      const control::SampleOutcome o = runner_->run(starts.at(size_t(tasks[i].parent)), tasks[i], referenceEnd);
      toRow(o.cost, terms.data() + i * kTerms);
      toRow(o.shoved, terms.data() + i * kTerms + kRunTerms);
      terms[i * kTerms + 2 * kRunTerms] = o.amplification;
      const std::pair<double, int32_t> key{o.cost.total, int32_t(i)};
      if (int(mine.size()) < keep || key < mine.back().first) {
        const auto at = std::lower_bound(mine.begin(), mine.end(), key, [](const auto& e, const auto& k) { return e.first < k; });
        mine.insert(at, {key, runner_->end()});
        if (int(mine.size()) > keep) mine.pop_back();
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, terms.data(), int(terms.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    outcomes.assign(n, {});
    std::vector<double> costs(n);
    for (size_t i = 0; i < n; ++i) {
      fromRow(terms.data() + i * kTerms, outcomes[i].cost);
      fromRow(terms.data() + i * kTerms + kRunTerms, outcomes[i].shoved);
      outcomes[i].amplification = terms[i * kTerms + 2 * kRunTerms];
      costs[i] = outcomes[i].cost.total;
    }
    // The kept set, as every rank sees it; each state from its owner.
    kept.clear();
    for (const int32_t index : control::selectBest(costs, keep)) {
      const int owner = int(index % size_);
      // The character's state, then its twin's (none: no bytes).
      std::vector<uint8_t> bytes, twin;
      if (owner == rank_) {
        const auto it = std::find_if(mine.begin(), mine.end(), [&](const auto& e) { return e.first.second == index; });
        if (it == mine.end()) MPI_Abort(MPI_COMM_WORLD, 3);  // cannot happen: the global best are locally best
        bytes = liu2013::stateToBytes(it->second.character);
        if (it->second.twin) twin = liu2013::stateToBytes(*it->second.twin);
      }
      broadcast(bytes, owner);
      broadcast(twin, owner);
      control::SearchState s{liu2013::stateFromBytes(bytes.data(), bytes.size()), nullptr};
      if (!twin.empty()) s.twin = std::make_shared<const liu2013::Liu2013State>(liu2013::stateFromBytes(twin.data(), twin.size()));
      kept.emplace_back(index, std::move(s));
    }
  }

 private:
  int rank_, size_;
  std::unique_ptr<control::SampleRunner> runner_;
};

}  // namespace

std::unique_ptr<control::SampleEvaluator> makeMpiEvaluator(const MpiSession& session) {
  return std::make_unique<MpiEvaluator>(session);
}

}  // namespace sinew::cli
