// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm-style host lists ("n[0001-0018,0020],gpu7") for the tool and the
// tests; inside slurmctld the plugins use Slurm's own hostlist.
#ifndef QFT_COMMON_HOSTLIST_HPP
#define QFT_COMMON_HOSTLIST_HPP

#include <string>
#include <string_view>
#include <vector>

namespace qft {

// Expands a host list expression. Throws Error(parse) naming the position
// and what was expected. Order is kept; duplicates are kept (callers decide).
std::vector<std::string> hostlist_expand(std::string_view expr);

// The shortest ranged form of names, in the given order: consecutive names
// that share a prefix and a zero-padded width fold into one bracket.
std::string hostlist_compress(const std::vector<std::string> &names);

} // namespace qft

#endif
