#pragma once
//! \file StopSignals.hpp
//! Signals that ask a run to stop early (a batch system's time limit, a
//! user's Ctrl-C): caught while the time loop runs, agreed on by every rank
//! at a cycle's end, so the run ends at the same step everywhere with a
//! checkpoint to continue from instead of being killed mid-step.
//!
//! SIGTERM (Slurm at the time limit, `scancel`), SIGUSR1 (`sbatch
//! --signal=USR1@SECONDS`, forwarded by `mpiexec`) and SIGINT are caught; a
//! second one ends the process at once, as if uncaught.

#include <mpi.h>

#include <csignal>
#include <string>

namespace strata {

//! Installs the handlers for its lifetime and restores the previous ones.
class StopSignalHandlers {
 public:
  StopSignalHandlers();
  ~StopSignalHandlers();
  StopSignalHandlers(const StopSignalHandlers&) = delete;
  StopSignalHandlers& operator=(const StopSignalHandlers&) = delete;

 private:
  struct sigaction previous_[3];
};

//! The first stop signal this process caught since the handlers were
//! installed, 0 for none.
int stop_signal_caught();

//! "SIGTERM", "SIGUSR1", "SIGINT" or "signal N".
std::string signal_name(int signal);

//! Whether any rank of a communicator has caught a stop signal, agreed on
//! without a blocking collective per cycle: each poll posts this rank's
//! signal in a nonblocking reduction and returns the previous poll's
//! result, so every rank learns it at the same poll, one cycle late.
class StopSignalAgreement {
 public:
  explicit StopSignalAgreement(MPI_Comm comm);  //!< collective (duplicates comm)
  ~StopSignalAgreement();                       //!< collective
  StopSignalAgreement(const StopSignalAgreement&) = delete;
  StopSignalAgreement& operator=(const StopSignalAgreement&) = delete;

  //! Collective, once per cycle on every rank: the largest signal number
  //! caught on any rank by the previous poll, 0 for none.
  int poll();

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Request request_ = MPI_REQUEST_NULL;
  int caught_ = 0;  //!< this rank's contribution in flight
  int agreed_ = 0;  //!< the reduction's result
};

}  // namespace strata
