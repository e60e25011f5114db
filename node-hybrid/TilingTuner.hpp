#pragma once
//! \file TilingTuner.hpp
//! The shape of a time-tiled cycle, measured where the run is: steps per
//! cycle and rows per host tile (whole rows along x), found by a pattern
//! search on the run's own cycles. Each candidate runs whole cycles of at
//! least a few steps (tiling is exact, so trying costs no accuracy), after
//! a warm-up cycle where its cycle length is new (the fields are regrown,
//! and the first cycle runs slower), or of a quarter of them where those
//! already run `clearly_slower` than the fastest so far (a short cycle far
//! from the best, one-step cycles at twice its time, would otherwise cost
//! the run much of the search's cost); from the start, the search measures the neighbours
//! of the fastest candidate so far (twice and half the steps, twice and
//! half the rows, twice both and half both; one cycle length at a time), moving to the
//! fastest measured, and stops where none is faster and every cycle length
//! has been measured at the rows found. Before it
//! stops, it measures once more each neighbour that came within
//! `close_call` of the fastest: a cycle slowed by something else on the
//! machine (timing noise only ever slows) would otherwise end the search
//! short of a better shape; a candidate keeps its fastest measurement.
//! Which shape wins depends on the caches and bandwidth of the processor at
//! hand, which no model of one cache level predicts. Every rank must cycle
//! alike, so the seconds it is given are the slowest rank's.

#include "framework/TimeTilingSettings.hpp"

#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace strata {

//! Where the search starts along the steps: the longest cycle `auto` tries,
//! the choice on most processors measured (docs/time-tiling.md), so that
//! the search there ends after one ring of neighbours (a box that holds
//! fewer starts at the most it holds).
inline constexpr int first_tiled_steps = most_auto_tiled_steps;

//! Steps per tiled cycle and rows per host tile (0: no rows to choose: no
//! host tiles, or the deck gives the tile).
struct TilingChoice {
  int steps = 1;
  int rows = 0;
  bool operator==(const TilingChoice& o) const { return steps == o.steps && rows == o.rows; }
};

class TilingTuner {
 public:
  struct Trial {
    TilingChoice choice;
    double seconds_per_step;
  };
  //! Trials as numbers (steps, rows, seconds per step each), as the tune
  //! cache and MPI carry them, and back.
  static std::vector<double> numbers_of(const std::vector<Trial>& trials);
  static std::vector<Trial> trials_of(const std::vector<double>& numbers);

  //! The candidates are `steps` by `rows` (each ascending; {0} where rows are
  //! not chosen); the search starts at `start`, each candidate measured
  //! over cycles of at least `min_steps` steps in all. A single candidate
  //! is taken without measuring.
  TilingTuner(std::vector<int> steps, std::vector<int> rows, TilingChoice start, int min_steps = 8);

  //! Steps 1, 2, 4, ... up to `most` (and `most`).
  static std::vector<int> powers_of_two_up_to(int most);

  //! The shape of the coming cycle (the candidate being measured while tuning).
  TilingChoice current() const { return chosen_ ? *chosen_ : at(tuning() ? queue_.front() : centre_); }
  bool tuning() const { return !queue_.empty(); }

  //! Whether cycles of `steps` steps in all since the last measured() end
  //! the current measurement, or its first quarter, which may end it: a
  //! warm-up cycle, or the candidate's steps so far.
  bool ends_measurement(int steps) const { return warmup_left_ > 0 || measured_steps_ + steps >= next_check(); }

  //! Cycles of `steps` steps in all took `seconds` on the slowest rank.
  void measured(int steps, double seconds);

  //! A neighbour this much slower than the fastest, or less, is measured again before the choice.
  static constexpr double close_call = 1.2;
  //! A candidate whose first quarter of steps runs this much slower than
  //! the fastest so far is recorded there (well beyond a close call: noise
  //! of that size in a few steps is rare, and a close call stays one).
  static constexpr double clearly_slower = 1.5;

  //! Measurements so far, in the order made (a close call's twice).
  const std::vector<Trial>& trials() const { return trials_; }
  //! Candidates measured so far.
  int candidates() const { return int(seconds_.size()); }
  //! The choice, once the search has made it, and its measured seconds per step.
  const std::optional<TilingChoice>& chosen() const { return chosen_; }
  double chosen_seconds_per_step() const { return chosen_seconds_; }

  //! Takes `choice` without measuring (an earlier run's, from the tune
  //! cache, that every rank agrees on).
  void adopt(const TilingChoice& choice);
  bool adopted() const { return adopted_; }

  //! Goes on from the trials of a search an earlier run left unfinished
  //! (the tune cache's progress, the same on every rank): takes them as
  //! measured here while each is the candidate the search would measure
  //! next, so the search continues as if it had not stopped.
  void resume(const std::vector<Trial>& earlier);
  //! Trials taken from an earlier run.
  int resumed() const { return resumed_; }

 private:
  using Point = std::pair<int, int>;  // indices into steps_, rows_
  TilingChoice at(const Point& p) const { return {steps_[p.first], rows_[p.second]}; }
  std::vector<Point> neighbours(const Point& p) const;
  // Queues the unmeasured neighbours of the fastest point measured, moving
  // there, until some are queued or the centre is the fastest of its
  // neighbourhood and of every cycle length at its rows (the choice).
  void search_on();
  // The candidate at the front of the queue took `per_step` seconds a step.
  void record(double per_step);
  // Steps measured at which the current measurement is looked at next:
  // its first quarter, where another candidate has been measured, then all.
  int next_check() const {
    const int quarter = (min_steps_ + 3) / 4;
    return seconds_.empty() || measured_steps_ >= quarter ? min_steps_ : quarter;
  }
  // The fastest point measured, the centre where others tie with it (the
  // centre is measured once anything is).
  Point fastest_measured() const;

  std::vector<int> steps_, rows_;
  int min_steps_;
  Point centre_;
  std::vector<Point> queue_;  // front: being measured
  std::map<Point, double> seconds_;  // the fastest measurement of each
  std::set<Point> measured_again_;
  std::vector<Trial> trials_;
  std::optional<TilingChoice> chosen_;
  double chosen_seconds_ = 0.0;
  int warmup_left_ = 1, measured_steps_ = 0;
  double measured_seconds_ = 0.0;
  bool adopted_ = false;
  int resumed_ = 0;
};

}  // namespace strata
