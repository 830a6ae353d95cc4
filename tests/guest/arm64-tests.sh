#!/bin/bash
# Guest side of the arm64 suite (run by run-arm64-tests.sh through
# tests/guest-run --arch arm64, tsa.ko loaded, the initramfs as root:
# static busybox and bash, the cross-built programs in BIN). The known
# answers the x86-64 suites check, each against the kernel's own books:
#   engine  every tsa-gtest test (schedstat, the calls table, kthreads)
#   waits   tsa-wtest lck klk idl sig iow (LCK, KLK, IDL and IOW against
#           delay accounting's blkio; SLP is the engine's sleeper)
#   wakers  tsa-waketest's known answers
#   prstat  tsa-ptest prstat: tsa-prstat -mL/-A/--json against /proc/tsa
#
#   arm64-tests.sh BIN
# /dev/vda: an ext4 image holding the 32 MiB data file (IOW).
set -u
bin=$1
n=0 failed=0
say() { echo "# $*"; }

run() {	# PROG ARGS...: a TAP program, continuing the numbering
	local prog=$1 out rc
	shift
	out=$(mktemp)
	"$prog" --first $((n + 1)) "$@" | tee "$out"
	rc=${PIPESTATUS[0]}
	n=$((n + $(grep -cE '^(not )?ok [0-9]+' "$out")))
	failed=$((failed + $(grep -cE '^not ok [0-9]+' "$out")))
	if [ "$rc" -ne 0 ] && ! grep -qE '^not ok' "$out"; then
		n=$((n + 1)) failed=$((failed + 1))
		echo "not ok $n - ${prog##*/} $* exited with $rc"
	fi
	rm -f "$out"
}

say "$(uname -m) $(uname -r); $(grep degraded /sys/kernel/debug/tsa/stats)"
# The initramfs root has no user database: tsa-prstat names root as root.
mkdir -p /etc
[ -e /etc/passwd ] || echo 'root:x:0:0:root:/root:/bin/sh' >/etc/passwd
[ -e /etc/group ] || echo 'root:x:0:' >/etc/group
sysctl -w kernel.task_delayacct=1 >/dev/null 2>&1
dir=/mnt/tsa-wait
mkdir -p "$dir"
waits=(lck klk idl sig)
if mount -t ext4 /dev/vda "$dir"; then
	waits+=(iow)
	export TSA_WAIT_DIR=$dir
else
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n - setup: mount /dev/vda (ext4) on $dir"
fi
export TSA_PRSTAT=$bin/tsa-prstat

say "engine: tsa-gtest"
run "$bin/tsa-gtest"
say "waits: tsa-wtest ${waits[*]}"
TSA_EXPECT_DEGRADED=TRP run "$bin/tsa-wtest" "${waits[@]}"
say "wakers: tsa-waketest"
run "$bin/tsa-waketest" wk-cond wk-mutex wk-pipe wk-sleep wk-stop wk-tcp wk-sum
say "prstat: tsa-ptest prstat"
run "$bin/tsa-ptest" prstat "$bin/tsa-prstat"
echo "1..$n"
echo "arm64: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
