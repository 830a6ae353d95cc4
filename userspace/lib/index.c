// SPDX-License-Identifier: GPL-2.0
/* The key index of lib/index.h. */
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "util.h"

/* Fibonacci hashing: the product's high bits are well mixed. */
uint64_t tsa_hash_u64(uint64_t key)
{
	return (key * 0x9E3779B97F4A7C15ull) >> 20;
}

uint64_t tsa_hash_str(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

void tsa_index_clear(struct tsa_index *x, size_t n, size_t min)
{
	size_t cap = min ? min : 16;

	while (cap < 2 * n + 2)
		cap *= 2;
	if (cap > x->cap) {
		free(x->slot);
		x->slot = xmalloc(cap * sizeof(*x->slot));
		x->cap = cap;
	}
	memset(x->slot, 0, x->cap * sizeof(*x->slot));
	x->n = 0;
}

void tsa_index_put(struct tsa_index *x, uint64_t h, size_t pos)
{
	size_t i;

	tsa_index_each(x, h, i)
		;
	x->slot[i] = (uint32_t)(pos + 1);
	x->n++;
}

int tsa_index_full(const struct tsa_index *x)
{
	return 2 * (x->n + 1) + 2 > x->cap;
}

void tsa_index_free(struct tsa_index *x)
{
	free(x->slot);
	memset(x, 0, sizeof(*x));
}
