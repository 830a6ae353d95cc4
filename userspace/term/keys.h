/* SPDX-License-Identifier: GPL-2.0 */
/*
 * term/keys.h - the terminal of the redraw mode: keys read one at a time
 * without echo while reports are shown, a line read at the bottom for a
 * prompt, and the terminal as it was on any exit (^Z included).
 */
#ifndef TERM_KEYS_H
#define TERM_KEYS_H

#include <signal.h>
#include <stddef.h>
#include <time.h>

#define KEY_NONE	0	/* the deadline came */
#define KEY_STOP	(-1)	/* SIGINT, SIGTERM */
#define KEY_REDRAW	(-2)	/* the window was resized, or we were resumed */

/* Keys from standard input if it is a terminal: 1, else 0. */
int keys_start(void);

/* The terminal as keys_start() found it (also run at exit). */
void keys_stop(void);

/*
 * A key, or KEY_NONE when @deadline (CLOCK_MONOTONIC) passes, KEY_STOP
 * when *@stop is set, KEY_REDRAW after a resize or a resume.  With
 * @deadline NULL, waits for a key however long it takes.
 */
int keys_wait(const struct timespec *deadline, volatile sig_atomic_t *stop);

/*
 * Read a line on the screen's last row after @prompt, echoed, into
 * @buf: 1 on Enter, 0 on Escape (or ^C, ^G).
 */
int keys_prompt(const char *prompt, char *buf, size_t len);

#endif /* TERM_KEYS_H */
