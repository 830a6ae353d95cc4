#!/bin/bash
# make bench: overhead benchmarks in one guest boot (see tests/guest/bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/deps.sh
make -s module userspace
mkdir -p tests/out
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-bench tests/bench/tsa-bench.c
# tsc=reliable: TCG's TSC is one clock for all vCPUs, but the guest cannot
# prove it and falls back to the HPET, whose every read is an emulated MMIO
# exit; real machines read the TSC. (tsa reads the clock at every event.)
exec tests/guest-run --timeout 1800 --append tsc=reliable -- bash tests/guest/bench.sh \
	"$PWD/tsa.ko" "$PWD/tests/out/tsa-bench" "$PWD/userspace/tsa-prstat"
