/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - what the libFuzzer targets here share: the input as a
 * NUL-terminated buffer, or as a file for the readers that take a path
 * (in a directory of this process's own under $TMPDIR).
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The input, NUL-terminated, in a buffer of its own (ASan sees its end). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *t = malloc(size + 1);

	if (!t)
		abort();
	memcpy(t, data, size);
	t[size] = '\0';
	return t;
}

/* This process's directory, made on first use. */
static inline const char *fuzz_dir(void)
{
	static char dir[4096];

	if (!dir[0]) {
		const char *t = getenv("TMPDIR");

		snprintf(dir, sizeof(dir), "%s/tsa-fuzz.XXXXXX",
			 t && *t ? t : "/tmp");
		if (!mkdtemp(dir))
			abort();
	}
	return dir;
}

/* Write @size bytes to @name in fuzz_dir(); its path in @path. */
static inline void fuzz_file(const char *name, const void *data, size_t size,
			     char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", fuzz_dir(), name);
	f = fopen(path, "w");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
		abort();
}

/*
 * The readers warn on stderr about what they skip (a damaged block):
 * a line per run would be most of a fuzzing log. Sanitizer and libFuzzer
 * reports write to fd 2 on their own, not through this stream.
 */
static inline void fuzz_quiet(void)
{
	static int done;
	FILE *f;

	if (done || getenv("FUZZ_VERBOSE"))
		return;
	f = fopen("/dev/null", "w");
	if (f)
		stderr = f;
	done = 1;
}

#endif /* FUZZ_H */
