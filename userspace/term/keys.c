// SPDX-License-Identifier: GPL-2.0
/*
 * term/keys.c - the terminal of the redraw mode.
 *
 * Canonical mode and echo go off while tsa-prstat redraws (ISIG stays:
 * ^C is still SIGINT); they come back at exit, at a fatal message
 * (die() exits), at SIGQUIT and SIGHUP before their own action, and
 * around a stop (^Z), after which the screen is drawn again.  A resize
 * (SIGWINCH) draws the screen again too.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "keys.h"

static struct termios saved;
static volatile sig_atomic_t raw, redraw_due;

static void set_raw(void)
{
	struct termios t = saved;

	t.c_lflag &= ~(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	tcsetattr(STDIN_FILENO, TCSANOW, &t);
}

/*
 * The terminal as it was, if it is still ours.  A job's shell takes the
 * terminal back as soon as the job's process it waits for stops (here
 * the subshell of "(tsa-prstat; ...)" can stop before our handler
 * runs): a write of the settings from the background would then stop
 * us with SIGTTOU, and our own stop would follow once fg continued us,
 * leaving the job stopped behind the shell's back.  SIGTTOU is blocked
 * around it, so a write that races the shell goes through instead.
 */
static void restore_terminal(void)
{
	sigset_t ttou, old;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	if (tcgetpgrp(STDIN_FILENO) == getpgrp())
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void on_winch(int sig)
{
	(void)sig;
	redraw_due = 1;
}

static void on_tstp(int sig);

static void handle(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = fn;
	/* A write to a slow terminal goes on; poll() wakes all the same. */
	sa.sa_flags = SA_RESTART;
	sigaction(sig, &sa, NULL);
}

/* The signal's own action, with the signal let through: it acts now. */
static void default_action(int sig)
{
	sigset_t set;

	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

/* ^Z: the terminal as it was, stopped; resumed: ours again, redrawn. */
static void on_tstp(int sig)
{
	int err = errno;

	if (raw)
		restore_terminal();
	default_action(sig);	/* stopped here until SIGCONT */
	if (raw) {
		handle(SIGTSTP, on_tstp);
		/* After bg, keys_wait() takes it once we are in front. */
		if (tcgetpgrp(STDIN_FILENO) == getpgrp())
			set_raw();
		redraw_due = 1;
	}
	errno = err;
}

/* SIGQUIT, SIGHUP: the terminal as it was, then their own action. */
static void on_fatal(int sig)
{
	if (raw)
		restore_terminal();
	default_action(sig);
}

void keys_stop(void)
{
	if (!raw)
		return;
	raw = 0;
	signal(SIGTSTP, SIG_DFL);
	signal(SIGWINCH, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	restore_terminal();
}

int keys_start(void)
{
	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved))
		return 0;
	raw = 1;
	atexit(keys_stop);
	handle(SIGWINCH, on_winch);
	handle(SIGTSTP, on_tstp);
	handle(SIGQUIT, on_fatal);
	handle(SIGHUP, on_fatal);
	set_raw();
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
		struct termios t;
		int n;

		if (*stop)
			return KEY_STOP;
		/*
		 * Ours again if another set it back while we ran in front
		 * (a shell's fg may restore a job's settings after its
		 * SIGCONT); never from the background (that would stop us).
		 */
		if (raw && tcgetpgrp(STDIN_FILENO) == getpgrp() &&
		    !tcgetattr(STDIN_FILENO, &t) && (t.c_lflag & (ICANON | ECHO)))
			set_raw();
		if (redraw_due) {
			redraw_due = 0;
			return KEY_REDRAW;
		}
		/*
		 * Without a deadline, wake now and then all the same: a
		 * resize signalled between the check above and the poll
		 * would otherwise wait for a key.
		 */
		n = poll(&p, 1, deadline ? (int)ms_until(deadline) : 500);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 && !deadline)
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
