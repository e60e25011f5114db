#pragma once
//! \file TestData.hpp
//! Where the tests' decks and reference data are: the source tree's tests/
//! folder, or STRATA_TEST_DATA_DIR in the environment where the test
//! executables run away from the tree they were built in (a GPU bundle
//! unpacked on another machine: scripts/gpu-bundle.sh).

#include <string>

namespace strata::test {

std::string data_dir();

}  // namespace strata::test
