#!/bin/bash
# Guest side of the churn suite: load and unload tsa.ko again and again
# while threads and processes are born and die as fast as they can, read
# every interface meanwhile, and check that each unload leaves nothing
# behind: no /proc or debugfs entry, no object (the module counts its
# allocations and WARNs at unload on a leak), no new dmesg line but tsa's
# own.
#
#   churn-test.sh TSA_KO CHURN_BINARY [ROUNDS [MODULE_PARAMS]]
set -uo pipefail
ko=$1
churn=$2
rounds=${3:-5}
params=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
# Multi-threaded TCG: patch text with the other CPUs offline (guest-run).
TSA_QUIESCE=${TSA_QUIESCE:?run it through tests/guest-run}
n=0
fails=0
tap() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
}

dmesg >/tmp/dmesg.before
"$churn" $((rounds * 4 + 4)) &
churn_pid=$!
sleep 1
for r in $(seq 1 "$rounds"); do
	# shellcheck disable=SC2086 # parameters are words
	$TSA_QUIESCE insmod "$ko" $params
	tap $? "round $r: insmod ${params:+($params) }while threads churn"
	# Readers racing with births, deaths and the unload.
	for _ in 1 2 3; do
		cat /proc/tsa/all >/dev/null
		cat /proc/tsa/calls >/dev/null 2>&1
		cat /proc/tsa/wakers >/dev/null 2>&1
		cat /proc/tsa/[0-9]* >/dev/null 2>&1
	done
	# A new file each round: truncating one on the guest's overlay root
	# makes 6.12's EVM print "evm: overlay not supported".
	cat /sys/kernel/debug/tsa/stats >"/tmp/stats.$r"
	threads=$(awk '$1 == "threads" {print $2}' "/tmp/stats.$r")
	tap $([ "${threads:-0}" -gt 20 ] && echo 0 || echo 1) "round $r: tracking threads (saw ${threads:-none})"
	read -r lines bad <<<"$("$here/tsa-allsum")"
	tap $([ "$lines" -gt 20 ] && [ "$bad" -eq 0 ] && echo 0 || echo 1) \
		"round $r: every line of /proc/tsa/all sums to elapsed under churn ($bad of $lines bad)"
	# Each call row's states add up to its ns (calls=0: no file).
	if [ -e /proc/tsa/calls ]; then
		read -r lines bad <<<"$(awk '
			$1 == "fields" { for (i = 2; i <= NF; i++) col[$i] = i - 1; hdr = 1; next }
			hdr {
				s = 0
				for (f in col)
					if (f ~ /_ns$/) s += $col[f]
				if (s != $col["ns"]) b++
				n++
			}
			END { print n + 0, b + 0 }' /proc/tsa/calls)"
		tap $([ "$lines" -gt 20 ] && [ "$bad" -eq 0 ] && echo 0 || echo 1) \
			"round $r: every line of /proc/tsa/calls adds up under churn ($bad of $lines bad)"
	else
		tap 0 "round $r: no /proc/tsa/calls (loaded with calls=0 or syscalls=0)"
	fi
	sleep 1
	$TSA_QUIESCE rmmod tsa
	tap $? "round $r: rmmod while threads churn"
	left=""
	[ -e /proc/tsa ] && left="$left /proc/tsa"
	[ -e /sys/kernel/debug/tsa ] && left="$left debugfs"
	# A leaked record makes the unload WARN ("objects leaked"): see dmesg.
	tap $([ -z "$left" ] && echo 0 || echo 1) "round $r: unload leaves nothing behind (left:${left:- nothing})"
done
wait "$churn_pid"
tap $? "churn workload ran to completion"
dmesg >/tmp/dmesg.after
# "hrtimer: interrupt took N ns" is the emulator's pace (one host thread
# for all vCPUs under --tcg-single, KASAN on the debug kernel), printed
# once a boot; it is not a report. Nor are the CPU hotplug lines of
# tests/guest/quiesce (multi-threaded TCG), nor tsa's note at each load of
# a hook the kernel lacks (-2, ENOENT: 5.10's contention tracepoints).
new=$(diff /tmp/dmesg.before /tmp/dmesg.after | sed -n 's/^> //p' |
	grep -v -e 'tsa [0-9.]*: tracking threads' -e 'loading out-of-tree module taints kernel' \
		-e 'tsa: cannot hook [a-z_]* (-2): degraded, see ' \
		-e 'tsa: not hooking [a-z_]*: [a-z_]* is not hooked; degraded, see ' \
		-e 'module verification failed' -e 'hrtimer: interrupt took [0-9]* ns$' \
		-e 'smpboot: CPU [0-9]* is now offline$' -e 'x86: Booting SMP configuration:$' \
		-e 'smpboot: Booting Node [0-9]* Processor [0-9]* APIC 0x[0-9a-f]*$' || true)
tap $([ -z "$new" ] && echo 0 || echo 1) "no new dmesg lines but tsa's own"
[ -z "$new" ] || printf '# %s\n' "$new"
echo "churn: $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
