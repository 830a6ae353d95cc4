#!/bin/bash
# By hand (not in make check): how long a read of tsa's bulk files keeps
# a CPU from the next task that wants it, with many threads alive. In a
# guest with tsa loaded:
#
#   tests/guest-run --mem 4G --module tsa.ko -- bash tests/guest/scale.sh NPROC NTHREADS
#
# NPROC processes of NTHREADS threads each sleep (tsa-hold); cyclictest
# (SCHED_FIFO 99, CPU 0, a 1 ms period) measures its wakeup latency for
# 10 s, alone and then while a reader on CPU 0 opens and reads each bulk
# file back to back: the worst latency with the reader, minus the worst
# alone, is about the longest stretch a read keeps CPU 0 without
# rescheduling (emulated time: compare the two, and the files).
set -u
nproc=${1:-20} nthr=${2:-1000}
out=tests/out
gcc -O2 -Wall -Wextra -Werror -pthread -o $out/tsa-hold tests/guest/tsa-hold.c || exit 1
coproc HOLD { $out/tsa-hold "$nproc" "$nthr"; }
read -r _ made <&"${HOLD[0]}"
echo "# $made threads asleep in $nproc processes; $(grep -c . /proc/tsa/all) lines in /proc/tsa/all"
lat() { cyclictest -q -m -p 99 -a 0 -t 1 -i 1000 -D "$1" 2>/dev/null | sed -n 's/.*Max: *\([0-9]*\).*/\1/p'; }
st=/sys/kernel/debug/tsa/stats
[ -r $st ] && grep -E '^reader_(sections|section_max_ns|restarts) ' $st
echo "alone: worst $(lat 10) us"
for f in all calls hist wakers; do
	[ -r /proc/tsa/$f ] || continue
	( end=$((SECONDS + 12)); n=0; t0=$(date +%s%N)
	  while [ $SECONDS -lt $end ]; do taskset -c 0 cat /proc/tsa/$f >/dev/null; n=$((n + 1)); done
	  echo "# $f: $n reads, $(( ($(date +%s%N) - t0) / n / 1000000 )) ms each" ) &
	r=$!
	sleep 1
	echo "reading $f: worst $(lat 10) us"
	wait $r
done
st=/sys/kernel/debug/tsa/stats
[ -r $st ] && grep -E '^reader_(sections|section_max_ns|restarts) ' $st
exec {HOLD[1]}>&-
wait
