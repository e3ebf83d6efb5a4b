// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/slurm/status.hpp"

#include <jansson.h>

#include <cstdlib>
#include <ctime>
#include <memory>

#include "lib/common/error.hpp"

namespace qft {

namespace {

constexpr const char *kFormat = "slurm-qft-status";
constexpr int kVersion = 1;

struct JsonFree {
	void operator()(json_t *j) const { json_decref(j); }
};
using JsonPtr = std::unique_ptr<json_t, JsonFree>;

void put(json_t *o, const char *key, const std::string &v)
{
	json_object_set_new(o, key, json_string(v.c_str()));
}

void put(json_t *o, const char *key, int64_t v)
{
	json_object_set_new(o, key, json_integer(json_int_t(v)));
}

void put(json_t *o, const char *key, uint64_t v) { put(o, key, int64_t(v)); }

void put(json_t *o, const char *key, const std::vector<std::string> &v)
{
	json_t *a = json_array();
	for (const std::string &x : v)
		json_array_append_new(a, json_string(x.c_str()));
	json_object_set_new(o, key, a);
}

// The record's members in file order, for the writer and the reader alike.
template <typename S, typename F> void each_member(S &s, F &&f)
{
	f("written", s.written);
	f("slurm_version", s.slurm_version);
	f("source", s.source);
	f("fabric_format", s.format);
	f("host_name_regex", s.host_name_regex);
	f("loaded", s.loaded);
	f("tree", s.tree);
	f("routing", s.routing);
	f("hosts", s.hosts);
	f("switch_groups", s.switch_groups);
	f("findings", s.findings);
	f("attempted", s.attempted);
	f("attempt_file", s.attempt_file);
	f("refused", s.refused);
	f("cut_off", s.cut_off);
	f("cut_off_count", s.cut_off_count);
	f("ignored", s.ignored);
	f("ignored_count", s.ignored_count);
}

// Reads the members of one object, each error naming origin and key.
class Members {
public:
	Members(json_t *obj, std::string origin) : obj_(obj), origin_(std::move(origin)) {}

	std::string str(const char *key) const
	{
		json_t *v = json_object_get(obj_, key);
		if (!json_is_string(v))
			fail(Status::parse, origin_, ": \"", key, "\": expected a string");
		return json_string_value(v);
	}
	int64_t integer(const char *key) const
	{
		json_t *v = json_object_get(obj_, key);
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			fail(Status::parse, origin_, ": \"", key,
			     "\": expected an integer >= 0");
		return int64_t(json_integer_value(v));
	}
	void get(const char *key, std::string &v) const { v = str(key); }
	void get(const char *key, int64_t &v) const { v = integer(key); }
	void get(const char *key, uint64_t &v) const { v = uint64_t(integer(key)); }
	void get(const char *key, std::vector<std::string> &v) const { v = strings(key); }

	std::vector<std::string> strings(const char *key) const
	{
		json_t *v = json_object_get(obj_, key);
		if (!json_is_array(v))
			fail(Status::parse, origin_, ": \"", key, "\": expected an array of strings");
		std::vector<std::string> out;
		size_t i;
		json_t *s;
		json_array_foreach(v, i, s)
		{
			if (!json_is_string(s))
				fail(Status::parse, origin_, ": \"", key, "\"[", i,
				     "]: expected a string");
			out.emplace_back(json_string_value(s));
		}
		return out;
	}

private:
	json_t *obj_;
	std::string origin_;
};

std::string local_time(int64_t t)
{
	const time_t tt = time_t(t);
	struct tm tm {};
	char buf[32];
	if (!localtime_r(&tt, &tm) || !std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm))
		return std::to_string(t);
	return buf;
}

} // namespace

std::string status_to_json(const ControllerStatus &s)
{
	JsonPtr root(json_object());
	json_t *o = root.get();
	put(o, "format", std::string(kFormat));
	put(o, "version", int64_t(kVersion));
	each_member(s, [o](const char *key, const auto &v) { put(o, key, v); });
	char *text = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	if (!text)
		fail(Status::internal, "status: cannot write JSON");
	std::string out(text);
	std::free(text);
	return out + "\n";
}

ControllerStatus status_from_json(const std::string &text, const std::string &origin)
{
	json_error_t err;
	JsonPtr root(json_loadb(text.data(), text.size(), 0, &err));
	if (!root)
		fail(Status::parse, origin, ":", err.line, ": ", err.text);
	if (!json_is_object(root.get()))
		fail(Status::parse, origin, ": expected a JSON object");
	const Members m(root.get(), origin);
	if (m.str("format") != kFormat)
		fail(Status::parse, origin, ": \"format\": expected \"", kFormat, "\"");
	if (m.integer("version") != kVersion)
		fail(Status::unsupported, origin, ": \"version\": expected ", kVersion);
	ControllerStatus s;
	each_member(s, [&m](const char *key, auto &v) { m.get(key, v); });
	return s;
}

std::string status_text(const ControllerStatus &s)
{
	std::string out = cat("written ", local_time(s.written), " by slurmctld ",
			      s.slurm_version, "\n");
	if (s.source.empty())
		out += "fabric in use: none\n";
	else
		out += cat("fabric in use: ", s.source, " (", s.format, "), loaded ",
			   local_time(s.loaded), "\n  tree ", s.tree, ", ", s.hosts, " hosts, ",
			   s.switch_groups, " switch groups, routing ", s.routing, "\n");
	out += cat("last load: ", local_time(s.attempted), " ", s.attempt_file, ": ",
		   s.refused.empty() ? "loaded" : "refused, the fabric in use stays", "\n");
	if (!s.refused.empty())
		out += cat("  ", s.refused, "\n");
	out += cat("nodes cut off (of slurm.conf, absent from the fabric or with no cable into its tree; select/rlft's placements leave them out) ",
		   s.cut_off_count, s.cut_off.empty() ? "" : ": ", s.cut_off, "\n");
	out += cat("fabric hosts not in slurm.conf (ignored) ", s.ignored_count,
		   s.ignored.empty() ? "" : ": ", s.ignored, "\n");
	out += cat("findings ", s.findings.size(), "\n");
	for (const std::string &f : s.findings)
		out += cat("  ", f, "\n");
	return out;
}

} // namespace qft
