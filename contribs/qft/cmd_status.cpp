// SPDX-License-Identifier: GPL-2.0-or-later
// qft status: what slurmctld's topology/qft holds (the record it writes at
// every start and reconfigure, lib/slurm/status.hpp), and what the fabric
// in use costs: the destinations missing cables took congestion freedom
// from, computed here from the same file with the plugin's own loader, so
// slurmctld spends nothing on it.
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "contribs/qft/cli.hpp"
#include "lib/common/error.hpp"
#include "lib/slurm/status.hpp"
#include "qft/qft.h"

namespace qft::cli {

namespace {

// StateSaveLocation from `scontrol show config` (scontrol from PATH, so
// SLURM_CONF and the admin's usual setup apply).
std::string state_save_location()
{
	FILE *p = popen("scontrol show config 2>/dev/null", "r");
	if (!p)
		fail(Status::io, "cannot run scontrol: give --file");
	std::string dir;
	char line[4096];
	while (std::fgets(line, sizeof line, p)) {
		std::string s(line);
		if (s.rfind("StateSaveLocation", 0) != 0)
			continue;
		const size_t eq = s.find('=');
		if (eq == std::string::npos)
			continue;
		dir = s.substr(s.find_first_not_of(' ', eq + 1));
		dir.erase(dir.find_last_not_of(" \n") + 1);
	}
	pclose(p);
	if (dir.empty())
		fail(Status::not_found,
		     "scontrol show config gave no StateSaveLocation (is slurmctld up, scontrol in PATH?): give --file");
	return dir;
}

struct FabricFree {
	void operator()(qft_fabric_t *f) const { qft_fabric_destroy(f); }
};

// The fabric in use loaded as topology/qft loads it, then the
// destinations its routing makes share a down-link.
void print_lost(const ControllerStatus &s)
{
	qft_fabric_t *raw = nullptr;
	char *err = nullptr;
	qft_status_t rc = s.format == "ibnetdiscover"
				  ? qft_fabric_import_ibnetdiscover(s.source.c_str(),
								    s.host_name_regex.c_str(), &raw, &err)
				  : qft_fabric_load(s.source.c_str(), &raw, &err);
	std::unique_ptr<qft_fabric_t, FabricFree> f(raw);
	if (rc == QFT_OK && s.routing != qft_fabric_routing(f.get()))
		rc = qft_fabric_set_routing(f.get(), s.routing.c_str(), &err);
	size_t *lost = nullptr, count = 0;
	if (rc == QFT_OK)
		rc = qft_fabric_lost_destinations(f.get(), &lost, &count, &err);
	if (rc != QFT_OK) {
		std::printf("destinations that lost congestion freedom: not computed: %s\n",
			    err ? err : qft_status_str(rc));
		qft_free(err);
		return;
	}
	std::printf("destinations that lost congestion freedom (routing %s) %zu of %zu attached hosts\n",
		    s.routing.c_str(), count, qft_fabric_attached_host_count(f.get()));
	for (size_t i = 0; i < count && i < 20; i++) {
		const char *name = qft_fabric_host_name(f.get(), lost[i]);
		std::printf("  %s\n", name && *name ? name : "(unnamed)");
	}
	if (count > 20)
		std::printf("  ... %zu more\n", count - 20);
	qft_free(lost);
}

} // namespace

int cmd_status(int argc, char **argv)
{
	Args args(argc, argv, 2, {"--file"}, {"--json"});
	args.no_positional();
	const std::string path =
		args.has("--file") ? args.get("--file") : state_save_location() + "/qft-status.json";
	const std::string text = read_file(path);
	if (args.has("--json")) {
		std::fputs(text.c_str(), stdout);
		return 0;
	}
	const ControllerStatus s = status_from_json(text, path);
	std::printf("status %s\n%s", path.c_str(), status_text(s).c_str());
	if (s.source.empty())
		return 0;
	struct stat st {};
	if (stat(s.source.c_str(), &st) != 0) {
		std::printf("fabric file %s: gone since slurmctld loaded it\n", s.source.c_str());
		return 0;
	}
	if (int64_t(st.st_mtime) > s.loaded) {
		std::printf("fabric file %s changed since slurmctld loaded it%s\n", s.source.c_str(),
			    s.refused.empty() ? ": run 'scontrol reconfigure'" : " (refused, above)");
		return 0;
	}
	print_lost(s);
	return 0;
}

} // namespace qft::cli
