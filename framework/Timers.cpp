#include "framework/Timers.hpp"

#include "framework/Error.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <set>
#include <sstream>
#include <vector>

namespace strata {

Timers::Scope::Scope(Timers& timers, const std::string& name)
    : timers_(timers), name_(name), start_(Timers::now()) {
  timers_.inner_seconds_.push_back(0.0);
  Kokkos::Profiling::pushRegion(name_);
}

Timers::Scope::~Scope() {
  Kokkos::Profiling::popRegion();
  const double seconds = Timers::now() - start_;
  timers_.add(name_, seconds - timers_.inner_seconds_.back());
  timers_.inner_seconds_.pop_back();
  if (!timers_.inner_seconds_.empty()) timers_.inner_seconds_.back() += seconds;
}

void Timers::add(const std::string& name, double seconds) { seconds_[name] += seconds; }

double Timers::seconds(const std::string& name) const {
  const auto it = seconds_.find(name);
  return it == seconds_.end() ? 0.0 : it->second;
}

std::map<std::string, TimerStats> Timers::reduce(MPI_Comm comm) const {
  int size = 1, rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_size(comm, &size));
  STRATA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  // Union of the names: ranks may have timed different phases.
  std::string names;
  for (const auto& entry : seconds_) names += entry.first + '\n';
  int length = int(names.size());
  std::vector<int> lengths(size), offsets(size);
  STRATA_MPI_CHECK(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm));
  int total = 0;
  for (int r = 0; r < size; ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::string all(total, '\0');
  STRATA_MPI_CHECK(MPI_Allgatherv(names.data(), length, MPI_CHAR, all.data(), lengths.data(),
                                  offsets.data(), MPI_CHAR, comm));
  std::set<std::string> union_names;
  std::istringstream in(all);
  for (std::string name; std::getline(in, name);) union_names.insert(name);

  std::map<std::string, TimerStats> stats;
  for (const std::string& name : union_names) {
    const double mine = seconds(name);
    TimerStats s;
    struct {
      double value;
      int rank;
    } max_loc{mine, rank};
    STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &max_loc, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm));
    STRATA_MPI_CHECK(MPI_Allreduce(&mine, &s.min, 1, MPI_DOUBLE, MPI_MIN, comm));
    STRATA_MPI_CHECK(MPI_Allreduce(&mine, &s.mean, 1, MPI_DOUBLE, MPI_SUM, comm));
    s.mean /= size;
    s.max = max_loc.value;
    s.max_rank = max_loc.rank;
    if (rank == 0) s.per_rank.resize(size);
    STRATA_MPI_CHECK(MPI_Gather(&mine, 1, MPI_DOUBLE, s.per_rank.data(), 1, MPI_DOUBLE, 0, comm));
    stats[name] = s;
  }
  return stats;
}

double Timers::now() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

}  // namespace strata
