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
 * profile=FILE (make bench-profile): also count, inside each bracket,
 * the instructions of every translated block by its guest address, and
 * at each stop marker append "bracket K" (K counts stop markers from 1)
 * and one "VADDR INSNS" line per block address that ran. The host maps
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

__attribute__((visibility("default"))) int qemu_plugin_version = 1;
/* ----------------------------------------------------------------------- */

#define MAX_VCPUS 64
#define MARKER_TAG 0x54530000u

/*
 * Single-threaded TCG (what the bench runs) executes one vCPU at a time;
 * under multi-threaded TCG each vCPU still writes only its own slot.
 */
static uint64_t count[MAX_VCPUS], mark[MAX_VCPUS];
static bool inside[MAX_VCPUS];
static unsigned long stops;
static FILE *out, *prof;

/* One translation of a block (an address may be translated again). */
struct block {
	uint64_t vaddr;
	uint64_t insns;		/* of this block, inside brackets */
	unsigned int n;
	struct block *next;
};
static struct block *blocks, *flushed;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;

static void tb_exec(unsigned int vcpu, void *n)
{
	if (vcpu < MAX_VCPUS)
		count[vcpu] += (uintptr_t)n;
}

static void tb_exec_profile(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	if (vcpu >= MAX_VCPUS)
		return;
	count[vcpu] += b->n;
	if (inside[vcpu])
		b->insns += b->n;
}

static void profile_list(struct block *b)
{
	for (; b; b = b->next) {
		if (!b->insns)
			continue;
		fprintf(prof, "%016llx %llu\n", (unsigned long long)b->vaddr,
			(unsigned long long)b->insns);
		b->insns = 0;
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
	pthread_mutex_unlock(&blocks_lock);
}

static void marker_exec(unsigned int vcpu, void *id)
{
	if (vcpu >= MAX_VCPUS)
		return;
	fprintf(out, "%u %u %llu\n", (unsigned int)(uintptr_t)id, vcpu,
		(unsigned long long)(count[vcpu] - mark[vcpu]));
	fflush(out);
	mark[vcpu] = count[vcpu];
	inside[vcpu] = (uintptr_t)id == 1;
	if ((uintptr_t)id == 2) {
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

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct block *b;

	(void)id;
	if (!prof) {
		qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
						     (void *)(uintptr_t)n);
		goto markers;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		abort();
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
