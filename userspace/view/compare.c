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
#include "jsonw.h"
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
		struct jsonw w;

		json_print_groups(f, by, b, r, r->d, n);
		json_begin(&w, f);
		jw_object(&w, "compare");
		jw_time(&w, "a_ts", &a->wall);
		jw_time(&w, "b_ts", &b->wall);
		jw_u64(&w, "a_now", a->now);
		jw_u64(&w, "b_now", b->now);
		jw_fixed(&w, "seconds", secs);
		jw_u64(&w, "nproc", tot->nprocs);
		jw_u64(&w, "nlwp", tot->nlwps);
		jw_u64(&w, "only_a_threads", sum->only_a);
		jw_u64(&w, "gone_processes", sum->gone);
		jw_u64(&w, "only_b_threads", sum->only_b);
		jw_end_line(&w);
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
