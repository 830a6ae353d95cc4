#!/bin/bash
# The referee: boot the stock kernel under QEMU with tsa.ko and compare tsa
# with a replay of the raw event trace (tests/guest/replay-tests.sh, with
# tests/guest/tsa-replay.c) on known and third-party workloads. TAP on
# stdout; exit status non-zero if any test failed or the run broke.
#
#   tests/guest/run-replay-tests.sh [WORKLOAD...]   (names as in replay-tests.sh)
#
# Environment: TSA_KO (use this module, skip the build), GUEST_RUN_ARGS,
# TSA_REPLAY_SECS, TSA_REPLAY_TOL_NS.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$repo/tests/out/replay
mkdir -p "$out"
TSA_PROG=replay
# shellcheck source=tests/lib.sh
. "$repo/tests/lib.sh"
tsa_pin_kernels
log() { echo "run-replay-tests: $*" >&2; }
command -v trace-cmd >/dev/null || tsa_die "trace-cmd is missing (tests/deps.sh installs it)"

start=$(date +%s)
if [ -z "${TSA_KO:-}" ]; then
	make -C "$repo" -s module WERROR=y >&2
	TSA_KO=$repo/tsa.ko
fi
gcc -O2 -Wall -Wextra -Werror -o "$out/tsa-replay" \
	"$here/tsa-replay.c" "$here/tsa-read.c"
gcc -O2 -Wall -Wextra -Werror -pthread -o "$out/replay-work" "$here/replay-work.c"

set +e
# shellcheck disable=SC2086 # GUEST_RUN_ARGS is a list of words
"$repo/tests/guest-run" --kernel "$TSA_KERNEL" --module "$TSA_KO" --timeout 900 \
	${GUEST_RUN_ARGS:-} -- bash "$here/replay-tests.sh" "$TSA_KO" "$out" "$@"
rc=$?
set -e
log "exit $rc after $(($(date +%s) - start)) s"
exit "$rc"
