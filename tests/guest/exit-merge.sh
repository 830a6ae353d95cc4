#!/bin/bash
# By hand (not in make check): what a many-threaded process's exit costs
# the latency of others on PREEMPT_RT, where each thread's last switch
# folds its tables into its process's under the rq lock and the group's
# lock (the review's F7). In a guest of the RT kernel, without tsa loaded:
#
#   tests/guest-run --kernel 6.1.0-57-rt-amd64 --no-unload -- \
#       bash tests/guest/exit-merge.sh TSA_KO [NTHREADS] [ROUNDS]
#
# cyclictest (SCHED_FIFO 99, one thread a CPU, 1 ms period) runs while
# processes of NTHREADS threads are made and exit at once, ROUNDS times:
# once without tsa, once with tsa at its defaults, once with its largest
# tables (calls=64 hist=1, every distribution). Prints each one's worst
# and average latency in microseconds (emulated time: compare the three).
set -u
ko=$1 nthr=${2:-500} rounds=${3:-20}
out=tests/out
gcc -O2 -Wall -Wextra -Werror -pthread -o $out/tsa-hold tests/guest/tsa-hold.c || exit 1
measure() { # label
	local f=/tmp/ct.$$
	cyclictest -q -m -p 99 -S -i 1000 -D $((rounds + 3)) >$f 2>/dev/null &
	local ct=$!
	sleep 1
	for ((i = 0; i < rounds; i++)); do
		coproc H { $out/tsa-hold 1 "$nthr"; }
		read -r _ made <&"${H[0]}"
		exec {H[1]}>&-
		wait "$H_PID" 2>/dev/null
	done
	wait $ct
	echo "$1: worst $(sed -n 's/.*Max: *\([0-9]*\).*/\1/p' $f | sort -n | tail -n 1) us, average $(sed -n 's/.*Avg: *\([0-9]*\).*/\1/p' $f | sort -n | tail -n 1) us ($rounds exits of $made threads)"
	rm -f $f
}
measure "no tsa"
insmod "$ko" || exit 1
measure "tsa defaults"
rmmod tsa
insmod "$ko" calls=64 hist=1 || exit 1
measure "tsa calls=64 hist=1"
rmmod tsa
