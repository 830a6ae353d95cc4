// SPDX-License-Identifier: GPL-2.0
/*
 * view/perfetto.c - --perfetto: the trace of a window (perfetto.h).
 *
 * Protobuf by hand: a message is built in a buffer of its own, then put
 * in its parent as a length-delimited field, so every length is known
 * when it is written. Field numbers are Perfetto's (trace.proto,
 * trace_packet.proto, track_descriptor.proto, track_event.proto,
 * debug_annotation.proto); tests/userspace/perfetto.proto holds the
 * ones used here, and the tests decode every byte with protoc against
 * it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "perfetto.h"

struct pb {
	unsigned char *p;
	size_t n, cap;
};

static void pb_put(struct pb *b, const void *s, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	unsigned char c[10];
	size_t n = 0;

	do {
		c[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_put(b, c, n);
}

static void pb_uint(struct pb *b, int field, uint64_t v)
{
	pb_varint(b, (uint64_t)field << 3);	/* wire type 0 */
	pb_varint(b, v);
}

static void pb_fixed64(struct pb *b, int field, uint64_t v)
{
	unsigned char c[8];
	int i;

	pb_varint(b, (uint64_t)field << 3 | 1);
	for (i = 0; i < 8; i++)
		c[i] = (unsigned char)(v >> (8 * i));
	pb_put(b, c, 8);
}

static void pb_double(struct pb *b, int field, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	pb_fixed64(b, field, v);
}

static void pb_bytes(struct pb *b, int field, const void *s, size_t n)
{
	pb_varint(b, (uint64_t)field << 3 | 2);
	pb_varint(b, n);
	pb_put(b, s, n);
}

static void pb_str(struct pb *b, int field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

/* @sub as field @field of @b; @sub emptied for the next message. */
static void pb_msg(struct pb *b, int field, struct pb *sub)
{
	pb_bytes(b, field, sub->p ? sub->p : (unsigned char *)"", sub->n);
	sub->n = 0;
}

/* Field numbers (perfetto.proto in tests/userspace). */
enum {
	TRACE_PACKET = 1,
	PKT_TIMESTAMP = 8, PKT_SEQ_ID = 10, PKT_TRACK_EVENT = 11,
	PKT_TRACK_DESCRIPTOR = 60,
	TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4,
	TD_PARENT = 5, TD_COUNTER = 8,
	PD_PID = 1, PD_NAME = 6,
	THD_PID = 1, THD_TID = 2, THD_NAME = 5,
	TE_ANNOTATION = 4, TE_TYPE = 9, TE_TRACK = 11, TE_NAME = 23,
	TE_DOUBLE_COUNTER = 44, TE_FLOW = 47, TE_TERMINATING_FLOW = 48,
	DA_UINT = 3, DA_DOUBLE = 5, DA_STRING = 6, DA_NAME = 10,
	TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_COUNTER = 4,
};

#define UUID_PROCESS	0x1000000000000000ull
#define UUID_THREAD	0x2000000000000000ull
#define UUID_GROUP	0x3000000000000000ull
#define UUID_COUNTER	0x4000000000000000ull
#define SEQ		1	/* the one writer's sequence */

struct pf_out {
	FILE *f;
	struct pb pkt, msg, sub, ann;
};

/* The packet built in o->pkt, as one of the trace's. */
static void packet(struct pf_out *o)
{
	struct pb t = { NULL, 0, 0 };

	pb_msg(&t, TRACE_PACKET, &o->pkt);
	fwrite(t.p, 1, t.n, o->f);
	free(t.p);
}

static uint64_t track_of(const struct pf_line *l, size_t i)
{
	if (!l->tid)
		return UUID_GROUP | (i + 1);
	return UUID_THREAD | l->tid;
}

static void descriptors(struct pf_out *o, const struct pf_in *in)
{
	size_t i, k;

	for (i = 0; i < in->n; i++) {
		const struct pf_line *l = &in->l[i];

		/* A process's descriptor once: at its first line. */
		for (k = 0; l->tid && k < i; k++)
			if (in->l[k].tid && in->l[k].pid == l->pid)
				break;
		if (l->tid && k == i) {
			pb_uint(&o->msg, TD_UUID, UUID_PROCESS | l->pid);
			pb_uint(&o->sub, PD_PID, l->pid);
			pb_str(&o->sub, PD_NAME, l->proc ? l->proc : l->name);
			pb_msg(&o->msg, TD_PROCESS, &o->sub);
			pb_msg(&o->pkt, PKT_TRACK_DESCRIPTOR, &o->msg);
			packet(o);
		}
		pb_uint(&o->msg, TD_UUID, track_of(l, i));
		if (l->tid) {
			pb_uint(&o->msg, TD_PARENT, UUID_PROCESS | l->pid);
			pb_uint(&o->sub, THD_PID, l->pid);
			pb_uint(&o->sub, THD_TID, l->tid);
			pb_str(&o->sub, THD_NAME, l->name);
			pb_msg(&o->msg, TD_THREAD, &o->sub);
		} else {
			pb_str(&o->msg, TD_NAME, l->name);
		}
		pb_msg(&o->pkt, PKT_TRACK_DESCRIPTOR, &o->msg);
		packet(o);
	}
}

static uint64_t col_start(const struct pf_in *in, size_t c)
{
	return in->t0 + in->len * c / in->ncols;
}

static void annotation_u64(struct pf_out *o, const char *name, uint64_t v)
{
	pb_str(&o->ann, DA_NAME, name);
	pb_uint(&o->ann, DA_UINT, v);
	pb_msg(&o->msg, TE_ANNOTATION, &o->ann);
}

static void annotation_f(struct pf_out *o, const char *name, double v)
{
	pb_str(&o->ann, DA_NAME, name);
	pb_double(&o->ann, DA_DOUBLE, v);
	pb_msg(&o->msg, TE_ANNOTATION, &o->ann);
}

static void annotation_s(struct pf_out *o, const char *name, const char *v)
{
	pb_str(&o->ann, DA_NAME, name);
	pb_str(&o->ann, DA_STRING, v);
	pb_msg(&o->msg, TE_ANNOTATION, &o->ann);
}

static void event(struct pf_out *o, uint64_t ts, uint64_t track, int type)
{
	pb_uint(&o->msg, TE_TYPE, (uint64_t)type);
	pb_uint(&o->msg, TE_TRACK, track);
	pb_uint(&o->pkt, PKT_TIMESTAMP, ts);
	pb_uint(&o->pkt, PKT_SEQ_ID, SEQ);
	pb_msg(&o->pkt, PKT_TRACK_EVENT, &o->msg);
	packet(o);
}

static uint64_t elapsed(const uint64_t *ns)
{
	uint64_t el = 0;
	int s;

	for (s = 0; s < TSA_NSTATES; s++)
		el += ns[s];
	return el;
}

/* Line @i's slice in column @c begins: its name, arguments and flows. */
static void slice(struct pf_out *o, const struct pf_in *in, size_t i,
		  size_t c)
{
	const struct pf_line *l = &in->l[i];
	const uint64_t *ns = &l->ns[c * TSA_NSTATES];
	uint64_t el = elapsed(ns);
	char name[64];
	size_t k;
	int s, top = 0;

	for (s = 1; s < TSA_NSTATES; s++)
		if (ns[s] > ns[top])
			top = s;
	pb_str(&o->msg, TE_NAME, tsa_state_name[top]);
	for (s = 0; s < TSA_NSTATES; s++) {
		if (!ns[s])
			continue;
		snprintf(name, sizeof(name), "%s_ns", tsa_state_name[s]);
		annotation_u64(o, name, ns[s]);
		snprintf(name, sizeof(name), "%s_pct", tsa_state_name[s]);
		annotation_f(o, name, 100.0 * (double)ns[s] / (double)el);
	}
	if (l->cell && l->cell[c].call[0]) {
		annotation_s(o, "top_syscall", l->cell[c].call);
		annotation_u64(o, "top_syscall_ns", l->cell[c].call_ns);
	}
	if (l->cell && l->cell[c].waker[0]) {
		annotation_s(o, "top_waker", l->cell[c].waker);
		annotation_u64(o, "top_waker_ns", l->cell[c].waker_ns);
	}
	/* Flows: from this slice to those it was the top waker of. */
	for (k = 0; k < in->n; k++)
		if (in->l[k].cell && in->l[k].cell[c].waker_line == (long)i &&
		    elapsed(&in->l[k].ns[c * TSA_NSTATES]))
			pb_fixed64(&o->msg, TE_FLOW, 1 + k * in->ncols + c);
	if (l->cell && l->cell[c].waker_line >= 0 &&
	    elapsed(&in->l[l->cell[c].waker_line].ns[c * TSA_NSTATES]))
		pb_fixed64(&o->msg, TE_TERMINATING_FLOW, 1 + i * in->ncols + c);
	event(o, col_start(in, c), track_of(l, i), TYPE_SLICE_BEGIN);
}

/* The counter tracks of the states with time, and whether each has. */
static void counters(struct pf_out *o, const struct pf_in *in, int *has)
{
	size_t i, c;
	int s;

	for (s = 0; s < TSA_NSTATES; s++) {
		char name[48];

		has[s] = 0;
		for (i = 0; i < in->n && !has[s]; i++)
			for (c = 0; c < in->ncols && !has[s]; c++)
				has[s] = in->l[i].ns[c * TSA_NSTATES + s] != 0;
		if (!has[s])
			continue;
		snprintf(name, sizeof(name), "tsa %s (lines in it)",
			 tsa_state_name[s]);
		pb_uint(&o->msg, TD_UUID, UUID_COUNTER | (uint64_t)s);
		pb_str(&o->msg, TD_NAME, name);
		pb_msg(&o->msg, TD_COUNTER, &o->sub);
		pb_msg(&o->pkt, PKT_TRACK_DESCRIPTOR, &o->msg);
		packet(o);
	}
}

int perfetto_write(FILE *f, const struct pf_in *in)
{
	struct pf_out o;
	int has[TSA_NSTATES], *open_ = xmalloc((in->n + 1) * sizeof(int));
	size_t c, i;
	int s;

	memset(&o, 0, sizeof(o));
	memset(open_, 0, (in->n + 1) * sizeof(int));
	o.f = f;
	descriptors(&o, in);
	counters(&o, in, has);
	for (c = 0; c < in->ncols; c++) {
		uint64_t ts = col_start(in, c), dur = col_start(in, c + 1) - ts;

		for (i = 0; i < in->n; i++) {
			if (open_[i])
				event(&o, ts, track_of(&in->l[i], i),
				      TYPE_SLICE_END);
			open_[i] = elapsed(&in->l[i].ns[c * TSA_NSTATES]) != 0;
			if (open_[i])
				slice(&o, in, i, c);
		}
		for (s = 0; s < TSA_NSTATES; s++) {
			uint64_t sum = 0;

			if (!has[s])
				continue;
			for (i = 0; i < in->n; i++)
				sum += in->l[i].ns[c * TSA_NSTATES + s];
			pb_double(&o.msg, TE_DOUBLE_COUNTER, dur ?
				  (double)sum / (double)dur : 0);
			event(&o, ts, UUID_COUNTER | (uint64_t)s, TYPE_COUNTER);
		}
	}
	for (i = 0; i < in->n; i++)
		if (open_[i])
			event(&o, in->t0 + in->len, track_of(&in->l[i], i),
			      TYPE_SLICE_END);
	free(open_);
	free(o.pkt.p);
	free(o.msg.p);
	free(o.sub.p);
	free(o.ann.p);
	return fflush(f) == EOF || ferror(f) ? -1 : 0;
}
