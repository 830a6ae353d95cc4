#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [--seconds N] [--seed N] [TARGET...]: build the libFuzzer targets of
# tests/fuzz (clang; ASan and UBSan, every report fatal), replay each
# one's regression inputs (regress/TARGET/: inputs that once crashed it),
# then fuzz it for N seconds (default 15) from seeds made of the golden
# files (tests/userspace/golden), its corpus kept in tests/out/fuzz.
# TAP, one line per replay and per run, then "fuzz: ..." with the time
# fuzzed. A crash's input is kept in tests/out/fuzz/crash/ and its
# report's tail shown: add the input to regress/TARGET/ with the fix.
#
# --seed N: libFuzzer's -seed (the same inputs in the same order on
# every run, as far as the time allows); default a new one each run.
#
#   make fuzz (FUZZ_SECONDS=, default 300)   the long runs
#   tests/check.sh fuzz                      15 s each, seed 1, in make check
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
secs=15
seed=0
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) secs=${2:-}; shift 2 ;;
	--seed) seed=${2:-}; shift 2 ;;
	*) break ;;
	esac
done
[[ $secs =~ ^[0-9]+$ ]] || { echo "run.sh: --seconds needs a number" >&2; exit 2; }
[[ $seed =~ ^[0-9]+$ ]] || { echo "run.sh: --seed needs a number" >&2; exit 2; }
out=$repo/tests/out/fuzz
build=$out/build
mkdir -p "$out/crash" "$out/tmp"
n=0
bad=0
tap() { # OK WHAT
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; bad=$((bad + 1)); fi
}

command -v clang >/dev/null || { tap 1 "clang not found (tests/deps.sh installs clang and libclang-rt-14-dev)"; exit 1; }
if ! make -s -C "$here" O="$build" -j"${JOBS:-2}" >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" | sed 's/^/# /'
	tap 1 "the fuzz targets build (tests/out/fuzz/build.log)"
	exit 1
fi
read -ra all <<<"$(make -s -C "$here" print-targets)"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

# Seeds: the golden files each target's input is a kind of.
g=$repo/tests/userspace/golden
seeds=$out/seeds
rm -rf "$seeds"
for t in "${all[@]}"; do mkdir -p "$seeds/$t"; done
for d in "$g"/in/*/; do
	k=$(basename "$d")
	for f in all calls hist wakers; do
		[ ! -f "$d/$f" ] || cp "$d/$f" "$seeds/$f/$k"
	done
done
for d in "$g"/capture-*/; do
	for f in "$d"*; do cp "$f" "$seeds/capture/$(basename "$d")-$(basename "$f")"; done
done
for f in "$g"/record-*/*.rec; do
	k=$(basename "$(dirname "$f")")
	cp "$f" "$seeds/record/$k"
	python3 "$here/recblocks.py" "$f" "$seeds/recblock/$k" 2>/dev/null
done
# The module's calibration file (tsa(4)), the web config of
# tsa-exporter(8), the headers Prometheus and curl send.
printf 'state applied\ncpu 0 sys 120 fault 340\n' >"$seeds/calibration/applied"
printf 'state partial\n' >"$seeds/calibration/partial"
printf 'tls_server_config:\n  cert_file: c.pem\n  key_file: "k.pem"\nbasic_auth_users:\n  alice: $2y$10$abcdefghijklmnopqrstuu5Lq8bX1fQ6Yc6w7W5n3b2pO3d1yZ4K\n# end\n' \
	>"$seeds/webconfig/full"
printf -- '---\nbasic_auth_users:\n  bob: '"'"'$2b$04$x'"'"'\n' >"$seeds/webconfig/users"
printf 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1' \
	>"$seeds/http/prometheus"
printf 'gzip, deflate;q=0.0, br' >"$seeds/http/curl"
# A thread file as libtsa's text fallback reads it: 8 bytes of the
# reader's clock, then the text (docs/proc-format.md).
{
	printf '\x00\x10\xa5\xd4\xe8\x00\x00\x00'
	printf 'tsa-thread 1\ntid 132\npid 132\ncomm tsa-selftest\nsince birth\nstate SYS 37588\nelapsed 136381298\n'
	printf 'degraded TRP\ncalibration applied\n#state ns pct entries longest\n'
	for s in USR SYS TRP TFL DFL KFL APG LCK KLK IOW IDL SLP LAT STP; do
		printf '%s %d 0.00 3 400\n' "$s" $((RANDOM * 1000))
	done
	printf 'sys_calibrated 0\n#counter value\nVCX 1\nICX 2\nSCL 52\nSIG 0\nMINF 120\nMAJF 0\nMIG 1\n'
	printf '#syscall calls ns\nsyscall read 3 400\n'
} >"$seeds/selftext/thread"

total=0
for t in "${targets[@]}"; do
	bin=$build/fuzz_$t
	[ -x "$bin" ] || { tap 1 "fuzz_$t: no such target (targets: ${all[*]})"; continue; }
	reg=$here/regress/$t
	if compgen -G "$reg/*" >/dev/null; then
		nreg=$(find "$reg" -type f | wc -l)
		if TMPDIR=$out/tmp "$bin" -runs=1 "$reg"/* >"$out/$t.regress.log" 2>&1; then
			tap 0 "fuzz_$t: its $nreg regression inputs replay without a report"
		else
			grep -m1 -B2 -A12 'ERROR\|runtime error\|deadly' "$out/$t.regress.log" | sed 's/^/# /'
			tap 1 "fuzz_$t: a regression input fails again (tests/out/fuzz/$t.regress.log)"
		fi
	fi
	[ "$secs" -gt 0 ] || continue
	mkdir -p "$out/corpus/$t"
	t0=$(date +%s)
	TMPDIR=$out/tmp "$bin" -max_total_time="$secs" -seed="$seed" -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 -artifact_prefix="$out/crash/$t-" \
		"$out/corpus/$t" "$seeds/$t" >"$out/$t.log" 2>&1
	rc=$?
	total=$((total + $(date +%s) - t0))
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$out/$t.log" | tail -n 1)
	if [ "$rc" = 0 ]; then
		tap 0 "fuzz_$t: $secs s, ${runs:-?} runs, ${cov:-cov: ?}, no report"
	else
		art=$(grep -o 'Test unit written to [^ ]*' "$out/$t.log" | tail -n 1 | sed 's/Test unit written to //')
		grep -m1 -A14 'ERROR\|runtime error\|deadly signal' "$out/$t.log" | sed 's/^/# /'
		tap 1 "fuzz_$t: a report after ${runs:-?} runs (input: ${art:-none kept}; log tests/out/fuzz/$t.log)"
	fi
done
rm -rf "$out/tmp"
echo "fuzz: ${#targets[@]} targets, $secs s each ($total s fuzzing, seed ${seed/#0/new}), $((n - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
