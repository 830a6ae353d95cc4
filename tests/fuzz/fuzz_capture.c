// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_capture.c - a capture (--save FILE, read by --compare):
 * capture_read() of the input written to a file. The rows, the
 * distributions and the wakers a capture carries are checked by a
 * CRC-32 each, which random bytes rarely pass: before the write, the
 * "size N crc32 X" line's checksum is made right for the N bytes after
 * the header when there are that many, so that the rows' parse is
 * reached too (the parsers of the parts have their own targets).
 */
#include "fuzz.h"
#include "capture.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* In @t (NUL-terminated, @size bytes), set the size line's crc right. */
static char *fix_crc(char *t, size_t *size)
{
	char *line = strstr(t, "\nsize "), *nl, *out;
	size_t n, rest, head;
	int k;

	if (!line || sscanf(line, "\nsize %zu crc32 ", &n) != 1)
		return t;
	nl = strchr(line + 1, '\n');
	if (!nl)
		return t;
	rest = *size - (size_t)(nl + 1 - t);
	if (n > rest)
		return t;
	head = (size_t)(line + 1 - t);
	out = malloc(*size + 64);
	if (!out)
		abort();
	memcpy(out, t, head);
	k = sprintf(out + head, "size %zu crc32 %08x\n", n,
		    crc32_buf(nl + 1, n));
	memcpy(out + head + (size_t)k, nl + 1, rest);
	*size = head + (size_t)k + rest;
	out[*size] = '\0';
	free(t);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct capture c = { 0 };
	char path[4200], msg[256];
	char *t = fix_crc(fuzz_text(data, size), &size);

	fuzz_file("capture", t, size, path, sizeof(path));
	free(t);
	msg[0] = '\0';
	if (capture_read(&c, path, msg, sizeof(msg)) != TSA_OK &&
	    (!msg[0] || strchr(msg, '\n')))
		abort();	/* a refusal is one line, with its reason */
	capture_free(&c);
	return 0;
}
