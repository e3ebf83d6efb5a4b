/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libqft-lid.so when the application is not linked against libibverbs
 * but dlopen()s it (MVAPICH2 built with --enable-ibv-dlopen, NCCL) or a
 * module that is (UCX's libuct_ib.so, Open MPI's components): which
 * paths the preloaded interposer reaches, and which it cannot. Also: the
 * installed rdma-core makes IBVERBS_1.1 the default version of both
 * functions, the version the interposer exports. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/verbs/fake_ibverbs.h"
#include "tests/verbs/harness.h"

#ifndef VERBS_USER_SO
#error "define VERBS_USER_SO, the built verbs_user.so"
#endif

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

typedef int (*modify_qp_fn)(struct ibv_qp *, struct ibv_qp_attr *, int);
typedef const struct fake_ibv_record *(*record_fn)(void);
typedef struct ibv_context *(*context_fn)(unsigned);

/* test_lid_interposer.c's pair table: n0001 reaches n0002 (0x0008) at
 * 0x0009 with src_path_bits 2. */
static const char table_pair[] =
	"qft-lid 1\nlmc 2\nchoice pair\nhosts 3\n"
	"host n0001 0x0004 1\nhost n0002 0x0008 0\nhost n0007 0x001c 3\n"
	"pairs\n012\n201\n310\nend\n";

static void *verbs;		/* libibverbs.so.1, the test double, RTLD_LOCAL */
static record_fn record;
static context_fn context;

static int open_verbs(void **state)
{
	(void)state;
	setenv("QFT_LID_SELF", "n0001", 1);
	harness_table(table_pair);
	/* n0001's port, for the interposer's check (read when it loads) */
	setenv("FAKE_IBV_PORTS", "0:1:0x0004:2", 1);
	/* as MVAPICH2 and NCCL do: local, the default */
	if (!(verbs = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL))) {
		print_error("dlopen libibverbs.so.1: %s\n", dlerror());
		return -1;
	}
	record = (record_fn)dlsym(verbs, "fake_ibv_record");
	context = (context_fn)dlsym(verbs, "fake_ibv_context");
	if (!record || !context) {
		print_error("libibverbs.so.1 is not the test double\n");
		return -1;
	}
	return 0;
}

/* Calls `modify` on an RC queue pair to n0002; returns the dlid that
 * reached the provider. */
static uint16_t dlid_through(modify_qp_fn modify)
{
	struct ibv_qp qp = {.context = context(0), .qp_num = 0x1234, .qp_type = IBV_QPT_RC};
	struct ibv_qp_attr attr = {.qp_state = IBV_QPS_RTR, .ah_attr = {.dlid = 0x0008, .port_num = 1}};
	const unsigned before = record()->modify_qp;

	assert_non_null(modify);
	assert_int_equal(modify(&qp, &attr, IBV_QP_STATE | IBV_QP_AV), 0);
	assert_int_equal(record()->modify_qp, before + 1);
	return record()->ah.dlid;
}

/* A module linked against libibverbs, dlopen()ed RTLD_LOCAL: its
 * references look in the global scope first, which holds the preloaded
 * interposer; the interposer finds the real function although RTLD_NEXT
 * does not search a library loaded RTLD_LOCAL. Covered. */
static void module_is_covered(void **state)
{
	void *user = dlopen(VERBS_USER_SO, RTLD_NOW | RTLD_LOCAL);
	modify_qp_fn modify;

	(void)state;
	if (!user)
		fail_msg("dlopen %s: %s", VERBS_USER_SO, dlerror());
	modify = (modify_qp_fn)dlsym(user, "verbs_user_modify_qp");
	assert_int_equal(dlid_through(modify), 0x0009);
	assert_int_equal(record()->ah.src_path_bits, 2);
	dlclose(user);
}

/* dlsym(RTLD_DEFAULT) searches the global scope: the interposer. Covered. */
static void default_handle_is_covered(void **state)
{
	modify_qp_fn modify;

	(void)state;
	modify = (modify_qp_fn)dlsym(RTLD_DEFAULT, "ibv_modify_qp");
	assert_int_equal(dlid_through(modify), 0x0009);
}

/* dlsym and dlvsym on libibverbs' own handle search that library and its
 * dependencies only: the application calls libibverbs directly and the
 * preloaded interposer never sees the call. Not covered: MVAPICH2's
 * ibv_dlopen, NCCL's dlvsym(ibvhandle, ..., "IBVERBS_1.1"). */
static void library_handle_is_not(void **state)
{
	modify_qp_fn modify;

	(void)state;
	modify = (modify_qp_fn)dlsym(verbs, "ibv_modify_qp");
	assert_int_equal(dlid_through(modify), 0x0008);
	modify = (modify_qp_fn)dlvsym(verbs, "ibv_modify_qp", "IBVERBS_1.1");
	assert_int_equal(dlid_through(modify), 0x0008);
}

static const struct CMUnitTest dlopen_tests[] = {
	cmocka_unit_test(module_is_covered),
	cmocka_unit_test(default_handle_is_covered),
	cmocka_unit_test(library_handle_is_not),
};

static int run_dlopen(const void *arg)
{
	(void)arg;
	return cmocka_run_group_tests_name("dlopen", dlopen_tests, open_verbs, NULL);
}

/* The system's libibverbs.so.1 (run without the test double on the
 * library path): IBVERBS_1.1 is the default version of both functions,
 * which is what applications linked against it reference, and the
 * interposer defines that version. */
static void default_version(void **state)
{
	static const char *const names[] = {"ibv_modify_qp", "ibv_create_ah"};
	void *real = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
	Dl_info info;

	(void)state;
	if (!real) {
		print_message("no libibverbs.so.1 on this system (%s): skipped\n", dlerror());
		skip();
	}
	if (dlsym(real, "fake_ibv_record"))
		fail_msg("libibverbs.so.1 is the test double, not the system's");
	for (size_t i = 0; i < N_OF(names); i++) {
		void *v11 = dlvsym(real, names[i], "IBVERBS_1.1"), *ours;

		assert_non_null(v11);
		assert_ptr_equal(dlsym(real, names[i]), v11);
		ours = dlvsym(RTLD_DEFAULT, names[i], "IBVERBS_1.1");
		assert_non_null(ours);
		assert_true(dladdr(ours, &info) && strstr(info.dli_fname, "libqft-lid"));
	}
	dlclose(real);
}

static const struct CMUnitTest abi_tests[] = {cmocka_unit_test(default_version)};

static int run_abi(const void *arg)
{
	(void)arg;
	return cmocka_run_group_tests_name("rdma-core's versions", abi_tests, NULL, NULL);
}

static const struct harness_case cases[] = {
	{"dlopen", run_dlopen, NULL, 0},
	{"rdma-core's default version", run_abi, NULL, 1},
};

int main(int argc, char **argv)
{
	(void)argc;
	return harness_main(cases, N_OF(cases), argv);
}
