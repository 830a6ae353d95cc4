// SPDX-License-Identifier: GPL-2.0
/*
 * prkeys.c - the terminal of the redraw mode.
 *
 * Canonical mode and echo go off while tsa-prstat redraws (ISIG stays:
 * ^C is still SIGINT); they come back at exit, at a fatal message
 * (die() exits), and around a stop (^Z), after which the screen is
 * drawn again.  A resize (SIGWINCH) draws the screen again too.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "prkeys.h"

static struct termios saved;
static int raw;
static volatile sig_atomic_t redraw_due;

static void set_raw(void)
{
	struct termios t = saved;

	t.c_lflag &= ~(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	tcsetattr(STDIN_FILENO, TCSANOW, &t);
}

void keys_stop(void)
{
	if (!raw)
		return;
	tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	raw = 0;
}

static void on_winch(int sig)
{
	(void)sig;
	redraw_due = 1;
}

/* ^Z: the terminal as it was, stopped; resumed: ours again, redrawn. */
static void on_tstp(int sig)
{
	int err = errno;

	(void)sig;
	tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	signal(SIGTSTP, SIG_DFL);
	raise(SIGTSTP);
	signal(SIGTSTP, on_tstp);
	set_raw();
	redraw_due = 1;
	errno = err;
}

int keys_start(void)
{
	struct sigaction sa;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved))
		return 0;
	raw = 1;
	atexit(keys_stop);
	set_raw();
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_winch;	/* no SA_RESTART: wake the poll */
	sigaction(SIGWINCH, &sa, NULL);
	sa.sa_handler = on_tstp;
	sigaction(SIGTSTP, &sa, NULL);
	return 1;
}

static long ms_until(const struct timespec *deadline)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)(deadline->tv_sec - now.tv_sec) * 1000 +
	     (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms < 0 ? 0 : ms > 86400000 ? 86400000 : (long)ms;
}

int keys_wait(const struct timespec *deadline, volatile sig_atomic_t *stop)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	unsigned char c;

	for (;;) {
		int n;

		if (*stop)
			return KEY_STOP;
		if (redraw_due) {
			redraw_due = 0;
			return KEY_REDRAW;
		}
		n = poll(&p, 1, deadline ? (int)ms_until(deadline) : -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return deadline ? KEY_NONE : KEY_STOP;
		if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
			return KEY_STOP;	/* the terminal went away */
		if (read(STDIN_FILENO, &c, 1) == 1)
			return c;
	}
}

int keys_prompt(const char *prompt, char *buf, size_t len)
{
	size_t n = 0;
	unsigned char c;

	buf[0] = '\0';
	printf("\r\033[K%s", prompt);
	fflush(stdout);
	for (;;) {
		/* A signal (^C, a resize) cancels, as Escape does. */
		if (read(STDIN_FILENO, &c, 1) != 1 || c == 27 || c == 3 ||
		    c == 7)
			return 0;
		if (c == '\r' || c == '\n')
			return 1;
		if ((c == 127 || c == 8) && n > 0) {
			buf[--n] = '\0';
			fputs("\b \b", stdout);
		} else if (c >= 0x20 && c < 0x7f && n + 1 < len) {
			buf[n++] = (char)c;
			buf[n] = '\0';
			fputc(c, stdout);
		}
		fflush(stdout);
	}
}
