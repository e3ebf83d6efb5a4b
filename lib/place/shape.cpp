// SPDX-License-Identifier: GPL-2.0-or-later
// Product shapes: the conditions of docs/product-shapes.md, computed on the
// digit sets. Notation: M_l = prod_{k<=l} m_k; U_l = W_{l+1} p_{l+1}, the
// up-links out of a level-l subtree (seed 000 eq. 1); a shape's lower parts
// x = j mod M_l and upper parts (its level-l subtrees) y = floor(j / M_l).
#include "lib/place/shape.hpp"

#include <algorithm>
#include <iterator>

#include "lib/common/error.hpp"

namespace qft {

namespace {

// The lower parts X_l of `s`, ascending: every x = sum_{i<=l} a_i M_{i-1}.
std::vector<uint64_t> lower_parts(const Pgft &g, const Shape &s, unsigned l)
{
	std::vector<uint64_t> x{0};
	for (unsigned i = l; i >= 1; i--) {
		std::vector<uint64_t> next;
		next.reserve(x.size() * s.at(i).size());
		for (uint64_t hi : x)
			for (uint32_t a : s.at(i))
				next.push_back(hi * g.m(i) + a);
		x.swap(next);
	}
	return x;
}

// Flows of the shape leave its level-l subtrees: it spans more than one.
bool crosses(const Shape &s, unsigned l)
{
	for (unsigned i = l + 1; i <= s.digits.size(); i++)
		if (s.at(i).size() > 1)
			return true;
	return false;
}

bool intersect(const std::vector<uint32_t> &a, const std::vector<uint32_t> &b)
{
	for (size_t i = 0, k = 0; i < a.size() && k < b.size();) {
		if (a[i] == b[k])
			return true;
		a[i] < b[k] ? i++ : k++;
	}
	return false;
}

constexpr uint64_t kNoHost = UINT64_MAX, kManyHosts = UINT64_MAX - 1;

// U_l: the up-links out of a level-l subtree, W_l switches of
// w_{l+1} p_{l+1} up-ports each. The link a flow to d takes out of (or
// into) the subtree is keyed by d mod U_l: the route digits b_1..b_l and
// the port q_l(d) of eq. 1 are d's digits in radices w_1..w_l,
// w_{l+1} p_{l+1}.
uint64_t up_links(const Pgft &g, unsigned l)
{
	return g.W(l + 1) * g.p(l + 1);
}

// The shape's level-l subtrees y = floor(j / M_l), ascending.
std::vector<uint64_t> upper_parts(const Pgft &g, const Shape &s, unsigned l)
{
	std::vector<uint64_t> y{0};
	for (unsigned i = g.h(); i > l; i--) {
		std::vector<uint64_t> next;
		for (uint64_t hi : y)
			for (uint32_t a : s.at(i))
				next.push_back(hi * g.m(i) + a);
		y.swap(next);
	}
	return y;
}

std::string digits_text(const Pgft &g, unsigned l, uint64_t x)
{
	std::string t;
	for (unsigned i = l; i >= 1; i--)
		t += cat(i == l ? "" : ".", x / g.M(i - 1) % g.m(i));
	return t;
}

} // namespace

Shape Shape::of(const Pgft &g, std::vector<std::vector<uint32_t>> digits)
{
	if (digits.size() != g.h())
		fail(Status::invalid, "shape: ", digits.size(), " digit sets, expected one per level (",
		     g.h(), ")");
	for (unsigned l = 1; l <= g.h(); l++) {
		std::vector<uint32_t> &d = digits[l - 1];
		std::sort(d.begin(), d.end());
		if (d.empty())
			fail(Status::invalid, "shape: level ", l, " has no digit, expected at least one");
		if (std::adjacent_find(d.begin(), d.end()) != d.end())
			fail(Status::invalid, "shape: level ", l, " repeats digit ",
			     *std::adjacent_find(d.begin(), d.end()));
		if (d.back() >= g.m(l))
			fail(Status::invalid, "shape: level ", l, " digit ", d.back(),
			     ", expected < m_", l, " = ", g.m(l));
	}
	return Shape{std::move(digits)};
}

uint64_t Shape::size() const
{
	uint64_t n = 1;
	for (const auto &d : digits)
		n *= d.size();
	return n;
}

std::vector<uint64_t> Shape::tree_indexes(const Pgft &g) const
{
	// The top digit is the most significant: enumerating S_h first, S_1
	// last gives ascending j.
	return lower_parts(g, *this, g.h());
}

std::string Shape::text() const
{
	std::string t;
	for (size_t l = digits.size(); l >= 1; l--)
		t += cat(l == digits.size() ? "" : "x", digits[l - 1].size());
	return t;
}

bool Shape::contains(const Pgft &g, uint64_t j) const
{
	if (j >= g.hosts())
		return false;
	for (unsigned l = 1; l <= g.h(); l++)
		if (!std::binary_search(at(l).begin(), at(l).end(),
					uint32_t(j / g.M(l - 1) % g.m(l))))
			return false;
	return true;
}

std::optional<Shape> shape_of(const Pgft &g, const std::vector<uint64_t> &tree_indexes)
{
	if (tree_indexes.empty())
		return std::nullopt;
	std::vector<std::vector<uint32_t>> digits(g.h());
	for (uint64_t j : tree_indexes) {
		if (j >= g.hosts())
			fail(Status::invalid, "shape_of: tree index ", j, ", expected < ", g.hosts());
		for (unsigned l = 1; l <= g.h(); l++)
			digits[l - 1].push_back(uint32_t(j / g.M(l - 1) % g.m(l)));
	}
	uint64_t n = 1;
	for (auto &d : digits) {
		std::sort(d.begin(), d.end());
		d.erase(std::unique(d.begin(), d.end()), d.end());
		n *= d.size();
	}
	// Every host lies in the product of its digit sets: the set is that
	// product when it has as many distinct hosts.
	std::vector<uint64_t> sorted = tree_indexes;
	std::sort(sorted.begin(), sorted.end());
	if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end() || sorted.size() != n)
		return std::nullopt;
	return Shape{std::move(digits)};
}

std::string why_not_congestion_free(const Pgft &g, const Shape &s)
{
	// Levels 0 < l < h only: a host's own cables carry one flow each in a
	// permutation, and top switches have no up-links.
	for (unsigned l = 1; l < g.h(); l++) {
		const uint64_t U = up_links(g, l), M = g.M(l);
		if (U % M == 0 || !crosses(s, l))
			continue; // a key names the lower part itself; or no flow leaves
		// (i) Stage N_l of Shift sends every lower part x of one subtree
		// from the previous subtree: each down-link key x mod U_l once.
		const std::vector<uint64_t> xs = lower_parts(g, s, l);
		std::vector<uint64_t> owner(U, kNoHost);
		for (uint64_t x : xs) {
			uint64_t &o = owner[x % U];
			if (o != kNoHost)
				return cat("level ", l, ": lower digits ", digits_text(g, l, o), " and ",
					   digits_text(g, l, x), " are equal mod U_", l, " = W_", l + 1,
					   " p_", l + 1, " = ", U,
					   ": Shift by one subtree puts both on one down-link");
			o = x;
		}
		// (ii) A block of one subtree's ranks lands on the tail (x >= x_o)
		// of subtree y and the head (x' < x_o) of the next one, y': their
		// up-link keys y M + x and y' M + x' must differ mod U_l. Only
		// with three subtrees or more can both lie outside the source's.
		const std::vector<uint64_t> ys = upper_parts(g, s, l);
		if (M % U == 0 || ys.size() < 3)
			continue;
		for (size_t i = 0; i < ys.size(); i++) {
			const uint64_t y = ys[i], y2 = ys[(i + 1) % ys.size()];
			const uint64_t delta = (y2 % U * (M % U) + U - y % U * (M % U) % U) % U;
			for (uint64_t x2 : xs) {
				uint64_t x = owner[(x2 + delta) % U];
				if (x != kNoHost && x > x2)
					return cat("level ", l, ": hosts ", digits_text(g, g.h(), y * M + x),
						   " and ", digits_text(g, g.h(), y2 * M + x2),
						   " are equal mod U_", l, " = ", U,
						   ": Shift sends to both from one level-", l,
						   " subtree over one up-link");
			}
		}
	}
	return "";
}

bool congestion_free(const Pgft &g, const Shape &s)
{
	return why_not_congestion_free(g, s).empty();
}

bool link_disjoint(const Pgft &g, const Shape &a, const Shape &b)
{
	bool common_host = true;
	for (unsigned l = 1; l <= g.h(); l++)
		common_host = common_host && intersect(a.at(l), b.at(l));
	if (common_host)
		return false;
	for (unsigned l = 1; l < g.h(); l++) {
		const uint64_t U = up_links(g, l), M = g.M(l);
		// U_l a multiple of M_l: a link's key names a host of each shape
		// using it, so a shared link would be a shared host.
		if (U % M == 0 || !crosses(a, l) || !crosses(b, l))
			continue;
		// Links out of and into a level-l subtree y: both must use y.
		const std::vector<uint64_t> ya = upper_parts(g, a, l), yb = upper_parts(g, b, l);
		std::vector<uint64_t> common;
		std::set_intersection(ya.begin(), ya.end(), yb.begin(), yb.end(),
				      std::back_inserter(common));
		if (common.empty())
			continue;
		// Down-links into y are keyed y, x mod U_l; so are up-links out
		// of y when U_l divides M_l.
		std::vector<bool> in_a(U);
		for (uint64_t x : lower_parts(g, a, l))
			in_a[x % U] = true;
		for (uint64_t x : lower_parts(g, b, l))
			if (in_a[x % U])
				return false;
		if (M % U == 0)
			continue;
		// Up-links out of y are keyed y, (y2 M + x) mod U_l for a
		// destination in another subtree y2: per residue, the subtree
		// giving it if there is only one (kNoHost: none; kManyHosts: several).
		auto by_residue = [&](const Shape &s) {
			std::vector<uint64_t> from(U, kNoHost);
			for (uint64_t j : s.tree_indexes(g)) {
				uint64_t &f = from[j % U];
				f = f == kNoHost || f == j / M ? j / M : kManyHosts;
			}
			return from;
		};
		const std::vector<uint64_t> fa = by_residue(a), fb = by_residue(b);
		for (uint64_t r = 0; r < U; r++) {
			if (fa[r] == kNoHost || fb[r] == kNoHost)
				continue;
			// A common subtree other than the single sources of r.
			for (uint64_t y : common)
				if (y != fa[r] && y != fb[r])
					return false;
		}
	}
	return true;
}

bool uses_cable(const Pgft &g, const Shape &s, const MissingCable &c)
{
	if (c.level == 0) // a host's cable: every flow of that host
		return s.size() > 1 && s.contains(g, c.index);
	const unsigned l = c.level;
	const std::vector<unsigned> a = g.digits(l, c.index);
	for (unsigned i = l + 1; i <= g.h(); i++)
		if (!std::binary_search(s.at(i).begin(), s.at(i).end(), uint32_t(a[i - 1])))
			return false;
	if (!crosses(s, l))
		return false;
	// The cable's key: route digits b_1..b_l (radices w_i), then port q.
	uint64_t r = c.up_port * g.W(l);
	for (unsigned i = 1; i <= l; i++)
		r += a[i - 1] * g.W(i - 1);
	// Flows from its subtree to a destination elsewhere with that residue
	// go up it; flows from elsewhere to one inside come down it.
	const uint64_t U = up_links(g, l);
	for (uint64_t j : s.tree_indexes(g))
		if (j % U == r)
			return true;
	return false;
}

std::string why_not_congestion_free_hosts(const Pgft &g, std::vector<uint64_t> t)
{
	std::sort(t.begin(), t.end());
	if (std::adjacent_find(t.begin(), t.end()) != t.end())
		fail(Status::invalid, "host set: tree index ", *std::adjacent_find(t.begin(), t.end()),
		     " appears twice, expected distinct hosts");
	if (!t.empty() && t.back() >= g.hosts())
		fail(Status::invalid, "host set: tree index ", t.back(), ", expected < ", g.hosts());
	const size_t n = t.size();
	for (unsigned l = 1; l < g.h() && n > 1; l++) {
		const uint64_t U = up_links(g, l), M = g.M(l);
		if (t.front() / M == t.back() / M)
			continue; // no flow leaves the one level-l subtree
		std::vector<uint32_t> count(U);
		size_t dup = 0;
		auto add = [&](uint64_t j) { dup += ++count[j % U] == 2; };
		auto remove = [&](uint64_t j) { dup -= --count[j % U] == 1; };
		// The two hosts of ranks [from, from + len) (cyclic) whose keys
		// collide, skipping subtree `skip`.
		auto pair = [&](size_t from, size_t len, uint64_t skip) {
			for (size_t i = 0; i < len; i++)
				for (size_t k = i + 1; k < len; k++) {
					uint64_t a = t[(from + i) % n], b = t[(from + k) % n];
					if (a / M != skip && b / M != skip && a % U == b % U)
						return cat(digits_text(g, g.h(), a), " and ",
							   digits_text(g, g.h(), b));
				}
			return std::string();
		};
		for (size_t b = 0, e; b < n; b = e) {
			const uint64_t y = t[b] / M;
			for (e = b; e < n && t[e] / M == y; e++) {
			}
			const size_t c = e - b, len = std::min(c, n - c);
			// Down (key y, j mod U_l): Shift stage k delivers into y from
			// outside to a run of consecutive hosts of y, every run of
			// min(c, n - c) of them for some k.
			for (size_t r = b; r < e; r++) {
				if (r >= b + len)
					remove(t[r - len]);
				add(t[r]);
				const size_t from = std::max(b, r + 1 - std::min(len, r + 1));
				if (dup)
					return cat("level ", l, ": hosts ", pair(from, r + 1 - from, kNoHost),
						   " are equal mod U_", l, " = ", U,
						   " and receive from outside their level-", l,
						   " subtree in one Shift stage, over one down-link");
			}
			for (size_t r = e - len; r < e; r++)
				remove(t[r]);
			// Up (key y, d mod U_l): stage k sends y's c ranks to the c
			// ranks from b + k on; those outside y must differ mod U_l.
			for (size_t r = 0; r < c; r++)
				if (t[r] / M != y)
					add(t[r]);
			for (size_t s = 0; s < n; s++) {
				if (s > 0) {
					if (t[s - 1] / M != y)
						remove(t[s - 1]);
					if (t[(s + c - 1) % n] / M != y)
						add(t[(s + c - 1) % n]);
				}
				if (dup)
					return cat("level ", l, ": Shift by ", (s + n - b) % n,
						   " sends from one level-", l, " subtree to hosts ",
						   pair(s, c, y), ", equal mod U_", l, " = ", U,
						   ", over one up-link");
			}
			for (size_t r = n - 1; r < n - 1 + c; r++)
				if (t[r % n] / M != y)
					remove(t[r % n]);
		}
	}
	return "";
}

bool congestion_free_hosts(const Pgft &g, std::vector<uint64_t> tree_indexes)
{
	return why_not_congestion_free_hosts(g, std::move(tree_indexes)).empty();
}

} // namespace qft
