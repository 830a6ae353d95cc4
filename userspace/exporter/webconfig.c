// SPDX-License-Identifier: GPL-2.0
/*
 * exporter/webconfig.c - reading the web configuration file (see
 * webconfig.h): the two-level YAML it uses, no more. Passwords are
 * checked with crypt(3), whose bcrypt ($2a$, $2b$, $2y$) is what the
 * exporter toolkit asks for.
 */
#include <crypt.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "webconfig.h"

static int fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* @s without surrounding blanks and one pair of quotes, in place. */
static char *unquote(char *s)
{
	size_t n;

	s += strspn(s, " \t");
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
		s[n - 1] = '\0';
		s++;
	}
	return s;
}

/* A whole file, NUL-terminated; @name relative to @dir unless absolute. */
static char *slurp_in(const char *dir, const char *name, char *err,
		      size_t len)
{
	char path[4096];
	char *buf = NULL;
	size_t n = 0, cap = 0;
	FILE *f;
	int c;

	if (name[0] == '/' || !dir[0])
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f) {
		fail(err, len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	while ((c = fgetc(f)) != EOF) {
		if (n + 2 > cap) {
			cap = cap ? 2 * cap : 4096;
			buf = xrealloc(buf, cap);
		}
		buf[n++] = (char)c;
	}
	fclose(f);
	if (!n) {
		fail(err, len, "%s: empty", path);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

int web_config_read(const char *path, struct web_config *wc, char *err,
		    size_t errlen)
{
	char dir[4096], line[4096], *cert = NULL, *key = NULL;
	const char *slash = strrchr(path, '/');
	enum { NONE, TLS, USERS } section = NONE;
	int lineno = 0, rc = -1;
	FILE *f;

	memset(wc, 0, sizeof(*wc));
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 0,
		 path);
	f = fopen(path, "re");
	if (!f)
		return fail(err, errlen, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *colon, *k, *v;
		int indented = line[0] == ' ' || line[0] == '\t';

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		p += strspn(p, " \t");
		if (!*p || *p == '#' || !strcmp(p, "---"))
			continue;
		colon = strchr(p, ':');
		if (!colon) {
			fail(err, errlen, "%s:%d: not 'key: value'", path, lineno);
			goto out;
		}
		*colon = '\0';
		k = unquote(p);
		v = unquote(colon + 1);
		if (!indented) {
			if (*v) {
				fail(err, errlen, "%s:%d: %s: not supported by tsa-exporter "
				     "(tls_server_config and basic_auth_users are)",
				     path, lineno, k);
				goto out;
			}
			if (!strcmp(k, "tls_server_config")) {
				section = TLS;
			} else if (!strcmp(k, "basic_auth_users")) {
				section = USERS;
			} else {
				fail(err, errlen, "%s:%d: %s: not supported by tsa-exporter "
				     "(tls_server_config and basic_auth_users are)",
				     path, lineno, k);
				goto out;
			}
		} else if (section == TLS && !strcmp(k, "cert_file") && *v) {
			free(cert);
			cert = xstrdup(v);
		} else if (section == TLS && !strcmp(k, "key_file") && *v) {
			free(key);
			key = xstrdup(v);
		} else if (section == USERS && *v) {
			struct web_user *u;

			if (strncmp(v, "$2a$", 4) && strncmp(v, "$2b$", 4) &&
			    strncmp(v, "$2y$", 4)) {
				fail(err, errlen, "%s:%d: user %s: not a bcrypt hash "
				     "($2a$, $2b$ or $2y$)", path, lineno, k);
				goto out;
			}
			wc->users = xrealloc(wc->users, (wc->nusers + 1) *
					     sizeof(*wc->users));
			u = &wc->users[wc->nusers++];
			u->name = xstrdup(k);
			u->hash = xstrdup(v);
		} else {
			fail(err, errlen, "%s:%d: %s%s%s: not supported by tsa-exporter",
			     path, lineno, section == TLS ? "tls_server_config." :
			     section == USERS ? "basic_auth_users." : "", k,
			     *v ? "" : " (no value)");
			goto out;
		}
	}
	if (!cert != !key) {
		fail(err, errlen, "%s: tls_server_config needs cert_file and "
		     "key_file both", path);
		goto out;
	}
	if (cert) {
		wc->cert_pem = slurp_in(dir, cert, err, errlen);
		if (!wc->cert_pem)
			goto out;
		wc->key_pem = slurp_in(dir, key, err, errlen);
		if (!wc->key_pem)
			goto out;
	}
	rc = 0;
out:
	fclose(f);
	free(cert);
	free(key);
	if (rc)
		web_config_free(wc);
	return rc;
}

int web_config_check(const struct web_config *wc, const char *user,
		     const char *password)
{
	struct crypt_data cd;
	size_t i;

	if (!user || !password)
		return 0;
	for (i = 0; i < wc->nusers; i++) {
		const char *h;

		if (strcmp(wc->users[i].name, user))
			continue;
		memset(&cd, 0, sizeof(cd));
		h = crypt_r(password, wc->users[i].hash, &cd);
		return h && !strcmp(h, wc->users[i].hash);
	}
	/* As long for a name that is not there as for a wrong password. */
	if (wc->nusers) {
		memset(&cd, 0, sizeof(cd));
		crypt_r(password, wc->users[0].hash, &cd);
	}
	return 0;
}

void web_config_free(struct web_config *wc)
{
	size_t i;

	for (i = 0; i < wc->nusers; i++) {
		free(wc->users[i].name);
		free(wc->users[i].hash);
	}
	free(wc->users);
	if (wc->key_pem)
		memset(wc->key_pem, 0, strlen(wc->key_pem));
	free(wc->key_pem);
	free(wc->cert_pem);
	memset(wc, 0, sizeof(*wc));
}
