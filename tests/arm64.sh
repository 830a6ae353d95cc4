#!/bin/bash
# Debian's arm64 kernels, cross-built for and booted under emulation
# (the matrix-arm64 suite, tests/guest/run-arm64-tests.sh). Each series
# gets an amd64 build root of its Debian release with arm64 as a foreign
# architecture (mmdebstrap --architectures=amd64,arm64): the cross
# compiler and the host-arch kbuild tools are installed there, the arm64
# headers, kernel image and the guest's static userland (busybox,
# bash) are downloaded and unpacked beside them; nothing arm64 runs on
# the host and nothing is added to the host's apt sources.
#
#   tests/arm64.sh provision SERIES     make/refresh the root, unpack the
#                                       headers, image and userland;
#                                       prints "arm64 VERSION"
#   tests/arm64.sh versions SERIES      the same line, from what is there
#   tests/arm64.sh moddir SERIES VER    the kernel's module directory
#                                       (with vmlinuz: tests/guest-run
#                                       --arch arm64 --kernel)
#   tests/arm64.sh userland SERIES      the guest's static busybox and bash
#   tests/arm64.sh build SERIES VER OUT tsa.ko for VER (warnings are
#                                       errors) into OUT/tsa.ko
#   tests/arm64.sh deb SERIES OUT       make deb for arm64 (tsa-prstat's
#                                       arm64 package, tsa-dkms) into OUT
#   tests/arm64.sh dkms SERIES VER DEB [OUT]
#                                       install tsa-dkms DEB in the root,
#                                       DKMS building for VER (cross, as
#                                       Debian's headers do it, warnings
#                                       as errors); prints the module's
#                                       vermagic, leaves it and make.log in
#                                       OUT, then removes the package
#   tests/arm64.sh programs SERIES OUT  tsa-prstat and the guest test
#                                       programs (static) and tsa-exporter
#                                       (dynamic: no static GnuTLS) in OUT
#
# SERIES: 6.1 (bookworm) or 7 (trixie-backports); the version is whatever
# that suite's linux-headers-arm64 names today. Everything lives in
# $TSA_CACHE/kernels/arm64-SERIES (about 1 GB a series).
set -euo pipefail

TSA_PROG=arm64
# shellcheck source=tests/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"

MIRROR=${TSA_DEBIAN_MIRROR:-}
CROSS=aarch64-linux-gnu-

series_release() {
	case $1 in
	6.1) echo bookworm ;;
	7) echo trixie ;;
	*) tsa_die "unknown arm64 series '$1' (known: 6.1 7)" ;;
	esac
}
series_suite() {
	case $1 in
	6.1) echo bookworm ;;
	*) echo "$(series_release "$1")-backports" ;;
	esac
}

usage() { sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit "${1:-0}"; }

versions() {
	local f v=
	for f in "$TSA_CACHE/kernels/arm64-$1"/root/usr/src/linux-headers-*-arm64; do
		[ -d "$f" ] && v=${f##*/linux-headers-}
	done
	[ -z "$v" ] || echo "arm64 $v"
}

# deb_x ROOT DEB: unpack a package into the root without replacing its
# usr-merge links (/lib -> usr/lib) by directories, as dpkg-deb -x would.
deb_x() {
	dpkg-deb --fsys-tarfile "$2" | tar -C "$1" -x --keep-directory-symlink
}

provision() {
	local series=$1 rel suite dir root ver kbuild d p img pkgs=() srcs deps
	rel=$(series_release "$series") suite=$(series_suite "$series")
	dir=$TSA_CACHE/kernels/arm64-$series root=$dir/root
	mkdir -p "$dir"
	command -v mmdebstrap >/dev/null || tsa_die "mmdebstrap missing: run tests/deps.sh"
	[ -n "$MIRROR" ] || MIRROR=$(tsa_host_mirror) ||
		tsa_die "the host's apt sources name no Debian archive; set TSA_DEBIAN_MIRROR"
	exec 9>"$dir/.lock"
	flock 9
	if [ ! -x "$root/usr/bin/${CROSS}gcc" ]; then
		tsa_log "arm64 $series: making a $rel amd64+arm64 build root in $root"
		rm -rf "$root"
		srcs=("deb $MIRROR $rel main")
		[ "$suite" = "$rel" ] || srcs+=("deb $MIRROR $suite main")
		# The static libraries tsa-prstat and tsa-exporter link.
		mmdebstrap --variant=apt --quiet --architectures=amd64,arm64 \
			--aptopt='APT::Install-Recommends "false"' \
			--include="make,gcc,libc6-dev,kmod,ca-certificates,gcc-aarch64-linux-gnu,libzstd-dev:arm64,zlib1g-dev:arm64,libmicrohttpd-dev:arm64,dkms,fakeroot" \
			"$rel" "$root" "${srcs[@]}" >&2 ||
			tsa_die "mmdebstrap $rel failed"
	fi
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	tsa_in_root "$root" apt-get update -q >/dev/null ||
		tsa_log "arm64 $series: apt-get update failed; using what is there"
	# DKMS and packaging (make deb) in the root; roots made before they
	# were named here get them now.
	if [ ! -x "$root/usr/sbin/dkms" ] || [ ! -x "$root/usr/bin/fakeroot" ]; then
		tsa_in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends dkms fakeroot >/dev/null 2>&1 ||
			tsa_die "installing dkms and fakeroot in the root failed"
	fi
	ver=$(tsa_in_root "$root" apt-cache depends "linux-headers-arm64:arm64/$suite" 2>/dev/null |
		sed -n 's/^ *Depends: linux-headers-\([^:]*-arm64\).*/\1/p' | head -n 1)
	[ -n "$ver" ] || ver=$(versions "$series" | cut -d' ' -f2)
	[ -n "$ver" ] || tsa_die "arm64 $series: no linux-headers-arm64 in $suite"
	if [ ! -f "$root/usr/src/linux-headers-$ver/.config" ]; then
		tsa_log "arm64 $series: headers and kbuild tools for $ver"
		# The kbuild tools (scripts/, tools/) are the host's own arch:
		# the one linux-kbuild package the headers' links point into.
		d=$root/tmp/debs-$ver
		rm -rf "$d" && mkdir -p "$d"
		tsa_in_root "$root" sh -c "cd /tmp/debs-$ver && apt-get download -q linux-headers-$ver:arm64" >/dev/null 2>&1 ||
			tsa_die "downloading linux-headers-$ver:arm64 failed"
		deps=$(dpkg-deb -f "$d"/linux-headers-*.deb Depends | tr ',' '\n' |
			sed -n 's/^ *\(linux-\(headers\|kbuild\)-[^ ]*\).*/\1/p')
		for p in $deps; do
			case $p in
			linux-kbuild-*) kbuild=$p ;;
			*) tsa_in_root "$root" sh -c "cd /tmp/debs-$ver && apt-get download -q $p" >/dev/null 2>&1 ||
				tsa_die "downloading $p failed" ;;
			esac
		done
		[ -n "${kbuild:-}" ] || tsa_die "linux-headers-$ver names no linux-kbuild package"
		tsa_in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends "$kbuild:amd64" >/dev/null ||
			tsa_die "installing $kbuild in the root failed"
		for p in "$d"/*.deb; do deb_x "$root" "$p"; done
		rm -rf "$d"
	fi
	# The kernel image (and its modules package, where Debian splits it)
	# and the guest's static userland.
	img=$dir/images/$ver
	if [ ! -f "$img/lib/modules/$ver/modules.dep" ] || [ ! -f "$img/lib/modules/$ver/vmlinuz" ]; then
		tsa_log "arm64 $series: unpacking linux-image-$ver"
		pkgs=(linux-image-"$ver":arm64)
		for p in linux-binary-"$ver" linux-modules-"$ver"; do
			tsa_in_root "$root" apt-cache show "$p:arm64" >/dev/null 2>&1 && pkgs+=("$p:arm64")
		done
		d=$root/tmp/img-$ver
		rm -rf "$d" "$img" && mkdir -p "$d" "$img"
		tsa_in_root "$root" sh -c "cd /tmp/img-$ver && apt-get download -q ${pkgs[*]}" >/dev/null 2>&1 ||
			tsa_die "downloading ${pkgs[*]} failed"
		for p in "$d"/*.deb; do dpkg-deb -x "$p" "$img"; done
		rm -rf "$d"
		if [ -d "$img/usr/lib/modules/$ver" ] && [ ! -e "$img/lib" ]; then
			ln -s usr/lib "$img/lib"
		fi
		[ -f "$img/lib/modules/$ver/vmlinuz" ] || cp "$img/boot/vmlinuz-$ver" "$img/lib/modules/$ver/vmlinuz"
		depmod -b "$img" "$ver" 2>&1 | { grep -v -e 'WARNING: could not open modules\.' >&2 || true; }
		[ -f "$img/lib/modules/$ver/modules.dep" ] || tsa_die "depmod for $ver failed"
	fi
	if [ ! -x "$dir/userland/bin/busybox" ] || [ ! -x "$dir/userland/bin/bash" ]; then
		tsa_log "arm64 $series: the guest's static busybox and bash"
		d=$root/tmp/userland
		rm -rf "$d" "$dir/userland" && mkdir -p "$d" "$dir/userland/bin"
		tsa_in_root "$root" sh -c "cd /tmp/userland && apt-get download -q busybox-static:arm64 bash-static:arm64" >/dev/null 2>&1 ||
			tsa_die "downloading busybox-static:arm64 bash-static:arm64 failed"
		for p in "$d"/*.deb; do dpkg-deb -x "$p" "$d/x"; done
		cp "$(find "$d/x" -path '*bin/busybox' -type f | head -n 1)" "$dir/userland/bin/busybox"
		cp "$(find "$d/x" -path '*bin/bash-static' -type f | head -n 1)" "$dir/userland/bin/bash"
		rm -rf "$d"
	fi
	echo "arm64 $ver"
}

build() {
	local series=$1 ver=$2 out=$3 root src
	root=$TSA_CACHE/kernels/arm64-$series/root
	[ -d "$root/usr/src/linux-headers-$ver" ] || tsa_die "no headers for $ver in $root: tests/arm64.sh provision $series"
	src=$root/build/tsa-$$
	rm -rf "$src" && mkdir -p "$src" "$out"
	cp -a "$TSA_REPO_DIR/Kbuild" "$TSA_REPO_DIR/Makefile" "$TSA_REPO_DIR/module" "$src/"
	find "$src" -name '*.o' -delete
	# As a user cross-builds it: the top-level Makefile's module target.
	if tsa_in_root "$root" --build make -s -j"${JOBS:-$(nproc)}" -C "/build/tsa-$$" module \
		KDIR="/usr/src/linux-headers-$ver" ARCH=arm64 CROSS_COMPILE="$CROSS" WERROR=y \
		>"$out/build.log" 2>&1 &&
		! grep -v -e 'Skipping BTF generation' "$out/build.log" | grep -q .; then
		cp "$src/tsa.ko" "$out/tsa.ko"
		rm -rf "$src"
		return 0
	fi
	cat "$out/build.log" >&2
	rm -rf "$src"
	return 1
}

# The readers and the guest's test programs, static (the guest has no C
# library of its own), warnings as errors.
programs() {
	local series=$1 out=$2 root src cc t libs
	root=$TSA_CACHE/kernels/arm64-$series/root
	[ -x "$root/usr/bin/${CROSS}gcc" ] || tsa_die "no arm64 root: tests/arm64.sh provision $series"
	src=$root/build/prog-$$
	rm -rf "$src" && mkdir -p "$src/tests" "$out"
	cp -a "$TSA_REPO_DIR/userspace" "$TSA_REPO_DIR/module" "$src/"
	cp -a "$TSA_REPO_DIR/tests/guest" "$TSA_REPO_DIR/tests/userspace" "$src/tests/"
	find "$src" \( -name '*.o' -o -name '*.d' \) -delete
	cc="${CROSS}gcc -static -O2 -Wall -Wextra -Werror -pthread"
	{
		tsa_in_root "$root" --build make -s -C /build/prog-$$/userspace WERROR=y \
			CC="${CROSS}gcc" LDFLAGS=-static tsa-prstat &&
		# Linked against the arm64 libmicrohttpd: Debian ships no
		# static GnuTLS for a static one.
		tsa_in_root "$root" --build make -s -C /build/prog-$$/userspace WERROR=y \
			CC="${CROSS}gcc" tsa-exporter &&
		for t in tsa-gtest tsa-waketest tsa-ptest; do
			# shellcheck disable=SC2086 # $cc is a command line
			tsa_in_root "$root" --build sh -c "cd /build/prog-$$/tests/guest && $cc -o ../../$t $t.c tsa-read.c" || return 1
		done &&
		tsa_in_root "$root" --build sh -c "cd /build/prog-$$/tests/guest && $cc -o ../../tsa-wtest tsa-wtest.c tsa-read.c && $cc -o ../../churn churn.c"
	} >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; rm -rf "$src"; return 1; }
	cp "$src/userspace/tsa-prstat" "$src/userspace/tsa-exporter" "$out/"
	# The exporter's shared libraries and loader, from the root's arm64
	# packages, for the guest (OUT/lib: run it as
	# OUT/lib/ld-linux-aarch64.so.1 --library-path OUT/lib OUT/tsa-exporter).
	rm -rf "${out:?}/lib" && mkdir -p "$out/lib"
	# shellcheck disable=SC2016 # expanded by the root's sh
	libs=$(tsa_in_root "$root" --build sh -c '
		todo="/build/prog-'"$$"'/userspace/tsa-exporter" seen=
		while [ -n "$todo" ]; do
			set -- $todo; f=$1; shift; todo="$*"
			for n in $('"$CROSS"'readelf -d "$f" | sed -n "s/.*(NEEDED).*\[\(.*\)\]/\1/p"); do
				case " $seen " in *" $n "*) continue ;; esac
				seen="$seen $n"
				p=$(ls /usr/lib/aarch64-linux-gnu/$n /lib/aarch64-linux-gnu/$n 2>/dev/null | head -n 1)
				[ -n "$p" ] || { echo "missing $n" >&2; exit 1; }
				echo "$p"; todo="$todo $p"
			done
		done') || { rm -rf "$src"; tsa_die "the exporter's arm64 libraries"; }
	for t in $libs; do cp -L "$root$t" "$out/lib/"; done
	cp -L "$root/usr/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1" "$out/lib/"
	for t in tsa-gtest tsa-waketest tsa-ptest tsa-wtest churn; do cp "$src/$t" "$out/"; done
	rm -rf "$src"
}

# make deb for arm64 in the root: tsa-prstat_VERSION_arm64.deb (its
# programs cross-built) and tsa-dkms_VERSION_all.deb, into OUT.
deb() {
	local series=$1 out=$2 root src
	root=$TSA_CACHE/kernels/arm64-$series/root
	[ -x "$root/usr/bin/${CROSS}gcc" ] || tsa_die "no arm64 root: tests/arm64.sh provision $series"
	src=$root/build/deb-$$
	rm -rf "$src" && mkdir -p "$src" "$out"
	tar -C "$TSA_REPO_DIR" --exclude=./tests/out --exclude=./.git --exclude=./dist -cf - . | tar -C "$src" -xf -
	find "$src" \( -name '*.o' -o -name '*.d' -o -name '*.ko' \) -delete
	if tsa_in_root "$root" --build make -s -C "/build/deb-$$" deb WERROR=y \
		CC="${CROSS}gcc" DEB_ARCH=arm64 DEBOUT="/build/deb-$$/dist" >"$out/deb.log" 2>&1; then
		cp "$src"/dist/*.deb "$out/"
		rm -rf "$src"
		return 0
	fi
	cat "$out/deb.log" >&2
	rm -rf "$src"
	return 1
}

# dkms_env: the cross-build Debian's headers make for DKMS (.kernelvariables
# sets CROSS_COMPILE when the build and host architectures differ); on an
# arm64 machine DKMS builds natively and needs none of it.
dkms_env=(env DEB_BUILD_ARCH=amd64 DEB_HOST_ARCH=arm64 DEB_HOST_GNU_TYPE=aarch64-linux-gnu)

# The tsa-dkms package DEB installed in the root, DKMS building tsa.ko for
# VER as its postinst does (warnings as errors: TSA_WERROR=y reaches Kbuild
# from the environment); prints the module's vermagic; with OUT, leaves the
# module and DKMS's make.log there; removed again.
dkms_check() {
	local series=$1 ver=$2 deb=$3 out=${4:-} root ko vm rc=0
	root=$TSA_CACHE/kernels/arm64-$series/root
	cp "$deb" "$root/tmp/tsa-dkms.deb"
	tsa_in_root "$root" "${dkms_env[@]}" TSA_WERROR=y dpkg -i /tmp/tsa-dkms.deb >&2 || rc=1
	ko=$(find "$root/var/lib/dkms/tsa" -path "*/$ver/*/module/tsa.ko*" 2>/dev/null | head -n 1)
	vm=$( [ -z "$ko" ] || modinfo -F vermagic "$ko" 2>/dev/null)
	echo "$vm"
	if [ -n "$out" ] && [ -n "$ko" ]; then
		mkdir -p "$out"
		cp "$ko" "$out/tsa.ko"
		cp "$(find "$root/var/lib/dkms/tsa" -name make.log | head -n 1)" "$out/build.log"
	fi
	tsa_in_root "$root" dpkg --purge tsa-dkms >&2 || rc=1
	[ -z "$(tsa_in_root "$root" dkms status -m tsa 2>/dev/null)" ] || rc=1
	return $rc
}

[ $# -ge 1 ] || usage 2 >&2
case $1 in
provision) [ $# -eq 2 ] || usage 2 >&2; provision "$2" ;;
versions) [ $# -eq 2 ] || usage 2 >&2; series_release "$2" >/dev/null; versions "$2" ;;
moddir) [ $# -eq 3 ] || usage 2 >&2; echo "$TSA_CACHE/kernels/arm64-$2/images/$3/lib/modules/$3" ;;
userland) [ $# -eq 2 ] || usage 2 >&2; echo "$TSA_CACHE/kernels/arm64-$2/userland" ;;
build) [ $# -eq 4 ] || usage 2 >&2; build "$2" "$3" "$4" ;;
programs) [ $# -eq 3 ] || usage 2 >&2; programs "$2" "$3" ;;
deb) [ $# -eq 3 ] || usage 2 >&2; deb "$2" "$3" ;;
dkms) [ $# -eq 4 ] || [ $# -eq 5 ] || usage 2 >&2; dkms_check "$2" "$3" "$4" "${5:-}" ;;
-h|--help) usage 0 ;;
*) usage 2 >&2 ;;
esac
