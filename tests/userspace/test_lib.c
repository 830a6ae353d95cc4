// SPDX-License-Identifier: GPL-2.0
/*
 * test_lib.c - lib/: the formatting of numbers, durations and names,
 * and the streaming JSON writer.
 *
 * Output is TAP (tap.h); run-tests.sh sums every program's.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "index.h"
#include "jsonw.h"
#include "parse.h"
#include "util.h"
#include "tap.h"
#include "fx/run.h"

static void test_format_pct(void)
{
	static const struct { float v; const char *want; } t[] = {
		{ 0, "0.0" }, { 0.04f, "0.0" }, { 0.05f, "0.1" },
		{ 5, "5.0" }, { 9.94f, "9.9" }, { 9.949f, "9.9" },
		{ 9.95f, "10" }, { 9.96f, "10" }, { 10, "10" },
		{ 12.5f, "12" },	/* printf rounds a tie to even */
		{ 27.5f, "28" }, { 60.15f, "60" }, { 99.4f, "99" },
		{ 99.5f, "100" }, { 100, "100" }, { 100.01f, "100" },
		{ 250, "100" }, { -0.5f, "0.0" }, { -100, "0.0" },
	};
	char out[4];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		format_pct(out, t[i].v);
		is_str(out, t[i].want, "format_pct(%g) is \"%s\"",
		       (double)t[i].v, t[i].want);
	}
}

static void test_format_num(void)
{
	/*
	 * Four characters, never a fraction of a unit (issue 62: the
	 * Solaris ".%1dM" cut to three printed 4,365,500 as ".43").
	 */
	static const struct { uint64_t v; const char *want; } t[] = {
		{ 0, "   0" }, { 7, "   7" }, { 999, " 999" },
		{ 1000, "1000" }, { 9999, "9999" }, { 10000, " 10K" },
		{ 10499, " 10K" }, { 10501, " 11K" }, { 99999, "100K" },
		{ 100000, "100K" }, { 999499, "999K" }, { 999500, "1.0M" },
		{ 1000000, "1.0M" }, { 1234567, "1.2M" }, { 4365500, "4.4M" },
		{ 9949999, "9.9M" }, { 9950000, " 10M" }, { 43000000, " 43M" },
		{ 99999999, "100M" }, { 999499999, "999M" },
		{ 1234567890, "1.2G" }, { UINT64_C(1000000000000), "1.0T" },
		{ UINT64_MAX, " 18E" },
	};
	char out[5];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		format_num(out, t[i].v);
		is_str(out, t[i].want, "format_num(%llu) is \"%s\"",
		       (unsigned long long)t[i].v, t[i].want);
	}
}

static void test_names(void)
{
	char out[64];

	format_user(out, sizeof(out), "postgres", 1);
	is_str(out, "postgres", "an 8-character user name is not cut");
	format_user(out, sizeof(out), "verylongname", 1);
	is_str(out, "verylon*", "a long user name is cut to 7 and '*'");
	format_user(out, sizeof(out), "verylongname", 0);
	is_str(out, "verylongname", "without truncation it is whole");
	is_str(user_name(0), "root", "uid 0 is root");
	is_str(user_name(4000000), "4000000", "a uid without a name is "
	       "its number");
	strip_comm(out, sizeof(out), "a\tb\x7f" "c d");
	is_str(out, "abc d", "unprintable characters leave comm");
}

static void test_format_count_dur(void)
{
	static const struct { uint64_t v; const char *want; } c[] = {
		{ 0, "0" }, { 99999, "99999" }, { 100000, "100K" },
		{ 123456, "123K" }, { 9999999, "9999K" }, { 12345678, "12M" },
		{ 9999999999ull, "9999M" }, { 10000000000ull, "10G" },
		{ UINT64_MAX, "18E" },
	}, t[] = {
		{ 0, "0ns" }, { 999, "999ns" }, { 1000, "1.00us" },
		{ 1999, "1.99us" }, { 12345, "12.3us" }, { 999999, "999us" },
		{ 6666666, "6.66ms" }, { 140000000, "140ms" },
		{ 1000000000, "1.00s" }, { 99990000000ull, "99.9s" },
		{ 999999999999ull, "999s" }, { 3600000000000ull, "3600s" },
	};
	char out[24];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		format_count(out, c[i].v);
		is_str(out, c[i].want, "format_count(%llu) is \"%s\"",
		       (unsigned long long)c[i].v, c[i].want);
	}
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		format_dur(out, t[i].v);
		is_str(out, t[i].want, "format_dur(%llu) is \"%s\"",
		       (unsigned long long)t[i].v, t[i].want);
	}
}

/*
 * The JSON writer places every comma and closes what is open: members,
 * nested objects, arrays of numbers and of objects, null, booleans,
 * three decimals, a wall-clock time, and strings escaped (a quote, a
 * backslash, a control byte, invalid UTF-8).
 */
static void test_jsonw(void)
{
	struct timespec t = { 1700000000, 123456789 };
	struct jsonw w;
	char *out;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	jw_line(&w, f);
	jw_time(&w, "ts", &t);
	jw_u64(&w, "n", 18446744073709551615ull);
	jw_str(&w, "s", "a\"b\\c\td\xff");
	jw_object(&w, "o");
	jw_fixed(&w, "pct", 12.3456);
	jw_null(&w, "none");
	jw_close(&w);
	jw_array(&w, "a");
	jw_u64(&w, NULL, 1);
	jw_u64(&w, NULL, 2);
	jw_object(&w, NULL);
	jw_bool(&w, "t", 1);
	jw_bool(&w, "f", 0);
	jw_close(&w);
	jw_object(&w, NULL);
	jw_close(&w);
	jw_close(&w);
	jw_array(&w, "empty");
	jw_end_line(&w);
	jw_line(&w, f);
	jw_end_line(&w);
	fclose(f);
	is_str(out, "{\"ts\":1700000000.123,\"n\":18446744073709551615,"
	       "\"s\":\"a\\\"b\\\\c\\u0009d\\ufffd\",\"o\":{\"pct\":12.346,"
	       "\"none\":null},\"a\":[1,2,{\"t\":true,\"f\":false},{}],"
	       "\"empty\":[]}\n{}\n",
	       "jsonw: commas, nesting, arrays, escapes; end_line closes "
	       "what is open");
	free(out);
}

/*
 * The key index: keys that all hash to one slot probe past each other,
 * each is found at its own position, a missing key is not, and after a
 * clear nothing is; growth (tsa_index_full) keeps twice the slots.
 */
static void test_index(void)
{
	uint64_t keys[300];
	struct tsa_index x = { NULL, 0, 0 };
	size_t i, k, found = 0, wrong = 0, probes = 0;

	for (i = 0; i < 300; i++)
		keys[i] = 1000 + 7 * i;
	tsa_index_clear(&x, 300, 16);
	ok(x.cap >= 602 && (x.cap & (x.cap - 1)) == 0,
	   "index: room for 300 is a power of two over 600 slots (%zu)", x.cap);
	/* The same hash for all: they take consecutive slots. */
	for (i = 0; i < 300; i++)
		tsa_index_put(&x, 5, i);
	for (i = 0; i < 300; i++) {
		size_t at = (size_t)-1;

		tsa_index_each(&x, 5, k) {
			probes++;
			if (keys[tsa_index_at(&x, k)] == keys[i]) {
				at = tsa_index_at(&x, k);
				break;
			}
		}
		found += at == i;
		wrong += at != (size_t)-1 && at != i;
	}
	ok(found == 300 && !wrong,
	   "index: 300 keys of one hash found at their positions (found %zu, wrong %zu, %zu probes)",
	   found, wrong, probes);
	found = 0;
	tsa_index_each(&x, 5, k)
		found += keys[tsa_index_at(&x, k)] == 42;
	ok(!found && x.n == 300, "index: a key never put is not found (%zu entries)",
	   x.n);
	ok(tsa_index_full(&x) == (2 * 301 + 2 > x.cap),
	   "index: full when one more leaves fewer than twice the slots");
	tsa_index_clear(&x, 0, 16);
	found = 0;
	tsa_index_each(&x, 5, k)
		found++;
	ok(!found && !x.n, "index: empty after a clear (%zu slots kept)", x.cap);
	for (i = 0; i < 300; i++)
		tsa_index_put(&x, tsa_hash_u64(keys[i]), i);
	found = 0;
	for (i = 0; i < 300; i++)
		tsa_index_each(&x, tsa_hash_u64(keys[i]), k)
			if (keys[tsa_index_at(&x, k)] == keys[i])
				found += tsa_index_at(&x, k) == i;
	ok(found == 300, "index: 300 keys by tsa_hash_u64 found (%zu)", found);
	ok(tsa_hash_str("read") != tsa_hash_str("write") &&
	   tsa_hash_str("read") == tsa_hash_str("read"),
	   "index: tsa_hash_str is a function of the string");
	tsa_index_free(&x);
	ok(!x.slot && !x.cap, "index: freed");
}

static void test_parse(void)
{
	time_t now = 1790000000, t;
	struct tm tm;

	is_long(parse_age("7d"), 7 * 86400, "parse_age 7d");
	is_long(parse_age("90m"), 5400, "parse_age 90m");
	is_long(parse_age("3600"), 3600, "parse_age 3600 (seconds)");
	is_long(parse_age("2w"), 14 * 86400, "parse_age 2w");
	is_long(parse_age("7y"), -1, "parse_age 7y: refused");
	is_long(parse_age("-1h"), -1, "parse_age -1h: refused");
	is_long(parse_size("2G"), 2LL << 30, "parse_size 2G");
	is_long(parse_size("150K"), 150 * 1024, "parse_size 150K");
	is_long(parse_size("12345"), 12345, "parse_size 12345");
	is_long(parse_size("1.5G"), -1, "parse_size 1.5G: refused");
	is_long(parse_when("@100", now), 100, "parse_when @100");
	is_long(parse_when("-2h", now), now - 7200, "parse_when -2h");
	localtime_r(&now, &tm);
	tm.tm_hour = 3;
	tm.tm_min = 0;
	tm.tm_sec = 30;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	is_long(parse_when("03:00:30", now), t, "parse_when 03:00:30: today");
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = 126;
	tm.tm_mon = 10;
	tm.tm_mday = 26;
	tm.tm_hour = 3;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	is_long(parse_when("2026-11-26 03:00", now), t,
		"parse_when 2026-11-26 03:00");
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = 130;
	tm.tm_mday = 1;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	is_long(parse_when("2030-01-01", now), t,
		"parse_when 2030-01-01: a date alone is its midnight, local");
	is_long(parse_when("2030-01-01 ", now), -1,
		"parse_when '2030-01-01 ': refused");
	is_long(parse_when("2030-13-01", now), -1,
		"parse_when 2030-13-01: refused");
	is_long(parse_when("24:00", now), -1, "parse_when 24:00: refused");
	is_long(parse_when("3pm", now), -1, "parse_when 3pm: refused");
	is_long(parse_when("03:00 x", now), -1, "parse_when '03:00 x': refused");
}

int main(void)
{
	if (fx_init())
		return 2;

	test_format_pct();
	test_format_num();
	test_names();
	test_format_count_dur();
	test_jsonw();
	test_index();
	test_parse();

	fx_done(tap_failed);
	return tap_done();
}
