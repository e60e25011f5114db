#pragma once
//! \file KnownSolutions.hpp
//! Final kinetic energies published with the CloverLeaf 3D reference code
//! (UK-MAC CloverLeaf3D_ref), by test problem number: a run with
//! `test_problem: N` compares against them as the reference code does
//! (PASSED within 0.001 %).

#include <optional>
#include <string>

namespace strata::cloverleaf {

struct KnownSolution {
  int problem;
  double kinetic_energy;  //!< at the final step
};

//! 1: the reference's clover.in test (state 2 cuboid [0,5]x[0,2]x[0,2], dt 0.04, 75 steps);
//! 2: clover_bm_short (96^3 on [0,10]^3, state 2 [0,5]x[0,2]x[0,4], dt 0.1, 87 steps).
inline constexpr KnownSolution known_solutions[] = {
    {1, 3.64560737191257},  // inputs/clover_test1.in
    {2, 20.0546870878964},  // inputs/clover_bm_short.in
};

//! Relative tolerance of the PASSED verdict (the reference's 0.001 %).
inline constexpr double known_solution_tolerance = 1e-5;

inline std::optional<double> known_kinetic_energy(int problem) {
  for (const KnownSolution& s : known_solutions)
    if (s.problem == problem) return s.kinetic_energy;
  return std::nullopt;
}

inline std::string known_problem_list() {
  std::string list;
  for (const KnownSolution& s : known_solutions) list += (list.empty() ? "" : ", ") + std::to_string(s.problem);
  return list;
}

}  // namespace strata::cloverleaf
