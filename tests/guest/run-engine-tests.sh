#!/bin/bash
# Engine suite: tsa-gtest in a guest running the stock Debian kernel with
# the freshly built tsa.ko (known workloads, schedstat, exact sums), then
# tsa-ntest (what no reader may hold up, what a container sees).
# Environment: TSA_KO (use this module, skip its build).
set -euo pipefail
cd "$(dirname "$0")/../.."
TSA_PROG=engine
# shellcheck source=tests/lib.sh
. tests/lib.sh
tsa_pin_kernels
mkdir -p tests/out
if [ -z "${TSA_KO:-}" ]; then
	make -s module WERROR=y >/dev/null
	TSA_KO=$PWD/tsa.ko
fi
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-gtest \
	tests/guest/tsa-gtest.c tests/guest/tsa-read.c
# tsa-ntest runs tsa-prstat inside a pid namespace.
[ -x userspace/tsa-prstat ] || make -s userspace WERROR=y >/dev/null
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-ntest \
	tests/guest/tsa-ntest.c tests/guest/tsa-read.c
# Named tests are tsa-gtest's; without names, tsa-ntest's run too (a stuck
# reader, pid namespaces, hidepid=, self and thread-self), in a guest of
# their own.
if [ $# -gt 0 ]; then
	exec tests/guest-run --kernel "$TSA_KERNEL" --module "$TSA_KO" -- tests/out/tsa-gtest "$@"
fi
rc=0
tests/guest-run --kernel "$TSA_KERNEL" --module "$TSA_KO" -- tests/out/tsa-gtest || rc=1
tests/guest-run --kernel "$TSA_KERNEL" --module "$TSA_KO" -- tests/out/tsa-ntest || rc=1
exit $rc
