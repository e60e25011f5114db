#pragma once
//! \file CellArray.hpp
//! What a kernel sees of a field: a raw pointer plus hoisted strides, indexed
//! by global (i, j, k). A View's operator() hides the strides behind the
//! mapping and defeats the vectoriser in host row loops (DESIGN.md section 5);
//! this accessor keeps the i loop unit-stride and trivially analysable.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <type_traits>

namespace strata {

template <class T>
class CellArray {
 public:
  CellArray() = default;

  //! `data` holds cell (origin_i, origin_j, origin_k) first, x fastest.
  KOKKOS_INLINE_FUNCTION CellArray(T* data, int origin_i, int origin_j, int origin_k,
                                   std::ptrdiff_t stride_j, std::ptrdiff_t stride_k)
      : data_(data),
        offset_(-(origin_i + origin_j * stride_j + origin_k * stride_k)),
        stride_j_(stride_j),
        stride_k_(stride_k) {}

  // One folded offset instead of three origins: fewer live values per row,
  // which is what host row loops over short (in-cache) rows pay for.
  KOKKOS_FORCEINLINE_FUNCTION T& operator()(int i, int j, int k) const {
    return data_[i + j * stride_j_ + k * stride_k_ + offset_];
  }

  //! Read-only view of the same cells, for kernel inputs.
  template <class U = T, class = std::enable_if_t<!std::is_const_v<U>>>
  KOKKOS_INLINE_FUNCTION operator CellArray<const U>() const {
    return CellArray<const U>(data_, offset_, stride_j_, stride_k_);
  }

 private:
  template <class>
  friend class CellArray;
  KOKKOS_INLINE_FUNCTION CellArray(T* data, std::ptrdiff_t offset, std::ptrdiff_t stride_j,
                                   std::ptrdiff_t stride_k)
      : data_(data), offset_(offset), stride_j_(stride_j), stride_k_(stride_k) {}

  T* data_ = nullptr;
  std::ptrdiff_t offset_ = 0, stride_j_ = 0, stride_k_ = 0;
};

}  // namespace strata
