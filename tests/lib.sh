# shellcheck shell=bash
# Shared helpers for tests/*.sh. Source it; it sets no shell options itself.
# shellcheck disable=SC2034 # variables are for the scripts that source this

TSA_TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TSA_REPO_DIR=$(dirname "$TSA_TESTS_DIR")
# Everything expensive (extracted source, built kernels, initramfs images)
# lives outside the work tree so that it survives `git clean` and is shared.
TSA_CACHE=${TSA_CACHE:-$HOME/.cache/tsa}
TSA_PROG=${TSA_PROG:-$(basename "$0")}

tsa_log() { printf '%s: %s\n' "$TSA_PROG" "$*" >&2; }
tsa_die() { tsa_log "error: $*"; exit 1; }

# Newest installed Debian generic kernel: /boot/vmlinuz-*-amd64 without the
# -rt- and -cloud- flavours (those are picked explicitly with --kernel).
tsa_default_kernel() {
	local f v best=
	for f in /boot/vmlinuz-*-amd64; do
		[ -e "$f" ] || continue
		v=${f#/boot/vmlinuz-}
		case $v in *-rt-*|*-cloud-*) continue ;; esac
		best+="$v"$'\n'
	done
	[ -n "$best" ] || return 1
	printf '%s' "$best" | sort -V | tail -n 1
}

# Installed kernel versions of one flavour ("amd64", "rt-amd64", "cloud-amd64").
tsa_kernels_of_flavour() {
	local flavour=$1 f v
	for f in /boot/vmlinuz-*-"$flavour"; do
		[ -e "$f" ] || continue
		v=${f#/boot/vmlinuz-}
		[ "$flavour" != amd64 ] || case $v in *-rt-*|*-cloud-*) continue ;; esac
		echo "$v"
	done | sort -V
}

# The kernels the tests build for and boot are named, never "whatever is
# newest in /boot": installing another kernel (a backports 6.12, say) must
# not change what make check or make bench test. TSA_KERNEL (generic) and
# TSA_RT_KERNEL (PREEMPT_RT) name them; by default they are the newest
# installed kernels of the Debian 12 series below (what tests/deps.sh
# installs). A KDIR given without TSA_KERNEL names the kernel of that tree.
TSA_KERNEL_SERIES=${TSA_KERNEL_SERIES:-6.1}

tsa_kernel_of_series() { # FLAVOUR -> newest installed $TSA_KERNEL_SERIES.* of it
	tsa_kernels_of_flavour "$1" | awk -v s="$TSA_KERNEL_SERIES." 'index($0, s) == 1' |
		tail -n 1
}

# Set and export TSA_KERNEL, KDIR (its build tree, for every `make module`
# below) and TSA_RT_KERNEL; say once on stderr which kernels these are.
tsa_pin_kernels() {
	local how=TSA_KERNEL
	if [ -z "${TSA_KERNEL:-}" ] && [ -n "${KDIR:-}" ]; then
		TSA_KERNEL=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' \
			"$KDIR/include/generated/utsrelease.h" 2>/dev/null)
		how="KDIR=$KDIR"
	fi
	if [ -z "${TSA_KERNEL:-}" ]; then
		TSA_KERNEL=$(tsa_kernel_of_series amd64)
		how="newest installed Debian $TSA_KERNEL_SERIES generic kernel"
	fi
	[ -n "$TSA_KERNEL" ] ||
		tsa_die "no Debian $TSA_KERNEL_SERIES generic kernel installed (linux-image-amd64): run tests/deps.sh, or set TSA_KERNEL"
	if [ -d "$TSA_KERNEL" ]; then
		# A module directory (tests/kernels.sh): the module is built
		# elsewhere (its build root) and given as TSA_KO.
		[ -n "${TSA_KO:-}" ] || tsa_die "TSA_KERNEL=$TSA_KERNEL is a directory: set TSA_KO to a tsa.ko built for it"
		export TSA_KERNEL TSA_KO
		[ -n "${TSA_KERNELS_SHOWN:-}" ] || tsa_log "kernel $TSA_KERNEL, module $TSA_KO"
		export TSA_KERNELS_SHOWN=1
		return 0
	fi
	[ -f "/boot/vmlinuz-$TSA_KERNEL" ] || tsa_die "TSA_KERNEL=$TSA_KERNEL: /boot/vmlinuz-$TSA_KERNEL not installed"
	[ -d "/lib/modules/$TSA_KERNEL/build" ] ||
		tsa_die "TSA_KERNEL=$TSA_KERNEL: no headers (/lib/modules/$TSA_KERNEL/build; install linux-headers-$TSA_KERNEL)"
	KDIR=/lib/modules/$TSA_KERNEL/build
	if [ -z "${TSA_RT_KERNEL:-}" ]; then
		TSA_RT_KERNEL=$(tsa_kernel_of_series rt-amd64)
	fi
	export TSA_KERNEL KDIR TSA_RT_KERNEL TSA_KERNEL_SERIES
	if [ -z "${TSA_KERNELS_SHOWN:-}" ]; then
		tsa_log "kernel $TSA_KERNEL ($how); PREEMPT_RT kernel ${TSA_RT_KERNEL:-none}"
		export TSA_KERNELS_SHOWN=1
	fi
}

# Print "pass fail" counted from TAP/KTAP text on stdin (top-level lines only).
tsa_tap_count() {
	awk '/^ok /{p++} /^not ok /{f++} END{printf "%d %d\n", p, f}'
}

# tsa_in_root ROOT [--build] COMMAND...: run COMMAND chrooted in ROOT (a
# Debian build root of tests/kernels.sh) with a /proc of its own there
# (objtool reads it), in a mount namespace of its own, so that it goes
# with the command and no call can pull it from under another. Calls that
# change the root's packages (apt, dpkg, dkms) take turns on a lock beside
# it; a --build call (a compiler run, which only reads the root) takes no
# lock and runs beside them: the 7.x debug kernel's build in the 7 root
# (debug7, half an hour at low priority on a fresh machine) held a lock
# the matrix's dpkg -i of tsa-dkms there waited 26 minutes for.
tsa_in_root() {
	local root=$1 lock=1
	shift
	[ "${1:-}" != --build ] || { lock=0; shift; }
	(
		[ "$lock" = 0 ] || flock 8
		# shellcheck disable=SC2016 # expanded by that sh
		unshare -m sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root" "$@"
	) 8>"$root.lock"
}

# tsa_host_mirror: the URI the host's apt sources (one-line or deb822) give
# its own release's main suite, e.g. bookworm's rather than -security's
# or -updates'; else the first Debian-looking suite's. apt reads its own
# configuration, so every format and sources.list.d file counts.
tsa_host_mirror() {
	local code uris
	code=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	# shellcheck disable=SC2016 # apt's own $(FIELD)s, not the shell's
	uris=$(apt-get indextargets --no-release-info \
		--format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' 2>/dev/null | sort -u)
	awk -v code="$code" '
		$2 == code && !hit { hit = $1 }
		$2 !~ /-/ && !any { any = $1 }
		END { u = hit ? hit : any; sub(/\/$/, "", u); if (u == "") exit 1; print u }' <<<"$uris"
}
