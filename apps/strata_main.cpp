//! The `strata` executable (apps/Driver.hpp).

#include "apps/Driver.hpp"

int main(int argc, char* argv[]) { return strata::strata_main(argc, argv); }
