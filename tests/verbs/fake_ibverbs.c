/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A test double of libibverbs: soname libibverbs.so.1 and rdma-core's
 * version nodes (fake_ibverbs.map), so that a program linked against it
 * makes the versioned references a program linked against rdma-core
 * makes. ibv_modify_qp and ibv_create_ah record what reaches them, that
 * is what the provider would program into the HCA. */
#include <stdlib.h>
#include <string.h>

#include "tests/verbs/fake_ibverbs.h"

#define FAKE_EXPORT __attribute__((visibility("default")))

static struct fake_ibv_record rec;

FAKE_EXPORT const struct fake_ibv_record *fake_ibv_record(void)
{
	return &rec;
}

FAKE_EXPORT void fake_ibv_reset(void)
{
	memset(&rec, 0, sizeof(rec));
}

FAKE_EXPORT int fake_modify_qp_1_1(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
int fake_modify_qp_1_1(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	(void)qp;
	rec.modify_qp++;
	rec.attr = attr;
	rec.attr_mask = attr_mask;
	rec.ah = attr->ah_attr;
	rec.alt_ah = attr->alt_ah_attr;
	return 0;
}
__asm__(".symver fake_modify_qp_1_1, ibv_modify_qp@@IBVERBS_1.1");

/* As rdma-core's compat-1_0.c: unwrap, then call the 1.1 function by
 * name, which goes through this library's PLT and so to an interposer. */
FAKE_EXPORT int fake_modify_qp_1_0(struct fake_qp_1_0 *qp, struct ibv_qp_attr *attr,
				   int attr_mask);
int fake_modify_qp_1_0(struct fake_qp_1_0 *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	rec.modify_qp_1_0++;
	return ibv_modify_qp(qp->real_qp, attr, attr_mask);
}
__asm__(".symver fake_modify_qp_1_0, ibv_modify_qp@IBVERBS_1.0");

FAKE_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct ibv_ah *ah = calloc(1, sizeof(*ah));

	rec.create_ah++;
	rec.attr = attr;
	rec.ah = *attr;
	if (ah)
		ah->pd = pd;
	return ah;
}

FAKE_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
	free(ah);
	return 0;
}
