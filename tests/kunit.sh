#!/bin/bash
# Build (once, cached) a small debug kernel with KUnit from linux-source-6.1,
# build the project's KUnit module against it, run it in QEMU through
# tests/guest-run and turn the KTAP results into a pass/fail summary.
#
#   tests/kunit.sh [--timeout SECS] [--src DIR]  build if needed, run KUnit
#   tests/kunit.sh --build-only                   only make sure the kernel is built
#   tests/kunit.sh --print-kdir                   build if needed, print the kernel
#                                                 build tree
#   tests/kunit.sh --print-bzimage                build if needed, print the bzImage
#   tests/kunit.sh --build-module DIR             build tsa.ko from DIR's Kbuild and
#                                                 module/ against it (warnings are
#                                                 errors); print the tsa.ko
#
# --src DIR: build the KUnit module(s) from DIR (a directory with a Kbuild)
# instead of the repo's Kbuild + module/. Every *_kunit.ko built is loaded.
# --series S (any mode): the same debug kernel from the source of series S
# of tests/kernels.sh (7: the newest 7.x), built with that release's
# compiler inside its build root.
# Environment: TSA_CACHE (default ~/.cache/tsa), JOBS (default nproc).
set -euo pipefail

TSA_PROG=kunit.sh
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

usage() { sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit "${1:-0}"; }

mode=run
timeout=900
src=
series=
modsrc=
while [ $# -gt 0 ]; do
	case $1 in
	--build-only) mode=build ;;
	--print-kdir) mode=kdir ;;
	--print-bzimage) mode=bzimage ;;
	--build-module) mode=module; modsrc=$(cd "$2" && pwd); shift ;;
	--series) series=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--src) src=$(cd "$2" && pwd); shift ;;
	-h|--help) usage 0 ;;
	*) tsa_log "unknown argument: $1"; usage 2 >&2 ;;
	esac
	shift
done

# Builds run on the host (6.1), or chrooted in a series's build root: $root
# is "" or that root, $base the cache directory as the build sees it, and
# every path below is the host's view ($root$base/...).
fragment=$TSA_TESTS_DIR/kconfig/debug.config
if [ -n "$series" ]; then
	read -r root tarball_in < <("$TSA_TESTS_DIR/kernels.sh" source "$series") ||
		tsa_die "no kernel source for series $series"
	base=/build
	mkdir -p "$root$base"
else
	root='' tarball_in=/usr/src/linux-source-6.1.tar.xz base=$TSA_CACHE
fi
tarball=$root$tarball_in
src_name=$(basename "$tarball_in" .tar.xz)
[ -r "$tarball" ] || tsa_die "$tarball missing: run tests/deps.sh"
# in_build COMMAND...: run where the kernel builds (host or build root;
# there beside anything else: it installs nothing).
in_build() {
	if [ -n "$root" ]; then tsa_in_root "$root" --build "$@"; else "$@"; fi
}
# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
src_version=$(in_build dpkg-query -W -f='${Version}' "$src_name")
jobs=${JOBS:-$(nproc)}

# The cache key covers everything that changes the built kernel: the source
# package version, the config fragment, the compiler and this build recipe.
recipe=3
key=$({ echo "recipe $recipe"; echo "$src_version"; cat "$fragment"; in_build gcc --version | head -n 1; } |
	sha256sum | cut -c1-12)
srcdir=$base/$src_name
kdir=$base/kernel-$key
bzimage=$root$kdir/arch/x86/boot/bzImage

# Unpack the source once (shared by every config); kernels build with O= so
# the source tree stays clean. A stamp records which package version it is.
ensure_source() {
	local stamp=$root$srcdir/.tsa-source-version tmp
	[ "$(cat "$stamp" 2>/dev/null)" = "$src_version" ] && return 0
	tsa_log "unpacking $tarball into $root$srcdir"
	tmp=$(mktemp -d "$root$base/.unpack.XXXXXX")
	tar -C "$tmp" -xf "$tarball"
	echo "$src_version" >"$tmp/$src_name/.tsa-source-version"
	rm -rf -- "$root${srcdir:?}"
	mv "$tmp/$src_name" "$root$srcdir"
	rmdir "$tmp"
}

# Every option the fragment sets must survive olddefconfig; a silently
# dropped option (unmet dependency) would give a kernel that misses tests.
# An option no Kconfig of this source defines is skipped: newer kernels
# removed some that are now always on (BASE_FULL, PROC_SYSCTL,
# SCHED_DEBUG in 7.x), older ones lack some (SLUB_TINY before 6.2).
check_config() {
	local line opt bad=0 known
	known=$(grep -rhoE '^[[:space:]]*(menu)?config [A-Z0-9_]+' "$root$srcdir" --include='Kconfig*' |
		awk '{ print "CONFIG_" $2 }' | sort -u)
	while IFS= read -r line; do
		opt=${line#"# "}; opt=${opt%%[= ]*}
		case $opt in CONFIG_*) ;; *) continue ;; esac
		grep -qxF "$opt" <<<"$known" || { tsa_log "config: $opt does not exist in $src_name (skipped)"; continue; }
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$root$kdir/.config" ||
				{ tsa_log "config: wanted $line, got: $(grep -E "^(# )?${line%%=*}[= ]" "$root$kdir/.config" || echo unset)"; bad=1; } ;;
		"# CONFIG_"*" is not set")
			opt=${line#"# "}; opt=${opt%% *}
			! grep -q "^$opt=" "$root$kdir/.config" ||
				{ tsa_log "config: wanted $opt off, got: $(grep "^$opt=" "$root$kdir/.config")"; bad=1; } ;;
		esac
	done <"$fragment"
	return "$bad"
}

build_kernel() {
	local log=$root$kdir/build.log start end
	mkdir -p "$root$kdir"
	: >"$log"
	start=$(date +%s)
	tsa_log "building debug kernel in $root$kdir (log: $log)"
	cp "$fragment" "$root$kdir/tsa-debug.config"
	{
		in_build make -C "$srcdir" O="$kdir" tinyconfig &&
		in_build sh -c "cd $srcdir && scripts/kconfig/merge_config.sh -m -O $kdir $kdir/.config $kdir/tsa-debug.config" &&
		in_build make -C "$srcdir" O="$kdir" olddefconfig
	} >>"$log" 2>&1 || { tail -n 30 "$log" >&2; tsa_die "kernel configuration failed"; }
	check_config || tsa_die "config fragment $fragment not applied (see above)"
	in_build make -C "$srcdir" O="$kdir" -j"$jobs" bzImage modules >>"$log" 2>&1 ||
		{ tail -n 40 "$log" >&2; tsa_die "kernel build failed (log: $log)"; }
	end=$(date +%s)
	touch "$root$kdir/.tsa-built"
	tsa_log "kernel built in $((end - start)) s: $bzimage"
}

ensure_kernel() {
	mkdir -p "$TSA_CACHE"
	[ -f "$root$kdir/.tsa-built" ] && [ -f "$bzimage" ] && return 0
	# Serialise concurrent callers (CI jobs, other test scripts).
	exec 9>"$root$kdir.lock"
	flock 9
	if [ ! -f "$root$kdir/.tsa-built" ] || [ ! -f "$bzimage" ]; then
		ensure_source
		build_kernel
	fi
	flock -u 9
	exec 9>&-
}

# build_modules FROM LOG [make args]: a scratch copy of FROM (a Kbuild and
# module/) built against the debug kernel, in $root$moddir.
build_modules() {
	local from=$1 log=$2
	shift 2
	rm -rf -- "$root${moddir:?}"
	mkdir -p "$root$moddir" "$(dirname "$log")"
	if [ "$from" -ef "$TSA_REPO_DIR" ]; then
		cp -a "$from/Kbuild" "$from/module" "$root$moddir/"
	else
		cp -a "$from/." "$root$moddir/"
	fi
	# Objects from a build against another kernel must not leak in.
	find "$root$moddir" \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' -o -name '.*.cmd' \
		-o -name modules.order -o -name Module.symvers \) -delete
	in_build make -C "$kdir" M="$moddir" -j"$jobs" "$@" modules >"$log" 2>&1 ||
		{ cat "$log" >&2; tsa_die "module build against $root$kdir failed"; }
}

ensure_kernel
out=$TSA_REPO_DIR/tests/out/kunit${series:+-$series}
case $mode in
build) exit 0 ;;
kdir) echo "$root$kdir"; exit 0 ;;
bzimage) echo "$bzimage"; exit 0 ;;
module)
	moddir=$base/tsa-debug-$$
	build_modules "$modsrc" "$out/module-build.log" TSA_WERROR=y
	mkdir -p "$out"
	cp "$root$moddir/tsa.ko" "$out/tsa.ko"
	rm -rf -- "$root${moddir:?}"
	echo "$out/tsa.ko"
	exit 0 ;;
esac

# --- build the KUnit module(s) out of a scratch copy of the sources ---
moddir=$base/tsa-kunit-$$
tsa_log "building KUnit module(s) against $root$kdir"
build_modules "${src:-$TSA_REPO_DIR}" "$out/build.log"
mkdir -p "$out/ko"
rm -f "$out"/ko/*.ko
find "$root$moddir" -name '*_kunit.ko' -exec cp {} "$out/ko/" \;
rm -rf -- "$root${moddir:?}"
mapfile -t kos < <(find "$out/ko" -name '*_kunit.ko' | sort)
[ ${#kos[@]} -gt 0 ] || tsa_die "no *_kunit.ko built in $moddir (is CONFIG_KUNIT handled in Kbuild?)"

# --- run: the suites run at insmod; debugfs keeps each suite's KTAP ---
modargs=()
for ko in "${kos[@]}"; do modargs+=(--module "$ko"); done
ktap=$out/results.ktap
set +e
# TAINT_TEST (N, 262144) is expected: loading a KUnit module sets it.
"$TSA_TESTS_DIR/guest-run" --kernel "$bzimage" --timeout "$timeout" --allow-taint 262144 \
	"${modargs[@]}" -- /bin/sh -c 'cat /sys/kernel/debug/kunit/*/results' >"$ktap"
grc=$?
set -e

# KTAP from debugfs: "    # Subtest: suite" then per case "    ok N name"
# (4-space indent; deeper lines are parameterised sub-cases, counted through
# their parent case). "# SKIP" cases count as passed and are listed.
# A suite's own result line (column 0), and its "pass:N fail:N" count,
# catch a failed case whose line was lost: the kernel keeps a small log per case (512 bytes in 6.1), and
# a case with many failed expectations can push its own "not ok" out.
# The cases that ran are also counted against the KUNIT_CASE()s in the
# sources.
want=$(cat "$TSA_REPO_DIR"/module/*_test.c | grep -c 'KUNIT_CASE(' || true)
awk -v want="$want" '
	/^    # Subtest: / { suite = $3; sbad = 0; next }
	/^    (not )?ok [0-9]+ / {
		line = substr($0, 5)
		bad = (line ~ /^not ok/)
		sub(/^(not )?ok [0-9]+ /, "", line)
		name = line; skip = ""
		if (name ~ / # SKIP/) { skip = name; sub(/ # SKIP.*/, "", name); sub(/.* # SKIP/, " # SKIP", skip) }
		n++
		printf "%sok %d - %s.%s%s\n", bad ? "not " : "", n, suite, name, skip
		if (bad) { f++; sbad++ } else p++
		next
	}
	# The count at the end of a suite: failed cases without a line.
	/^# [a-z0-9_]+: pass:[0-9]+ fail:[0-9]+/ {
		k = $4; sub(/^fail:/, "", k)
		if (k + 0 > sbad) {
			printf "not ok %d - %s: %d failed cases, %d with a line (see the raw KTAP)\n", ++n, suite, k, sbad
			f += k - sbad; sbad = k
		}
		next
	}
	/^not ok [0-9]+ / && !sbad {
		printf "not ok %d - %s: the suite failed, but no failed case line survived (see the raw KTAP)\n", ++n, $4
		f++
	}
	END {
		if (n < want) {
			printf "not ok %d - %d KUnit cases reported, %d in the sources\n", ++n, n - 1, want
			f++
		}
		printf "kunit: %d passed, %d failed\n", p, f
	}
' "$ktap" | tee "$out/summary.txt"

read -r passed failed < <(sed -n 's/^kunit: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$out/summary.txt")
if [ "$grc" -ne 0 ]; then
	tsa_log "FAIL: guest run failed (exit $grc); raw KTAP in $ktap"
	exit 1
fi
if [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then
	tsa_log "FAIL: no KUnit case ran; raw KTAP in $ktap"
	exit 1
fi
[ "$failed" -eq 0 ] || { tsa_log "FAIL: $failed KUnit case(s) failed; raw KTAP in $ktap"; exit 1; }
exit 0
