#pragma once
//! \file PlaneWindow.hpp
//! The last few z planes of a field over an x-y rectangle, as a time tile
//! keeps them in fast memory: plane k lives in slot (k - first) % planes,
//! so a plane written evicts the one `planes` below it. Indexed by global
//! (i, j, k) like CellArray; the slot is a per-row computation that the row
//! loop hoists, the i loop stays unit stride. Where a thread computes one
//! cell (a GPU's block) nothing hoists it: `PowerOfTwoPlanes` windows take
//! the slot with a mask instead of an integer division.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <type_traits>

namespace strata {

template <class T, bool PowerOfTwoPlanes = false>
class PlaneWindow {
 public:
  PlaneWindow() = default;

  //! `data` holds `planes` slots of an nx x ny rectangle whose first cell
  //! is (origin_i, origin_j); `first_k` is the lowest plane ever indexed.
  //! With PowerOfTwoPlanes, `planes` is a power of two.
  KOKKOS_INLINE_FUNCTION PlaneWindow(T* data, int origin_i, int origin_j, int nx, int ny, int first_k, int planes)
      : data_(data),
        offset_(-(origin_i + std::ptrdiff_t(origin_j) * nx)),
        stride_j_(nx),
        stride_k_(std::ptrdiff_t(nx) * ny),
        first_k_(first_k),
        planes_(planes) {}

  KOKKOS_FORCEINLINE_FUNCTION T& operator()(int i, int j, int k) const {
    return data_[i + j * stride_j_ + slot(k) * stride_k_ + offset_];
  }

  //! Read-only view of the same cells.
  template <class U = T, class = std::enable_if_t<!std::is_const_v<U>>>
  KOKKOS_INLINE_FUNCTION operator PlaneWindow<const U, PowerOfTwoPlanes>() const {
    PlaneWindow<const U, PowerOfTwoPlanes> w;
    w.data_ = data_;
    w.offset_ = offset_;
    w.stride_j_ = stride_j_;
    w.stride_k_ = stride_k_;
    w.first_k_ = first_k_;
    w.planes_ = planes_;
    return w;
  }

  //! Doubles a window of `planes` slots of an nx x ny rectangle holds.
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t size(int nx, int ny, int planes) {
    return std::size_t(nx) * ny * planes;
  }

 private:
  template <class, bool>
  friend class PlaneWindow;

  // k is never below first_k_, so the mask and the remainder agree.
  KOKKOS_FORCEINLINE_FUNCTION int slot(int k) const {
    if constexpr (PowerOfTwoPlanes)
      return (k - first_k_) & (planes_ - 1);
    else
      return (k - first_k_) % planes_;
  }

  T* data_ = nullptr;
  std::ptrdiff_t offset_ = 0, stride_j_ = 0, stride_k_ = 0;
  int first_k_ = 0, planes_ = 1;
};

}  // namespace strata
