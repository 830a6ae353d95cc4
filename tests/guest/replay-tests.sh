#!/bin/bash
# Guest side of the event-trace replay (run by run-replay-tests.sh through
# tests/guest-run, tsa.ko loaded with default parameters).
#
#   replay-tests.sh TSA_KO OUTDIR [WORKLOAD...]
#
# For each workload: ftrace records the raw events tsa reacts to with
# trace_clock=mono (tsa's clock), only for the workload's threads
# (set_event_pid, event-fork); two /proc/tsa/all snapshots are taken while
# it runs, and tsa-replay rebuilds every thread's states from the events
# alone and compares (TAP, replay-judge.sh). OUTDIR holds tsa-replay and
# replay-work.
#
# With TSA_REPLAY_EXPORT naming a block device (run-replay-tests.sh's
# second disk), the judging is left to the host: each workload's files
# (the extracted trace, the snapshots, "NAME PIDS UNDONE") go onto that
# disk as one tar after another, and a "# replay-export: BYTES TESTS"
# line says how far it is written and how many tests the guest numbered
# (its own failures); the host judges them after the boot, natively, and
# prints the plan. Without it they are judged here and this script
# prints the plan.
#
# tsa.ko is reloaded after the trace events are enabled: a tracepoint calls
# its probes in the order they were registered, so ftrace stamps each event
# first and tsa reads its clock right after, a nearly constant step. The
# other way round ftrace's stamp would come after tsa's whole probe, whose
# length varies with what it does (a sleep's classification is the longest:
# under emulation that moved ~8 us a switch between threads).
# Environment: TSA_REPLAY_SECS (0.3), TSA_REPLAY_TOL_NS (2000, for
# replay-judge.sh).
set -u
cg=
ko=$1 out=$2
shift 2
only=("$@")
export TSA_REPLAY_DEBUG=${TSA_REPLAY_DEBUG:-}
secs=${TSA_REPLAY_SECS:-0.3}
T=/sys/kernel/tracing
work=$(mktemp -d /tmp/tsa-replay.XXXXXX)
n=0 failed=0
export_dev=${TSA_REPLAY_EXPORT:-}
exported=0 seq=0

say() { echo "# [${SECONDS}s] $*"; }
# Multi-threaded TCG: whatever patches kernel text (trace events, kprobes,
# a module, cpu.max's bandwidth key) does it with the other CPUs offline
# (tests/guest/quiesce, which guest-run names).
quiesce() { "${TSA_QUIESCE:?run it through tests/guest-run}" "$@"; }
not_ok() { n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n - $*"; }

mountpoint -q $T || mount -t tracefs nodev $T 2>/dev/null
if [ ! -w $T/trace_clock ]; then
	not_ok "setup: no tracefs at $T"
	echo "1..$n"
	exit 1
fi
# trace-cmd extract leaves the events off: set everything up per workload.
events=(sched/sched_switch sched/sched_wakeup sched/sched_wakeup_new
	raw_syscalls/sys_enter raw_syscalls/sys_exit kprobes/rf kprobes/rfx
	kprobes/rsleep)
# Lock contention events came in 5.19: before, tsa has no KLK (degraded)
# and the replay sees no contended kernel lock either.
if [ -d $T/events/lock/contention_begin ]; then
	events+=(lock/contention_begin lock/contention_end)
else
	say "$(uname -r): no lock contention events; KLK is degraded in tsa and absent from the replay"
fi
trace_setup() {
	local e
	echo 0 >$T/tracing_on
	echo 0 >$T/events/enable
	echo >$T/kprobe_events || return 1
	echo nop >$T/current_tracer
	echo mono >$T/trace_clock
	echo 131072 >$T/buffer_size_kb
	echo 1 >$T/options/event-fork
	# A pid no task has, so that the list is never empty until the end:
	# the first pid written to an empty list registers the filter's
	# tracepoint probes, which patches text (static calls), and the
	# workload's session writes its own with every CPU online. Under
	# multi-threaded TCG that write left both vCPUs looping on an int3
	# in try_to_wake_up() that the patch had removed, IRQs off (the
	# replay-mt hangs; a later write only replaces the list).
	echo $(($(cat /proc/sys/kernel/pid_max) - 1)) >$T/set_event_pid
	# The fault hook's point, as ftrace kprobes: entry with the fault
	# flags (FAULT_FLAG_USER, _INSTRUCTION) and return.
	echo 'p:rf handle_mm_fault flags=%dx:x32' >$T/kprobe_events &&
		echo 'r512:rfx handle_mm_fault ret=$retval:x32' >>$T/kprobe_events || return 1
	# Whether a switch-out left its thread on the run queue, as
	# __schedule() tells PSI (sleep = !on_rq) just before the switch's
	# tracepoint: a sleep a pending signal undid shows S on 6.1.
	echo 'p:rsleep psi_task_switch sleep=%dx:u8' >>$T/kprobe_events || return 1
	for e in "${events[@]}"; do
		echo 1 >"$T/events/$e/enable" || return 1
	done
	echo >$T/trace
}

# After tsa.ko is loaded: kprobes on the functions stamp_probes=1 calls
# from its inlined accounting (syscall edges, switches, wakeups) record the
# clock value tsa read for each event (their second argument), so that the
# replay can also run on tsa's own stamps: then every difference left is
# one of bookkeeping or classification, and the stamps' distance from
# ftrace's is measured event by event.
tsa_stamps() {
	local f
	for f in stamp_switch_out stamp_switch_in stamp_wakeup stamp_sys_enter \
		stamp_sys_exit; do
		echo "p:tsa_${f#*_} tsa:tsa_$f now=%si:u64" >>$T/kprobe_events || return 1
		echo 1 >"$T/events/kprobes/tsa_${f#*_}/enable" || return 1
	done
}

# The trace events on, tsa.ko reloaded after them (its probes run after
# the trace's), kprobes on its accounting: all of it patches text.
arm() {
	trace_setup || { echo "set up the trace events"; return 1; }
	# The events' accounting is inlined: stamp_probes=1 calls a function
	# with each one's clock, for tsa_stamps(). hist=1: the
	# distributions of stays, which the referee rebuilds too.
	if ! { rmmod tsa && insmod "$ko" stamp_probes=1 hist=1; } >"$work/err" 2>&1; then
		echo "reload tsa.ko after the trace events: $(cat "$work/err")"
		return 1
	fi
	tsa_stamps 2>"$work/err" || { echo "kprobes on tsa's accounting: $(cat "$work/err")"; return 1; }
}

want() {
	local o
	[ ${#only[@]} -eq 0 ] && return 0
	for o in "${only[@]}"; do [ "$o" != "$1" ] || return 0; done
	return 1
}

# Every task's schedstat, in one fork ("/proc/P/task/T/schedstat:ON ..."):
# a fork per thread is slow under emulation.
schedstat() {
	grep -H . /proc/[0-9]*/task/[0-9]*/schedstat 2>/dev/null
}

# "TID PF_FLAGS" of every thread of session $1's processes (stat field 9;
# the comm before it may hold spaces): the judge tells kernel threads and
# io_uring workers by them, and it runs on the host, whose /proc is not
# the guest's.
task_flags() {
	local p
	for p in $(ps -o pid= -s "$1"); do
		awk '{ t = FILENAME; sub(/^\/proc\/[0-9]+\/task\//, "", t)
			sub(/\/stat$/, "", t); sub(/^.*\) /, ""); print t, $7 }' \
			/proc/"$p"/task/[0-9]*/stat 2>/dev/null
	done
}

# Switches tsa counted voluntary though the trace shows them as R: sleeps
# a pending signal undid (tsa-replay.c); 0 where tsa does not say.
undone() {
	local n
	n=$(awk '$1 == "switch_signal_running" { print $2 }' \
		/sys/kernel/debug/tsa/stats 2>/dev/null)
	echo "${n:-0}"
}

# replay NAME CMD...: run CMD in its own session under the trace.
replay() {
	local name=$1 sid pids c lost=0 t0 th1 th2 u1 u2 rc d
	shift
	want "$name" || return 0
	say "$name: $*"
	quiesce --off
	arm=$(arm 2>&1)
	rc=$?
	quiesce --on
	[ "$rc" = 0 ] || { not_ok "replay $name: $arm"; return; }
	say "$name: trace events on, tsa.ko reloaded after them, kprobes on its stamps"
	echo 1 >$T/tracing_on
	# The session's first process puts itself in set_event_pid (and in
	# $cg if set), then execs the workload: every thread of it is traced
	# from its start.
	setsid sh -c 'echo $$ >'$T'/set_event_pid && { [ -z "'"$cg"'" ] || echo $$ >"'"$cg"'/cgroup.procs"; } && exec "$@"' \
		sh "$@" >/dev/null 2>&1 &
	sid=$!
	# The observer outranks the workload: under single-threaded TCG
	# stress-ng's sleep stressor held a nice-0 shell off for its whole
	# 60 s, with or without tsa (its snapshots came after it ended).
	chrt -f -p 10 $$
	sleep 0.2
	# stress-ng forks its stressors once it has started, which under
	# emulation can outlast that wait: a CI run of 2026-12-01 traced
	# only the parent, still starting (blocked in a page fault on the 9p
	# root) at the second snapshot. Its workloads are snapped once the
	# session holds a stressor, or after 30 s.
	case $name in sng-*)
		for _ in $(seq 300); do
			[ "$(ps -o pid= -s "$sid" | wc -l)" -gt 1 ] && break
			sleep 0.1
		done ;;
	esac
	u1=$(undone)
	cat /proc/tsa/all >"$work/s1"
	cat /proc/tsa/hist >"$work/h1"
	[ -z "$cg" ] || th1=$(awk '$1 == "throttled_usec" {print $2}' "$cg/cpu.stat")
	schedstat >"$work/ss1"
	task_flags "$sid" >"$work/flags"
	sleep "$secs"
	cat /proc/tsa/all >"$work/s2"
	cat /proc/tsa/hist >"$work/h2"
	u2=$(undone)
	[ -z "$cg" ] || th2=$(awk '$1 == "throttled_usec" {print $2}' "$cg/cpu.stat")
	schedstat >"$work/ss2"
	task_flags "$sid" >>"$work/flags"
	sleep 0.05
	echo 0 >$T/tracing_on
	pids=$(ps -o pid= -s "$sid" | xargs | tr ' ' ,)
	kill -KILL -- -"$sid" 2>/dev/null
	wait "$sid" 2>/dev/null
	rc=$?
	chrt -o -p 0 $$
	if [ -z "$pids" ]; then
		# Killed above, it would say 137: it ended on its own.
		not_ok "replay $name: the workload runs through both snapshots (expected processes left in its session $sid, saw none: it ended with status $rc)"
		return
	fi
	for c in "$T"/per_cpu/cpu*/stats; do
		lost=$((lost + $(awk '/^overrun:/ {print $2}' "$c")))
	done
	if [ "$lost" != 0 ]; then
		not_ok "replay $name: the trace lost no events (expected 0 overrun, saw $lost: raise buffer_size_kb)"
		return
	fi
	t0=$(date +%s.%N)
	seq=$((seq + 1))
	d=$work/x/$(printf '%02d' "$seq")-$name
	rm -rf "$work/x" && mkdir -p "$d"
	# extract switches the events off
	(cd "$work" && quiesce trace-cmd extract -o "$d/t.dat" >/dev/null 2>&1) ||
		{ not_ok "replay $name: trace-cmd extract"; rm -rf "$work/x"; return; }
	mv "$work/s1" "$work/s2" "$work/h1" "$work/h2" "$work/ss1" "$work/ss2" \
		"$work/flags" "$d/"
	echo "$name $pids $((u2 - u1))" >"$d/meta"
	if [ -n "$export_dev" ]; then
		# One tar after the last (the guest's files live in its
		# memory: each goes as soon as it is made).
		if ! tar -C "$work/x" -cf "$work/x.tar" "${d##*/}" 2>"$work/err" ||
			! dd if="$work/x.tar" of="$export_dev" bs=1M seek="$exported" \
				oflag=seek_bytes conv=notrunc,fsync status=none 2>"$work/err"; then
			not_ok "replay $name: its files written to $export_dev ($(cat "$work/err"))"
			rm -rf "$work/x" "$work/x.tar"
			return
		fi
		exported=$((exported + $(stat -c %s "$work/x.tar")))
		say "$name: extract and export $(echo "$(date +%s.%N) - $t0" | bc) s; judged on the host"
		echo "# replay-export: $exported $n"
	else
		bash "$(dirname "$0")/replay-judge.sh" "$out/tsa-replay" $((n + 1)) "$d" | tee "$work/tap"
		n=$((n + $(grep -cE '^(not )?ok [0-9]+' "$work/tap")))
		failed=$((failed + $(grep -cE '^not ok [0-9]+' "$work/tap")))
		say "$name: extract and judging $(echo "$(date +%s.%N) - $t0" | bc) s, here"
	fi
	rm -rf "$work/x" "$work/x.tar"
	# Kprobe hits and misses (a kprobe inside another's handler).
	awk '$1 ~ /^tsa_/ {printf "%s %s hits %s missed;", $1, $2, $3}' "$T/kprobe_profile" |
		sed "s/^/# $name: kprobes: /"
	echo
	# The TSA Method's throttling example: the cgroup's own book.
	[ -z "$cg" ] || say "$name: $cg throttled_usec grew $((th2 - th1)) us between the snapshots (the spinner's LAT is printed with its replay)"
}

rw=$out/replay-work
replay lockhand "$rw" lockhand
replay spin2 "$rw" spin2
replay pipe "$rw" pipe
replay sysloop "$rw" sysloop
replay faults "$rw" faults
replay sleeper "$rw" sleeper
# A spinner in a cgroup v2 held to 20 % of a CPU by cpu.max.
cg=
if want cg20; then
	cg=/sys/fs/cgroup/tsa-replay
	mkdir -p "$cg" 2>/dev/null
	if echo +cpu >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null &&
		quiesce --off && echo "20000 100000" >"$cg/cpu.max" && quiesce --on; then
		secs=1 replay cg20 "$rw" spin1
	else
		quiesce --on
		not_ok "replay cg20: a cgroup v2 with cpu.max at $cg"
	fi
	quiesce --off
	rmdir "$cg" 2>/dev/null
	quiesce --on
	cg=
fi
# Workloads nobody here wrote.
sng=(stress-ng --quiet --timeout 60)
replay sng-futex "${sng[@]}" --futex 2
replay sng-switch "${sng[@]}" --switch 2
replay sng-pipe "${sng[@]}" --pipe 2
replay sng-cpu "${sng[@]}" --cpu 4
replay sng-sleep "${sng[@]}" --sleep 2 --sleep-max 32
replay sng-sem "${sng[@]}" --sem-sysv 2
replay sng-mq "${sng[@]}" --mq 2
replay sng-poll "${sng[@]}" --poll 2
replay sng-sigq "${sng[@]}" --sigq 2
replay sng-epoll "${sng[@]}" --epoll 2
# Direct and synchronous writes and reads on /dev/vda (ext4, made on the
# host by run-replay-tests.sh): block I/O sleeps woken from interrupts.
if want sng-hdd; then
	hdd=/mnt/tsa-hdd
	mkdir -p "$hdd"
	quiesce --off
	modprobe ext4 2>"$work/err"
	quiesce --on
	if mount -t ext4 /dev/vda "$hdd" 2>>"$work/err"; then
		replay sng-hdd "${sng[@]}" --hdd 2 --hdd-opts direct,dsync \
			--hdd-bytes 8M --temp-path "$hdd"
		umount "$hdd"
	else
		not_ok "replay sng-hdd: mount /dev/vda (ext4) on $hdd: $(cat "$work/err")"
	fi
fi

# Before guest-run unloads tsa: no kprobe may stay on its functions.
quiesce --off
echo 0 >$T/events/enable
echo >$T/set_event_pid
echo >$T/kprobe_events
quiesce --on
echo >$T/trace
rm -rf "$work"
if [ -n "$export_dev" ]; then
	echo "# replay-export: $exported $n"
	say "replay-tests: $failed failed here; $seq workloads for the host to judge"
else
	echo "1..$n"
	say "replay-tests: $((n - failed)) passed, $failed failed"
fi
[ "$failed" -eq 0 ]
