#!/bin/bash
# make bench: overhead benchmarks in one guest boot (see tests/guest/bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
TSA_PROG=bench
# shellcheck source=tests/lib.sh
. tests/lib.sh
bash tests/deps.sh
tsa_pin_kernels
make -s module userspace
mkdir -p tests/out
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-bench tests/bench/tsa-bench.c
echo "bench: kernel $TSA_KERNEL, QEMU TCG single-threaded, tsc=reliable"
# guest-run boots with tsc=reliable (the TSC clock, as on real machines;
# tsa reads the clock at every event) and single-threaded TCG, which the
# bench needs: it loads and unloads tsa many times (see tests/guest-run).
exec tests/guest-run --kernel "$TSA_KERNEL" --tcg-single --timeout 1800 -- \
	bash tests/guest/bench.sh "$PWD/tsa.ko" "$PWD/tests/out/tsa-bench" "$PWD/userspace/tsa-prstat"
