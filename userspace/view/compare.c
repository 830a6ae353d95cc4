// SPDX-License-Identifier: GPL-2.0
/*
 * view/compare.c - the compare report (--compare A B): B's groups over
 * the time since A, as a table or JSON lines, and what could not be
 * matched.  The snapshots may come from captures or recordings alike.
 */
#include <inttypes.h>
#include <time.h>

#include "compare.h"
#include "json.h"
#include "table.h"

void compare_wall(char *out, size_t len, const struct timespec *t)
{
	struct tm tm;

	gmtime_r(&t->tv_sec, &tm);
	strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void compare_print(FILE *f, const struct show *o, enum group_by by,
		   const struct tsa_snap *a, const struct tsa_snap *b,
		   const struct group_report *r, size_t n,
		   const struct tsa_totals *tot,
		   const struct compare_sum *sum)
{
	double secs = (double)(b->now - a->now) / 1e9;
	char wa[32], wb[32];

	if (o->json) {
		json_print_groups(f, by, b, r, r->d, n);
		fprintf(f, "{\"compare\":{\"a_ts\":%lld.%03ld,\"b_ts\":%lld."
			"%03ld,\"a_now\":%" PRIu64 ",\"b_now\":%" PRIu64 ","
			"\"seconds\":%.3f,\"nproc\":%lu,\"nlwp\":%lu,"
			"\"only_a_threads\":%lu,\"gone_processes\":%lu,"
			"\"only_b_threads\":%lu}}\n",
			(long long)a->wall.tv_sec, a->wall.tv_nsec / 1000000,
			(long long)b->wall.tv_sec, b->wall.tv_nsec / 1000000,
			a->now, b->now, secs, tot->nprocs,
			tot->nlwps, sum->only_a, sum->gone, sum->only_b);
		return;
	}
	compare_wall(wa, sizeof(wa), &a->wall);
	compare_wall(wb, sizeof(wb), &b->wall);
	fprintf(f, "Compare: %s -> %s, %.3f s apart\n", wa, wb, secs);
	group_lines_print(f, o, by, r, r->d, n, 1);
	fprintf(f, "Total: %lu processes, %lu lwps in B; only in A: %lu "
		"threads (exited), %lu processes gone (their time after A "
		"is not counted); only in B: %lu threads (new, counted "
		"from their start)\n", tot->nprocs, tot->nlwps, sum->only_a,
		sum->gone, sum->only_b);
}
