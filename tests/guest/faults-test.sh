#!/bin/bash
# Guest side of the parallel suite's fault injection, on the debug kernel
# (KASAN, lockdep, FAILSLAB, FAIL_PAGE_ALLOC, kmemleak booted on), its two
# vCPUs in parallel. Allocations fail (debugfs failslab, fail_page_alloc,
# for the tasks that ask: make-it-fail) while tsa.ko loads, while threads
# fork in bursts and while readers read /proc/tsa:
#   - a load fails cleanly (nothing left behind) or tsa works;
#   - a thread whose record could not be allocated at fork is tracked a
#     moment later (the late queue), or counted as an allocation failure;
#   - a reader gets an error or a whole file, never a torn one;
#   - /proc/tsa/all sums exactly throughout, every unload leaves nothing
#     (tsa.ko WARNs on an object it did not free), and kmemleak finds no
#     object tsa.ko allocated and lost.
#
#   faults-test.sh TSA_KO CHURN PARTEST [ROUNDS]
#
# Only tsa-partest runs with failures (load, burst, failread), its pages
# locked first: the guest's root is 9p, whose client a failed allocation
# in a page fault or an exec left broken for every task after it.
set -uo pipefail
ko=$1 churn=$2 partest=$3 rounds=${4:-6}
here=$(cd "$(dirname "$0")" && pwd)
Q=${TSA_QUIESCE:?run it through tests/guest-run}
D=/sys/kernel/debug
n=0 fails=0
tap() { # STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
}
ok_if() { tap "$([ "$1" = 1 ] && echo 0 || echo 1)" "$2"; }
stat_of() { awk -v k="$1" '$1 == k { print $2 }' $D/tsa/stats 2>/dev/null; }

mountpoint -q $D || mount -t debugfs none $D
# kmemleak's own thread would scan and report on its own: ours are read.
[ ! -w $D/kmemleak ] || echo scan=off >$D/kmemleak
if [ ! -d $D/failslab ] || [ ! -d $D/fail_page_alloc ]; then
	tap 1 "setup: fault injection in debugfs (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS)"
	exit 1
fi
# Only tasks with make-it-fail; sleeping allocations too; quiet (the
# injected failures themselves print nothing).
for f in failslab fail_page_alloc; do
	echo Y >$D/$f/task-filter
	echo 0 >$D/$f/verbose
	echo -1 >$D/$f/times
	echo 1 >$D/$f/interval
	echo 0 >$D/$f/probability
	echo N >$D/$f/ignore-gfp-wait
done
# Pages: only order 1 and up, which kvmalloc() asks for with __GFP_NOWARN
# before it falls back to vmalloc(); order-0 failures in the kernel's own
# paths would print allocation warnings with a stack (a splat to the runner).
echo 1 >$D/fail_page_alloc/min-order
slab() { echo "$1" >$D/failslab/probability; }
pages() { echo "$1" >$D/fail_page_alloc/probability; }
# Only tsa-partest runs with failures, and only once it has started: the
# guest's root is 9p, whose client a failed allocation in an exec or a
# file read can leave broken for every task after it.
cp "$ko" /tmp/tsa.ko
loaded() { grep -q '^tsa ' /proc/modules; }
# Every line of /proc/tsa/all sums to its elapsed: "lines bad".
allsum() { "$here/tsa-allsum"; }

# --- 1. loads with slab allocations failing ---
# A load makes hundreds of allocations: at 10% nearly all loads fail in
# the kernel's own module loader, at 1% many reach tsa's init.
for p in 1 3 10; do
	for r in $(seq 1 "$rounds"); do
		slab "$p"
		"$Q" "$partest" load /tmp/tsa.ko >/tmp/insmod.err 2>&1
		rc=$?
		slab 0
		if [ "$rc" -eq 1 ]; then
			left=
			loaded && left+=" module"
			[ -e /proc/tsa ] && left+=" /proc/tsa"
			[ -e $D/tsa ] && left+=" debugfs"
			tap "$([ -z "$left" ] && echo 0 || echo 1)" \
				"load at ${p}% slab failures, round $r: refused cleanly ($(tr '\n' ' ' </tmp/insmod.err| cut -c1-80); left:${left:- nothing})"
			continue
		fi
		[ "$rc" -eq 0 ] || { tap 1 "load at ${p}% slab failures, round $r: $(cat /tmp/insmod.err)"; continue; }
		read -r lines bad <<<"$(allsum)"
		tap "$([ "${lines:-0}" -gt 10 ] && [ "${bad:-1}" -eq 0 ] && echo 0 || echo 1)" \
			"load at ${p}% slab failures, round $r: loaded, every line of /proc/tsa/all sums ($bad of $lines bad; alloc_failures $(stat_of alloc_failures))"
		"$Q" rmmod tsa
		tap $? "load at ${p}% slab failures, round $r: unloads"
	done
done

# --- 2. forks in bursts with slab allocations failing ---
# A burst of threads drains tsa's record pool; its fork hook then
# allocates in the forking task, whose allocations fail: those threads
# go to the late queue, tracked a moment later from a work item. Churn
# meanwhile (without failures of its own), and readers.
if ! "$Q" insmod "$ko" 2>/tmp/insmod.err; then
	tap 1 "insmod tsa.ko for the fork bursts ($(tr '\n' ' ' </tmp/insmod.err))"
	dmesg | tail -n 20 | sed 's/^/# /'
	exit 1
fi
f0=$(stat_of alloc_failures) l0=$(stat_of tracked_late)
"$churn" 6 >/dev/null 2>&1 &
churner=$!
# Each thread born takes a dozen allocations: at 3% most are born. RT
# throttling off: the burst's SCHED_FIFO threads starve the pool's refill.
rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
echo -1 >/proc/sys/kernel/sched_rt_runtime_us
slab 3
res=$("$partest" burst 1600 2>&1)
rc=$?
slab 0
echo "$rt" >/proc/sys/kernel/sched_rt_runtime_us
tap "$rc" "a burst of 1600 threads at 3% slab failures: every thread born is tracked within 5 s ($res)"
bad=0
while kill -0 "$churner" 2>/dev/null; do
	read -r lines bad <<<"$(allsum)"
	[ "${bad:-1}" -eq 0 ] || break
	sleep 1
done
wait "$churner"
tap "$([ "${bad:-1}" -eq 0 ] && echo 0 || echo 1)" \
	"churn beside the burst: /proc/tsa/all summed while it ran ($bad of ${lines:-?} bad)"
f1=$(stat_of alloc_failures) l1=$(stat_of tracked_late)
tap "$([ "$f1" -gt "$f0" ] && [ "$l1" -gt "$l0" ] && echo 0 || echo 1)" \
	"tsa's own record allocations failed, and the late queue tracked those threads (alloc_failures $f0 -> $f1, tracked_late $l0 -> $l1)"

# --- 3. readers with their own allocations failing ---
self=$$
for f in /proc/tsa/all /proc/tsa/calls "/proc/tsa/$self"; do
	slab 20
	pages 50
	res=$("$partest" failread "$f" 200 2>&1)
	rc=$?
	slab 0
	pages 0
	tap "$rc" "reads of $f with 20% slab and 50% order>=1 page failures: an error or the whole file ($res)"
done
read -r lines bad <<<"$(allsum)"
tap "$([ "${bad:-1}" -eq 0 ] && echo 0 || echo 1)" \
	"after the failing readers: every line of /proc/tsa/all sums ($bad of $lines bad)"

# --- 3b. a late thread joins its process's totals ---
# tsa's fault attribute fail_fork (debugfs, kernels with fault injection)
# refuses the fork hook's record for one fork at a time: a process whose
# leader waits in the late queue, one tracked thread that runs 200 ms and
# is freed while a second thread waits there too; the late work runs only
# after that (tsa-partest pin). The process's totals must hold the freed
# thread: its group was pinned for the waiting one.
FF=$D/tsa/fail_fork
if [ -d $FF ]; then
	echo Y >$FF/task-filter
	echo 0 >$FF/verbose
	echo 1 >$FF/interval
	echo 100 >$FF/probability
	echo 0 >$FF/times
	rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
	echo -1 >/proc/sys/kernel/sched_rt_runtime_us
	# RCU's threads above the test's SCHED_FIFO ones: the freed thread's
	# record goes in an RCU callback; the late work (a kworker) waits.
	rcu=$(ps -eo pid=,comm= | awk '$2 ~ /^(rcu|ksoftirqd)/ { print $1 }')
	for p in $rcu; do chrt -f -p 60 "$p"; done
	res=$("$partest" pin 2>&1)
	for p in $rcu; do chrt -o -p 0 "$p"; done
	echo "$rt" >/proc/sys/kernel/sched_rt_runtime_us
	echo 0 >$FF/probability
	read -r _ exited _ oncpu _ t1 _ _ _ early <<<"$(tail -n 1 <<<"$res")"
	tap "$([[ ${exited:-} == 1 && ${oncpu:-} =~ ^[0-9]+$ && ${t1:-} =~ ^[0-9]+$ ]] &&
		[ "$oncpu" -ge $((t1 * 9 / 10)) ] && [ "${early:-1}" = 0 ] && echo 0 || echo 1)" \
		"a thread tracked late joins its process's group after the last tracked thread was freed (expected 1 exited thread and its ${t1:-?} ns on CPU in the totals, the late work held off until then (early 0); saw: $(tr '\n' ' ' <<<"$res"))"
else
	tap 1 "setup: tsa's fail_fork fault attribute in debugfs (CONFIG_FAULT_INJECTION_DEBUG_FS)"
fi

# --- 4. kmemleak: nothing of tsa.ko's lost ---
if [ -w $D/kmemleak ]; then
	# While tsa.ko is loaded, so that its frames have names; what it
	# holds is referenced from its own data. Objects younger than 5 s
	# are not reported: scan after that, twice.
	sleep 6
	echo scan >$D/kmemleak
	echo scan >$D/kmemleak
	leaks=$(grep -c '^unreferenced object' $D/kmemleak)
	# tsa's: a frame of tsa.ko in the allocation's backtrace.
	# Not the slab allocator's own leak on 6.1: when kmem_cache_create()
	# fails in sysfs_slab_add(), kobject_init_and_add()'s error is not
	# followed by kobject_put(), and the cache's name is lost.
	tsaleaks=$(awk '
		function flush() { if (o && ours && !kern) n++ }
		/^unreferenced object/ { flush(); o = 1; bt = 0; ours = 0; kern = 0; next }
		/backtrace:/ { bt = 1; next }
		bt && /sysfs_slab_add/ { kern = 1 }
		bt && /\[tsa\]|[ <]tsa_[a-z_]+\+0x/ { ours = 1 }
		END { flush(); print n + 0 }' $D/kmemleak)
	tap "$([ "$tsaleaks" -eq 0 ] && echo 0 || echo 1)" \
		"kmemleak: no object tsa.ko allocated is lost ($tsaleaks of tsa's; $leaks unreferenced in all)"
	# All of them, tsa's or the kernel's (the slab allocator leaks a cache's
	# name when kmem_cache_create() fails in sysfs on 6.1), for the log.
	grep -A14 'unreferenced object' $D/kmemleak | head -60 | sed 's/^/# /'
	echo clear >$D/kmemleak
	"$Q" rmmod tsa
	tap $? "rmmod tsa after the faults"
else
	"$Q" rmmod tsa
	tap 1 "kmemleak is on (boot with kmemleak=on, CONFIG_DEBUG_KMEMLEAK)"
fi
echo "faults: $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
