/* SPDX-License-Identifier: GPL-2.0-or-later */
/* select/rlft's node count for jobs sized by tasks, CPUs, memory and node
 * ranges (src/plugins/select/rlft/rlft_count.c), against the counts
 * cons_tres gives the same jobs on 32-CPU nodes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "src/plugins/select/rlft/rlft_count.h"

static const rlft_node_cap_t node32 = {.cpus = 32, .memory = 64000};

/* What slurmctld hands select_g_job_test for a job without -N: min 1,
 * max and req the partition's, details->max_nodes 0. */
static rlft_demand_t no_range(uint32_t tasks)
{
	rlft_demand_t d = {.min_nodes = 1, .max_nodes = 1944, .req_nodes = 1,
			   .num_tasks = tasks, .min_cpus = tasks, .cpus_per_task = 1};
	return d;
}

static void expect(const rlft_demand_t *d, uint32_t lo, uint32_t hi, uint32_t want)
{
	rlft_count_t c;
	assert_true(rlft_count(d, &node32, &c));
	assert_null(c.why_not);
	assert_int_equal(c.lo, lo);
	assert_int_equal(c.hi, hi);
	assert_int_equal(c.want, want);
}

static void expect_pass(const rlft_demand_t *d, const char *why)
{
	rlft_count_t c;
	assert_false(rlft_count(d, &node32, &c));
	assert_non_null(c.why_not);
	assert_string_equal(c.why_not, why);
}

static void tasks_only(void **state)
{
	(void)state;
	rlft_demand_t d = no_range(128); /* -n 128 */
	expect(&d, 4, 4, 4);
	d = no_range(33); /* one task more than a node: two nodes */
	expect(&d, 2, 2, 2);
	d = no_range(10);
	expect_pass(&d, "one node: no fabric traffic to place");
}

static void cpus_per_task(void **state)
{
	(void)state;
	rlft_demand_t d = no_range(100); /* -n 100 -c 4: 8 tasks a node */
	d.cpus_per_task = 4;
	d.min_cpus = 400;
	expect(&d, 13, 13, 13);
	d = no_range(0); /* -c 4 alone: one task */
	d.cpus_per_task = 4;
	d.min_cpus = 4;
	expect_pass(&d, "one node: no fabric traffic to place");
	d.cpus_per_task = 33;
	d.min_cpus = 33;
	expect_pass(&d, "one task does not fit on a node");
}

static void node_ranges(void **state)
{
	(void)state;
	/* -N 4-16: req_nodes is max_nodes unless --use-min-nodes */
	rlft_demand_t d = {.min_nodes = 4, .max_nodes = 16, .req_nodes = 16,
			   .range_given = true, .min_cpus = 4};
	expect(&d, 4, 16, 16);
	d.req_nodes = 4; /* --use-min-nodes */
	expect(&d, 4, 16, 4);
	d.req_nodes = 16; /* -N 4-16 -n 8: never more nodes than tasks */
	d.num_tasks = 8;
	d.min_cpus = 8;
	expect(&d, 4, 8, 8);
	d.num_tasks = 200; /* -N 4-16 -n 200: at least 7 nodes */
	d.min_cpus = 200;
	expect(&d, 7, 16, 16);
	/* -N 2 -n 200: 200 tasks do not fit on 2 nodes; cons_tres says so */
	rlft_demand_t two = {.min_nodes = 2, .max_nodes = 2, .req_nodes = 2,
			     .range_given = true, .num_tasks = 200, .min_cpus = 200};
	expect_pass(&two, "the tasks need more nodes than the node range allows");
	two.overcommit = true; /* -O: they do */
	expect(&two, 2, 2, 2);
}

static void per_node_limits(void **state)
{
	(void)state;
	/* --ntasks-per-node=2 -N 9: slurmctld sets num_tasks 18 */
	rlft_demand_t d = {.min_nodes = 9, .max_nodes = 9, .req_nodes = 9,
			   .range_given = true, .num_tasks = 18, .min_cpus = 18,
			   .ntasks_per_node = 2};
	expect(&d, 9, 9, 9);
	/* --mem-per-cpu=4000 -n 64: 16 tasks fit in 64000 MB */
	d = no_range(64);
	d.mem_per_cpu = 4000;
	expect(&d, 4, 4, 4);
	d.cannot_tell = "sockets, cores or threads requested";
	expect_pass(&d, "sockets, cores or threads requested");
}

/* What a partly used node must still have free (rlft_cpus_per_node). */
static void cpus_per_node(void **state)
{
	(void)state;
	rlft_demand_t d = no_range(8); /* -N 4 -n 8: two CPUs on each node */
	assert_int_equal(rlft_cpus_per_node(&d, 4), 2);
	assert_int_equal(rlft_cpus_per_node(&d, 3), 3); /* 3, 3, 2: the most */
	d.cpus_per_task = 4; /* -n 8 -c 4 */
	assert_int_equal(rlft_cpus_per_node(&d, 4), 8);
	d = no_range(0); /* -c 4 -N 2 alone: min_cpus counts CPUs */
	d.cpus_per_task = 4;
	d.min_cpus = 4;
	assert_int_equal(rlft_cpus_per_node(&d, 2), 4);
	d = no_range(64); /* --ntasks-per-node wins over the spread */
	d.ntasks_per_node = 2;
	assert_int_equal(rlft_cpus_per_node(&d, 4), 2);
	d = no_range(64); /* -O: tasks share CPUs */
	d.overcommit = true;
	assert_int_equal(rlft_cpus_per_node(&d, 4), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tasks_only),
		cmocka_unit_test(cpus_per_task),
		cmocka_unit_test(node_ranges),
		cmocka_unit_test(per_node_limits),
		cmocka_unit_test(cpus_per_node),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
