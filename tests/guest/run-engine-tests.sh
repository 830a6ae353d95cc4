#!/bin/bash
# Engine suite: tsa-gtest in a guest running the stock Debian kernel with
# the freshly built tsa.ko (known workloads, schedstat, exact sums).
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p tests/out
make -s module WERROR=y >/dev/null
gcc -O2 -Wall -Wextra -Werror -pthread -o tests/out/tsa-gtest \
	tests/guest/tsa-gtest.c tests/guest/tsa-read.c
exec tests/guest-run --module tsa.ko -- tests/out/tsa-gtest "$@"
