// The source tree's path is compiled into this file alone, so every other
// test source compiles the same wherever the tree is (a compiler cache
// shares their objects between clones).
#include "tests/TestData.hpp"

#include <cstdlib>

namespace strata::test {

std::string data_dir() {
  const char* moved = std::getenv("STRATA_TEST_DATA_DIR");
  return moved && *moved ? moved : STRATA_TEST_DATA_DIR;
}

}  // namespace strata::test
