// SPDX-License-Identifier: GPL-2.0
/*
 * The guest tests' library: parsers for /proc/tsa files and the kernel's
 * own books, TAP output and small helpers.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include "tsa-read.h"

static const char *const names[TSA_NSTATES] = {
#define TSA_STATE(name, what)	#name,
#include "../../module/tsa_states.h"
};
const char *const tsa_counter_names[TSA_NCOUNTERS] = {
#define TSA_COUNTER(name, what)	#name,
#include "../../module/tsa_states.h"
};

const char *tsa_state_name(int s)
{
	return s >= 0 && s < TSA_NSTATES ? names[s] : "?";
}

int tsa_state_index(const char *name)
{
	for (int i = 0; i < TSA_NSTATES; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

uint64_t tsa_sum(const struct tsa_thread *t)
{
	uint64_t s = 0;

	for (int i = 0; i < TSA_NSTATES; i++)
		s += t->ns[i];
	return s;
}

int tsa_parse_thread(const char *text, struct tsa_thread *t)
{
	const char *line = text;
	int ok = 0;

	memset(t, 0, sizeof(*t));
	t->state = -1;
	if (strncmp(text, "tsa-thread 1\n", 13)) {
		errno = EPROTO;
		return -1;
	}
	while (line && *line) {
		char key[32], val[64];
		unsigned long long a, b, c, d;
		int s;

		if (sscanf(line, "%31s", key) == 1) {
			if (!strcmp(key, "tid"))
				sscanf(line, "tid %d", &t->tid);
			else if (!strcmp(key, "pid"))
				sscanf(line, "pid %d", &t->pid);
			else if (!strcmp(key, "comm"))
				sscanf(line, "comm %31[^\n]", t->comm);
			else if (!strcmp(key, "degraded"))
				tsa_parse_state_list(line + 8, &t->degraded);
			else if (!strcmp(key, "since") &&
				 sscanf(line, "since %63s", val) == 1)
				t->since_load = !strcmp(val, "load");
			else if (!strcmp(key, "state") &&
				 sscanf(line, "state %63s %llu", val, &a) == 2) {
				t->state = tsa_state_index(val);
				t->state_ns = a;
			} else if (!strcmp(key, "elapsed") &&
				   sscanf(line, "elapsed %llu", &a) == 1) {
				t->elapsed = a;
				ok++;
			} else if ((s = tsa_state_index(key)) >= 0 &&
				   sscanf(line, "%*s %llu %*s %llu %llu", &a,
					  &c, &d) == 3) {
				t->ns[s] = a;
				t->entries[s] = c;
				t->longest[s] = d;
				ok++;
			} else {
				for (int i = 0; i < TSA_NCOUNTERS; i++)
					if (!strcmp(key, tsa_counter_names[i]) &&
					    sscanf(line, "%*s %llu", &b) == 1)
						t->counters[i] = b;
			}
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (ok != TSA_NSTATES + 1 || t->state < 0) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

int tsa_pread_thread(int fd, struct tsa_thread *t)
{
	char buf[16384];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return -1;
	buf[n] = 0;
	return tsa_parse_thread(buf, t);
}

/*
 * /proc/tsa/<tid>, opened: the module makes a new thread's file a moment
 * after its birth (in a batch at most every 20 ms), so a live thread
 * without one yet is waited for, 3 s at most; -1 with errno.
 */
static int tsa_open_thread(pid_t tid)
{
	char path[64], task[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/tsa/%d", tid);
	snprintf(task, sizeof(task), "/proc/%d", tid);
	for (int i = 0; i < 300; i++) {
		fd = open(path, O_RDONLY);
		if (fd >= 0 || errno != ENOENT || access(task, F_OK))
			break;
		sleep_ms(10);
		errno = ENOENT;
	}
	return fd;
}

int tsa_read_thread(pid_t tid, struct tsa_thread *t)
{
	int fd, ret, e;

	fd = tsa_open_thread(tid);
	if (fd < 0)
		return -1;
	ret = tsa_pread_thread(fd, t);
	e = errno;
	close(fd);
	errno = e;
	return ret;
}

/*
 * "#syscall name calls ns pct longest SYS TRP ..." names the state
 * columns; each "syscall NAME ..." row follows it.
 */
int tsa_parse_calls(const char *text, struct tsa_calls *c)
{
	const char *line = text;
	int col[TSA_NSTATES], ncol = -1;

	c->n = c->ntraps = 0;
	while (line && *line) {
		const char *p;
		int off;

		if (!strncmp(line, "#syscall ", 9)) {
			char word[16];

			ncol = 0;
			p = line + 9;
			for (int k = 0; sscanf(p, "%15s%n", word, &off) == 1 &&
			     *word != '#'; k++, p += off) {
				if (k >= 5 && ncol < TSA_NSTATES)
					col[ncol++] = tsa_state_index(word);
				if (p[off] == '\n')
					break;
			}
		} else if (!strncmp(line, "trap ", 5)) {
			struct tsa_callrow *r = &c->trap[c->ntraps];
			unsigned long long a, b, d;

			if (c->ntraps == TSA_MAXCALLS ||
			    sscanf(line, "trap %47s %llu %llu %*s %llu",
				   r->name, &a, &b, &d) != 4)
				goto bad;
			memset(r->state_ns, 0, sizeof(r->state_ns));
			r->calls = a;
			r->ns = r->state_ns[TSA_TRP] = b;
			r->longest = d;
			c->ntraps++;
		} else if (!strncmp(line, "syscall ", 8)) {
			struct tsa_callrow *r = &c->row[c->n];
			unsigned long long a, b, d, v;
			int i;

			if (ncol <= 0 || c->n == TSA_MAXCALLS ||
			    sscanf(line, "syscall %47s %llu %llu %*s %llu%n",
				   r->name, &a, &b, &d, &off) != 4)
				goto bad;
			memset(r->state_ns, 0, sizeof(r->state_ns));
			r->calls = a;
			r->ns = b;
			r->longest = d;
			p = line + off;
			for (i = 0; i < ncol; i++, p += off) {
				if (sscanf(p, " %llu%n", &v, &off) != 1 ||
				    col[i] < 0)
					goto bad;
				r->state_ns[col[i]] = v;
			}
			c->n++;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return 0;
bad:
	errno = EPROTO;
	return -1;
}

int tsa_read_thread_calls(pid_t tid, struct tsa_thread *t,
			  struct tsa_calls *c)
{
	char buf[16384];
	ssize_t n;
	int fd, e;

	fd = tsa_open_thread(tid);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	e = errno;
	close(fd);
	errno = e;
	if (n < 0)
		return -1;
	buf[n] = 0;
	if (tsa_parse_thread(buf, t))
		return -1;
	return tsa_parse_calls(buf, c);
}

const struct tsa_callrow *tsa_call_find(const struct tsa_calls *c,
					const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->row[i].name, name))
			return &c->row[i];
	return NULL;
}

int tsa_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static char *slurp(const char *path, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((r = read(fd, buf + n, cap - n - 1)) > 0) {
		n += r;
		if (cap - n < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
}

int tsa_read_all(struct tsa_all *all)
{
	return tsa_read_all_file("/proc/tsa/all", all);
}

/* Parse /proc/tsa/all (or a copy) by the names on its fields line. */
int tsa_read_all_file(const char *path, struct tsa_all *all)
{
	char *fields[256];
	size_t len, cap = 1024;
	int nf = 0;
	char *buf = slurp(path, &len), *line, *save = NULL;

	memset(all, 0, sizeof(*all));
	if (!buf)
		return -1;
	line = strtok_r(buf, "\n", &save);
	if (!line || strcmp(line, "tsa-all 1")) {
		free(buf);
		errno = EPROTO;
		return -1;
	}
	all->t = calloc(cap, sizeof(*all->t));
	while ((line = strtok_r(NULL, "\n", &save))) {
		if (!strncmp(line, "now ", 4)) {
			all->now = strtoull(line + 4, NULL, 10);
		} else if (!strncmp(line, "states ", 7)) {
			/* The module's numbering must be the table's here. */
			char want[256] = "";

			for (int s = 0; s < TSA_NSTATES; s++)
				snprintf(want + strlen(want), sizeof(want) - strlen(want),
					 "%s%s", s ? " " : "", tsa_state_name(s));
			if (strcmp(line + 7, want)) {
				free(buf);
				free(all->t);
				all->t = NULL;
				errno = EPROTO;
				return -1;
			}
		} else if (!strncmp(line, "fields ", 7)) {
			char *f, *s2 = NULL;

			for (f = strtok_r(line + 7, " ", &s2); f && nf < 256;
			     f = strtok_r(NULL, " ", &s2))
				fields[nf++] = f;
		} else {
			struct tsa_thread *t;
			char *p = line;

			if (all->n == cap) {
				cap *= 2;
				all->t = realloc(all->t, cap * sizeof(*all->t));
			}
			t = &all->t[all->n++];
			memset(t, 0, sizeof(*t));
			t->at = all->now;	/* modules without the column */
			for (int i = 0; i < nf; i++) {
				char name[32];
				unsigned long long v;
				int s;

				while (*p == ' ')
					p++;
				if (!strcmp(fields[i], "comm")) {
					snprintf(t->comm, sizeof(t->comm), "%s", p);
					break;
				}
				v = strtoull(p, &p, 10);
				if (!strcmp(fields[i], "tid"))
					t->tid = v;
				else if (!strcmp(fields[i], "pid"))
					t->pid = v;
				else if (!strcmp(fields[i], "flags"))
					t->flags = v;
				else if (!strcmp(fields[i], "elapsed"))
					t->elapsed = v;
				else if (!strcmp(fields[i], "state"))
					t->state = v;
				else if (!strcmp(fields[i], "at"))
					t->at = v;
				else if (!strcmp(fields[i], "state_ns"))
					t->state_ns = v;
				snprintf(name, sizeof(name), "%.3s", fields[i]);
				for (int k = 0; name[k]; k++)
					name[k] = toupper((unsigned char)name[k]);
				s = tsa_state_index(name);
				if (s >= 0 && fields[i][3] == '_') {
					if (!strcmp(fields[i] + 4, "ns"))
						t->ns[s] = v;
					else if (!strcmp(fields[i] + 4, "n"))
						t->entries[s] = v;
					else if (!strcmp(fields[i] + 4, "max"))
						t->longest[s] = v;
				}
				for (int k = 0; k < TSA_NCOUNTERS; k++) {
					char cn[8];

					snprintf(cn, sizeof(cn), "%s", tsa_counter_names[k]);
					for (int m = 0; cn[m]; m++)
						cn[m] = tolower((unsigned char)cn[m]);
					if (!strcmp(fields[i], cn))
						t->counters[k] = v;
				}
			}
		}
	}
	free(buf);
	return 0;
}

int tsa_read_hist(struct tsa_hists *h)
{
	return tsa_read_hist_file("/proc/tsa/hist", h);
}

int tsa_read_hist_file(const char *path, struct tsa_hists *h)
{
	size_t len, cap = 1024;
	char *buf = slurp(path, &len), *line, *save = NULL;
	char name[64];

	memset(h, 0, sizeof(*h));
	if (!buf)
		return -1;
	line = strtok_r(buf, "\n", &save);
	if (!line || strcmp(line, "tsa-hist 2"))
		goto bad;
	h->l = calloc(cap, sizeof(*h->l));
	while ((line = strtok_r(NULL, "\n", &save))) {
		struct tsa_histline *l;
		unsigned long long v[10];
		char *p;
		int off;

		if (!strncmp(line, "now ", 4)) {
			h->now = strtoull(line + 4, NULL, 10);
			continue;
		}
		if (!strncmp(line, "buckets ", 8)) {
			if (sscanf(line + 8, "%u %d", &h->buckets, &h->exp) != 2 ||
			    h->buckets != TSA_HIST_BUCKETS || h->exp != -20)
				goto bad;
			continue;
		}
		if (!strncmp(line, "states ", 7) || !strncmp(line, "fields ", 7))
			continue;
		if (h->n == cap) {
			cap *= 2;
			h->l = realloc(h->l, cap * sizeof(*h->l));
		}
		l = &h->l[h->n];
		memset(l, 0, sizeof(*l));
		/* tid pid uid flags elapsed at state n ns max max_at b0... */
		if (sscanf(line, "%llu %llu %llu %llu %llu %llu %63s %llu %llu %llu %llu%n",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], name,
			   &v[6], &v[7], &v[8], &v[9], &off) != 11)
			goto bad;
		l->tid = v[0];
		l->pid = v[1];
		l->flags = v[3];
		l->elapsed = v[4];
		l->at = v[5];
		l->state = tsa_state_index(name);
		if (!strncmp(name, "syscall:", 8)) {
			l->state = TSA_HIST_CALL;
			snprintf(l->call, sizeof(l->call), "%s", name + 8);
		}
		l->n = v[6];
		l->ns = v[7];
		l->max = v[8];
		l->max_at = v[9];
		if (l->state == -1)
			goto bad;
		p = line + off;
		if (*p) {	/* open open_ns b0 ... */
			l->open = strtoul(p, &p, 10);
			l->open_ns = strtoull(p, &p, 10);
			for (; *p && l->nb < TSA_HIST_BUCKETS; l->nb++)
				l->b[l->nb] = strtoull(p, &p, 10);
			if (l->nb != TSA_HIST_BUCKETS)
				goto bad;
		}
		h->n++;
	}
	free(buf);
	return 0;
bad:
	free(buf);
	tsa_free_hist(h);
	errno = EPROTO;
	return -1;
}

void tsa_free_hist(struct tsa_hists *h)
{
	free(h->l);
	h->l = NULL;
	h->n = 0;
}

const struct tsa_histline *tsa_hist_find(const struct tsa_hists *h, pid_t tid,
					 pid_t pid, int state)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->l[i].tid == tid && h->l[i].pid == pid &&
		    h->l[i].state == state)
			return &h->l[i];
	return NULL;
}

const struct tsa_histline *tsa_hist_find_call(const struct tsa_hists *h,
					      pid_t tid, pid_t pid,
					      const char *call)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->l[i].tid == tid && h->l[i].pid == pid &&
		    h->l[i].state == TSA_HIST_CALL &&
		    !strcmp(h->l[i].call, call))
			return &h->l[i];
	return NULL;
}

int tsa_hist_quantile(const struct tsa_histline *l, double q)
{
	uint64_t total = 0, run = 0;

	for (int b = 0; b < l->nb; b++)
		total += l->b[b];
	for (int b = 0; b < l->nb; b++) {
		run += l->b[b];
		if (total && run >= q * total)
			return b;
	}
	return -1;
}

void tsa_free_all(struct tsa_all *all)
{
	free(all->t);
	all->t = NULL;
}

int tsa_list_tids(struct tsa_tidlist *tl)
{
	DIR *d = opendir("/proc/tsa");
	struct dirent *e;
	size_t cap = 256;

	tl->n = 0;
	tl->tid = malloc(cap * sizeof(pid_t));
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		if (tl->n == cap) {
			cap *= 2;
			tl->tid = realloc(tl->tid, cap * sizeof(pid_t));
		}
		tl->tid[tl->n++] = atoi(e->d_name);
	}
	closedir(d);
	return 0;
}

int tsa_read_schedstat(pid_t tid, struct tsa_schedstat *ss)
{
	char path[64];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", tid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fscanf(f, "%lu %lu %lu", &ss->oncpu, &ss->rundelay, &ss->slices);
	fclose(f);
	if (n != 3) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

int tsa_read_ctxt_switches(pid_t tid, uint64_t *vol, uint64_t *invol)
{
	char path[64], line[256];
	int got = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", tid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		got += sscanf(line, "voluntary_ctxt_switches: %lu", vol);
		got += sscanf(line, "nonvoluntary_ctxt_switches: %lu", invol);
	}
	fclose(f);
	if (got != 2) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

/* States and counters separated by spaces up to the end of the line; "-" is none. */
int tsa_parse_state_list(const char *list, uint32_t *bits)
{
	const char *p = list;
	int ret = 0;

	*bits = 0;
	for (;;) {
		char name[16];
		int n = 0, s;

		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		while (p[n] && p[n] != ' ' && p[n] != '\n' && n < 15) {
			name[n] = p[n];
			n++;
		}
		name[n] = 0;
		p += n;
		while (*p && *p != ' ' && *p != '\n')
			p++;
		if (!strcmp(name, "-"))
			continue;
		s = tsa_state_index(name);
		if (s >= 0) {
			*bits |= 1U << s;
			continue;
		}
		for (s = 0; s < TSA_NCOUNTERS; s++)
			if (!strcmp(name, tsa_counter_names[s]))
				break;
		if (s < TSA_NCOUNTERS)
			*bits |= TSA_COUNTER_BIT(s);
		else
			ret = -1;
	}
	return ret;
}

/*
 * The fields of /proc/<tid>/task/<tid>/stat after comm, which may hold
 * anything: they restart after its last ')'. NULL with errno if gone.
 */
static const char *stat_fields(pid_t tid, char *buf, size_t size)
{
	char path[64], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", tid, tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p)
		errno = EPROTO;
	return p ? p + 1 : NULL;
}

int tsa_read_faults(pid_t tid, uint64_t *minflt, uint64_t *majflt)
{
	char buf[1024];
	const char *p = stat_fields(tid, buf, sizeof(buf));
	unsigned long long mi, ma;

	/* ) state ppid pgrp session tty tpgid flags minflt cminflt majflt */
	if (!p || sscanf(p, " %*c %*d %*d %*d %*d %*d %*u %llu %*u %llu",
			 &mi, &ma) != 2) {
		errno = EPROTO;
		return -1;
	}
	*minflt = mi;
	*majflt = ma;
	return 0;
}

int tsa_read_task_flags(pid_t tid, unsigned long *flags)
{
	char buf[1024];
	const char *p = stat_fields(tid, buf, sizeof(buf));

	/* ) state ppid pgrp session tty tpgid flags */
	if (!p || sscanf(p, " %*c %*d %*d %*d %*d %*d %lu", flags) != 1) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

static char *debugfs_stats(void)
{
	size_t len;

	return slurp("/sys/kernel/debug/tsa/stats", &len);
}

/* @fn on each line of debugfs stats until it says 1; else -1, ENOENT. */
static int debugfs_find(int (*fn)(const char *line, void *arg), void *arg)
{
	char *buf = debugfs_stats(), *line, *save = NULL;
	int ret = -1;

	if (!buf)
		return -1;
	errno = ENOENT;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (fn(line, arg)) {
			ret = 0;
			break;
		}
	}
	free(buf);
	return ret;
}

struct degraded_line {
	uint32_t *bits;
	int ret;
};

/*
 * debugfs' line also names, in lower case, what the architecture cannot
 * tell (arm64: aarch32-calls); those words are not states: left out.
 */
static int match_degraded(const char *line, void *arg)
{
	struct degraded_line *d = arg;
	char states[256];
	const char *p;
	size_t n = 0;

	if (strncmp(line, "degraded", 8) || (line[8] != ' ' && line[8]))
		return 0;
	for (p = line + 8; *p && n < sizeof(states) - 2;) {
		size_t w = strcspn(p, " \n");

		if (w && !(*p >= 'a' && *p <= 'z') && n + w + 1 < sizeof(states)) {
			states[n++] = ' ';
			memcpy(states + n, p, w);
			n += w;
		}
		p += w;
		if (!*p)
			break;
		p++;
	}
	states[n] = '\0';
	d->ret = tsa_parse_state_list(states, d->bits);
	return 1;
}

int tsa_read_debugfs_degraded(uint32_t *bits)
{
	struct degraded_line d = { bits, -1 };

	return debugfs_find(match_degraded, &d) ? -1 : d.ret;
}

struct hook_line {
	const char *name;
	int *live, *enabled;
	uint64_t *events;
};

static int match_hook(const char *line, void *arg)
{
	struct hook_line *h = arg;
	char n[64], ev[32];

	if (sscanf(line, "hook %63s %d %d %31s", n, h->live, h->enabled,
		   ev) != 4 || strcmp(n, h->name))
		return 0;
	/* "-": the module counts no events (events=0, its default). */
	*h->events = strcmp(ev, "-") ? strtoull(ev, NULL, 10) : UINT64_MAX;
	return 1;
}

int tsa_read_debugfs_hook(const char *name, int *live, int *enabled,
			  uint64_t *events)
{
	struct hook_line h = { name, live, enabled, events };

	return debugfs_find(match_hook, &h);
}

struct counter_line {
	const char *name;
	uint64_t *value;
};

static int match_counter(const char *line, void *arg)
{
	struct counter_line *c = arg;
	size_t len = strlen(c->name);

	if (strncmp(line, c->name, len) || line[len] != ' ')
		return 0;
	*c->value = strtoull(line + len + 1, NULL, 10);
	return 1;
}

int tsa_read_debugfs_counter(const char *name, uint64_t *value)
{
	struct counter_line c = { name, value };

	return debugfs_find(match_counter, &c);
}

/* --- taskstats over generic netlink (what getdelays(8) does) --- */

struct nlmsg {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char buf[2048];
};

static int nl_send(int fd, uint16_t type, uint8_t cmd, uint16_t attr,
		   const void *data, uint16_t len)
{
	struct nlmsg m;
	struct nlattr *na;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	memset(&m, 0, sizeof(m));
	m.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m.n.nlmsg_type = type;
	m.n.nlmsg_flags = NLM_F_REQUEST;
	m.n.nlmsg_pid = getpid();
	m.g.cmd = cmd;
	m.g.version = 1;
	na = (struct nlattr *)((char *)&m + m.n.nlmsg_len);
	na->nla_type = attr;
	na->nla_len = NLA_HDRLEN + len;
	memcpy((char *)na + NLA_HDRLEN, data, len);
	m.n.nlmsg_len += NLA_ALIGN(na->nla_len);
	return sendto(fd, &m, m.n.nlmsg_len, 0, (struct sockaddr *)&to,
		      sizeof(to)) == (ssize_t)m.n.nlmsg_len ? 0 : -1;
}

/* Receive one reply; returns its attributes' start and length. */
static int nl_recv(int fd, struct nlmsg *m, struct nlattr **first, int *len)
{
	ssize_t n = recv(fd, m, sizeof(*m), 0);

	if (n < 0)
		return -1;
	if (!NLMSG_OK(&m->n, (size_t)n)) {
		errno = EPROTO;
		return -1;
	}
	if (m->n.nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr *e = NLMSG_DATA(&m->n);

		errno = e->error ? -e->error : EPROTO;
		return -1;
	}
	*first = (struct nlattr *)((char *)NLMSG_DATA(&m->n) + GENL_HDRLEN);
	*len = (int)NLMSG_PAYLOAD(&m->n, 0) - GENL_HDRLEN;
	return 0;
}

static struct nlattr *nla_next(struct nlattr *na, int *rem)
{
	int l = NLA_ALIGN(na->nla_len);

	*rem -= l;
	return (struct nlattr *)((char *)na + l);
}

static int nla_ok(const struct nlattr *na, int rem)
{
	return rem >= (int)sizeof(*na) && na->nla_len >= sizeof(*na) &&
	       na->nla_len <= rem;
}

static int taskstats_family(int fd)
{
	static const char name[] = TASKSTATS_GENL_NAME;
	struct nlmsg m;
	struct nlattr *na;
	int rem;

	if (nl_send(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
		    name, sizeof(name)) || nl_recv(fd, &m, &na, &rem))
		return -1;
	for (; nla_ok(na, rem); na = nla_next(na, &rem))
		if (na->nla_type == CTRL_ATTR_FAMILY_ID)
			return *(uint16_t *)((char *)na + NLA_HDRLEN);
	errno = ENOENT;
	return -1;
}

int tsa_read_delays(pid_t tid, struct tsa_delays *d)
{
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	struct nlmsg m;
	struct nlattr *na, *in;
	int fd, fam, rem, irem, e, ret = -1;
	uint32_t p = tid;

	memset(d, 0, sizeof(*d));
	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&me, sizeof(me)))
		goto out;
	fam = taskstats_family(fd);
	if (fam < 0)
		goto out;
	if (nl_send(fd, fam, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_PID, &p,
		    sizeof(p)) || nl_recv(fd, &m, &na, &rem))
		goto out;
	errno = EPROTO;
	for (; nla_ok(na, rem); na = nla_next(na, &rem)) {
		if (na->nla_type != TASKSTATS_TYPE_AGGR_PID)
			continue;
		irem = na->nla_len - NLA_HDRLEN;
		for (in = (struct nlattr *)((char *)na + NLA_HDRLEN);
		     nla_ok(in, irem); in = nla_next(in, &irem)) {
			struct taskstats ts;
			size_t l = in->nla_len - NLA_HDRLEN;

			if (in->nla_type != TASKSTATS_TYPE_STATS)
				continue;
			memset(&ts, 0, sizeof(ts));
			memcpy(&ts, (char *)in + NLA_HDRLEN,
			       l < sizeof(ts) ? l : sizeof(ts));
			d->cpu_ns = ts.cpu_delay_total;
			d->cpu_n = ts.cpu_count;
			d->blkio_ns = ts.blkio_delay_total;
			d->blkio_n = ts.blkio_count;
			d->swapin_ns = ts.swapin_delay_total;
			d->swapin_n = ts.swapin_count;
			d->freepages_ns = ts.freepages_delay_total;
			d->freepages_n = ts.freepages_count;
			d->thrashing_ns = ts.thrashing_delay_total;
			d->thrashing_n = ts.thrashing_count;
			ret = 0;
		}
	}
out:
	e = errno;
	close(fd);
	errno = e;
	return ret;
}

int test_no;
int failures;

void tap(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++test_no);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failures++;
}

int tsa_test_main(const char *prog, const struct tsa_test *tests, size_t n,
		  int argc, char **argv)
{
	struct timespec t0, t1;
	int j, first = 1;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 2 && !strcmp(argv[1], "--first")) {
		first = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	test_no = first - 1;
	for (j = 1; j < argc; j++) {
		for (i = 0; i < n && strcmp(argv[j], tests[i].name); i++)
			;
		if (i == n) {
			fprintf(stderr, "%s: no test '%s'\n", prog, argv[j]);
			return 2;
		}
	}
	for (i = 0; i < n; i++) {
		int run = argc < 2;

		for (j = 1; j < argc; j++)
			run |= !strcmp(argv[j], tests[i].name);
		if (!run)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		printf("# %s\n", tests[i].name);
		tests[i].fn();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("# %s took %.1f s\n", tests[i].name,
		       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	}
	printf("# %s: %d passed, %d failed\n", prog,
	       test_no - (first - 1) - failures, failures);
	return failures ? 1 : 0;
}

pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

double gap(uint64_t a, uint64_t b)
{
	double d = (double)a - (double)b;

	return b ? 100.0 * (d < 0 ? -d : d) / (double)b : (a ? 100.0 : 0.0);
}

void check_sum(const struct tsa_thread *t, const char *what)
{
	uint64_t s = tsa_sum(t);

	tap(s == t->elapsed, "%s: states sum to elapsed (expected %llu, saw %llu)",
	    what, (unsigned long long)t->elapsed, (unsigned long long)s);
}

void check_switches(const struct tsa_thread *t, uint64_t vol, uint64_t invol,
		    const char *what)
{
	tap(t->counters[TSA_VCX] == vol && t->counters[TSA_ICX] == invol,
	    "%s: VCX/ICX equal the kernel's voluntary/nonvoluntary switches (expected %llu/%llu, saw %llu/%llu)",
	    what, (unsigned long long)vol, (unsigned long long)invol,
	    (unsigned long long)t->counters[TSA_VCX],
	    (unsigned long long)t->counters[TSA_ICX]);
}

void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int tsa_kernel_before(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 0;
	return ma < major || (ma == major && mi < minor);
}

long tsa_module_param(const char *module, const char *name)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", module,
		 name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1) {
		char c = 0;

		/* A bool parameter reads Y or N. */
		rewind(f);
		v = fscanf(f, " %c", &c) == 1 && (c == 'Y' || c == 'N') ?
			c == 'Y' : -1;
	}
	fclose(f);
	return v;
}
