// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/tree/pgft.hpp"

#include <cctype>

#include "lib/common/error.hpp"

namespace qft {

namespace {

constexpr unsigned kMaxLevels = 8;
constexpr unsigned kMaxSwitchPorts = 254; // IB port numbers 1..254
constexpr uint64_t kMaxHosts = 1u << 20;
constexpr uint64_t kMaxNodesPerLevel = 1u << 20;

std::string join(const std::vector<unsigned> &v)
{
	std::string s;
	for (size_t i = 0; i < v.size(); i++)
		s += (i ? "," : "") + std::to_string(v[i]);
	return s;
}

[[noreturn]] void bad_text(std::string_view text, size_t pos, const char *what)
{
	fail(Status::parse, "PGFT tuple \"", text, "\", character ", pos + 1,
	     ": expected ", what);
}

// One ';'-separated field of comma-separated unsigned numbers.
std::vector<unsigned> parse_list(std::string_view text, size_t &pos,
				 const char *field)
{
	std::vector<unsigned> out;
	for (;;) {
		size_t start = pos;
		uint64_t v = 0;
		while (pos < text.size() && std::isdigit((unsigned char)text[pos])) {
			v = v * 10 + (text[pos] - '0');
			if (v > 1000000)
				bad_text(text, start, "a number below 1000000");
			pos++;
		}
		if (pos == start)
			bad_text(text, pos, field);
		out.push_back(static_cast<unsigned>(v));
		if (pos < text.size() && text[pos] == ',') {
			pos++;
			continue;
		}
		return out;
	}
}

} // namespace

Pgft Pgft::parse(std::string_view text)
{
	size_t pos = 0;
	while (pos < text.size() && std::isspace((unsigned char)text[pos]))
		pos++;
	if (text.substr(pos, 5) == "PGFT(" || text.substr(pos, 5) == "pgft(") {
		if (text.empty() || text.back() != ')')
			bad_text(text, text.size(), "')' closing \"PGFT(\"");
		text = text.substr(pos + 5, text.size() - pos - 6);
		pos = 0;
	}
	std::vector<unsigned> hv = parse_list(text, pos, "the number of levels h");
	if (hv.size() != 1)
		bad_text(text, pos, "one number for h, then ';'");
	const char *names[3] = {"m1,..,mh (children per switch)",
				"w1,..,wh (parents per node)",
				"p1,..,ph (parallel links)"};
	std::vector<unsigned> lists[3];
	for (int f = 0; f < 3; f++) {
		if (pos >= text.size() || text[pos] != ';')
			bad_text(text, pos, "';' before the next field");
		pos++;
		lists[f] = parse_list(text, pos, names[f]);
		if (lists[f].size() != hv[0])
			fail(Status::parse, "PGFT tuple \"", text, "\": field ", f + 2,
			     " (", names[f], ") has ", lists[f].size(),
			     " values, expected h = ", hv[0]);
	}
	if (pos != text.size())
		bad_text(text, pos, "end of tuple after p1,..,ph");
	return Pgft(lists[0], lists[1], lists[2]);
}

Pgft::Pgft(std::vector<unsigned> m_list, std::vector<unsigned> w_list,
	   std::vector<unsigned> p_list)
	: m_(std::move(m_list)), w_(std::move(w_list)), p_(std::move(p_list))
{
	validate();
	prefix_m_.assign(h() + 1, 1);
	prefix_w_.assign(h() + 1, 1);
	for (unsigned l = 1; l <= h(); l++) {
		prefix_m_[l] = prefix_m_[l - 1] * m(l);
		prefix_w_[l] = prefix_w_[l - 1] * w(l);
	}
}

void Pgft::validate() const
{
	if (m_.empty() || m_.size() > kMaxLevels)
		fail(Status::invalid, "PGFT: h = ", m_.size(), ", expected 1..",
		     kMaxLevels);
	if (w_.size() != m_.size() || p_.size() != m_.size())
		fail(Status::invalid, "PGFT: m, w and p have ", m_.size(), ", ",
		     w_.size(), " and ", p_.size(), " values, expected h each");
	const char *names[3] = {"m", "w", "p"};
	const std::vector<unsigned> *lists[3] = {&m_, &w_, &p_};
	for (int f = 0; f < 3; f++)
		for (size_t i = 0; i < m_.size(); i++)
			if ((*lists[f])[i] == 0)
				fail(Status::invalid, "PGFT: ", names[f], "_", i + 1,
				     " = 0, expected at least 1");
	uint64_t hosts = 1;
	for (unsigned v : m_) {
		hosts *= v;
		if (hosts > kMaxHosts)
			fail(Status::invalid, "PGFT: prod(m) exceeds ", kMaxHosts,
			     " hosts");
	}
	for (unsigned l = 0; l <= h(); l++) {
		uint64_t nodes = 1;
		for (unsigned i = 1; i <= h(); i++) {
			nodes *= i <= l ? w(i) : m(i);
			if (nodes > kMaxNodesPerLevel)
				fail(Status::invalid, "PGFT: level ", l, " would have more than ",
				     kMaxNodesPerLevel, " nodes");
		}
		uint64_t ports = uint64_t(l ? m(l) * uint64_t(p(l)) : 0) +
				 (l < h() ? w(l + 1) * uint64_t(p(l + 1)) : 0);
		if (ports > kMaxSwitchPorts)
			fail(Status::invalid, "PGFT: a level-", l, " node needs ", ports,
			     " ports (m_l*p_l + w_l+1*p_l+1), expected at most ",
			     kMaxSwitchPorts);
	}
}

uint64_t Pgft::nodes_at(unsigned l) const
{
	return W(l) * (M(h()) / M(l));
}

unsigned Pgft::up_ports(unsigned l) const
{
	return l < h() ? w(l + 1) * p(l + 1) : 0;
}

unsigned Pgft::down_ports(unsigned l) const
{
	return l > 0 ? m(l) * p(l) : 0;
}

std::vector<unsigned> Pgft::digits(unsigned l, uint64_t index) const
{
	std::vector<unsigned> d(h());
	for (unsigned i = 1; i <= h(); i++) {
		unsigned r = radix(l, i);
		d[i - 1] = static_cast<unsigned>(index % r);
		index /= r;
	}
	return d;
}

uint64_t Pgft::index(unsigned l, const std::vector<unsigned> &d) const
{
	uint64_t idx = 0;
	for (unsigned i = h(); i >= 1; i--)
		idx = idx * radix(l, i) + d[i - 1];
	return idx;
}

std::vector<std::string> Pgft::rlft_violations() const
{
	std::vector<std::string> why;
	if (w(1) != 1 || p(1) != 1)
		why.push_back(cat("hosts must have one cable (w1 = p1 = 1), got w1 = ",
				  w(1), ", p1 = ", p(1)));
	for (unsigned l = 1; l < h(); l++)
		if (m(l) * p(l) != w(l + 1) * p(l + 1))
			why.push_back(cat("bisection is not constant at level ", l,
					  ": m", l, "*p", l, " = ", m(l) * p(l),
					  " down-ports but w", l + 1, "*p", l + 1, " = ",
					  w(l + 1) * p(l + 1), " up-ports"));
	unsigned radix0 = down_ports(1) + up_ports(1);
	for (unsigned l = 2; l <= h(); l++) {
		unsigned r = down_ports(l) + up_ports(l);
		if (r != radix0)
			why.push_back(cat("switches differ in radix: level ", l, " uses ",
					  r, " ports, level 1 uses ", radix0,
					  " (an RLFT has one switch radix 2K, its top "
					  "level m_h*p_h = 2K)"));
	}
	return why;
}

std::string Pgft::text() const
{
	return cat(h(), ";", join(m_), ";", join(w_), ";", join(p_));
}

} // namespace qft
