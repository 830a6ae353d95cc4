#!/bin/bash
# Why tsa and /proc/<tid>/schedstat disagree on stress-ng's sleep and poll
# workers (issue 42's accuracy question; docs/kernels.md gives what it
# found). Boots one guest (2 vCPUs, 6.1 by default), runs stress-ng with
# a trace of the scheduler's events and of the run queue's own books
# (sched_stat_wait, sched_stat_runtime) between two snapshots of tsa and
# schedstat, and prints, per worker thread:
#
#   tsa      LAT and on-CPU (USR+SYS+TRP) over the window (/proc/tsa/all)
#   sstat    run_delay and run time over the same window (schedstat)
#   ev       the same from the events' own times (wakeup or preemption to
#            switch-in; switch-in to switch-out): what tsa charges
#   rq       the same from the run queue's books: the sum of
#            sched_stat_wait and of sched_stat_runtime (what schedstat
#            adds up, on the run queue's clock)
#
# and, at each switch to a woken thread, how far the run queue's clock
# that switch was booked at lay behind it (its sched_stat_wait against
# its wait by the events), by how the thread switched out left.
#
#   tests/schedstat-trace.sh [--kernel VER] [--secs N] [--again] [-- STRESS-NG-ARGS...]
#
# --kernel: an installed generic kernel (default: tests/lib.sh's, 6.1).
# --again: judge the last run's files again, without a guest.
#
# Default workload: --sleep 1 --sleep-max 32 --poll 1. Read-only on the
# host; its files stay in tests/out/schedstat-trace/.
set -euo pipefail
TSA_PROG=schedstat-trace
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$TSA_REPO_DIR"
secs=3 again=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) export TSA_KERNEL=$2; shift 2 ;;
	--secs) secs=$2; shift 2 ;;
	--again) again=1; shift ;;
	--) shift; break ;;
	*) tsa_die "unknown argument $1" ;;
	esac
done
[ $# -gt 0 ] || set -- --sleep 1 --sleep-max 32 --poll 1
tsa_pin_kernels
command -v trace-cmd >/dev/null || tsa_die "trace-cmd is missing (tests/deps.sh installs it)"
command -v stress-ng >/dev/null || tsa_die "stress-ng is missing (tests/deps.sh installs it)"
out=tests/out/schedstat-trace
if [ -z "$again" ]; then
	rm -rf "$out" && mkdir -p "$out/x"
	make -s module WERROR=y >&2
	truncate -s 1G "$out/export.img"
	tests/guest-run --kernel "$TSA_KERNEL" --module tsa.ko --smp 2 --timeout 900 \
		--disk "$out/export.img" -- \
		bash tests/guest/schedstat-trace.sh /dev/vda "$secs" "$@" | tee "$out/guest.out"
	bytes=$(awk '/^# schedstat-trace-export: / { print $3 }' "$out/guest.out")
	[ -n "$bytes" ] || tsa_die "the guest wrote no export"
	head -c "$bytes" "$out/export.img" | tar -C "$out/x" -xf -
	rm -f "$out/export.img"
	trace-cmd report -R -t -i "$out/x/t.dat" >"$out/report" 2>/dev/null
fi
echo "# kernel $(cat "$out/x/kernel"), stress-ng $*, window ${secs} s"

awk -v A="$out/x/a.all" -v B="$out/x/b.all" -v SA="$out/x/a.ss" -v SB="$out/x/b.ss" '
function field(name,   i) {
	for (i = 1; i <= NF; i++)
		if (index($i, name "=") == 1)
			return substr($i, length(name) + 2)
	return ""
}
# One snapshot of /proc/tsa/all: each worker tid'"'"'s LAT and on-CPU.
function tsa_read(f, lat, cpu, now,   l, n, k, i, col) {
	while ((getline l < f) > 0) {
		n = split(l, k, " ")
		if (k[1] == "now") now[0] = k[2]
		else if (k[1] == "fields") for (i = 2; i <= n; i++) col[k[i]] = i - 1
		else if (k[1] ~ /^[0-9]+$/ && k[1] in want) {
			lat[k[1]] = k[col["lat_ns"]]
			cpu[k[1]] = k[col["usr_ns"]] + k[col["sys_ns"]] + k[col["trp_ns"]]
		}
	}
	close(f)
}
BEGIN {
	while ((getline l < SA) > 0) { split(l, k, " "); ra[k[1]] = k[2]; da[k[1]] = k[3]; comm[k[1]] = k[5] }
	while ((getline l < SB) > 0) { split(l, k, " "); if (k[1] in ra) { want[k[1]] = 1; rb[k[1]] = k[2]; db[k[1]] = k[3] } }
	tsa_read(A, la, ca, nowa); tsa_read(B, lb, cb, nowb)
	t0 = nowa[0]; t1 = nowb[0]
}
{
	# comm-pid [cpu] sec.nsec: event: fields (trace-cmd report -R -t)
	if (!match($0, /\[[0-9]+\] +[0-9]+\.[0-9]+: [a-z_]+:/)) next
	s = substr($0, RSTART, RLENGTH)
	split(s, p, /[][ :]+/)
	cpu = p[2] + 0; split(p[3], tt, "."); t = tt[1] * 1000000000 + tt[2]; ev = p[4]
	if (t > t1) {
		# Stays and runs still open at the second snapshot, to it.
		for (id in runnable) if (id in want) evlat[id] += t1 - (runnable[id] > t0 ? runnable[id] : t0)
		for (id in on) if (id in want) evrun[id] += t1 - (on[id] > t0 ? on[id] : t0)
		exit
	}
	if (ev == "sched_wakeup" || ev == "sched_wakeup_new") {
		pid = field("pid")
		if (!(pid in woke)) woke[pid] = t
		if (pid in want && !(pid in runnable)) { runnable[pid] = t; from[pid] = "wake" }
	} else if (ev == "sched_switch") {
		prev = field("prev_pid"); next_ = field("next_pid"); st = field("prev_state") + 0
		# The lag of the run queue clock this switch was booked at: next
		# was woken (its wait began at the wakeup, on a fresh clock), and
		# its sched_stat_wait says how long the run queue thinks it
		# waited. By how prev left: preempted, blocked, or the idle task.
		if (next_ in woke && next_ in qdelay && next_ != 0 && t > t0 && t <= t1) {
			how = prev == 0 ? "idle" : (st == 0 || st == 256) ? "preempted" : "blocked"
			L = t - woke[next_] - qdelay[next_]
			lagn[how]++; lags[how] += L; if (L > 50000) lagbig[how]++
			if (L > lagmax[how]) lagmax[how] = L
		}
		delete woke[next_]; delete qdelay[next_]; delete woke[prev]
		if (prev in want) {
			if (prev in on && t > t0 && t <= t1) evrun[prev] += t - (on[prev] > t0 ? on[prev] : t0)
			delete on[prev]
			if (st == 0 || st == 256) {
				runnable[prev] = t; from[prev] = "preempt"
				npre[prev]++
			} else delete runnable[prev]
		}
		if (next_ in want) {
			on[next_] = t
			if (next_ in runnable && t > t0 && t <= t1) {
				s0 = runnable[next_] > t0 ? runnable[next_] : t0
				evlat[next_] += t - s0
				# The whole stay, beside its sched_stat_wait.
				if (from[next_] == "preempt") prewait_ev[next_] += t - runnable[next_]
				else wakewait_ev[next_] += t - runnable[next_]
			}
			delete runnable[next_]
			if (t > t0 && t <= t1) nin[next_]++
		}
	} else if (ev == "sched_stat_wait") {
		pid = field("pid")
		if (pid in want && t > t0 && t <= t1) {
			rqwait[pid] += field("delay")
		}
		if (pid in woke) {
			qdelay[pid] += field("delay")
		}
	} else if (ev == "sched_stat_runtime") {
		pid = field("pid")
		if (pid in want && t > t0 && t <= t1) rqrun[pid] += field("runtime")
	}
}
END {
	fmt = "%-8s %-16s %5s %5s | %8s %8s %8s %8s | %8s %8s %8s %8s (ms)\n"
	row = "%-8s %-16s %5d %5d | %8.2f %8.2f %8.2f %8.2f | %8.2f %8.2f %8.2f %8.2f\n"
	printf fmt, "tid", "comm", "in", "pre", "tsa_LAT", "ev_LAT", "sstatDly", "rq_wait", \
		"tsa_on", "ev_run", "sstatRun", "rq_run"
	for (id in want) {
		if (!(id in la) || !(id in lb)) continue
		printf row, id, comm[id], nin[id], npre[id], (lb[id] - la[id]) / 1e6, \
			evlat[id] / 1e6, (db[id] - da[id]) / 1e6, rqwait[id] / 1e6, \
			(cb[id] - ca[id]) / 1e6, evrun[id] / 1e6, (rb[id] - ra[id]) / 1e6, \
			rqrun[id] / 1e6
		tl += lb[id] - la[id]; el += evlat[id]; dl += db[id] - da[id]; ql += rqwait[id]
		tc += cb[id] - ca[id]; er += evrun[id]; dr += rb[id] - ra[id]; qr += rqrun[id]
		pw += prewait_ev[id]; ww += wakewait_ev[id]; ni += nin[id]; np += npre[id]
	}
	printf row, "all", "-", ni, np, tl / 1e6, el / 1e6, dl / 1e6, ql / 1e6, \
		tc / 1e6, er / 1e6, dr / 1e6, qr / 1e6
	for (how in lagn)
		printf "# switches to a woken thread, prev %s: %d, the run queue clock behind the switch by %.1f us on average (%d of them over 50 us, at most %.1f us; %.2f ms in all)\n", \
			how, lagn[how], lags[how] / lagn[how] / 1e3, lagbig[how], lagmax[how] / 1e3, lags[how] / 1e6
	printf "# whole stays ended in the window: begun by a wakeup %.2f ms, by a preemption %.2f ms\n", ww / 1e6, pw / 1e6
}' "$out/report" | tee "$out/summary"
