#pragma once
//! \file HugePages.hpp
//! Asks the kernel to back a large host allocation with 2 MiB pages
//! (transparent huge pages), where the system leaves that to the program
//! (`madvise` mode, Debian's default). A stencil sweep touches rows on
//! several planes megabytes apart: with 4 KiB pages each row is its own TLB
//! entry, and the physical pages under the planes a time tile reads land on
//! L2 sets at random, so runs of the same binary differed by up to a third
//! (docs/performance-notes.md). Call before the memory is first touched.

#include <cstddef>

namespace strata {

//! Advises huge pages for the whole 2 MiB pages inside [data, data + bytes);
//! nothing where the range holds none or the system has no such advice.
void advise_huge_pages(void* data, std::size_t bytes);

}  // namespace strata
