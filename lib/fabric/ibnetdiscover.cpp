// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/fabric/ibnetdiscover.hpp"

#include <cctype>
#include <algorithm>
#include <cstring>
#include <map>
#include <regex.h>
#include <sstream>

#include "lib/common/error.hpp"
#include "lib/common/file.hpp"

namespace qft {

namespace {

// One port line, kept until every node is known.
struct PortLine {
	size_t line;
	std::string node_id; // ibnetdiscover's id of the node that lists it
	unsigned port;
	std::string remote_id;
	unsigned remote_port;
	LinkRate rate;
	uint32_t lid = 0; // Ca ports: "lid L lmc M"
	bool has_lid = false;
};

struct NodeLine {
	size_t line;
	bool is_switch;
	unsigned ports;
	std::string id, desc;
	uint64_t guid;
	uint32_t lid = 0;
};

class Parser {
public:
	Parser(const std::string &origin) : origin_(origin) {}

	[[noreturn]] void bad(const std::string &what) const
	{
		fail(Status::parse, origin_, ":", line_, ": expected ", what);
	}

	void parse(const std::string &text)
	{
		std::istringstream in(text);
		std::string s;
		while (std::getline(in, s)) {
			line_++;
			if (!s.empty() && s.back() == '\r')
				s.pop_back();
			size_t first = s.find_first_not_of(" \t");
			if (first == std::string::npos || s[first] == '#')
				continue;
			s = s.substr(first);
			if (s[0] == '[') {
				port_line(s);
			} else if (starts(s, "Switch") || starts(s, "Ca") || starts(s, "Hca") ||
				   starts(s, "Rt")) {
				node_line(s);
			} else if (starts(s, "switchguid=") || starts(s, "caguid=") ||
				   starts(s, "rtguid=")) {
				size_t eq = s.find('=');
				pending_guid_ = hex(s.substr(eq + 1), "a GUID after '='");
				have_pending_guid_ = true;
			} else if (starts(s, "vendid=") || starts(s, "devid=") ||
				   starts(s, "sysimgguid=") || starts(s, "ibnetdiscover")) {
				continue;
			} else {
				bad("a Switch, Ca or [port] line, or a vendid=/devid=/"
				    "sysimgguid=/switchguid=/caguid= line");
			}
		}
		if (nodes_.empty())
			fail(Status::parse, origin_, ": no Switch or Ca records: not ibnetdiscover output");
	}

	ImportResult build(const HostNaming &naming)
	{
		ImportResult r;
		Fabric &f = r.fabric;
		std::map<std::string, NodeId> by_id;
		std::map<std::string, size_t> name_owner; // name -> node line
		for (const NodeLine &n : nodes_) {
			line_ = n.line;
			NodeId id;
			try {
				if (n.is_switch) {
					id = f.add_switch(n.guid, n.desc, n.ports, n.lid);
				} else {
					std::string name = host_name_from_desc(n.desc, naming);
					if (name.empty()) {
						r.warnings.push_back(cat(origin_, ":", n.line, ": host ",
									 guid_text(n.guid), " \"", n.desc,
									 "\": the description gives no Slurm name"));
					} else if (name_owner.count(name)) {
						r.warnings.push_back(cat(origin_, ":", n.line, ": host ",
									 guid_text(n.guid), " \"", n.desc,
									 "\": name ", name, " is taken by line ",
									 name_owner[name], "; left unnamed"));
						name.clear();
					} else {
						name_owner[name] = n.line;
					}
					id = f.add_host(n.guid, n.desc, name, n.ports);
				}
			} catch (const Error &e) {
				fail(e.status(), origin_, ":", n.line, ": ", e.what());
			}
			if (by_id.count(n.id))
				fail(Status::invalid, origin_, ":", n.line, ": node id \"", n.id,
				     "\" already used at line ", nodes_[by_id[n.id]].line);
			by_id[n.id] = id;
		}
		// Each cable twice: join it at its first listing, check the second.
		for (const PortLine &p : ports_) {
			line_ = p.line;
			auto a = by_id.find(p.node_id), b = by_id.find(p.remote_id);
			if (b == by_id.end())
				fail(Status::invalid, origin_, ":", p.line, ": port ", p.port,
				     " names \"", p.remote_id, "\", which has no Switch or Ca record");
			try {
				PortIdx pa = f.port_index(a->second, p.port);
				PortIdx pb = f.port_index(b->second, p.remote_port);
				if (p.has_lid)
					f.port(pa).lid = p.lid;
				if (f.port(pa).peer == pb)
					continue; // the other end listed it already
				f.connect(a->second, p.port, b->second, p.remote_port, p.rate);
			} catch (const Error &e) {
				fail(e.status(), origin_, ":", p.line, ": ", e.what());
			}
		}
		f.set_lmc(host_lmc_);
		return r;
	}

private:
	static bool starts(const std::string &s, const char *prefix)
	{
		return s.compare(0, std::strlen(prefix), prefix) == 0;
	}

	uint64_t hex(const std::string &s, const char *what) const
	{
		size_t i = s.compare(0, 2, "0x") == 0 ? 2 : 0;
		uint64_t v = 0;
		size_t digits = 0;
		for (; i < s.size() && std::isxdigit((unsigned char)s[i]); i++, digits++)
			v = v * 16 + uint64_t(std::isdigit((unsigned char)s[i])
						      ? s[i] - '0'
						      : std::tolower((unsigned char)s[i]) - 'a' + 10);
		if (digits == 0 || digits > 16)
			bad(what);
		return v;
	}

	// "text" at s[pos]; returns the text, moves pos past the closing quote.
	std::string quoted(const std::string &s, size_t &pos, const char *what) const
	{
		pos = s.find('"', pos);
		if (pos == std::string::npos)
			bad(what);
		size_t end = s.find('"', pos + 1);
		if (end == std::string::npos)
			bad(cat("a closing '\"' of ", what).c_str());
		std::string out = s.substr(pos + 1, end - pos - 1);
		pos = end + 1;
		return out;
	}

	unsigned number(const std::string &s, size_t &pos, const char *what,
			unsigned max) const
	{
		size_t start = pos;
		uint64_t v = 0;
		while (pos < s.size() && std::isdigit((unsigned char)s[pos]) && pos - start < 10)
			v = v * 10 + unsigned(s[pos++] - '0');
		if (pos == start || v > max)
			bad(what);
		return unsigned(v);
	}

	// "... lid L lmc M" anywhere after pos.
	bool lid_lmc(const std::string &s, size_t from, uint32_t &lid, unsigned *lmc) const
	{
		size_t at = s.find("lid ", from);
		if (at == std::string::npos)
			return false;
		size_t pos = at + 4;
		lid = number(s, pos, "a LID after \"lid \"", 0xffff);
		if (lmc) {
			size_t l = s.find("lmc ", pos);
			if (l != std::string::npos) {
				pos = l + 4;
				*lmc = number(s, pos, "an LMC after \"lmc \"", 7);
			}
		}
		return true;
	}

	void node_line(const std::string &s)
	{
		NodeLine n;
		n.line = line_;
		n.is_switch = starts(s, "Switch");
		if (starts(s, "Rt"))
			fail(Status::unsupported, origin_, ":", line_,
			     ": router records are not supported (a fat tree has none)");
		size_t pos = s.find_first_of(" \t");
		if (pos == std::string::npos)
			bad("a port count after the node type");
		pos = s.find_first_not_of(" \t", pos);
		if (pos == std::string::npos)
			bad("a port count after the node type");
		n.ports = number(s, pos, "a port count (1..254)", 254);
		if (n.ports == 0)
			bad("a port count (1..254)");
		n.id = quoted(s, pos, "the node id in quotes");
		size_t hash = s.find('#', pos);
		if (hash == std::string::npos)
			bad("'# \"description\"' after the node id");
		size_t dpos = hash;
		n.desc = quoted(s, dpos, "the node description in quotes");
		if (n.is_switch) {
			if (!lid_lmc(s, dpos, n.lid, nullptr))
				bad("\"lid L lmc M\" on the Switch line");
		}
		if (have_pending_guid_) {
			n.guid = pending_guid_;
		} else {
			// No switchguid=/caguid= line: the id is S-<guid> or H-<guid>.
			size_t dash = n.id.find('-');
			if (dash == std::string::npos)
				bad("a switchguid=/caguid= line before this record, or an id S-<guid>");
			n.guid = hex(n.id.substr(dash + 1), "a GUID in the node id");
		}
		have_pending_guid_ = false;
		current_ = nodes_.size();
		nodes_.push_back(n);
	}

	void port_line(const std::string &s)
	{
		if (current_ == SIZE_MAX)
			bad("a Switch or Ca line before the first [port] line");
		const NodeLine &n = nodes_[current_];
		PortLine p;
		p.line = line_;
		p.node_id = n.id;
		size_t pos = 1;
		p.port = number(s, pos, "a port number inside [ ]", 254);
		if (pos >= s.size() || s[pos] != ']')
			bad("']' after the port number");
		if (p.port < 1 || p.port > n.ports)
			bad(cat("a port number in 1..", n.ports, " (the record's port count)").c_str());
		pos++;
		p.remote_id = quoted(s, pos, "the remote node id in quotes");
		if (pos >= s.size() || s[pos] != '[')
			bad("[remote port] after the remote node id");
		pos++;
		p.remote_port = number(s, pos, "a remote port number", 254);
		if (pos >= s.size() || s[pos] != ']')
			bad("']' after the remote port number");
		size_t hash = s.find('#', pos);
		if (hash == std::string::npos)
			bad("'# ...' with the remote's description, lid and rate");
		if (!n.is_switch) {
			unsigned lmc = 0;
			if (!lid_lmc(s, hash, p.lid, &lmc))
				bad("\"lid L lmc M\" first in a Ca port's comment");
			p.has_lid = true;
			host_lmc_ = std::max(host_lmc_, lmc);
		}
		// The rate is the last word: <width>x<speed>, such as 4xHDR.
		size_t end = s.find_last_not_of(" \t");
		size_t word = s.find_last_of(" \t\"", end);
		std::string rate = s.substr(word + 1, end - word);
		size_t x = rate.find('x');
		if (x == std::string::npos || x == 0 || x + 1 >= rate.size() ||
		    rate.find_first_not_of("0123456789") != x)
			bad("the link rate such as 4xHDR at the end of the line");
		p.rate.width = rate.substr(0, x + 1);
		p.rate.speed = rate.substr(x + 1);
		ports_.push_back(p);
	}

	std::string origin_;
	size_t line_ = 0;
	std::vector<NodeLine> nodes_;
	std::vector<PortLine> ports_;
	size_t current_ = SIZE_MAX;
	uint64_t pending_guid_ = 0;
	bool have_pending_guid_ = false;
	unsigned host_lmc_ = 0; // the fabric's LMC: the hosts' (switch port 0 has its own)
};

} // namespace

std::string host_name_from_desc(const std::string &desc, const HostNaming &naming)
{
	if (naming.regex.empty()) {
		size_t start = desc.find_first_not_of(" \t");
		if (start == std::string::npos)
			return "";
		size_t end = desc.find_first_of(" \t", start);
		return desc.substr(start, end == std::string::npos ? end : end - start);
	}
	// POSIX extended, anchored to the whole description.
	regex_t re;
	std::string anchored = "^(" + naming.regex + ")$";
	int rc = regcomp(&re, anchored.c_str(), REG_EXTENDED);
	if (rc) {
		char buf[256];
		regerror(rc, &re, buf, sizeof(buf));
		fail(Status::invalid, "host name regex \"", naming.regex, "\": ", buf);
	}
	if (re.re_nsub != 2) { // ours around the whole, and the user's one
		size_t groups = re.re_nsub - 1;
		regfree(&re);
		fail(Status::invalid, "host name regex \"", naming.regex,
		     "\": expected exactly one capture group ( ), found ", groups);
	}
	regmatch_t m[3];
	std::string name;
	if (regexec(&re, desc.c_str(), 3, m, 0) == 0 && m[2].rm_so >= 0)
		name = desc.substr(size_t(m[2].rm_so), size_t(m[2].rm_eo - m[2].rm_so));
	regfree(&re);
	return name;
}

ImportResult parse_ibnetdiscover(const std::string &text, const std::string &origin,
				 const HostNaming &naming)
{
	if (!naming.regex.empty())
		host_name_from_desc("", naming); // a bad regex fails before parsing
	Parser p(origin);
	p.parse(text);
	return p.build(naming);
}

ImportResult load_ibnetdiscover(const std::string &path, const HostNaming &naming)
{
	return parse_ibnetdiscover(read_file(path), path, naming);
}

} // namespace qft
