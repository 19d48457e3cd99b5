// Sample evaluation over MPI ranks (OpenMPI), for `mpirun -np K sinew-cli
// optimize ...`. Every rank runs the same search (SPMD): the windows, the
// samples and their random streams are the same on all of them; rank r
// simulates samples r, r + K, r + 2K, ...; the cost terms are summed over the
// ranks (each slot has one non-zero contributor, so the sum is exact); every
// rank chooses the kept set by (cost, index) as the threaded evaluator does,
// and each kept end state is broadcast from the rank that simulated it. The
// result is the threaded run's, bit for bit.
#pragma once

#include "control/Samcon.h"

#include <memory>

namespace sinew::cli {

// True when this process was started by mpirun (OpenMPI's environment).
bool launchedByMpirun();

// MPI for the life of the process: MPI_Init on first use, MPI_Finalize at exit.
struct MpiSession {
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank = 0, size = 1;
};

std::unique_ptr<control::SampleEvaluator> makeMpiEvaluator(const MpiSession& session);

}  // namespace sinew::cli
