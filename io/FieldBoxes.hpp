#pragma once
//! \file FieldBoxes.hpp
//! A field's global shape in a file and a rank's parts of it, for fields of
//! any stagger (framework/Stagger.hpp): outputs and checkpoints share it.

#include "framework/Box.hpp"
#include "framework/Stagger.hpp"
#include "io/RunConfig.hpp"

namespace strata::io {

//! Along a staggered axis that is not periodic the field has one more value
//! (the last node or face, on the upper wall), written by the rank that
//! holds the wall; every rank reads its owned values and the one it shares
//! with its upper neighbour.
struct FieldBoxes {
  Box global, written, read;
};

inline FieldBoxes field_boxes(const Stagger& stagger, const GridConfig& grid, const Box& local) {
  const Box cells = box_of_size(grid.cells[X], grid.cells[Y], grid.cells[Z]);
  FieldBoxes b{cells, local, local};
  for (int a = 0; a < 3; ++a) {
    if (!stagger[a]) continue;
    const bool upper_wall = local.hi[a] == cells.hi[a];
    if (grid.periodic[a]) {
      if (!upper_wall) ++b.read.hi[a];
      continue;
    }
    ++b.global.hi[a];
    ++b.read.hi[a];
    if (upper_wall) ++b.written.hi[a];
  }
  return b;
}

}  // namespace strata::io
