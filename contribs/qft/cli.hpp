// SPDX-License-Identifier: GPL-2.0-or-later
// Shared plumbing of the qft tool: option parsing, loading the fabric and
// host lists. Every algorithm lives in lib/; commands only translate.
#ifndef QFT_CLI_HPP
#define QFT_CLI_HPP

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lib/common/file.hpp"
#include "lib/fabric/fabric.hpp"
#include "lib/model/model.hpp"

namespace qft::cli {

// Raised for a command line that does not parse: exit status 2.
struct UsageError {
	std::string msg;
};

class Args {
public:
	// `valued`: options that take a value; `flags`: options that do not.
	Args(int argc, char **argv, int first, std::set<std::string> valued,
	     std::set<std::string> flags);
	bool has(const std::string &opt) const { return opts_.count(opt) > 0; }
	std::string get(const std::string &opt, const std::string &def = "") const;
	std::string need(const std::string &opt) const;
	unsigned long number(const std::string &opt, unsigned long def,
			     unsigned long max) const;
	const std::vector<std::string> &positional() const { return pos_; }
	// A UsageError naming the first positional argument, if any.
	void no_positional() const;

private:
	std::map<std::string, std::string> opts_;
	std::vector<std::string> pos_;
};

// The fabric JSON at `path` with its tree and the routing `routing` names
// ("dmodk", "lft:FILE"; "": a fabric without a tree has none).
std::unique_ptr<Model> load_model(const std::string &path, const std::string &routing);
// The routing of --routing NAME or --lft FILE (lft:FILE), "dmodk" without
// either; both is a UsageError.
std::string routing_arg(const Args &args);
// `text` to the file -o names, or to standard output without -o (or -o -).
void write_output(const Args &args, const std::string &text);
// --lmc L: the fabric's LMC set to L when its LIDs allow it and the LID
// space holds it, then `routing` routed again (every offset).
void lmc_arg(const Args &args, Model &m, const std::string &routing);

// Host names from "all", a host list expression, or "@FILE" (host list
// expressions, one or more per line, '#' starts a comment).
std::vector<std::string> host_names(const Fabric &fabric, const std::string &arg);
// One job per non-empty line of FILE.
std::vector<std::vector<std::string>> job_lines(const std::string &path);


int cmd_gen(int argc, char **argv);
int cmd_route(int argc, char **argv);
int cmd_score(int argc, char **argv);
int cmd_order(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_patterns(int argc, char **argv);
int cmd_topology_conf(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_discover(int argc, char **argv);
int cmd_place(int argc, char **argv);
int cmd_lft(int argc, char **argv);
int cmd_recognise(int argc, char **argv);
int cmd_lid(int argc, char **argv);
int cmd_status(int argc, char **argv);

} // namespace qft::cli

#endif
