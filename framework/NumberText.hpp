#pragma once
//! \file NumberText.hpp
//! A number as messages print it: six significant digits, no trailing zeros
//! (0.8, 1e-07, 3.75e+09), so tiny and huge values stay readable.

#include <cstdio>
#include <string>

namespace strata {

inline std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

}  // namespace strata
