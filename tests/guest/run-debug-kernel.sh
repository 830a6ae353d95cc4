#!/bin/bash
# Debug suite: tsa.ko built for the debug kernel of tests/kunit.sh (KASAN,
# lockdep, atomic-sleep checks, list debugging), then the engine tests on
# it, and the load/unload churn (single-threaded TCG: see tests/guest-run
# --tcg-single). guest-run fails the run on any report.
set -euo pipefail
cd "$(dirname "$0")/../.."
kdir=$(tests/kunit.sh --print-kdir)
bz=$(tests/kunit.sh --print-bzimage)
src=tests/out/debug/src
rm -rf "$src" && mkdir -p "$src" tests/out
cp -a Kbuild module "$src/"
make -s -C "$kdir" M="$PWD/$src" TSA_WERROR=y modules >tests/out/debug/build.log 2>&1 ||
	{ cat tests/out/debug/build.log; exit 1; }
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-gtest \
	tests/guest/tsa-gtest.c tests/guest/tsa-read.c
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/churn tests/guest/churn.c
# Timing checks are for the stock kernel; here the point is the reports.
tests/guest-run --kernel "$bz" --timeout 1200 --module "$src/tsa.ko" \
	--modparams "interrupts=1" -- tests/out/tsa-gtest sleep syscalls stop entries all
tests/guest-run --tcg-single --kernel "$bz" --timeout 1200 -- \
	bash tests/guest/churn-test.sh "$PWD/$src/tsa.ko" "$PWD/tests/out/churn" 3
