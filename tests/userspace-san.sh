#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# userspace-san.sh: tsa-prstat, tsa-exporter and their whole test suite
# (make -C userspace test) built by clang with ASan and UBSan, every
# report fatal, in a copy under tests/out/san (the tree's own gcc build
# is left as it is). A leak, an access out of bounds or undefined
# behaviour in the product fails the test that ran it (its exit status
# and stderr are checked); in a test program, the program (run-tests.sh
# counts a program that exits non-zero without a failing test as one).
# Ends with the suite's own line, "userspace: N passed, N failed".
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
out=$repo/tests/out/san
command -v clang >/dev/null || {
	echo "not ok 1 - clang not found (tests/deps.sh installs clang and libclang-rt-14-dev)"
	exit 1
}
rm -rf "$out"
mkdir -p "$out/tests" "$out/module"
cp -a "$repo/userspace" "$out/"
cp -a "$repo/tests/userspace" "$out/tests/"
cp -a "$repo"/module/*.h "$out/module/"
# test-cols checks the JSON keys against docs/json.md (../../docs from
# tests/userspace).
mkdir -p "$out/docs"
cp -a "$repo/docs/json.md" "$out/docs/"
make -s -C "$out/userspace" clean >/dev/null
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
# LSan at every exit, reports on stderr; a report ends the process with
# status 23 (ASan's default exit code is 1: tsa-prstat's usage error).
export ASAN_OPTIONS=detect_leaks=1:exitcode=23:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=23
export LSAN_OPTIONS=exitcode=23
# -Wno-string-concatenation: clang's guess that two literals in an array
# of strings miss a comma (a help text split over lines: scrape.c).
make -s -C "$out/userspace" -j"${JOBS:-2}" CC=clang WERROR=y \
	CFLAGS="-O1 -g -fno-omit-frame-pointer $san -Wno-string-concatenation" \
	LDFLAGS="$san" test
