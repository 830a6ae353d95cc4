#!/bin/bash
# Guest side of tests/schedstat-trace.sh (run through tests/guest-run,
# tsa.ko loaded): why schedstat and tsa differ on stress-ng's sleep and
# poll workers. A window of the workload is traced with the run queue's
# own view (sched_stat_wait and sched_stat_runtime, schedstats on) beside
# the events tsa hooks, on tsa's clock (mono), between two snapshots of
# /proc/tsa/all and of each worker thread's /proc/<tid>/schedstat; the
# files go to the export disk as one tar, for the host to judge.
#
#   schedstat-trace.sh EXPORT_DEV SECS STRESS-NG-ARGS...
set -u
dev=$1 secs=$2
shift 2
T=/sys/kernel/tracing
w=$(mktemp -d /tmp/tsa-sst.XXXXXX)
mountpoint -q $T || mount -t tracefs nodev $T
sysctl -qw kernel.sched_schedstats=1
# The snapshots run at a real-time priority: among 34 runnable threads on
# two CPUs a plain one takes seconds to read them (the first try's took
# 6 s), and the two books would be read seconds apart. stress-ng itself
# runs as an ordinary task.
chrt -f -p 50 $$ >/dev/null || exit 1

# snap NAME: tsa's snapshot, then each worker's schedstat, between two
# trace marks (the host takes the window from them).
snap() {
	echo "tsa-snap-begin $1" >$T/trace_marker
	cat /proc/tsa/all >"$w/$1.all"
	# Builtins only: a fork under emulation and this load takes long.
	for t in /proc/[0-9]*/task/[0-9]*; do
		{ read -r c <"$t/comm"; } 2>/dev/null || continue
		case $c in stress-ng-*) ;; *) continue ;; esac
		{ read -r s <"$t/schedstat"; } 2>/dev/null || continue
		echo "${t##*/} $s $c"
	done >"$w/$1.ss"
	echo "tsa-snap-end $1" >$T/trace_marker
}

trace-cmd start -C mono -b 32768 -e sched:sched_switch -e sched:sched_wakeup \
	-e sched:sched_wakeup_new -e sched:sched_waking -e sched:sched_migrate_task \
	-e sched:sched_stat_wait -e sched:sched_stat_runtime >/dev/null || exit 1
chrt -o 0 stress-ng "$@" --timeout $((secs + 60)) >"$w/stress.out" 2>&1 &
sp=$!
sleep 3
snap a
sleep "$secs"
snap b
trace-cmd stop
kill -INT "$sp"
wait "$sp"
trace-cmd extract -o "$w/t.dat" >/dev/null 2>&1 || exit 1
trace-cmd reset >/dev/null 2>&1
uname -r >"$w/kernel"
tar -C "$w" -cf "$w.tar" a.all a.ss b.all b.ss t.dat stress.out kernel || exit 1
dd if="$w.tar" of="$dev" bs=1M conv=fsync status=none || exit 1
echo "# schedstat-trace-export: $(stat -c %s "$w.tar")"
