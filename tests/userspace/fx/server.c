// SPDX-License-Identifier: GPL-2.0
/*
 * server.c - tsa-exporter started for a test, and asked over a socket
 * (server.h).
 */
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server.h"

const char *exporter_bin = "./tsa-exporter";
const char *exporter_procfs = "/nonexistent";	/* its TSA_PROCFS */

/*
 * Start it on --listen @listen with @args; 0 when it says where, as
 * @want ("http://127.0.0.1:") then the port.
 */
int start_on(struct server *s, const char *dir, const char *listen,
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
int start_scheme(struct server *s, const char *dir, const char *const *args,
		 const char *scheme)
{
	char want[32];

	snprintf(want, sizeof(want), "%s://127.0.0.1:", scheme);
	return start_on(s, dir, "127.0.0.1:0", args, want);
}

int start(struct server *s, const char *dir, const char *const *args)
{
	return start_scheme(s, dir, args, "http");
}

int stop(struct server *s)
{
	int status;

	kill(s->pid, SIGTERM);
	waitpid(s->pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* One HTTP/1.0 request; the whole answer (malloc'ed), or NULL. */
char *get(int port, const char *request)
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

char *metrics(int port)
{
	char *a = get(port, "GET /metrics HTTP/1.0\r\n\r\n"), *body;

	if (!a)
		return NULL;
	body = strstr(a, "\r\n\r\n");
	body = strdup(body ? body + 4 : "");
	free(a);
	return body;
}

