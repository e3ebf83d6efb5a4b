// SPDX-License-Identifier: GPL-2.0-or-later
// Whole files in and out, with the Error(io) messages every reader and
// writer of the core gives: the path, then what failed and why.
#ifndef QFT_COMMON_FILE_HPP
#define QFT_COMMON_FILE_HPP

#include <string>

namespace qft {

// The bytes of `path`. Error(io): "PATH: cannot open: REASON" or
// "PATH: read error".
std::string read_file(const std::string &path);

// Replaces `path` with `text`. Error(io): "PATH: cannot write: REASON" or
// "PATH: write error" (a full disk shows only when the file is closed).
void write_file(const std::string &path, const std::string &text);

} // namespace qft

#endif
