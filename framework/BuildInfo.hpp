#pragma once
//! \file BuildInfo.hpp
//! What a file or report needs to say which Strata wrote it.

namespace strata {

//! The commit the running binary was built from ("-dirty" where the tree had
//! uncommitted changes; "unknown" outside a git checkout), taken at build time.
const char* build_commit();

}  // namespace strata
