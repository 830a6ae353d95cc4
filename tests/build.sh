#!/bin/bash
# Build suite: tsa.ko for the Debian generic and PREEMPT_RT headers,
# tsa-prstat, the bench's floor module and instruction meter, all with
# warnings as errors, and checkpatch on module/ and the floor module.
set -uo pipefail

TSA_PROG=build
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$TSA_REPO_DIR" || exit 1
tsa_pin_kernels
out=tests/out/build
mkdir -p "$out"
n=0
fails=0

tap() { # tap OK DESCRIPTION [LOG]
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		[ -n "${3:-}" ] && sed 's/^/# /' "$3" | tail -n 30
		fails=$((fails + 1))
	fi
}

make -s module WERROR=y >"$out/module.log" 2>&1
tap $? "tsa.ko builds without warnings against $(make -s print-kdir)" "$out/module.log"

# The RT flavour from a scratch copy, so the two builds do not share objects.
rt=${TSA_RT_KERNEL:+/lib/modules/$TSA_RT_KERNEL/build}
if [ -n "$rt" ] && [ -d "$rt" ]; then
	rm -rf "$out/rt" && mkdir -p "$out/rt"
	cp -a Kbuild module "$out/rt/"
	make -C "$rt" M="$PWD/$out/rt" TSA_WERROR=y modules >"$out/rt.log" 2>&1
	tap $? "tsa.ko builds without warnings against $TSA_RT_KERNEL (PREEMPT_RT)" "$out/rt.log"
else
	tap 1 "PREEMPT_RT headers installed (linux-headers-rt-amd64)"
fi

make -s userspace WERROR=y >"$out/userspace.log" 2>&1
tap $? "tsa-prstat builds without warnings" "$out/userspace.log"

# make bench's pieces: they are not run here, but must not rot.
make -s -C "$KDIR" M="$PWD/tests/bench/floor" TSA_WERROR=y modules >"$out/floor.log" 2>&1 &&
	! grep -v 'Skipping BTF generation' "$out/floor.log" | grep -q .
tap $? "the bench's floor module (tests/bench/floor) builds without warnings" "$out/floor.log"
gcc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$out/insn-meter.so" tests/bench/insn-meter.c \
	>"$out/meter.log" 2>&1
tap $? "the bench's instruction meter (a QEMU plugin) builds without warnings" "$out/meter.log"

# checkpatch from the linux-source package; LINUX_VERSION_CODE is allowed
# in the one header whose job is to hide kernel versions.
cp_dir=$TSA_CACHE/checkpatch
if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
	mkdir -p "$cp_dir"
	tar -C "$cp_dir" --strip-components=1 -xf /usr/src/linux-source-6.1.tar.xz \
		linux-source-6.1/scripts/checkpatch.pl linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
fi
"$cp_dir/scripts/checkpatch.pl" --no-tree --quiet --terse --show-types \
	--ignore LINUX_VERSION_CODE -f module/*.c module/*.h tests/bench/floor/tsa_floor.c \
	>"$out/checkpatch.log" 2>&1
rc=$?
grep -qE '(ERROR|WARNING|CHECK):' "$out/checkpatch.log" && rc=1
tap $rc "module/ and the floor module are checkpatch-clean" "$out/checkpatch.log"

echo "build: $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
