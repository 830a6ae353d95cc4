#!/bin/bash
# Evidence, not a test: the crash the churn test once found happens with
# no tsa at all. Under multi-threaded TCG (QEMU 7.2) a vCPU can go on
# running kernel text that another vCPU has just patched (ftrace, static
# calls, kprobes), so it meets an int3 that is no longer there: an endless
# int3 loop with IRQs off (soft lockup) or a kprobe "single-step" to
# address 0 from handle_mm_fault (the oops). Here the kernel's own tracing
# toggles the same hooks tsa uses while tests/guest/churn.c runs.
#
#   tests/guest/tcg-patching-repro.sh [--tcg-single] [ROUNDS]
#
# Multi-threaded TCG (the default here, unlike every other guest run) crashed
# or hung within 1-10 rounds in each of our runs; with --tcg-single, 40
# rounds passed. That is why tests/guest-run defaults to single-threaded TCG.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
single=--tcg-multi
[ "${1:-}" = --tcg-single ] && { single=--tcg-single; shift; }
rounds=${1:-40}
mkdir -p tests/out
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/churn tests/guest/churn.c
# shellcheck disable=SC2016 # the script is for the guest shell
exec tests/guest-run $single --timeout 240 -- bash -c '
T=/sys/kernel/tracing
mount -t tracefs none $T 2>/dev/null
echo "r:tsarepro handle_mm_fault" >$T/kprobe_events || exit 1
ev="sched/sched_switch sched/sched_wakeup sched/sched_wakeup_new
    raw_syscalls/sys_enter raw_syscalls/sys_exit kprobes/tsarepro"
"$1" 100000 >/dev/null 2>&1 &
churn=$!
(while :; do /bin/true; done) &
truer=$!
for r in $(seq 1 "$2"); do
	for e in $ev; do echo 1 >$T/events/$e/enable; done
	sleep 0.3
	for e in $ev; do echo 0 >$T/events/$e/enable; done
	echo "round $r ok"
done
kill $churn $truer
echo >$T/kprobe_events
' repro "$PWD/tests/out/churn" "$rounds"
