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
#   exporter tsa-exporter (dynamic: BIN/lib holds its libraries) scraped
#           twice around a thread blocked in a pipe read, /proc/tsa read
#           just before and after each scrape: the IDL growth it reports
#           lies between the least and the most /proc/tsa allows; its USR
#           and SYS do not grow
#
#   arm64-tests.sh BIN [kernel]
# kernel: only what depends on the kernel (engine, waits); the wakers,
# tsa-prstat and tsa-exporter are the same code on any (the second
# kernel of matrix-arm64, as the x86 matrix runs prstat's views once).
# /dev/vda: an ext4 image holding the 32 MiB data file (IOW).
set -u
bin=$1
only_kernel=${2:-}
n=0 failed=0
say() { echo "# $*"; }

t() {	# OK DESCRIPTION: one TAP line of this script's own
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}

# The IDL, USR and SYS seconds of comm "tsa-xidle" in a scrape (FILE).
scraped() {
	awk '/^tsa_threadname_state_seconds_total\{comm="tsa-xidle",state="(IDL|USR|SYS)"\}/ {
		s = $1; sub(/.*state="/, "", s); sub(/".*/, "", s); v[s] = $2 }
		END { printf "%.9f %.9f %.9f\n", v["IDL"], v["USR"], v["SYS"] }' "$1"
}
# The IDL seconds of thread TID in /proc/tsa/TID.
proc_idl() { awk '$1 == "IDL" { printf "%.9f\n", $2 / 1e9 }' "/proc/tsa/$1"; }

exporter_test() {
	local port=9837 ep xp a b a0 a1 b0 b1 au as bu bs
	mkfifo /tmp/tsa-xfifo
	printf '#!/bin/bash\nread -r -t 60 x <>/tmp/tsa-xfifo\n' >/tmp/tsa-xidle
	chmod 755 /tmp/tsa-xidle
	/tmp/tsa-xidle & xp=$!
	"$bin/lib/ld-linux-aarch64.so.1" --library-path "$bin/lib" "$bin/tsa-exporter" \
		--listen "127.0.0.1:$port" --group comm 2>/tmp/exporter.err & ep=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		wget -qO /tmp/scrape.0 "http://127.0.0.1:$port/metrics" 2>/dev/null && break
		sleep 0.5
	done
	sleep 0.5
	a0=$(proc_idl "$xp")
	wget -qO /tmp/scrape.1 "http://127.0.0.1:$port/metrics"
	a1=$(proc_idl "$xp")
	sleep 1
	b0=$(proc_idl "$xp")
	wget -qO /tmp/scrape.2 "http://127.0.0.1:$port/metrics"
	b1=$(proc_idl "$xp")
	# Here-strings: the initramfs has no /dev/fd for process substitution.
	read -r a au as <<<"$(scraped /tmp/scrape.1)"
	read -r b bu bs <<<"$(scraped /tmp/scrape.2)"
	# Each scrape read the thread between the two reads around it, and
	# IDL only grows while it sleeps: the growth between the scrapes is
	# at least b0 - a1 and at most b1 - a0 (1 us for the decimals).
	t "$(awk -v a="$a" -v b="$b" -v lo="$(awk -v x="$a1" -v y="$b0" 'BEGIN { print y - x }')" \
		-v hi="$(awk -v x="$a0" -v y="$b1" 'BEGIN { print y - x }')" \
		'BEGIN { d = b - a; exit !(lo >= 0.9 && d >= lo - 1e-6 && d <= hi + 1e-6) }'; echo $?)" \
		"exporter: tsa-xidle's IDL grew between two scrapes 1 s apart by what /proc/tsa allows (expected $(awk -v a0="$a0" -v a1="$a1" -v b0="$b0" -v b1="$b1" 'BEGIN { printf "%.6f..%.6f s", b0 - a1, b1 - a0 }'), saw $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.6f", b - a }') s)"
	t "$(awk -v a="$au" -v b="$bu" -v c="$as" -v d="$bs" 'BEGIN { exit !(b - a + d - c < 0.01) }'; echo $?)" \
		"exporter: its USR and SYS did not grow while it slept (expected < 0.01 s, saw USR $au -> $bu, SYS $as -> $bs)"
	kill "$ep" "$xp" 2>/dev/null
	wait "$ep"
	t $? "exporter: exits 0 on SIGTERM"
	[ -s /tmp/exporter.err ] && sed 's/^/# exporter: /' /tmp/exporter.err
}

run() {	# PROG ARGS...: a TAP program, continuing the numbering
	local prog=$1 out rc ran
	shift
	out=$(mktemp)
	"$prog" --first $((n + 1)) "$@" | tee "$out"
	rc=${PIPESTATUS[0]}
	ran=$(grep -cE '^(not )?ok [0-9]+' "$out")
	n=$((n + ran))
	failed=$((failed + $(grep -cE '^not ok [0-9]+' "$out")))
	if [ "$rc" -ne 0 ] && ! grep -qE '^not ok' "$out"; then
		n=$((n + 1)) failed=$((failed + 1))
		echo "not ok $n - ${prog##*/} $* exited with $rc"
	elif [ "$ran" -eq 0 ]; then
		n=$((n + 1)) failed=$((failed + 1))
		echo "not ok $n - ${prog##*/} $* ran no test"
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
if [ -z "$only_kernel" ]; then
	say "wakers: tsa-waketest"
	run "$bin/tsa-waketest" wk-cond wk-mutex wk-pipe wk-sleep wk-stop wk-tcp wk-sum
	say "prstat: tsa-ptest prstat"
	run "$bin/tsa-ptest" prstat "$bin/tsa-prstat"
	say "exporter: tsa-exporter"
	exporter_test
fi
echo "1..$n"
echo "arm64: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
