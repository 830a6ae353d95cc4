#!/bin/bash
# Kernels beyond the host's own Debian 12 series, for the kernel matrix
# (tests/guest/run-matrix-tests.sh): each series gets a Debian build root
# of its own release (its kbuild tools and compiler: 7.x headers need
# trixie's C library and gcc-14) made with mmdebstrap, and its kernel
# images unpacked beside it. Nothing is added to the host's apt sources
# (trixie suites there would let apt upgrade the host's libc).
#
#   tests/kernels.sh provision SERIES   make/refresh the root, unpack images;
#                                       prints "FLAVOUR VERSION" per flavour
#   tests/kernels.sh versions SERIES    the same lines, from what is there
#   tests/kernels.sh moddir SERIES VER  the kernel's module directory (with
#                                       vmlinuz: tests/guest-run --kernel)
#   tests/kernels.sh build SERIES VER OUT
#                                       build tsa.ko for VER (warnings are
#                                       errors) into OUT/tsa.ko
#   tests/kernels.sh race SERIES VER OUT
#                                       build the wait suite's test-only
#                                       module (tests/guest/race) for VER
#                                       into OUT/tsa_race.ko
#   tests/kernels.sh source SERIES      install the kernel source of the
#                                       generic headers' version and its
#                                       build tools in the root; prints
#                                       the root and the tarball inside it
#
# SERIES: 5.10 (bullseye), 6.12 (bookworm-backports) or 7 (trixie-backports);
# the version is whatever that suite's linux-headers-amd64 names today (printed),
# so the matrix follows Debian's newest. FLAVOURs: amd64 rt-amd64 cloud-amd64.
# Everything lives in $TSA_CACHE/kernels/SERIES (about 1.5 GB a series).
set -euo pipefail

TSA_PROG=kernels
# shellcheck source=tests/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"

# The archive: TSA_DEBIAN_MIRROR, else the one the host's own apt sources
# name for its release (no address is written here; see tsa_host_mirror in tests/lib.sh).
MIRROR=${TSA_DEBIAN_MIRROR:-}
FLAVOURS=(amd64 rt-amd64 cloud-amd64)

series_release() {
	case $1 in
	5.10) echo bullseye ;;
	6.12) echo bookworm ;;
	7) echo trixie ;;
	*) tsa_die "unknown series '$1' (known: 5.10 6.12 7)" ;;
	esac
}

# The suite whose linux-headers-FLAVOUR are the series': backports for
# 6.12 and 7.x; bullseye's own 5.10 (its backports are gone).
series_suite() {
	case $1 in
	5.10) echo bullseye ;;
	*) echo "$(series_release "$1")-backports" ;;
	esac
}

usage() { sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit "${1:-0}"; }

# The unpacked headers say which versions a root holds.
versions() {
	local dir=$TSA_CACHE/kernels/$1 f v flav
	for flav in "${FLAVOURS[@]}"; do
		v=
		for f in "$dir"/root/usr/src/linux-headers-*-"$flav"; do
			[ -d "$f" ] || continue
			[ "$flav" != amd64 ] || case $f in *-rt-amd64|*-cloud-amd64) continue ;; esac
			v=${f##*/linux-headers-}
		done
		[ -n "$v" ] && echo "$flav $v"
	done
	return 0
}

provision() {
	local series=$1 rel dir root bpo want=() flav v pkgs p d img
	rel=$(series_release "$series")
	dir=$TSA_CACHE/kernels/$series root=$dir/root bpo=$(series_suite "$series")
	mkdir -p "$dir"
	command -v mmdebstrap >/dev/null || tsa_die "mmdebstrap missing: run tests/deps.sh"
	[ -n "$MIRROR" ] || MIRROR=$(tsa_host_mirror) ||
		tsa_die "the host's apt sources name no Debian archive; set TSA_DEBIAN_MIRROR"
	exec 9>"$dir/.lock"
	flock 9
	for flav in "${FLAVOURS[@]}"; do want+=("linux-headers-$flav/$bpo"); done
	# DKMS: the matrix installs the tsa-dkms package in the root.
	want+=(dkms)
	if [ ! -x "$root/usr/bin/make" ]; then
		tsa_log "series $series: making a $rel build root in $root"
		rm -rf "$root"
		# apt resolves pkg/suite: the headers come from backports
		# (5.10: the release itself, one source line).
		# No recommends: dkms's would bring kernel images and
		# initramfs-tools, which rebuild three initramfs images.
		local srcs=("deb $MIRROR $rel main")
		[ "$bpo" = "$rel" ] || srcs+=("deb $MIRROR $bpo main")
		mmdebstrap --variant=apt --quiet \
			--aptopt='APT::Install-Recommends "false"' \
			--include="make,gcc,libc6-dev,kmod,ca-certificates,$(IFS=,; echo "${want[*]}")" \
			"$rel" "$root" "${srcs[@]}" >&2 ||
			tsa_die "mmdebstrap $rel failed"
	else
		# Follow the suite: newer headers when Debian has uploaded some.
		cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
		if ! tsa_in_root "$root" apt-get update -q >/dev/null ||
			! tsa_in_root "$root" env DEBIAN_FRONTEND=noninteractive \
				apt-get install -y -q --no-install-recommends "${want[@]}" >/dev/null; then
			tsa_log "series $series: could not refresh the headers; using what is there"
		fi
	fi
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	# mmdebstrap leaves no package lists: apt-get download needs them.
	if ! compgen -G "$root/var/lib/apt/lists/*_Packages" >/dev/null; then
		tsa_in_root "$root" apt-get update -q >/dev/null || tsa_die "apt-get update in the $rel root failed"
	fi
	# The images: the package and, where Debian splits them (7.x), the
	# binary and modules packages it depends on.
	while read -r flav v; do
		img=$dir/images/$v
		[ -f "$img/lib/modules/$v/modules.dep" ] && [ -f "$img/lib/modules/$v/vmlinuz" ] && continue
		tsa_log "series $series: unpacking linux-image-$v"
		pkgs=(linux-image-"$v")
		for p in linux-binary-"$v" linux-modules-"$v"; do
			tsa_in_root "$root" apt-cache show "$p" >/dev/null 2>&1 && pkgs+=("$p")
		done
		d=$root/tmp/debs-$v
		rm -rf "$d" "$img" && mkdir -p "$d" "$img"
		(cd "$d" && tsa_in_root "$root" sh -c "cd /tmp/debs-$v && apt-get download -q $(printf '%q ' "${pkgs[@]}")" >/dev/null 2>&1) ||
			tsa_die "downloading ${pkgs[*]} failed"
		for p in "$d"/*.deb; do dpkg-deb -x "$p" "$img"; done
		rm -rf "$d"
		# usr-merged (7.x) or not (6.12): one place for vmlinuz + modules.
		if [ -d "$img/usr/lib/modules/$v" ] && [ ! -e "$img/lib" ]; then
			ln -s usr/lib "$img/lib"
		fi
		[ -f "$img/lib/modules/$v/vmlinuz" ] || cp "$img/boot/vmlinuz-$v" "$img/lib/modules/$v/vmlinuz"
		# The packages ship no modules.order/builtin (the postinst makes
		# none either): depmod warns, modprobe treats built-ins as absent.
		depmod -b "$img" "$v" 2>&1 | { grep -v -e 'WARNING: could not open modules\.' >&2 || true; }
		[ -f "$img/lib/modules/$v/modules.dep" ] || tsa_die "depmod for $v failed"
	done < <(versions "$series")
	versions "$series"
}

build() {
	local series=$1 ver=$2 out=$3 root src
	root=$TSA_CACHE/kernels/$series/root
	[ -d "$root/usr/src/linux-headers-$ver" ] || tsa_die "no headers for $ver in $root: tests/kernels.sh provision $series"
	src=$root/build/tsa-$$
	rm -rf "$src" && mkdir -p "$src" "$out"
	cp -a "$TSA_REPO_DIR/Kbuild" "$TSA_REPO_DIR/module" "$src/"
	find "$src" -name '*.o' -delete
	if tsa_in_root "$root" --build make -s -j"${JOBS:-$(nproc)}" -C "/usr/src/linux-headers-$ver" M="/build/tsa-$$" \
		TSA_WERROR=y modules >"$out/build.log" 2>&1 &&
		! grep -v -e 'Skipping BTF generation' "$out/build.log" | grep -q .; then
		cp "$src/tsa.ko" "$out/tsa.ko"
		rm -rf "$src"
		return 0
	fi
	cat "$out/build.log" >&2
	rm -rf "$src"
	return 1
}

race() {
	local series=$1 ver=$2 out=$3 root src
	root=$TSA_CACHE/kernels/$series/root
	[ -d "$root/usr/src/linux-headers-$ver" ] || tsa_die "no headers for $ver in $root: tests/kernels.sh provision $series"
	src=$root/build/tsa-race-$$
	rm -rf "$src" && mkdir -p "$src" "$out"
	cp "$TSA_REPO_DIR/tests/guest/race/Kbuild" "$TSA_REPO_DIR/tests/guest/race/tsa_race.c" "$src/"
	if tsa_in_root "$root" --build make -s -C "/usr/src/linux-headers-$ver" M="/build/tsa-race-$$" \
		modules >"$out/build.log" 2>&1; then
		cp "$src/tsa_race.ko" "$out/tsa_race.ko"
		rm -rf "$src"
		return 0
	fi
	cat "$out/build.log" >&2
	rm -rf "$src"
	return 1
}

# The source of the series's newest generic kernel (linux-source-7.3 for
# 7.3.4+deb13-amd64), for the debug kernel of tests/kunit.sh --series.
source_pkg() {
	local series=$1 root v major
	root=$TSA_CACHE/kernels/$series/root
	v=$(versions "$series" | awk '$1 == "amd64" { print $2 }')
	[ -n "$v" ] || tsa_die "no generic kernel in the $series root: tests/kernels.sh provision $series"
	major=$(echo "$v" | cut -d. -f1-2)
	if [ ! -f "$root/usr/src/linux-source-$major.tar.xz" ] || [ ! -x "$root/usr/bin/flex" ]; then
		tsa_log "series $series: installing linux-source-$major and kernel build tools in the root"
		tsa_in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends "linux-source-$major" bc flex bison libelf-dev \
			libssl-dev dwarves xz-utils python3 >/dev/null ||
			tsa_die "installing linux-source-$major in the $series root failed"
	fi
	echo "$root /usr/src/linux-source-$major.tar.xz"
}

[ $# -ge 1 ] || usage 2 >&2
case $1 in
provision) [ $# -eq 2 ] || usage 2 >&2; provision "$2" ;;
versions) [ $# -eq 2 ] || usage 2 >&2; series_release "$2" >/dev/null; versions "$2" ;;
moddir) [ $# -eq 3 ] || usage 2 >&2; echo "$TSA_CACHE/kernels/$2/images/$3/lib/modules/$3" ;;
build) [ $# -eq 4 ] || usage 2 >&2; build "$2" "$3" "$4" ;;
race) [ $# -eq 4 ] || usage 2 >&2; race "$2" "$3" "$4" ;;
source) [ $# -eq 2 ] || usage 2 >&2; provision "$2" >/dev/null; source_pkg "$2" ;;
-h|--help) usage 0 ;;
*) usage 2 >&2 ;;
esac
