#!/bin/bash
# make check: install what the tests need, build with warnings as errors,
# run every suite, and end with one line "N passed, N failed".
#
#   tests/check.sh [SUITE...]     all suites, or only the named ones
#
# Each suite prints TAP ("ok N - ..." / "not ok N - ...") and its full
# output is kept in tests/out/<suite>.log. A suite that exits non-zero
# without reporting a failure counts as one failure, so a crash never
# passes silently.
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
	engine		"tests/guest/run-engine-tests.sh"
	waits		"tests/guest/run-wait-tests.sh"
	prstat		"tests/guest/run-prstat-tests.sh"
	churn		"tests/guest/run-churn-test.sh"
	rt		"tests/guest/run-rt-tests.sh"
	debug		"tests/guest/run-debug-kernel.sh"
	packaging	"tests/packaging.sh"
)

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

pass=0
fail=0
summary=()
for ((i = 0; i < ${#suites[@]}; i += 2)); do
	name=${suites[i]}
	cmd=${suites[i + 1]}
	wanted "$name" || continue
	log=$out/$name.log
	echo "# --- $name: $cmd"
	t0=$(date +%s)
	bash -c "$cmd" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	read -r p f < <(tsa_tap_count <"$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name: exited with status $rc without a failing test (see $log)"
		f=1
	fi
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name: ran no test (see $log)"
		f=1
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	summary+=("$(printf '%-10s %4d passed %3d failed %5ds' "$name" "$p" "$f" $(($(date +%s) - t0)))")
done

echo "# --- summary ($(($(date +%s) - start)) s)"
printf '# %s\n' "${summary[@]}"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
