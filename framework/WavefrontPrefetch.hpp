#pragma once
//! \file WavefrontPrefetch.hpp
//! What a host tile's next wavefront step reads from memory, requested
//! while the current step computes. A tiled cycle (framework/TiledKernel.hpp)
//! reads memory only in its first level, level 0's next plane; the levels
//! after it run from cache while the memory idles. Left to the hardware,
//! the first level waits on its reads. Requested a few lines after every
//! row the step computes, the next step's reads overlap all of this step's
//! levels and reach the core's outer cache before they are needed. (The
//! last level's writes are left to the hardware: requesting their lines
//! for writing as well ran slower, heat3d's and cardiac's tiles alike.)

#include "framework/StepUpdate.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace strata::Impl {

template <int N>
class WavefrontPrefetch {
 public:
  //! The cells [x0, x1) x [y0, y1) of plane k; none where y1 <= y0.
  struct PlaneRows {
    int x0 = 0, x1 = 0, y0 = 0, y1 = 0, k = 0;
    KOKKOS_INLINE_FUNCTION int rows() const { return y1 > y0 ? y1 - y0 : 0; }
  };

  KOKKOS_INLINE_FUNCTION explicit WavefrontPrefetch(const StateIn<N>& in) : in_(in) {}

  //! A step that computes `rows_computed` rows begins: it requests `read`
  //! of every input field.
  KOKKOS_INLINE_FUNCTION void start_step(const PlaneRows& read, int rows_computed) {
    read_ = read;
    lines_ = N * read.rows() * lines_in_row(read);
    owed_ = 0;
    rows_computed_ = rows_computed > 0 ? rows_computed : 1;
    row_ = -1;
    if (!next_row()) lines_ = 0;
  }

  //! Lines requested since construction.
  KOKKOS_INLINE_FUNCTION long requested() const { return requested_; }

  //! After each row the step computes: its share of the lines, a few at a
  //! time (a core has a few line fill buffers; a burst of requests would
  //! wait for them), so that the last row computed has requested them all.
  KOKKOS_FORCEINLINE_FUNCTION void after_row() {
    owed_ += lines_;
    while (owed_ >= rows_computed_) {
      owed_ -= rows_computed_;
      if (line_ > end_ && !next_row()) return;
      request_line();
      line_ += line_bytes;
      ++requested_;
    }
  }

 private:
  static constexpr std::uintptr_t line_bytes = 64;
  static constexpr int cells_per_line = int(line_bytes / sizeof(double));

  // Lines a row of `rows` spans, at most.
  KOKKOS_INLINE_FUNCTION static int lines_in_row(const PlaneRows& rows) {
    return rows.x1 > rows.x0 ? (rows.x1 - rows.x0 + cells_per_line - 1) / cells_per_line + 1 : 0;
  }

  // The next row to request: the rows of each field in turn.
  KOKKOS_FORCEINLINE_FUNCTION bool next_row() {
    if (++row_ >= N * read_.rows()) return false;
    const int f = row_ / read_.rows(), j = read_.y0 + row_ % read_.rows();
    const double* first = &in_[f](read_.x0, j, read_.k);
    line_ = reinterpret_cast<std::uintptr_t>(first) & ~(line_bytes - 1);
    end_ = reinterpret_cast<std::uintptr_t>(first + (read_.x1 - 1 - read_.x0));
    return true;
  }

  // The current line, into the outer cache (the step touches more than
  // the inner one holds before it uses it). Forced inline, as the callers
  // above: GCC takes a function of prefetches alone for one without side
  // effects and drops the calls to it.
  KOKKOS_FORCEINLINE_FUNCTION void request_line() const {
#ifndef __CUDA_ARCH__
    __builtin_prefetch(reinterpret_cast<const void*>(line_), 0, 2);
#endif
  }

  StateIn<N> in_;
  PlaneRows read_;
  int lines_ = 0, row_ = -1, owed_ = 0, rows_computed_ = 1;
  std::uintptr_t line_ = 0, end_ = 0;  // the row's next line to request, and its last cell
  long requested_ = 0;
};

}  // namespace strata::Impl
