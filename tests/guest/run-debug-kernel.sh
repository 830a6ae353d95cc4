#!/bin/bash
# Debug suite: tsa.ko built for the debug kernel of tests/kunit.sh (KASAN,
# lockdep, atomic-sleep checks, list debugging), then the engine tests on
# it, and the load/unload churn (single-threaded TCG: see tests/guest-run
# --tcg-single). guest-run fails the run on any report.
#
#   run-debug-kernel.sh [SERIES]   SERIES: the debug kernel built from that
#                                  series of tests/kernels.sh (7: the newest
#                                  7.x), with its KUnit run first; default
#                                  the host's linux-source-6.1
set -euo pipefail
cd "$(dirname "$0")/../.."
series=()
[ $# -eq 0 ] || series=(--series "$1")
bz=$(tests/kunit.sh "${series[@]}" --print-bzimage)
if [ $# -gt 0 ]; then
	tests/kunit.sh "${series[@]}"
fi
ko=$(tests/kunit.sh "${series[@]}" --build-module "$PWD")
mkdir -p tests/out
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-gtest \
	tests/guest/tsa-gtest.c tests/guest/tsa-read.c
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/churn tests/guest/churn.c
# A thread reading itself (the ioctl, libtsa), its timings apart: about
# 10 s more in the first guest.
make -s -C userspace WERROR=y libtsa.a
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-selftest \
	tests/guest/tsa-selftest.c tests/guest/tsa-read.c userspace/libtsa.a
# Timing checks are for the stock kernel; here the point is the reports.
# burst: 1600 threads asleep in read() on a pipe (the stream-fd lookup
# under the rq lock), born faster than the record pool refills. Every
# table a record can have (calls, traps, the distributions), and a read
# of /proc/tsa/hist after.
tests/guest-run --kernel "$bz" --timeout 1200 --module "$ko" \
	--modparams "interrupts=1 hist=1" -- sh -c \
	'"$0" "$@"; rc=$?; cat /proc/tsa/hist >/dev/null || rc=1
	 tests/out/tsa-selftest self-ioctl self-errors self-agree self-fork self-pool self-stress self-slot self-slot-refuse self-slot-fork self-slot-end self-slot-exec self-slot-mono || rc=1
	 exit $rc' \
	tests/out/tsa-gtest sleep syscalls stop entries burst all kthreads
tests/guest-run --tcg-single --kernel "$bz" --timeout 1200 -- \
	bash tests/guest/churn-test.sh "$ko" "$PWD/tests/out/churn" 3
