/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A module that uses verbs, as UCX's libuct_ib.so or an Open MPI
 * component: linked against libibverbs.so.1 and dlopen()ed with
 * RTLD_LOCAL by a program that is not (test_lid_dlopen.c). */
#include <infiniband/verbs.h>

__attribute__((visibility("default")))
int verbs_user_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);

int verbs_user_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	return ibv_modify_qp(qp, attr, attr_mask);
}
