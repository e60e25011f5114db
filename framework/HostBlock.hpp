#pragma once
//! \file HostBlock.hpp
//! A box of one field's values on the host, indexed (k, j, i) from the box's
//! corner: what output, checkpoints and tests read and write.

#include <Kokkos_Core.hpp>

namespace strata {

using HostBlock = Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::HostSpace>;

}  // namespace strata
