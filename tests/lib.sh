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

# Print "pass fail" counted from TAP/KTAP text on stdin (top-level lines only).
tsa_tap_count() {
	awk '/^ok /{p++} /^not ok /{f++} END{printf "%d %d\n", p, f}'
}
