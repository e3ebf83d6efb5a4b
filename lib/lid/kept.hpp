// SPDX-License-Identifier: GPL-2.0-or-later
// Kept offsets (qft score --lid-in, --lid-out): a job's choice made once,
// at its start, and kept while it runs (as a running job's table does not
// change). One line per job:
//   KEY MODE LMC HOSTS OFFSETS
// MODE job, dest or pair; HOSTS the job's hosts in rank order (a host
// list); OFFSETS Job::offsets (job, dest: one per destination rank; pair:
// one per ordered pair, source-major) in hex, one digit each up to LMC 4,
// two above. Here, not in the tool, so that what reads the simulator's
// kept offsets (contribs/bench/lid_bound) reads them as the scorer does.
#ifndef QFT_LID_KEPT_HPP
#define QFT_LID_KEPT_HPP

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lib/fabric/fabric.hpp"
#include "lib/lid/lid.hpp"
#include "lib/score/stages.hpp"

namespace qft {

struct KeptLids {
	LidMode mode = LidMode::pair;
	std::vector<HostOrd> ranks;
	std::vector<uint8_t> offsets;
};

// How the scoring engine plays a kept job of `mode` (Job::lid_choice).
LidChoice kept_choice(LidMode mode);

// The line of job `key` (newline included).
std::string kept_line(const Fabric &f, const std::string &key, const KeptLids &k);

// The kept offsets of `path` by key (a key given twice: its last line),
// checked against `mode`, the fabric's LMC and its hosts; `keys`, when
// given, gets every line's key in file order. Throws Error(io), (parse),
// (invalid) or (not_found), each naming the file and line.
std::map<std::string, KeptLids> read_kept(const std::string &path, const Fabric &f, LidMode mode,
					  std::vector<std::string> *keys = nullptr);

} // namespace qft

#endif
