#!/bin/bash
# Parallel suite: tsa in guests whose two vCPUs truly run at once (QEMU's
# multi-threaded TCG; tests/guest-run --tcg-multi), where the other suites
# run single-threaded: readers, writers, wakers, forks, exits, loads and
# unloads meet as on hardware. Text is patched only with the other CPU
# offline (tests/guest/quiesce); everything else races.
#
#   1. readers: a getppid() spinner on CPU 1 read from CPU 0 through
#      /proc/tsa/<tid> and /proc/tsa/all keeps >= 90 % of the rate it
#      keeps under a reader of /proc/<tid>/status; the 99th percentile
#      read is within 10x the median; no copy retries more than a few
#      times (tsa-partest readers).
#   2. load/unload: TSA_PARALLEL_ROUNDS (10) loads and unloads while
#      threads churn on both CPUs and every interface is read; nothing
#      left behind, nothing new in dmesg (churn-test.sh).
#
# The engine, waits, replay, prstat and churn suites run here too, as
# their -mt runs in tests/check.sh (TSA_TCG=multi).
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
gcc -O2 -Wall -Wextra -Werror -o tests/out/tsa-partest tests/guest/tsa-partest.c
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/churn tests/guest/churn.c
rc=0
tests/guest-run --tcg-multi --kernel "$TSA_KERNEL" --module "$TSA_KO" -- \
	tests/out/tsa-partest readers 2 3 || rc=1
tests/guest-run --tcg-multi --kernel "$TSA_KERNEL" -- \
	bash tests/guest/churn-test.sh "$TSA_KO" "$PWD/tests/out/churn" \
	"${TSA_PARALLEL_ROUNDS:-10}" || rc=1
exit $rc
