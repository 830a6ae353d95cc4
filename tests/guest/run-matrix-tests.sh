#!/bin/bash
# Kernel matrix: the kernels labs run besides Debian 12's 6.1 (which the
# other suites test): Debian 11's 5.10 (bullseye), Debian's 6.12
# (bookworm-backports) and newest 7.x (trixie-backports), generic,
# PREEMPT_RT and cloud, at the versions the archive names today
# (tests/kernels.sh; printed). For each kernel:
#
#   build   tsa.ko builds without a warning in its release's build root
#   dkms    the tsa-dkms package of `make deb` installs in that root and
#           DKMS builds tsa.ko for the kernel (vermagic checked)
#   generic engine, wait-state and tsa-prstat suites (access rule included;
#           tsa-prstat's kernel-independent views, signals, groups and
#           the recorder, on 6.12 only, or on all with TSA_MATRIX_FULL=1,
#           as make soak runs them), and the event-trace replay on
#           nine of its workloads and USR/SYS against the kernel's vtime
#           (usrsys)
#   rt      engine suite (interrupts=1), the wakers' known answers
#           (tsa-waketest) and the load/unload churn
#
# The engine suite's first test says what the module lost at load (a hook
# the kernel lacks shows as a degraded state; only TRP is expected, and
# only with interrupts=0, and KLK before 5.19: no lock contention
# tracepoints).
#   cloud   engine suite (load, run, unload) with the initramfs as the
#           guest's root: Debian's cloud config has no 9p
#
# Each test's name is prefixed with the kernel; the run ends with one line
# per kernel and a support table (tests/out/matrix/table.md; one series
# alone, as make check runs them: tests/out/matrix-SERIES/table.md).
#
#   tests/guest/run-matrix-tests.sh [SERIES...]    default: 5.10 6.12 7
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
TSA_PROG=matrix
# shellcheck source=tests/lib.sh
. tests/lib.sh
out=$PWD/tests/out/matrix
[ $# -ne 1 ] || out=$PWD/tests/out/matrix-$1
rm -rf "$out" && mkdir -p "$out"
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
# run_suite VER NAME CMD...: a suite against one kernel; one failure if it
# breaks without a failing test or runs none. Adds "NAME p/t" to $row.
run_suite() {
	local ver=$1 name=$2 log rc p f t0=$SECONDS
	shift 2
	log=$out/$ver-$name.log
	echo "# [$ver] $name"
	"$@" >"$log" 2>&1
	rc=$?
	relay "$ver" <"$log"
	read -r p f < <(tsa_tap_count <"$log")
	if [ "$p" -eq 0 ] || { [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; }; then
		# A suite of several boots: the runner's own verdicts (a splat,
		# a failed rmmod, a timeout) name the boot that broke; printed
		# just before the failure, which check.sh's summary repeats
		# with the lines before it.
		grep -E '^(guest-run|run-[a-z]+-tests):' "$log" | grep -v ': kernel ' |
			head -n 60 | sed 's/^/# /'
		tap 1 "[$ver] $name: exited $rc after $p passed, $f failed (see $log)"
		tail -n 20 "$log" | sed 's/^/# /'
		f=$((f + 1))
	fi
	row+=" $name $p/$((p + f))"
	# tsa-gtest names what the module lost on this kernel at load.
	[ "$name" != engine ] || deg=$(sed -n 's/^# module: degraded //p' "$log" | head -n 1)
	[ "$f" -eq 0 ] || bad=1
	echo "# [$ver] $name: $p passed, $f failed, $((SECONDS - t0)) s"
}

# One package for every root: what a user installs.
make -s --no-print-directory deb DEBOUT="$out/deb" >"$out/deb.log" 2>&1
tap $? "make deb (the tsa-dkms package the roots install)" || sed 's/^/# /' "$out/deb.log"
ddeb=$(find "$out/deb" -maxdepth 1 -name 'tsa-dkms_*_all.deb' 2>/dev/null | head -n 1)
version=$(sed -n 's/^#define TSA_VERSION "\(.*\)"/\1/p' module/tsa_version.h)

# dkms_check SERIES: tsa-dkms installs in the series root; DKMS builds for
# each of its kernels (sets dkms_ok[VER]); the package is removed again.
declare -A dkms_ok=()
dkms_check() {
	local series=$1 root flav ver st ko vm log=$out/dkms-$1.log
	root=$TSA_CACHE/kernels/$series/root
	[ -n "$ddeb" ] || return 0
	cp "$ddeb" "$root/tmp/tsa-dkms.deb"
	tsa_in_root "$root" dpkg -i /tmp/tsa-dkms.deb >"$log" 2>&1
	tap $? "series $series: dpkg -i tsa-dkms in the $series root" || { sed 's/^/# /' "$log" | tail -n 20; return 0; }
	while read -r flav ver; do
		[ -n "$ver" ] || continue
		tsa_in_root "$root" dkms build -m tsa -v "$version" -k "$ver" >>"$log" 2>&1
		st=$?
		ko=$(find "$root/var/lib/dkms/tsa/$version/$ver" -path '*/module/tsa.ko*' 2>/dev/null | head -n 1)
		vm=$( [ -z "$ko" ] || modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)
		[ "$st" -eq 0 ] && [ "$vm" = "$ver" ]
		tap $? "[$ver] dkms build in the $series root: tsa.ko with vermagic $ver (saw '${vm:-none}', exit $st)" &&
			dkms_ok[$ver]=1
	done <<<"$versions"
	tsa_in_root "$root" dpkg -r tsa-dkms >>"$log" 2>&1
	tap $? "series $series: dpkg -r tsa-dkms removes it (dkms status: '$(tsa_in_root "$root" dkms status -m tsa 2>&1)')"
}

gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-gtest \
	tests/guest/tsa-gtest.c tests/guest/tsa-read.c || tap 1 "tsa-gtest builds"
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-ntest \
	tests/guest/tsa-ntest.c tests/guest/tsa-read.c || tap 1 "tsa-ntest builds"
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/churn tests/guest/churn.c || tap 1 "churn builds"
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-waketest \
	tests/guest/tsa-waketest.c tests/guest/tsa-read.c || tap 1 "tsa-waketest builds"

series_list=("$@")
[ ${#series_list[@]} -gt 0 ] || series_list=(5.10 6.12 7)
rows=()
for series in "${series_list[@]}"; do
	t0=$SECONDS
	versions=$(bash tests/kernels.sh provision "$series" 2>"$out/provision-$series.log")
	[ -n "$versions" ]
	tap $? "series $series: Debian's kernels and their build root ready ($(echo "$versions" | tr '\n' ' ')$((SECONDS - t0)) s)" ||
		{ sed 's/^/# /' "$out/provision-$series.log"; continue; }
	dkms_check "$series"
	while read -r flav ver; do
		[ -n "$ver" ] || continue
		bad=0 row= deg=
		ko=$out/$ver
		t0=$SECONDS
		bash tests/kernels.sh build "$series" "$ver" "$ko" >/dev/null 2>"$ko.err"
		st=$?
		tap $st "[$ver] tsa.ko builds without warnings in its $series build root ($((SECONDS - t0)) s)"
		if [ $st -ne 0 ]; then
			sed 's/^/# /' "$ko.err" | head -n 30
			rows+=("$ver|${flav%-amd64}|build FAILED|${dkms_ok[$ver]:+dkms}|-|-|-")
			continue
		fi
		moddir=$(bash tests/kernels.sh moddir "$series" "$ver")
		export TSA_KERNEL=$moddir TSA_KO=$ko/tsa.ko TSA_KERNELS_SHOWN=1
		case $flav in
		amd64)
			run_suite "$ver" engine tests/guest-run --kernel "$moddir" --module "$TSA_KO" -- tests/out/tsa-gtest
			run_suite "$ver" trust tests/guest-run --kernel "$moddir" --module "$TSA_KO" -- tests/out/tsa-ntest
			run_suite "$ver" waits bash tests/guest/run-wait-tests.sh
			# What tsa-prstat makes of the module's files, on every
			# kernel; its views of them (signals, groups and the
			# metrics export, the flight recorder) are the same
			# user-space code on any kernel: 6.12 runs them here, 6.1
			# in the prstat suites.
			sections=()
			[ "$series" = 6.12 ] || [ -n "${TSA_MATRIX_FULL:-}" ] ||
				sections=(workloads exits access errors calls unload)
			run_suite "$ver" prstat bash tests/guest/run-prstat-tests.sh "${sections[@]}"
			# The event-trace referee on every generic kernel (the
			# known workloads and three of the stressors: about 3
			# minutes a kernel), USR/SYS against the kernel's vtime
			# on a nohz_full CPU (2 minutes), and calibrated SYS
			# against loops timed from user space (1 minute).
			run_suite "$ver" replay bash tests/guest/run-replay-tests.sh \
				lockhand spin2 pipe faults sleeper cg20 sng-futex sng-cpu sng-sem usrsys sysref
			;;
		rt-amd64)
			run_suite "$ver" engine tests/guest-run --kernel "$moddir" --module "$TSA_KO" \
				--modparams interrupts=1 -- tests/out/tsa-gtest
			# The wakers' known answers under threaded interrupts.
			run_suite "$ver" wakers tests/guest-run --kernel "$moddir" --module "$TSA_KO" \
				--modparams interrupts=1 -- tests/out/tsa-waketest
			run_suite "$ver" churn tests/guest-run --kernel "$moddir" -- \
				bash tests/guest/churn-test.sh "$TSA_KO" "$PWD/tests/out/churn" 3
			;;
		cloud-amd64)
			# --cpu: see tests/guest-run (a TCG fault on 6.12 cloud).
			run_suite "$ver" engine tests/guest-run --kernel "$moddir" --initramfs-root \
				--cpu max,cx16=off --module "$TSA_KO" -- tests/out/tsa-gtest
			;;
		esac
		res=passed
		[ "$bad" -eq 0 ] || res=FAILED
		rows+=("$ver|${flav%-amd64}|built|${dkms_ok[$ver]:+dkms}|${deg:-?}|${row# }|$res")
	done <<<"$versions"
done

# One line per kernel, and the same as a table for docs/kernels.md.
{
	echo "| kernel | flavour | tsa.ko | DKMS | degraded at load | suites (passed/run) | result |"
	echo "|---|---|---|---|---|---|---|"
	for r in "${rows[@]}"; do
		IFS='|' read -r v f b d g s res <<<"$r"
		echo "| $v | $f | $b | ${d:-no} | $g | $s | $res |"
	done
} >"$out/table.md"
for r in "${rows[@]}"; do
	IFS='|' read -r v f b d g s res <<<"$r"
	echo "# matrix: $v ($f): $b, ${d:-no dkms}, degraded $g, $s: $res"
done
echo "1..$n"
echo "matrix: $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
