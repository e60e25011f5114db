#pragma once
//! \file AtomicFile.hpp
//! Files that readers never see half-written: the content goes to a
//! temporary name in the same directory, and one rename puts it in place, so
//! a reader finds either the old file or the whole new one.

#include <mpi.h>

#include <string>

namespace strata {

//! Writes `text` to `path` through a temporary beside it, named per process
//! so that processes writing the same file do not collide; throws Error
//! naming the file that failed.
void write_file_atomically(const std::string& path, const std::string& text);

//! Appends the line `row` to the table at `path`, writing the line `header`
//! first where the file is new or empty. Runs appending to one table at
//! once (a scaling study's jobs) each add one whole line and never write
//! the header twice: the file is locked while it is read and appended to
//! (where the file system has no locks, lines still land whole). Throws
//! Error naming the file that failed.
void append_table_row(const std::string& path, const std::string& header, const std::string& row);

//! Why no file can be created in the existing directory `dir`, in the OS's
//! words ("Permission denied", "Read-only file system", "Not a directory"),
//! or "" when one can: a probe file is created there and removed.
std::string cannot_create_files_in(const std::string& dir);

//! Collective over `comm`, for a file every rank writes under the name
//! `temporary`: once all ranks are done with it, rank 0 renames it onto
//! `path` (removing it when that fails), and every rank throws the same Error
//! `PATH: cannot rename TEMPORARY into place` on failure.
void collective_rename_into_place(MPI_Comm comm, const std::string& temporary, const std::string& path);

}  // namespace strata
