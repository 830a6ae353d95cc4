// SPDX-License-Identifier: GPL-2.0
/*
 * insn-meter: a QEMU TCG plugin that counts the guest instructions each
 * vCPU executes and reports, when the guest executes a marker, how many
 * that vCPU executed since its previous marker. The count does not depend
 * on the host's speed, so it measures a code path's cost exactly where
 * emulated time cannot (clock reads, atomics and MMIO cost the emulator
 * far more than they cost hardware).
 *
 *   qemu-system-x86_64 ... -plugin PATH/insn-meter.so,out=FILE
 *
 * A marker is the 7-byte no-op "nopl disp32(%rax)" (0f 1f 80 + disp32)
 * whose disp32 is 0x54530000 | ID ("TS" and a 16-bit id): it does nothing
 * on hardware or without the plugin. At each marker the plugin appends
 * "ID VCPU COUNT" to FILE, COUNT being the instructions that vCPU executed
 * since its previous marker (since boot for its first); the guest brackets
 * N operations with two markers and divides.
 *
 * Counting is per translated block entered (the instructions of a block
 * are added when it starts), as QEMU's own bb plugin does: a block left
 * early by an exception is counted whole. Both markers are counted the
 * same way, so a bracket's count is exact up to those block boundaries.
 *
 * What hardware pays for beyond an instruction's count is counted the
 * same way, by class, from each instruction's bytes: locked instructions
 * (a lock prefix, or xchg with memory), fences (mfence, lfence, sfence),
 * clock reads (rdtsc, rdtscp) and IRQ flag changes (pushf, popf, cli,
 * sti). And the cache lines module code writes: each store by an
 * instruction in the module area (from 0xffffffffc0000000 on x86-64)
 * adds its line to a set per vCPU that is counted and emptied whenever
 * that vCPU runs user code again, so the sum is the distinct lines
 * written per kernel entry (a system call, a fault, an interrupt), kept
 * apart for the stack (stores by push, call, or addressed from %rsp:
 * KASLR moves the stacks' addresses, the instructions tell) and the rest
 * (the records, per-CPU data: what other CPUs may share). The
 * marker line is then "ID VCPU COUNT LOCKED FENCES RDTSC IRQFLAGS LINES
 * STACKLINES OTHERS", each counted since that vCPU's previous marker,
 * OTHERS being every instruction the other vCPUs executed meanwhile.
 *
 * The loop's own tasks: a task that executes marker 3 is one of them.
 * While any is, the count leaves out what other tasks (a kworker, a
 * daemon) execute on the vCPU between the loop's; their interrupts and
 * ticks stay in. The plugin sees no registers, so it learns which task
 * ran from the context switch itself: __switch_to_asm's "mov
 * %rsp,D(%rdi)" stores the task leaving's stack pointer, and that
 * store's address names the task. What a vCPU executes is kept pending
 * until the task that executed it leaves (then counted if it is one of
 * the loop's), or a marker comes (its task is the loop's). A task that
 * executed marker 3 joins when it next leaves ("3 VCPU TASK" in FILE);
 * marker 2 (a bracket's stop) forgets them all. profile= counts every
 * task.
 *
 * profile=FILE (make bench-profile): also count, inside each bracket,
 * the instructions of every translated block by its guest address, and
 * at each stop marker append "bracket K" (K counts stop markers from 1)
 * and one "VADDR INSNS LOCKED" line per block address that ran (its
 * instructions, and of those its locked ones). The host maps
 * the addresses to symbols (the guest boots with nokaslr). Counting is
 * per vCPU: a block counts only on the vCPU whose bracket is open.
 *
 * Debian ships QEMU with plugin support but without its qemu-plugin.h:
 * the few API declarations used are below, as QEMU 7.2 defines them
 * (plugin API version 1; the loader checks qemu_plugin_version).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- QEMU 7.2 plugin API (include/qemu/qemu-plugin.h) ------------------ */
typedef uint64_t qemu_plugin_id_t;
typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_simple_cb_t)(qemu_plugin_id_t id);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_flush_cb(qemu_plugin_id_t id,
				   qemu_plugin_simple_cb_t cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_outs(const char *string);
typedef uint32_t qemu_plugin_meminfo_t;
enum qemu_plugin_mem_rw {
	QEMU_PLUGIN_MEM_R = 1,
	QEMU_PLUGIN_MEM_W,
	QEMU_PLUGIN_MEM_RW,
};
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index,
					  qemu_plugin_meminfo_t info,
					  uint64_t vaddr, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
				      qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags,
				      enum qemu_plugin_mem_rw rw,
				      void *userdata);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;
/* ----------------------------------------------------------------------- */

#define MAX_VCPUS 64
#define MARKER_TAG 0x54530000u
#define MODULE_AREA 0xffffffffc0000000ull
#define USER_END 0x0000800000000000ull
#define LINE_SET 256

/* The classes counted beside instructions, in the marker line's order. */
enum { K_INSNS, K_LOCKED, K_FENCE, K_RDTSC, K_IRQF, K_LINES, K_SLINES, K_N };

/*
 * Single-threaded TCG (what the bench runs) executes one vCPU at a time;
 * under multi-threaded TCG each vCPU still writes only its own slot.
 */
static uint64_t count[MAX_VCPUS][K_N], mark[MAX_VCPUS][K_N];
static bool inside[MAX_VCPUS];

/*
 * The loop's tasks (marker 3); what each vCPU executed since its last
 * switch, not yet counted; whether the task running there executed
 * marker 3.
 */
#define MAX_TASKS 16
static uint64_t tasks[MAX_TASKS], pend[MAX_VCPUS][K_N];
static unsigned int n_tasks;
static bool joining[MAX_VCPUS];

static bool loop_task(uint64_t t)
{
	for (unsigned int i = 0; i < n_tasks; i++)
		if (tasks[i] == t)
			return true;
	return false;
}

/* What @vcpu executed since its last switch: counted, or dropped. */
static void settle(unsigned int vcpu, bool keep)
{
	for (int k = 0; k < K_N; k++) {
		if (keep)
			count[vcpu][k] += pend[vcpu][k];
		pend[vcpu][k] = 0;
	}
}

/* The lines module code wrote since the vCPU last ran user code. */
static struct {
	uint64_t line[LINE_SET];	/* line number << 1 | stack */
	unsigned int n;
	uint64_t extra;		/* past LINE_SET: counted, not deduplicated */
} lines[MAX_VCPUS];

/* A translated block's counts by class (its instructions included). */
struct tb_counts {
	uint32_t k[K_LINES];
	bool user;
	struct tb_counts *next;	/* translations to free at a flush */
};
static struct tb_counts *counts;
static unsigned long stops;
static FILE *out, *prof;

/* One translation of a block (an address may be translated again). */
struct block {
	struct tb_counts c;	/* first: tb_exec reads it */
	uint64_t vaddr;
	uint64_t insns;		/* of this block, inside brackets */
	uint64_t locked;	/* its locked instructions, inside brackets */
	unsigned int n;
	struct block *next;
};
static struct block *blocks, *flushed;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;

/* Back in user code: the kernel entry's lines are counted. */
static void lines_close(unsigned int vcpu)
{
	uint64_t st = 0;

	for (unsigned int i = 0; i < lines[vcpu].n; i++)
		st += lines[vcpu].line[i] & 1;
	pend[vcpu][K_LINES] += lines[vcpu].n - st + lines[vcpu].extra;
	pend[vcpu][K_SLINES] += st;
	lines[vcpu].n = 0;
	lines[vcpu].extra = 0;
}

/*
 * Every instruction each vCPU executed, whatever task ran it: a marker
 * also reports what the other vCPUs executed since this vCPU's previous
 * marker, work a loop hands to another CPU (a worker woken there, an
 * RCU callback) that its own count cannot see.
 */
static uint64_t ran[MAX_VCPUS], others_mark[MAX_VCPUS];
static unsigned int n_vcpus;

static void tb_exec(unsigned int vcpu, void *udata)
{
	const struct tb_counts *c = udata;

	if (vcpu >= MAX_VCPUS)
		return;
	ran[vcpu] += c->k[K_INSNS];
	if (vcpu >= n_vcpus)
		n_vcpus = vcpu + 1;
	for (int k = 0; k < K_LINES; k++)
		pend[vcpu][k] += c->k[k];
	if (c->user && (lines[vcpu].n || lines[vcpu].extra))
		lines_close(vcpu);
}

static void mem_store(unsigned int vcpu, qemu_plugin_meminfo_t info,
		      uint64_t vaddr, void *udata)
{
	uint64_t l = (vaddr >> 6) << 1 | (udata != NULL);

	if (vcpu >= MAX_VCPUS || !qemu_plugin_mem_is_store(info))
		return;
	for (unsigned int i = 0; i < lines[vcpu].n; i++)
		if (lines[vcpu].line[i] >> 1 == l >> 1)
			return;
	if (lines[vcpu].n < LINE_SET)
		lines[vcpu].line[lines[vcpu].n++] = l;
	else
		lines[vcpu].extra++;
}

static void tb_exec_profile(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	tb_exec(vcpu, &b->c);
	if (vcpu < MAX_VCPUS && inside[vcpu]) {
		b->insns += b->n;
		b->locked += b->c.k[K_LOCKED];
	}
}

static void profile_list(struct block *b)
{
	for (; b; b = b->next) {
		if (!b->insns)
			continue;
		fprintf(prof, "%016llx %llu %llu\n", (unsigned long long)b->vaddr,
			(unsigned long long)b->insns,
			(unsigned long long)b->locked);
		b->insns = 0;
		b->locked = 0;
	}
}

static void profile_dump(void)
{
	struct block *b, *next;

	fprintf(prof, "bracket %lu\n", stops);
	pthread_mutex_lock(&blocks_lock);
	profile_list(blocks);
	profile_list(flushed);
	for (b = flushed; b; b = next) {
		next = b->next;
		free(b);
	}
	flushed = NULL;
	pthread_mutex_unlock(&blocks_lock);
	fflush(prof);
}

/*
 * A flush of the translation cache retires every block: keep them until
 * the next dump (a bracket may be open), so memory stays bounded.
 */
static void tb_flush(qemu_plugin_id_t id)
{
	struct block *b, *next;

	(void)id;
	pthread_mutex_lock(&blocks_lock);
	for (b = blocks; b; b = next) {
		next = b->next;
		if (b->insns) {
			b->next = flushed;
			flushed = b;
		} else {
			free(b);
		}
	}
	blocks = NULL;
	/* Its callbacks will not run again: every vCPU is stopped here. */
	for (struct tb_counts *c = counts, *cn; c; c = cn) {
		cn = c->next;
		free(c);
	}
	counts = NULL;
	pthread_mutex_unlock(&blocks_lock);
}

/* __switch_to_asm stores the stack pointer of the task leaving at @vaddr. */
static void task_switch(unsigned int vcpu, qemu_plugin_meminfo_t info,
			uint64_t vaddr, void *udata)
{
	(void)udata;
	if (vcpu >= MAX_VCPUS || !qemu_plugin_mem_is_store(info))
		return;
	if (joining[vcpu] && !loop_task(vaddr) && n_tasks < MAX_TASKS) {
		tasks[n_tasks++] = vaddr;
		fprintf(out, "3 %u %llu\n", vcpu, (unsigned long long)vaddr);
		fflush(out);
	}
	joining[vcpu] = false;
	settle(vcpu, !n_tasks || loop_task(vaddr));
}

static void marker_exec(unsigned int vcpu, void *id)
{
	uint64_t others = 0;

	if (vcpu >= MAX_VCPUS)
		return;
	if ((uintptr_t)id == 3) {
		joining[vcpu] = true;
		return;
	}
	settle(vcpu, true);	/* a marker's task is the loop's */
	fprintf(out, "%u %u", (unsigned int)(uintptr_t)id, vcpu);
	for (int k = 0; k < K_N; k++) {
		fprintf(out, " %llu",
			(unsigned long long)(count[vcpu][k] - mark[vcpu][k]));
		mark[vcpu][k] = count[vcpu][k];
	}
	for (unsigned int u = 0; u < n_vcpus; u++)
		if (u != vcpu)
			others += ran[u];
	fprintf(out, " %llu\n",
		(unsigned long long)(others - others_mark[vcpu]));
	others_mark[vcpu] = others;
	fflush(out);
	inside[vcpu] = (uintptr_t)id == 1;
	if ((uintptr_t)id == 2) {
		n_tasks = 0;
		memset(joining, 0, sizeof(joining));
		stops++;
		if (prof)
			profile_dump();
	}
}

/* The marker's id, or -1: 0f 1f 80 followed by disp32 0x5453xxxx. */
static long marker_id(struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	uint32_t disp;

	if (qemu_plugin_insn_size(insn) != 7 || b[0] != 0x0f || b[1] != 0x1f ||
	    b[2] != 0x80)
		return -1;
	memcpy(&disp, b + 3, 4);
	return (disp & 0xffff0000u) == MARKER_TAG ? (long)(disp & 0xffff) : -1;
}

/*
 * Is @insn, before @next, the store of the leaving task's stack pointer
 * in __switch_to_asm: "mov %rsp,D(%rdi)" right before "mov D(%rsi),%rsp"?
 */
static bool switch_store(struct qemu_plugin_insn *insn,
			 struct qemu_plugin_insn *next)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	const uint8_t *n = qemu_plugin_insn_data(next);

	return qemu_plugin_insn_vaddr(insn) >= USER_END &&
		qemu_plugin_insn_size(insn) == 7 &&
		qemu_plugin_insn_size(next) == 7 &&
		!memcmp(b, "\x48\x89\xa7", 3) && !memcmp(n, "\x48\x8b\xa6", 3) &&
		!memcmp(b + 3, n + 3, 4);
}

/*
 * The index of the opcode in @b (@n bytes): past the legacy prefixes and
 * REX. Sets @lock if a lock prefix came, @rex to the REX byte (0: none).
 */
static size_t skip_prefixes(const uint8_t *b, size_t n, bool *lock,
			    uint8_t *rex)
{
	size_t i;

	*lock = false;
	*rex = 0;
	for (i = 0; i < n; i++) {
		if (b[i] == 0xf0)
			*lock = true;
		else if (b[i] != 0x66 && b[i] != 0x67 && b[i] != 0xf2 &&
			 b[i] != 0xf3 && b[i] != 0x2e && b[i] != 0x36 &&
			 b[i] != 0x3e && b[i] != 0x26 && b[i] != 0x64 &&
			 b[i] != 0x65)
			break;
	}
	if (i < n && (b[i] & 0xf0) == 0x40)
		*rex = b[i++];
	return i;
}

/* The class of one instruction, from its bytes, or -1. */
static int insn_class(struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn), i;
	uint8_t rex;
	bool lock;

	i = skip_prefixes(b, n, &lock, &rex);
	if (lock)
		return K_LOCKED;
	if (i >= n)
		return -1;
	switch (b[i]) {
	case 0x86:
	case 0x87:	/* xchg with memory is locked */
		return i + 1 < n && (b[i + 1] >> 6) != 3 ? K_LOCKED : -1;
	case 0x9c:
	case 0x9d:
	case 0xfa:
	case 0xfb:
		return K_IRQF;
	case 0x0f:
		if (i + 1 >= n)
			return -1;
		if (b[i + 1] == 0x31)
			return K_RDTSC;
		if (b[i + 1] == 0x01 && i + 2 < n && b[i + 2] == 0xf9)
			return K_RDTSC;
		if (b[i + 1] == 0xae && i + 2 < n && b[i + 2] >= 0xe8)
			return K_FENCE;
		return -1;
	}
	return -1;
}

/* One-byte opcodes that have a ModRM byte and may write memory. */
static bool modrm_store_op(uint8_t op)
{
	return op <= 0x3b ? (op & 7) <= 3 :
	       (op >= 0x80 && op <= 0x8f) || op == 0xc0 || op == 0xc1 ||
	       op == 0xc6 || op == 0xc7 || (op >= 0xd0 && op <= 0xd3) ||
	       op == 0xf6 || op == 0xf7 || op == 0xfe || op == 0xff;
}

/*
 * Does this instruction's store go to the stack? push, call, or a ModRM
 * operand based on %rsp (SIB base 4 without REX.B): how compiled kernel
 * code writes its frames. A heuristic from the bytes, no registers seen.
 */
static bool stack_store(struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn), i;
	uint8_t rex, op, modrm;
	bool lock;

	i = skip_prefixes(b, n, &lock, &rex);
	if (i >= n)
		return false;
	op = b[i++];
	if ((op >= 0x50 && op <= 0x57) || op == 0x68 || op == 0x6a ||
	    op == 0xe8 || op == 0x9c)
		return true;
	if (op == 0x0f) {
		if (i >= n)
			return false;
		op = b[i++];	/* two-byte opcodes: all but jcc have ModRM */
		if (op >= 0x80 && op <= 0x8f)
			return false;
	} else if (!modrm_store_op(op)) {
		return false;
	}
	if (i >= n)
		return false;
	modrm = b[i++];
	if (op == 0xff && (((modrm >> 3) & 7) == 2 || ((modrm >> 3) & 7) == 6))
		return true;	/* call, push */
	if ((modrm >> 6) == 3 || (modrm & 7) != 4 || i >= n)
		return false;
	return (b[i] & 7) == 4 && !(rex & 1);	/* SIB base %rsp */
}

static void tb_classes(struct qemu_plugin_tb *tb, struct tb_counts *c)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	c->k[K_INSNS] = n;
	c->user = qemu_plugin_tb_vaddr(tb) < USER_END;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int k = insn_class(insn);

		if (k > 0)
			c->k[k]++;
		if (qemu_plugin_insn_vaddr(insn) >= MODULE_AREA)
			qemu_plugin_register_vcpu_mem_cb(insn, mem_store,
							 QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_W,
							 stack_store(insn) ?
							 (void *)1 : NULL);
	}
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct tb_counts *c;
	struct block *b;

	(void)id;
	if (!prof) {
		c = calloc(1, sizeof(*c));
		if (!c)
			abort();
		tb_classes(tb, c);
		pthread_mutex_lock(&blocks_lock);
		c->next = counts;
		counts = c;
		pthread_mutex_unlock(&blocks_lock);
		qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, c);
		goto markers;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		abort();
	tb_classes(tb, &b->c);
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->n = n;
	pthread_mutex_lock(&blocks_lock);
	b->next = blocks;
	blocks = b;
	pthread_mutex_unlock(&blocks_lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec_profile,
					     QEMU_PLUGIN_CB_NO_REGS, b);
markers:
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		long mid = marker_id(insn);

		if (mid >= 0)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, marker_exec,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)mid);
		if (i + 1 < n &&
		    switch_store(insn, qemu_plugin_tb_get_insn(tb, i + 1)))
			qemu_plugin_register_vcpu_mem_cb(insn, task_switch,
							 QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_W, NULL);
	}
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id;
	(void)p;
	if (out)
		fclose(out);
	if (prof)
		fclose(prof);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	const char *path = NULL, *ppath = NULL;

	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
		else if (!strncmp(argv[i], "profile=", 8))
			ppath = argv[i] + 8;
	}
	if (!info->system_emulation || !path) {
		qemu_plugin_outs("insn-meter: needs system emulation and out=FILE\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		qemu_plugin_outs("insn-meter: cannot open the out= file\n");
		return -1;
	}
	if (ppath) {
		prof = fopen(ppath, "w");
		if (!prof) {
			qemu_plugin_outs("insn-meter: cannot open the profile= file\n");
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_flush_cb(id, tb_flush);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
