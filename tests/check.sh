#!/bin/bash
# make check: install what the tests need, build with warnings as errors,
# run every suite, and end with one line "N passed, N failed".
#
#   tests/check.sh [SUITE...]     all suites, or only the named ones
#   tests/check.sh --repeat N [SUITE...]
#                                 run them N times over and end with each
#                                 test's pass rate (a flake hunt: a test
#                                 that fails once has a cause to find)
#
# Each suite prints TAP ("ok N - ..." / "not ok N - ...") and its full
# output is kept in tests/out/<suite>.log. A suite that exits non-zero
# without reporting a failure counts as one failure, so a crash never
# passes silently. The kernel matrix runs beside the single-threaded
# suites (two guests, each one host CPU); the multi-threaded suites,
# which need both CPUs, run last, alone.
set -uo pipefail

TSA_PROG=check
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$TSA_REPO_DIR" || exit 1
out=tests/out
mkdir -p "$out"

# name, then command; in the order they run (cheap and basic first).
suites=(
	build		"tests/build.sh"
	userspace	"make -s -C userspace WERROR=y test"
	kunit		"tests/kunit.sh"
	matrix		"tests/guest/run-matrix-tests.sh"
	engine		"tests/guest/run-engine-tests.sh"
	waits		"tests/guest/run-wait-tests.sh"
	replay		"tests/guest/run-replay-tests.sh"
	prstat		"tests/guest/run-prstat-tests.sh"
	churn		"tests/guest/run-churn-test.sh"
	rt		"tests/guest/run-rt-tests.sh"
	debug		"tests/guest/run-debug-kernel.sh"
	debug7		"tests/guest/run-debug-kernel.sh 7"
	packaging	"tests/packaging.sh"
	# The same again with the guest's two vCPUs truly in parallel
	# (multi-threaded TCG); parallel: readers against a syscall
	# spinner, load/unload churn, fault injection (debug kernel).
	parallel	"tests/guest/run-parallel-tests.sh"
	engine-mt	"TSA_TCG=multi tests/guest/run-engine-tests.sh"
	waits-mt	"TSA_TCG=multi tests/guest/run-wait-tests.sh"
	replay-mt	"TSA_TCG=multi tests/guest/run-replay-tests.sh"
	prstat-mt	"TSA_TCG=multi tests/guest/run-prstat-tests.sh"
)
# A single-threaded TCG guest keeps one host CPU busy, so two such suites
# can run at once on two CPUs: the suites of `beside` run in the
# background, from a copy of the tree (tests/out/beside/SUITE: they build
# in the tree too), while the suites after them run; a suite of `alone`
# (multi-threaded TCG, both CPUs) waits for them first, as does the end
# of a round.
beside=" matrix "
alone=" parallel engine-mt waits-mt replay-mt prstat-mt "

repeat=0
if [ "${1:-}" = --repeat ]; then
	repeat=${2:-}
	[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "check.sh: --repeat needs a count" >&2; exit 2; }
	shift 2
fi
names=" "
for ((i = 0; i < ${#suites[@]}; i += 2)); do names+="${suites[i]} "; done
for w in "$@"; do
	[[ $names == *" $w "* ]] || { echo "check.sh: unknown suite '$w' (suites:$names)" >&2; exit 2; }
done
want=("$@")
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

tsa_pin_kernels

# The newer kernels' build roots and images come over the network (minutes,
# cold): fetch them beside the first suites; the suites that need them
# wait on the same lock (tests/kernels.sh) and find them ready.
prefetch=()
wanted matrix && prefetch+=(5.10 6.12 7)
! wanted debug7 || [ ${#prefetch[@]} -gt 0 ] || prefetch+=(7)
for s in "${prefetch[@]}"; do
	bash tests/kernels.sh provision "$s" >"$out/prefetch-$s.log" 2>&1 &
done

# run_suite NAME CMD LOG: run one suite into LOG (its output shown as it
# comes), then count it (counted).
run_suite() {
	echo "# --- $1: $2"
	bash -c "$2" 2>&1 | tee "$3"
	counted "$1" "${PIPESTATUS[0]}" "$3"
}

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
# tally NAME LABEL T0: add the suite's p and f to the totals.
tally() {
	pass=$((pass + p))
	fail=$((fail + f))
	sp[$1]=$p sf[$1]=$f
	summary+=("$(printf '%-14s %4d passed %3d failed %5ds' "$2" "$p" "$f" $(($(date +%s) - $3)))")
}

# start_beside NAME CMD LOG LABEL: run the suite in the background from a
# fresh copy of the tree, its output to LOG only; join_beside waits for
# every such suite, shows its output and counts it.
bg=()
start_beside() {
	local copy=$out/beside/$1
	rm -rf "$copy" && mkdir -p "$copy" &&
		tar -C . --exclude=./tests/out --exclude=./.git -cf - . | tar -C "$copy" -xf -
	echo "# --- $1: $2 (beside the suites below, in $copy)"
	(cd "$copy" && bash -c "$2" >"$TSA_REPO_DIR/$3" 2>&1; echo $? >"$TSA_REPO_DIR/$3.rc") &
	bg+=("$! $1 $3 $(date +%s) $4")
}
join_beside() {
	local job pid name log t0 label
	for job in "${bg[@]}"; do
		read -r pid name log t0 label <<<"$job"
		wait "$pid"
		echo "# --- $name: done (its output, from $log)"
		cat "$log"
		counted "$name" "$(cat "$log.rc" 2>/dev/null || echo 1)" "$log"
		rm -f "$log.rc"
		# What it wrote in its copy's tests/out, where the suite
		# alone would have written it.
		[ ! -d "$out/beside/$name/tests/out/$name" ] ||
			{ rm -rf "${out:?}/$name" && cp -a "$out/beside/$name/tests/out/$name" "$out/"; }
		tally "$name" "$label" "$t0"
	done
	bg=()
}

rounds=$((repeat > 0 ? repeat : 1))
[ "$repeat" -eq 0 ] || { rm -rf "$out/repeat"; mkdir -p "$out/repeat"; }
for ((r = 1; r <= rounds; r++)); do
	for ((i = 0; i < ${#suites[@]}; i += 2)); do
		name=${suites[i]}
		wanted "$name" || continue
		log=$out/$name.log
		[ "$repeat" -eq 0 ] || { log=$out/repeat/$name.$r.log; echo "# === round $r of $repeat"; }
		label=$name
		[ "$repeat" -eq 0 ] || label="$name #$r"
		if [[ $beside == *" $name "* ]]; then
			start_beside "$name" "${suites[i + 1]}" "$log" "$label"
			continue
		fi
		[[ $alone != *" $name "* ]] || join_beside
		t0=$(date +%s)
		run_suite "$name" "${suites[i + 1]}" "$log"
		tally "$name" "$label" "$t0"
	done
	join_beside
done

echo "# --- summary ($(($(date +%s) - start)) s)"
printf '# %s\n' "${summary[@]}"
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
mlog=$out/matrix.log
[ "$repeat" -eq 0 ] || mlog=$out/repeat/matrix.$repeat.log
! wanted matrix || grep -h '^# matrix: ' "$mlog" 2>/dev/null
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
