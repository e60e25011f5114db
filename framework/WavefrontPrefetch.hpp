#pragma once
//! \file WavefrontPrefetch.hpp
//! A host tile's memory traffic for its next wavefront step, requested while
//! the current step computes. A tiled cycle (framework/TiledKernel.hpp)
//! touches memory only in its first level, which reads level 0's next plane,
//! and in its last, which writes level n's plane (a write that reads the
//! lines first); the levels between run from cache while the memory idles.
//! Left to the hardware, the first level waits on its reads and the last on
//! its write-allocations. Requested a few lines after every row the step
//! computes, the next step's reads and writes overlap all of this step's
//! levels and reach the core's cache before they are needed.

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

  KOKKOS_INLINE_FUNCTION WavefrontPrefetch(const StateIn<N>& in, const StateOut<N>& out) : in_(in), out_(out) {}

  //! A step that computes `rows_computed` rows begins: it requests `read`
  //! of every input field and `write` of every output field.
  KOKKOS_INLINE_FUNCTION void start_step(const PlaneRows& read, const PlaneRows& write, int rows_computed) {
    read_ = read;
    write_ = write;
    lines_ = N * (read.rows() * lines_in_row(read) + write.rows() * lines_in_row(write));
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

  // Lines a row of `rows` spans, at most.
  KOKKOS_INLINE_FUNCTION static int lines_in_row(const PlaneRows& rows) {
    return rows.x1 > rows.x0 ? (rows.x1 - rows.x0 + 7) / 8 + 1 : 0;
  }

  // The next row to request: read rows of each field, then write rows.
  KOKKOS_FORCEINLINE_FUNCTION bool next_row() {
    const int reads = N * read_.rows(), writes = N * write_.rows();
    if (++row_ >= reads + writes) return false;
    const bool read = row_ < reads;
    const PlaneRows& rows = read ? read_ : write_;
    const int m = read ? row_ : row_ - reads, f = m / rows.rows(), j = rows.y0 + m % rows.rows();
    const double* first = read ? &in_[f](rows.x0, j, rows.k) : &out_[f](rows.x0, j, rows.k);
    line_ = reinterpret_cast<std::uintptr_t>(first) & ~(line_bytes - 1);
    end_ = reinterpret_cast<std::uintptr_t>(first + (rows.x1 - 1 - rows.x0));
    for_write_ = !read;
    return true;
  }

  // The current line, into the outer cache (the step touches more than
  // the inner one holds before it uses it). Forced inline, as the callers
  // above: GCC takes a function of prefetches alone for one without side
  // effects and drops the calls to it.
  KOKKOS_FORCEINLINE_FUNCTION void request_line() const {
#ifndef __CUDA_ARCH__
    if (for_write_)
      __builtin_prefetch(reinterpret_cast<const void*>(line_), 1, 2);
    else
      __builtin_prefetch(reinterpret_cast<const void*>(line_), 0, 2);
#endif
  }

  StateIn<N> in_;
  StateOut<N> out_;
  PlaneRows read_, write_;
  int lines_ = 0, row_ = -1, owed_ = 0, rows_computed_ = 1;
  std::uintptr_t line_ = 0, end_ = 0;  // the row's next line to request, and its last cell
  bool for_write_ = false;
  long requested_ = 0;
};

}  // namespace strata::Impl
