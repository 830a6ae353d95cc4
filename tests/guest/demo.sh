#!/bin/bash
# Guest side of `make demo`: tsa.ko is loaded; run a workload whose threads
# each wait differently and show what tsa sees.
set -u
work=$1
prstat=$2
echo "=== tsa-prstat --calibrate   (what this machine's kernel entry and exit paths cost: SYS from now on)"
"$prstat" --calibrate
echo
"$work" 12 &
pid=$!
sleep 2
echo
echo "=== tsa-prstat -mL -p $pid 2 2   (Solaris prstat -mL columns, per thread)"
"$prstat" -mL -p "$pid" 2 2
echo
echo "=== tsa-prstat -A -L -p $pid 2 1   (the TSA Method view: where the time went)"
"$prstat" -A -L -p "$pid" 2 1
echo
echo "=== tsa-prstat -yL -n 12 -p $pid 2 2   (why: the system calls each thread's time went to)"
"$prstat" -yL -n 12 -p "$pid" 2 2
echo
echo "=== tsa-prstat -m -n 8 1 1   (per process, whole system)"
"$prstat" -m -n 8 1 1
lw=$(grep -l '^comm lock-waiter$' /proc/tsa/[0-9]* 2>/dev/null | head -n 1)
if [ -n "$lw" ]; then
	echo
	echo "=== cat $lw   (one thread's full microstate table)"
	cat "$lw"
fi
echo
echo "=== /sys/kernel/debug/tsa/stats   (the module's own health)"
cat /sys/kernel/debug/tsa/stats
wait "$pid"
