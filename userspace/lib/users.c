// SPDX-License-Identifier: GPL-2.0
/* lib/users.c - user names by uid, each looked up once (user_name()). */
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
