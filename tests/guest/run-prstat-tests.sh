#!/bin/bash
# Issue-5 suite, "tsa-prstat and the interfaces it reads": boot the stock
# kernel under QEMU with the freshly built tsa.ko and run prstat-tests.sh
# (known workloads vs tsa-prstat and /proc/tsa/<tid>, process totals while
# threads exit, access as nobody, error paths, signals, module unloaded).
# TAP on stdout; exit status non-zero if any test failed or the run broke.
#
#   tests/guest/run-prstat-tests.sh [SECTION...]   (as in prstat-tests.sh;
#                                   default all)
#
# Builds tsa.ko and tsa-prstat (make module userspace WERROR=y) and
# tsa-ptest into tests/out/prstat/. One boot, ~1.5 min on TCG, 2 vCPUs.
# The guest script unloads tsa.ko itself (to test tsa-prstat without it),
# hence --no-unload.
# Environment: TSA_KO (use this module, skip its build), GUEST_RUN_ARGS.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$repo/tests/out/prstat
mkdir -p "$out"
TSA_PROG=prstat
# shellcheck source=tests/lib.sh
. "$repo/tests/lib.sh"
tsa_pin_kernels
log() { echo "run-prstat-tests: $*" >&2; }

start=$(date +%s)
if [ -z "${TSA_KO:-}" ]; then
	make -C "$repo" -s module WERROR=y >&2
	TSA_KO=$repo/tsa.ko
fi
make -C "$repo" -s userspace WERROR=y >&2
gcc -O2 -Wall -Wextra -Werror -pthread -o "$out/tsa-ptest" \
	"$here/tsa-ptest.c" "$here/tsa-read.c" -lm

set +e
# shellcheck disable=SC2086 # GUEST_RUN_ARGS is a list of words
# tsa-exporter's Prometheus test adds 2.5-4 minutes (a busy host).
timeout=300
[ "${1:-}" != with-exporter ] || timeout=600
"$repo/tests/guest-run" --kernel "$TSA_KERNEL" --module "$TSA_KO" --allow-oom --no-unload --smp 2 --timeout "$timeout" \
	${GUEST_RUN_ARGS:-} -- \
	bash "$here/prstat-tests.sh" "$repo/userspace/tsa-prstat" "$out/tsa-ptest" "$@"
rc=$?
set -e
log "exit $rc after $(($(date +%s) - start)) s"
exit "$rc"
