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
#
# CALLS=FILE also writes a /proc/tsa/calls ("tsa-calls 1") of the same
# threads to FILE: 1 to 4 system-call rows per thread and per
# exited-threads line, sometimes "other", sometimes a trap row, each
# line's states adding up to its ns; its numbers grow with STEP and do
# not change the "all" file's.
set -eu
n=${1:?usage: gen-all.sh N [SEED]}
seed=${2:-1}
step=${STEP:-0}
exec awk -v n="$n" -v seed="$seed" -v step="$step" -v calls="${CALLS:-}" 'BEGIN {
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
	ncn = split("read write futex epoll_wait poll nanosleep clock_nanosleep openat newfstatat mmap ia32:read #451", cn, " ")
	if (calls != "") {
		print "tsa-calls 1\nnow " now "\nrows 8 6" > calls
		print "states SYS TRP TFL DFL KFL APG LCK KLK IOW IDL SLP LAT STP" > calls
		print "fields tid pid uid flags elapsed at kind name calls ns max sys_ns trp_ns tfl_ns dfl_ns kfl_ns apg_ns lck_ns klk_ns iow_ns idl_ns slp_ns lat_ns stp_ns" > calls
	}
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
function row(t, p, u, fl, comm,    el, left, i, v, line, cur, cns) {
	el = (1 + int(rand() * 1000)) * 10000000 + step * 1000000000
	left = el
	cur = int(rand() * ns)
	cns = int(rand() * 1000000)
	line = ""
	for (i = 1; i <= ns; i++) {
		v = (i == ns) ? left : int(left * rand() * 0.5)
		left -= v
		line = line " " v " " int(v / 1000000) " " int(v / 3)
		# The current stay is part of the time of its state and no
		# longer than its longest, as the kernel reports them.
		if (i == cur + 1 && cns > int(v / 3))
			cns = int(v / 3)
	}
	line = t " " p " " u " " fl " " el " " cur " " cns line
	for (i = 1; i <= nc; i++)
		line = line " " int(rand() * 200000)
	print line " " comm
	if (calls != "")
		callrows(t, p, u, fl, el)
}
# Its own generator, seeded by the thread, so that the "all" file is the
# same with or without CALLS, and a later STEP grows the same rows.
function crand() {
	cs = (cs * 69069 + 1) % 4294967296
	return cs / 4294967296
}
function callrows(t, p, u, fl, el,    k, j, start, cns, sys, where, i, line) {
	cs = (t * 40503 + p * 7 + seed) % 4294967296
	k = int(crand() * 4)
	start = int(crand() * ncn)
	for (j = 0; j <= k; j++) {
		cns = int(el * (0.01 + crand() * 0.1))
		sys = int(cns * crand())
		where = 2 + int(crand() * 12)
		line = t " " p " " u " " fl " " el " " now " syscall " \
			((j == k) ? (crand() < 0.5 ? "other" : "") : cn[1 + (start + j) % ncn])
		if (j == k && line ~ / $/)
			continue
		line = line " " (1 + int(cns / 1000000)) " " cns " " int(cns / 2)
		for (i = 1; i <= 13; i++)
			line = line " " ((i == 1) ? sys : (i == where) ? cns - sys : 0)
		print line > calls
	}
	if (crand() < 0.2) {
		cns = int(el * crand() * 0.01)
		print t " " p " " u " " fl " " el " " now " trap softirq:TIMER " \
			(1 + int(cns / 100000)) " " cns " " int(cns / 3) \
			" 0 " cns " 0 0 0 0 0 0 0 0 0 0 0" > calls
	}
}'
