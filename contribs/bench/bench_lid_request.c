/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_lid_request: what select/rlft's LID choice costs under slurmctld's
 * locks and off them (docs/lid-choice.md, "Off the locks"), through the C
 * API the plugin calls, on the trees of issue 32:
 *   PGFT(3;18,18,6;1,18,6;1,1,3), 1944 hosts, LMC 4;
 *   PGFT(3;18,18,14;1,18,9;1,1,2), 4536 hosts, LMC 3.
 * Per job size (324, 1944, 4536 hosts: a run of hosts from host 7 on, in
 * tree order, not a congestion-free shape; RUNNING two-host jobs tracked
 * beside it):
 *   request   qft_placer_lid_request() + destroy, what job_begin does for
 *             dest and pair under the locks (mean / max over REPS, us);
 *   job       "job" under the locks, as select/rlft makes it (flows
 *             QFT_FLOW_BUDGET >> LMC; us);
 *   dest, pair  qft_lid_request_run(): the worker's choice (s), and its
 *             table's size.
 *   usage: bench_lid_request [RUNNING [REPS [SIZES...]]]
 *   BENCH_NO_RUN=1: the parts under the locks only
 * Built by `make contribs/bench/bench_lid_request` (not in make bench:
 * pair at 4536 hosts takes a while).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qft/qft.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void die(const char *what, qft_status_t st, char *err)
{
	fprintf(stderr, "bench_lid_request: %s: %s (%d)\n", what, err ? err : "?", st);
	exit(1);
}

static void one_size(qft_fabric_t *f, qft_placer_t *p, unsigned lmc, size_t n, int reps)
{
	size_t *hosts = malloc(n * sizeof(*hosts));
	size_t total = qft_fabric_host_count(f);
	double sum = 0, max = 0, t0, job_us;
	qft_lid_request_t *req;
	qft_lid_choice_t ch;
	qft_status_t st;
	char *err = NULL;
	const char *modes[] = {"dest", "pair"};

	for (size_t k = 0; k < n; k++)
		hosts[k] = (7 + k) % total;
	if ((st = qft_fabric_sort_tree_order(f, hosts, n, &err)))
		die("sort", st, err);
	for (int r = 0; r < reps; r++) {
		t0 = now();
		if ((st = qft_placer_lid_request(p, 1, hosts, n, "pair", 0, &req, &err)))
			die("request", st, err);
		qft_lid_request_destroy(req);
		t0 = (now() - t0) * 1e6;
		sum += t0;
		if (t0 > max)
			max = t0;
	}
	t0 = now();
	if ((st = qft_placer_lid_request(p, 1, hosts, n, "job", QFT_FLOW_BUDGET >> lmc, &req,
					 &err)) ||
	    (st = qft_lid_request_run(req, &ch, &err)))
		die("job", st, err);
	job_us = (now() - t0) * 1e6;
	printf("%6zu hosts: request %.0f / %.0f us, job %.0f us (%zu of %zu stages)", n,
	       sum / reps, max, job_us, ch.stages_played, ch.stages_total);
	qft_lid_request_destroy(req);
	qft_lid_choice_clear(&ch);
	fflush(stdout);
	for (int m = 0; m < (getenv("BENCH_NO_RUN") ? 0 : 2); m++) {
		if ((st = qft_placer_lid_request(p, 1, hosts, n, modes[m], 0, &req, &err)))
			die("request", st, err);
		t0 = now();
		if ((st = qft_lid_request_run(req, &ch, &err)))
			die(modes[m], st, err);
		printf(", %s %.2f s (HSD %.3f, %.1f MB)", modes[m], now() - t0, ch.avg_hsd,
		       strlen(ch.table) / 1e6);
		fflush(stdout);
		qft_lid_request_destroy(req);
		qft_lid_choice_clear(&ch);
	}
	printf("\n");
	free(hosts);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *tuple;
		unsigned lmc;
	} trees[] = {{"3;18,18,6;1,18,6;1,1,3", 4}, {"3;18,18,14;1,18,9;1,1,2", 3}};
	size_t running = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	int reps = argc > 2 ? atoi(argv[2]) : 100;
	size_t sizes[8] = {324, 1944, 4536}, nsizes = 3;

	if (argc > 3) {
		nsizes = 0;
		for (int i = 3; i < argc && nsizes < 8; i++)
			sizes[nsizes++] = strtoul(argv[i], NULL, 10);
	}
	for (size_t t = 0; t < 2; t++) {
		qft_fabric_t *f = NULL;
		qft_placer_t *p = NULL;
		qft_status_t st;
		char *err = NULL;
		size_t total;

		if ((st = qft_fabric_generate(trees[t].tuple, NULL, trees[t].lmc, &f, &err)) ||
		    (st = qft_placer_create(f, NULL, &p, &err)))
			die(trees[t].tuple, st, err);
		total = qft_fabric_host_count(f);
		for (size_t j = 0; j < running; j++) {
			size_t two[2] = {(2 * j) % total, (2 * j + 1) % total};

			if ((st = qft_placer_add_job(p, (uint32_t) (100 + j), two, 2, &err)))
				die("add_job", st, err);
		}
		printf("PGFT(%s), %zu hosts, LMC %u, %zu running jobs beside:\n", trees[t].tuple, total,
		       trees[t].lmc, running);
		for (size_t s = 0; s < nsizes; s++)
			if (sizes[s] <= total)
				one_size(f, p, trees[t].lmc, sizes[s], reps);
		qft_placer_destroy(p);
		qft_fabric_destroy(f);
	}
	return 0;
}
