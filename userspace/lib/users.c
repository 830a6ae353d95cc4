// SPDX-License-Identifier: GPL-2.0
/*
 * lib/users.c - user names by uid, each looked up once (user_name()), and
 * lists of users by name or number (-u, -U).
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "util.h"

struct uent {
	uid_t uid;
	char *name;
};

static struct uent *ucache;
static size_t ucap;
static struct tsa_index uidx;

const char *user_name(uid_t uid)
{
	struct passwd *pw;
	char num[16];
	size_t i, n = uidx.n;

	tsa_index_each(&uidx, tsa_hash_u64(uid), i)
		if (ucache[tsa_index_at(&uidx, i)].uid == uid)
			return ucache[tsa_index_at(&uidx, i)].name;
	if (!uidx.cap || tsa_index_full(&uidx)) {
		tsa_index_clear(&uidx, 2 * (n + 1), 64);
		for (i = 0; i < n; i++)
			tsa_index_put(&uidx, tsa_hash_u64(ucache[i].uid), i);
	}
	if (n == ucap) {
		ucap = ucap ? 2 * ucap : 32;
		ucache = xrealloc(ucache, ucap * sizeof(*ucache));
	}
	pw = getpwuid(uid);
	snprintf(num, sizeof(num), "%u", (unsigned)uid);
	ucache[n].uid = uid;
	ucache[n].name = strdup(pw ? pw->pw_name : num);
	if (!ucache[n].name)
		die(EXIT_BADDATA, "out of memory");
	tsa_index_put(&uidx, tsa_hash_u64(uid), n);
	return ucache[n].name;
}

int parse_userlist(const char *arg, uint64_t **uids, size_t *n, char *bad,
		   size_t badlen)
{
	char *copy = xstrdup(arg), *tok, *save = NULL, *end;
	int rc = 0;

	tok = strtok_r(copy, ", ", &save);
	if (!tok) {
		snprintf(bad, badlen, "%s", arg);
		rc = -1;
	}
	for (; tok && !rc; tok = strtok_r(NULL, ", ", &save)) {
		struct passwd *pw = getpwnam(tok);
		unsigned long long v;

		if (pw) {
			v = pw->pw_uid;
		} else {
			errno = 0;
			v = strtoull(tok, &end, 10);
			if (errno || end == tok || *end || tok[0] == '-' ||
			    v > (uid_t)-1) {
				snprintf(bad, badlen, "%s", tok);
				rc = -1;
				break;
			}
		}
		*uids = xrealloc(*uids, (*n + 1) * sizeof(**uids));
		(*uids)[(*n)++] = v;
	}
	free(copy);
	return rc;
}
