#!/bin/bash
# Judge one workload of the event-trace replay: turn its trace into text
# (trace-cmd report) and compare tsa's snapshots with the replay of it
# (tsa-replay), TAP numbered from FIRST. replay-tests.sh collects a
# workload's files in the guest; they are judged here on the host after
# the boot (run-replay-tests.sh), where these two steps run natively
# instead of under emulation (they were two thirds of the suite's time),
# or in the guest itself when it has no export disk.
#
#   replay-judge.sh TSA_REPLAY FIRST DIR
#
# DIR: t.dat (trace-cmd extract), s1 s2 (/proc/tsa/all), h1 h2
# (/proc/tsa/hist), ss1 ss2 (schedstat), flags ("TID PF_FLAGS" of the
# workload's threads, read in the guest), meta ("NAME PIDS UNDONE").
# Environment: TSA_REPLAY_TOL_NS (2000), TSA_REPLAY_DEBUG.
# Exit status: tsa-replay's, or 1 if a step failed (a "not ok" printed).
set -u
replay=$1 first=$2 d=$3
tol=${TSA_REPLAY_TOL_NS:-2000}
name='' pids='' undone=''
read -r name pids undone <"$d/meta" 2>/dev/null
if [ -z "$name" ] || [ -z "$pids" ]; then
	echo "not ok $first - replay ${name:-$d}: the workload's files are complete (expected NAME PIDS UNDONE in $d/meta, saw '$(head -c 200 "$d/meta" 2>/dev/null)')"
	exit 1
fi
t0=$(date +%s.%N)
if ! trace-cmd report -R -t -i "$d/t.dat" >"$d/report" 2>"$d/report.err"; then
	echo "not ok $first - replay $name: trace-cmd report ($(tail -n 1 "$d/report.err"))"
	exit 1
fi
t1=$(date +%s.%N)
"$replay" --first "$first" --tol-ns "$tol" --pids "$pids" --undone "$undone" \
	--hist1 "$d/h1" --hist2 "$d/h2" --name "$name" --flags "$d/flags" \
	"$d/s1" "$d/s2" "$d/report" "$d/ss1" "$d/ss2" >"$d/tap"
rc=$?
cat "$d/tap"
if ! grep -qE '^(not )?ok ' "$d/tap"; then
	echo "not ok $first - replay $name: tsa-replay printed no result (exit $rc)"
	rc=1
fi
echo "# $name: report $(echo "$t1 - $t0" | bc) s, replay $(echo "$(date +%s.%N) - $t1" | bc) s"
exit "$rc"
