#!/bin/bash
# Guest side of the USR/SYS tests (run by run-replay-tests.sh through
# tests/guest-run, booted with nohz_full=1, tsa.ko loaded).
#
#   usrsys-tests.sh TSA_KO OUTDIR
#
# On a nohz_full CPU the kernel keeps an exact book of user and system
# time itself: context tracking's vtime, stamped at the user/kernel
# boundary (enter_from_user_mode(), exit_to_user_mode()), the same
# places tsa's user_exit/user_enter hooks fire. Loops pinned to CPU 1
# are compared there, tsa's SYS share against the kernel's stime share
# (/proc/PID/task/TID/stat, whole life), with perf's kernel-mode samples
# printed beside (cpu-clock: a sample due while IRQs are off is taken
# when they come back on, so the IRQs-off exit path counts as user).
# Then the same with tsa's boundary hooks skipped: the syscall and fault
# hooks alone, which leave the kernel's entry and exit code in USR.
# Environment: TSA_USRSYS_SECS (3), TSA_USRSYS_TOL (3 percentage points:
# the least gap the boundary hooks must close on the fault loop).
set -u
ko=$1 out=$2
secs=${TSA_USRSYS_SECS:-3}
tol=${TSA_USRSYS_TOL:-3}
work=$(mktemp -d /tmp/tsa-usrsys.XXXXXX)
n=0 failed=0
declare -A gap

say() { echo "# [${SECONDS}s] $*"; }
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n - $*"; }
check() {	# check COND DESCRIPTION
	if eval "$1"; then ok "$2"; else not_ok "$2"; fi
}

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# A kernel built without CONFIG_NO_HZ_FULL (Debian's 5.10) has no
# nohz_full CPU, so no exact boundary to check against: nothing to run.
if [ ! -e /sys/devices/system/cpu/nohz_full ]; then
	echo "ok 1 - # SKIP $(uname -r) has no nohz_full (CONFIG_NO_HZ_FULL off): its SYS is calibrated (sysref)"
	echo "1..1"
	exit 0
fi

# loop MODE NAME: run replay-work MODE on CPU 1 for $secs; sets sys
# (tsa's SYS share of USR+SYS, %), kst (the kernel's stime share),
# kperf (perf's kernel-mode share), scl, ns (tsa's USR+SYS).
loop() {
	local mode=$1 pp tid st i t try
	# The loop stops by itself after $secs and sleeps: the rest of this
	# runs on an idle guest (on a busy one single-threaded TCG serves
	# CPU 0 every 100 ms only). perf starts it, so samples it all. A CI
	# run of 2026-12-01 (6.12) saw perf start no loop in 10 s and never
	# end: it is killed then and started once more, and a loop it never
	# starts leaves this loop's numbers empty (the checks fail), not the
	# boot waiting for its timeout.
	for try in 1 2; do
		perf record -q -e cpu-clock -F 1000 -o "$work/perf.data" -- \
			taskset -c 1 "$out/replay-work" "$mode" "$secs" >/dev/null 2>&1 &
		pp=$!
		p='' tid=''
		for ((i = 0; i < 100; i++)); do
			p=$(pgrep -P "$pp" | head -1)
			for t in /proc/"$p"/task/*; do
				[ -n "$p" ] && [ "${t##*/}" != "$p" ] && [ -e "$t" ] && tid=${t##*/}
			done
			[ -n "$tid" ] && break
			sleep 0.1
		done
		[ -n "$tid" ] && break
		say "$2 $mode: perf started no loop in 10 s (try $try): killed"
		kill -KILL "$pp" 2>/dev/null
		wait "$pp" 2>/dev/null
	done
	for ((i = 0; i < 100; i++)); do
		st=$(cat "/proc/$p/task/$tid/stat" 2>/dev/null)
		st=${st##*) }
		[ "${st:0:1}" = S ] && break
		sleep 0.2
	done
	cat "/proc/tsa/$tid" >"$work/tsa" 2>/dev/null
	st=$(cat "/proc/$p/task/$tid/stat" 2>/dev/null)
	kill "$p"
	wait "$pp" 2>/dev/null
	sys='' ns='' scl='' crossings=''
	read -r sys ns scl crossings <<<"$(awk '$1 == "USR" {u = $2}
		$1 == "SYS" {s = $2} $1 == "SCL" {c = $2} $1 == "MINF" || $1 == "MAJF" {f += $2}
		END {if (u + s) printf "%.2f %.0f %.0f %.0f\n", 100 * s / (u + s), u + s, c, c + f}' "$work/tsa")"
	# utime and stime are fields 14 and 15 after the ")" of comm.
	kst=$(echo "${st##*)}" | awk '{if ($12 + $13) printf "%.2f", 100 * $13 / ($12 + $13)}')
	kperf=$(perf script -i "$work/perf.data" --tid "$tid" -F ip 2>/dev/null |
		awk '{if ($1 ~ /^ffff/) k++; else u++} END {if (k + u) printf "%.1f", 100 * k / (k + u)}')
	# perf's user-mode samples are not all user time: one due while IRQs
	# are off (the exit path, up to sysret or iret) is taken at the first
	# user instruction after it. Where most of them land, and how many.
	ktop=$(perf script -i "$work/perf.data" --tid "$tid" -F ip,sym,symoff 2>/dev/null |
		awk '{n++} $1 ~ /^ffff/ {k++} $1 !~ /^ffff/ {u[$2]++}
		END {for (s in u) if (u[s] > m) {m = u[s]; t = s}
		if (m) printf "%s %.1f %.1f", t, 100 * m / n, 100 * (k + m) / n}')
	read -r ktop_at ktop_pct ktop_with <<<"$ktop"
	# Kernel time tsa charged USR, per boundary crossed (two for each
	# syscall or fault).
	miss=''
	[ -z "$sys" ] || [ -z "$kst" ] || [ "${crossings:-0}" = 0 ] ||
		miss=$(echo "($kst - $sys) * $ns / 100 / (2 * $crossings)" | bc)
	say "$2 $mode: tsa SYS ${sys:-?} % of ${ns:-?} ns on CPU, $scl syscalls, $crossings syscalls and faults; kernel stime ${kst:-?} % (vtime); perf kernel-mode samples ${kperf:-?} % (and ${ktop_pct:-?} % at one user place, ${ktop_at:-?}: ${ktop_with:-?} % with them); kernel time tsa saw as USR: ${miss:-?} ns a crossing"
}

cpus=$(awk '$1 == "edge_cpus" {print $2}' /sys/kernel/debug/tsa/stats)
# shellcheck disable=SC2016 # check evaluates it
check '[ "$cpus" = 1 ]' "tsa follows the user/kernel boundary on the nohz_full CPU (debugfs edge_cpus: expected 1, saw ${cpus:-none})"

# tsa's window lies inside the kernel's (vtime stamps before the
# user_exit tracepoint and after user_enter), by vtime's own bookkeeping,
# the tracepoint's dispatch and tsa's charge after its exit clock read at
# each crossing: about 140-450 ns a crossing under TCG, 2-3 points of the
# fault loop, 0.5-3 of the read loop (by kernel).
for mode in faults read0 getppid; do
	loop "$mode" boundary
	if [ -z "$sys" ] || [ -z "$kst" ]; then
		not_ok "$mode: tsa and the kernel both measured the loop"
		continue
	fi
	gap[$mode]=$(echo "$kst - $sys" | bc)
	check "[ \$(echo '$sys <= $kst + 1' | bc) = 1 ]" \
		"$mode: tsa's SYS share is within the kernel's (tsa $sys %, kernel $kst %, + 1 point for the tick)"
done
# The calls table still gets each call's own time: the entry and exit
# code around it are SYS, but not getppid's.
row=$(awk '$1 == "syscall" && $2 == "getppid" {
	t = 0; for (i = 7; i <= NF; i++) t += $i
	printf "%s %s %s %s", $3, $4, $7, t }' "$work/tsa")
read -r c cns csys csum <<<"$row"
check "[ -n '$row' ] && [ '${c:-0}' -gt 0 ] && [ '${csys:-0}' -gt 0 ] && [ '$csum' = '$cns' ] && [ \$(echo '${cns:-0} < ${ns:-0} * ${sys:-0} / 100' | bc) = 1 ]" \
	"getppid: its calls-table row has its time, split exactly, inside the thread's SYS (calls ${c:-?}, ns ${cns:-?}, SYS part ${csys:-?}, split sum ${csum:-?})"

# Without the boundary hooks: a user-mode entry and exit of the kernel
# are seen only from sys_enter, sys_exit and handle_mm_fault.
if ! { rmmod tsa && insmod "$ko" skip_hooks=user_enter,user_exit; } >"$work/err" 2>&1; then
	not_ok "reload tsa.ko with skip_hooks=user_enter,user_exit: $(cat "$work/err")"
else
	# Checked on faults, where the entry and exit code is a tenth of
	# the loop: with the boundary hooks what is left is tsa's own probe
	# (seen: a quarter to a sixth of the gap without them); read0's gap
	# (1-11 points, by kernel) is printed.
	for mode in faults read0; do
		g=${gap[$mode]:-}
		loop "$mode" "hooks only"
		[ "$mode" = faults ] || continue
		if [ -z "$sys" ] || [ -z "$kst" ] || [ -z "$g" ]; then
			not_ok "$mode: measured without the boundary hooks"
			continue
		fi
		check "[ \$(echo '$kst - $sys > $tol && $kst - $sys > 2 * $g' | bc) = 1 ]" \
			"$mode: the boundary hooks see most of the kernel time the others miss (gap without them $(echo "$kst - $sys" | bc) points, with them $g; expected over $tol and over twice as much)"
	done
	# The runner unloads it at the end: back to the defaults, checked.
	{ rmmod tsa && insmod "$ko"; } >"$work/err" 2>&1
	check "[ $? -eq 0 ]" "reload tsa.ko with its defaults after the loops ($(tr '\n' ' ' <"$work/err"))"
fi
rm -rf "$work"
echo "1..$n"
say "usrsys-tests: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
