#!/bin/bash
# Kernel matrix: the kernels labs run besides Debian 12's 6.1 (which the
# other suites test): Debian's 6.12 (bookworm-backports) and newest 7.x
# (trixie-backports), generic, PREEMPT_RT and cloud. For each: tsa.ko
# builds without a warning in that release's own build root (tests/
# kernels.sh); the generic and RT kernels then boot with it and run the
# engine, wait-state, tsa-prstat (access rule included) and load/unload
# churn suites, each test's name prefixed with the kernel.
#
#   tests/guest/run-matrix-tests.sh [SERIES...]    default: 6.12 7
#
# The cloud flavour is built, not booted: Debian's cloud config has no 9p
# (# CONFIG_NET_9P is not set), and the guest runner mounts the host root
# over 9p. See docs/kernels.md.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
TSA_PROG=matrix
# shellcheck source=tests/lib.sh
. tests/lib.sh
out=$PWD/tests/out/matrix
mkdir -p "$out"
n=0 fails=0
tap() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
}
# Re-number a suite's TAP lines into ours, each name prefixed with [VER].
relay() {
	local ver=$1 line st
	while IFS= read -r line; do
		if [[ $line =~ ^(not\ )?ok\ [0-9]+\ -\ (.*)$ ]]; then
			st=0
			[ -z "${BASH_REMATCH[1]}" ] || st=1
			tap $st "[$ver] ${BASH_REMATCH[2]}"
		elif [[ $line =~ ^(not\ )?ok\ -\ (.*)$ ]]; then
			tap 1 "[$ver] ${BASH_REMATCH[2]}"
		elif [[ $line =~ ^1\.\.[0-9]+$ ]]; then
			echo "# [$ver] plan $line"
		else
			printf '%s\n' "$line"
		fi
	done
}
# run_suite VER NAME CMD...: a suite against the kernel in TSA_KERNEL; one
# failure if it breaks without a failing test or runs none.
run_suite() {
	local ver=$1 name=$2 log rc p f
	shift 2
	log=$out/$ver-$name.log
	echo "# [$ver] $name"
	"$@" >"$log" 2>&1
	rc=$?
	relay "$ver" <"$log"
	read -r p f < <(tsa_tap_count <"$log")
	if [ "$p" -eq 0 ] || { [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; }; then
		tap 1 "[$ver] $name: exited $rc after $p passed, $f failed (see $log)"
		tail -n 20 "$log" | sed 's/^/# /'
	fi
}

series_list=("$@")
[ ${#series_list[@]} -gt 0 ] || series_list=(6.12 7)
for series in "${series_list[@]}"; do
	versions=$(bash tests/kernels.sh provision "$series" 2>"$out/provision-$series.log")
	[ -n "$versions" ]
	tap $? "series $series: Debian's kernels and their build root ready ($(echo "$versions" | tr '\n' ' '))" ||
		sed 's/^/# /' "$out/provision-$series.log"
	while read -r flav ver; do
		[ -n "$ver" ] || continue
		ko=$out/$ver
		bash tests/kernels.sh build "$series" "$ver" "$ko" >/dev/null 2>"$ko.err"
		st=$?
		tap $st "[$ver] tsa.ko builds without warnings in its $series build root"
		[ $st -eq 0 ] || { sed 's/^/# /' "$ko.err" | head -n 30; continue; }
		if [ "$flav" = cloud-amd64 ]; then
			echo "# [$ver] built, not booted: no 9p in Debian's cloud config"
			continue
		fi
		moddir=$(bash tests/kernels.sh moddir "$series" "$ver")
		export TSA_KERNEL=$moddir TSA_KO=$ko/tsa.ko TSA_KERNELS_SHOWN=
		run_suite "$ver" engine bash tests/guest/run-engine-tests.sh
		run_suite "$ver" waits bash tests/guest/run-wait-tests.sh
		run_suite "$ver" prstat bash tests/guest/run-prstat-tests.sh
		TSA_CHURN_ROUNDS=3 run_suite "$ver" churn bash tests/guest/run-churn-test.sh
	done <<<"$versions"
done
echo "1..$n"
echo "matrix: $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
