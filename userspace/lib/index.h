/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An index from keys to positions in an array its owner keeps: open
 * addressing, linear probing, a slot holding a position + 1 (0: empty).
 * The owner hashes its keys (tsa_hash_u64(), tsa_hash_str()) and tells
 * a match by looking at the entry a slot names:
 *
 *	tsa_index_each(&x, tsa_hash_u64(tid), i)
 *		if (rows[tsa_index_at(&x, i)].tid == tid)
 *			return &rows[tsa_index_at(&x, i)];
 *
 * The loop ends at the first empty slot, where tsa_index_put() would put
 * a new entry of that hash. Every table of the model, views and stores
 * that finds a row by key is one of these.
 */
#ifndef TSA_LIB_INDEX_H
#define TSA_LIB_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct tsa_index {
	uint32_t *slot;		/* an entry's position + 1; 0: empty */
	size_t cap;		/* 0 (none yet), or a power of two */
	size_t n;		/* entries put */
};

uint64_t tsa_hash_u64(uint64_t key);
uint64_t tsa_hash_str(const char *s);

/*
 * Empty, with room for @n entries (the slots at least twice as many, and
 * at least @min, a power of two); its memory is kept for the next time.
 */
void tsa_index_clear(struct tsa_index *x, size_t n, size_t min);
/* Position @pos, of hash @h, at the first empty slot from @h's. */
void tsa_index_put(struct tsa_index *x, uint64_t h, size_t pos);
/* Would one more entry leave fewer than twice as many slots? */
int tsa_index_full(const struct tsa_index *x);
void tsa_index_free(struct tsa_index *x);

#define tsa_index_each(x, h, i)						\
	for ((i) = (x)->cap ? (size_t)(h) & ((x)->cap - 1) : 0;		\
	     (x)->cap && (x)->slot[i]; (i) = ((i) + 1) & ((x)->cap - 1))

/* The position slot @i names (a slot tsa_index_each() stopped at). */
static inline size_t tsa_index_at(const struct tsa_index *x, size_t i)
{
	return x->slot[i] - 1;
}

#endif
