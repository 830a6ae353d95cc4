/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store/recfile.h - the flight recorder's files (format "tsa-record 1",
 * documented in recfile.c and tsa-prstat(8)): the constants, the line
 * keys and index, the tsa-all writer, the block frame's numbers and
 * the hour files, shared by the writer (record.c) and the reader
 * (replay.c) only.
 */
#ifndef STORE_RECFILE_H
#define STORE_RECFILE_H

#include <stddef.h>
#include <stdint.h>

#include "index.h"
#include <stdio.h>
#include <time.h>

#include "all.h"

/*
 * The first line of the files written: version 2 adds the "h" lines of
 * /proc/tsa/hist's LAT rows; version 1 files (no "h" lines) are read
 * as they are (REC_HEADER_V1).
 */
#define REC_HEADER	"tsa-record 2\n"
#define REC_HEADER_V1	"tsa-record 1\n"
#define REC_MAGIC	"TSAB"
#define REC_HDR_LEN	20
#define REC_KEY_SECS	600		/* at most between key blocks */
#define REC_ZLEVEL	3
#define REC_MAX_RAW	(1u << 30)	/* a block's text: larger is not ours */
#define TOTALS_KEY	(UINT64_C(1) << 63)

/* A line's key: its tid, or TOTALS_KEY | pid for exited threads. */
uint64_t row_key(const struct tsa_row *r);
/*
 * @p as a read at @now would show it had only its current stay gone on;
 * 0 if it cannot be (a clock before the line's).
 */
int rec_extend(struct tsa_row *e, const struct tsa_row *p, uint64_t now);

/* Index the @n lines of @arr by @key (snap_key: tsa_row; u64_key). */
void keyidx_build(struct tsa_index *k, size_t n,
		  uint64_t (*key)(const void *, size_t), const void *arr);
/* The index of @want's line, or -1. */
long keyidx_find(const struct tsa_index *k, uint64_t want,
		 uint64_t (*key)(const void *, size_t), const void *arr);
uint64_t snap_key(const void *arr, size_t i);
uint64_t u64_key(const void *arr, size_t i);

/* The block frame's little-endian u32s. */
void put32(unsigned char *p, uint32_t v);
uint32_t get32(const unsigned char *p);

/* "tsa-YYYYMMDD-HH.rec" of @hour (UTC). */
void hour_name(char *out, size_t len, time_t hour);
/* The hour a file name stands for, or -1 if it is not a recording's. */
time_t name_hour(const char *name);
/* The recording's files in @dir (names only), in time order. */
char **list_files(const char *dir, size_t *n);
void free_files(char **v, size_t n);

#endif /* STORE_RECFILE_H */
