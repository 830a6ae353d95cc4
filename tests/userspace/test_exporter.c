// SPDX-License-Identifier: GPL-2.0
/*
 * test_exporter.c - tsa-exporter end to end on the host, over the
 * frozen inputs of golden/in/a (no module): its command line's errors,
 * the series of each group against tsa-prstat --prometheus on the same
 * files, --max-series (whole groups, the dropped ones counted), a module
 * that is not there (tsa_up 0, still serving), HTTP answered by a
 * plain socket, and --web.config.file's TLS and basic auth (curl). The real Prometheus scrapes it in the guest suites
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
#include "tap.h"

static const char *exporter_bin = "./tsa-exporter";
static const char *exporter_procfs = "/nonexistent";	/* its TSA_PROCFS */

struct server {
	pid_t pid;
	int port;
};

/*
 * Start it on --listen @listen with @args; 0 when it says where, as
 * @want ("http://127.0.0.1:") then the port.
 */
static int start_on(struct server *s, const char *dir, const char *listen,
		    const char *const *args, const char *want)
{
	const char *argv[16];
	char line[512];
	int pfd[2], i, n = 0;
	FILE *f;

	argv[n++] = exporter_bin;
	argv[n++] = "--listen";
	argv[n++] = listen;
	for (i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (pipe(pfd))
		return -1;
	fflush(stdout);
	s->pid = fork();
	if (s->pid == 0) {
		dup2(pfd[1], 2);
		close(pfd[0]);
		setenv("TSA_PROC_DIR", dir, 1);
		setenv("TSA_PROCFS", exporter_procfs, 1);
		setenv("TSA_SYS_MODULE", "/nonexistent", 1);
		alarm(60);
		execv(exporter_bin, (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	f = fdopen(pfd[0], "r");
	s->port = 0;
	if (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, want);

		if (p)
			s->port = atoi(p + strlen(want));
	}
	if (f)
		fclose(f);
	return s->port ? 0 : -1;
}

/* On a port of its choosing: @scheme://127.0.0.1:PORT. */
static int start_scheme(struct server *s, const char *dir,
			const char *const *args, const char *scheme)
{
	char want[32];

	snprintf(want, sizeof(want), "%s://127.0.0.1:", scheme);
	return start_on(s, dir, "127.0.0.1:0", args, want);
}

static int start(struct server *s, const char *dir, const char *const *args)
{
	return start_scheme(s, dir, args, "http");
}

static int stop(struct server *s)
{
	int status;

	kill(s->pid, SIGTERM);
	waitpid(s->pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* One HTTP/1.0 request; the whole answer (malloc'ed), or NULL. */
static char *get(int port, const char *request)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char *buf = NULL, chunk[4096];
	size_t len = 0;
	ssize_t r;
	FILE *m;
	int fd;

	a.sin_port = htons((unsigned short)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	/* An answer that does not come is a failure, not a hang. */
	if (fd >= 0) {
		struct timeval tv = { 20, 0 };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	}
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    write(fd, request, strlen(request)) != (ssize_t)strlen(request)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	m = open_memstream(&buf, &len);
	while ((r = read(fd, chunk, sizeof(chunk))) > 0)
		fwrite(chunk, 1, (size_t)r, m);
	fclose(m);
	close(fd);
	return buf;
}

static char *metrics(int port)
{
	char *a = get(port, "GET /metrics HTTP/1.0\r\n\r\n"), *body;

	if (!a)
		return NULL;
	body = strstr(a, "\r\n\r\n");
	body = strdup(body ? body + 4 : "");
	free(a);
	return body;
}

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
 * golden/in/b by user: root has processes 100 (db server) and 300
 * (sleeper). Process 300 exits: root's counters keep what it had
 * (USR 2.25 s, SLP 14.10075 s), every counter sample of the first
 * scrape is in the second with no smaller a value, while its live
 * gauges drop (4 threads -> 2). Then process 100's thread 100 runs
 * 0.1 s more: root's USR is 2.35 s (departed + live, not a clamp).
 */
static void test_exits(void)
{
	char src[400], path[400], why[600], *dir = mkdir_in_tmp("exits");
	char *m1, *m2, *m3;
	const char *const files[] = { "all", "hist", "wakers" };
	struct server s;
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(src, sizeof(src), "%s/golden/in/b/%s", testdir, files[i]);
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		copy_without(src, path, "no such pid");
	}
	if (!ok(start(&s, dir, (const char *[]){ "--group", "user", NULL }) == 0,
		"exits: started, --group user over golden/in/b"))
		return;
	m1 = metrics(s.port);
	ok(sample_of(m1, "tsa_user_state_seconds_total{user=\"root\",state=\"USR\"}") == 2.25 &&
	   sample_of(m1, "tsa_user_threads{user=\"root\"}") == 4,
	   "exits: root's USR 2.25 s, 4 threads before (saw %.9f, %.0f)",
	   sample_of(m1, "tsa_user_state_seconds_total{user=\"root\",state=\"USR\"}"),
	   sample_of(m1, "tsa_user_threads{user=\"root\"}"));
	for (i = 0; i < 2; i++) {
		snprintf(src, sizeof(src), "%s/golden/in/b/%s", testdir, files[i]);
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		copy_without(src, path, "300");
	}
	m2 = metrics(s.port);
	ok(sample_of(m2, "tsa_user_state_seconds_total{user=\"root\",state=\"USR\"}") == 2.25 &&
	   sample_of(m2, "tsa_user_state_seconds_total{user=\"root\",state=\"SLP\"}") == 14.10075,
	   "process 300 exits: root keeps USR 2.25 s and SLP 14.10075 s "
	   "(saw %.9f and %.9f)",
	   sample_of(m2, "tsa_user_state_seconds_total{user=\"root\",state=\"USR\"}"),
	   sample_of(m2, "tsa_user_state_seconds_total{user=\"root\",state=\"SLP\"}"));
	ok(counters_kept(m1, m2, "tsa_user_", why, sizeof(why)),
	   "process 300 exits: every tsa_user_ counter as high as before (%s)",
	   why);
	ok(sample_of(m2, "tsa_user_threads{user=\"root\"}") == 2 &&
	   sample_of(m2, "tsa_user_processes{user=\"root\"}") == 1,
	   "process 300 exits: root's gauges are its live ones, 2 threads "
	   "and 1 process (saw %.0f, %.0f)",
	   sample_of(m2, "tsa_user_threads{user=\"root\"}"),
	   sample_of(m2, "tsa_user_processes{user=\"root\"}"));
	/* 0.1 s later, thread 100 ran all of it. */
	snprintf(path, sizeof(path), "%s/all", dir);
	run_on(path, 100000000, 100);
	m3 = metrics(s.port);
	ok(sample_of(m3, "tsa_user_state_seconds_total{user=\"root\",state=\"USR\"}") == 2.35,
	   "then thread 100 runs 0.1 s more: root's USR 2.35 s, what "
	   "process 300 had and what 100 has (saw %.9f)",
	   sample_of(m3, "tsa_user_state_seconds_total{user=\"root\",state=\"USR\"}"));
	ok(counters_kept(m2, m3, "tsa_user_", why, sizeof(why)),
	   "and no tsa_user_ counter went down (%s)", why);
	free(m1);
	free(m2);
	free(m3);
	is_long(stop(&s), 0, "exits: SIGTERM, exit 0");
}

/*
 * By cgroup (the default), golden/in/b's processes each in a cgroup of
 * their own: process 300 exits and its cgroup is removed. Its series
 * stay, their values as they were, with 0 threads and processes; with
 * --stale-after 1, they are gone two seconds later, the others stay.
 */
static void test_cgroup_removed(void)
{
	char src[400], path[400], why[600], *dir = mkdir_in_tmp("cgroups");
	char *procfs = mkdir_in_tmp("cgroups-procfs"), *m1, *m2, *m3;
	const char *slp = "tsa_cgroup_state_seconds_total{cgroup=\"/job.scope\",state=\"SLP\"}";
	struct timespec two = { 2, 0 };
	struct server s;

	snprintf(src, sizeof(src), "%s/golden/in/b/all", testdir);
	snprintf(path, sizeof(path), "%s/all", dir);
	copy_without(src, path, "no such pid");
	put_cgroup(procfs, 100, "0::/db.service\n");
	put_cgroup(procfs, 200, "0::/spin.service\n");
	put_cgroup(procfs, 300, "0::/job.scope\n");
	put_cgroup(procfs, 400, "0::/gone.scope\n");
	exporter_procfs = procfs;
	if (!ok(start(&s, dir, (const char *[]){ "--stale-after", "1", NULL }) == 0,
		"cgroups: started, --stale-after 1"))
		goto out;
	m1 = metrics(s.port);
	ok(sample_of(m1, slp) == 11.8,
	   "cgroups: /job.scope (process 300) has SLP 11.8 s (saw %.9f)",
	   sample_of(m1, slp));
	copy_without(src, path, "300");
	snprintf(src, sizeof(src), "%s/300", procfs);
	snprintf(why, sizeof(why), "rm -rf %s", src);
	ok(system(why) == 0, "cgroups: process 300 exits, its cgroup file goes");
	m2 = metrics(s.port);
	ok(sample_of(m2, slp) == 11.8 &&
	   sample_of(m2, "tsa_cgroup_threads{cgroup=\"/job.scope\"}") == 0 &&
	   sample_of(m2, "tsa_cgroup_processes{cgroup=\"/job.scope\"}") == 0,
	   "its cgroup gone: /job.scope keeps SLP 11.8 s, 0 threads, 0 "
	   "processes (saw %.9f, %.0f, %.0f)", sample_of(m2, slp),
	   sample_of(m2, "tsa_cgroup_threads{cgroup=\"/job.scope\"}"),
	   sample_of(m2, "tsa_cgroup_processes{cgroup=\"/job.scope\"}"));
	ok(counters_kept(m1, m2, "tsa_cgroup_", why, sizeof(why)),
	   "its cgroup gone: every tsa_cgroup_ counter as high as before (%s)",
	   why);
	nanosleep(&two, NULL);
	m3 = metrics(s.port);
	ok(m3 && !strstr(m3, "cgroup=\"/job.scope\"") &&
	   sample_of(m3, "tsa_cgroup_state_seconds_total{cgroup=\"/db.service\",state=\"USR\"}") == 2.05,
	   "2 s later (--stale-after 1): /job.scope's series dropped, "
	   "/db.service's USR still 2.05 s (saw %d /job.scope lines, %.9f)",
	   m3 ? count_str(m3, "cgroup=\"/job.scope\"") : -1,
	   sample_of(m3, "tsa_cgroup_state_seconds_total{cgroup=\"/db.service\",state=\"USR\"}"));
	free(m1);
	free(m2);
	free(m3);
	is_long(stop(&s), 0, "cgroups: SIGTERM, exit 0");
out:
	exporter_procfs = "/nonexistent";
}

/*
 * A reload of the module: every thread tracked since the load (flag 1),
 * the first load at 6 s on the module's clock (now 11 s, threads 5 s
 * old), the second at 19.5 s (now 20 s): the counters start again (a
 * real reset, root's USR from 1.5 s to 0.1 s), and
 * tsa_module_load_time_seconds says so, 4.5 s later (less the wall
 * time between the scrapes).
 */
static void test_reload(void)
{
	static const char head[] = "tsa-all 1\nnow %s\nfields tid pid uid "
		"flags elapsed usr_ns slp_ns vcx comm\n";
	char path[400], text[1024], *dir = mkdir_in_tmp("reload");
	char *m1, *m2;
	const char *usr = "tsa_user_state_seconds_total{user=\"root\",state=\"USR\"}";
	double l1, l2;
	struct server s;

	snprintf(path, sizeof(path), "%s/all", dir);
	snprintf(text, sizeof(text), head, "11000000000");
	strcat(text, "1 1 0 1 5000000000 1000000000 4000000000 10 init\n"
	       "50 50 0 1 5000000000 500000000 4500000000 20 daemon\n");
	put(path, text);
	if (!ok(start(&s, dir, (const char *[]){ "--group", "user", NULL }) == 0,
		"reload: started"))
		return;
	m1 = metrics(s.port);
	l1 = sample_of(m1, "tsa_module_load_time_seconds");
	ok(l1 > time(NULL) - 7 && l1 < time(NULL) - 3,
	   "reload: tsa_module_load_time_seconds 5 s ago, the threads' start "
	   "(saw %.3f, now %ld)", l1, (long)time(NULL));
	snprintf(text, sizeof(text), head, "20000000000");
	strcat(text, "1 1 0 1 500000000 100000000 400000000 1 init\n"
	       "50 50 0 1 500000000 50000000 450000000 2 daemon\n");
	put(path, text);
	m2 = metrics(s.port);
	l2 = sample_of(m2, "tsa_module_load_time_seconds");
	ok(l2 - l1 > 4.4 && l2 - l1 < 5.5,
	   "reloaded: tsa_module_load_time_seconds 4.5 s later (saw %.3f)",
	   l2 - l1);
	ok(sample_of(m1, usr) == 1.5 && sample_of(m2, usr) == 0.15,
	   "reloaded: root's USR starts again, 1.5 s then 0.15 s (saw %.9f, "
	   "%.9f)", sample_of(m1, usr), sample_of(m2, usr));
	free(m1);
	free(m2);
	is_long(stop(&s), 0, "reload: SIGTERM, exit 0");
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
	test_exits();
	test_cgroup_removed();
	test_reload();
	fx_done(tap_failed);
	return tap_done();
}
