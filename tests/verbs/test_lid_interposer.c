/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libqft-lid.so (contribs/verbs) in front of the test double of libibverbs
 * (fake_ibverbs.c), which this program is linked against as a program is
 * against rdma-core: the symmetric rule of docs/lid-table.md on RC and UC
 * queue pairs (primary and alternate path) and on address handles, what
 * the interposer leaves alone, the tables it refuses and the ports it
 * checks: all or nothing, a process that cannot apply the job's table as
 * its peers do stops with one message (exit 78). Each case runs in a
 * process of its own (harness.h): the interposer reads its environment
 * once. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "contribs/verbs/lid_table.h"

#include "tests/verbs/fake_ibverbs.h"
#include "tests/verbs/harness.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* LMC 2, three hosts, one offset per ordered pair. Seen from n0001 (A)
 * and n0002 (B):
 *	A -> B: dlid 0x0008 | o(A,B)=1 = 0x0009, src_path_bits o(B,A) = 2
 *	B -> A: dlid 0x0004 | o(B,A)=2 = 0x0006, src_path_bits o(A,B) = 1
 * so A's packets leave with SLID 0x0004 | 2 = 0x0006, the LID B's queue
 * pair was told for A, and B's with 0x0008 | 1 = 0x0009, A's for B. */
static const char table_pair[] =
	"# written by test_lid_interposer\n"
	"\n"
	"qft-lid 1\n"
	"lmc 2\n"
	"choice pair\n"
	"hosts 3\n"
	"host n0001 0x0004 1\n"
	"host n0002 0x0008 0\n"
	"host n0007 0x001c 3\n"
	"pairs\n"
	"012\n"
	"201\n"
	"310\n"
	"end\n";

/* One offset per destination (decimal BASE_LIDs): o(A, B) = DEST_OFFSET(B). */
static const char table_dest[] =
	"qft-lid 1\n"
	"lmc 2\n"
	"choice dest\n"
	"hosts 3\n"
	"host n0001 4 1\n"
	"host n0002 8 2\n"
	"host n0007 28 3\n"
	"end\n";

static const char table_job[] =
	"qft-lid 1\n"
	"lmc 2\n"
	"choice job\n"
	"hosts 3\n"
	"host n0001 0x0004 2\n"
	"host n0002 0x0008 2\n"
	"host n0007 0x001c 2\n"
	"end\n";

/* LMC 5: two hexadecimal digits per offset. From h0: to h1 0x0040 | 0x1f,
 * src_path_bits o(h1,h0) = 0x11; to h2 0x0060 | 0x0a, 0x1e. */
static const char table_lmc5[] =
	"qft-lid 1\n"
	"lmc 5\n"
	"choice pair\n"
	"hosts 3\n"
	"host h0 0x0020 0\n"
	"host h1 0x0040 0\n"
	"host h2 0x0060 0\n"
	"pairs\n"
	"001f0a\n"
	"110005\n"
	"1e0300\n"
	"end\n";

/* The path of this case's table. */
static const char *table;

/* --- calls through the interposer ------------------------------------------ */

static struct ibv_qp qp_of(enum ibv_qp_type type)
{
	struct ibv_qp qp = {.context = fake_ibv_context(0), .qp_num = 0x1234, .qp_type = type};

	return qp;
}

static struct ibv_ah_attr ah_to(uint16_t dlid)
{
	struct ibv_ah_attr ah = {.dlid = dlid, .sl = 3, .port_num = 1};

	return ah;
}

static struct ibv_qp_attr rtr_to(uint16_t dlid)
{
	struct ibv_qp_attr attr = {.qp_state = IBV_QPS_RTR, .ah_attr = ah_to(dlid)};

	return attr;
}

#define RTR_MASK (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN)

/* ibv_modify_qp as an application calls it (ibv_modify_qp@IBVERBS_1.1),
 * stderr heard; checks the caller's attributes come back untouched and
 * returns what the interposer said. */
static const char *modify(enum ibv_qp_type type, struct ibv_qp_attr *attr, int mask)
{
	struct ibv_qp qp = qp_of(type);
	const struct ibv_qp_attr before = *attr;
	const char *said;
	int rc;

	fake_ibv_reset();
	harness_listen();
	rc = ibv_modify_qp(&qp, attr, mask);
	said = harness_said();
	assert_int_equal(rc, 0);
	assert_int_equal(fake_ibv_record()->modify_qp, 1);
	assert_int_equal(fake_ibv_record()->attr_mask, mask);
	assert_memory_equal(attr, &before, sizeof(before));
	return said;
}

/* ibv_create_ah, likewise. */
static const char *create_ah(struct ibv_ah_attr *attr)
{
	struct ibv_pd pd = {.context = fake_ibv_context(0)};
	const struct ibv_ah_attr before = *attr;
	const char *said;
	struct ibv_ah *ah;

	fake_ibv_reset();
	harness_listen();
	ah = ibv_create_ah(&pd, attr);
	said = harness_said();
	assert_non_null(ah);
	assert_ptr_equal(ah->pd, &pd);
	ibv_destroy_ah(ah);
	assert_int_equal(fake_ibv_record()->create_ah, 1);
	assert_memory_equal(attr, &before, sizeof(before));
	return said;
}

/* The provider got dlid and src_path_bits, the rest as the caller set it. */
static void expect_ah(const struct ibv_ah_attr *got, uint16_t dlid, uint8_t bits)
{
	assert_int_equal(got->dlid, dlid);
	assert_int_equal(got->src_path_bits, bits);
	assert_int_equal(got->sl, 3);
	assert_int_equal(got->port_num, 1);
}

static void expect_quiet(const char *said)
{
	if (*said)
		fail_msg("expected nothing on stderr, got: %s", said);
}

/* Untouched: the provider got the caller's own attributes. */
static void expect_passed(const void *attr)
{
	assert_ptr_equal(fake_ibv_record()->attr, attr);
}

/* Rewrites one RC path to `dlid`: expects want / bits at the provider. */
static void expect_rc(uint16_t dlid, uint16_t want, uint8_t bits)
{
	struct ibv_qp_attr attr = rtr_to(dlid);

	expect_quiet(modify(IBV_QPT_RC, &attr, RTR_MASK));
	expect_ah(&fake_ibv_record()->ah, want, bits);
}

static void expect_address_handle(uint16_t dlid, uint16_t want, uint8_t bits)
{
	struct ibv_ah_attr attr = ah_to(dlid);

	expect_quiet(create_ah(&attr));
	expect_ah(&fake_ibv_record()->ah, want, bits);
}

/* --- pair, from n0001 (QFT_LID_SELF, over SLURMD_NODENAME=n0002) ----------- */

static void rc_a_to_b(void **state)
{
	struct ibv_qp_attr attr = rtr_to(0x0008);

	(void)state;
	expect_quiet(modify(IBV_QPT_RC, &attr, RTR_MASK));
	expect_ah(&fake_ibv_record()->ah, 0x0009, 2);
	/* a copy went to the provider */
	assert_ptr_not_equal(fake_ibv_record()->attr, &attr);
}

/* B is found by its base: the path bits the caller put in dlid go. */
static void rc_dlid_with_path_bits(void **state)
{
	(void)state;
	expect_rc(0x000b, 0x0009, 2);
	expect_rc(0x001d, 0x001e, 3);
}

static void uc_a_to_n0007(void **state)
{
	struct ibv_qp_attr attr = rtr_to(0x001c);

	(void)state;
	expect_quiet(modify(IBV_QPT_UC, &attr, RTR_MASK));
	expect_ah(&fake_ibv_record()->ah, 0x001e, 3);
}

static void rc_alt_path(void **state)
{
	struct ibv_qp_attr attr = rtr_to(0x0008);

	(void)state;
	attr.alt_ah_attr = ah_to(0x001c);
	expect_quiet(modify(IBV_QPT_RC, &attr, RTR_MASK | IBV_QP_ALT_PATH));
	expect_ah(&fake_ibv_record()->ah, 0x0009, 2);
	expect_ah(&fake_ibv_record()->alt_ah, 0x001e, 3);
}

/* Loading an alternate path later (RTS, IBV_QP_ALT_PATH without
 * IBV_QP_AV): only the alternate path is the caller's to set. */
static void rc_alt_path_only(void **state)
{
	struct ibv_qp_attr attr = rtr_to(0x0008);

	(void)state;
	attr.alt_ah_attr = ah_to(0x001c);
	expect_quiet(modify(IBV_QPT_RC, &attr, IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE));
	expect_ah(&fake_ibv_record()->ah, 0x0008, 0);
	expect_ah(&fake_ibv_record()->alt_ah, 0x001e, 3);
}

/* RTS and the other transitions carry no address. */
static void rc_no_address(void **state)
{
	struct ibv_qp_attr attr = rtr_to(0x0008);

	(void)state;
	attr.qp_state = IBV_QPS_RTS;
	expect_quiet(modify(IBV_QPT_RC, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT));
	expect_passed(&attr);
}

/* UD addresses through address handles; XRC, raw packet and DC
 * (IBV_QPT_DRIVER) queue pairs are left alone. */
static void other_qp_types(void **state)
{
	static const enum ibv_qp_type types[] = {IBV_QPT_UD, IBV_QPT_XRC_SEND, IBV_QPT_XRC_RECV,
						 IBV_QPT_RAW_PACKET, IBV_QPT_DRIVER};
	struct ibv_qp_attr attr = rtr_to(0x0008);

	(void)state;
	for (size_t i = 0; i < N_OF(types); i++) {
		expect_quiet(modify(types[i], &attr, RTR_MASK | IBV_QP_ALT_PATH));
		expect_passed(&attr);
		expect_ah(&fake_ibv_record()->ah, 0x0008, 0);
	}
}

/* RoCE, routed InfiniBand: is_global, the LID is not the address. */
static void rc_global(void **state)
{
	struct ibv_qp_attr attr = rtr_to(0x0008);

	(void)state;
	attr.ah_attr.is_global = 1;
	attr.ah_attr.grh.hop_limit = 64;
	expect_quiet(modify(IBV_QPT_RC, &attr, RTR_MASK));
	expect_passed(&attr);
	expect_ah(&fake_ibv_record()->ah, 0x0008, 0);
}

static void rc_to_self(void **state)
{
	(void)state;
	expect_rc(0x0004, 0x0004, 0);
}

static void ah_a_to_b(void **state)
{
	struct ibv_ah_attr attr = ah_to(0x0008);

	(void)state;
	expect_quiet(create_ah(&attr));
	expect_ah(&fake_ibv_record()->ah, 0x0009, 2);
	assert_ptr_not_equal(fake_ibv_record()->attr, &attr);
	expect_address_handle(0x001e, 0x001e, 3);
}

static void ah_global(void **state)
{
	struct ibv_ah_attr attr = ah_to(0x0008);

	(void)state;
	attr.is_global = 1;
	expect_quiet(create_ah(&attr));
	expect_passed(&attr);
	expect_ah(&fake_ibv_record()->ah, 0x0008, 0);
}

/* Multicast and the permissive LID name no host: silently left (before
 * unknown_peer_once, which spends the one message). */
static void ah_multicast(void **state)
{
	static const uint16_t lids[] = {0xc001, 0xffff, 0};

	(void)state;
	for (size_t i = 0; i < N_OF(lids); i++) {
		struct ibv_ah_attr attr = ah_to(lids[i]);

		expect_quiet(create_ah(&attr));
		expect_passed(&attr);
	}
}

static void unknown_peer_once(void **state)
{
	struct ibv_qp_attr attr = rtr_to(0x0040);
	struct ibv_ah_attr ah = ah_to(0x0044);
	char want[4400];
	const char *said;

	(void)state;
	snprintf(want, sizeof(want), "qft-lid: LID 0x0040 not in %s; left as is\n", table);
	said = modify(IBV_QPT_RC, &attr, RTR_MASK);
	assert_string_equal(said, want);
	expect_passed(&attr);
	/* once per process, not per call */
	expect_quiet(modify(IBV_QPT_RC, &attr, RTR_MASK));
	attr = rtr_to(0x0044);
	expect_quiet(modify(IBV_QPT_UC, &attr, RTR_MASK));
	expect_passed(&attr);
	expect_quiet(create_ah(&ah));
	expect_passed(&ah);
	/* and the known ones still change */
	expect_rc(0x0008, 0x0009, 2);
}

/* A program linked against the IBVERBS_1.0 ABI reaches libibverbs' compat
 * entry, not the interposer (whose ibv_modify_qp takes a 1.1 queue pair);
 * the compat entry calls ibv_modify_qp@IBVERBS_1.1 through libibverbs'
 * PLT, and so the interposer, with the real queue pair. */
int modify_qp_1_0(struct fake_qp_1_0 *qp, struct ibv_qp_attr *attr, int attr_mask);
__asm__(".symver modify_qp_1_0, ibv_modify_qp@IBVERBS_1.0");

static void abi_1_0(void **state)
{
	struct ibv_qp real = qp_of(IBV_QPT_RC);
	struct fake_qp_1_0 old = {.real_qp = &real};
	struct ibv_qp_attr attr = rtr_to(0x0008);

	(void)state;
	fake_ibv_reset();
	assert_int_equal(modify_qp_1_0(&old, &attr, RTR_MASK), 0);
	assert_int_equal(fake_ibv_record()->modify_qp_1_0, 1);
	assert_int_equal(fake_ibv_record()->modify_qp, 1);
	expect_ah(&fake_ibv_record()->ah, 0x0009, 2);
}

static const struct CMUnitTest from_n0001[] = {
	cmocka_unit_test(rc_a_to_b),
	cmocka_unit_test(rc_dlid_with_path_bits),
	cmocka_unit_test(uc_a_to_n0007),
	cmocka_unit_test(rc_alt_path),
	cmocka_unit_test(rc_alt_path_only),
	cmocka_unit_test(rc_no_address),
	cmocka_unit_test(other_qp_types),
	cmocka_unit_test(rc_global),
	cmocka_unit_test(rc_to_self),
	cmocka_unit_test(ah_a_to_b),
	cmocka_unit_test(ah_global),
	cmocka_unit_test(ah_multicast),
	cmocka_unit_test(unknown_peer_once),
	cmocka_unit_test(abi_1_0),
};

/* --- pair, from n0002 (SLURMD_NODENAME), QFT_LID_DEBUG=1 --------------------- */

static void rc_b_to_a(void **state)
{
	struct ibv_qp_attr attr = rtr_to(0x0004);
	const char *said;

	(void)state;
	said = modify(IBV_QPT_RC, &attr, RTR_MASK);
	expect_ah(&fake_ibv_record()->ah, 0x0006, 1);
	if (harness_count(said, "qft-lid: RC qpn 0x001234: dlid 0x0004 -> 0x0006, "
			  "src_path_bits 0 -> 1 (n0002 -> n0001)\n") != 1)
		fail_msg("expected the rewrite on stderr, got: %s", said);
}

static void uc_b_to_n0007(void **state)
{
	struct ibv_qp_attr attr = rtr_to(0x001c);
	const char *said;

	(void)state;
	said = modify(IBV_QPT_UC, &attr, RTR_MASK);
	expect_ah(&fake_ibv_record()->ah, 0x001d, 1);
	assert_string_equal(said, "qft-lid: UC qpn 0x001234: dlid 0x001c -> 0x001d, "
			    "src_path_bits 0 -> 1 (n0002 -> n0007)\n");
}

static void ah_b_to_a(void **state)
{
	struct ibv_ah_attr attr = ah_to(0x0004);
	const char *said;

	(void)state;
	said = create_ah(&attr);
	expect_ah(&fake_ibv_record()->ah, 0x0006, 1);
	assert_string_equal(said, "qft-lid: AH: dlid 0x0004 -> 0x0006, "
			    "src_path_bits 0 -> 1 (n0002 -> n0001)\n");
}

static void rc_b_alt_path(void **state)
{
	struct ibv_qp_attr attr = rtr_to(0x0004);
	const char *said;

	(void)state;
	attr.alt_ah_attr = ah_to(0x001c);
	said = modify(IBV_QPT_RC, &attr, IBV_QP_ALT_PATH);
	expect_ah(&fake_ibv_record()->ah, 0x0004, 0);
	expect_ah(&fake_ibv_record()->alt_ah, 0x001d, 1);
	assert_string_equal(said, "qft-lid: RC qpn 0x001234 alternate path: dlid 0x001c -> "
			    "0x001d, src_path_bits 0 -> 1 (n0002 -> n0007)\n");
}

static const struct CMUnitTest from_n0002[] = {
	cmocka_unit_test(rc_b_to_a),
	cmocka_unit_test(rc_b_alt_path),
	cmocka_unit_test(uc_b_to_n0007),
	cmocka_unit_test(ah_b_to_a),
};

/* --- dest, job, LMC 5 -------------------------------------------------------- */

static void dest_from_n0001(void **state)
{
	(void)state;
	expect_rc(0x0008, 0x000a, 1);
	expect_rc(0x001c, 0x001f, 1);
	expect_address_handle(0x0008, 0x000a, 1);
}

static void job_from_n0001(void **state)
{
	(void)state;
	expect_rc(0x0008, 0x000a, 2);
	expect_rc(0x001e, 0x001e, 2);
	expect_address_handle(0x001c, 0x001e, 2);
}

static void lmc5_from_h0(void **state)
{
	struct ibv_qp_attr attr = rtr_to(0x0080);

	(void)state;
	expect_rc(0x0040, 0x005f, 0x11);
	expect_rc(0x005d, 0x005f, 0x11);
	expect_rc(0x0060, 0x006a, 0x1e);
	expect_address_handle(0x0041, 0x005f, 0x11);
	/* 0x0080 is no host's base */
	assert_true(harness_count(modify(IBV_QPT_RC, &attr, RTR_MASK), "LID 0x0080 not in") == 1);
	expect_passed(&attr);
}

static const struct CMUnitTest dest_tests[] = {cmocka_unit_test(dest_from_n0001)};
static const struct CMUnitTest job_tests[] = {cmocka_unit_test(job_from_n0001)};
static const struct CMUnitTest lmc5_tests[] = {cmocka_unit_test(lmc5_from_h0)};

/* --- host name ----------------------------------------------------------------- */

/* Neither QFT_LID_SELF nor SLURMD_NODENAME: the host name up to the first
 * dot, here the second host of a dest table. */
static void self_from_hostname(void **state)
{
	(void)state;
	expect_rc(0x0002, 0x0003, 1);
	expect_rc(0x0004, 0x0005, 1);
}

static const struct CMUnitTest hostname_tests[] = {cmocka_unit_test(self_from_hostname)};

/* --- QFT_LID_TABLE unset: the interposer passes everything ----------------- */

/* Everything as the caller made it, and nothing on stderr. */
static void left_alone(void **state)
{
	struct ibv_qp_attr attr = rtr_to(0x0008);
	struct ibv_ah_attr ah = ah_to(0x0008);

	(void)state;
	expect_quiet(modify(IBV_QPT_RC, &attr, RTR_MASK));
	expect_passed(&attr);
	attr.alt_ah_attr = ah_to(0x001c);
	expect_quiet(modify(IBV_QPT_UC, &attr, RTR_MASK | IBV_QP_ALT_PATH));
	expect_passed(&attr);
	expect_quiet(create_ah(&ah));
	expect_passed(&ah);
	/* no table: no port is looked at */
	assert_int_equal(fake_ibv_record()->query_port, 0);
}

static const struct CMUnitTest off_tests[] = {cmocka_unit_test(left_alone)};

/* --- all or nothing: the process stops --------------------------------------- */

/* What every stop message ends with (qft_lid.c, STOP_WHY). */
#define STOPS "; this task stops (exit 78): the job's other tasks apply the LID table, " \
	"and a connection rewritten at one end only fails\n"

/* The one message the stopped process must have said. */
static const char *stop_message;

/* Runs `call` in a child process: it must end with status 78, say exactly
 * stop_message, and have passed nothing to the provider. */
static void expect_stop(void (*call)(void))
{
	char said[8192];
	size_t len;
	int status;
	FILE *err = tmpfile();
	pid_t pid;

	assert_non_null(err);
	fake_ibv_reset();
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fileno(err), 2);
		call();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	rewind(err);
	len = fread(said, 1, sizeof(said) - 1, err);
	said[len] = '\0';
	fclose(err);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 78)
		fail_msg("expected exit status 78, got %s %d; stderr: %s",
			 WIFEXITED(status) ? "exit" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), said);
	assert_string_equal(said, stop_message);
	assert_int_equal(fake_ibv_record()->modify_qp, 0);
	assert_int_equal(fake_ibv_record()->create_ah, 0);
}

static void call_modify_qp(void)
{
	struct ibv_qp qp = qp_of(IBV_QPT_RC);
	struct ibv_qp_attr attr = rtr_to(0x0008);

	ibv_modify_qp(&qp, &attr, RTR_MASK);
}

static void call_create_ah(void)
{
	struct ibv_pd pd = {.context = fake_ibv_context(0)};
	struct ibv_ah_attr attr = ah_to(0x0008);

	ibv_create_ah(&pd, &attr);
}

/* A table that does not load stops the process at its first intercepted
 * call, whatever the address (here a RoCE one, which is never rewritten). */
static void call_global(void)
{
	struct ibv_qp qp = qp_of(IBV_QPT_RC);
	struct ibv_qp_attr attr = rtr_to(0x0008);

	attr.ah_attr.is_global = 1;
	ibv_modify_qp(&qp, &attr, RTR_MASK);
}

static void stops_modify_qp(void **state)
{
	(void)state;
	expect_stop(call_modify_qp);
}

static void stops_create_ah(void **state)
{
	(void)state;
	expect_stop(call_create_ah);
}

static void stops_global(void **state)
{
	(void)state;
	expect_stop(call_global);
}

static const struct CMUnitTest stop_tests[] = {
	cmocka_unit_test(stops_modify_qp),
	cmocka_unit_test(stops_create_ah),
	cmocka_unit_test(stops_global),
};

/* A table that loads, a port that contradicts it: only the addresses that
 * leave through that port stop the process. */
static const struct CMUnitTest port_stop_tests[] = {
	cmocka_unit_test(stops_modify_qp),
	cmocka_unit_test(stops_create_ah),
};

/* --- the ports ------------------------------------------------------------------ */

/* RC to n0002 (0x0008) through `port` of HCA `dev`; what the provider got. */
static struct ibv_ah_attr rc_through(unsigned dev, uint8_t port, uint8_t ah_port)
{
	struct ibv_qp qp = qp_of(IBV_QPT_RC);
	struct ibv_qp_attr attr = rtr_to(0x0008);

	qp.context = fake_ibv_context(dev);
	attr.ah_attr.port_num = ah_port;
	attr.port_num = port;
	fake_ibv_reset();
	assert_int_equal(ibv_modify_qp(&qp, &attr, RTR_MASK | (port ? IBV_QP_PORT : 0)), 0);
	assert_int_equal(fake_ibv_record()->modify_qp, 1);
	return fake_ibv_record()->ah;
}

static struct ibv_ah_attr ah_through(unsigned dev, uint8_t port)
{
	struct ibv_pd pd = {.context = fake_ibv_context(dev)};
	struct ibv_ah_attr attr = ah_to(0x0008);
	struct ibv_ah *ah;

	attr.port_num = port;
	fake_ibv_reset();
	ah = ibv_create_ah(&pd, &attr);
	assert_non_null(ah);
	ibv_destroy_ah(ah);
	return fake_ibv_record()->ah;
}

/* Each takes what the provider got once (the argument is a call). */
#define EXPECT_REWRITTEN(call) do { \
	const struct ibv_ah_attr got_ = (call); \
	assert_int_equal(got_.dlid, 0x0009); \
	assert_int_equal(got_.src_path_bits, 2); \
} while (0)
#define EXPECT_UNTOUCHED(call) do { \
	const struct ibv_ah_attr got_ = (call); \
	assert_int_equal(got_.dlid, 0x0008); \
	assert_int_equal(got_.src_path_bits, 0); \
} while (0)

/* fake0: port 1 the table's (0x0004, LMC 2), port 2 another subnet's or
 * an unused LID of this one (0x0040, LMC 0): only port 1 rewrites. */
static void dual_port(void **state)
{
	(void)state;
	EXPECT_REWRITTEN(rc_through(0, 0, 1));
	EXPECT_UNTOUCHED(rc_through(0, 0, 2));
	EXPECT_REWRITTEN(ah_through(0, 1));
	EXPECT_UNTOUCHED(ah_through(0, 2));
	/* the port from IBV_QP_PORT, or from the queue pair, when the
	 * address has none */
	EXPECT_UNTOUCHED(rc_through(0, 2, 0));
	EXPECT_REWRITTEN(rc_through(0, 1, 0));
	fake_ibv_set_qp_port(2);
	EXPECT_UNTOUCHED(rc_through(0, 0, 0));
	fake_ibv_set_qp_port(1);
	EXPECT_REWRITTEN(rc_through(0, 0, 0));
	/* each port is queried once */
	assert_int_equal(fake_ibv_record()->query_port, 0);
}

/* fake0 port 2 the table's, port 1 not: the other way round. */
static void dual_port_second(void **state)
{
	(void)state;
	EXPECT_UNTOUCHED(rc_through(0, 0, 1));
	EXPECT_REWRITTEN(rc_through(0, 0, 2));
	EXPECT_UNTOUCHED(ah_through(0, 1));
	EXPECT_REWRITTEN(ah_through(0, 2));
}

/* Two HCAs (two rails): fake1 port 1 is the table's; fake0 port 1 is the
 * other rail. The interposer looks at fake1 to know fake0 is not this
 * host's table port by mistake. */
static void dual_rail(void **state)
{
	(void)state;
	EXPECT_UNTOUCHED(rc_through(0, 0, 1));
	assert_int_equal(fake_ibv_record()->open_device, 1);
	EXPECT_REWRITTEN(rc_through(1, 0, 1));
	EXPECT_UNTOUCHED(ah_through(0, 1));
	EXPECT_REWRITTEN(ah_through(1, 1));
	assert_int_equal(fake_ibv_record()->open_device, 0);
}

/* A RoCE port has no LIDs: whatever reaches it is left alone, and it is
 * not taken for a port that lost the table's LID; the IB port rewrites. */
static void roce_port(void **state)
{
	(void)state;
	EXPECT_UNTOUCHED(rc_through(1, 0, 1));
	assert_int_equal(fake_ibv_record()->device_list, 0);
	EXPECT_REWRITTEN(rc_through(0, 0, 1));
}

static const struct CMUnitTest dual_port_tests[] = {cmocka_unit_test(dual_port)};
static const struct CMUnitTest dual_port_second_tests[] = {cmocka_unit_test(dual_port_second)};
static const struct CMUnitTest dual_rail_tests[] = {cmocka_unit_test(dual_rail)};
static const struct CMUnitTest roce_tests[] = {cmocka_unit_test(roce_port)};

/* --- the cases ----------------------------------------------------------------- */

struct lid_case {
	const char *table;	/* NULL: QFT_LID_TABLE unset */
	const char *self;	/* QFT_LID_SELF */
	const char *slurmd;	/* SLURMD_NODENAME */
	bool debug;
	const struct CMUnitTest *tests;
	size_t ntests;
	const char *name;
	uint16_t lid;		/* fake0 port 1: base LID and LMC (0: absent) */
	uint8_t lmc;
};

#define TESTS(t) (t), N_OF(t)

static void set_env(const char *name, const char *value)
{
	if (value)
		setenv(name, value, 1);
}

static int run_lid(const void *arg)
{
	const struct lid_case *c = arg;

	set_env("QFT_LID_SELF", c->self);
	set_env("SLURMD_NODENAME", c->slurmd);
	set_env("QFT_LID_DEBUG", c->debug ? "1" : NULL);
	if (c->lid)
		fake_ibv_set_port(0, 1, c->lid, c->lmc);
	if (c->table)
		table = harness_table(c->table);
	return _cmocka_run_group_tests(c->name, c->tests, c->ntests, NULL, NULL);
}

static const struct lid_case pair_a = {table_pair, "n0001", "n0002", false, TESTS(from_n0001),
				       "pair from n0001", 0x0004, 2};
static const struct lid_case pair_b = {table_pair, NULL, "n0002", true, TESTS(from_n0002),
				       "pair from n0002, debug", 0x0008, 2};
static const struct lid_case dest = {table_dest, "n0001", NULL, false, TESTS(dest_tests), "dest",
				     0x0004, 2};
static const struct lid_case job = {table_job, "n0001", NULL, false, TESTS(job_tests), "job",
				    0x0004, 2};
static const struct lid_case lmc5 = {table_lmc5, "h0", NULL, false, TESTS(lmc5_tests), "lmc 5",
				     0x0020, 5};
static const struct lid_case unset = {NULL, "n0001", NULL, false, TESTS(off_tests),
				      "QFT_LID_TABLE unset", 0x0004, 2};
/* The job's decision is base LIDs (docs/lid-table.md): as without a
 * table, on every node; this host need not be named. */
static const char table_base[] = "# select/rlft: JobId=7 runs on base LIDs: late\n"
				  "qft-lid 1\nchoice base\n# why\nend\n";
static const struct lid_case base = {table_base, "n0009", NULL, false, TESTS(off_tests),
				     "base LIDs", 0x0004, 2};

static int run_hostname(const void *arg)
{
	char host[256], text[1024];

	(void)arg;
	if (gethostname(host, sizeof(host))) {
		perror("gethostname");
		return 1;
	}
	host[sizeof(host) - 1] = '\0';
	host[strcspn(host, ".")] = '\0';
	snprintf(text, sizeof(text), "qft-lid 1\nlmc 1\nchoice dest\nhosts 2\n"
		 "host n0001 0x0002 1\nhost %s 0x0004 1\nend\n", host);
	fake_ibv_set_port(0, 1, 0x0004, 1);
	table = harness_table(text);
	return _cmocka_run_group_tests("host name", TESTS(hostname_tests), NULL, NULL);
}

static int run_self_missing(const void *arg)
{
	static char want[4400];

	(void)arg;
	setenv("QFT_LID_SELF", "n9999", 1);
	setenv("SLURMD_NODENAME", "n0001", 1);
	fake_ibv_set_port(0, 1, 0x0004, 2);
	table = harness_table(table_pair);
	snprintf(want, sizeof(want), "qft-lid: %s: expected a line \"host n9999 BASE_LID "
		 "DEST_OFFSET\" (this host, by QFT_LID_SELF)" STOPS, table);
	stop_message = want;
	return _cmocka_run_group_tests("self not in the table", TESTS(stop_tests), NULL, NULL);
}

static int run_no_file(const void *arg)
{
	static char path[4400], want[4600];

	(void)arg;
	setenv("QFT_LID_SELF", "n0001", 1);
	fake_ibv_set_port(0, 1, 0x0004, 2);
	snprintf(path, sizeof(path), "%s.absent", harness_table(table_pair));
	setenv("QFT_LID_TABLE", path, 1);
	snprintf(want, sizeof(want), "qft-lid: %s: No such file or directory" STOPS, path);
	stop_message = want;
	return _cmocka_run_group_tests("no table file", TESTS(stop_tests), NULL, NULL);
}

/* QFT_LID_DIGEST, as select/rlft sets it: the same table loads, another
 * one stops the process. */
static void digest_known(void **state)
{
	/* FNV-1a 64 of "a" (the published test vector) */
	(void)state;
	assert_true(lid_digest(LID_DIGEST_INIT, "a", 1) == UINT64_C(0xaf63dc4c8601ec8c));
	expect_rc(0x0008, 0x0009, 2);
}

static const struct CMUnitTest digest_tests[] = {cmocka_unit_test(digest_known)};

static void set_digest(const char *text)
{
	char digest[64];

	snprintf(digest, sizeof(digest), LID_DIGEST_FMT, lid_digest(LID_DIGEST_INIT, text,
								     strlen(text)));
	setenv("QFT_LID_DIGEST", digest, 1);
}

static int run_digest_same(const void *arg)
{
	(void)arg;
	setenv("QFT_LID_SELF", "n0001", 1);
	fake_ibv_set_port(0, 1, 0x0004, 2);
	table = harness_table(table_pair);
	set_digest(table_pair);
	return _cmocka_run_group_tests("digest the same", TESTS(digest_tests), NULL, NULL);
}

/* The node's table differs by one offset from the one the digest is of. */
static int run_digest_differs(const void *arg)
{
	static char want[4600], other[sizeof(table_pair)], got[64];

	(void)arg;
	setenv("QFT_LID_SELF", "n0001", 1);
	fake_ibv_set_port(0, 1, 0x0004, 2);
	set_digest(table_pair);
	memcpy(other, table_pair, sizeof(table_pair));
	*strstr(other, "201\n") = '3';
	table = harness_table(other);
	snprintf(got, sizeof(got), LID_DIGEST_FMT, lid_digest(LID_DIGEST_INIT, other,
							      strlen(other)));
	snprintf(want, sizeof(want), "qft-lid: %s: digest %s, expected QFT_LID_DIGEST=%s (the "
		 "table select/rlft wrote for the job)" STOPS, table, got, getenv("QFT_LID_DIGEST"));
	stop_message = want;
	return _cmocka_run_group_tests("digest differs", TESTS(stop_tests), NULL, NULL);
}

/* The port whose LID is this host's has LMC 0: BASE | offset would be
 * another host's LID. */
static int run_live_lmc0(const void *arg)
{
	static char want[4600];

	(void)arg;
	setenv("QFT_LID_SELF", "n0001", 1);
	fake_ibv_set_port(0, 1, 0x0004, 0);
	table = harness_table(table_pair);
	snprintf(want, sizeof(want), "qft-lid: %s:4: expected lmc 2 on this host's port, but fake0 "
		 "port 1 (LID 0x0004) has LMC 0: the offsets would address other hosts" STOPS,
		 table);
	stop_message = want;
	return _cmocka_run_group_tests("live LMC 0", TESTS(port_stop_tests), NULL, NULL);
}

/* No port of the host has the table's LID for it (the SM moved it, or the
 * table is another fabric's). */
static int run_wrong_base(const void *arg)
{
	static char want[4600];

	(void)arg;
	setenv("QFT_LID_SELF", "n0001", 1);
	fake_ibv_set_port(0, 1, 0x0010, 2);
	fake_ibv_set_port(1, 1, 0x0014, 2);
	table = harness_table(table_pair);
	snprintf(want, sizeof(want), "qft-lid: %s:7: expected a port with base LID 0x0004 on n0001, "
		 "but this host has none (fake0 port 1: LID 0x0010 LMC 2, fake1 port 1: LID 0x0014 "
		 "LMC 2)" STOPS, table);
	stop_message = want;
	return _cmocka_run_group_tests("wrong base LID", TESTS(port_stop_tests), NULL, NULL);
}

/* Two ports or two HCAs, one of them the table's. */
struct ports_case {
	const char *name;
	const struct CMUnitTest *tests;
	size_t ntests;
	struct {
		unsigned dev;
		uint8_t port;
		uint16_t lid;	/* 0: RoCE */
		uint8_t lmc;
	} set[2];
};

static int run_ports(const void *arg)
{
	const struct ports_case *c = arg;

	setenv("QFT_LID_SELF", "n0001", 1);
	for (size_t i = 0; i < N_OF(c->set); i++)
		if (c->set[i].lid)
			fake_ibv_set_port(c->set[i].dev, c->set[i].port, c->set[i].lid, c->set[i].lmc);
		else
			fake_ibv_set_ethernet(c->set[i].dev, c->set[i].port);
	table = harness_table(table_pair);
	return _cmocka_run_group_tests(c->name, c->tests, c->ntests, NULL, NULL);
}

static const struct ports_case two_ports = {"dual-port", TESTS(dual_port_tests),
					    {{0, 1, 0x0004, 2}, {0, 2, 0x0040, 0}}};
static const struct ports_case two_ports_second = {"dual-port, the second the table's",
						   TESTS(dual_port_second_tests),
						   {{0, 1, 0x0040, 0}, {0, 2, 0x0004, 2}}};
static const struct ports_case two_rails = {"dual-rail", TESTS(dual_rail_tests),
					    {{0, 1, 0x0040, 0}, {1, 1, 0x0004, 2}}};
static const struct ports_case roce = {"RoCE HCA beside", TESTS(roce_tests),
				       {{0, 1, 0x0004, 2}, {1, 1, 0, 0}}};

/* A table the interposer refuses: the line it names and what it says was
 * expected there. */
struct refused {
	const char *text;
	unsigned line;
	const char *expected;
};

static int run_refused(const void *arg)
{
	const struct refused *r = arg;
	static char want[8192];

	setenv("QFT_LID_SELF", "n0001", 1);
	fake_ibv_set_port(0, 1, 0x0004, 2);
	table = harness_table(r->text);
	snprintf(want, sizeof(want), "qft-lid: %s:%u: expected %s" STOPS, table, r->line,
		 r->expected);
	stop_message = want;
	return _cmocka_run_group_tests(r->expected, TESTS(stop_tests), NULL, NULL);
}

#define HEAD_PAIR "qft-lid 1\nlmc 2\nchoice pair\nhosts 3\n"
#define HOSTS_3 "host n0001 0x0004 0\nhost n0002 0x0008 0\nhost n0007 0x001c 0\n"

static const struct refused no_end = {
	"# no end: the writer died\n" HEAD_PAIR HOSTS_3 "pairs\n012\n201\n310\n",
	13, "\"end\", not the end of the file"};
static const struct refused bad_digit = {
	HEAD_PAIR HOSTS_3 "pairs\n012\n2g1\n310\nend\n",
	10, "hexadecimal digits, not \"g\" (row 2, column 2)"};
static const struct refused too_few_hosts = {
	HEAD_PAIR "host n0001 0x0004 0\nhost n0002 0x0008 0\npairs\n01\n10\nend\n",
	7, "\"host NAME BASE_LID DEST_OFFSET\" (host 3 of 3)"};
static const struct refused too_many_hosts = {
	"qft-lid 1\nlmc 2\nchoice dest\nhosts 2\n" HOSTS_3 "end\n",
	7, "\"end\""};
static const struct refused too_few_rows = {
	HEAD_PAIR HOSTS_3 "pairs\n012\n201\nend\n",
	11, "row 3 of 3: 3 hexadecimal digits"};
static const struct refused version = {
	"# a later format\nqft-lid 2\n", 2, "\"qft-lid 1\""};
static const struct refused lmc_range = {
	"qft-lid 1\nlmc 8\n", 2, "\"lmc N\" with N 0..7, or \"choice base\""};
static const struct refused base_with_hosts = {
	"qft-lid 1\nchoice base\nhosts 1\nhost n0001 0x0004 0\nend\n", 3, "\"end\""};
static const struct refused no_choice = {
	"qft-lid 1\nlmc 2\nchoice stripe\n", 3,
	"\"choice pair\", \"choice dest\" or \"choice job\""};
static const struct refused no_hosts = {
	"qft-lid 1\nlmc 2\nchoice job\nhosts 0\n", 4, "\"hosts N\" with N 1..12287"};
static const struct refused offset_range = {
	HEAD_PAIR HOSTS_3 "pairs\n042\n201\n310\nend\n",
	9, "offsets 0..3, not 4 (row 1, column 2)"};
static const struct refused lmc5_one_digit = {
	"qft-lid 1\nlmc 5\nchoice pair\nhosts 2\nhost h0 0x0020 0\nhost h1 0x0040 0\n"
	"pairs\n01\n10\nend\n",
	8, "row 1 of 2: 4 hexadecimal digits"};
static const struct refused lmc5_range = {
	"qft-lid 1\nlmc 5\nchoice pair\nhosts 2\nhost h0 0x0020 0\nhost h1 0x0040 0\n"
	"pairs\n0020\n1f00\nend\n",
	8, "offsets 0..31, not 32 (row 1, column 2)"};
static const struct refused diagonal = {
	HEAD_PAIR HOSTS_3 "pairs\n112\n201\n310\nend\n",
	9, "0 on the diagonal, not 1 (row 1)"};
static const struct refused base_align = {
	HEAD_PAIR "host n0001 0x0006 0\n", 5,
	"BASE_LID a multiple of 4 in 0x0001..0xbffc, not 0x0006"};
static const struct refused dest_range = {
	HEAD_PAIR "host n0001 0x0004 4\n", 5, "DEST_OFFSET 0..3, not 4"};
static const struct refused same_host = {
	HEAD_PAIR "host n0001 0x0004 0\nhost n0001 0x0008 0\n", 6,
	"a host not named before, not n0001 again"};
static const struct refused same_base = {
	HEAD_PAIR "host n0001 0x0004 0\nhost n0002 4 0\n", 6,
	"a BASE_LID not given before, not 0x0004 again"};
static const struct refused job_unequal = {
	"qft-lid 1\nlmc 2\nchoice job\nhosts 2\nhost n0001 0x0004 2\nhost n0002 0x0008 1\nend\n",
	6, "DEST_OFFSET 2 as on every host under choice job, not 1"};
static const struct refused pairs_under_dest = {
	"qft-lid 1\nlmc 2\nchoice dest\nhosts 1\nhost n0001 0x0004 2\npairs\n0\nend\n",
	6, "\"end\" (\"pairs\" only under choice pair)"};
static const struct refused after_end = {
	"qft-lid 1\nlmc 2\nchoice dest\nhosts 1\nhost n0001 0x0004 2\nend\nend\n",
	7, "nothing after \"end\""};

#define REFUSED(r) {"refused: " #r, run_refused, &(r), 0}

static const struct harness_case cases[] = {
	{"pair from n0001", run_lid, &pair_a, 0},
	{"pair from n0002", run_lid, &pair_b, 0},
	{"dest", run_lid, &dest, 0},
	{"job", run_lid, &job, 0},
	{"lmc 5", run_lid, &lmc5, 0},
	{"self from the host name", run_hostname, NULL, 0},
	{"self not in the table", run_self_missing, NULL, 0},
	{"QFT_LID_TABLE unset", run_lid, &unset, 0},
	{"base LIDs", run_lid, &base, 0},
	{"no table file", run_no_file, NULL, 0},
	{"digest the same", run_digest_same, NULL, 0},
	{"digest differs", run_digest_differs, NULL, 0},
	{"live LMC 0", run_live_lmc0, NULL, 0},
	{"wrong base LID", run_wrong_base, NULL, 0},
	{"dual-port", run_ports, &two_ports, 0},
	{"dual-port, the second the table's", run_ports, &two_ports_second, 0},
	{"dual-rail", run_ports, &two_rails, 0},
	{"RoCE HCA beside", run_ports, &roce, 0},
	REFUSED(no_end),
	REFUSED(bad_digit),
	REFUSED(too_few_hosts),
	REFUSED(too_many_hosts),
	REFUSED(too_few_rows),
	REFUSED(version),
	REFUSED(lmc_range),
	REFUSED(no_choice),
	REFUSED(no_hosts),
	REFUSED(offset_range),
	REFUSED(lmc5_one_digit),
	REFUSED(lmc5_range),
	REFUSED(diagonal),
	REFUSED(base_align),
	REFUSED(dest_range),
	REFUSED(same_host),
	REFUSED(same_base),
	REFUSED(job_unequal),
	REFUSED(pairs_under_dest),
	REFUSED(after_end),
	REFUSED(base_with_hosts),
};

int main(int argc, char **argv)
{
	(void)argc;
	return harness_main(cases, N_OF(cases), argv);
}
