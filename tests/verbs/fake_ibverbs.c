/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A test double of libibverbs: soname libibverbs.so.1 and rdma-core's
 * version nodes (fake_ibverbs.map), so that a program linked against it
 * makes the versioned references a program linked against rdma-core
 * makes. ibv_modify_qp and ibv_create_ah record what reaches them, that
 * is what the provider would program into the HCA. Two HCAs of two ports
 * each whose LID, LMC and link layer the tests set (fake_ibv_set_port, or
 * FAKE_IBV_PORTS for a program run by Slurm), answering ibv_query_port as
 * a provider without the extended entry does. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tests/verbs/fake_ibverbs.h"

#define FAKE_EXPORT __attribute__((visibility("default")))

/* Shared with the processes the test forks: a case that expects its
 * process to stop reads what reached the provider before it did. */
static struct fake_ibv_record *rec;

static struct fake_port {
	uint16_t lid;
	uint8_t lmc;
	uint8_t link_layer;
	int present;
} ports[FAKE_IBV_DEVICES][FAKE_IBV_PORTS];

static struct ibv_device devices[FAKE_IBV_DEVICES];
static struct ibv_context contexts[FAKE_IBV_DEVICES];
static uint8_t qp_port = 1;

static int device_of(const struct ibv_context *ctx)
{
	for (int d = 0; ctx && d < FAKE_IBV_DEVICES; d++)
		if (ctx->device == &devices[d])
			return d;
	return -1;
}

/* FAKE_IBV_PORTS="DEV:PORT:LID:LMC[,...]", LID as strtoul reads it. */
static void ports_from_env(void)
{
	const char *s = getenv("FAKE_IBV_PORTS");
	unsigned d, p, lmc;
	char lid[16];
	int used;

	while (s && sscanf(s, "%u:%u:%15[0-9a-fA-Fx]:%u%n", &d, &p, lid, &lmc, &used) == 4) {
		fake_ibv_set_port(d, (uint8_t)p, (uint16_t)strtoul(lid, NULL, 0), (uint8_t)lmc);
		s += used;
		s = *s == ',' ? s + 1 : NULL;
	}
}

__attribute__((constructor)) static void fake_init(void)
{
	void *m = mmap(NULL, sizeof(*rec), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);

	rec = m == MAP_FAILED ? calloc(1, sizeof(*rec)) : m;
	for (int d = 0; d < FAKE_IBV_DEVICES; d++) {
		snprintf(devices[d].name, sizeof(devices[d].name), "fake%d", d);
		devices[d].node_type = IBV_NODE_CA;
		devices[d].transport_type = IBV_TRANSPORT_IB;
		contexts[d].device = &devices[d];
	}
	ports_from_env();
}

FAKE_EXPORT const struct fake_ibv_record *fake_ibv_record(void)
{
	return rec;
}

FAKE_EXPORT void fake_ibv_reset(void)
{
	memset(rec, 0, sizeof(*rec));
}

FAKE_EXPORT void fake_ibv_set_port(unsigned dev, uint8_t port, uint16_t lid, uint8_t lmc)
{
	if (dev < FAKE_IBV_DEVICES && port >= 1 && port <= FAKE_IBV_PORTS)
		ports[dev][port - 1] = (struct fake_port){lid, lmc, IBV_LINK_LAYER_INFINIBAND, 1};
}

FAKE_EXPORT void fake_ibv_set_ethernet(unsigned dev, uint8_t port)
{
	if (dev < FAKE_IBV_DEVICES && port >= 1 && port <= FAKE_IBV_PORTS)
		ports[dev][port - 1] = (struct fake_port){0, 0, IBV_LINK_LAYER_ETHERNET, 1};
}

FAKE_EXPORT struct ibv_context *fake_ibv_context(unsigned dev)
{
	return dev < FAKE_IBV_DEVICES ? &contexts[dev] : NULL;
}

FAKE_EXPORT void fake_ibv_set_qp_port(uint8_t port)
{
	qp_port = port;
}

/* A device is listed when it has a port. */
FAKE_EXPORT struct ibv_device **ibv_get_device_list(int *num)
{
	struct ibv_device **list = calloc(FAKE_IBV_DEVICES + 1, sizeof(*list));
	int n = 0;

	rec->device_list++;
	for (int d = 0; list && d < FAKE_IBV_DEVICES; d++)
		for (int p = 0; p < FAKE_IBV_PORTS; p++)
			if (ports[d][p].present) {
				list[n++] = &devices[d];
				break;
			}
	if (num)
		*num = n;
	return list;
}

FAKE_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

FAKE_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct ibv_context *ctx = calloc(1, sizeof(*ctx));

	rec->open_device++;
	if (ctx)
		ctx->device = device;
	return ctx;
}

FAKE_EXPORT int ibv_close_device(struct ibv_context *ctx)
{
	free(ctx);
	return 0;
}

/* phys_port_cnt: up to the last port that is present. */
FAKE_EXPORT int ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *attr)
{
	int d = device_of(ctx);

	if (d < 0)
		return EINVAL;
	memset(attr, 0, sizeof(*attr));
	for (int p = 0; p < FAKE_IBV_PORTS; p++)
		if (ports[d][p].present)
			attr->phys_port_cnt = (uint8_t)(p + 1);
	return 0;
}

/* As the exported ibv_query_port@IBVERBS_1.1, which verbs.h's inline of
 * the same name calls when the provider has no extended entry; its
 * struct _compat_ibv_port_attr is the prefix of struct ibv_port_attr. */
FAKE_EXPORT int fake_query_port(struct ibv_context *ctx, uint8_t port,
				struct _compat_ibv_port_attr *compat);
int fake_query_port(struct ibv_context *ctx, uint8_t port, struct _compat_ibv_port_attr *compat)
{
	struct ibv_port_attr *attr = (struct ibv_port_attr *)compat;
	int d = device_of(ctx);

	rec->query_port++;
	if (d < 0 || port < 1 || port > FAKE_IBV_PORTS || !ports[d][port - 1].present)
		return EINVAL;
	attr->state = IBV_PORT_ACTIVE;
	attr->lid = ports[d][port - 1].lid;
	attr->lmc = ports[d][port - 1].lmc;
	attr->link_layer = ports[d][port - 1].link_layer;
	return 0;
}
__asm__(".symver fake_query_port, ibv_query_port@@IBVERBS_1.1");

FAKE_EXPORT int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
			     struct ibv_qp_init_attr *init)
{
	(void)qp;
	(void)mask;
	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	attr->port_num = qp_port;
	return 0;
}

FAKE_EXPORT int fake_modify_qp_1_1(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
int fake_modify_qp_1_1(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	(void)qp;
	rec->modify_qp++;
	rec->attr = attr;
	rec->attr_mask = attr_mask;
	rec->ah = attr->ah_attr;
	rec->alt_ah = attr->alt_ah_attr;
	return 0;
}
__asm__(".symver fake_modify_qp_1_1, ibv_modify_qp@@IBVERBS_1.1");

/* As rdma-core's compat-1_0.c: unwrap, then call the 1.1 function by
 * name, which goes through this library's PLT and so to an interposer. */
FAKE_EXPORT int fake_modify_qp_1_0(struct fake_qp_1_0 *qp, struct ibv_qp_attr *attr,
				   int attr_mask);
int fake_modify_qp_1_0(struct fake_qp_1_0 *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	rec->modify_qp_1_0++;
	return ibv_modify_qp(qp->real_qp, attr, attr_mask);
}
__asm__(".symver fake_modify_qp_1_0, ibv_modify_qp@IBVERBS_1.0");

FAKE_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct ibv_ah *ah = calloc(1, sizeof(*ah));

	rec->create_ah++;
	rec->attr = attr;
	rec->ah = *attr;
	if (ah)
		ah->pd = pd;
	return ah;
}

FAKE_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
	free(ah);
	return 0;
}
