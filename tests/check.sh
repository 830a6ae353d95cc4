#!/bin/bash
# make check: install what the tests need, build with warnings as errors,
# run every suite, and end with one line "N passed, N failed".
#
#   tests/check.sh [SUITE...]     all suites, or only the named ones
#                                 ("matrix" names its four series)
#   tests/check.sh --repeat N [SUITE...]
#                                 run them N times over and end with each
#                                 test's pass rate (a flake hunt: a test
#                                 that fails once has a cause to find)
#
# Each suite prints TAP ("ok N - ..." / "not ok N - ...") and its full
# output is kept in tests/out/<suite>.log. A suite that exits non-zero
# without reporting a failure counts as one failure, so a crash never
# passes silently.
#
# Where the time goes: the host has two CPUs, and a guest under
# single-threaded TCG keeps one busy. After the builds (`first`, in the
# tree), two lanes take the single-threaded suites from one queue, each
# suite in a copy of the built tree (tests/out/lanes/SUITE), so that two
# guests run at once and a lane that finishes early takes the next suite
# instead of waiting; builds in a lane use one job (JOBS=1), so that a
# guest beside them keeps its CPU, and the debug kernels build beside the
# lanes at the lowest priority. The multi-threaded suites (`alone`: both
# vCPUs truly in parallel, reader bounds measured against a second CPU)
# run last, one at a time, with nothing beside them. The summary gives
# each suite's lane, start and wall time, and the total against the
# budget (TSA_CHECK_BUDGET, 3600 s: CI's 90 minutes with a third to spare).
set -uo pipefail

TSA_PROG=check
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$TSA_REPO_DIR" || exit 1
out=tests/out
mkdir -p "$out"
budget=${TSA_CHECK_BUDGET:-3600}

# name, then command; the queue's order (each lane takes the next).
suites=(
	# first, in the tree: what every copy reuses (tsa.ko, tsa-prstat)
	build		"tests/build.sh"
	# the lanes, longest first (a short suite last fills the gap left
	# when the other lane ends), but the debug kernels' suites last: on
	# a fresh machine those kernels are still being built (below)
	replay		"tests/guest/run-replay-tests.sh"
	matrix-6.12	"tests/guest/run-matrix-tests.sh 6.12"
	matrix-5.10	"tests/guest/run-matrix-tests.sh 5.10"
	# after the others: the 7.x debug kernel's build installs its source
	# in the same root first, under the series' lock
	matrix-7	"tests/guest/run-matrix-tests.sh 7"
	# (its record section also draws three --svg with rsvg-convert and
	# reads their pixels: 0.9 s each on the host; the section took
	# 108 s in all on 6.1)
	prstat		"tests/guest/run-prstat-tests.sh with-exporter"
	# test-pictures in it (rsvg-convert and headless Chromium each draw
	# four SVGs; protoc decodes five traces): 6 s of CPU, 25 s on the
	# clock measured beside two other suites; its packages, installed
	# by tests/deps.sh, took 11 s, 20 s and 8 s here
	userspace	"make -s -C userspace WERROR=y test"
	# the same suite built by clang with ASan and UBSan, every report
	# fatal, in a copy (tests/out/san): 3 to 6 min (178 s alone; 224
	# and 339 s in a lane beside userspace)
	userspace-san	"bash tests/userspace-san.sh"
	# libFuzzer over every file the readers read: 11 targets, 15 s
	# each, seed 1 (165 s of fuzzing; 181 s in a lane with the build
	# and replays before fuzz_selftext, which adds 16 s; make fuzz:
	# 300 s each, a new seed each run)
	fuzz		"bash tests/fuzz/run.sh --seconds 15 --seed 1"
	# Debian's arm64 6.1 and 7.x kernels, cross-built and booted in
	# qemu-system-aarch64 (tests/arm64.sh; roots prefetched below):
	# warm 289 s with the host's load average at 4.7 (a third of it
	# compiles); roots from nothing add about 90 s, which make check's
	# prefetch spends beside the build suite (docs/kernels.md, arm64)
	matrix-arm64	"tests/guest/run-arm64-tests.sh"
	rt		"tests/guest/run-rt-tests.sh"
	# (tsa-selftest's self-* in phase 1, a thread reading itself by its
	# slot, the ioctl and the text: about 3.5 s of the guest's time, the
	# slot's own self-slot* 0.3 s of it, and 1 s of builds)
	waits		"tests/guest/run-wait-tests.sh"
	engine		"tests/guest/run-engine-tests.sh"
	churn		"tests/guest/run-churn-test.sh"
	packaging	"tests/packaging.sh"
	kunit		"tests/kunit.sh"
	debug7		"tests/guest/run-debug-kernel.sh 7"
	debug		"tests/guest/run-debug-kernel.sh"
	# alone, last: the guest's two vCPUs truly in parallel
	# (multi-threaded TCG); parallel: readers against a syscall
	# spinner, load/unload churn, fault injection (debug kernel).
	parallel	"tests/guest/run-parallel-tests.sh"
	engine-mt	"TSA_TCG=multi tests/guest/run-engine-tests.sh"
	waits-mt	"TSA_TCG=multi tests/guest/run-wait-tests.sh"
	replay-mt	"TSA_TCG=multi tests/guest/run-replay-tests.sh"
	prstat-mt	"TSA_TCG=multi tests/guest/run-prstat-tests.sh"
)
first=" build "
alone=" parallel engine-mt waits-mt replay-mt prstat-mt "
matrix_parts="matrix-5.10 matrix-6.12 matrix-7 matrix-arm64"

repeat=0
if [ "${1:-}" = --repeat ]; then
	repeat=${2:-}
	[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "check.sh: --repeat needs a count" >&2; exit 2; }
	shift 2
fi
names=" "
for ((i = 0; i < ${#suites[@]}; i += 2)); do names+="${suites[i]} "; done
want=()
for w in "$@"; do
	if [ "$w" = matrix ]; then
		read -ra parts <<<"$matrix_parts"
		want+=("${parts[@]}")
		continue
	fi
	[[ $names == *" $w "* ]] || { echo "check.sh: unknown suite '$w' (suites:$names matrix)" >&2; exit 2; }
	want+=("$w")
done
wanted() {
	[ ${#want[@]} -eq 0 ] && return 0
	local w
	for w in "${want[@]}"; do [ "$w" = "$1" ] && return 0; done
	return 1
}

start=$(date +%s)
if ! bash tests/deps.sh; then
	echo "not ok - tests/deps.sh could not install the test dependencies"
	echo "0 passed, 1 failed"
	exit 1
fi
t_deps=$(($(date +%s) - start))

tsa_pin_kernels

# The newer kernels' build roots and images come over the network (minutes,
# cold): fetch them beside the first suites; the suites that need them
# wait on the same lock (tests/kernels.sh) and find them ready.
prefetch=()
for s in 7 6.12 5.10; do
	wanted "matrix-$s" && prefetch+=("$s")
done
! wanted debug7 || [[ " ${prefetch[*]} " == *" 7 "* ]] || prefetch+=(7)
for s in "${prefetch[@]}"; do
	bash tests/kernels.sh provision "$s" >"$out/prefetch-$s.log" 2>&1 &
done
if wanted matrix-arm64; then
	for s in 6.1 7; do
		bash tests/arm64.sh provision "$s" >"$out/prefetch-arm64-$s.log" 2>&1 &
	done
fi
# The debug kernels (tests/kunit.sh, cached by source, configuration and
# compiler): on a fresh machine each is a long build. They start now, at
# the lowest priority, and take the CPU time the guests leave idle (a
# guest waiting on its workload's sleeps halts its vCPU) without taking
# a guest's CPU from it; the suites that boot them come last and wait on
# the build's lock.
prebuild=()
if wanted kunit || wanted debug || wanted parallel; then prebuild+=(6.1); fi
if wanted debug7; then prebuild+=(7); fi
for s in "${prebuild[@]}"; do
	series=()
	[ "$s" = 6.1 ] || series=(--series "$s")
	nice -n 19 bash tests/kunit.sh "${series[@]}" --build-only >"$out/prebuild-$s.log" 2>&1 &
done

# counted NAME RC LOG: set p and f from LOG. A suite that breaks without a
# failing TAP line, or runs nothing, is one failure (a "not ok - NAME: ..."
# line, also appended to LOG).
counted() {
	local name=$1 rc=$2 log=$3
	read -r p f < <(tsa_tap_count <"$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name: exited with status $rc without a failing test (see $log)" | tee -a "$log"
		f=1
	fi
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name: ran no test (see $log)" | tee -a "$log"
		f=1
	fi
}

pass=0
fail=0
summary=()
declare -A sp=() sf=()	# the last round's passes and failures per suite
# tally NAME LABEL LANE T0 T1: add the suite's p and f to the totals.
tally() {
	pass=$((pass + p))
	fail=$((fail + f))
	sp[$1]=$p sf[$1]=$f
	summary+=("$(printf '%-14s %4d passed %3d failed %5ds  %-6s from %5ds' \
		"$2" "$p" "$f" $(($5 - $4)) "$3" $(($4 - start)))")
}

# run_here NAME CMD LOG LABEL LANE: one suite in the tree, nothing beside
# it (first, alone), its output shown as it comes.
run_here() {
	local t0
	t0=$(date +%s)
	echo "# --- $1: $2 ($5)"
	bash -c "$2" 2>&1 | tee "$3"
	counted "$1" "${PIPESTATUS[0]}" "$3"
	tally "$1" "$4" "$5" "$t0" "$(date +%s)"
}

# The lanes. The built tree (tests/out excepted) is packed once; each
# suite unpacks it into tests/out/lanes/NAME and runs there, so suites
# that build in the tree (tsa.ko, tsa-gtest) never meet. A lane takes the
# queue's next line under a lock; each suite's end is a line in done:
# "NAME LANE T0 T1 RC LOG LABEL".
lanes=$out/lanes
lane_run() { # LANE
	local lane=$1 job name cmd log label t0 rc copy
	while :; do
		job=$(flock "$lanes/queue.lock" sh -c 'head -n 1 "$0" && sed -i 1d "$0"' "$lanes/queue")
		[ -n "$job" ] || return 0
		IFS=$'\t' read -r name log label cmd <<<"$job"
		copy=$lanes/$name
		rm -rf "$copy" && mkdir -p "$copy" && tar -C "$copy" -xf "$lanes/tree.tar"
		t0=$(date +%s)
		(cd "$copy" && JOBS=1 bash -c "$cmd" >"$TSA_REPO_DIR/$log" 2>&1)
		rc=$?
		# What the suite wrote in its copy's tests/out, where it would
		# have written it in the tree.
		cp -a "$copy/tests/out/." "$out/" 2>/dev/null
		echo "$name $lane $t0 $(date +%s) $rc $log $label" >>"$lanes/done"
	done
}
# run_lanes: the queue (NAME LOG LABEL CMD lines, tab-separated) through
# two lanes; each suite's output is shown, and counted, as it ends.
run_lanes() {
	local shown=0 n name lane t0 t1 rc log label pids=() pid alive
	n=$(wc -l <"$lanes/queue")
	[ "$n" -gt 0 ] || return 0
	: >"$lanes/done"
	tar -C . --exclude=./tests/out --exclude=./.git -cf "$lanes/tree.tar.tmp" . &&
		mv "$lanes/tree.tar.tmp" "$lanes/tree.tar"
	lane_run 1 &
	pids+=($!)
	lane_run 2 &
	pids+=($!)
	while [ "$shown" -lt "$n" ]; do
		if [ "$(wc -l <"$lanes/done")" -le "$shown" ]; then
			# Both lanes gone with suites left: one broke.
			alive=0
			for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
			[ "$alive" = 1 ] || [ "$(wc -l <"$lanes/done")" -gt "$shown" ] || break
			sleep 2
			continue
		fi
		shown=$((shown + 1))
		read -r name lane t0 t1 rc log label < <(sed -n "${shown}p" "$lanes/done")
		echo "# --- $name: done in lane $lane, $((t1 - t0)) s (its output, from $log)"
		cat "$log"
		counted "$name" "$rc" "$log"
		tally "$name" "$label" "lane $lane" "$t0" "$t1"
	done
	wait "${pids[@]}"
	[ "$shown" -eq "$n" ] || { echo "not ok - check.sh: the lanes ended with $((n - shown)) suites not run"; fail=$((fail + 1)); }
	rm -f "$lanes/tree.tar"
}

rounds=$((repeat > 0 ? repeat : 1))
[ "$repeat" -eq 0 ] || { rm -rf "$out/repeat"; mkdir -p "$out/repeat"; }
rm -rf "$lanes"
mkdir -p "$lanes"
for ((r = 1; r <= rounds; r++)); do
	[ "$repeat" -eq 0 ] || echo "# === round $r of $repeat"
	: >"$lanes/queue"
	for ((i = 0; i < ${#suites[@]}; i += 2)); do
		name=${suites[i]}
		wanted "$name" || continue
		log=$out/$name.log
		[ "$repeat" -eq 0 ] || log=$out/repeat/$name.$r.log
		label=$name
		[ "$repeat" -eq 0 ] || label="$name#$r"
		if [[ $first == *" $name "* ]]; then
			run_here "$name" "${suites[i + 1]}" "$log" "$label" first
		elif [[ $alone == *" $name "* ]]; then
			run_lanes
			: >"$lanes/queue"
			run_here "$name" "${suites[i + 1]}" "$log" "$label" alone
		else
			printf '%s\t%s\t%s\t%s\n' "$name" "$log" "$label" "${suites[i + 1]}" >>"$lanes/queue"
		fi
	done
	run_lanes
done
# The series' support tables, as one (docs/kernels.md comes from it).
if compgen -G "$out/matrix-*/table.md" >/dev/null; then
	mkdir -p "$out/matrix"
	{
		head -n 2 "$(compgen -G "$out/matrix-*/table.md" | head -n 1)"
		for s in $matrix_parts; do
			[ ! -f "$out/$s/table.md" ] || tail -n +3 "$out/$s/table.md"
		done
	} >"$out/matrix/table.md"
fi

# The prefetches and prebuilds are done by now (the suites waited for
# them); none is left behind.
wait
total=$(($(date +%s) - start))
echo "# --- summary ($total s): suite, tests, wall time, lane, start (s after make check began)"
printf '# %s\n' "deps           $(printf '%5ds' "$t_deps")  (tests/deps.sh)" "${summary[@]}"
if [ "$total" -le "$budget" ]; then
	echo "# budget: $total s of $budget s ($((budget - total)) s to spare; CI stops a run at 5400 s)"
else
	echo "# budget: $total s of $budget s: OVER by $((total - budget)) s (CI stops a run at 5400 s)"
fi
# One line per kernel: Debian 12's own from the suites that boot them,
# then the kernel matrix's (its last round).
kline() { # KERNEL FLAVOUR SUITE...
	local k=$1 fl=$2 s line= bad=0
	shift 2
	for s in "$@"; do
		[ -n "${sp[$s]:-}" ] || continue
		line+=" $s ${sp[$s]}/$((sp[$s] + sf[$s]))"
		[ "${sf[$s]}" -eq 0 ] || bad=1
	done
	[ -z "$line" ] || echo "# kernel: $k ($fl):$line: $([ $bad = 0 ] && echo passed || echo FAILED)"
}
kline "$TSA_KERNEL" amd64 engine waits replay prstat churn
kline "$TSA_KERNEL" "amd64, vCPUs in parallel" parallel engine-mt waits-mt replay-mt prstat-mt
kline "${TSA_RT_KERNEL:-none}" rt rt
kline "debug $TSA_KERNEL_SERIES" "KASAN+lockdep" kunit debug
kline "debug 7.x" "KASAN+lockdep" debug7
for m in $matrix_parts; do
	wanted "$m" || continue
	mlog=$out/$m.log
	[ "$repeat" -eq 0 ] || mlog=$out/repeat/$m.$repeat.log
	grep -h '^# matrix: ' "$mlog" 2>/dev/null
done
if [ "$repeat" -gt 0 ]; then
	# One line per test: passes/runs, suite, number, its description
	# with numbers masked (they vary from run to run); not-ok lines
	# without a number (a suite that broke) count as test "-".
	echo "# --- pass rates over $repeat rounds (tests/out/repeat/rates.txt)"
	for ((i = 0; i < ${#suites[@]}; i += 2)); do
		wanted "${suites[i]}" || continue
		for ((r = 1; r <= repeat; r++)); do
			awk -v s="${suites[i]}" '
				/^(not )?ok / {
					ok = $1 == "ok"; $1 = ""; if (!ok) $2 = ""
					n = ($0 ~ /^ +[0-9]+ /) ? $(ok ? 2 : 3) : "-"
					# A suite of two TAP streams (rt, debug)
					# numbers from 1 twice: the second is n/2.
					if (++occ[n] > 1) n = n "/" occ[n]
					d = $0; sub(/^ +[0-9]* *-? */, "", d)
					gsub(/[0-9]+/, "#", d)
					print s, n, ok, substr(d, 1, 100)
				}' "$out/repeat/${suites[i]}.$r.log"
		done
	done | awk -v runs="$repeat" '
		{ k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; order[++nk] = k
		  d = $0; sub(/^[^ ]+ [^ ]+ [01] /, "", d); desc[k] = d }
		  tot[k]++; pass[k] += $3 }
		END { for (i = 1; i <= nk; i++) { k = order[i]
			printf "%3d/%-3d %s %s\n", pass[k], tot[k], k, desc[k]
			if (pass[k] != tot[k] || tot[k] != runs) bad++ }
		  printf "# %d tests, %d not passing in every one of %d rounds\n", nk, bad, runs }' |
		tee "$out/repeat/rates.txt"
fi
# Every failing line again, last, with the lines its suite printed before
# it (what it expected and saw): CI shows only the output's tail.
faillog=()
for ((i = 0; i < ${#suites[@]}; i += 2)); do
	wanted "${suites[i]}" || continue
	for ((r = 1; r <= rounds; r++)); do
		l=$out/${suites[i]}.log
		[ "$repeat" -eq 0 ] || l=$out/repeat/${suites[i]}.$r.log
		[ -f "$l" ] && grep -q '^not ok' "$l" && faillog+=("$l")
	done
done
if [ ${#faillog[@]} -gt 0 ]; then
	echo "# --- failures (the lines before each, from its log)"
	for l in "${faillog[@]}"; do
		echo "# $l:"
		grep -B8 '^not ok' "$l" | cut -c1-300 | head -80
	done
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
