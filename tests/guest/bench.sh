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
# "delayacct" is the kernel's own delay accounting (what tsastat and
# getdelays read), turned on with kernel.task_delayacct.
#
# With "profile" (make bench-profile) it runs each loop once, for "off",
# "floor", "on" and "syscalls=0" only, writes the kernel's text symbols
# to /dev/vda and, after each load, prints the modules' ("syms CONFIG
# ADDRESS NAME") for the host to map the instruction profile with.
#
#   bench.sh TSA_KO FLOOR_KO TSA_BENCH TSA_PRSTAT PEER_BT [profile]
set -u
ko=$1
floor=$2
bench=$3
prstat=$4
peer=$5
profile=${6:-}
reps=${TSA_BENCH_REPS:-5}
# "on" keeps LAT's distribution (hist=lat, the default) and the wakers;
# "hist=0" none, "hist=1" every off-CPU state's and the calls'; "wakers=0"
# no waker rows (what naming the wakers costs).
configs=("off" "floor" "on" "wakers=0" "calls=0" "syscalls=0" "faults=0" "locks=0" "interrupts=1" "hist=0" "hist=1")
command -v bpftrace >/dev/null && configs+=("bpftrace")
[ -w /proc/sys/kernel/task_delayacct ] && configs+=("delayacct")
# TSA_BENCH_CONFIGS: only these, in this order (e.g. "off floor on
# hist=1"), for a quick look at one parameter's cost.
if [ -n "${TSA_BENCH_CONFIGS:-}" ]; then
	read -r -a configs <<<"$TSA_BENCH_CONFIGS"
fi
if [ "$profile" = profile ]; then
	reps=1
	configs=("off" "floor" "on" "syscalls=0")
	# The kernel's text symbols, for the host, on the disk it gave us.
	grep ' [tTwW] ' /proc/kallsyms | grep -v '\[' >/tmp/kallsyms
	dd if=/tmp/kallsyms of=/dev/vda bs=1M conv=fsync status=none ||
		{ echo "bench: cannot write the symbols to /dev/vda"; exit 1; }
fi
tests=("pipe" "syscall" "fault" "futex" "fork" "thread")
# TSA_BENCH_TESTS: only these loops (e.g. "fork thread"); TSA_BENCH_WL_REPS=0
# skips the workloads.
if [ -n "${TSA_BENCH_TESTS:-}" ]; then
	read -r -a tests <<<"$TSA_BENCH_TESTS"
fi
declare -A ops=([pipe]=5000 [syscall]=100000 [fault]=10000 [futex]=10000 [fork]=500 [thread]=500)
declare -A best slab

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
# bpftrace prints its maps and exits on SIGINT; once in a while it did
# not (seen once: idle in epoll_wait for 13 minutes after the signal),
# and the bench must not wait for its timeout then.
peer_stop() {
	local k
	kill -INT "$peer_pid" || return
	for k in $(seq 300); do
		kill -0 "$peer_pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$peer_pid" 2>/dev/null; then
		echo "bench: bpftrace still running 30 s after SIGINT: killed" >&2
		kill -KILL "$peer_pid"
	fi
	wait "$peer_pid" || true
}

load() {
	case $1 in
	off) return 0 ;;
	floor) insmod "$floor" ;;
	bpftrace) peer_start ;;
	delayacct) echo 1 >/proc/sys/kernel/task_delayacct ;;
	on) insmod "$ko" ;;
	# "a=1+b=2": a configuration of several parameters.
	*) insmod "$ko" ${1//+/ } ;;
	esac
}
unload() {
	case $1 in
	off) ;;
	floor) rmmod tsa_floor ;;
	bpftrace) peer_stop ;;
	delayacct) echo 0 >/proc/sys/kernel/task_delayacct ;;
	*) rmmod tsa ;;
	esac
}

for rep in $(seq 1 $reps); do
	for c in "${configs[@]}"; do
		load "$c" || { echo "bench: insmod $c failed"; exit 1; }
		[ "$profile" = profile ] &&
			awk -v c="$c" '$4 ~ /^\[tsa(_floor)?\]$/ && $2 ~ /^[tT]$/ { print "syms", c, $1, $3 }' /proc/kallsyms
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
  thread:  pthread_create, exit and join (a new thread of a tracked process)
  floor:   tsa_floor.ko, empty probes on tsa's hooks that read the clock
  bpftrace: tests/bench/peer.bt, per-thread USR/SYS/LAT/SLP in eBPF maps
  delayacct: the kernel's delay accounting (kernel.task_delayacct=1)
TXT

[ "$profile" = profile ] && exit 0

# A thread reading itself (tests/bench/tsa-selfbench.c), tsa loaded with
# its defaults: ns per read by each way, as ratios to the vDSO's
# clock_gettime(CLOCK_MONOTONIC) and to getrusage(RUSAGE_THREAD).
selfbench=$(dirname "$bench")/tsa-selfbench
if [ -x "$selfbench" ]; then
	insmod "$ko" || { echo "bench: insmod tsa failed"; exit 1; }
	taskset -c 1 "$selfbench" "${TSA_BENCH_SELF_N:-20000}" >/tmp/selfbench ||
		{ echo "bench: tsa-selfbench failed"; exit 1; }
	rmmod tsa
	echo
	echo "A thread reads itself (tsa loaded; ns per read, best of 5 x ${TSA_BENCH_SELF_N:-20000})"
	awk '/^#/ { print "  " $0; next }
	     { ++k; ns[k] = $2; name[k] = $1 }
	     $1 == "clock_gettime(CLOCK_MONOTONIC)" { mono = $2 }
	     $1 == "getrusage(RUSAGE_THREAD)" { ru = $2 }
	     END { printf "  %-40s %10s %10s %10s\n", "way", "ns", "/ vDSO", "/ rusage"
		   for (i = 1; i <= k; i++)
			printf "  %-40s %10.1f %9.2fx %9.3fx\n", name[i], ns[i], ns[i] / mono, ns[i] / ru
		   printf "bench-summary self"
		   for (i = 1; i <= k; i++) printf " %s=%.1f", name[i], ns[i]
		   printf "\n" }' /tmp/selfbench
	cat <<'TXT'
  tsa-ioctl:    TSA_IOC_SELF on an open /proc/tsa/thread-self (module/uapi/tsa.h)
  libtsa-ioctl: tsa_self_read(), the same call through libtsa
  libtsa-text:  tsa_self_read() with TSA_SELF_TEXT=1: the file's text, parsed
  libtsa-mapped: tsa_self_read() from the thread's mapped slot (TSA_IOC_SLOT)
  tsa-mapped:   the slot copied under its sequence count, and the vDSO clock
  getppid-*:    a null system call, the thread without a slot, then with one
  schedstat:    pread of an open /proc/thread-self/schedstat and its parse
  taskstats:    a TASKSTATS_CMD_GET genetlink query of its own tid (root)
TXT
fi

# Whole workloads a user would recognise: what a job pays, beside the
# floor, delay accounting and bpftrace. Each runs once to warm the page
# cache, then once a round per configuration, bracketed whole (all that
# runs on the vCPU is counted, as in the fork loop); rows "wl:NAME".
#   hackbench: rt-tests' hackbench, 2 groups of 10 threads sending 100
#              messages each over pipes to 10 others (scheduler, pipes)
#   build:     make -j2 of tsa-prstat from a copy of userspace/ (fork,
#              exec, faults, file I/O)
#   shell:     300 times "echo | sort | uniq" in sh (a configure script's
#              pattern: fork and exec)
wl_configs=()
for c in off floor on delayacct bpftrace; do
	case " ${configs[*]} " in *" $c "*) wl_configs+=("$c") ;; esac
done
src=$(dirname "$ko")
rm -rf /tmp/wl && mkdir -p /tmp/wl && cp -r "$src/userspace" "$src/module" /tmp/wl/
wl_names=(hackbench build shell)
# TSA_BENCH_WORKLOADS: only these (e.g. "shell").
if [ -n "${TSA_BENCH_WORKLOADS:-}" ]; then
	read -r -a wl_names <<<"$TSA_BENCH_WORKLOADS"
fi
declare -A wl_cmd=(
	[hackbench]="hackbench -p -T -g 2 -f 10 -l 100"
	[build]="make -s -C /tmp/wl/userspace clean && make -s -j2 -C /tmp/wl/userspace VERSION=bench"
	[shell]='for i in $(seq 300); do echo $i | sort | uniq >/dev/null; done'
)
for w in "${wl_names[@]}"; do
	taskset -c 1 sh -c "${wl_cmd[$w]}" >/dev/null 2>&1 ||
		{ echo "bench: workload $w failed: ${wl_cmd[$w]}"; exit 1; }
done
# One round by default (a round of the three is 15 runs, about 15 minutes
# under the meter); TSA_BENCH_WL_REPS=N for more.
for rep in $(seq 1 "${TSA_BENCH_WL_REPS:-1}"); do
	for c in "${wl_configs[@]}"; do
		load "$c" || { echo "bench: insmod $c failed"; exit 1; }
		for w in "${wl_names[@]}"; do
			echo "meter $c wl:$w 1"
			taskset -c 1 "$bench" run 1 sh -c "${wl_cmd[$w]}" >/dev/null ||
				{ echo "bench: workload $w failed under $c"; exit 1; }
		done
		unload "$c"
	done
	echo "# workloads: round $rep done" >&2
done

# TSA_BENCH_SCALE=0: stop here (no scale rows, memory or reader cost).
[ "${TSA_BENCH_SCALE:-1}" = 0 ] && exit 0

# Scale: the same pipe and futex loops with N idle threads on the machine,
# without and with tsa (each switch looks the next thread's record up).
# The meter's rows are "off@N" and "on@N"; the time ratios are not shown.
# Each command runs with the threads up, once tsa lists them all (its
# /proc/tsa entries are made by a work item that must not run inside the
# bracket).
echo 4194304 >/proc/sys/kernel/pid_max
echo 4194304 >/proc/sys/kernel/threads-max
echo 1048576 >/proc/sys/vm/max_map_count
settled() { # N CMD...: run CMD once tsa (if loaded) lists more than N
	local n=$1
	shift
	for _ in $(seq 1 3000); do
		[ ! -d /proc/tsa ] || [ "$(ls /proc/tsa | wc -l)" -gt "$n" ] && break
		sleep 0.2
	done
	"$@"
}
slab_kb() { awk '$1 == "Slab:" { print $2 }' /proc/meminfo; }
for c in off on; do
	load "$c" || { echo "bench: insmod $c failed"; exit 1; }
	for n in 100 10000 100000; do
		for t in pipe futex; do
			echo "meter $c@$n $t ${ops[$t]}"
			taskset -c 1 "$bench" idle "$n" bash -c "$(declare -f settled); settled \"\$@\"" \
				_ "$n" "$bench" "$t" "${ops[$t]}" >/dev/null ||
				{ echo "bench: $t with $n threads failed"; exit 1; }
		done
	done
	# Memory: the kernel's slab grows with 10,000 idle threads; what it
	# grows by more with tsa is what tsa costs a thread.
	n=10000
	s0=$(slab_kb)
	s1=$(taskset -c 1 "$bench" idle $n bash -c "$(declare -f settled slab_kb); settled $n true; slab_kb
		[ -d /proc/tsa ] && grep -E '^(threads|kthreads|memory_bytes|thread_record_bytes|kthread_record_bytes|proc_entry_bytes|thread_bytes|kthread_bytes|hash_buckets) ' \
			/sys/kernel/debug/tsa/stats >/tmp/bench-stats")
	slab[$c]=$((s1 - s0))
	unload "$c"
done
echo
echo "Memory with $n idle threads: the kernel's slab grew by ${slab[off]} kB without tsa, ${slab[on]} kB with it:"
printf '  tsa adds %.0f bytes of slab a thread (record, process share, /proc/tsa entry)\n' \
	"$(awk "BEGIN{print (${slab[on]} - ${slab[off]}) * 1024 / $n}")"
sed 's/^/  debugfs with the threads up: /' /tmp/bench-stats
# What a thread costs as tsa counts it, with the defaults (LAT's
# distribution), calls=0, hist=0 and hist=1 (all): its record and its
# /proc/tsa entry. A kernel thread's record has no calls table.
thread_bytes() {
	local key=$1
	shift
	insmod "$ko" "$@" &&
		awk -v k="$key" '$1 == k { print $2 }' /sys/kernel/debug/tsa/stats
	rmmod tsa
}
tb=$(thread_bytes thread_bytes)
echo "bench-summary memory thread_bytes=$tb kthread_bytes=$(thread_bytes kthread_bytes) calls0_thread_bytes=$(thread_bytes thread_bytes calls=0) nohist_thread_bytes=$(thread_bytes thread_bytes hist=0) hist_thread_bytes=$(thread_bytes thread_bytes hist=1) slab_bytes_per_thread=$(awk "BEGIN{printf \"%.0f\", (${slab[on]} - ${slab[off]}) * 1024 / $n}")"

# Reader cost: one tsa-prstat report against ps over the same threads.
insmod "$ko"
threads=10000
p=$("$bench" threads $threads "$prstat" -mL 1 1)
y=$("$bench" threads $threads "$prstat" -yL 1 1)
q=$("$bench" threads $threads ps -eLo pid,tid,stat)
rmmod tsa
echo
echo "Reader cost with $threads idle threads (CPU time, best of 5)"
printf '  tsa-prstat -mL 1 1      %12.0f ns\n' "$p"
printf '  tsa-prstat -yL 1 1      %12.0f ns   (the system-call view: /proc/tsa/all and /proc/tsa/calls)\n' "$y"
printf '  ps -eLo pid,tid,stat    %12.0f ns\n' "$q"
printf '  ratio tsa-prstat / ps   %12.3f\n' "$(awk "BEGIN{print $p / $q}")"
