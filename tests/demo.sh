#!/bin/bash
# make demo: install what is needed, build tsa.ko and tsa-prstat, boot the
# stock Debian kernel in QEMU with tsa loaded, and show what tsa sees on a
# small real workload (tests/guest/demo-workload.c).
set -euo pipefail
cd "$(dirname "$0")/.."
TSA_PROG=demo
# shellcheck source=tests/lib.sh
. tests/lib.sh
bash tests/deps.sh
tsa_pin_kernels
make -s module userspace
mkdir -p tests/out
gcc -O2 -Wall -pthread -o tests/out/demo-workload tests/guest/demo-workload.c
echo "Booting $TSA_KERNEL in QEMU (software emulation: about a minute)..."
exec tests/guest-run --kernel "$TSA_KERNEL" --module tsa.ko -- \
	bash tests/guest/demo.sh "$PWD/tests/out/demo-workload" "$PWD/userspace/tsa-prstat"
