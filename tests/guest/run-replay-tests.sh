#!/bin/bash
# The referee: boot the stock kernel under QEMU with tsa.ko and compare tsa
# with a replay of the raw event trace (tests/guest/replay-tests.sh, with
# tests/guest/tsa-replay.c) on known and third-party workloads: the guest
# records, the host judges each workload's files after the boot
# (tests/guest/replay-judge.sh, natively: under emulation the report and
# the replay took two thirds of the suite's time); then, in
# a second boot with nohz_full=1, tsa's USR/SYS split against the
# kernel's own exact book there (tests/guest/usrsys-tests.sh); and in a
# third, on ordinary CPUs, SYS once calibrated against loops timed from
# user space (tests/guest/sysref-tests.sh). TAP on stdout; exit status
# non-zero if any test failed or the run broke.
#
#   tests/guest/run-replay-tests.sh [WORKLOAD...]   (names as in replay-tests.sh,
#                                   usrsys for the second boot, sysref the third)
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
gcc -O2 -Wall -Wextra -Werror -o "$out/tsa-sysref" "$here/tsa-sysref.c" -lm
make -C "$repo/userspace" -s WERROR=y tsa-prstat >&2

# A scratch ext4 disk for the hdd stressor (O_DIRECT and O_DSYNC writes
# on a virtio disk), made from an empty staging dir: no root or loop.
stage=$out/stage
rm -rf "$stage" "$out/disk.img"
mkdir -p "$stage"
mke2fs -q -F -t ext4 -b 4096 -d "$stage" "$out/disk.img" 128M
rmdir "$stage"
# The export disk: the guest writes each workload's files there, a tar
# after the last (sparse: only what is written takes room).
rm -f "$out/export.img"
truncate -s 8G "$out/export.img"

# judge_export GUEST_OUTPUT: the workloads the guest wrote to the export
# disk, judged here, numbered after the guest's own tests; then the plan.
judge_export() {
	local line bytes=0 n=0 d rc=0 x=$out/export
	line=$(grep '^# replay-export: ' "$1" | tail -n 1)
	[ -z "$line" ] || read -r _ _ bytes n <<<"$line"
	rm -rf "$x" && mkdir -p "$x"
	if [ "$bytes" -gt 0 ] && ! head -c "$bytes" "$out/export.img" | tar -C "$x" -xif -; then
		n=$((n + 1))
		echo "not ok $n - replay: the guest's export disk reads back as tars ($bytes bytes)"
		rc=1
	fi
	for d in "$x"/[0-9]*-*; do
		[ -d "$d" ] || continue
		bash "$here/replay-judge.sh" "$out/tsa-replay" $((n + 1)) "$d" >"$d.out" || rc=1
		cat "$d.out"
		n=$((n + $(grep -cE '^(not )?ok [0-9]+' "$d.out")))
		# Passed: the trace and its report are big; a failure keeps them.
		grep -q '^not ok' "$d.out" || rm -f "$d/t.dat" "$d/report"
	done
	echo "1..$n"
	echo "# replay: judged $(find "$x" -mindepth 1 -maxdepth 1 -type d | wc -l) workloads on the host"
	return "$rc"
}

only=" $* "
set +e
rc=0
if [ $# -eq 0 ] || tr ' ' '\n' <<<"$only" | grep -qvx -e '' -e usrsys -e sysref; then
	# shellcheck disable=SC2086 # GUEST_RUN_ARGS is a list of words
	TSA_REPLAY_EXPORT=/dev/vdb "$repo/tests/guest-run" --kernel "$TSA_KERNEL" \
		--module "$TSA_KO" --timeout 1500 --disk "$out/disk.img" --disk "$out/export.img" \
		${GUEST_RUN_ARGS:-} -- \
		bash "$here/replay-tests.sh" "$TSA_KO" "$out" "$@" | tee "$out/guest.out"
	rc=${PIPESTATUS[0]}
	judge_export "$out/guest.out" || rc=1
fi
rm -f "$out/export.img"
# Not under multi-threaded TCG: perf's events switch static keys while the
# workload runs on the nohz_full CPU, which quiesce would take offline.
# The kernel's configuration: /boot's, or beside an unpacked image's modules.
kconfig=/boot/config-$TSA_KERNEL
[ ! -d "$TSA_KERNEL" ] || kconfig=$TSA_KERNEL/../../../boot/config-${TSA_KERNEL##*/}
if [ "${TSA_TCG:-single}" = multi ]; then
	log "usrsys: not under multi-threaded TCG (perf patches text mid-run)"
elif { [ $# -eq 0 ] || [[ $only == *" usrsys "* ]]; } && [ -f "$kconfig" ] &&
	! grep -q '^CONFIG_NO_HZ_FULL=y' "$kconfig"; then
	echo "ok 1 - usrsys # SKIP ${TSA_KERNEL##*/} is built without CONFIG_NO_HZ_FULL: no nohz_full CPU, its SYS is calibrated (sysref)"
elif [ $# -eq 0 ] || [[ $only == *" usrsys "* ]]; then
	# shellcheck disable=SC2086 # GUEST_RUN_ARGS is a list of words
	"$repo/tests/guest-run" --kernel "$TSA_KERNEL" --module "$TSA_KO" --timeout 600 \
		--append nohz_full=1 ${GUEST_RUN_ARGS:-} -- \
		bash "$here/usrsys-tests.sh" "$TSA_KO" "$out" || rc=1
fi
# The calibration's referee: timings, so single-threaded TCG as usrsys.
if [ "${TSA_TCG:-single}" = multi ]; then
	log "sysref: not under multi-threaded TCG (as usrsys)"
elif [ $# -eq 0 ] || [[ $only == *" sysref "* ]]; then
	# shellcheck disable=SC2086 # GUEST_RUN_ARGS is a list of words
	"$repo/tests/guest-run" --kernel "$TSA_KERNEL" --module "$TSA_KO" --timeout 600 \
		${GUEST_RUN_ARGS:-} -- \
		bash "$here/sysref-tests.sh" "$out" "$repo/userspace/tsa-prstat" || rc=1
fi
set -e
rm -f "$out/disk.img"
log "exit $rc after $(($(date +%s) - start)) s"
exit "$rc"
