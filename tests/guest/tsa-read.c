// SPDX-License-Identifier: GPL-2.0
/* Parsers for /proc/tsa files and the kernel's own books, for tests. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsa-read.h"

static const char *const names[TSA_NSTATES] = {
	"USR", "SYS", "TRP", "TFL", "DFL", "KFL", "APG",
	"LCK", "KLK", "IOW", "IDL", "SLP", "LAT", "STP",
};
static const char *const cnames[TSA_NCOUNTERS] = {
	"VCX", "ICX", "SCL", "SIG", "MINF", "MAJF", "MIG",
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
					if (!strcmp(key, cnames[i]) &&
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
	char buf[8192];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return -1;
	buf[n] = 0;
	return tsa_parse_thread(buf, t);
}

int tsa_read_thread(pid_t tid, struct tsa_thread *t)
{
	char path[64];
	int fd, ret, e;

	snprintf(path, sizeof(path), "/proc/tsa/%d", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	ret = tsa_pread_thread(fd, t);
	e = errno;
	close(fd);
	errno = e;
	return ret;
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

/* Parse /proc/tsa/all by the names on its fields line. */
int tsa_read_all(struct tsa_all *all)
{
	char *fields[256];
	size_t len, cap = 1024;
	int nf = 0;
	char *buf = slurp("/proc/tsa/all", &len), *line, *save = NULL;

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

					snprintf(cn, sizeof(cn), "%s", cnames[k]);
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
