#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# gen-all.sh N [SEED] - write a synthetic /proc/tsa/all ("tsa-all 1")
# with N threads to stdout: processes of 1 to 16 threads, one
# exited-threads line per process, every row's states summing to its
# elapsed time.  For tsa-prstat benchmarks and tests:
#
#   d=$(mktemp -d); sh tests/userspace/gen-all.sh 10000 > $d/all
#   TSA_PROC_DIR=$d tsa-prstat -mL -c 1 1
#
# SEED (default 1) changes the numbers; a later snapshot of the same
# threads: pass the same SEED and a larger STEP in the environment
# (STEP=k adds k seconds of life to every thread).
set -eu
n=${1:?usage: gen-all.sh N [SEED]}
seed=${2:-1}
step=${STEP:-0}
exec awk -v n="$n" -v seed="$seed" -v step="$step" 'BEGIN {
	CONVFMT = "%.0f"; OFMT = "%.0f"
	ns = split("usr sys trp tfl dfl kfl apg lck klk iow idl slp lat stp", st, " ")
	nc = split("vcx icx scl sig minf majf mig", ct, " ")
	srand(seed)
	now = 1000000000000 + step * 1000000000
	print "tsa-all 1"
	print "now " now
	f = "fields tid pid uid flags elapsed state state_ns"
	for (i = 1; i <= ns; i++)
		f = f " " st[i] "_ns " st[i] "_n " st[i] "_max"
	for (i = 1; i <= nc; i++)
		f = f " " ct[i]
	print f " comm"
	tid = 1000; done = 0; pid = 0
	while (done < n) {
		pid = tid
		k = 1 + int(rand() * 16)
		if (k > n - done)
			k = n - done
		uid = (rand() < 0.5) ? 0 : 1000 + int(rand() * 5)
		row(0, pid, uid, 4, "proc" pid)
		for (j = 0; j < k; j++)
			row(tid + j, pid, uid, (rand() < 0.3) ? 1 : 0, "proc" pid)
		tid += k; done += k
	}
}
function row(t, p, u, fl, comm,    el, left, i, v, line) {
	el = (1 + int(rand() * 1000)) * 10000000 + step * 1000000000
	left = el
	line = t " " p " " u " " fl " " el " " int(rand() * ns) " " int(rand() * 1000000)
	for (i = 1; i <= ns; i++) {
		v = (i == ns) ? left : int(left * rand() * 0.5)
		left -= v
		line = line " " v " " int(v / 1000000) " " int(v / 3)
	}
	for (i = 1; i <= nc; i++)
		line = line " " int(rand() * 200000)
	print line " " comm
}'
