#include "framework/StopSignals.hpp"

#include "framework/Error.hpp"

#include <string>

namespace strata {

namespace {

constexpr int stop_signals[3] = {SIGTERM, SIGUSR1, SIGINT};

volatile std::sig_atomic_t caught = 0;

// Async-signal-safe: a flag, or at a second signal the default action.
extern "C" void catch_stop_signal(int signal) {
  if (caught != 0) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  caught = signal;
}

}  // namespace

StopSignalHandlers::StopSignalHandlers() {
  caught = 0;
  struct sigaction action {};
  action.sa_handler = catch_stop_signal;
  sigemptyset(&action.sa_mask);
  // System calls interrupted by the signal (MPI's, file I/O) resume.
  action.sa_flags = SA_RESTART;
  for (int n = 0; n < 3; ++n) sigaction(stop_signals[n], &action, &previous_[n]);
}

StopSignalHandlers::~StopSignalHandlers() {
  for (int n = 0; n < 3; ++n) sigaction(stop_signals[n], &previous_[n], nullptr);
}

int stop_signal_caught() { return caught; }

std::string signal_name(int signal) {
  switch (signal) {
    case SIGTERM: return "SIGTERM";
    case SIGUSR1: return "SIGUSR1";
    case SIGINT: return "SIGINT";
    default: return "signal " + std::to_string(signal);
  }
}

StopSignalAgreement::StopSignalAgreement(MPI_Comm comm) {
  // Its own communicator, so the reductions in flight never meet the app's collectives.
  STRATA_MPI_CHECK(MPI_Comm_dup(comm, &comm_));
}

StopSignalAgreement::~StopSignalAgreement() {
  if (request_ != MPI_REQUEST_NULL) MPI_Wait(&request_, MPI_STATUS_IGNORE);
  MPI_Comm_free(&comm_);
}

int StopSignalAgreement::poll() {
  if (request_ != MPI_REQUEST_NULL) STRATA_MPI_CHECK(MPI_Wait(&request_, MPI_STATUS_IGNORE));
  const int previous = agreed_;
  caught_ = stop_signal_caught();
  STRATA_MPI_CHECK(MPI_Iallreduce(&caught_, &agreed_, 1, MPI_INT, MPI_MAX, comm_, &request_));
  return previous;
}

}  // namespace strata
