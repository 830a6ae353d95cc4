#!/bin/bash
# PREEMPT_RT suite: tsa.ko built for Debian's RT kernel and the engine
# tests (under RT's sleeping spinlocks and threaded interrupts) on that
# kernel, the wakers' known answers, the fork burst again with a short
# late queue, then the load/unload churn on it (single-threaded TCG: see
# tests/guest-run --tcg-single), and a softirq preempted inside its
# thread.
set -euo pipefail
cd "$(dirname "$0")/../.."
TSA_PROG=rt
# shellcheck source=tests/lib.sh
. tests/lib.sh
tsa_pin_kernels
kver=$TSA_RT_KERNEL
[ -n "$kver" ] || tsa_die "no Debian $TSA_KERNEL_SERIES PREEMPT_RT kernel installed (linux-image-rt-amd64), or set TSA_RT_KERNEL"
src=tests/out/rt/src
rm -rf "$src" && mkdir -p "$src"
cp -a Kbuild module "$src/"
make -s -C "/lib/modules/$kver/build" M="$PWD/$src" TSA_WERROR=y modules \
	>tests/out/rt/build.log 2>&1 || { cat tests/out/rt/build.log; exit 1; }
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-gtest \
	tests/guest/tsa-gtest.c tests/guest/tsa-read.c
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/churn tests/guest/churn.c
tests/guest-run --kernel "$kver" --module "$src/tsa.ko" --modparams interrupts=1 \
	-- tests/out/tsa-gtest
# Who woke it, under RT's threaded interrupts: the wakers' known answers
# (a network packet's softirq runs in a thread's context there, and is
# still named softirq:NET_RX).
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-waketest \
	tests/guest/tsa-waketest.c tests/guest/tsa-read.c
tests/guest-run --kernel "$kver" --module "$src/tsa.ko" --modparams interrupts=1 \
	-- tests/out/tsa-waketest
# A thread reads itself under RT (the mapped slot written from RT's
# preemptible hooks, the ioctl): tsa-selftest's ways and pitfalls.
make -s -C userspace WERROR=y libtsa.a >/dev/null
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-selftest \
	tests/guest/tsa-selftest.c tests/guest/tsa-read.c userspace/libtsa.a
tests/guest-run --kernel "$kver" --module "$src/tsa.ko" --modparams interrupts=1 \
	-- tests/out/tsa-selftest self-ioctl self-agree self-sleep self-spin self-pool \
	self-stress self-slot self-slot-refuse self-slot-fork self-slot-end \
	self-slot-exec self-slot-mono
# The burst again with a late queue shorter than its pool misses: the
# rest must be found by the work item's walk over all threads.
tests/guest-run --kernel "$kver" --module "$src/tsa.ko" --modparams "interrupts=1 late_queue=100" \
	-- tests/out/tsa-gtest burst
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-partest tests/guest/tsa-partest.c
tests/guest-run --kernel "$kver" --module "$src/tsa.ko" \
	-- bash tests/guest/reuse-test.sh "$PWD/tests/out/tsa-partest"
tests/guest-run --tcg-single --kernel "$kver" -- \
	bash tests/guest/churn-test.sh "$PWD/$src/tsa.ko" "$PWD/tests/out/churn" 3
# A softirq preempted in its thread (RT runs it in task context): its
# time off CPU is not TRP nor the trap's (tests/guest/race/tsa_race.ko).
race=tests/out/rt/race
rm -rf "$race" && mkdir -p "$race"
cp tests/guest/race/Kbuild tests/guest/race/tsa_race.c "$race/"
make -s -C "/lib/modules/$kver/build" M="$PWD/$race" modules >"$race/build.log" 2>&1 ||
	{ cat "$race/build.log"; exit 1; }
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-race tests/guest/tsa-race.c \
	tests/guest/tsa-read.c
tests/guest-run --kernel "$kver" --module "$src/tsa.ko" --module "$race/tsa_race.ko" \
	--modparams interrupts=1 -- tests/out/tsa-race bhspin 100
