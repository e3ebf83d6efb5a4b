// SPDX-License-Identifier: GPL-2.0-or-later
#include <vector>

#include "lib/common/hostlist.hpp"

#include "tests/unit/cmocka.hpp"

using namespace qft;

namespace {

std::string joined(const std::vector<std::string> &v)
{
	std::string s;
	for (const auto &x : v)
		s += (s.empty() ? "" : " ") + x;
	return s;
}

void expands(void **)
{
	assert_string_equal(joined(hostlist_expand("n[0001-0003,0007]")).c_str(),
			    "n0001 n0002 n0003 n0007");
	assert_string_equal(joined(hostlist_expand("a,b[8-10]c,d")).c_str(),
			    "a b8c b9c b10c d");
	assert_string_equal(joined(hostlist_expand("x[098-101]")).c_str(),
			    "x098 x099 x100 x101");
	assert_int_equal(hostlist_expand("n[0001-1944]").size(), 1944);
}

void compresses(void **)
{
	assert_string_equal(hostlist_compress({"n0001", "n0002", "n0003", "n0007"}).c_str(),
			    "n[0001-0003,0007]");
	assert_string_equal(hostlist_compress({"a", "b1", "b2", "c09", "c10"}).c_str(),
			    "a,b[1-2],c[09-10]");
	assert_string_equal(hostlist_compress({"n10", "n05"}).c_str(), "n10,n05");
	assert_string_equal(hostlist_compress({"n3", "n1", "n2"}).c_str(), "n[3,1-2]");
	// compress(expand(x)) == x for Slurm's own forms
	for (const char *e : {"n[0001-0018,0020]", "gpu[1-4],login1", "x[098-101]"})
		assert_string_equal(hostlist_compress(hostlist_expand(e)).c_str(), e);
}

void rejects_empty(void **) { expect_error([] { hostlist_expand(""); }, Status::parse, "empty"); }
void rejects_empty_entry(void **) { expect_error([] { hostlist_expand("a,,b"); }, Status::parse, "character 3: expected a host name"); }
void rejects_trailing_comma(void **) { expect_error([] { hostlist_expand("a,"); }, Status::parse, "a host name after ','"); }
void rejects_unclosed(void **) { expect_error([] { hostlist_expand("n[1-3"); }, Status::parse, "closing ']'"); }
void rejects_stray_close(void **) { expect_error([] { hostlist_expand("n1-3]"); }, Status::parse, "'[' before ']'"); }
void rejects_reversed(void **) { expect_error([] { hostlist_expand("n[5-3]"); }, Status::parse, "not below its start"); }
void rejects_letters(void **) { expect_error([] { hostlist_expand("n[a-3]"); }, Status::parse, "a number inside [ ]"); }
void rejects_two_brackets(void **) { expect_error([] { hostlist_expand("r[1-2]n[1-2]"); }, Status::parse, "at most one [ ]"); }
void rejects_huge(void **) { expect_error([] { hostlist_expand("n[0-99999999]"); }, Status::parse, "at most 1048576 names"); }
// Found by the fuzzer: many ranges, each allowed alone, must not add up.
void rejects_huge_total(void **) { expect_error([] { hostlist_expand("a[0-900000],b[0-900000]"); }, Status::parse, "character 15: expected at most 1048576 names"); }
void rejects_blank(void **) { expect_error([] { hostlist_expand("n1 n2"); }, Status::parse, "no white space"); }

} // namespace

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(expands),
		cmocka_unit_test(compresses),
		cmocka_unit_test(rejects_empty),
		cmocka_unit_test(rejects_empty_entry),
		cmocka_unit_test(rejects_trailing_comma),
		cmocka_unit_test(rejects_unclosed),
		cmocka_unit_test(rejects_stray_close),
		cmocka_unit_test(rejects_reversed),
		cmocka_unit_test(rejects_letters),
		cmocka_unit_test(rejects_two_brackets),
		cmocka_unit_test(rejects_huge),
		cmocka_unit_test(rejects_huge_total),
		cmocka_unit_test(rejects_blank),
	};
	return cmocka_run_group_tests_name("hostlist", tests, nullptr, nullptr);
}
