#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside a guest: `make install` puts the prebuilt tsa.ko where modprobe
# finds it, and the module loads, works and unloads the way a user meets it.
#
#   tests/guest-run --kernel VER -- tests/guest/modprobe-test.sh
#
# No --module: this script installs and loads the module itself. Run from
# the top of the source tree, after `make` built tsa.ko for VER. Writes go
# to the guest's tmpfs overlay only. Prints TAP; exits non-zero on failure.
set -u

cd "$(dirname "$(readlink -f "$0")")/../.." || exit 1
kver=$(uname -r)
version=$(sed -n 's/^#define TSA_VERSION "\(.*\)"/\1/p' module/tsa_version.h)
n=0
failed=0
start=$(date +%s)
step() { echo "# $1 at $(($(date +%s) - start)) s"; }
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1)); failed=$((failed + 1))
	echo "not ok $n - $1"
	echo "#   expected: $2"
	echo "#   seen:     $3"
}
check() { # check DESCRIPTION EXPECTED SEEN
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "$2" "$3"; fi
}

[ "$(id -u)" = 0 ] || { echo "Bail out! must run as root (inside tests/guest-run)"; exit 1; }
[ -f tsa.ko ] || { echo "Bail out! tsa.ko not built; run make first"; exit 1; }
built_for=$(modinfo -F vermagic ./tsa.ko | cut -d' ' -f1)
[ "$built_for" = "$kver" ] ||
	{ echo "Bail out! tsa.ko is built for $built_for, this guest runs $kver"; exit 1; }
if [ -e /sys/module/tsa ]; then
	echo "Bail out! tsa is already loaded (do not pass --module)"; exit 1
fi

# 1. make install into the live (overlay) root; depmod runs.
# depmod reads every module of the kernel, which over 9p under emulation
# takes minutes. The guest has already loaded what it needs, so give it a
# module tree of its own on tmpfs: the kernel's index files and the build
# link, then exactly the install a user runs.
build=$(readlink -f "/lib/modules/$kver/build")
mkdir -p /tmp/modules-orig
mount --bind "/lib/modules/$kver" /tmp/modules-orig
mount -t tmpfs tsa-modules "/lib/modules/$kver"
cp /tmp/modules-orig/modules.builtin* /tmp/modules-orig/modules.order "/lib/modules/$kver/"
ln -s "$build" "/lib/modules/$kver/build"

out=$(make -s install KDIR="/lib/modules/$kver/build" 2>&1)
rc=$?
check "make install exits 0" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
mod=/lib/modules/$kver/updates/tsa.ko
check "module installed in $mod" yes "$([ -f "$mod" ] && echo yes || echo no)"
check "modules.dep lists updates/tsa.ko" "updates/tsa.ko:" \
	"$(grep -o '^updates/tsa\.ko:' "/lib/modules/$kver/modules.dep" 2>/dev/null)"
check "modinfo finds the installed module" "$mod" "$(modinfo -F filename tsa 2>&1)"
check "tsa-prstat installed and reports the version" "tsa-prstat $version" \
	"$(/usr/local/bin/tsa-prstat --version 2>&1 | head -n 1)"
for m in /usr/local/share/man/man8/tsa-prstat.8 /usr/local/share/man/man4/tsa.4; do
	check "man page $m installed" yes "$([ -f "$m" ] && echo yes || echo no)"
done

step "install done"
# 2. modinfo: what a user is told about the module.
check "modinfo version" "$version" "$(modinfo -F version tsa)"
check "modinfo license" "GPL" "$(modinfo -F license tsa)"
desc=$(modinfo -F description tsa)
check "modinfo description present" yes "$([ -n "$desc" ] && echo yes || echo no)"
# parm lines are "name:description (type)"
for p in syscalls faults locks interrupts signals fault_maxactive; do
	line=$(modinfo -F parm tsa | grep "^$p:")
	d=${line#*:}
	d=${d% (*)}
	check "modinfo documents parameter $p" yes \
		"$([ -n "$line" ] && [ ${#d} -gt 10 ] && echo yes || echo "no ('$line')")"
done

step "modinfo done"
# 3. modprobe with a parameter; the module works.
out=$(modprobe tsa interrupts=1 2>&1)
rc=$?
check "modprobe tsa interrupts=1" "0" "$rc${out:+ ($out)}"
check "/sys/module/tsa/parameters/interrupts" Y "$(cat /sys/module/tsa/parameters/interrupts 2>&1)"
check "/sys/module/tsa/parameters/syscalls (default)" Y "$(cat /sys/module/tsa/parameters/syscalls 2>&1)"
nparams=$(ls /sys/module/tsa/parameters 2>/dev/null | wc -l)
nparm=$(modinfo -F parm tsa | grep -c .)
check "every parameter in sysfs has a modinfo description" "$nparams" "$nparm"
check "/sys/module/tsa/version" "$version" "$(cat /sys/module/tsa/version 2>&1)"
check "/proc/tsa/all header" "tsa-all 1" "$(head -n 1 /proc/tsa/all 2>&1)"
lines=$(grep -c '^[0-9]' /proc/tsa/all 2>/dev/null)
check "/proc/tsa/all lists threads" yes "$([ "${lines:-0}" -gt 5 ] && echo yes || echo "no ($lines)")"
check "/proc/tsa/\$\$ is this shell" "tid $$" "$(sed -n 2p /proc/tsa/$$ 2>&1)"
check "/proc/tsa/\$\$ degraded line (TRP live with interrupts=1)" no \
	"$(grep '^degraded' /proc/tsa/$$ | grep -qw TRP && echo yes || echo no)"
out=$(/usr/local/bin/tsa-prstat -c -mL -n 5 0.2 1 2>&1)
rc=$?
check "installed tsa-prstat -mL reads the module" 0 "$rc"
[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
if [ -r /sys/kernel/debug/tsa/stats ]; then
	check "debugfs stats version" "version $version" "$(head -n 1 /sys/kernel/debug/tsa/stats)"
fi

step "load and read done"
# 4. modprobe -r: everything goes away.
out=$(modprobe -r tsa 2>&1)
check "modprobe -r tsa" 0 "$?${out:+ ($out)}"
check "/proc/tsa gone after unload" gone "$([ -e /proc/tsa ] && echo present || echo gone)"
check "/sys/module/tsa gone after unload" gone "$([ -e /sys/module/tsa ] && echo present || echo gone)"
check "/sys/kernel/debug/tsa gone after unload" gone \
	"$([ -e /sys/kernel/debug/tsa ] && echo present || echo gone)"

step "unload done"
# 5. make uninstall: modprobe no longer finds it.
out=$(make -s uninstall KDIR="/lib/modules/$kver/build" 2>&1)
check "make uninstall exits 0" 0 "$?"
check "module removed" gone "$([ -e "$mod" ] && echo present || echo gone)"
check "modinfo no longer finds tsa" fail "$(modinfo tsa >/dev/null 2>&1 && echo found || echo fail)"
check "tsa-prstat removed" gone "$([ -e /usr/local/bin/tsa-prstat ] && echo present || echo gone)"

step "uninstall done"
echo "1..$n"
echo "modprobe-test: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
