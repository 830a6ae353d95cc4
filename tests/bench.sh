#!/bin/bash
# make bench: overhead benchmarks in one guest boot (see tests/guest/bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/deps.sh
make -s module userspace
mkdir -p tests/out
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-bench tests/bench/tsa-bench.c
exec tests/guest-run --timeout 1800 -- bash tests/guest/bench.sh \
	"$PWD/tsa.ko" "$PWD/tests/out/tsa-bench" "$PWD/userspace/tsa-prstat"
