#!/bin/bash
# The arm64 series of the kernel matrix (make check's matrix-arm64):
# Debian's arm64 generic kernels, 6.1 (bookworm) and the newest 7.x
# (trixie-backports) where the archive has one, cross-built and booted in
# qemu-system-aarch64 (tests/arm64.sh, tests/guest-run --arch arm64). For
# each kernel:
#
#   dkms    the tsa-dkms package installs in the series' root and DKMS
#           builds tsa.ko for the kernel (vermagic checked), cross as
#           Debian's headers do it (on an arm64 machine DKMS builds
#           natively), warnings as errors: the module the boots load
#           (tests/arm64.sh build makes it where DKMS cannot)
#   tests   one boot, tsa.ko loaded (tests/guest/arm64-tests.sh): the
#           engine suite (tsa-gtest: known workloads against schedstat),
#           the waits' LCK/KLK/IDL/SIG/IOW answers (IOW against delay
#           accounting); on the first kernel also the wakers' known
#           answers, tsa-prstat -mL/-A against /proc/tsa (tsa-ptest
#           prstat), tsa-exporter's scrapes against /proc/tsa
#   churn   load and unload three times under thread churn, nothing new
#           in dmesg but tsa's own (tests/guest/churn-test.sh)
#
# tsa-prstat and the test programs are cross-built static once, in the 6.1
# root; tsa-exporter is cross-built against the arm64 libmicrohttpd (no
# static GnuTLS) and runs with its libraries and loader beside it; and
# `make deb` for arm64 there makes the tsa-prstat_VERSION_arm64.deb. Each test's
# name is prefixed with the kernel; the run ends with one line per kernel
# and a support table (tests/out/matrix-arm64/table.md).
#
#   tests/guest/run-arm64-tests.sh [SERIES...]    default: 6.1 7
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
TSA_PROG=matrix-arm64
# shellcheck source=tests/lib.sh
. tests/lib.sh
out=$PWD/tests/out/matrix-arm64
rm -rf "$out" && mkdir -p "$out"
n=0 fails=0
tap() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
}
# A suite's TAP lines, re-numbered into ours with [VER] before each name;
# a suite that breaks without a failing test or runs none is one failure.
run_suite() {
	local ver=$1 name=$2 log rc p=0 f=0 line t0=$SECONDS
	shift 2
	log=$out/$ver-$name.log
	"$@" >"$log" 2>&1
	rc=$?
	while IFS= read -r line; do
		if [[ $line =~ ^(not\ )?ok\ [0-9]+\ -\ (.*)$ ]]; then
			if [ -z "${BASH_REMATCH[1]}" ]; then p=$((p + 1)); tap 0 "[$ver] ${BASH_REMATCH[2]}"
			else f=$((f + 1)); tap 1 "[$ver] ${BASH_REMATCH[2]}"; fi
		elif [[ ! $line =~ ^1\.\.[0-9]+$ ]]; then
			printf '%s\n' "$line"
		fi
	done <"$log"
	if [ "$p" -eq 0 ] || { [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; }; then
		tap 1 "[$ver] $name: exited $rc after $p passed, $f failed (see $log)"
		tail -n 20 "$log" | sed 's/^/# /'
		f=$((f + 1))
	fi
	row+=" $name $p/$((p + f))"
	[ "$f" -eq 0 ] || bad=1
	echo "# [$ver] $name: $p passed, $f failed, $((SECONDS - t0)) s"
}

series_list=("$@")
[ ${#series_list[@]} -gt 0 ] || series_list=(6.1 7)
bin=$out/bin
rows=()
programs=0
for series in "${series_list[@]}"; do
	t0=$SECONDS
	if ! versions=$(bash tests/arm64.sh provision "$series" 2>"$out/provision-$series.log") ||
		[ -z "$versions" ]; then
		# 7.x only where the archive has it: say so, fail nothing.
		if [ "$series" != 6.1 ] && grep -q 'no linux-headers-arm64' "$out/provision-$series.log"; then
			echo "# arm64 $series: the archive has no arm64 kernel of this series; skipped"
			continue
		fi
		tap 1 "arm64 $series: Debian's kernel and its build root ready"
		sed 's/^/# /' "$out/provision-$series.log"
		continue
	fi
	tap 0 "arm64 $series: Debian's kernel and its build root ready (${versions#arm64 }, $((SECONDS - t0)) s)"
	if [ "$programs" = 0 ]; then
		t0=$SECONDS
		bash tests/arm64.sh programs "$series" "$bin" >/dev/null 2>"$out/programs.log"
		st=$?
		tap $st "tsa-prstat, tsa-exporter and the test programs cross-build for arm64, warnings as errors ($((SECONDS - t0)) s)"
		[ $st -eq 0 ] || { sed 's/^/# /' "$out/programs.log" | head -n 30; exit 1; }
		file=$(od -An -j18 -N2 -tu2 "$bin/tsa-exporter" | tr -d ' ')
		[ "$file" = 183 ]
		tap $? "tsa-exporter is an arm64 program (ELF machine expected 183, saw $file)"
		programs=1
		t0=$SECONDS
		bash tests/arm64.sh deb "$series" "$out/deb" >/dev/null 2>"$out/deb.log"
		tap $? "make deb for arm64 in the $series root ($((SECONDS - t0)) s)" || sed 's/^/# /' "$out/deb.log" | tail -n 20
		pdeb=$(find "$out/deb" -name 'tsa-prstat_*_arm64.deb' 2>/dev/null | head -n 1)
		ddeb=$(find "$out/deb" -name 'tsa-dkms_*_all.deb' 2>/dev/null | head -n 1)
		m=$( [ -z "$pdeb" ] || dpkg-deb --fsys-tarfile "$pdeb" | tar -xOf - ./usr/bin/tsa-prstat | head -c 20 | od -An -j18 -N2 -tu2 | tr -d ' ')
		a=$( [ -z "$pdeb" ] || dpkg-deb -f "$pdeb" Architecture)
		dep=$( [ -z "$pdeb" ] || dpkg-deb -f "$pdeb" Depends)
		[ "$a" = arm64 ] && [ "$m" = 183 ] && [[ $dep =~ ^libc6\ \(\>=\ [0-9.]+\), ]]
		tap $? "tsa-prstat's arm64 package: Architecture arm64, an arm64 tsa-prstat, one libc6 version (expected arm64 183 'libc6 (>= N), ...', saw ${a:-none} ${m:-none} '${dep:-none}')"
		# The IOW disk: an ext4 image with a 32 MiB data file, made
		# from a staging directory (no loop device).
		mkdir -p "$out/stage"
		head -c 32M /dev/urandom >"$out/stage/data"
		mke2fs -q -F -t ext4 -b 4096 -d "$out/stage" "$out/disk.img" 64M >/dev/null
		rm -rf "$out/stage"
	fi
	ver=${versions#arm64 }
	bad=0 row=
	ko=$out/$ver/tsa.ko
	dk=
	# The module the boots load is the one DKMS built from the package
	# (one compile a kernel, not two), warnings as errors; without the
	# package, or if DKMS failed, tests/arm64.sh builds it.
	if [ -n "${ddeb:-}" ]; then
		t0=$SECONDS
		vm=$(bash tests/arm64.sh dkms "$series" "$ver" "$ddeb" "$out/$ver" 2>"$out/dkms-$ver.log")
		st=$?
		[ $st -eq 0 ] && [ "${vm%% *}" = "$ver" ] && [[ $vm == *" aarch64"* ]]
		tap $? "[$ver] tsa-dkms installs in the arm64 $series root, DKMS builds tsa.ko (expected vermagic '$ver ... aarch64', saw '${vm:-none}'), and it is removed again (exit $st, $((SECONDS - t0)) s)" &&
			dk=dkms
	fi
	if [ -n "$dk" ] && [ -f "$ko" ]; then
		! grep -v -e 'Skipping BTF generation' "$out/$ver/build.log" | grep -qiE 'warning|error'
		tap $? "[$ver] tsa.ko cross-builds without warnings (DKMS's make.log, TSA_WERROR=y)" ||
			{ sed 's/^/# /' "$out/$ver/build.log" | head -n 30; bad=1; }
	else
		t0=$SECONDS
		bash tests/arm64.sh build "$series" "$ver" "$out/$ver" >/dev/null 2>"$out/$ver.err"
		st=$?
		tap $st "[$ver] tsa.ko cross-builds without warnings in its arm64 $series build root ($((SECONDS - t0)) s)"
		if [ $st -ne 0 ]; then
			sed 's/^/# /' "$out/$ver.err" | head -n 30
			rows+=("$ver|arm64|build FAILED|$dk|-|-|-")
			continue
		fi
	fi
	moddir=$(bash tests/arm64.sh moddir "$series" "$ver")
	files=()
	for f in "$bin"/* "$bin"/lib/*; do [ -f "$f" ] && [ "${f##*.}" != log ] && files+=(--file "$f"); done
	# The readers' guest parts (wakers, tsa-prstat, tsa-exporter: the
	# same code on any kernel) on the first kernel only.
	part=()
	[ ${#rows[@]} -eq 0 ] || part=(kernel)
	run_suite "$ver" tests tests/guest-run --arch arm64 --kernel "$moddir" --module "$ko" \
		--append delayacct --disk "$out/disk.img" --disk-iops 200 --timeout 400 "${files[@]}" \
		--file tests/guest/arm64-tests.sh -- bash "$PWD/tests/guest/arm64-tests.sh" "$bin" "${part[@]}"
	deg=$(sed -n 's/^# aarch64 [^;]*; degraded //p' "$out/$ver-tests.log" | head -n 1)
	run_suite "$ver" churn tests/guest-run --arch arm64 --kernel "$moddir" --timeout 300 \
		--file "$ko" --file "$bin/churn" --file tests/guest/churn-test.sh --file tests/guest/tsa-allsum \
		-- bash "$PWD/tests/guest/churn-test.sh" "$ko" "$bin/churn" 3
	res=passed
	[ "$bad" -eq 0 ] || res=FAILED
	rows+=("$ver|arm64|built (cross)|$dk|${deg:-?}|${row# }|$res")
done
rm -f "$out/disk.img"

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
echo "matrix-arm64: $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
