/* SPDX-License-Identifier: GPL-2.0 */
/*
 * server.h - tsa-exporter for the tests that scrape it (test_exporter,
 * test_ledger): started on a port of its choosing over a directory of
 * the module's files, asked with plain HTTP/1.0, stopped.
 */
#ifndef FX_SERVER_H
#define FX_SERVER_H

#include <sys/types.h>

extern const char *exporter_bin;	/* $TSA_EXPORTER, else ./tsa-exporter */
extern const char *exporter_procfs;	/* its TSA_PROCFS: /nonexistent */

struct server {
	pid_t pid;
	int port;
};

/*
 * Start it on --listen @listen with @args, TSA_PROC_DIR=@dir; 0 when it
 * says where, as @want ("http://127.0.0.1:") then the port.
 */
int start_on(struct server *s, const char *dir, const char *listen,
	     const char *const *args, const char *want);
/* On a port of its choosing: @scheme://127.0.0.1:PORT. */
int start_scheme(struct server *s, const char *dir, const char *const *args,
		 const char *scheme);
int start(struct server *s, const char *dir, const char *const *args);
/* SIGTERM; its exit status, or 128 + signal. */
int stop(struct server *s);
/* One HTTP/1.0 request to 127.0.0.1; the whole answer (malloc'ed), or NULL. */
char *get(int port, const char *request);
/* GET /metrics: the body (malloc'ed), or NULL. */
char *metrics(int port);

#endif
