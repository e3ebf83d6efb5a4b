// SPDX-License-Identifier: GPL-2.0-or-later
// No C++ exception leaves the C API (lib/capi/qft_capi.cpp): slurmctld is
// C, and an exception reaching it aborts the daemon. The faults come from
// this program's own operator new, which throws std::bad_alloc on the
// allocation a test names: libqft is linked in statically, so its
// allocations come here, and no hook is compiled into the library.
#include "qft/qft.h"

#include <cstdlib>
#include <new>
#include <string>

#include "cmocka.hpp"

namespace {

long fail_at = -1; // the allocation (0: the next one) that throws; -1: none
bool injected;     // fail_at was reached since it was armed

void *allocate(std::size_t n)
{
	if (fail_at >= 0 && fail_at-- == 0) {
		injected = true;
		throw std::bad_alloc();
	}
	if (void *p = std::malloc(n ? n : 1))
		return p;
	throw std::bad_alloc();
}

void arm(long at)
{
	injected = false;
	fail_at = at;
}

void disarm() { fail_at = -1; }

// What the error handler was told last.
struct Told {
	int calls = 0;
	std::string func, msg;
} told;

void remember(const char *func, const char *msg)
{
	told.calls++;
	told.func = func;
	told.msg = msg;
}

} // namespace

// Every form, so that no block is freed by an allocator that did not make it
// (the sanitizers' runtime has its own operator new).
void *operator new(std::size_t n) { return allocate(n); }
void *operator new[](std::size_t n) { return allocate(n); }
void *operator new(std::size_t n, const std::nothrow_t &) noexcept
{
	try {
		return allocate(n);
	} catch (const std::bad_alloc &) {
		return nullptr;
	}
}
void *operator new[](std::size_t n, const std::nothrow_t &t) noexcept
{
	return operator new(n, t);
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { std::free(p); }

namespace {

// A failed call, as the C caller would see it: whether an exception got out
// and what the error handler was told.
struct Seen {
	bool escaped = false;
	std::string what;
};

// The placer's fabric: two leaves at least, so that a job crosses links
// and removing it counts them down (lib/place/links.cpp).
const char *const kTuple = "2;4,4;1,4;1,1";
const size_t kJob[] = {0, 1, 4, 5};

template <typename F> Seen call(F &&f)
{
	Seen s;
	try {
		f();
	} catch (const std::exception &e) {
		s.escaped = true;
		s.what = e.what();
	} catch (...) {
		s.escaped = true;
		s.what = "(not a std::exception)";
	}
	return s;
}

struct Placed {
	qft_fabric_t *fabric = nullptr;
	qft_placer_t *placer = nullptr;
	Placed()
	{
		assert_int_equal(qft_fabric_generate(kTuple, nullptr, 0, &fabric, nullptr), QFT_OK);
		assert_string_equal(qft_fabric_routing(fabric), "dmodk");
		assert_int_equal(qft_placer_create(fabric, nullptr, &placer, nullptr), QFT_OK);
		assert_int_equal(qft_placer_add_job(placer, 1, kJob, 4, nullptr), QFT_OK);
		assert_int_equal(qft_placer_running(placer), 1);
	}
	~Placed()
	{
		qft_placer_destroy(placer);
		qft_fabric_destroy(fabric);
	}
	// Whether a job of every host places now: none is held any more.
	bool all_free() const
	{
		const size_t n = qft_fabric_host_count(fabric);
		std::string eligible(n, '\1');
		qft_placement_t out;
		const qft_status_t st =
			qft_placer_place(placer, uint32_t(n),
					 reinterpret_cast<const uint8_t *>(eligible.data()), nullptr,
					 nullptr, 0, &out, nullptr);
		return st == QFT_OK && out.outcome == QFT_PLACED;
	}
};

// Issue 30 item 7: qft_placer_remove_job() ran unguarded, and the link
// count below it allocates.
void remove_job_out_of_memory_stays_inside(void **)
{
	Placed pl;
	told = Told();
	arm(0);
	const Seen s = call([&] { qft_placer_remove_job(pl.placer, 1); });
	disarm();
	assert_true(injected);
	if (s.escaped)
		fail_msg("qft_placer_remove_job let an exception out: %s", s.what.c_str());
	assert_int_equal(told.calls, 1);
	assert_string_equal(told.func.c_str(), "qft_placer_remove_job");
	assert_string_equal(told.msg.c_str(), "out of memory");
	// Refused whole: the job is still counted, and removing it again frees
	// its hosts once, not twice.
	assert_int_equal(qft_placer_running(pl.placer), 1);
	qft_placer_remove_job(pl.placer, 1);
	assert_int_equal(qft_placer_running(pl.placer), 0);
	assert_true(pl.all_free());
}

// Every function of the C API that has no status to return, with each of
// its allocations failing in turn: none lets the exception out.
void no_status_functions_keep_exceptions_in(void **)
{
	Placed pl;
	// Longer than any std::string keeps inline: the lookup allocates.
	const std::string name(64, 'x');
	struct Case {
		const char *name;
		void (*run)(const Placed &, const std::string &);
	};
	const Case cases[] = {
		{"qft_fabric_tree_name",
		 [](const Placed &p, const std::string &) { qft_fabric_tree_name(p.fabric); }},
		{"qft_fabric_find_host",
		 [](const Placed &p, const std::string &n) {
			 qft_fabric_find_host(p.fabric, n.c_str());
		 }},
		{"qft_fabric_report",
		 [](const Placed &p, const std::string &) { qft_fabric_report(p.fabric); }},
		{"qft_fabric_routing",
		 [](const Placed &p, const std::string &) { qft_fabric_routing(p.fabric); }},
		{"qft_fabric_host_name",
		 [](const Placed &p, const std::string &) { qft_fabric_host_name(p.fabric, 3); }},
		{"qft_fabric_host_attached",
		 [](const Placed &p, const std::string &) { qft_fabric_host_attached(p.fabric, 3); }},
		{"qft_fabric_attached_host_count",
		 [](const Placed &p, const std::string &) {
			 qft_fabric_attached_host_count(p.fabric);
		 }},
		{"qft_fabric_group",
		 [](const Placed &p, const std::string &) { qft_fabric_group(p.fabric, 0); }},
		{"qft_placer_running",
		 [](const Placed &p, const std::string &) { qft_placer_running(p.placer); }},
		{"qft_placer_remove_job",
		 [](const Placed &p, const std::string &) { qft_placer_remove_job(p.placer, 1); }},
	};
	for (const Case &c : cases) {
		for (long at = 0;; at++) {
			told = Told();
			arm(at);
			const Seen s = call([&] { c.run(pl, name); });
			disarm();
			if (s.escaped)
				fail_msg("%s let an exception out at allocation %ld: %s", c.name,
					 at, s.what.c_str());
			if (!injected)
				break; // done before allocation `at`
			// (iostreams inside may swallow it: qft::cat's ostringstream)
			if (told.calls)
				assert_string_equal(told.func.c_str(), c.name);
		}
	}
}

// A job whose add fails at any of its allocations leaves nothing behind:
// its hosts stay free, and the placer goes on.
void failed_add_job_holds_nothing(void **)
{
	Placed pl;
	const size_t other[] = {8, 9, 12, 13};
	long failed = 0;
	for (long at = 0;; at++) {
		char *err = nullptr;
		arm(at);
		qft_status_t st = QFT_OK;
		const Seen s = call([&] { st = qft_placer_add_job(pl.placer, 2, other, 4, &err); });
		disarm();
		if (s.escaped)
			fail_msg("qft_placer_add_job let an exception out at allocation %ld: %s",
				 at, s.what.c_str());
		if (!injected) {
			assert_int_equal(st, QFT_OK);
			break;
		}
		failed++;
		assert_int_equal(st, QFT_ENOMEM);
		assert_string_equal(err, "out of memory");
		qft_free(err);
		assert_int_equal(qft_placer_running(pl.placer), 1);
	}
	assert_true(failed > 0);
	assert_int_equal(qft_placer_running(pl.placer), 2);
	qft_placer_remove_job(pl.placer, 1);
	qft_placer_remove_job(pl.placer, 2);
	assert_true(pl.all_free());
}

int setup(void **)
{
	told = Told();
	qft_set_error_handler(remember);
	return 0;
}

int teardown(void **)
{
	qft_set_error_handler(nullptr);
	return 0;
}

} // namespace

int main()
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(remove_job_out_of_memory_stays_inside),
		cmocka_unit_test(no_status_functions_keep_exceptions_in),
		cmocka_unit_test(failed_add_job_holds_nothing),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
