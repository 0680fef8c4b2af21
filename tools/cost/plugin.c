// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stackinfo-cost.so: a QEMU TCG plugin that counts the guest instructions
 * executed while a marked region runs, per vCPU, and where they ran.
 *
 *   qemu-system-x86_64 ... -plugin PATH/stackinfo-cost.so,out=FILE
 *
 * A guest program brackets what it measures with the markers of
 * tools/cost/marker.h: a begin marker of a tag turns counting on for the
 * vCPU that executes it, the end marker of that tag turns it off and
 * closes the region. Instructions strictly between the two are counted,
 * user and kernel alike, whatever that vCPU runs meanwhile (an interrupt
 * too: such a region is an outlier, see below). A region that migrates to
 * another vCPU has its end on a vCPU that is not counting: it is dropped
 * and counted as lost; a begin on a vCPU already counting drops the open
 * region the same way. Programs pin their measuring thread to one CPU.
 *
 * It counts only within a session (tools/cost/marker.h): outside one it
 * only looks for markers as blocks are translated, and the guest runs at
 * the speed it has without the plugin. A start marker flushes every
 * translated block (qemu_plugin_reset(), which also drops the plugin's
 * callbacks; they are registered again once the flush is done), so that
 * every block runs again with the counting callbacks; a region begun
 * before that flush is done is not counted. A stop marker ends counting at
 * once, and flushes the blocks again to run them without.
 *
 * How it counts: in a session every translated block gets an execution
 * callback that
 * adds the block's instruction count to the vCPU's region when that vCPU
 * counts, keyed by the block's start address; a block that holds a marker
 * gets a callback per instruction instead, so that a marker in the middle
 * of a block splits it exactly. A block is entered at its start and, but
 * for an exception raised inside it, runs to its end (TCG takes interrupts
 * between blocks only), so a region's count is exact unless one of its
 * instructions faults, which a measured call's warm path does not do. A
 * string instruction with a rep prefix counts once per iteration, as TCG
 * runs it.
 *
 * Regions of a tag are grouped by their count: how many regions had each
 * count, and per group of the most frequent counts (at most
 * COST_GROUPS_KEPT groups a tag) how often each block ran. An interrupt or
 * a preemption inside a region makes its count unique, so the most
 * frequent count is the call's own; every region's blocks are also summed
 * per tag ("all"), which a mean per call reads.
 *
 * A data marker (COST_OP_DATA) passes bytes: the load of the instruction
 * after it is watched, and the low byte of its address is one byte of the
 * stream (the guest's kernel symbols: tools/cost/cost.c).
 *
 * At exit, FILE gets lines (addresses in hex, counts in decimal):
 *   cost-plugin 1
 *   vcpus N
 *   lost TAG N                  regions dropped (migrated, begun twice)
 *   hist TAG COUNT REGIONS      REGIONS regions counted COUNT instructions
 *   block TAG COUNT ADDR N EXECS   in the group of COUNT, the block at
 *                                  ADDR of N instructions ran EXECS times
 *   block TAG all ADDR N EXECS     the same over every region of TAG
 *   data LEN                    and then the LEN bytes passed, as they are
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

#include "marker.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define COST_TAGS 256
#define COST_GROUPS_KEPT 64

/*
 * A block's key: its start address in the low 48 bits (x86's canonical
 * addresses sign-extend bit 47; 5-level paging is off in our guests) and
 * its instruction count above them. Never 0: a block has an instruction.
 */
#define KEY_ADDR_BITS 48
#define KEY_ADDR_MASK ((UINT64_C(1) << KEY_ADDR_BITS) - 1)

static uint64_t key_make(uint64_t vaddr, uint64_t n)
{
	return (n << KEY_ADDR_BITS) | (vaddr & KEY_ADDR_MASK);
}

static uint64_t key_n(uint64_t key)
{
	return key >> KEY_ADDR_BITS;
}

static uint64_t key_addr(uint64_t key)
{
	uint64_t a = key & KEY_ADDR_MASK;

	if (a & (UINT64_C(1) << (KEY_ADDR_BITS - 1)))
		a |= ~KEY_ADDR_MASK;
	return a;
}

/* An open-addressing map from a block's key to a count. */
struct table {
	uint64_t *keys;
	uint64_t *vals;
	size_t cap; /* a power of two, or 0 */
	size_t used;
};

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fprintf(stderr, "stackinfo-cost: out of memory\n");
		abort();
	}
	return p;
}

static void table_free(struct table *t)
{
	free(t->keys);
	free(t->vals);
	memset(t, 0, sizeof(*t));
}

static void table_add(struct table *t, uint64_t key, uint64_t val);

static void table_grow(struct table *t)
{
	struct table old = *t;
	size_t i;

	t->cap = old.cap ? old.cap * 2 : 256;
	t->used = 0;
	t->keys = xcalloc(t->cap, sizeof(*t->keys));
	t->vals = xcalloc(t->cap, sizeof(*t->vals));
	for (i = 0; i < old.cap; i++)
		if (old.keys[i])
			table_add(t, old.keys[i], old.vals[i]);
	table_free(&old);
}

static void table_add(struct table *t, uint64_t key, uint64_t val)
{
	size_t i;

	if ((t->used + 1) * 2 > t->cap)
		table_grow(t);
	/* Fibonacci hashing: block addresses differ in their low bits */
	i = (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & (t->cap - 1);
	while (t->keys[i] && t->keys[i] != key)
		i = (i + 1) & (t->cap - 1);
	if (!t->keys[i]) {
		t->keys[i] = key;
		t->used++;
	}
	t->vals[i] += val;
}

static void table_merge(struct table *into, const struct table *from)
{
	size_t i;

	for (i = 0; i < from->cap; i++)
		if (from->keys[i])
			table_add(into, from->keys[i], from->vals[i]);
}

/* The regions of a tag that counted the same: how many, and their blocks. */
struct group {
	uint64_t count;
	uint64_t regions;
	struct table blocks; /* cap 0 once COST_GROUPS_KEPT groups keep some */
};

struct tag {
	struct group *groups;
	size_t nr, cap, kept;
	struct table all;
	uint64_t lost;
};

/* One vCPU's open region: only that vCPU's thread touches it. */
struct vcpu {
	bool on;
	unsigned int tag;
	uint64_t count;
	struct table blocks;
};

static struct vcpu *vcpus;
static unsigned int nr_vcpus;
static struct tag tags[COST_TAGS];
static pthread_mutex_t tags_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *out_path;
static qemu_plugin_id_t plugin_id;
/* the session: wanted since its marker ran, live once the flush is done */
static bool session_wanted, session_live;
/* the bytes data markers passed */
static unsigned char *data;
static size_t data_len, data_cap;

static struct vcpu *vcpu_get(unsigned int index)
{
	return index < nr_vcpus ? &vcpus[index] : NULL;
}

/* A region left open: dropped, and said. */
static void region_lose(struct vcpu *v)
{
	pthread_mutex_lock(&tags_lock);
	tags[v->tag].lost++;
	pthread_mutex_unlock(&tags_lock);
}

static void region_reset(struct vcpu *v)
{
	/* a long region's table is not cleared for every short one after it */
	if (v->blocks.cap > 4096)
		table_free(&v->blocks);
	else if (v->blocks.cap) {
		memset(v->blocks.keys, 0, v->blocks.cap * sizeof(uint64_t));
		memset(v->blocks.vals, 0, v->blocks.cap * sizeof(uint64_t));
		v->blocks.used = 0;
	}
	v->count = 0;
	v->on = false;
}

static struct group *group_find(struct tag *t, uint64_t count)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (t->groups[i].count == count)
			return &t->groups[i];
	if (t->nr == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->groups = realloc(t->groups, t->cap * sizeof(*t->groups));
		if (!t->groups) {
			fprintf(stderr, "stackinfo-cost: out of memory\n");
			abort();
		}
	}
	memset(&t->groups[t->nr], 0, sizeof(t->groups[t->nr]));
	t->groups[t->nr].count = count;
	return &t->groups[t->nr++];
}

static void region_close(struct vcpu *v)
{
	struct tag *t = &tags[v->tag];
	struct group *g;

	pthread_mutex_lock(&tags_lock);
	g = group_find(t, v->count);
	if (!g->regions && t->kept < COST_GROUPS_KEPT) {
		t->kept++;
		table_grow(&g->blocks);
	}
	g->regions++;
	if (g->blocks.cap)
		table_merge(&g->blocks, &v->blocks);
	table_merge(&t->all, &v->blocks);
	pthread_mutex_unlock(&tags_lock);
}

static void on_begin(unsigned int vcpu_index, void *udata)
{
	struct vcpu *v = vcpu_get(vcpu_index);

	if (!v)
		return;
	if (v->on)
		region_lose(v);
	region_reset(v);
	v->tag = (unsigned int)(uintptr_t)udata;
	v->on = __atomic_load_n(&session_live, __ATOMIC_ACQUIRE);
}

static void on_end(unsigned int vcpu_index, void *udata)
{
	struct vcpu *v = vcpu_get(vcpu_index);
	unsigned int tag = (unsigned int)(uintptr_t)udata;

	if (!v)
		return;
	if (!v->on && !__atomic_load_n(&session_live, __ATOMIC_ACQUIRE))
		return; /* outside a session: nothing was counted */
	if (!v->on || v->tag != tag) {
		/* begun on another vCPU, or under another tag */
		pthread_mutex_lock(&tags_lock);
		tags[tag].lost++;
		pthread_mutex_unlock(&tags_lock);
		return;
	}
	region_close(v);
	region_reset(v);
}

/* A block, or one instruction of a block that holds a marker, ran. */
static void on_exec(unsigned int vcpu_index, void *udata)
{
	struct vcpu *v = vcpu_get(vcpu_index);
	uint64_t key = (uintptr_t)udata;

	if (!v || !v->on)
		return;
	v->count += key_n(key);
	table_add(&v->blocks, key, 1);
}

static void on_data(unsigned int vcpu_index __attribute__((unused)),
		    qemu_plugin_meminfo_t info, uint64_t vaddr,
		    void *udata __attribute__((unused)))
{
	if (qemu_plugin_mem_is_store(info))
		return;
	pthread_mutex_lock(&tags_lock);
	if (data_len == data_cap) {
		data_cap = data_cap ? data_cap * 2 : 1 << 20;
		data = realloc(data, data_cap);
		if (!data) {
			fprintf(stderr, "stackinfo-cost: out of memory\n");
			abort();
		}
	}
	data[data_len++] = (unsigned char)vaddr;
	pthread_mutex_unlock(&tags_lock);
}

static void install_callbacks(qemu_plugin_id_t id);

/* The flush is done, every vCPU waits: blocks are translated anew. */
static void on_reset_done(qemu_plugin_id_t id)
{
	__atomic_store_n(&session_live,
			 __atomic_load_n(&session_wanted, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
	install_callbacks(id);
}

static void on_session(unsigned int vcpu_index __attribute__((unused)),
		       void *udata)
{
	bool start = (uintptr_t)udata == COST_OP_START;

	if (__atomic_exchange_n(&session_wanted, start, __ATOMIC_ACQ_REL) ==
	    start)
		return;
	/* a stop stops counting at once; a start once the flush is done */
	if (!start)
		__atomic_store_n(&session_live, false, __ATOMIC_RELEASE);
	qemu_plugin_reset(plugin_id, on_reset_done);
}

/* The marker's operation (COST_OP_*) and tag, or false: not a marker. */
static bool marker_of(struct qemu_plugin_insn *insn, unsigned int *op,
		      unsigned int *tag)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	uint32_t disp;

	if (qemu_plugin_insn_size(insn) != COST_INSN_SIZE ||
	    b[0] != COST_OPCODE0 || b[1] != COST_OPCODE1 ||
	    b[2] != COST_MODRM || b[3] != COST_SIB)
		return false;
	disp = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 |
	       (uint32_t)b[7] << 24;
	if (disp >> 16 != COST_MAGIC)
		return false;
	*op = (disp >> 8) & 0xff;
	*tag = disp & 0xff;
	return *op == COST_OP_BEGIN || *op == COST_OP_END ||
	       *op == COST_OP_DATA || *op == COST_OP_START ||
	       *op == COST_OP_STOP;
}

static void on_translate(qemu_plugin_id_t id __attribute__((unused)),
			 struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	bool count = __atomic_load_n(&session_wanted, __ATOMIC_ACQUIRE);
	unsigned int op, tag;
	bool marked = false;

	for (i = 0; i < n && !marked; i++)
		marked = marker_of(qemu_plugin_tb_get_insn(tb, i), &op, &tag);
	if (!marked && !count)
		return;
	if (!marked) {
		uint64_t key = key_make(qemu_plugin_tb_vaddr(tb), n);

		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec,
						     QEMU_PLUGIN_CB_NO_REGS,
						     (void *)(uintptr_t)key);
		return;
	}
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t key = key_make(qemu_plugin_insn_vaddr(insn), 1);

		if (!marker_of(insn, &op, &tag)) {
			if (!count)
				continue;
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, on_exec, QEMU_PLUGIN_CB_NO_REGS,
				(void *)(uintptr_t)key);
		} else if (op == COST_OP_DATA) {
			/*
			 * QEMU 7.2 plants a callback registered for reads
			 * alone on no access at all (plugin-gen.c's op_rw()
			 * tests the access's own rw + 1): ask for both, and
			 * on_data() leaves stores out.
			 */
			if (i + 1 < n)
				qemu_plugin_register_vcpu_mem_cb(
					qemu_plugin_tb_get_insn(tb, i + 1),
					on_data, QEMU_PLUGIN_CB_NO_REGS,
					QEMU_PLUGIN_MEM_RW, NULL);
		} else if (op == COST_OP_START || op == COST_OP_STOP) {
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, on_session, QEMU_PLUGIN_CB_NO_REGS,
				(void *)(uintptr_t)op);
		} else {
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, op == COST_OP_BEGIN ? on_begin : on_end,
				QEMU_PLUGIN_CB_NO_REGS,
				(void *)(uintptr_t)tag);
		}
	}
}

static void write_blocks(FILE *f, unsigned int tag, const char *group,
			 const struct table *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		if (t->keys[i])
			fprintf(f, "block %u %s %" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
				tag, group, key_addr(t->keys[i]),
				key_n(t->keys[i]), t->vals[i]);
}

static void on_exit_write(qemu_plugin_id_t id __attribute__((unused)),
			  void *p __attribute__((unused)))
{
	FILE *f = fopen(out_path, "w");
	unsigned int tag;
	size_t i;

	if (!f) {
		perror(out_path);
		return;
	}
	pthread_mutex_lock(&tags_lock);
	fprintf(f, "cost-plugin 1\nvcpus %u\n", nr_vcpus);
	for (tag = 0; tag < COST_TAGS; tag++) {
		struct tag *t = &tags[tag];
		char name[32];

		if (t->lost)
			fprintf(f, "lost %u %" PRIu64 "\n", tag, t->lost);
		for (i = 0; i < t->nr; i++)
			fprintf(f, "hist %u %" PRIu64 " %" PRIu64 "\n", tag,
				t->groups[i].count, t->groups[i].regions);
		for (i = 0; i < t->nr; i++) {
			if (!t->groups[i].blocks.cap)
				continue;
			snprintf(name, sizeof(name), "%" PRIu64,
				 t->groups[i].count);
			write_blocks(f, tag, name, &t->groups[i].blocks);
		}
		write_blocks(f, tag, "all", &t->all);
	}
	fprintf(f, "data %zu\n", data_len);
	if (data_len)
		fwrite(data, 1, data_len, f);
	pthread_mutex_unlock(&tags_lock);
	if (fclose(f))
		perror(out_path);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info, int argc,
					   char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = argv[i] + 4;
		} else {
			fprintf(stderr, "stackinfo-cost: unknown argument '%s'\n",
				argv[i]);
			return -1;
		}
	}
	if (!out_path || !*out_path) {
		fprintf(stderr, "stackinfo-cost: out=FILE is needed\n");
		return -1;
	}
	if (!info->system_emulation || info->system.max_vcpus < 1) {
		fprintf(stderr, "stackinfo-cost: system emulation only\n");
		return -1;
	}
	nr_vcpus = (unsigned int)info->system.max_vcpus;
	vcpus = xcalloc(nr_vcpus, sizeof(*vcpus));
	plugin_id = id;
	install_callbacks(id);
	return 0;
}

/* At install, and again after each reset, which drops them all. */
static void install_callbacks(qemu_plugin_id_t id)
{
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit_write, NULL);
}
