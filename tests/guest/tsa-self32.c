// SPDX-License-Identifier: GPL-2.0
/*
 * tsa-self32: a 32-bit program (i386, no C library: the host has no
 * 32-bit one) reads itself with TSA_IOC_SELF, through the kernel's compat
 * ioctl path. Exit status: 0 the struct is whole and its own (size, tid,
 * states summing to elapsed); 1 the open or the ioctl failed; 2 a wrong
 * size or tid; 3 the sum. tsa-selftest's self-compat runs it.
 *
 *   clang -m32 -O2 -ffreestanding -nostdlib -static -fno-stack-protector \
 *	-I/usr/include/x86_64-linux-gnu -o tsa-self32 tsa-self32.c
 */
#include "../../module/uapi/tsa.h"

/* i386 system calls: open 5, ioctl 54, gettid 224, exit 1. */
static long sys3(long n, long a, long b, long c)
{
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "a"(n), "b"(a), "c"(b), "d"(c)
			 : "memory");
	return r;
}

static struct tsa_self s;

void _start(void)
{
	long fd = sys3(5, (long)"/proc/tsa/thread-self", 0, 0);
	long r = fd < 0 ? fd : sys3(54, fd, TSA_IOC_SELF, (long)&s);
	unsigned long long sum = 0;
	unsigned int i;
	int code = 0;

	if (r)
		code = 1;
	else if (s.size != sizeof(s) || s.tid != sys3(224, 0, 0, 0))
		code = 2;
	for (i = 0; !code && i < s.nr_states && i < TSA_SELF_STATES; i++)
		sum += s.ns[i];
	if (!code && (!s.nr_states || sum != s.elapsed))
		code = 3;
	sys3(1, code, 0, 0);
	for (;;)
		;
}
