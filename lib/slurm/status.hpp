// SPDX-License-Identifier: GPL-2.0-or-later
// What slurmctld's topology/qft holds, for `qft status`: the fabric in use
// (loaded when, its tree and findings), the last fabric it tried to load
// (refused, and why), and the nodes of slurm.conf the fabric does not
// reach, which select/rlft's placements leave out. topology/qft writes it at
// every start and reconfigure (beside its state, StateSaveLocation) so an
// admin sees a cut host or a refused fabric without reading the log.
#ifndef QFT_SLURM_STATUS_HPP
#define QFT_SLURM_STATUS_HPP

#include <cstdint>
#include <string>
#include <vector>

namespace qft {

struct ControllerStatus {
	int64_t written = 0;         // Unix time of this record
	std::string slurm_version;   // of the slurmctld that wrote it
	// The fabric in use; empty source: none (slurmctld failed to start).
	std::string source;
	std::string format;          // "json" or "ibnetdiscover"
	std::string host_name_regex; // ibnetdiscover's naming ("": first word)
	int64_t loaded = 0;          // when it was read
	std::string tree;            // "PGFT(...)", "QFT of PGFT(...)"
	std::string routing;         // "dmodk", "lft:/path"
	uint64_t hosts = 0, switch_groups = 0;
	std::vector<std::string> findings; // missing cables, switches, unnamed hosts
	// The last load attempt (start or reconfigure).
	int64_t attempted = 0;
	std::string attempt_file;
	std::string refused;         // "": loaded; else the error, naming file and line
	// Nodes of slurm.conf absent from the fabric in use or with no cable
	// into its tree (host list expression).
	std::string cut_off;
	uint64_t cut_off_count = 0;
	// Hosts of the fabric that are not nodes of slurm.conf.
	std::string ignored;
	uint64_t ignored_count = 0;
};

std::string status_to_json(const ControllerStatus &status);
// Error(parse) naming `origin` and the member that is wrong.
ControllerStatus status_from_json(const std::string &text, const std::string &origin);
// For people: one fact a line; times in local time.
std::string status_text(const ControllerStatus &status);

} // namespace qft

#endif
