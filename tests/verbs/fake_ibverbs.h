/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The test double of libibverbs (fake_ibverbs.c): what reached "the
 * provider" after the interposer, for the tests to read. */
#ifndef QFT_TESTS_FAKE_IBVERBS_H
#define QFT_TESTS_FAKE_IBVERBS_H

#include <infiniband/verbs.h>

struct fake_ibv_record {
	unsigned modify_qp;	/* calls of ibv_modify_qp@IBVERBS_1.1 */
	unsigned modify_qp_1_0;	/* calls of the IBVERBS_1.0 compat entry */
	unsigned create_ah;	/* calls of ibv_create_ah@IBVERBS_1.1 */
	const void *attr;	/* the attributes as the provider got them */
	int attr_mask;
	struct ibv_ah_attr ah;	/* ibv_modify_qp's ah_attr, ibv_create_ah's attr */
	struct ibv_ah_attr alt_ah;
	unsigned query_port;	/* calls of ibv_query_port */
	unsigned device_list;	/* ibv_get_device_list */
	unsigned open_device;	/* ibv_open_device */
};

#define FAKE_IBV_DEVICES 2
#define FAKE_IBV_PORTS 2

/* The last call's record; reset clears it. */
const struct fake_ibv_record *fake_ibv_record(void);
void fake_ibv_reset(void);

/* Port PORT (1, 2) of HCA DEV (0, 1, named fake0, fake1): InfiniBand,
 * active, base LID lid, LMC lmc. A port never set is absent; an HCA
 * without ports is not listed. */
void fake_ibv_set_port(unsigned dev, uint8_t port, uint16_t lid, uint8_t lmc);
/* Port PORT of DEV: RoCE (no LID). */
void fake_ibv_set_ethernet(unsigned dev, uint8_t port);
/* The application's context of HCA DEV (for ibv_qp.context, ibv_pd.context). */
struct ibv_context *fake_ibv_context(unsigned dev);
/* The port ibv_query_qp says a queue pair is on (default 1). */
void fake_ibv_set_qp_port(uint8_t port);

/* A queue pair of the IBVERBS_1.0 ABI: as rdma-core's struct ibv_qp_1_0,
 * a wrapper of the real queue pair that the compat entry unwraps. */
struct fake_qp_1_0 {
	void *pad[20];
	struct ibv_qp *real_qp;
};

#endif
