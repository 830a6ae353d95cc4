// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_capture.c - a capture (--save FILE, read by --compare):
 * capture_read() of the input written to a file. The rows, the
 * distributions and the wakers a capture carries are checked by a
 * CRC-32 each, which random bytes rarely pass: before the write, each
 * part's checksum ("size N crc32 X", "hist ...", "wakers ...") is made
 * right when the input has its bytes, so that the parse of the rows,
 * the distributions and the wakers is reached too.
 */
#include "fuzz.h"
#include "capture.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A "NAME N crc32 X" header line's N, or -1. */
static long part_size(const char *line, const char *name)
{
	size_t k = strlen(name), n;

	if (strncmp(line, name, k) || line[k] != ' ' ||
	    sscanf(line + k, " %zu crc32 ", &n) != 1 || n > (size_t)1 << 30)
		return -1;
	return (long)n;
}

/*
 * In @t (NUL-terminated, *@size bytes), set right the CRC-32 of each part
 * whose header line says where it is: the rows ("size N crc32 X", the
 * last header line), then the distributions ("hist") and the wakers
 * ("wakers") after them, each when the input has that many bytes.
 */
static char *fix_crc(char *t, size_t *size)
{
	char *out = malloc(*size * 2 + 256), *o = out, *p = t, *nl, *body;
	long rows = -1, hist = 0, n;
	size_t rest;

	if (!out)
		abort();
	/* Find the sizes, up to the size line (where the body starts). */
	for (p = t; (nl = strchr(p, '\n')); p = nl + 1) {
		*nl = '\0';
		if ((n = part_size(p, "hist")) >= 0)
			hist = n;
		n = part_size(p, "size");
		*nl = '\n';
		if (n >= 0) {
			rows = n;
			break;
		}
	}
	if (rows < 0) {
		free(out);
		return t;
	}
	body = nl + 1;
	rest = *size - (size_t)(body - t);
	/* The header again, each part's line with its CRC made right. */
	for (p = t; p < body; p = nl + 1) {
		long off = -1;

		nl = strchr(p, '\n');
		*nl = '\0';
		if ((n = part_size(p, "size")) >= 0)
			off = 0;
		else if ((n = part_size(p, "hist")) >= 0)
			off = rows;
		else if ((n = part_size(p, "wakers")) >= 0)
			off = rows + hist;
		if (off >= 0 && (size_t)(off + n) <= rest)
			o += sprintf(o, "%.*s %ld crc32 %08x\n",
				     (int)strcspn(p, " "), p, n,
				     crc32_buf(body + off, (size_t)n));
		else
			o += sprintf(o, "%s\n", p);
		*nl = '\n';
	}
	memcpy(o, body, rest);
	*size = (size_t)(o - out) + rest;
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
