// Writing an output file so a reader never sees half of it: the text goes to a temporary file
// in the same directory, which is then renamed over the target. Used by every output (result
// directories, tables). Engine-free.
#pragma once

#include <filesystem>
#include <string>

namespace failsim::input {

/// Writes `text` to `path` through `.<name>.tmp-<pid>` beside it and a rename, so `path` is
/// either its old content or the whole new text. On failure the temporary file is removed and
/// std::runtime_error names `path`, the temporary file and the system's reason.
void write_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace failsim::input
