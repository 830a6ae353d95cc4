#!/bin/bash
# Parallel suite: tsa in guests whose two vCPUs truly run at once (QEMU's
# multi-threaded TCG; tests/guest-run --tcg-multi), where the other suites
# run single-threaded: readers, writers, wakers, forks, exits, loads and
# unloads meet as on hardware. Text is patched only with the other CPU
# offline (tests/guest/quiesce); everything else races.
#
#   1. readers: a getppid() spinner on CPU 1 read from CPU 0 through
#      /proc/tsa/<tid>, /proc/tsa/all and /proc/tsa/wakers keeps >= 90 % of the rate it
#      keeps under a reader of /proc/<tid>/status; the 99th percentile
#      read is within 10x the median (each in the median of 25 rounds:
#      the host stalls vCPUs now and then); no copy retries more than a few
#      times (tsa-partest readers).
#   2. load/unload: TSA_PARALLEL_ROUNDS (10) loads and unloads while
#      threads churn on both CPUs and every interface is read; nothing
#      left behind, nothing new in dmesg (churn-test.sh).
#   3. the same 3 rounds on the PREEMPT_RT kernel (interrupts=1 too) and on
#      the debug kernel of tests/kunit.sh (KASAN, lockdep): no report.
#   4. fault injection on the debug kernel, kmemleak on (faults-test.sh).
#
# The engine, waits, replay and prstat suites run there too, as their -mt
# runs in tests/check.sh (TSA_TCG=multi).
# Environment: TSA_KO (use this module, skip its build).
set -euo pipefail
cd "$(dirname "$0")/../.."
TSA_PROG=parallel
# shellcheck source=tests/lib.sh
. tests/lib.sh
tsa_pin_kernels
mkdir -p tests/out
if [ -z "${TSA_KO:-}" ]; then
	make -s module WERROR=y >/dev/null
	TSA_KO=$PWD/tsa.ko
fi
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/churn tests/guest/churn.c
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-partest tests/guest/tsa-partest.c
churn=$PWD/tests/out/churn
rc=0
# part NAME CMD...: run one part; a part that exits non-zero without a
# failing test of its own says so, named (else only the suite's status
# would tell, and not which part).
part() {
	local name=$1 st tmp
	shift
	tmp=$(mktemp)
	"$@" 2>&1 | tee "$tmp"
	st=${PIPESTATUS[0]}
	if [ "$st" -ne 0 ]; then
		rc=1
		grep -q '^not ok' "$tmp" ||
			echo "not ok - $name: exited $st without a failing test (its output above)"
	fi
	rm -f "$tmp"
}
echo "# readers against a syscall spinner ($TSA_KERNEL)"
part readers tests/guest-run --tcg-multi --kernel "$TSA_KERNEL" --module "$TSA_KO" -- \
	tests/out/tsa-partest readers 0.25 25
echo "# load/unload under churn ($TSA_KERNEL)"
part "churn ($TSA_KERNEL)" tests/guest-run --tcg-multi --kernel "$TSA_KERNEL" -- \
	bash tests/guest/churn-test.sh "$TSA_KO" "$churn" "${TSA_PARALLEL_ROUNDS:-10}"

if [ -n "${TSA_RT_KERNEL:-}" ]; then
	src=tests/out/parallel/rt
	rm -rf "$src" && mkdir -p "$src"
	cp -a Kbuild module "$src/"
	make -s -C "/lib/modules/$TSA_RT_KERNEL/build" M="$PWD/$src" TSA_WERROR=y modules \
		>"$src/build.log" 2>&1 || { cat "$src/build.log"; exit 1; }
	for params in "" interrupts=1; do
		echo "# load/unload under churn ($TSA_RT_KERNEL, PREEMPT_RT${params:+, $params})"
		part "churn ($TSA_RT_KERNEL${params:+, $params})" \
			tests/guest-run --tcg-multi --kernel "$TSA_RT_KERNEL" -- \
			bash tests/guest/churn-test.sh "$PWD/$src/tsa.ko" "$churn" 3 "$params"
	done
else
	echo "not ok - no PREEMPT_RT kernel installed (linux-image-rt-amd64)"
	rc=1
fi

bz=$(tests/kunit.sh --print-bzimage)
ko=$(tests/kunit.sh --build-module "$PWD")
echo "# load/unload under churn (debug kernel: KASAN, lockdep; interrupts=1)"
part "churn (debug kernel)" tests/guest-run --tcg-multi --kernel "$bz" --timeout 1200 -- \
	bash tests/guest/churn-test.sh "$ko" "$churn" 3 interrupts=1
echo "# fault injection (debug kernel, kmemleak on)"
part faults tests/guest-run --tcg-multi --kernel "$bz" --timeout 1800 --append kmemleak=on --allow-alloc-failures \
	--allow-dmesg 'kmemleak: (Kernel memory leak detector initialized|Automatic memory scanning thread (started|ended)|[0-9]+ new suspected memory leaks|Cannot allocate a scan area)' \
	--allow-dmesg '[Cc]ommand line: .*kmemleak=on' -- \
	bash tests/guest/faults-test.sh "$ko" "$churn" "$PWD/tests/out/tsa-partest" \
	"${TSA_FAULT_ROUNDS:-4}"
exit $rc
