#include "framework/RankAgreement.hpp"

namespace strata {

bool all_ranks_ok(MPI_Comm comm, const std::optional<std::string>& failure, std::ostream& err) {
  int rank = 0;
  STRATA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  int size = 1;
  STRATA_MPI_CHECK(MPI_Comm_size(comm, &size));
  int first_failed = failure ? rank : size;
  STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first_failed, 1, MPI_INT, MPI_MIN, comm));
  if (first_failed == size) return true;
  if (rank == first_failed) err << *failure << std::endl;
  return false;
}

}  // namespace strata
