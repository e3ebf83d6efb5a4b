// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/fabric/fabric_json.hpp"

#include <jansson.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "lib/common/error.hpp"
#include "lib/common/file.hpp"

namespace qft {

namespace {

struct JsonFree {
	void operator()(json_t *j) const { json_decref(j); }
};
using JsonPtr = std::unique_ptr<json_t, JsonFree>;

// Reads typed members, failing with "<origin>: <path>: expected ...".
class Reader {
public:
	explicit Reader(std::string origin) : origin_(std::move(origin)) {}

	[[noreturn]] void bad(const std::string &path, const std::string &what) const
	{
		fail(Status::parse, origin_, ": ", path, ": expected ", what);
	}
	json_t *member(json_t *obj, const std::string &path, const char *key,
		       bool required) const
	{
		json_t *v = json_object_get(obj, key);
		if (!v && required)
			bad(path, cat("a member \"", key, "\""));
		return v;
	}
	uint64_t uint(json_t *v, const std::string &path, uint64_t max) const
	{
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    uint64_t(json_integer_value(v)) > max)
			bad(path, cat("an integer in 0..", max));
		return uint64_t(json_integer_value(v));
	}
	std::string str(json_t *v, const std::string &path) const
	{
		if (!json_is_string(v))
			bad(path, "a string");
		return json_string_value(v);
	}
	uint64_t guid(json_t *v, const std::string &path) const
	{
		std::string s = str(v, path);
		char *end = nullptr;
		errno = 0;
		uint64_t g = std::strtoull(s.c_str(), &end, 16);
		if (s.size() < 3 || s.compare(0, 2, "0x") != 0 || *end || errno)
			bad(path, "a GUID such as \"0x0002c90300000001\"");
		return g;
	}
	json_t *array(json_t *v, const std::string &path) const
	{
		if (!json_is_array(v))
			bad(path, "an array");
		return v;
	}

private:
	std::string origin_;
};

void read_tree_position(const Reader &r, json_t *obj, const std::string &path,
			Node &n)
{
	json_t *level = json_object_get(obj, "level");
	json_t *index = json_object_get(obj, "index");
	if (!level && !index)
		return;
	if (!level || !index)
		r.bad(path, "both \"level\" and \"index\", or neither");
	n.level = static_cast<int>(r.uint(level, path + ".level", 16));
	n.tree_index = r.uint(index, path + ".index", UINT32_MAX);
}

std::string dump_compact(json_t *v)
{
	char *text = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER |
				       JSON_ENCODE_ANY);
	if (!text)
		fail(Status::internal, "jansson could not serialise the fabric");
	std::string out(text);
	std::free(text);
	return out;
}

} // namespace

Fabric fabric_parse_json(const std::string &text, const std::string &origin)
{
	json_error_t err;
	JsonPtr root(json_loadb(text.data(), text.size(), 0, &err));
	if (!root)
		fail(Status::parse, origin, ":", err.line, ":", err.column, ": ", err.text);
	Reader r(origin);
	if (!json_is_object(root.get()))
		r.bad("top level", "an object");
	json_t *fmt = r.member(root.get(), "top level", "format", true);
	if (r.str(fmt, "format") != "slurm-qft-fabric")
		r.bad("format", "\"slurm-qft-fabric\"");
	uint64_t version = r.uint(r.member(root.get(), "top level", "version", true),
				  "version", 1000);
	if (version != kFabricJsonVersion)
		fail(Status::unsupported, origin, ": version ", version,
		     ", this qft reads version ", kFabricJsonVersion);

	Fabric f;
	if (json_t *lmc = r.member(root.get(), "top level", "lmc", false))
		f.set_lmc(static_cast<unsigned>(r.uint(lmc, "lmc", 7)));
	if (json_t *tree = r.member(root.get(), "top level", "tree", false)) {
		// "tree_kind": "qft" makes the tuple name the PGFT's QFT; absent or
		// "pgft", the PGFT itself (files from before QFTs have none).
		TreeKind kind = TreeKind::pgft;
		if (json_t *k = r.member(root.get(), "top level", "tree_kind", false)) {
			const std::string kind_text = r.str(k, "tree_kind");
			if (kind_text == "qft")
				kind = TreeKind::qft;
			else if (kind_text != "pgft")
				r.bad("tree_kind", "\"pgft\" or \"qft\"");
		}
		f.set_tree_tuple(r.str(tree, "tree"), kind);
	}

	json_t *switches = r.array(r.member(root.get(), "top level", "switches", true),
				   "switches");
	size_t i;
	json_t *v;
	try {
		// Hosts first: host ordinals and port indices then follow the file,
		// and load-save round trips are byte-identical.
		json_t *hosts = r.array(r.member(root.get(), "top level", "hosts", true),
					"hosts");
		json_array_foreach(hosts, i, v)
		{
			std::string path = cat("hosts[", i, "]");
			if (!json_is_object(v))
				r.bad(path, "an object");
			json_t *name = r.member(v, path, "name", false);
			NodeId id = f.add_host(
				r.guid(r.member(v, path, "guid", true), path + ".guid"),
				r.str(r.member(v, path, "desc", true), path + ".desc"),
				name ? r.str(name, path + ".name") : std::string(),
				static_cast<unsigned>(
					r.uint(r.member(v, path, "ports", true), path + ".ports", 254)));
			uint32_t lid = static_cast<uint32_t>(
				r.uint(r.member(v, path, "lid", true), path + ".lid", 0xffff));
			const Node &n = f.node(id);
			for (unsigned p = 0; p < n.num_ports; p++)
				f.port(n.first_port + p).lid = lid;
			read_tree_position(r, v, path, f.node(id));
		}
		json_array_foreach(switches, i, v)
		{
			std::string path = cat("switches[", i, "]");
			if (!json_is_object(v))
				r.bad(path, "an object");
			NodeId id = f.add_switch(
				r.guid(r.member(v, path, "guid", true), path + ".guid"),
				r.str(r.member(v, path, "desc", true), path + ".desc"),
				static_cast<unsigned>(
					r.uint(r.member(v, path, "ports", true), path + ".ports", 254)),
				static_cast<uint32_t>(
					r.uint(r.member(v, path, "lid", true), path + ".lid", 0xffff)));
			read_tree_position(r, v, path, f.node(id));
		}
		json_t *links = r.array(r.member(root.get(), "top level", "links", true),
					"links");
		json_array_foreach(links, i, v)
		{
			std::string path = cat("links[", i, "]");
			if (!json_is_array(v) || json_array_size(v) != 6)
				r.bad(path, "[guid, port, guid, port, width, speed]");
			NodeId ends[2];
			unsigned ports[2];
			for (int e = 0; e < 2; e++) {
				std::string ep = cat(path, "[", 2 * e, "]");
				uint64_t g = r.guid(json_array_get(v, 2 * e), ep);
				ends[e] = f.find_guid(g);
				if (ends[e] == kNone)
					fail(Status::not_found, origin, ": ", ep, ": GUID ",
					     guid_text(g), " is not a switch or host of this file");
				ports[e] = static_cast<unsigned>(
					r.uint(json_array_get(v, 2 * e + 1),
					       cat(path, "[", 2 * e + 1, "]"), 254));
			}
			LinkRate rate{r.str(json_array_get(v, 4), path + "[4]"),
				      r.str(json_array_get(v, 5), path + "[5]")};
			f.connect(ends[0], ports[0], ends[1], ports[1], rate);
		}
	} catch (const Error &e) {
		if (e.status() == Status::parse || e.status() == Status::not_found)
			throw;
		// Model errors (duplicate GUID, port in use) gain the file name.
		fail(e.status(), origin, ": ", e.what());
	}
	return f;
}

Fabric fabric_load_json(const std::string &path)
{
	return fabric_parse_json(read_file(path), path);
}

std::string fabric_to_json(const Fabric &f)
{
	JsonPtr root(json_object());
	json_object_set_new(root.get(), "format", json_string("slurm-qft-fabric"));
	json_object_set_new(root.get(), "version", json_integer(kFabricJsonVersion));
	json_object_set_new(root.get(), "lmc", json_integer(f.lmc()));
	if (!f.tree_tuple().empty())
		json_object_set_new(root.get(), "tree", json_string(f.tree_tuple().c_str()));
	// Only a QFT says its kind: a PGFT's file stays as it was.
	if (!f.tree_tuple().empty() && f.tree_kind() == TreeKind::qft)
		json_object_set_new(root.get(), "tree_kind", json_string("qft"));
	JsonPtr switches_ptr(json_array()), hosts_ptr(json_array()),
		links_ptr(json_array());
	json_t *switches = switches_ptr.get(), *hosts = hosts_ptr.get(),
	       *links = links_ptr.get();
	for (NodeId id = 0; id < f.node_count(); id++) {
		const Node &n = f.node(id);
		json_t *o = json_object();
		json_object_set_new(o, "guid", json_string(guid_text(n.guid).c_str()));
		json_object_set_new(o, "desc", json_string(n.desc.c_str()));
		if (n.type == NodeType::host && !n.name.empty())
			json_object_set_new(o, "name", json_string(n.name.c_str()));
		json_object_set_new(o, "ports", json_integer(n.num_ports));
		json_object_set_new(o, "lid",
				    json_integer(n.type == NodeType::host
							 ? f.port(n.first_port).lid
							 : n.lid));
		if (n.level >= 0) {
			json_object_set_new(o, "level", json_integer(n.level));
			json_object_set_new(o, "index", json_integer(json_int_t(n.tree_index)));
		}
		json_array_append_new(n.type == NodeType::host ? hosts : switches, o);
	}
	for (PortIdx p = 0; p < f.port_count(); p++) {
		const Port &a = f.port(p);
		if (a.peer == kNone || a.peer < p)
			continue; // each cable once, from its lower port index
		const Port &b = f.port(a.peer);
		const LinkRate &rate = f.rates()[a.rate];
		json_t *l = json_array();
		json_array_append_new(l, json_string(guid_text(f.node(a.node).guid).c_str()));
		json_array_append_new(l, json_integer(a.num));
		json_array_append_new(l, json_string(guid_text(f.node(b.node).guid).c_str()));
		json_array_append_new(l, json_integer(b.num));
		json_array_append_new(l, json_string(rate.width.c_str()));
		json_array_append_new(l, json_string(rate.speed.c_str()));
		json_array_append_new(links, l);
	}
	// One node or link per line: readable, diffable, and a syntax error's
	// line number points at one record.
	std::string out = "{\n";
	const char *scalars[] = {"format", "version", "lmc", "tree", "tree_kind"};
	for (const char *key : scalars) {
		json_t *v = json_object_get(root.get(), key);
		if (!v)
			continue;
		out += cat(" \"", key, "\": ", dump_compact(v), ",\n");
	}
	const std::pair<const char *, json_t *> arrays[] = {
		{"switches", switches}, {"hosts", hosts}, {"links", links}};
	for (size_t a = 0; a < 3; a++) {
		out += cat(" \"", arrays[a].first, "\": [");
		size_t i;
		json_t *v;
		json_array_foreach(arrays[a].second, i, v)
			out += cat(i ? ",\n  " : "\n  ", dump_compact(v));
		out += a < 2 ? "\n ],\n" : "\n ]\n";
	}
	return out + "}\n";
}

void fabric_save_json(const Fabric &f, const std::string &path)
{
	write_file(path, fabric_to_json(f));
}

} // namespace qft
