// SPDX-License-Identifier: GPL-2.0
/*
 * exporter/main.c - tsa-exporter: tsa's microstates for Prometheus,
 * served on /metrics (libmicrohttpd), as node_exporter serves its own.
 *
 *   tsa-exporter [--listen [ADDR:]PORT] [--group cgroup|user|comm|pid]
 *                [-p pidlist] [--max-series N] [--timeout SECS]
 *                [--scrape-timeout SECS] [--web.config.file FILE]
 *
 * The text format 0.0.4 by default, OpenMetrics 1.0 when the client's
 * Accept asks for application/openmetrics-text; gzip when its
 * Accept-Encoding allows it; a landing page at /. A read of the module's
 * files runs in a thread of its own; scrapes that arrive while it reads
 * wait for it and answer with it (one read serves them all), each no
 * longer than its limit (503 after it). HTTP is libmicrohttpd's: a small
 * thread pool, a bound on connections and on each one's memory (a
 * request's headers included), and a timeout for a client that sends
 * nothing. The body is shared by every response made from it.
 */
#include <errno.h>
#include <getopt.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "http.h"
#include "scrape.h"
#include "util.h"
#include "webconfig.h"

#define DEFAULT_LISTEN	"127.0.0.1:9837"
#define POOL_THREADS	4
#define MAX_CONNECTIONS	256
/*
 * Connections one client address may hold: Prometheus keeps one per
 * target, an HA pair two; a client that opens many and sends nothing
 * cannot take the MAX_CONNECTIONS from the others.
 */
#define PER_IP_CONNECTIONS	16

static const char *const content_type[2] = {
	[METRICS_PROMETHEUS] = "text/plain; version=0.0.4; charset=utf-8",
	[METRICS_OPENMETRICS] =
		"application/openmetrics-text; version=1.0.0; charset=utf-8",
};

/* One scrape's texts, shared by the responses made from them. */
struct body {
	struct scrape_out out;
	char *gz[2];		/* made on the first request for it */
	size_t gzlen[2];
	int refs;		/* under lock */
};

static struct scrape_conf conf;
static struct web_config web;
static struct scrape_health health;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t read_done;	/* on CLOCK_MONOTONIC: main() */
static double scrape_limit = 10;	/* --scrape-timeout */
static const char *metrics_path = "/metrics";	/* --web.telemetry-path */
static int reading;		/* a read is in progress */
static unsigned long reads_done;
static struct body *last;	/* the newest read's (a reference) */

static void body_free(struct body *b)
{
	scrape_out_free(&b->out);
	free(b->gz[0]);
	free(b->gz[1]);
	free(b);
}

/* Drop a reference to @b, under lock. */
static void body_unref(struct body *b)
{
	if (b && --b->refs == 0)
		body_free(b);
}

static void body_put(struct body *b)
{
	pthread_mutex_lock(&lock);
	body_unref(b);
	pthread_mutex_unlock(&lock);
}

/*
 * The read, in a thread of its own: a scrape waits for it no longer than
 * its limit, and a read that never ends (a module stuck, a FIFO) keeps
 * no scrape's thread; the next scrapes wait for it in turn.
 */
static void *read_body(void *arg)
{
	struct body *b = calloc(1, sizeof(*b));

	(void)arg;
	if (!b)
		die(EXIT_BADDATA, "out of memory");
	b->refs = 1;
	/* The health counters but timeouts: the reader's alone. */
	scrape_run(&conf, &health, &b->out);
	if (!b->out.up || b->out.err[0])
		warnmsg("%s", b->out.err);
	pthread_mutex_lock(&lock);
	body_unref(last);
	last = b;
	reading = 0;
	reads_done++;
	pthread_cond_broadcast(&read_done);
	pthread_mutex_unlock(&lock);
	return NULL;
}

/*
 * The body of this scrape, a reference: the read that is in progress
 * when it arrives, or a new one. NULL when that read is still going
 * after @limit seconds.
 */
static struct body *body_get(double limit)
{
	unsigned long seen;
	struct timespec end;
	struct body *b;
	pthread_t t;
	int rc;

	pthread_mutex_lock(&lock);
	seen = reads_done;
	if (!reading) {
		reading = 1;
		rc = pthread_create(&t, NULL, read_body, NULL);
		if (rc)
			die(EXIT_BADDATA, "cannot start a read: %s",
			    strerror(rc));
		pthread_detach(t);
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	next_deadline(&end, limit);
	while (reads_done == seen)
		if (pthread_cond_timedwait(&read_done, &lock, &end) ==
		    ETIMEDOUT && reads_done == seen) {
			pthread_mutex_unlock(&lock);
			__atomic_add_fetch(&health.timeouts, 1,
					   __ATOMIC_RELAXED);
			return NULL;
		}
	b = last;
	b->refs++;
	pthread_mutex_unlock(&lock);
	return b;
}

static int gzip_text(const char *in, size_t len, char **out, size_t *outlen)
{
	z_stream z;
	uLong cap;
	int rc;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip wrapper, as Content-Encoding: gzip means. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	cap = deflateBound(&z, (uLong)len);
	*out = malloc(cap);
	if (!*out) {
		deflateEnd(&z);
		return -1;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)*out;
	z.avail_out = (uInt)cap;
	rc = deflate(&z, Z_FINISH);
	*outlen = z.total_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

static void free_body(void *cls)
{
	body_put(cls);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     const char *type, const char *text)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text,
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (status == MHD_HTTP_UNAUTHORIZED)	/* with WWW-Authenticate */
		ret = MHD_queue_basic_auth_fail_response(c, "tsa-exporter", r);
	else
		ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static char landing[1024];	/* made in main(), with the metrics' path */

static enum MHD_Result metrics(struct MHD_Connection *c)
{
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							 "Accept");
	const char *enc = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_ACCEPT_ENCODING);
	enum metrics_format fmt = accepts(accept, "application/openmetrics-text") ?
				  METRICS_OPENMETRICS : METRICS_PROMETHEUS;
	const char *hint = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					"X-Prometheus-Scrape-Timeout-Seconds");
	double limit = scrape_limit, h = hint ? strtod(hint, NULL) : 0;
	struct MHD_Response *r;
	enum MHD_Result ret;
	struct body *b;
	const char *data;
	size_t len;
	int gz = 0;

	/* Prometheus says how long it waits: no longer than that. */
	if (h > 0 && h < limit)
		limit = h;
	b = body_get(limit);
	if (!b)
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain",
			     "the read of the module's files that this scrape "
			     "waited for took longer than its time limit\n");
	data = b->out.text[fmt];
	len = b->out.len[fmt];

	if (accepts(enc, "gzip")) {
		char *z;
		size_t zlen;

		/* Once a body, outside the lock the other scrapes take. */
		pthread_mutex_lock(&lock);
		z = b->gz[fmt];
		pthread_mutex_unlock(&lock);
		if (z || gzip_text(data, len, &z, &zlen))
			z = NULL;	/* made already, or could not be */
		pthread_mutex_lock(&lock);
		if (z && !b->gz[fmt]) {
			b->gz[fmt] = z;
			b->gzlen[fmt] = zlen;
		} else {
			free(z);	/* another scrape's came first */
		}
		if (b->gz[fmt]) {
			data = b->gz[fmt];
			len = b->gzlen[fmt];
			gz = 1;
		}
		pthread_mutex_unlock(&lock);
	}
	r = MHD_create_response_from_buffer_with_free_callback_cls(
		len, (void *)data, free_body, b);
	if (!r) {
		body_put(b);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				content_type[fmt]);
	MHD_add_response_header(r, MHD_HTTP_HEADER_VARY,
				"Accept, Accept-Encoding");
	if (gz)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING,
					"gzip");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	static int seen;

	(void)cls;
	(void)version;
	(void)upload;
	/* The first call has the headers only; answer on the next. */
	if (!*state) {
		*state = &seen;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;	/* a body we do not read */
		return MHD_YES;
	}
	if (web.nusers) {
		char *pass = NULL;
		char *user = MHD_basic_auth_get_username_password(c, &pass);
		int good = web_config_check(&web, user, pass);

		MHD_free(user);
		MHD_free(pass);
		if (!good)
			return reply(c, MHD_HTTP_UNAUTHORIZED, "text/plain",
				     "authentication required\n");
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
			     "only GET and HEAD\n");
	if (!strcmp(url, metrics_path))
		return metrics(c);
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8",
			     landing);
	return reply(c, MHD_HTTP_NOT_FOUND, "text/plain",
		     "not found: tsa-exporter serves its metrics at the "
		     "path of --web.telemetry-path (/metrics by default)\n");
}

static void usage(FILE *f, int code)
{
	fprintf(f,
"Usage: tsa-exporter [--listen [ADDR]:PORT] [--group by] [-p pidlist]\n"
"\t[--max-series N] [--waker-edges N] [--timeout SECS]\n"
"\t[--scrape-timeout SECS] [--stale-after SECS]\n"
"\t[--web.config.file FILE] [--web.telemetry-path PATH]\n"
"\ttsa-exporter -h | --help | --version\n"
"\n"
"Serves tsa's microstates on http://ADDR:PORT/metrics for Prometheus\n"
"(text 0.0.4, or OpenMetrics 1.0 when asked; gzip when asked).\n"
"\n"
"  --listen, --web.listen-address [ADDR]:PORT\n"
"              where to listen (default %s; [::1]:PORT for\n"
"              IPv6; :PORT for every address, IPv4 and IPv6; PORT\n"
"              alone for loopback); PORT 1-65535\n"
"  --web.telemetry-path PATH\n"
"              where the metrics are (default /metrics)\n"
"  --group by  one series set per cgroup (the default), user, comm, or\n"
"              pid (with -p only)\n"
"  -p pidlist  only these processes (comma or space separated)\n"
"  --max-series N\n"
"              at most N group series a scrape (default 20000; 0: no\n"
"              cap): the groups with the least time are left out, and\n"
"              tsa_exporter_series_dropped says how many series\n"
"  --waker-edges N\n"
"              the N edges waker group -> woken group with the most\n"
"              time (tsa_waker_seconds, _wakeups, _lat_seconds; default\n"
"              50; 0: none); tsa_exporter_waker_edges_dropped says how\n"
"              many more there were\n"
"  --timeout SECS\n"
"              close a connection idle for SECS (default 10)\n"
"  --scrape-timeout SECS\n"
"              a scrape that waits longer for the read in progress gets\n"
"              503 (default 10; less if Prometheus says so)\n"
"  --stale-after SECS\n"
"              a group whose processes have all exited keeps its last\n"
"              numbers for SECS, then is dropped (default 3600; 0: kept)\n"
"  --web.config.file FILE\n"
"              TLS (tls_server_config: cert_file, key_file) and basic\n"
"              auth (basic_auth_users: name: bcrypt hash), as Prometheus's\n"
"              exporters read them\n"
"\n"
"Reads $TSA_PROC_DIR (default /proc/tsa): all, hist, wakers,\n"
"calibration.\n"
"See tsa-exporter(8).\n", DEFAULT_LISTEN);
	exit(code);
}

/*
 * A listening socket for "[ADDR]:PORT" ("[v6]:PORT" too): ":PORT" is
 * every address (IPv6 and IPv4 on one socket, IPv4 alone where there is
 * no IPv6), as Go exporters take it; "PORT" alone is loopback's.
 */
static int listen_on(const char *spec)
{
	char host[256] = "", port[32];
	const char *colon = strrchr(spec, ':');
	struct addrinfo hints, *ai, *a;
	int fd = -1, one = 1, zero = 0, rc, every = colon == spec, try;
	int err = EADDRNOTAVAIL;
	unsigned long pn;

	if (!colon) {
		snprintf(port, sizeof(port), "%s", spec);
	} else if (spec[0] == '[' && colon > spec && colon[-1] == ']') {
		snprintf(host, sizeof(host), "%.*s", (int)(colon - spec - 2),
			 spec + 1);
		snprintf(port, sizeof(port), "%s", colon + 1);
	} else {
		snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
		snprintf(port, sizeof(port), "%s", colon + 1);
	}
	if (!port[0] || strspn(port, "0123456789") != strlen(port))
		die(EXIT_USAGE, "--listen %s: not [ADDR]:PORT", spec);
	errno = 0;
	pn = strtoul(port, NULL, 10);
	/* 0: a free port of the kernel's choosing (said on stderr). */
	if (errno || pn > 65535)
		die(EXIT_USAGE, "--listen %s: port %s is not 1-65535", spec,
		    port);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	/* Every address: "::" takes IPv4 too; "0.0.0.0" without IPv6. */
	for (try = 0; fd < 0 && try < (every ? 2 : 1); try++) {
		rc = getaddrinfo(every ? (try ? "0.0.0.0" : "::") :
				 host[0] ? host : "127.0.0.1", port, &hints,
				 &ai);
		if (rc && (!every || try))
			die(EXIT_USAGE, "--listen %s: %s", spec,
			    gai_strerror(rc));
		for (a = rc ? NULL : ai; a; a = a->ai_next) {
			fd = socket(a->ai_family,
				    a->ai_socktype | SOCK_CLOEXEC,
				    a->ai_protocol);
			if (fd < 0)
				continue;
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				   sizeof(one));
			if (every && a->ai_family == AF_INET6)
				setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY,
					   &zero, sizeof(zero));
			if (!bind(fd, a->ai_addr, a->ai_addrlen) &&
			    !listen(fd, 128))
				break;
			err = errno;
			close(fd);
			fd = -1;
		}
		if (!rc)
			freeaddrinfo(ai);
	}
	if (fd < 0)
		die(EXIT_ACCESS, "--listen %s: %s", spec, strerror(err));
	return fd;
}

/* The address it listens on, as bound (a port of 0 gets one). */
static void say_where(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[NI_MAXHOST], port[NI_MAXSERV];

	if (getsockname(fd, (struct sockaddr *)&ss, &len) ||
	    getnameinfo((struct sockaddr *)&ss, len, host, sizeof(host), port,
			sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(host, sizeof(host), "?");
		port[0] = '\0';
	}
	fprintf(stderr, "tsa-exporter %s: serving http%s://%s%s%s:%s%s "
		"from %s\n", TSA_PRSTAT_VERSION, web.cert_pem ? "s" : "",
		ss.ss_family == AF_INET6 ?
		"[" : "", host, ss.ss_family == AF_INET6 ? "]" : "", port,
		metrics_path, conf.proc_dir);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "listen", required_argument, NULL, 'l' },
		/* node_exporter's names for the same */
		{ "web.listen-address", required_argument, NULL, 'l' },
		{ "web.telemetry-path", required_argument, NULL, 'P' },
		{ "group", required_argument, NULL, 'g' },
		{ "max-series", required_argument, NULL, 'm' },
		{ "waker-edges", required_argument, NULL, 'e' },
		{ "timeout", required_argument, NULL, 't' },
		{ "web.config.file", required_argument, NULL, 'w' },
		{ "scrape-timeout", required_argument, NULL, 's' },
		{ "stale-after", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *listen_spec = DEFAULT_LISTEN, *env, *web_file = NULL;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
	char err[4352];
	struct MHD_OptionItem opt[10];
	uint64_t *pids = NULL;
	size_t npids = 0;
	int n = 0;
	unsigned long timeout = 10;
	double stale_after = 3600;
	struct MHD_Daemon *d;
	sigset_t sigs;
	char *end;
	int c, fd, sig, by;

	progname = "tsa-exporter";
	conf.by = GROUP_CGROUP;
	conf.max_series = 20000;
	conf.waker_edges = 50;
	opterr = 0;	/* our own messages: one line, then --help */
	while ((c = getopt_long(argc, argv, ":p:h", longopts, NULL)) != -1) {
		switch (c) {
		case ':':	/* as GNU tools say it */
			if (!strncmp(argv[optind - 1], "--", 2))
				die(EXIT_USAGE, "option '%s' requires an "
				    "argument", argv[optind - 1]);
			die(EXIT_USAGE, "option requires an argument -- '%c'",
			    optopt);
			break;
		case '?':
			if (optopt > 0 && optopt < 256 &&
			    strncmp(argv[optind - 1], "--", 2))
				die(EXIT_USAGE, "invalid option -- '%c'", optopt);
			die(EXIT_USAGE, "unrecognized option '%s'",
			    argv[optind - 1]);
			break;
		case 'l':
			listen_spec = optarg;
			break;
		case 'g':
			by = group_by_lookup(optarg);
			if (by < 0)
				die(EXIT_USAGE, "--group %s: not pid, cgroup, "
				    "user or comm", optarg);
			conf.by = (enum group_by)by;
			break;
		case 'p':
			if (parse_pidlist(optarg, &pids, &npids, err,
					  sizeof(err)))
				die(EXIT_USAGE, "-p '%s': not a process id",
				    err);
			conf.pids = pids;
			conf.npids = npids;
			break;
		case 'm':
			errno = 0;
			conf.max_series = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || optarg[0] == '-')
				die(EXIT_USAGE, "--max-series %s: not a count",
				    optarg);
			break;
		case 'e':
			errno = 0;
			conf.waker_edges = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || optarg[0] == '-')
				die(EXIT_USAGE, "--waker-edges %s: not a count",
				    optarg);
			break;
		case 't':
			errno = 0;
			timeout = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || !timeout ||
			    timeout > 3600)
				die(EXIT_USAGE, "--timeout %s: not 1-3600 "
				    "seconds", optarg);
			break;
		case 'w':
			web_file = optarg;
			break;
		case 'P':
			if (optarg[0] != '/' || strlen(optarg) > 200 ||
			    strpbrk(optarg, "<>\"&?# ") || !strcmp(optarg, "/"))
				die(EXIT_USAGE, "--web.telemetry-path %s: not a "
				    "path like /metrics", optarg);
			metrics_path = optarg;
			break;
		case 's':
			scrape_limit = strtod(optarg, &end);
			if (*end || end == optarg || !(scrape_limit > 0) ||
			    scrape_limit > 3600)
				die(EXIT_USAGE, "--scrape-timeout %s: not 0-3600 "
				    "seconds", optarg);
			break;
		case 'S':
			stale_after = strtod(optarg, &end);
			if (*end || end == optarg || !(stale_after >= 0) ||
			    stale_after > 1e9)
				die(EXIT_USAGE, "--stale-after %s: not 0 or more "
				    "seconds", optarg);
			break;
		case 'V':
			printf("tsa-exporter %s\n", TSA_PRSTAT_VERSION);
			return 0;
		case 'h':
			usage(stdout, 0);
			break;
		default:
			die(EXIT_USAGE, "invalid option -- '%c'", c);
		}
	}
	if (optind != argc)
		die(EXIT_USAGE, "%s: no operands", argv[optind]);
	if (conf.by == GROUP_PID && !conf.npids)
		die(EXIT_USAGE, "--group pid needs -p pidlist: a series set per "
		    "process of a whole machine is not bounded");
	ledger_init(&health.ledger, conf.by, stale_after);
	env = getenv("TSA_PROC_DIR");
	conf.proc_dir = env && *env ? env : "/proc/tsa";
	env = getenv("TSA_PROCFS");
	conf.procfs = env && *env ? env : "/proc";
	env = getenv("TSA_SYS_MODULE");
	conf.sys_module = env && *env ? env : "/sys/module/tsa";

	if (web_file && web_config_read(web_file, &web, err, sizeof(err)))
		die(EXIT_USAGE, "--web.config.file: %s", err);
	if (web.cert_pem)
		flags |= MHD_USE_TLS;
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&read_done, &ca);
		pthread_condattr_destroy(&ca);
	}
	snprintf(landing, sizeof(landing),
		 "<!DOCTYPE html>\n<html><head><title>tsa-exporter</title>"
		 "</head>\n<body><h1>tsa-exporter</h1>\n"
		 "<p>Per-thread microstates from tsa.ko, folded by group: "
		 "<a href=\"%s\">%s</a>.</p>\n"
		 "<p>See tsa-exporter(8) and tsa(4).</p>\n</body></html>\n",
		 metrics_path, metrics_path);
	fd = listen_on(listen_spec);
	/* The pool's threads inherit the mask: only sigwait() takes these. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, fd, NULL };
	opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE,
					    POOL_THREADS, NULL };
	opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT,
					    MAX_CONNECTIONS, NULL };
	opt[n++] = (struct MHD_OptionItem){
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, PER_IP_CONNECTIONS, NULL };
	opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT,
					    (intptr_t)timeout, NULL };
	opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT,
					    32768, NULL };
	if (web.cert_pem) {
		opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0,
						    web.key_pem };
		opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0,
						    web.cert_pem };
	}
	opt[n] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	d = MHD_start_daemon(flags, 0, NULL, NULL, handle, NULL,
			     MHD_OPTION_ARRAY, opt, MHD_OPTION_END);
	if (!d)
		die(EXIT_BADDATA, "cannot start the HTTP server on %s",
		    listen_spec);
	say_where(fd);
	do {
		if (sigwait(&sigs, &sig))
			sig = SIGTERM;
	} while (sig == SIGHUP);	/* nothing to reload */
	MHD_stop_daemon(d);
	close(fd);
	body_put(last);
	last = NULL;
	web_config_free(&web);
	ledger_free(&health.ledger);
	free((void *)conf.pids);
	return 0;
}
