// SPDX-License-Identifier: GPL-2.0
/*
 * test_exporter.c - tsa-exporter end to end on the host, over the
 * frozen inputs of golden/in/a (no module): its command line's errors,
 * the series of each group against tsa-prstat --prometheus on the same
 * files, --max-series (whole groups, the dropped ones counted), a module
 * that is not there (tsa_up 0, still serving), HTTP answered by a
 * plain socket, --web.config.file's TLS and basic auth (curl), where
 * it listens (ports, :PORT, node_exporter's flag names) and 2,000 idle
 * connections from one address. Its counters across scrapes:
 * test_ledger.c. The real Prometheus scrapes it in the guest suites
 * (tests/guest/exporter-tests.sh).
 */
#include <arpa/inet.h>
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fx/run.h"
#include "fx/server.h"
#include "tap.h"

/* The lines of @text that start with @prefix, in order. */
static char *lines_of(const char *text, const char *prefix)
{
	char *buf = NULL;
	size_t len = 0, n = strlen(prefix);
	const char *p = text;
	FILE *m = open_memstream(&buf, &len);

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p + 1) : strlen(p);

		if (!strncmp(p, prefix, n))
			fwrite(p, 1, l, m);
		p = nl ? nl + 1 : NULL;
	}
	fclose(m);
	return buf;
}

static long value_of(const char *text, const char *name)
{
	char want[128];
	const char *p;

	snprintf(want, sizeof(want), "\n%s ", name);
	p = strstr(text, want);
	return p ? atol(p + strlen(want)) : -1;
}

/*
 * The edges waker group -> woken group, from a /proc/tsa/wakers beside
 * golden/in/a's all (users: root's threads 100 and 101, uid 1000's 201):
 * every edge, the same in both formats (each once: OpenMetrics is
 * written second from the same report); then with --waker-edges 2, the
 * two with the most time, and how many more there were.
 */
static void test_edges(void)
{
	char path[400], src[400], *m, *om, *dir = mkdir_in_tmp("edges");
	struct server s;
	FILE *in, *out;
	int ch;

	snprintf(src, sizeof(src), "%s/golden/in/a/all", testdir);
	snprintf(path, sizeof(path), "%s/all", dir);
	in = fopen(src, "r");
	out = fopen(path, "w");
	while (in && out && (ch = fgetc(in)) != EOF)
		fputc(ch, out);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	snprintf(path, sizeof(path), "%s/wakers", dir);
	put(path,
	    "tsa-wakers 1\nnow 5000000000\nrows 2\n"
	    "fields tid pid uid flags elapsed at state wakeups ns max lat_ns kind waker_tid name\n"
	    "101 100 0 0 4000000000 5000000000 LCK 4 360000000 90000000 400000 thread 102 holder-7\n"
	    "101 100 0 0 4000000000 5000000000 LCK 4 120000000 30000000 200000 thread 103 holder-8\n"
	    "101 100 0 0 4000000000 5000000000 - 0 520000000 0 0 none 0 -\n"
	    "100 100 0 0 4000000000 5000000000 SLP 10 1000000000 100000000 50000 timer 0 -\n"
	    "201 200 1000 0 4000000000 5000000000 IDL 3 700000000 300000000 9000 softirq:NET_RX 0 -\n"
	    "201 200 1000 0 4000000000 5000000000 SLP 1 2000000 2000000 1000 timer 0 -\n"
	    "201 200 1000 0 4000000000 5000000000 - 0 9000000 0 0 none 0 -\n");
	if (!ok(start(&s, dir, (const char *[]){ "--group", "user", NULL }) == 0,
		"--group user: it says where it listens"))
		return;
	m = metrics(s.port);
	om = (char *)get(s.port, "GET /metrics HTTP/1.0\r\nAccept: "
			 "application/openmetrics-text; version=1.0.0\r\n\r\n");
	ok(m && om && count_str(m, "tsa_waker_seconds{") == 4 &&
	   count_str(om, "tsa_waker_seconds{") == 4 &&
	   value_of(m, "tsa_exporter_waker_edges") == 4 &&
	   value_of(m, "tsa_exporter_waker_edges_dropped") == 0,
	   "four edges in both formats, each once (saw %d and %d)",
	   count_str(m, "tsa_waker_seconds{"),
	   count_str(om, "tsa_waker_seconds{"));
	free(m);
	free(om);
	stop(&s);
	if (!ok(start(&s, dir, (const char *[]){ "--group", "user",
		"--waker-edges", "2", NULL }) == 0,
		"--waker-edges 2: it says where it listens"))
		return;
	m = metrics(s.port);
	ok(m && has_line(m, "tsa_waker_seconds{user=\"root\",waker=\"timer\",state=\"SLP\"} 1.000000000") &&
	   has_line(m, "tsa_waker_wakeups{user=\"root\",waker=\"timer\",state=\"SLP\"} 10") &&
	   has_line(m, "tsa_waker_lat_seconds{user=\"root\",waker=\"timer\",state=\"SLP\"} 0.000050000"),
	   "the edge with the most time: root's SLP ended by timers, 1 s, 10 wakeups, 50 us of LAT after");
	ok(m && count_str(m, "tsa_waker_seconds{") == 2 &&
	   value_of(m, "tsa_exporter_waker_edges") == 2 &&
	   value_of(m, "tsa_exporter_waker_edges_dropped") == 2,
	   "two edges, 2 dropped (the holders' LCK, their users unknown here, as one edge; uid 1000's timer)");
	ok(m && !strstr(m, "waker=\"none\""),
	   "the time no wakeup ended is no edge");
	/* OpenMetrics, written second from the same read: the same edges. */
	om = (char *)get(s.port, "GET /metrics HTTP/1.0\r\nAccept: "
			 "application/openmetrics-text; version=1.0.0\r\n\r\n");
	ok(om && count_str(om, "tsa_waker_seconds{") == 2 &&
	   strstr(om, "tsa_waker_seconds{user=\"root\",waker=\"timer\",state=\"SLP\"} 1.000000000\n") &&
	   strstr(om, "waker=\"softirq:NET_RX\",state=\"IDL\"} 0.700000000\n") &&
	   strstr(om, "tsa_exporter_waker_edges 2\n"),
	   "OpenMetrics: the same two edges, each once (saw %d)",
	   om ? count_str(om, "tsa_waker_seconds{") : -1);
	free(om);
	free(m);
	stop(&s);
}

static void test_args(void)
{
	static const char *const bad[][4] = {
		{ "--group", "pid", NULL },
		{ "--group", "nope", NULL },
		{ "--max-series", "-1", NULL },
		{ "--timeout", "0", NULL },
		{ "--listen", "127.0.0.1:http", NULL },
		{ "--listen", "99999", NULL },
		{ "--web.listen-address", "127.0.0.1:65536", NULL },
		{ "--web.telemetry-path", "metrics", NULL },
		{ "--bogus", NULL },
		{ "--listen", NULL },
		{ "extra", NULL },
	};
	char *out, *err;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *argv[6] = { exporter_bin };
		char cmd[256];
		int k;

		snprintf(cmd, sizeof(cmd), "%s", bad[i][0]);
		for (k = 0; bad[i][k]; k++) {
			argv[k + 1] = bad[i][k];
			if (k)
				snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd),
					 " %s", bad[i][k]);
		}
		argv[k + 1] = NULL;
		rc = run_prog(exporter_bin, "/nonexistent", argv + 1, &out, &err);
		ok(rc == 1 && count_str(err, "\n") == 2 && strstr(err,
		   "\nTry 'tsa-exporter --help' for more information.\n"),
		   "tsa-exporter %s: a usage error, exit 1, one line and "
		   "'Try ... --help' (saw %d, %d lines, the first: %.*s)", cmd,
		   rc, count_str(err, "\n"), (int)strcspn(err, "\n"), err);
		free(out);
		free(err);
	}
}

static void test_scrape(void)
{
	char dir[300], cmd[700], *m, *want, *got, *a;
	struct server s;
	long series, dropped;

	snprintf(dir, sizeof(dir), "%s/golden/in/a", testdir);
	if (!ok(start(&s, dir, (const char *[]){ "--group", "user", NULL }) == 0,
		"--group user over golden/in/a: it says where it listens"))
		return;
	m = metrics(s.port);
	ok(m && has_line(m, "tsa_up 1"), "a scrape: tsa_up 1");
	/* The groups' series are tsa-prstat --prometheus's, byte for byte. */
	snprintf(cmd, sizeof(cmd), "TSA_PROC_DIR=%s TSA_PROCFS=/nonexistent %s "
		 "--prometheus --group user", dir, prstat_bin);
	{
		FILE *p = popen(cmd, "r");
		char *buf = NULL, chunk[4096];
		size_t len = 0, r;
		FILE *mm = open_memstream(&buf, &len);

		while (p && (r = fread(chunk, 1, sizeof(chunk), p)) > 0)
			fwrite(chunk, 1, r, mm);
		if (p)
			pclose(p);
		fclose(mm);
		want = buf;
	}
	got = m ? lines_of(m, "tsa_user_") : strdup("");
	a = lines_of(want, "tsa_user_");
	is_str(got, a, "its tsa_user_* samples are tsa-prstat --prometheus's");
	series = m ? value_of(m, "tsa_exporter_series") : -1;
	ok(series > 20 && value_of(m, "tsa_exporter_series_dropped") == 0,
	   "tsa_exporter_series %ld, none dropped", series);
	free(a);
	free(got);
	free(m);
	m = (char *)get(s.port, "GET / HTTP/1.0\r\n\r\n");
	ok(m && strstr(m, " 200 ") && strstr(m, "href=\"/metrics\""),
	   "/: a landing page");
	free(m);
	m = (char *)get(s.port, "GET /x HTTP/1.0\r\n\r\n");
	ok(m && !strncmp(m, "HTTP/1.", 7) && !strncmp(m + 8, " 404", 4),
	   "/x: 404 (%.20s)", m ? m : "");
	free(m);
	m = (char *)get(s.port, "DELETE /metrics HTTP/1.0\r\n\r\n");
	ok(m && !strncmp(m, "HTTP/1.", 7) && !strncmp(m + 8, " 405", 4) &&
	   strstr(m, "Allow: GET, HEAD"),
	   "DELETE: 405 with Allow (%.20s)", m ? m : "");
	free(m);
	m = (char *)get(s.port, "GET /metrics HTTP/1.0\r\nAccept: "
			"application/openmetrics-text; version=1.0.0\r\n\r\n");
	ok(m && strstr(m, "Content-Type: application/openmetrics-text; "
		       "version=1.0.0; charset=utf-8") &&
	   strlen(m) > 6 && !strcmp(m + strlen(m) - 6, "# EOF\n"),
	   "Accept: application/openmetrics-text: OpenMetrics, # EOF last");
	free(m);
	m = (char *)get(s.port, "GET /metrics HTTP/1.0\r\nAccept: "
			"application/openmetrics-text;q=0, text/plain\r\n\r\n");
	ok(m && strstr(m, "Content-Type: text/plain; version=0.0.4"),
	   "Accept: application/openmetrics-text;q=0: the text format");
	free(m);
	is_long(stop(&s), 0, "SIGTERM: exit 0");

	/*
	 * A cap: whole groups go, the rest stay whole. Here root has 84
	 * series (its LAT histogram included) and the most time, user
	 * 4000000 24: a cap of 100 keeps root alone.
	 */
	if (!ok(start(&s, dir, (const char *[]){ "--group", "user",
				"--max-series", "100", NULL }) == 0,
		"--max-series 100: started"))
		goto out;
	m = metrics(s.port);
	series = m ? value_of(m, "tsa_exporter_series") : -1;
	dropped = m ? value_of(m, "tsa_exporter_series_dropped") : -1;
	got = m ? lines_of(m, "tsa_user_state_seconds_total{") : strdup("");
	ok(series == 84 && dropped == 24 &&
	   strstr(m, "user=\"root\"") && !strstr(m, "user=\"4000000\""),
	   "--max-series 100: root's 84 series kept (the most time), "
	   "4000000's 24 dropped (saw %ld, %ld)", series, dropped);
	{
		/* Each kept user has all 14 states. */
		int users = 0, lines = 0;
		char *p;

		for (p = got; (p = strstr(p, "state=\"USR\"")); p++)
			users++;
		for (p = got; *p; p++)
			lines += *p == '\n';
		ok(users == 1 && lines == 14 * users,
		   "--max-series: every kept group whole (%d users, %d state lines)",
		   users, lines);
	}
	free(got);
	free(m);
	stop(&s);

	/* No module: tsa_up 0, its health, still serving. */
	if (!ok(start(&s, "/nonexistent", (const char *[]){ NULL }) == 0,
		"no module: started"))
		goto out;
	m = metrics(s.port);
	ok(m && has_line(m, "tsa_up 0") &&
	   value_of(m, "tsa_exporter_read_errors_total") == 1 &&
	   strstr(m, "tsa_module_info{version=\"unknown\",calibration=\"unknown\"} 1"),
	   "no module: tsa_up 0, one read error, the module unknown");
	free(m);
	m = metrics(s.port);
	ok(m && value_of(m, "tsa_exporter_read_errors_total") == 2,
	   "no module: the next scrape reads again (2 read errors)");
	free(m);
	is_long(stop(&s), 0, "no module: SIGTERM, exit 0");
out:
	free(want);
}

/* A command's stdout (malloc'ed). */
static char *capture(const char *cmd)
{
	char *buf = NULL, chunk[4096];
	size_t len = 0, r;
	FILE *p = popen(cmd, "r"), *m = open_memstream(&buf, &len);

	while (p && (r = fread(chunk, 1, sizeof(chunk), p)) > 0)
		fwrite(chunk, 1, r, m);
	if (p)
		pclose(p);
	fclose(m);
	return buf;
}

/*
 * --web.config.file: TLS with a self-signed certificate and basic auth
 * with a bcrypt hash (made here with crypt(3)), asked with curl; and
 * files it must refuse.
 */
static void test_web_config(void)
{
	static const char *const bad[][2] = {
		{ "tls_server_config:\n  cert_file: c.pem\n", "needs cert_file and key_file" },
		{ "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n"
		  "  client_auth_type: RequireAndVerifyClientCert\n",
		  "tls_server_config.client_auth_type: not supported" },
		{ "basic_auth_users:\n  bob: plain\n", "not a bcrypt hash" },
		{ "http_server_config:\n  http2: true\n", "http_server_config: not supported" },
		{ "tls_server_config:\n  cert_file: nope.pem\n  key_file: k.pem\n", "nope.pem: No such file" },
	};
	char dir[300], path[400], cmd[1400], *out, *err, *o;
	const char *salt, *hash, *dir2;
	struct server s;
	size_t i;
	int rc;

	if (system("command -v openssl >/dev/null && command -v curl >/dev/null")) {
		skip("--web.config.file: needs openssl and curl");
		return;
	}
	dir2 = mkdir_in_tmp("web");
	snprintf(dir, sizeof(dir), "%s", dir2);
	snprintf(cmd, sizeof(cmd), "cd %s && openssl req -x509 -newkey rsa:2048 "
		 "-nodes -keyout k.pem -out c.pem -days 2 -subj /CN=localhost "
		 "-addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1", dir);
	if (!ok(system(cmd) == 0, "openssl makes a self-signed certificate"))
		return;
	salt = crypt_gensalt("$2b$", 5, NULL, 0);
	hash = salt ? crypt("s3cret", salt) : NULL;
	if (!ok(hash && !strncmp(hash, "$2b$", 4), "crypt(3) makes a bcrypt hash"))
		return;
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	snprintf(cmd, sizeof(cmd), "# TLS and a user\ntls_server_config:\n"
		 "  cert_file: c.pem\n  key_file: \"k.pem\"\n"
		 "basic_auth_users:\n  alice: '%s'\n", hash);
	put(path, cmd);
	snprintf(cmd, sizeof(cmd), "%s/golden/in/a", testdir);
	if (!ok(start_scheme(&s, cmd, (const char *[]){ "--group", "user",
				"--web.config.file", path, NULL }, "https") == 0,
		"--web.config.file with TLS and a user: it says https"))
		return;
	snprintf(cmd, sizeof(cmd),
		 "for u in '' '-u alice:wrong' '-u eve:s3cret' '-u alice:s3cret'; do "
		 "curl -s -o /dev/null -w '%%{http_code} ' --cacert %s/c.pem $u "
		 "https://127.0.0.1:%d/metrics; done; "
		 "curl -s -o /dev/null -w '%%{http_code}' http://127.0.0.1:%d/metrics",
		 dir, s.port, s.port);
	o = capture(cmd);
	is_str(o, "401 401 401 200 000",
	       "no user, a wrong password, an unknown user: 401; alice: 200; "
	       "plain HTTP: no answer");
	free(o);
	snprintf(cmd, sizeof(cmd), "curl -s --cacert %s/c.pem -u alice:s3cret "
		 "https://127.0.0.1:%d/metrics | grep -c '^tsa_user_state_seconds_total'",
		 dir, s.port);
	o = capture(cmd);
	is_str(o, "28\n", "over TLS, alice gets the groups' series (2 users x 14 states)");
	free(o);
	is_long(stop(&s), 0, "TLS: SIGTERM, exit 0");

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put(path, bad[i][0]);
		rc = run_prog(exporter_bin, "/nonexistent", (const char *[]){
			      "--listen", "127.0.0.1:0", "--web.config.file",
			      path, NULL }, &out, &err);
		ok(rc == 1 && strstr(err, bad[i][1]),
		   "web config %zu refused, exit 1, '%s' (%d: %.100s)", i,
		   bad[i][1], rc, err);
		free(out);
		free(err);
	}
}

/* A scrape Prometheus gives 1 s (@what): 503 once that second is over. */
static void scrape_503_in_1s(int port, const char *what)
{
	struct timespec ts;
	double t0, t1;
	char *m;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec + ts.tv_nsec / 1e9;
	m = get(port, "GET /metrics HTTP/1.0\r\n"
		"X-Prometheus-Scrape-Timeout-Seconds: 1\r\n\r\n");
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t1 = ts.tv_sec + ts.tv_nsec / 1e9;
	ok(m && !strncmp(m + 8, " 503", 4) && t1 - t0 >= 0.9 && t1 - t0 < 5,
	   "%s past its 1 s: 503 after %.1f s (%.12s)", what, t1 - t0,
	   m ? m : "");
	free(m);
}

/* Wait (5 s at most) until no reader has @fifo open; false if one still has. */
static int fifo_unread(const char *fifo)
{
	struct timespec ms = { 0, 1000000 };
	int i, fd;

	for (i = 0; i < 5000; i++) {
		fd = open(fifo, O_WRONLY | O_NONBLOCK);
		if (fd < 0)
			return errno == ENXIO;
		close(fd);
		nanosleep(&ms, NULL);
	}
	return 0;
}

/*
 * A read that takes long (a FIFO nobody writes yet): a scrape that waits
 * for it past its limit (Prometheus's X-Prometheus-Scrape-Timeout-Seconds)
 * gets 503, the one that started it gets its answer once the read ends
 * within its own limit, one whose read outlasts its limit gets 503 too,
 * and the health counts the timeouts.
 */
static void test_scrape_timeout(void)
{
	char dir[300], fifo[400], path[400], *snap[1], *m, *a;
	struct server s;
	int status;
	pid_t reader, w;
	struct timespec nap = { 0, 300000000 };

	snprintf(dir, sizeof(dir), "%s", mkdir_in_tmp("slow"));
	snprintf(fifo, sizeof(fifo), "%s/all", dir);
	if (mkfifo(fifo, 0600)) {
		skip("mkfifo: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/golden/in/a/all", testdir);
	snap[0] = slurp(path);
	if (!ok(start(&s, dir, (const char *[]){ "--group", "user", NULL }) == 0,
		"a slow module: started"))
		return;
	snprintf(path, sizeof(path), "%s/slow.first", tmp);
	fflush(stdout);
	reader = fork();
	if (reader == 0) {
		char *r = get(s.port, "GET /metrics HTTP/1.0\r\n\r\n");

		put(path, r ? r : "");
		_exit(0);
	}
	nanosleep(&nap, NULL);
	scrape_503_in_1s(s.port, "a scrape that waits for a read in progress");
	w = feed_fifo(fifo, snap, 1);
	waitpid(reader, &status, 0);
	waitpid(w, &status, 0);
	a = slurp(path);
	ok(strstr(a, " 200 ") && strstr(a, "tsa_user_state_seconds_total{"),
	   "the scrape that read: 200 with the groups once the read ended");
	free(a);
	/* The scrape that starts a read is bounded too: 503 at its limit. */
	scrape_503_in_1s(s.port, "a scrape whose own read is still going");
	/*
	 * That read ends (its FIFO written); the next scrape reads anew,
	 * once the old read has closed the FIFO: a feeder that came before
	 * could write into the old read's FIFO as it closed, and the new
	 * read then waited for a writer that had come and gone.
	 */
	w = feed_fifo(fifo, snap, 1);
	waitpid(w, &status, 0);
	ok(fifo_unread(fifo), "the read that timed out closed its FIFO");
	w = feed_fifo(fifo, snap, 1);
	m = metrics(s.port);
	waitpid(w, &status, 0);
	ok(m && value_of(m, "tsa_exporter_scrape_timeouts_total") == 2,
	   "tsa_exporter_scrape_timeouts_total 2 (saw %ld)",
	   m ? value_of(m, "tsa_exporter_scrape_timeouts_total") : -1);
	free(m);
	is_long(stop(&s), 0, "a slow module: SIGTERM, exit 0");
	free(snap[0]);
	unlink(fifo);
}

/*
 * Where it listens: --listen 99999 refused (it used to serve on 34463,
 * 99999 mod 65536); :PORT is every address (as Go exporters), reached
 * on 127.0.0.1 too; PORT alone, loopback; node_exporter's
 * --web.listen-address and --web.telemetry-path.
 */
static void test_listen(void)
{
	char dir[300], *out, *err, *m;
	struct server s;
	int rc;

	snprintf(dir, sizeof(dir), "%s/golden/in/a", testdir);
	rc = run_prog(exporter_bin, "/nonexistent", (const char *[]){
		      "--listen", "99999", NULL }, &out, &err);
	is_str(err, "tsa-exporter: --listen 99999: port 99999 is not 1-65535\n"
	       "Try 'tsa-exporter --help' for more information.\n",
	       "--listen 99999: refused, exit 1 (exit %d)", rc);
	free(out);
	free(err);
	if (ok(start_on(&s, dir, ":0", (const char *[]){ NULL },
			"http://[::]:") == 0 ||
	       start_on(&s, dir, ":0", (const char *[]){ NULL },
			"http://0.0.0.0:") == 0,
	       "--listen :0: every address, [::] (or 0.0.0.0 without IPv6)")) {
		m = metrics(s.port);
		ok(m && has_line(m, "tsa_up 1"),
		   "--listen :0: answers on 127.0.0.1 too");
		free(m);
		stop(&s);
	}
	if (ok(start_on(&s, dir, "0", (const char *[]){ NULL },
			"http://127.0.0.1:") == 0,
	       "--listen 0 (a port alone): loopback, 127.0.0.1"))
		stop(&s);
	if (!ok(start_on(&s, dir, "127.0.0.1:1", (const char *[]){
		    "--web.listen-address", "127.0.0.1:0",
		    "--web.telemetry-path", "/tsa/metrics", NULL },
		    "http://127.0.0.1:") == 0,
		"--web.listen-address 127.0.0.1:0 (after --listen): it listens there"))
		return;
	m = (char *)get(s.port, "GET /tsa/metrics HTTP/1.0\r\n\r\n");
	ok(m && strstr(m, " 200 ") && strstr(m, "\ntsa_up 1\n"),
	   "--web.telemetry-path /tsa/metrics: the metrics there (%.12s)",
	   m ? m : "");
	free(m);
	m = (char *)get(s.port, "GET /metrics HTTP/1.0\r\n\r\n");
	ok(m && !strncmp(m + 8, " 404", 4), "and /metrics: 404 (%.12s)",
	   m ? m : "");
	free(m);
	m = (char *)get(s.port, "GET / HTTP/1.0\r\n\r\n");
	ok(m && strstr(m, "href=\"/tsa/metrics\""),
	   "the landing page links /tsa/metrics");
	free(m);
	stop(&s);
}

/*
 * 2,000 connections from 127.0.0.2 that send nothing: scrapes from
 * 127.0.0.1 are all answered, at once. (Before the limit per address,
 * 1,100 such connections took the 256 and every scrape failed until
 * they timed out.)
 */
static void test_flood(void)
{
	enum { FLOOD = 2000, SCRAPES = 5 };
	struct sockaddr_in from = { .sin_family = AF_INET };
	struct sockaddr_in to = { .sin_family = AF_INET };
	char dir[300];
	struct rlimit rl;
	struct server s;
	int *fds, i, opened = 0, answered = 0;
	double worst = 0;

	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < FLOOD + 100) {
		rl.rlim_cur = rl.rlim_max < FLOOD + 100 ? rl.rlim_max :
			      FLOOD + 100;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur < FLOOD + 100) {
		skip("2,000 connections: the fd limit is %lu",
		     (unsigned long)rl.rlim_cur);
		return;
	}
	snprintf(dir, sizeof(dir), "%s/golden/in/a", testdir);
	if (!ok(start(&s, dir, (const char *[]){ "--group", "user", NULL }) == 0,
		"flood: started"))
		return;
	fds = malloc(FLOOD * sizeof(*fds));
	from.sin_addr.s_addr = htonl(0x7f000002);	/* 127.0.0.2 */
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	to.sin_port = htons((unsigned short)s.port);
	for (i = 0; i < FLOOD; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (fds[i] < 0)
			continue;
		if (bind(fds[i], (struct sockaddr *)&from, sizeof(from)) ||
		    (connect(fds[i], (struct sockaddr *)&to, sizeof(to)) &&
		     errno != EINPROGRESS)) {
			close(fds[i]);
			fds[i] = -1;
			continue;
		}
		opened++;
	}
	ok(opened == FLOOD, "flood: %d connections from 127.0.0.2 opened "
	   "(expected %d)", opened, FLOOD);
	for (i = 0; i < SCRAPES; i++) {
		struct timespec t0, t1;
		double secs;
		char *m;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		m = metrics(s.port);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		secs = (double)(t1.tv_sec - t0.tv_sec) +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (secs > worst)
			worst = secs;
		answered += m && has_line(m, "tsa_up 1");
		free(m);
	}
	ok(answered == SCRAPES && worst < 3,
	   "flood: every scrape from 127.0.0.1 answered, each within 3 s "
	   "(expected %d answered; saw %d, the slowest %.2f s)", SCRAPES,
	   answered, worst);
	for (i = 0; i < FLOOD; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	is_long(stop(&s), 0, "flood: SIGTERM, exit 0");
}

int main(void)
{
	const char *env = getenv("TSA_EXPORTER");

	if (fx_init())
		return 2;
	if (env)
		exporter_bin = env;
	test_args();
	test_scrape();
	test_edges();
	test_web_config();
	test_scrape_timeout();
	test_listen();
	test_flood();
	fx_done(tap_failed);
	return tap_done();
}
