#!/bin/bash
# Guest side of `make bench`: the same micro-benchmarks without tsa, with
# the empty-probe floor module, and with tsa in several configurations, in
# one boot, printed as ratios to the run without a module (emulated time is
# only good for ratios). Each timed loop is bracketed by markers that the
# host's instruction meter counts (tests/bench/insn-meter.c): for each run
# this prints "meter CONFIG TEST N" in the order the markers come.
#
# "bpftrace" is the eBPF peer: tests/bench/peer.bt keeping per-thread
# USR/SYS/LAT/SLP totals in maps (when bpftrace is installed).
#
#   bench.sh TSA_KO FLOOR_KO TSA_BENCH TSA_PRSTAT PEER_BT
set -u
ko=$1
floor=$2
bench=$3
prstat=$4
peer=$5
reps=${TSA_BENCH_REPS:-5}
configs=("off" "floor" "on" "syscalls=0" "faults=0" "locks=0" "interrupts=1")
command -v bpftrace >/dev/null && configs+=("bpftrace")
tests=("pipe" "syscall" "fault" "futex" "fork")
declare -A ops=([pipe]=5000 [syscall]=100000 [fault]=10000 [futex]=10000 [fork]=500)
declare -A best

# Everything on one CPU: a ping-pong across CPUs would mostly measure how
# fast an emulated idle CPU wakes up, not the cost of a context switch.
run_one() { # config test -> ns per op (and a meter line on stdout)
	echo "meter $1 $2 ${ops[$2]}"
	taskset -c 1 "$bench" "$2" "${ops[$2]}" >/tmp/bench.ns || return 1
	cat /tmp/bench.ns >&3
}

# bpftrace compiles its script first (long under emulation): it is ready
# once it says it is attaching its probes.
peer_start() {
	bpftrace "$peer" >/tmp/peer.out 2>&1 &
	peer_pid=$!
	for _ in $(seq 1 1200); do
		grep -q '^Attaching' /tmp/peer.out && { sleep 1; return 0; }
		kill -0 "$peer_pid" 2>/dev/null || break
		sleep 0.5
	done
	cat /tmp/peer.out >&2
	return 1
}
peer_stop() {
	kill -INT "$peer_pid" && wait "$peer_pid"
}

load() {
	case $1 in
	off) return 0 ;;
	floor) insmod "$floor" ;;
	bpftrace) peer_start ;;
	on) insmod "$ko" ;;
	*) insmod "$ko" "$1" ;;
	esac
}
unload() {
	case $1 in
	off) ;;
	floor) rmmod tsa_floor ;;
	bpftrace) peer_stop ;;
	*) rmmod tsa ;;
	esac
}

for rep in $(seq 1 $reps); do
	for c in "${configs[@]}"; do
		load "$c" || { echo "bench: insmod $c failed"; exit 1; }
		for t in "${tests[@]}"; do
			v=$(run_one "$c" "$t" 3>&1 >&4) || { echo "bench: $t failed"; exit 1; }
			k="$c/$t"
			if [ -z "${best[$k]:-}" ] || awk "BEGIN{exit !($v < ${best[$k]})}"; then
				best[$k]=$v
			fi
		done 4>&1
		unload "$c"
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
  pipe:    one byte there and back over two pipes between two processes
  syscall: getppid() loop (null syscall: sys_enter/sys_exit hooks)
  fault:   first touch of fresh anonymous pages (handle_mm_fault probe)
  futex:   futex wake/wait ping-pong between two threads
  fork:    fork, exit and wait (the task life-cycle hooks)
  floor:   tsa_floor.ko, empty probes on tsa's hooks that read the clock
  bpftrace: tests/bench/peer.bt, per-thread USR/SYS/LAT/SLP in eBPF maps
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
