#!/bin/bash
# Churn suite: load/unload tsa.ko repeatedly in a guest while threads and
# processes churn (see churn-test.sh).
# Environment: TSA_KO (use this module, skip its build), TSA_CHURN_ROUNDS (5).
set -euo pipefail
cd "$(dirname "$0")/../.."
TSA_PROG=churn
# shellcheck source=tests/lib.sh
. tests/lib.sh
tsa_pin_kernels
mkdir -p tests/out
if [ -z "${TSA_KO:-}" ]; then
	make -s module WERROR=y >/dev/null
	TSA_KO=$PWD/tsa.ko
fi
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/churn tests/guest/churn.c
# TSA_TCG=multi: vCPUs in parallel; the loads and unloads are quiesced.
exec tests/guest-run --kernel "$TSA_KERNEL" "$@" -- bash tests/guest/churn-test.sh "$TSA_KO" "$PWD/tests/out/churn" "${TSA_CHURN_ROUNDS:-5}"
