// SPDX-License-Identifier: GPL-2.0
/*
 * app/main.c - tsa-prstat: the command line and the main loop.
 *
 * Every interval: one read of /proc/tsa/all (model/all.c), deltas against
 * the previous read (summed per group with --group: model/group.c), sort
 * (view/sort.c), then a table (view/table.c) or JSON lines (view/json.c).  The system-call view (-y) also reads
 * /proc/tsa/calls (model/calls.c) right after, and shows the calls of the
 * threads or processes the first read found.  On a terminal, without
 * -c, each report redraws the screen and is cut to its height, as
 * prstat does; otherwise reports follow one another and contain no
 * escape sequences.
 *
 * Three modes run once and exit: --prometheus / --openmetrics (one
 * snapshot as metrics, view/metrics.c), --save (one snapshot as a capture
 * file) and --compare (two captures, store/capture.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "all.h"
#include "calls.h"
#include "group.h"
#include "unmatched.h"
#include "compare.h"
#include "dist.h"
#include "json.h"
#include "metrics.h"
#include "sort.h"
#include "table.h"
#include "capture.h"
#include "record.h"
#include "keys.h"
#include "calibrate.h"
#include "options.h"

#ifndef TSA_PRSTAT_VERSION
#define TSA_PRSTAT_VERSION "unknown"
#endif

static volatile sig_atomic_t stop;

static void usage(FILE *f, int code)
{
	fprintf(f,
"Usage:\ttsa-prstat [-cLmvAWyH] [--tsa] [--syscalls] [--hist] [--json]\n"
"\t[-p pidlist] [--draw]\n"
"\t[--group pid|cgroup|user|comm]\n"
"\t[-s key | -S key] [-n ntop[,nbottom]] [interval [count]]\n"
"\ttsa-prstat --prometheus | --openmetrics [--group pid|cgroup|user|comm]\n"
"\t[-p pidlist]\n"
"\ttsa-prstat --save file\n"
"\ttsa-prstat --compare a b [--group by] [-AH] [--json] [-p pidlist]\n"
"\t  (a, b: captures, or DIR@TIME: a recording at a time)\n"
"\t[-s key | -S key] [-n ntop]\n"
"\ttsa-prstat --record dir [--interval secs] [--keep age] [--max-size size]\n"
"\ttsa-prstat --replay dir [--from time] [--to time] [--summary]\n"
"\t[-LAy] [--json] [--group by] [-p pidlist] [-s key | -S key] [-n ntop]\n"
"\ttsa-prstat --calibrate\n"
"\ttsa-prstat -h | --help | --version\n"
"\n"
"  -m, -v      microstates in Solaris prstat -m columns (the default)\n"
"  -A, --tsa   TSA view: EXEC RUN APG SLP LCK IDL STP\n"
"  -y, --syscalls\n"
"              system-call view: the calls the time went to, with\n"
"              PCT CALLS AVG MAX and their SYS LAT FLT APG LCK KLK IOW\n"
"              IDL SLP split (needs the module's calls=N, syscalls=1)\n"
"  -H, --hist  distributions view: per thread (-L), process or --group\n"
"              and state (LAT, STP and each sleep), the stays that\n"
"              ended: COUNT TIME P50 P90 P99 MAX (needs the module's\n"
"              hist=1); with --draw, each line's buckets as bars\n"
"  -L          one line per thread instead of per process\n"
"  -c          print each report below the previous one; never redraw\n"
"  -p pidlist  only these processes (comma or space separated)\n"
"  -n ntop     at most ntop lines per report (nbottom is accepted,\n"
"              ignored)\n"
"  -s key      sort descending by key; -S key: ascending.  Keys: cpu\n"
"              time vcx icx scl sig, -m: usr sys trp tfl dfl lck slp lat,\n"
"              TSA: exec run apg slp lck idl stp wait; -y has its own:\n"
"              pct calls avg max sys lat flt apg lck klk iow idl slp\n"
"  -W          truncate long user names, and call names with -y\n"
"              (always, on a terminal)\n"
"  --json      one JSON object per line and interval\n"
"  --prometheus, --openmetrics\n"
"              one snapshot's lifetime state seconds and counters as\n"
"              Prometheus text (node_exporter's textfile collector) or\n"
"              OpenMetrics, per process, then exit\n"
"  --save file\n"
"              write one capture of every visible thread and process\n"
"              (with each process's cgroup) to file ('-': stdout)\n"
"  --compare a b\n"
"              what happened between two captures, per process or\n"
"              --group, sorted by the time in the -s state\n"
"  --record dir\n"
"              the flight recorder: every --interval seconds (10), what\n"
"              changed for every visible thread and process, compressed,\n"
"              into dir/tsa-YYYYMMDD-HH.rec (an hour a file, UTC); --keep\n"
"              age (7d, 12h) and --max-size size (2G, 500M) remove the\n"
"              oldest files\n"
"  --replay dir\n"
"              the reports of a recording, as they would have been live,\n"
"              from --from to --to (2026-11-26 03:00, 03:00, -2h,\n"
"              @epoch; local time), or with --summary one report over\n"
"              that window\n"
"  --calibrate measure on each CPU what a system call and a page fault\n"
"              cost beyond tsa's hooks (the kernel's entry and exit\n"
"              paths) and have tsa.ko charge it to SYS (root)\n"
"  --group by  one line per cgroup (v2 path), user or comm (thread\n"
"              name, trailing number folded: worker-{N}) instead of per\n"
"              process (pid); exited threads count in their group\n"
"\n"
"On a terminal, without -c: keys q quit, s S > < sort key, r reverse,\n"
"L threads, m A y view, g group, p pid, / name, space pause, h help.\n"
"\n"
"Examples:\n"
"  tsa-prstat -mL 1            # Solaris prstat -mL, every second\n"
"  tsa-prstat -A -L -p 4240 1  # TSA states of one process's threads\n"
"  tsa-prstat -yL -p 4240 1    # which system calls its threads wait in\n"
"  tsa-prstat -HL -p 4240 1    # its threads' waits for a CPU, p99 and max\n"
"  tsa-prstat -HL --draw -p 4240 -n 1 1 1  # its busiest thread's, drawn\n"
"  tsa-prstat --json -L 5 12   # a minute of JSON lines\n"
"  tsa-prstat --group cgroup -A 5  # TSA states per container or unit\n"
"  tsa-prstat --prometheus --group cgroup > tsa.prom  # for node_exporter\n"
"  tsa-prstat --save before; ...; tsa-prstat --save after\n"
"  tsa-prstat --compare before after --group comm -s lck\n"
"  tsa-prstat --record /var/log/tsa --keep 7d --max-size 2G\n"
"  tsa-prstat --replay /var/log/tsa --from 03:00 --to 03:10 -L\n"
"\n"
"Reads $TSA_PROC_DIR/all (default /proc/tsa/all), with -y calls, with\n"
"-H hist.\n"
"See tsa-prstat(8).\n");
	exit(code);
}

static void bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", progname);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	usage(stderr, EXIT_USAGE);
}

static long parse_long(const char *s, long min, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min)
		bad_usage(what, s);
	return v;
}

static void parse_pids(struct options *o, const char *arg)
{
	struct show *sh = &o->show;
	char *copy = strdup(arg), *tok, *save = NULL;

	if (!copy)
		die(EXIT_BADDATA, "out of memory");
	tok = strtok_r(copy, ", ", &save);
	if (!tok)
		bad_usage("invalid argument for -p: '%s'", arg);
	for (; tok; tok = strtok_r(NULL, ", ", &save)) {
		sh->pids = xrealloc(sh->pids,
				    (sh->npids + 1) * sizeof(*sh->pids));
		sh->pids[sh->npids++] = (uint64_t)parse_long(tok, 1,
				"invalid argument for -p: '%s'");
	}
	free(copy);
}

static void parse_n(struct options *o, const char *arg)
{
	char *copy = strdup(arg), *comma;

	if (!copy)
		die(EXIT_BADDATA, "out of memory");
	comma = strchr(copy, ',');
	if (comma) {
		*comma = '\0';
		parse_long(comma + 1, 1, "invalid argument for -n: '%s'");
	}
	o->show.ntop = parse_long(copy, 1, "invalid argument for -n: '%s'");
	free(copy);
}

/*
 * The export is one snapshot's lifetime numbers, per process or group:
 * no interval, no view, and no per-thread series (their number is not
 * bounded: threads come and go, each would be a series of its own).
 */
static void check_metrics_args(const struct options *o, int argc,
			       int nmetrics, int view)
{
	if (nmetrics > 1)
		bad_usage("%s", "--prometheus and --openmetrics: choose one");
	if (o->show.lwps)
		bad_usage("%s", "-L: the export has no per-thread series "
			  "(unbounded); use --group comm");
	if (view || o->show.json)
		bad_usage("%s", "--prometheus and --openmetrics show no view; "
			  "drop -A, -y and --json");
	if (optind < argc)
		bad_usage("%s", "--prometheus and --openmetrics take one "
			  "snapshot: no interval or count");
}

enum { OPT_JSON = 256, OPT_VERSION, OPT_PROM, OPT_OPENMETRICS, OPT_GROUP,
       OPT_SAVE, OPT_COMPARE, OPT_CALIBRATE, OPT_RECORD, OPT_INTERVAL,
       OPT_KEEP, OPT_MAXSIZE, OPT_REPLAY, OPT_FROM, OPT_TO, OPT_SUMMARY,
       OPT_DRAW };

static double parse_interval(const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0) || v > 1e6)
		bad_usage("invalid interval '%s'", arg);
	return v;
}

/* The recorder's and the replay's options, checked. */
static void check_record_args(struct options *o, int argc, char **argv,
			      const char *interval, const char *from,
			      const char *to, int view_opts)
{
	time_t now = time(NULL);

	if ((o->keep_secs || o->max_bytes) && !o->record)
		bad_usage("%s", "--keep and --max-size are the recorder's: "
			  "with --record");
	if (interval && !o->record)
		bad_usage("%s", "--interval is the recorder's: with --record "
			  "(live reports take it as an operand)");
	if ((from || to || o->summary) && !o->replay)
		bad_usage("%s", "--from, --to and --summary choose a "
			  "recording's window: with --replay");
	o->from = o->to = -1;
	if (o->record) {
		if (view_opts)
			bad_usage("%s", "--record keeps every visible thread "
				  "and process: no view, -p or --group (the "
				  "replay chooses them)");
		if (interval)
			o->interval = parse_interval(interval);
		else if (optind < argc)
			o->interval = parse_interval(argv[optind++]);
		else
			o->interval = 10;
		if (optind < argc)
			o->count = parse_long(argv[optind++], 1,
					      "invalid counter value '%s'");
		if (optind < argc)
			bad_usage("unexpected argument '%s'", argv[optind]);
	}
	if (o->replay) {
		if (optind < argc)
			bad_usage("%s", "--replay: its reports are the "
				  "recording's intervals (no interval or count)");
		if (from && (o->from = parse_when(from, now)) < 0)
			bad_usage("invalid time for --from: '%s' (YYYY-MM-DD "
				  "HH:MM[:SS], HH:MM[:SS], -2h or @SECONDS)",
				  from);
		if (to && (o->to = parse_when(to, now)) < 0)
			bad_usage("invalid time for --to: '%s' (YYYY-MM-DD "
				  "HH:MM[:SS], HH:MM[:SS], -2h or @SECONDS)", to);
		if (o->from >= 0 && o->to >= 0 && o->to < o->from)
			bad_usage("%s", "--to is before --from");
	}
}

static void parse_args(struct options *o, int argc, char **argv)
{
	struct show *sh = &o->show;
	static const struct option longopts[] = {
		{ "tsa", no_argument, NULL, 'A' },
		{ "syscalls", no_argument, NULL, 'y' },
		{ "hist", no_argument, NULL, 'H' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "prometheus", no_argument, NULL, OPT_PROM },
		{ "openmetrics", no_argument, NULL, OPT_OPENMETRICS },
		{ "group", required_argument, NULL, OPT_GROUP },
		{ "save", required_argument, NULL, OPT_SAVE },
		{ "compare", required_argument, NULL, OPT_COMPARE },
		{ "calibrate", no_argument, NULL, OPT_CALIBRATE },
		{ "record", required_argument, NULL, OPT_RECORD },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "keep", required_argument, NULL, OPT_KEEP },
		{ "max-size", required_argument, NULL, OPT_MAXSIZE },
		{ "replay", required_argument, NULL, OPT_REPLAY },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "draw", no_argument, NULL, OPT_DRAW },
		{ NULL, 0, NULL, 0 },
	};
	const char *sortk = NULL, *interval = NULL, *from = NULL, *to = NULL;
	int tsa = 0, calls = 0, hist = 0, nmetrics = 0;
	char why[128];
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	sh->sort_order = -1;
	o->interval = 5;
	o->count = -1;
	o->proc_dir = getenv("TSA_PROC_DIR");
	if (!o->proc_dir || !*o->proc_dir)
		o->proc_dir = "/proc/tsa";
	o->procfs = getenv("TSA_PROCFS");
	if (!o->procfs || !*o->procfs)
		o->procfs = "/proc";
	sh->group_by = -1;

	opterr = 0;	/* our own messages, named like the others */
	while ((c = getopt_long(argc, argv, ":AcHLmvWyhp:n:s:S:", longopts,
				NULL)) != -1) {
		char opt[2] = { (char)optopt, '\0' };
		int shortopt = optopt > 0 && optopt < 256;

		switch (c) {
		case ':':
			bad_usage(shortopt ? "option requires an argument -- '%s'"
				  : "option requires an argument: %s",
				  shortopt ? opt : argv[optind - 1]);
			break;
		case '?':
			bad_usage(shortopt ? "invalid option -- '%s'"
				  : "bad option '%s'",
				  shortopt ? opt : argv[optind - 1]);
			break;
		case 'A':
			sh->view = VIEW_TSA;
			tsa = 1;
			break;
		case 'y':
			sh->view = VIEW_CALLS;
			calls = 1;
			break;
		case 'H':
			sh->view = VIEW_HIST;
			hist = 1;
			break;
		case 'c':
			o->no_clear = 1;
			break;
		case 'L':
			sh->lwps = 1;
			break;
		case 'm':
		case 'v':
			break;	/* microstates are all there is */
		case 'W':
			sh->trunc = 1;
			break;
		case 'p':
			parse_pids(o, optarg);
			break;
		case 'n':
			parse_n(o, optarg);
			break;
		case 's':
		case 'S':
			sh->sort_order = c == 's' ? -1 : 1;
			sortk = optarg;
			break;
		case OPT_JSON:
			sh->json = 1;
			break;
		case OPT_PROM:
		case OPT_OPENMETRICS:
			o->metrics = 1 + (c == OPT_OPENMETRICS ?
					  METRICS_OPENMETRICS :
					  METRICS_PROMETHEUS);
			nmetrics++;
			break;
		case OPT_GROUP:
			sh->group_by = group_by_lookup(optarg);
			if (sh->group_by < 0)
				bad_usage("invalid argument for --group: '%s' "
					  "(pid, cgroup, user or comm)",
					  optarg);
			break;
		case OPT_SAVE:
			o->save = optarg;
			break;
		case OPT_COMPARE:
			o->compare[0] = optarg;
			break;
		case OPT_DRAW:
			sh->draw = 1;
			break;
		case OPT_CALIBRATE:
			o->calibrate = 1;
			break;
		case OPT_RECORD:
			o->record = optarg;
			break;
		case OPT_INTERVAL:
			interval = optarg;
			break;
		case OPT_KEEP:
			o->keep_secs = parse_age(optarg);
			if (o->keep_secs <= 0)
				bad_usage("invalid argument for --keep: '%s' "
					  "(7d, 12h, 90m, 3600s)", optarg);
			break;
		case OPT_MAXSIZE:
			o->max_bytes = parse_size(optarg);
			if (o->max_bytes <= 0)
				bad_usage("invalid argument for --max-size: "
					  "'%s' (2G, 500M, 64K, bytes)", optarg);
			break;
		case OPT_REPLAY:
			o->replay = optarg;
			break;
		case OPT_FROM:
			from = optarg;
			break;
		case OPT_TO:
			to = optarg;
			break;
		case OPT_SUMMARY:
			o->summary = 1;
			break;
		case OPT_VERSION:
			printf("tsa-prstat %s\n", TSA_PRSTAT_VERSION);
			exit(0);
		case 'h':
			usage(stdout, 0);
			break;
		default:
			usage(stderr, EXIT_USAGE);
		}
	}
	if (o->calibrate && argc != 2)
		bad_usage("%s", "--calibrate measures and writes the "
			  "calibration: no other option or operand");
	if ((o->save != NULL) + (o->compare[0] != NULL) + !!o->metrics +
	    (o->record != NULL) + (o->replay != NULL) > 1)
		bad_usage("%s", "--save, --compare, --record, --replay and an "
			  "export are modes of their own; choose one");
	check_record_args(o, argc, argv, interval, from, to,
			  tsa || calls || sh->lwps || sh->json || sh->npids ||
			  sh->group_by >= 0 || sortk || sh->ntop ||
			  o->no_clear);
	if (o->record)
		optind = argc;
	if (o->save && (sh->lwps || tsa || calls || sh->json || sh->npids ||
			sh->group_by >= 0 || optind < argc))
		bad_usage("%s", "--save writes every visible thread once: no "
			  "other option or operand");
	if (o->compare[0]) {
		if (optind >= argc)
			bad_usage("%s", "--compare needs two captures: "
				  "--compare a b");
		o->compare[1] = argv[optind++];
		if (sh->lwps || calls)
			bad_usage("%s", "--compare shows processes or groups: "
				  "not with -L or -y");
	}
	if (o->metrics)
		check_metrics_args(o, argc, nmetrics, tsa || calls);
	else if (sh->group_by >= 0 && (sh->lwps || calls))
		bad_usage("%s", "--group shows groups: not with -L or -y");
	if (optind < argc) {
		errno = 0;
		o->interval = strtod(argv[optind], &end);
		if (errno || end == argv[optind] || *end ||
		    !(o->interval > 0) || o->interval > 1e6)
			bad_usage("invalid interval '%s'", argv[optind]);
		optind++;
	}
	if (optind < argc)
		o->count = parse_long(argv[optind++], 1,
				      "invalid counter value '%s'");
	if (optind < argc)
		bad_usage("unexpected argument '%s'", argv[optind]);
	if (tsa + calls + hist > 1)
		bad_usage("%s", "-A (--tsa), -y (--syscalls) and -H (--hist) "
			  "are views of their own; choose one");
	if (hist && (o->save || o->metrics || o->record || o->replay ||
		     sortk))
		bad_usage("%s", "-H (--hist) shows threads, processes or "
			  "groups, live or between two captures (--compare), "
			  "the most time in the states shown first: not with "
			  "-s, -S or another mode");
	if (sh->draw && (!hist || sh->json))
		bad_usage("%s", "--draw draws the buckets of -H (--hist): "
			  "only with -H, not with --json");

	if (hist) {
		sh->sort_key = 0;	/* its own order (tsa_hist_compute()) */
	} else if (sortk) {
		sh->sort_key = sort_key_lookup(sortk, sh->view, why,
					       sizeof(why));
		if (sh->sort_key < 0)
			bad_usage("%s", why);
	} else {
		sh->sort_key = sort_default_key(sh->view);
	}
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void set_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: wake the sleep */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Lines a report may have on this terminal: rows less header, Total
 * and the cursor's line, as prstat computes it. */
static long screen_lines(void)
{
	struct winsize ws;
	const char *env;
	long n = 0;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0)
		n = ws.ws_row;
	else if ((env = getenv("LINES")) != NULL)
		n = strtol(env, NULL, 10);
	if (n <= 0)
		return 0;	/* unknown: no limit */
	return n - 3 > 1 ? n - 3 : 1;
}

static void fail_read(int rc, const char *path, const char *msg)
{
	switch (rc) {
	case TSA_ENOENT:
		die(EXIT_NOMODULE, "%s: not found; is the tsa module loaded? "
		    "(sudo modprobe tsa)", path);
	case TSA_EACCES:
		die(EXIT_ACCESS, "%s: permission denied", path);
	default:
		die(EXIT_BADDATA, "%s: %s", path, msg);
	}
}

/*
 * /proc/tsa/calls: absent unless the module counts calls (or traps:
 * then it says "rows 0 ...").
 */
static void fail_read_calls(int rc, const char *path, const char *msg)
{
	if (rc == TSA_ENOENT || rc == TSA_ENOCALLS)
		die(EXIT_NOMODULE, "%s: %s; the tsa module must be loaded "
		    "with calls=N (N > 0) and syscalls=1 for -y "
		    "(sudo modprobe -r tsa; sudo modprobe tsa calls=8 "
		    "syscalls=1)", path, rc == TSA_ENOENT ? "not found" :
		    "no system-call rows");
	fail_read(rc, path, msg);
}

static void fail_read_hist(int rc, const char *path, const char *msg)
{
	switch (rc) {
	case TSA_ENOENT:
		die(EXIT_NOMODULE, "%s: not found; the tsa module must be "
		    "loaded with hist=1 for -H (sudo modprobe -r tsa; sudo "
		    "modprobe tsa hist=1)", path);
	case TSA_EACCES:
		die(EXIT_ACCESS, "%s: permission denied", path);
	default:
		die(EXIT_BADDATA, "%s: %s", path, msg);
	}
}

/* -H, live: until @stop or o->count reports. */
static int hist_run(const struct options *o, volatile sig_atomic_t *stop)
{
	struct tsa_hist_snap snaps[2], *prev = NULL, *cur = &snaps[0];
	struct hist_report r;
	struct timespec deadline;
	char path[4096], msg[256];
	int rc;
	long done;

	snprintf(path, sizeof(path), "%s/hist", o->proc_dir);
	memset(snaps, 0, sizeof(snaps));
	memset(&r, 0, sizeof(r));
	r.procfs = o->procfs;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (done = 0; !*stop && (o->count < 0 || done < o->count); done++) {
		if (done) {
			next_deadline(&deadline, o->interval);
			while (!*stop &&
			       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					       &deadline, NULL) == EINTR)
				;
			if (*stop)
				break;
		}
		rc = tsa_hist_read(cur, path, msg, sizeof(msg));
		if (rc != TSA_OK)
			fail_read_hist(rc, path, msg);
		hist_report_compute(&r, &o->show, prev, cur);
		if (o->show.json)
			hist_print_json(stdout, &o->show, cur, &r);
		else
			hist_print(stdout, &o->show, cur, prev ?
				   (double)(cur->now - prev->now) / 1e9 : 0,
				   &r);
		if (!o->show.json && (o->count < 0 || done + 1 < o->count))
			putchar('\n');
		if (fflush(stdout) == EOF || ferror(stdout))
			die(EXIT_BADDATA, "write error: %s", strerror(errno));
		prev = cur;
		cur = cur == &snaps[0] ? &snaps[1] : &snaps[0];
	}
	hist_report_free(&r);
	tsa_hist_free(&snaps[0]);
	tsa_hist_free(&snaps[1]);
	return 0;
}

/*
 * --record: every o->interval seconds until a signal (or o->count
 * blocks), /proc/tsa/all (and /proc/tsa/calls when the module keeps
 * them) into the recorder.
 */
static int record_loop(const struct options *o, const char *allpath,
		       const char *callspath, volatile sig_atomic_t *stop)
{
	struct rec_config c = { o->record, o->interval, o->count,
				o->keep_secs, o->max_bytes, o->procfs };
	struct tsa_snap snaps[2], *prev = NULL, *cur = &snaps[0];
	struct ct_file calls[2];
	struct recorder *rec;
	struct timespec deadline;
	char msg[4400];
	double la[3];
	int ck = 0, with_calls = 0, err;
	long done;

	memset(snaps, 0, sizeof(snaps));
	memset(calls, 0, sizeof(calls));
	rec = recorder_open(&c, &err, msg, sizeof(msg));
	if (!rec)
		die(err == TSA_EACCES ? EXIT_ACCESS : EXIT_BADDATA, "%s", msg);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (done = 0; !*stop && (o->count < 0 || done < o->count); done++) {
		if (done) {
			next_deadline(&deadline, o->interval);
			while (!*stop &&
			       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					       &deadline, NULL) == EINTR)
				;
			if (*stop)
				break;
		}
		err = tsa_snap_read(cur, allpath, msg, sizeof(msg));
		if (err != TSA_OK)
			fail_read(err, allpath, msg);
		/* The system-call rows too, when the module keeps them. */
		err = done && !with_calls ? TSA_ENOENT :
		      ct_read(&calls[ck], callspath, msg, sizeof(msg));
		if (!done)
			with_calls = err != TSA_ENOENT;
		if (with_calls && err != TSA_OK)
			die(err == TSA_EACCES ? EXIT_ACCESS : EXIT_BADDATA,
			    "%s: %s", callspath, msg);
		read_loadavg(la);
		if (recorder_block(rec, prev, cur,
				   with_calls ? &calls[!ck] : NULL,
				   with_calls ? &calls[ck] : NULL, la, msg,
				   sizeof(msg)))
			die(EXIT_BADDATA, "%s", msg);
		prev = cur;
		cur = cur == &snaps[0] ? &snaps[1] : &snaps[0];
		ck = !ck;
	}
	ct_free(&calls[0]);
	ct_free(&calls[1]);
	if (recorder_close(rec, msg, sizeof(msg)))
		die(EXIT_BADDATA, "%s", msg);
	tsa_snap_free(&snaps[0]);
	tsa_snap_free(&snaps[1]);
	return 0;
}


/* With -p: complain about pids that are not there; exit if none is. */
static void check_pids(const struct options *o, const struct tsa_snap *s)
{
	size_t i, found = 0;

	for (i = 0; i < o->show.npids; i++) {
		const struct tsa_proc *p = tsa_snap_proc(s, o->show.pids[i]);

		if (p && p->nlwp)
			found++;
	}
	if (found)
		return;
	fflush(stdout);
	fprintf(stderr, "%s: no such process:", progname);
	for (i = 0; i < o->show.npids; i++)
		fprintf(stderr, "%s%llu", i ? "," : " ",
			(unsigned long long)o->show.pids[i]);
	fputc('\n', stderr);
	exit(EXIT_NOPID);
}

static void sleep_until(struct timespec *deadline, double interval)
{
	next_deadline(deadline, interval);
	while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					deadline, NULL) == EINTR)
		;
}

/* At most the -n lines, or on a redrawn terminal its height. */
static size_t lines_shown(const struct options *o, size_t n, int redraw)
{
	if (o->show.ntop && (size_t)o->show.ntop < n)
		n = (size_t)o->show.ntop;
	if (redraw && !o->show.ntop) {
		long rows = screen_lines();

		if (rows > 0 && (size_t)rows < n)
			n = (size_t)rows;
	}
	return n;
}

/* --save: one capture, to a file or stdout. */
static int save_capture(const struct options *o, const char *path)
{
	struct tsa_hist_snap h;
	struct tsa_snap s;
	struct stat st;
	char msg[256], hpath[4096], *hraw = NULL;
	size_t hlen = 0, hcap = 0;
	int rc, hrc, regular, to_stdout = !strcmp(o->save, "-");
	FILE *f;

	memset(&s, 0, sizeof(s));
	memset(&h, 0, sizeof(h));
	rc = tsa_snap_read(&s, path, msg, sizeof(msg));
	if (rc != TSA_OK)
		fail_read(rc, path, msg);
	/*
	 * The distributions too, where the module keeps them (hist=1): as
	 * read, once a copy has parsed.
	 */
	snprintf(hpath, sizeof(hpath), "%s/hist", o->proc_dir);
	hrc = tsa_read_file(hpath, &hraw, &hlen, &hcap, msg, sizeof(msg));
	if (hrc == TSA_OK) {
		h.buf = xmalloc(hlen + 1);
		h.cap = hlen + 1;
		h.len = hlen;
		memcpy(h.buf, hraw, hlen);
		hrc = tsa_hist_parse(&h, msg, sizeof(msg));
	}
	if (hrc != TSA_OK && hrc != TSA_ENOENT)
		warnmsg("%s: %s: the capture is written without the "
			"distributions", hpath, msg);
	f = to_stdout ? stdout : fopen(o->save, "we");
	if (!f)
		die(errno == EACCES ? EXIT_ACCESS : EXIT_BADDATA, "%s: %s",
		    o->save, strerror(errno));
	regular = !to_stdout && fstat(fileno(f), &st) == 0 &&
		  S_ISREG(st.st_mode);
	if (capture_write(f, &s, o->procfs, hrc == TSA_OK ? hraw : NULL,
			  hlen) ||
	    (!to_stdout && fclose(f) == EOF)) {
		int err = errno;

		/* Never half a capture; never a device, FIFO or socket. */
		if (regular)
			unlink(o->save);
		die(EXIT_BADDATA, "%s: write error: %s", o->save,
		    strerror(err));
	}
	tsa_snap_free(&s);
	tsa_hist_free(&h);
	free(hraw);
	return 0;
}

/*
 * "DIR@TIME": a recording at a time (the first "@" after which comes a
 * time and before which a directory); 1 with them set, else 0.
 */
static int recording_point(const char *arg, char *dir, size_t len,
			   time_t *t)
{
	const char *at;
	struct stat st;

	for (at = strchr(arg, '@'); at; at = strchr(at + 1, '@')) {
		if ((size_t)(at - arg) >= len)
			break;
		snprintf(dir, len, "%.*s", (int)(at - arg), arg);
		if (stat(dir, &st) || !S_ISDIR(st.st_mode))
			continue;
		*t = parse_when(at + 1, time(NULL));
		if (*t < 0)
			die(EXIT_USAGE, "%s: invalid time '%s' (YYYY-MM-DD "
			    "HH:MM[:SS], HH:MM[:SS], -2h or @SECONDS)", arg,
			    at + 1);
		return 1;
	}
	return 0;
}

static void load_capture(struct capture *c, const char *path)
{
	char msg[256], dir[PATH_MAX];
	time_t t;
	int rc;

	if (recording_point(path, dir, sizeof(dir), &t)) {
		if (replay_at(c, dir, t, msg, sizeof(msg)))
			die(EXIT_BADDATA, "%s: %s", path, msg);
		return;
	}
	rc = capture_read(c, path, msg, sizeof(msg));

	if (rc == TSA_EACCES)
		die(EXIT_ACCESS, "%s: %s", path, msg);
	if (rc != TSA_OK)
		die(EXIT_BADDATA, "%s: %s", path, msg);
}

/*
 * --compare A B -H: the stays that ended between two captures that
 * carry the distributions, per process or group, named as in B.
 */
static void compare_hist(const struct options *o, struct capture *a,
			 struct capture *b)
{
	struct hist_report r;
	char wa[64], wb[64];
	int k;

	for (k = 0; k < 2; k++)
		if (!(k ? b : a)->has_hist)
			die(EXIT_BADDATA, "%s: -H: the capture has no "
			    "distributions (saved without the module's "
			    "hist=1 or by an older tsa-prstat; recordings "
			    "do not keep them)", o->compare[k]);
	memset(&r, 0, sizeof(r));
	r.names = &b->snap;
	r.procfs = "/nonexistent";
	r.cc = b->cc;
	memset(&b->cc, 0, sizeof(b->cc));
	hist_report_compute(&r, &o->show, &a->hist, &b->hist);
	if (o->show.json) {
		hist_print_json(stdout, &o->show, &b->hist, &r);
	} else {
		compare_wall(wa, sizeof(wa), &a->wall);
		compare_wall(wb, sizeof(wb), &b->wall);
		printf("Compare: %s -> %s, %.3f s apart\n", wa, wb,
		       (double)(b->snap.now - a->snap.now) / 1e9);
		hist_print(stdout, &o->show, &b->hist,
			   (double)(b->hist.now - a->hist.now) / 1e9, &r);
	}
	hist_report_free(&r);
}

/* --compare A B: one report of B against A. */
static int compare_captures(const struct options *o)
{
	const struct show *sh = &o->show;
	struct capture a, b;
	struct group_report r;
	struct tsa_select sel;
	struct tsa_totals tot;
	struct compare_sum sum;
	enum group_by by = sh->group_by < 0 ? GROUP_PID :
			   (enum group_by)sh->group_by;
	size_t n;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&r, 0, sizeof(r));
	load_capture(&a, o->compare[0]);
	load_capture(&b, o->compare[1]);
	if (a.boot_id[0] && b.boot_id[0] && strcmp(a.boot_id, b.boot_id))
		die(EXIT_BADDATA, "%s and %s: captures of two different "
		    "boots cannot be compared", o->compare[0], o->compare[1]);
	if (b.snap.now < a.snap.now)
		die(EXIT_BADDATA, "%s was taken before %s: give the earlier "
		    "capture first", o->compare[1], o->compare[0]);
	if (sh->view == VIEW_HIST) {
		compare_hist(o, &a, &b);
		goto out;
	}
	sel.lwps = 0;
	sel.interval = (double)(b.snap.now - a.snap.now) / 1e9;
	sel.pids = sh->pids;
	sel.npids = sh->npids;
	/* B's cgroups are the capture's, never the live system's. */
	r.cc = b.cc;
	memset(&b.cc, 0, sizeof(b.cc));
	n = group_report_compute(&r, &a.snap, &b.snap, by, &sel,
				 "/nonexistent", &tot);
	sort_lines_time(r.d, n, sh->sort_key, sh->sort_order);
	compare_count(&a.snap, &b.snap, &sum);
	compare_print(stdout, sh, by, &a.snap, &b.snap, &r, lines_shown(o, n, 0), &tot,
		      &sum);
out:
	if (fflush(stdout) == EOF || ferror(stdout))
		die(EXIT_BADDATA, "write error: %s", strerror(errno));
	group_report_free(&r);
	capture_free(&a);
	capture_free(&b);
	free(sh->pids);
	return 0;
}

/* --prometheus / --openmetrics: one snapshot, written once. */
/*
 * The export: one snapshot of /proc/tsa/all per process or group, and
 * where the module keeps them (hist=1), their distributions of stays
 * from /proc/tsa/hist, read right after.
 */
static int export_metrics(const struct options *o, const char *path)
{
	const struct show *sh = &o->show;
	enum group_by by = sh->group_by < 0 ? GROUP_PID :
			   (enum group_by)sh->group_by;
	struct metrics_hist *mh = NULL;
	long *proc_group;
	struct tsa_hist_snap h;
	struct tsa_snap s;
	struct group_table t;
	char msg[256], hpath[PATH_MAX];
	size_t n;
	int rc;

	memset(&s, 0, sizeof(s));
	memset(&t, 0, sizeof(t));
	memset(&h, 0, sizeof(h));
	rc = tsa_snap_read(&s, path, msg, sizeof(msg));
	if (rc != TSA_OK)
		fail_read(rc, path, msg);
	if (sh->npids)
		check_pids(o, &s);
	/* Each process's group, once: its distributions go there too. */
	proc_group = xmalloc((s.nprocs + 1) * sizeof(*proc_group));
	n = group_compute(&s, by, sh->pids, sh->npids, o->procfs, NULL, &t,
			  proc_group);
	snprintf(hpath, sizeof(hpath), "%s/hist", o->proc_dir);
	rc = tsa_hist_read(&h, hpath, msg, sizeof(msg));
	if (rc == TSA_OK) {
		mh = xmalloc((n + 1) * sizeof(*mh));
		metrics_hist_compute(&s, &h, by, sh->pids, sh->npids,
				     proc_group, &t, mh);
	} else if (rc != TSA_ENOENT) {
		fail_read(rc, hpath, msg);
	}
	metrics_print(stdout, (enum metrics_format)(o->metrics - 1), by, t.g,
		      n, mh, h.shift);
	if (fflush(stdout) == EOF || ferror(stdout))
		die(EXIT_BADDATA, "write error: %s", strerror(errno));
	free(mh);
	free(proc_group);
	tsa_hist_free(&h);
	group_table_free(&t);
	tsa_snap_free(&s);
	free(sh->pids);
	return 0;
}

/* What one report needs from one interval to the next. */
struct reporter {
	struct tsa_delta *lines;
	struct tsa_call_line *clines;
	size_t cap, ccap;
	struct group_report groups;
	struct tsa_select sel;
	int redraw;
};

/* The / key: only the lines whose name has @f (all when it is ""). */
static size_t filter_lines(struct tsa_delta *d, size_t n, const char *f)
{
	size_t i, k = 0;

	if (!f[0])
		return n;
	for (i = 0; i < n; i++)
		if (d[i].comm && strstr(d[i].comm, f))
			d[k++] = d[i];
	return k;
}

/*
 * One report of @cur against @prev (NULL: lifetime numbers), with its
 * system calls from @ccur and @cprev for -y.
 */
static void report(struct reporter *rp, const struct options *o,
		   const struct tsa_snap *prev, const struct tsa_snap *cur,
		   const struct tsa_calls_snap *cprev,
		   const struct tsa_calls_snap *ccur, const double la[3])
{
	const struct show *sh = &o->show;
	int calls = sh->view == VIEW_CALLS;
	int grouped = sh->group_by > GROUP_PID;	/* pid: the usual report */
	struct tsa_totals tot;
	size_t n, show;

	if (grouped) {
		n = group_report_compute(&rp->groups, prev, cur,
					 (enum group_by)sh->group_by, &rp->sel,
					 o->replay ? "/nonexistent" : o->procfs,
					 &tot);
		n = filter_lines(rp->groups.d, n, sh->filter);
		sort_lines(rp->groups.d, n, sh->sort_key, sh->sort_order);
	} else {
		n = tsa_delta_compute(prev, cur, &rp->sel, &rp->lines, &rp->cap,
				      &tot);
		n = filter_lines(rp->lines, n, sh->filter);
		if (calls) {
			/* Call lines point at the (unsorted) lines. */
			n = tsa_calls_compute(prev, cur, cprev, ccur, &rp->sel,
					      rp->lines, n, &rp->clines,
					      &rp->ccap);
			sort_call_lines(rp->clines, n, sh->sort_key,
					sh->sort_order);
		} else {
			sort_lines(rp->lines, n, sh->sort_key, sh->sort_order);
		}
	}
	show = lines_shown(o, n, rp->redraw);

	if (sh->json) {
		if (grouped)
			json_print_groups(stdout, (enum group_by)sh->group_by,
					  cur, &rp->groups, rp->groups.d, show);
		else if (calls)
			json_print_calls(stdout, sh, ccur, rp->clines, show);
		else
			json_print(stdout, sh, cur, rp->lines, show);
	} else {
		if (rp->redraw)
			fputs("\033[H\033[J", stdout);
		if (grouped)
			group_table_print(stdout, sh,
					  (enum group_by)sh->group_by,
					  &rp->groups, rp->groups.d, show,
					  &tot, la);
		else if (calls)
			calls_table_print(stdout, sh, rp->clines, show, &tot,
					  la, sh->trunc || rp->redraw);
		else
			table_print(stdout, sh, rp->lines, show, &tot, la,
				    sh->trunc || rp->redraw);
	}
	if (fflush(stdout) == EOF || ferror(stdout))
		die(EXIT_BADDATA, "write error: %s", strerror(errno));
}

static void reporter_free(struct reporter *rp, struct options *o)
{
	free(rp->lines);
	free(rp->clines);
	group_report_free(&rp->groups);
	free(o->show.pids);
}

static void reporter_init(struct reporter *rp, const struct options *o,
			  int redraw)
{
	memset(rp, 0, sizeof(*rp));
	rp->sel.lwps = o->show.lwps;
	rp->sel.interval = o->interval;
	rp->sel.pids = o->show.pids;
	rp->sel.npids = o->show.npids;
	rp->redraw = redraw;
}

static void fmt_local(char *out, size_t len, const struct timespec *t)
{
	struct tm tm;

	localtime_r(&t->tv_sec, &tm);
	strftime(out, len, "%Y-%m-%d %H:%M:%S %Z", &tm);
}

static const char *fmt_now(const struct timespec *t)
{
	static char buf[64];

	fmt_local(buf, sizeof(buf), t);
	return buf;
}

/*
 * --replay: every recorded interval in the window, reported as live
 * (with its time above it), or one report over the window (--summary).
 */
static int replay_recording(struct options *o)
{
	struct tsa_snap snaps[3];
	struct tsa_calls_snap csnaps[3];
	int prev = -1, cur = 0, first = -1, calls = o->show.view == VIEW_CALLS;
	struct reporter rp;
	struct replay rec;
	char msg[256], boot[64] = "";
	unsigned long reports = 0;

	if (replay_open(&rec, o->replay, o->from >= 0 ? (time_t)o->from : 0,
			msg, sizeof(msg)))
		die(EXIT_BADDATA, "%s: %s", o->replay, msg);
	memset(snaps, 0, sizeof(snaps));
	memset(csnaps, 0, sizeof(csnaps));
	reporter_init(&rp, o, 0);
	while (replay_next(&rec, &snaps[cur], calls ? &csnaps[cur] : NULL) > 0) {
		struct tsa_snap *c = &snaps[cur], *p;

		if (o->to >= 0 && c->wall.tv_sec > o->to)
			break;
		/* Another boot, or its clock back: no interval across. */
		if (prev >= 0 && (strcmp(boot, rec.boot_id) ||
				  snaps[prev].now > c->now)) {
			prev = -1;
			if (first >= 0) {
				warnmsg("%s: the window spans a reboot at %s: "
					"the summary begins there", o->replay,
					fmt_now(&c->wall));
				first = -1;
			}
		}
		snprintf(boot, sizeof(boot), "%s", rec.boot_id);
		p = prev >= 0 ? &snaps[prev] : NULL;
		if (o->from < 0 || c->wall.tv_sec >= o->from) {
			if (calls && rec.calls_err == TSA_ENOCALLS)
				die(EXIT_NOMODULE, "%s: -y: the module kept no "
				    "system-call rows then (calls=0 or "
				    "syscalls=0; the rows there are traps)",
				    o->replay);
			if (calls && rec.calls_err == TSA_ENOENT)
				die(EXIT_NOMODULE, "%s: -y: no system-call rows "
				    "recorded at %s (the module kept none: "
				    "calls=0 and interrupts=0)", o->replay,
				    fmt_now(&c->wall));
			if (calls && rec.calls_err != TSA_OK)
				die(EXIT_BADDATA, "%s: -y: the system-call rows "
				    "recorded at %s do not parse", o->replay,
				    fmt_now(&c->wall));
			if (o->summary) {
				if (first < 0)
					first = cur;	/* kept from here on */
			} else {
				/* A first report's counts: per interval. */
				rp.sel.interval = p ? (double)(c->now -
						p->now) / 1e9 : rec.interval > 0 ?
						rec.interval : o->interval;
				if (o->show.group_by == GROUP_CGROUP)
					replay_cgroups(&rec, c, &rp.groups.cc);
				if (!o->show.json && p)
					printf("Replay: %s, %.1f s\n", fmt_now(
					       &c->wall), rp.sel.interval);
				else if (!o->show.json)
					printf("Replay: %s, since each thread "
					       "began\n", fmt_now(&c->wall));
				report(&rp, o, p, c, calls && p ?
				       &csnaps[prev] : NULL,
				       calls ? &csnaps[cur] : NULL, rec.loadavg);
				reports++;
			}
		}
		prev = cur;
		/* The next goes where neither the last nor the first is. */
		for (cur = 0; cur == prev || cur == first; cur++)
			;
	}
	if (o->summary && first >= 0 && prev >= 0 && prev != first) {
		rp.sel.interval = (double)(snaps[prev].now -
					   snaps[first].now) / 1e9;
		if (o->show.group_by == GROUP_CGROUP)
			replay_cgroups(&rec, &snaps[prev], &rp.groups.cc);
		if (!o->show.json) {
			char a[64], b[64];

			fmt_local(a, sizeof(a), &snaps[first].wall);
			fmt_local(b, sizeof(b), &snaps[prev].wall);
			printf("Replay summary: %s to %s, %.1f s\n", a, b,
			       rp.sel.interval);
		}
		report(&rp, o, &snaps[first], &snaps[prev],
		       calls ? &csnaps[first] : NULL,
		       calls ? &csnaps[prev] : NULL, rec.loadavg);
		reports++;
	}
	fflush(stdout);
	for (cur = 0; cur < 3; cur++) {
		tsa_snap_free(&snaps[cur]);
		tsa_calls_free(&csnaps[cur]);
	}
	replay_close(&rec);
	reporter_free(&rp, o);
	if (!reports)
		die(EXIT_BADDATA, "%s: no recorded interval in that window%s",
		    o->replay, o->summary ? " (a summary needs two blocks)" :
		    "");
	return 0;
}

/* ---- the keys of the redraw mode ---------------------------------------- */

/* The last report's inputs: a key draws it again from them. */
struct shown {
	const struct tsa_snap *prev, *cur;
	const struct tsa_calls_snap *cprev, *ccur;
	double la[3];
	int paused;
	char note[96];		/* on the status line, NOTE_SECS at least */
	double note_until;	/* CLOCK_MONOTONIC s; 0: not shown yet */
};

/* A note stays this long, so that one is read at any interval (at -m 0.2
 * it was gone with the next report, 200 ms on). */
#define NOTE_SECS 2.0

static double mono_secs(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int screen_cols(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

/* On the cursor's row (no newline): what the keys have changed. */
static void status_line(const struct options *o, struct shown *sh)
{
	char b[256];
	int n;

	n = snprintf(b, sizeof(b), "sort %s%s", sort_key_name(o->show.sort_key),
		     o->show.sort_order > 0 ? " ascending" : "");
	if (sh->paused)
		n += snprintf(b + n, sizeof(b) - n, " | paused");
	if (o->show.filter[0])
		n += snprintf(b + n, sizeof(b) - n, " | name has '%s'",
			      o->show.filter);
	if (o->show.npids == 1)
		n += snprintf(b + n, sizeof(b) - n, " | pid %llu",
			      (unsigned long long)o->show.pids[0]);
	if (sh->note[0] && sh->note_until && mono_secs() >= sh->note_until)
		sh->note[0] = '\0';
	if (sh->note[0]) {
		if (!sh->note_until)
			sh->note_until = mono_secs() + NOTE_SECS;
		n += snprintf(b + n, sizeof(b) - n, " | %s", sh->note);
	} else {
		sh->note_until = 0;
	}
	snprintf(b + n, sizeof(b) - n, " | h: keys");
	printf("%.*s", screen_cols() - 1, b);
	fflush(stdout);
}

static void show_help(const struct options *o)
{
	printf("\033[H\033[Jtsa-prstat keys\n\n"
	       "  q          quit\n"
	       "  s S  > <   the next or the previous sort key (now %s)\n"
	       "  r          reverse the order\n"
	       "  L          a line per thread, or per process\n"
	       "  m A y      the Solaris view, the TSA view, the system-call "
	       "view\n"
	       "  g          group by process, cgroup, user, thread name, in "
	       "turn\n"
	       "  p          one process only (empty: all)\n"
	       "  /          only the lines whose name has a string (empty: "
	       "all)\n"
	       "  space      pause the reports, and go on\n"
	       "  h ?        this help\n\n"
	       "Any key goes back.", sort_key_name(o->show.sort_key));
	fflush(stdout);
}

/* @o in view @v, with a sort key of that view (the same name if any). */
static void set_view(struct options *o, enum view v)
{
	int k = sort_key_lookup(sort_key_name(o->show.sort_key), v, NULL, 0);

	o->show.view = v;
	o->show.sort_key = k >= 0 ? k : sort_default_key(v);
	if (v == VIEW_CALLS && o->show.group_by > GROUP_PID)
		o->show.group_by = -1;	/* groups have no call lines */
}

enum { ACT_WAIT, ACT_READ, ACT_QUIT };

/* Act on key @k; ACT_READ: a report is due now (its data is not read). */
static int on_key(int k, struct options *o, struct reporter *rp,
		  struct shown *sh)
{
	struct show *sv = &o->show;
	char buf[64], *end;
	uint64_t one;
	int act = ACT_WAIT;

	switch (k) {
	case 'q':
		return ACT_QUIT;
	case ' ':
		sh->paused = !sh->paused;
		break;
	case 's':
	case '>':
	case 'S':
	case '<':
		sv->sort_key = sort_key_next(sv->sort_key, sv->view,
					    k == 's' || k == '>' ? 1 : -1);
		break;
	case 'r':
		sv->sort_order = -sv->sort_order;
		break;
	case 'L':
		sv->lwps = rp->sel.lwps = !sv->lwps;
		if (sv->lwps && sv->group_by > GROUP_PID)
			sv->group_by = -1;	/* groups are not threads */
		break;
	case 'm':
		set_view(o, VIEW_SOLARIS);
		break;
	case 'A':
		set_view(o, VIEW_TSA);
		break;
	case 'y':
		if (sv->view != VIEW_CALLS)
			act = ACT_READ;	/* /proc/tsa/calls was not read */
		set_view(o, VIEW_CALLS);
		break;
	case 'g':
		sv->group_by = sv->group_by < GROUP_CGROUP ? GROUP_CGROUP :
			       sv->group_by + 1 < GROUP_NBY ?
			       sv->group_by + 1 : -1;
		if (sv->group_by > GROUP_PID) {
			sv->lwps = rp->sel.lwps = 0;
			if (sv->view == VIEW_CALLS)
				set_view(o, VIEW_SOLARIS);
		}
		snprintf(sh->note, sizeof(sh->note), "by %s",
			 group_by_name[sv->group_by < 0 ? GROUP_PID :
				       sv->group_by]);
		sh->note_until = 0;
		break;
	case 'p':
		if (!keys_prompt("pid (empty: every process): ", buf,
				 sizeof(buf)))
			break;
		errno = 0;
		one = strtoull(buf, &end, 10);
		if (!buf[0]) {
			sv->npids = 0;
		} else if (errno || end == buf || *end || !one) {
			snprintf(sh->note, sizeof(sh->note), "not a pid: %.40s",
				 buf);
			sh->note_until = 0;
		} else {
			free(sv->pids);
			sv->pids = xmalloc(sizeof(*sv->pids));
			sv->pids[0] = one;
			sv->npids = 1;
		}
		rp->sel.pids = sv->pids;
		rp->sel.npids = sv->npids;
		break;
	case '/':
		if (keys_prompt("name has (empty: any): ", buf, sizeof(buf)))
			snprintf(sv->filter, sizeof(sv->filter), "%s", buf);
		break;
	case 'h':
	case '?':
		show_help(o);
		if (keys_wait(NULL, &stop) == KEY_STOP)
			return ACT_QUIT;
		break;
	case KEY_REDRAW:
		break;
	default:
		return ACT_WAIT;	/* not ours: nothing changes */
	}
	if (act == ACT_WAIT && sh->cur) {
		report(rp, o, sh->prev, sh->cur, sh->cprev, sh->ccur, sh->la);
		status_line(o, sh);
	}
	return act;
}

int main(int argc, char **argv)
{
	struct tsa_snap snaps[2], *prev = NULL, *cur = &snaps[0], *base;
	struct tsa_calls_snap csnaps[2], *cprev = NULL, *ccur = &csnaps[0];
	struct reporter rp;
	struct options o;
	struct shown sh;
	struct timespec deadline;
	char path[PATH_MAX], cpath[PATH_MAX], msg[256];
	double la[3];
	int tty, rc, calls, keys;
	long done;

	parse_args(&o, argc, argv);
	calls = o.show.view == VIEW_CALLS;
	snprintf(path, sizeof(path), "%s/all", o.proc_dir);
	snprintf(cpath, sizeof(cpath), "%s/calls", o.proc_dir);
	if (o.calibrate)
		return calibrate(o.proc_dir);
	if (o.metrics)
		return export_metrics(&o, path);
	if (o.save)
		return save_capture(&o, path);
	if (o.compare[0])
		return compare_captures(&o);
	if (o.replay)
		return replay_recording(&o);
	set_signals();
	if (o.record)
		return record_loop(&o, path, cpath, &stop);
	if (o.show.view == VIEW_HIST) {
		int rc = hist_run(&o, &stop);

		free(o.show.pids);
		return rc;
	}
	tty = isatty(STDOUT_FILENO);
	reporter_init(&rp, &o, tty && !o.no_clear && !o.show.json);
	/* Keys in the redraw mode, as top takes them; -c and pipes: none. */
	keys = rp.redraw && keys_start();
	memset(&sh, 0, sizeof(sh));
	memset(snaps, 0, sizeof(snaps));
	memset(csnaps, 0, sizeof(csnaps));
	clock_gettime(CLOCK_MONOTONIC, &deadline);

	for (done = 0; !stop && (o.count < 0 || done < o.count); done++) {
		if (done && !keys) {
			sleep_until(&deadline, o.interval);
		} else if (done) {
			int k, act = ACT_WAIT;

			next_deadline(&deadline, o.interval);
			while (act == ACT_WAIT) {
				k = keys_wait(sh.paused ? NULL : &deadline,
					      &stop);
				if (k == KEY_NONE)
					break;
				act = k == KEY_STOP ? ACT_QUIT :
				      on_key(k, &o, &rp, &sh);
			}
			if (act == ACT_QUIT)
				stop = 1;
			else if (act == ACT_READ)
				clock_gettime(CLOCK_MONOTONIC, &deadline);
		}
		if (stop)
			break;
		calls = o.show.view == VIEW_CALLS;
		rc = tsa_snap_read(cur, path, msg, sizeof(msg));
		if (rc != TSA_OK)
			fail_read(rc, path, msg);
		if (calls) {
			rc = tsa_calls_read(ccur, cpath, msg, sizeof(msg));
			if (rc != TSA_OK && keys && sh.cur) {
				/* The y key, with no calls to show: say so. */
				set_view(&o, VIEW_SOLARIS);
				snprintf(sh.note, sizeof(sh.note), "no "
					 "system-call rows (tsa calls=0?)");
				calls = 0;
			} else if (rc != TSA_OK) {
				fail_read_calls(rc, cpath, msg);
			}
		}
		if (!prev && o.show.npids)
			check_pids(&o, cur);
		read_loadavg(la);
		/* Calls shown since the y key: from each thread's start. */
		base = calls && !cprev ? NULL : prev;
		report(&rp, &o, base, cur, calls ? cprev : NULL,
		       calls ? ccur : NULL, la);
		if (keys) {
			sh.prev = base;
			sh.cur = cur;
			sh.cprev = calls ? cprev : NULL;
			sh.ccur = calls ? ccur : NULL;
			memcpy(sh.la, la, sizeof(la));
			status_line(&o, &sh);
		}

		prev = cur;
		cur = cur == &snaps[0] ? &snaps[1] : &snaps[0];
		if (calls) {
			cprev = ccur;
			ccur = ccur == &csnaps[0] ? &csnaps[1] : &csnaps[0];
		} else {
			cprev = NULL;	/* the y key starts its calls afresh */
		}
	}
	if (keys) {
		keys_stop();
		putchar('\n');
	}
	fflush(stdout);
	tsa_snap_free(&snaps[0]);
	tsa_snap_free(&snaps[1]);
	tsa_calls_free(&csnaps[0]);
	tsa_calls_free(&csnaps[1]);
	reporter_free(&rp, &o);
	return 0;
}
