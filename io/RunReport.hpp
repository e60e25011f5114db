#pragma once
//! \file RunReport.hpp
//! Files that must never be seen half-written: run reports (JSON), text
//! companions of outputs (XDMF), and rows appended to a results table (CSV)
//! that scaling tools read.

#include <string>
#include <vector>

namespace strata::io {

//! Writes `text` to `path.tmp` and renames it to `path`; throws Error on failure.
void write_text_atomically(const std::string& path, const std::string& text);

//! Appends one CSV row, writing `header` first when the file is new; a row is
//! written with one call, so concurrent runs appending to one table interleave
//! whole lines.
void append_csv_row(const std::string& path, const std::vector<std::string>& header,
                    const std::vector<std::string>& row);

}  // namespace strata::io
