#pragma once
//! \file NumberText.hpp
//! Numbers as messages print them.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace strata {

//! Six significant digits, no trailing zeros (0.8, 1e-07, 3.75e+09), so
//! tiny and huge values stay readable.
inline std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

//! The shortest text that reads back as the same double (0.7, not
//! 0.69999999999999996), without an exponent from 1 to 1e15 (2000, not
//! 2e+03): a value as a deck would give it.
inline std::string shortest_number_text(double v) {
  char text[32];
  int digits = 0;
  do
    std::snprintf(text, sizeof text, "%.*g", ++digits, v);
  while (digits < 17 && std::strtod(text, nullptr) != v);
  const bool plain_range = std::fabs(v) >= 1.0 && std::fabs(v) < 1e15;
  while (plain_range && std::strchr(text, 'e') && digits < 17) std::snprintf(text, sizeof text, "%.*g", ++digits, v);
  return text;
}

}  // namespace strata
