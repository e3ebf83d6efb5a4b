// SPDX-License-Identifier: GPL-2.0-or-later
#include "contribs/qft/cli.hpp"

#include <cstdio>

#include "lib/common/error.hpp"
#include "lib/common/hostlist.hpp"
#include "lib/fabric/fabric_json.hpp"

namespace qft::cli {

Args::Args(int argc, char **argv, int first, std::set<std::string> valued,
	   std::set<std::string> flags)
{
	for (int i = first; i < argc; i++) {
		std::string a = argv[i];
		if (a.size() < 2 || a[0] != '-' || a == "--") {
			pos_.push_back(a);
			continue;
		}
		std::string name = a, value;
		bool inline_value = false;
		size_t eq = a.find('=');
		if (a.compare(0, 2, "--") == 0 && eq != std::string::npos) {
			name = a.substr(0, eq);
			value = a.substr(eq + 1);
			inline_value = true;
		}
		if (valued.count(name)) {
			if (!inline_value) {
				if (i + 1 >= argc)
					throw UsageError{"option " + name + " needs a value"};
				value = argv[++i];
			}
			opts_[name] = value;
		} else if (flags.count(name) && !inline_value) {
			opts_[name] = "1";
		} else {
			throw UsageError{"unknown option " + name};
		}
	}
}

std::string Args::get(const std::string &opt, const std::string &def) const
{
	auto it = opts_.find(opt);
	return it == opts_.end() ? def : it->second;
}

std::string Args::need(const std::string &opt) const
{
	auto it = opts_.find(opt);
	if (it == opts_.end())
		throw UsageError{"option " + opt + " is required"};
	return it->second;
}

void Args::no_positional() const
{
	if (!pos_.empty())
		throw UsageError{"unexpected argument " + pos_[0]};
}

unsigned long Args::number(const std::string &opt, unsigned long def,
			   unsigned long max) const
{
	auto it = opts_.find(opt);
	if (it == opts_.end())
		return def;
	const std::string &v = it->second;
	if (v.empty() || v.size() > 19 ||
	    v.find_first_not_of("0123456789") != std::string::npos ||
	    std::stoull(v) > max)
		throw UsageError{cat("option ", opt, " \"", v,
				     "\": expected a number in 0..", max)};
	return std::stoul(v);
}

std::unique_ptr<Model> load_model(const std::string &path, const std::string &routing)
{
	return Model::load(path, routing);
}

std::string routing_arg(const Args &args)
{
	if (args.has("--lft") && args.has("--routing"))
		throw UsageError{"give --routing or --lft, not both"};
	return args.has("--lft") ? "lft:" + args.get("--lft") : args.get("--routing", "dmodk");
}

void write_output(const Args &args, const std::string &text)
{
	if (args.get("-o", "-") == "-")
		std::fputs(text.c_str(), stdout);
	else
		write_file(args.get("-o"), text);
}

void lmc_arg(const Args &args, Model &m, const std::string &routing)
{
	if (!args.has("--lmc"))
		return;
	const unsigned lmc = unsigned(args.number("--lmc", 0, 7));
	set_lmc_checked(m.edit_fabric(), lmc);
	m.set_routing(routing);
}

namespace {

// Host list expressions of a file: one or more per line, separated by
// blanks or commas; '#' to the end of the line is a comment.
std::vector<std::vector<std::string>> parse_lines(const std::string &path)
{
	std::vector<std::vector<std::string>> out;
	std::string text = read_file(path);
	size_t start = 0, lineno = 0;
	while (start < text.size()) {
		size_t end = text.find('\n', start);
		if (end == std::string::npos)
			end = text.size();
		std::string line = text.substr(start, end - start);
		start = end + 1;
		lineno++;
		line = line.substr(0, line.find('#'));
		std::vector<std::string> names;
		size_t i = 0;
		while (i < line.size()) {
			while (i < line.size() && std::isspace((unsigned char)line[i]))
				i++;
			size_t j = i;
			while (j < line.size() && !std::isspace((unsigned char)line[j]))
				j++;
			if (j > i) {
				try {
					for (std::string &n : hostlist_expand(line.substr(i, j - i)))
						names.push_back(std::move(n));
				} catch (const Error &e) {
					fail(e.status(), path, ":", lineno, ": ", e.what());
				}
			}
			i = j;
		}
		if (!names.empty())
			out.push_back(std::move(names));
	}
	return out;
}

} // namespace

std::vector<std::string> host_names(const Fabric &fabric, const std::string &arg)
{
	if (arg == "all") {
		std::vector<std::string> v;
		for (NodeId id : fabric.hosts())
			v.push_back(fabric.node(id).name);
		return v;
	}
	if (!arg.empty() && arg[0] == '@') {
		std::vector<std::string> v;
		for (auto &line : parse_lines(arg.substr(1)))
			v.insert(v.end(), line.begin(), line.end());
		if (v.empty())
			fail(Status::invalid, arg.substr(1), ": no host names in the file");
		return v;
	}
	return hostlist_expand(arg);
}

std::vector<std::vector<std::string>> job_lines(const std::string &path)
{
	auto jobs = parse_lines(path);
	if (jobs.empty())
		fail(Status::invalid, path, ": no jobs (expected one host list per line)");
	return jobs;
}

} // namespace qft::cli
