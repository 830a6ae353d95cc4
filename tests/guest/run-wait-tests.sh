#!/bin/bash
# "Why a thread waits": boot the stock kernel under QEMU with tsa.ko and run
# the wait-state tests (tests/guest/tsa-wtest.c via wait-tests.sh). TAP on
# stdout; exit status non-zero if any test failed or the run broke.
#
#   tests/guest/run-wait-tests.sh [TEST...]     (names as in tsa-wtest.c)
#
# Builds tsa.ko (make module) and tsa-wtest into tests/out/wait/, makes the
# disks there: an ext4 image holding a 32 MiB data file (for IOW and DFL:
# pages that really come from the virtio disk; the TFL and KLK tests write
# their files there), and a raw scratch disk for swap (APG). One boot, ~1.5 min on TCG.
# Environment: TSA_KO (use this module, skip the build), GUEST_RUN_ARGS.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$repo/tests/out/wait
mkdir -p "$out"
TSA_PROG=waits
# shellcheck source=tests/lib.sh
. "$repo/tests/lib.sh"
tsa_pin_kernels
log() { echo "run-wait-tests: $*" >&2; }

start=$(date +%s)
if [ -z "${TSA_KO:-}" ]; then
	make -C "$repo" -s module WERROR=y >&2
	TSA_KO=$repo/tsa.ko
fi
# tsa-prstat -H reads the module's /proc/tsa/hist in phase 4b.
make -C "$repo" -s userspace WERROR=y >&2
gcc -O2 -Wall -Wextra -Werror -pthread -o "$out/tsa-wtest" \
	"$here/tsa-wtest.c" "$here/tsa-read.c"
gcc -O2 -Wall -Wextra -Werror -o "$out/tsa-race" "$here/tsa-race.c" "$here/tsa-read.c"
# A thread reads itself (the ioctl, libtsa, the example request loop).
gcc -O2 -Wall -Wextra -Werror -pthread -o "$out/tsa-selftest" \
	"$here/tsa-selftest.c" "$here/tsa-read.c" "$repo/userspace/libtsa.a"
gcc -O2 -Wall -Wextra -Werror -pthread -I"$repo/userspace/libtsa" \
	-o "$out/request-loop" "$repo/docs/examples/request-loop.c" "$repo/userspace/libtsa.a"
# The same read from a 32-bit program (the compat ioctl): clang, no libc.
clang -m32 -O2 -Wall -Werror -ffreestanding -nostdlib -static -fno-stack-protector \
	-I"/usr/include/$(gcc -print-multiarch)" -o "$out/tsa-self32" "$here/tsa-self32.c"
# Who woke it: the wakers' known answers (run beside tsa-wtest).
gcc -O2 -Wall -Wextra -Werror -pthread -o "$out/tsa-waketest" \
	"$here/tsa-waketest.c" "$here/tsa-read.c"
# The test-only helper module (TASK_WAKING, undone sleeps), where this
# host has the target kernel's build tree, or in the series's build root
# for the matrix's unpacked kernels (tests/kernels.sh race).
rm -rf "$out/race"
if [ ! -d "$TSA_KERNEL" ] && [ -n "${KDIR:-}" ] && [ -d "$KDIR" ]; then
	mkdir -p "$out/race"
	cp "$here/race/Kbuild" "$here/race/tsa_race.c" "$out/race/"
	make -s -C "$KDIR" M="$out/race" modules >"$out/race/build.log" 2>&1 ||
		tsa_die "building tests/guest/race/tsa_race.c failed: $(tail -5 "$out/race/build.log")"
elif [[ $TSA_KERNEL =~ /kernels/([^/]+)/images/([^/]+)/lib/modules/([^/]+)/?$ ]]; then
	bash "$repo/tests/kernels.sh" race "${BASH_REMATCH[1]}" "${BASH_REMATCH[3]}" "$out/race" >/dev/null ||
		tsa_die "building tests/guest/race/tsa_race.c for ${BASH_REMATCH[3]} failed"
fi

# The ext4 disk: made from a staging dir, no root or loop device needed.
stage=$out/stage
rm -rf "$stage"
mkdir -p "$stage"
head -c 32M /dev/urandom >"$stage/data"
rm -f "$out/disk.img" "$out/swap.img"
mke2fs -q -F -t ext4 -b 4096 -d "$stage" "$out/disk.img" 64M
truncate -s 128M "$out/swap.img"
rm -rf "$stage"

set +e
# shellcheck disable=SC2086 # GUEST_RUN_ARGS is a list of words
"$repo/tests/guest-run" --kernel "$TSA_KERNEL" --module "$TSA_KO" --append delayacct --timeout 300 \
	--disk "$out/disk.img" --disk "$out/swap.img" ${GUEST_RUN_ARGS:-} \
	-- bash "$here/wait-tests.sh" "$TSA_KO" "$out/tsa-wtest" "$@"
rc=$?
set -e
rm -f "$out/disk.img" "$out/swap.img"
log "exit $rc after $(($(date +%s) - start)) s"
exit "$rc"
