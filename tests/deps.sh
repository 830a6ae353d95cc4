#!/bin/bash
# Install (as root, with apt-get) every Debian package the build and the
# tests need. Idempotent and quick when all are present: one dpkg-query, and
# `apt-get update` only when something is missing. Nothing installed by hand
# survives to a fresh CI machine, so every tool the tests use belongs here.
#
#   tests/deps.sh [--check]    --check: only list what is missing (exit 1 if any)
set -euo pipefail

pkgs=(
	# guest runner: QEMU (TCG), kernels + headers (generic and PREEMPT_RT),
	# busybox for the initramfs, kmod/cpio/xz to assemble it
	qemu-system-x86 linux-image-amd64 linux-headers-amd64
	linux-image-rt-amd64 linux-headers-rt-amd64
	busybox-static kmod cpio xz-utils
	# build roots for the kernel matrix's other Debian releases (tests/kernels.sh)
	mmdebstrap
	# the arm64 series: its guests (qemu-system-aarch64), and the cross
	# compiler for `make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-`
	# against unpacked arm64 headers (tests/arm64.sh uses its root's own)
	qemu-system-arm gcc-aarch64-linux-gnu
	# the KUnit/debug kernel built from source (tests/kunit.sh)
	linux-source-6.1 bc flex bison libelf-dev libssl-dev dwarves gcc make
	# packaging and static checks (make deb, man page lint, DKMS signing)
	dkms sparse fakeroot man-db openssl
	# libtsa built as its users build it (tests/packaging.sh)
	pkgconf
	# workloads and reference numbers in the integration tests and benchmarks
	stress-ng rt-tests sysstat linux-perf
	# the event-trace replay (tests/guest/replay-tests.sh) extracts ftrace
	trace-cmd
	# tsa-prstat's recorder compresses with zstd; its keys are tested
	# under tmux
	libzstd-dev tmux
	# tsa-exporter serves /metrics with libmicrohttpd, gzip by zlib; its
	# tests ask with curl
	libmicrohttpd-dev zlib1g-dev curl
	# disks, swap and cgroups for the wait-state tests
	e2fsprogs dmsetup util-linux procps
	# guest tests run unprivileged commands (setpriv) and python3 for JSON
	python3
	# the fuzz targets (tests/fuzz: libFuzzer, ASan, UBSan) and the
	# userspace suite built with ASan and UBSan (userspace-san): Debian
	# 12's clang 14 and its runtime libraries
	clang libclang-rt-14-dev
	# tsa-prstat --prometheus / --openmetrics are checked by the real
	# promtool (check metrics; its OpenMetrics parser) and by the
	# OpenMetrics parser of the Python client
	prometheus python3-prometheus-client
	# tsa-prstat --svg's pictures drawn as a person sees them, pixels
	# checked (test-pictures): librsvg and headless Chromium (measured
	# on this host: 11 s and 20 s to install, 3 s for the test)
	librsvg2-bin chromium
	# tsa-prstat --perfetto's traces decoded against the project's
	# subset of Perfetto's protos (test-pictures; 8 s to install here)
	protobuf-compiler
)

# A dpkg run that was killed (a session's packaging test, a lost power)
# leaves journal entries behind, and apt then refuses every install
# ("dpkg was interrupted"). Finish that work first, as apt asks, waiting for
# any dpkg that is still running.
if [ "$(id -u)" -eq 0 ] && [ "${1:-}" != --check ] &&
	{ compgen -G '/var/lib/dpkg/updates/[0-9]*' >/dev/null || [ -n "$(dpkg --audit 2>/dev/null)" ]; }; then
	echo "deps: dpkg was interrupted; running dpkg --configure -a"
	export DEBIAN_FRONTEND=noninteractive
	for try in $(seq 60); do
		out=$(dpkg --force-confdef --force-confold --configure -a 2>&1) && break
		grep -q 'lock' <<<"$out" || { printf '%s\n' "$out" | tail -n 20 >&2; break; }
		[ "$try" -lt 60 ] || { echo "deps: dpkg stayed locked for 10 minutes" >&2; exit 1; }
		sleep 10
	done
	dpkg --audit >&2 || true
fi

# dpkg-query prints one line per known package; unknown ones only on stderr.
missing=()
declare -A ok=()
while read -r name status; do
	[ "$status" = ii ] && ok[$name]=1
done < <(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${pkgs[@]}" 2>/dev/null || true)
for p in "${pkgs[@]}"; do
	[ -n "${ok[$p]:-}" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
	exit 0
fi
echo "deps: missing: ${missing[*]}"
[ "${1:-}" != --check ] || exit 1
[ "$(id -u)" -eq 0 ] || { echo "deps: run as root to install them" >&2; exit 1; }

export DEBIAN_FRONTEND=noninteractive
apt-get update -q -o DPkg::Lock::Timeout=600
echo "deps: installing: ${missing[*]}"
# Wait for a concurrent apt/dpkg (another job, unattended-upgrades) to finish.
apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}"
