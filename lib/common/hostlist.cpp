// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/common/hostlist.hpp"

#include <cctype>
#include <cstdint>

#include "lib/common/error.hpp"

namespace qft {

namespace {

// No real cluster is larger (the core's host limit is 2^20): a bound on the
// names one expression expands to, so that bad input cannot exhaust memory.
constexpr uint64_t kMaxNames = 1u << 20;

[[noreturn]] void bad(std::string_view expr, size_t pos, const char *what)
{
	fail(Status::parse, "host list \"", expr, "\", character ", pos + 1,
	     ": expected ", what);
}

// Parses the inside of one bracket, "0001-0018,0020", into names.
void expand_bracket(std::string_view expr, size_t open, size_t close,
		    const std::string &prefix, std::string_view suffix,
		    std::vector<std::string> &out)
{
	size_t i = open + 1;
	while (i < close) {
		size_t lo_start = i;
		while (i < close && std::isdigit((unsigned char)expr[i]))
			i++;
		if (i == lo_start)
			bad(expr, i, "a number inside [ ]");
		std::string_view lo_txt = expr.substr(lo_start, i - lo_start);
		std::string_view hi_txt = lo_txt;
		if (i < close && expr[i] == '-') {
			size_t hi_start = ++i;
			while (i < close && std::isdigit((unsigned char)expr[i]))
				i++;
			if (i == hi_start)
				bad(expr, i, "a number after '-'");
			hi_txt = expr.substr(hi_start, i - hi_start);
		}
		if (i < close && expr[i] != ',')
			bad(expr, i, "',' or ']' after a range");
		if (lo_txt.size() > 9 || hi_txt.size() > 9)
			bad(expr, lo_start, "a number of at most 9 digits");
		uint64_t lo = std::stoull(std::string(lo_txt));
		uint64_t hi = std::stoull(std::string(hi_txt));
		if (hi < lo)
			bad(expr, lo_start, "a range whose end is not below its start");
		if (hi - lo >= kMaxNames - out.size())
			bad(expr, lo_start, "at most 1048576 names in the whole list");
		// Zero padding follows the lower bound, as in Slurm.
		size_t width = lo_txt.size() > 1 && lo_txt[0] == '0' ? lo_txt.size() : 0;
		for (uint64_t v = lo; v <= hi; v++) {
			std::string num = std::to_string(v);
			if (num.size() < width)
				num.insert(0, width - num.size(), '0');
			out.push_back(prefix + num + std::string(suffix));
		}
		if (i < close)
			i++; // skip ','
	}
}

} // namespace

std::vector<std::string> hostlist_expand(std::string_view expr)
{
	std::vector<std::string> out;
	size_t i = 0;
	while (i < expr.size()) {
		size_t start = i;
		size_t open = std::string_view::npos, close = std::string_view::npos;
		while (i < expr.size() && expr[i] != ',') {
			if (expr[i] == '[') {
				if (open != std::string_view::npos)
					bad(expr, i, "at most one [ ] per name");
				open = i;
				while (i < expr.size() && expr[i] != ']')
					i++;
				if (i == expr.size())
					bad(expr, open, "a closing ']'");
				close = i;
			} else if (expr[i] == ']') {
				bad(expr, i, "'[' before ']'");
			} else if (std::isspace((unsigned char)expr[i])) {
				bad(expr, i, "no white space inside a name");
			}
			i++;
		}
		if (i == start)
			bad(expr, i, "a host name (empty entry)");
		if (open == std::string_view::npos) {
			if (out.size() >= kMaxNames)
				bad(expr, start, "at most 1048576 names in the whole list");
			out.emplace_back(expr.substr(start, i - start));
		} else {
			std::string prefix(expr.substr(start, open - start));
			expand_bracket(expr, open, close, prefix,
				       expr.substr(close + 1, i - close - 1), out);
		}
		if (i < expr.size()) {
			i++; // skip ','
			if (i == expr.size())
				bad(expr, i, "a host name after ','");
		}
	}
	if (out.empty())
		fail(Status::parse, "host list is empty");
	return out;
}

namespace {

struct Split {
	std::string prefix;
	std::string digits; // empty when the name has no trailing number
};

Split split_name(const std::string &name)
{
	size_t end = name.size();
	while (end > 0 && std::isdigit((unsigned char)name[end - 1]))
		end--;
	if (name.size() - end > 9)
		end = name.size() - 9;
	return {name.substr(0, end), name.substr(end)};
}

std::string number_text(uint64_t v, size_t width)
{
	std::string s = std::to_string(v);
	if (s.size() < width)
		s.insert(0, width - s.size(), '0');
	return s;
}

} // namespace

std::string hostlist_compress(const std::vector<std::string> &names)
{
	std::string out;
	size_t i = 0;
	while (i < names.size()) {
		Split first = split_name(names[i]);
		if (!out.empty())
			out += ',';
		if (first.digits.empty()) {
			out += names[i++];
			continue;
		}
		size_t width = first.digits.size();
		bool padded = width > 1 && first.digits[0] == '0';
		// Gather consecutive names with the same prefix and width.
		std::vector<std::pair<uint64_t, uint64_t>> ranges;
		size_t j = i;
		for (; j < names.size(); j++) {
			Split s = split_name(names[j]);
			if (s.prefix != first.prefix || s.digits.empty())
				break;
			bool s_padded = s.digits.size() > 1 && s.digits[0] == '0';
			bool same_form = padded ? s.digits.size() == width
						: !s_padded;
			if (!same_form)
				break;
			uint64_t v = std::stoull(s.digits);
			if (!ranges.empty() && ranges.back().second + 1 == v)
				ranges.back().second = v;
			else
				ranges.emplace_back(v, v);
		}
		size_t w = padded ? width : 0;
		if (j - i == 1) {
			out += names[i];
		} else {
			out += first.prefix + "[";
			for (size_t r = 0; r < ranges.size(); r++) {
				if (r)
					out += ',';
				out += number_text(ranges[r].first, w);
				if (ranges[r].second != ranges[r].first)
					out += "-" + number_text(ranges[r].second, w);
			}
			out += "]";
		}
		i = j;
	}
	return out;
}

} // namespace qft
