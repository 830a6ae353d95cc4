/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - a tiny TAP harness: "ok N - what" / "not ok N - what", with
 * what was expected and what was seen on failure, and a closing comment
 * "# PROGRAM: N passed, N failed" (run-tests.sh sums every program's
 * into the one line "userspace: N passed, N failed").
 */
#ifndef TAP_H
#define TAP_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Each test program uses some of these: unused ones are not a mistake. */
#define TAP_FN	static __attribute__((unused))

static int tap_passed, tap_failed;

TAP_FN void tap_vreport(int cond, const char *fmt, va_list ap)
{
	printf("%s %d - ", cond ? "ok" : "not ok",
	       tap_passed + tap_failed + 1);
	vprintf(fmt, ap);
	putchar('\n');
	if (cond)
		tap_passed++;
	else
		tap_failed++;
}

__attribute__((format(printf, 2, 3)))
TAP_FN int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vreport(cond, fmt, ap);
	va_end(ap);
	return cond;
}

/* Print @s as a TAP comment, one "# " line per line of @s. */
TAP_FN void tap_diag(const char *label, const char *s)
{
	printf("#   %s:\n", label);
	while (s && *s) {
		const char *nl = strchr(s, '\n');
		int len = nl ? (int)(nl - s) : (int)strlen(s);

		printf("#     '%.*s'\n", len, s);
		s += len + (nl ? 1 : 0);
	}
}

__attribute__((format(printf, 3, 4)))
TAP_FN int is_str(const char *seen, const char *want, const char *fmt, ...)
{
	int cond = seen && want && !strcmp(seen, want);
	va_list ap;

	va_start(ap, fmt);
	tap_vreport(cond, fmt, ap);
	va_end(ap);
	if (!cond) {
		tap_diag("expected", want ? want : "(null)");
		tap_diag("seen", seen ? seen : "(null)");
	}
	return cond;
}

__attribute__((format(printf, 3, 4)))
TAP_FN int is_long(long seen, long want, const char *fmt, ...)
{
	int cond = seen == want;
	va_list ap;

	va_start(ap, fmt);
	tap_vreport(cond, fmt, ap);
	va_end(ap);
	if (!cond)
		printf("#   expected: %ld\n#   seen:     %ld\n", want, seen);
	return cond;
}

__attribute__((format(printf, 1, 2)))
TAP_FN void skip(const char *fmt, ...)
{
	va_list ap;

	printf("ok %d - ", tap_passed + tap_failed + 1);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP\n");
	tap_passed++;
}

TAP_FN int tap_done(void)
{
	printf("1..%d\n", tap_passed + tap_failed);
	printf("# %s: %d passed, %d failed\n", program_invocation_short_name,
	       tap_passed, tap_failed);
	return tap_failed ? 1 : 0;
}

#endif /* TAP_H */
