#!/bin/bash
# Guest side of `make bench`: the same micro-benchmarks without tsa and
# with it in several configurations, in one boot, printed as ratios to
# the run without the module (emulated time is only good for ratios).
#
#   bench.sh TSA_KO TSA_BENCH TSA_PRSTAT
set -u
ko=$1
bench=$2
prstat=$3
reps=5
configs=("off" "on" "syscalls=0" "faults=0" "locks=0" "interrupts=1")
tests=("pipe" "syscall" "fault" "futex")
declare -A best

# Everything on one CPU: a ping-pong across CPUs would mostly measure how
# fast an emulated idle CPU wakes up, not the cost of a context switch.
run_one() { # test -> ns per op
	case $1 in
	pipe) taskset -c 1 perf bench sched pipe -l 10000 2>/dev/null |
		awk '/usecs\/op/ { printf "%.1f\n", $1 * 1000 }' ;;
	syscall) taskset -c 1 "$bench" syscall 100000 ;;
	fault) taskset -c 1 "$bench" fault 10000 ;;
	futex) taskset -c 1 "$bench" futex 10000 ;;
	esac
}

load() {
	case $1 in
	off) return 0 ;;
	on) insmod "$ko" ;;
	*) insmod "$ko" "$1" ;;
	esac
}

for rep in $(seq 1 $reps); do
	for c in "${configs[@]}"; do
		load "$c" || { echo "bench: insmod $c failed"; exit 1; }
		for t in "${tests[@]}"; do
			v=$(run_one "$t")
			k="$c/$t"
			if [ -z "${best[$k]:-}" ] || awk "BEGIN{exit !($v < ${best[$k]})}"; then
				best[$k]=$v
			fi
		done
		[ "$c" = off ] || rmmod tsa
	done
	echo "# round $rep of $reps done" >&2
done

echo
echo "Overhead of tsa (best of $reps, ns per operation; ratio = with / without)"
echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
printf '%-13s' "config"
for t in "${tests[@]}"; do printf ' %18s' "$t"; done
echo
for c in "${configs[@]}"; do
	printf '%-13s' "$c"
	for t in "${tests[@]}"; do
		printf ' %10.1f %6.3fx' "${best[$c/$t]}" \
			"$(awk "BEGIN{print ${best[$c/$t]} / ${best[off/$t]}}")"
	done
	echo
done
cat <<'TXT'
  pipe:    perf bench sched pipe (context-switch ping-pong, two tasks)
  syscall: getppid() loop (null syscall: sys_enter/sys_exit hooks)
  fault:   first touch of fresh anonymous pages (handle_mm_fault probe)
  futex:   futex wake/wait ping-pong between two threads
TXT

# Reader cost: one tsa-prstat report against ps over the same threads.
insmod "$ko"
threads=10000
p=$("$bench" threads $threads "$prstat" -mL 1 1)
q=$("$bench" threads $threads ps -eLo pid,tid,stat)
rmmod tsa
echo
echo "Reader cost with $threads idle threads (CPU time, best of 5)"
printf '  tsa-prstat -mL 1 1      %12.0f ns\n' "$p"
printf '  ps -eLo pid,tid,stat    %12.0f ns\n' "$q"
printf '  ratio tsa-prstat / ps   %12.3f\n' "$(awk "BEGIN{print $p / $q}")"
