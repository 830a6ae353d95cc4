# SPDX-License-Identifier: GPL-2.0
#
# make            build tsa.ko and tsa-prstat
# make check      install test dependencies, build, run every test suite
# make soak       longer: the matrix with every tsa-prstat section on every
#                 kernel, then the parallel suites three times over (a
#                 flake hunt, with each test's pass rate; ROUNDS=N)
# make demo       boot a kernel in QEMU with tsa loaded and show it at work
# make bench      overhead benchmarks (ratios, one guest run)
# make bench-profile  where tsa's instructions go, by kernel function
# make fuzz       the libFuzzer targets over every file tsa-prstat and
#                 tsa-exporter read (tests/fuzz), FUZZ_SECONDS each
#                 (default 300); make check runs them 15 s each
#
# KDIR selects the kernel build tree: the running kernel's when it has one,
# else the newest installed Debian generic headers.

VERSION := $(shell sed -n 's/^\#define TSA_VERSION "\(.*\)"/\1/p' module/tsa_version.h)
# The headers' Debian architecture: arm64 on an arm64 machine or when
# cross-building for one (ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-,
# where the running kernel's tree is not the one), else amd64.
TSA_HDR_ARCH := $(if $(filter arm64,$(ARCH))$(filter aarch64,$(shell uname -m)),arm64,amd64)
TSA_CROSS := $(if $(filter arm64,$(ARCH)),$(if $(filter aarch64,$(shell uname -m)),,y))
KDIR ?= $(firstword $(if $(TSA_CROSS),,$(wildcard /lib/modules/$(shell uname -r)/build)) \
	$(shell ls -d /usr/src/linux-headers-*-$(TSA_HDR_ARCH) 2>/dev/null | \
		grep -v -- '-rt-' | sort -V | tail -n 1))
# Warnings are errors in CI and in `make check`.
WERROR ?= $(if $(CI),y,)

.PHONY: all module userspace check soak demo bench bench-profile deps clean kunit print-kdir \
	fuzz

all: module userspace

module:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { echo "tsa: no kernel build tree; install linux-headers-$(TSA_HDR_ARCH) or set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) TSA_WERROR=$(WERROR) modules

userspace:
	$(MAKE) -C userspace WERROR=$(WERROR) VERSION=$(VERSION)

deps:
	bash tests/deps.sh

check:
	bash tests/check.sh

soak:
	TSA_MATRIX_FULL=1 bash tests/check.sh build matrix
	bash tests/check.sh --repeat $(or $(ROUNDS),3) parallel engine-mt waits-mt replay-mt prstat-mt

demo:
	bash tests/demo.sh

bench:
	bash tests/bench.sh

bench-profile:
	bash tests/bench.sh --profile

kunit:
	bash tests/kunit.sh

fuzz:
	bash tests/fuzz/run.sh --seconds $(or $(FUZZ_SECONDS),300)

print-kdir:
	@echo $(KDIR)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	$(MAKE) -C userspace clean

# ---------------------------------------------------------------------------
# Install, packaging, version checks (README.md "Install").
#
# make install     tsa.ko -> $(DESTDIR)/lib/modules/$(KVER)/updates/, depmod,
#                  tsa-prstat -> $(DESTDIR)$(PREFIX)/bin, tsa-prstat.8, tsa.4
# make uninstall   the reverse (and depmod)
# make dkms-stage  the DKMS source tree in $(DKMS_STAGE)/tsa-$(VERSION)
# make deb         tsa-dkms_$(VERSION)_all.deb and tsa-prstat_$(VERSION)_<arch>.deb
#                  in $(DEBOUT)
# make check-version  every place that spells the version agrees with
#                  module/tsa_version.h
#
# install does not build: run `make` first (as yourself), then `sudo make
# install`. KVER is the release of the tree in KDIR (its utsrelease.h, which
# is what tsa.ko's vermagic says; Debian's include/config/kernel.release and
# `make kernelrelease` print the upstream version instead). depmod runs on
# the live system when DESTDIR is empty, and on $(DESTDIR) only when that is
# a full root (it has /lib/modules/$(KVER)/modules.builtin); staging trees
# for packages are left to the package's own depmod. DEPMOD=true skips it.
PREFIX ?= /usr/local
MANDIR ?= $(PREFIX)/share/man
DEPMOD ?= depmod
ifndef KVER
KVER := $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
endif
TSA_MODDIR = $(DESTDIR)/lib/modules/$(KVER)/updates
DKMS_STAGE ?= $(CURDIR)/dist/dkms
DEBOUT ?= $(CURDIR)/dist
DEB_ARCH ?= $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB_MULTIARCH ?= $(shell dpkg-architecture -a$(DEB_ARCH) -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
# tsa-prstat needs the C library it was built against (upstream version),
# of the package's architecture: a multiarch root (an arm64 cross-build)
# has both.
DEB_LIBC ?= $(shell dpkg-query -W -f='$${Version}\n' libc6:$(DEB_ARCH) 2>/dev/null | head -n 1 | sed 's/-[^-]*$$//')
DEB_ZSTD ?= $(shell dpkg-query -W -f='$${Version}\n' libzstd1:$(DEB_ARCH) 2>/dev/null | head -n 1 | sed 's/-[^-]*$$//; s/+dfsg.*//')
DEB_MHD ?= $(shell dpkg-query -W -f='$${Version}\n' libmicrohttpd12:$(DEB_ARCH) 2>/dev/null | head -n 1 | sed 's/-[^-]*$$//')
# What DKMS needs to build the module (no userspace, no tests).
DKMS_FILES = Kbuild dkms.conf LICENSE $(wildcard module/*.c module/*.h module/uapi/*.h)

.PHONY: install-module install-userspace install-man uninstall-module \
	tsa-depmod dkms-stage deb check-version

install: install-module install-userspace install-man

install-module:
	@test -n "$(KVER)" || { echo "tsa: cannot tell the kernel release of KDIR=$(KDIR); set KVER=" >&2; exit 1; }
	@test -f tsa.ko || { echo "tsa: tsa.ko not built; run make first" >&2; exit 1; }
	@v=$$(modinfo -F vermagic tsa.ko 2>/dev/null | cut -d' ' -f1); \
	test -z "$$v" -o "$$v" = "$(KVER)" || { echo "tsa: tsa.ko is built for $$v, not $(KVER); rebuild or set KDIR=" >&2; exit 1; }
	install -D -m 0644 tsa.ko $(TSA_MODDIR)/tsa.ko
	@$(MAKE) --no-print-directory tsa-depmod

uninstall-module:
	rm -f $(TSA_MODDIR)/tsa.ko
	rmdir $(TSA_MODDIR) 2>/dev/null || true
	@$(MAKE) --no-print-directory tsa-depmod

tsa-depmod:
	@if [ -z "$(DESTDIR)" ]; then \
		echo "$(DEPMOD) -a $(KVER)"; $(DEPMOD) -a $(KVER); \
	elif [ -f "$(DESTDIR)/lib/modules/$(KVER)/modules.builtin" ]; then \
		echo "$(DEPMOD) -a -b $(DESTDIR) $(KVER)"; $(DEPMOD) -a -b $(DESTDIR) $(KVER); \
	else \
		echo "tsa: $(DESTDIR) is not a full root (no lib/modules/$(KVER)/modules.builtin): not running depmod"; \
	fi

install-userspace:
	$(MAKE) -C userspace install VERSION=$(VERSION) PREFIX=$(PREFIX) MANDIR=$(MANDIR) DESTDIR=$(DESTDIR)

install-man:
	install -D -m 0644 docs/tsa.4 $(DESTDIR)$(MANDIR)/man4/tsa.4

uninstall: uninstall-module
	$(MAKE) -C userspace uninstall PREFIX=$(PREFIX) MANDIR=$(MANDIR) DESTDIR=$(DESTDIR)
	rm -f $(DESTDIR)$(MANDIR)/man4/tsa.4

dkms-stage:
	rm -rf $(DKMS_STAGE)/tsa-$(VERSION)
	mkdir -p $(DKMS_STAGE)/tsa-$(VERSION)
	tar -cf - $(DKMS_FILES) | tar -xf - -C $(DKMS_STAGE)/tsa-$(VERSION)

# Two binary packages built with dpkg-deb from staged trees (Debian 12's
# dkms 3.0 has no mkdeb): tsa-dkms (arch all: the source in /usr/src, built
# by DKMS at install with Debian's own /usr/lib/dkms/common.postinst, as
# dh_dkms does) and tsa-prstat (the reader, both man pages).
deb: check-version userspace
	rm -rf $(DEBOUT)/deb && mkdir -p $(DEBOUT)/deb/dkms/usr/src $(DEBOUT)/deb/dkms/DEBIAN
	$(MAKE) --no-print-directory dkms-stage DKMS_STAGE=$(DEBOUT)/deb/dkms/usr/src
	install -D -m 0644 LICENSE $(DEBOUT)/deb/dkms/usr/share/doc/tsa-dkms/copyright
	install -D -m 0644 README.md $(DEBOUT)/deb/dkms/usr/share/doc/tsa-dkms/README.md
	printf '%s\n' 'Package: tsa-dkms' 'Version: $(VERSION)' 'Architecture: all' \
		'Maintainer: tsa developers <tsa@localhost>' 'Section: kernel' 'Priority: optional' \
		'Depends: dkms (>= 2.1.0.0)' 'Recommends: tsa-prstat (= $(VERSION))' \
		'Description: exact per-thread microstate accounting (kernel module, DKMS)' \
		' tsa.ko gives every thread a Solaris-style microstate table in /proc/tsa.' \
		' DKMS builds it for each installed kernel that has its headers' \
		' (linux-headers-amd64, linux-headers-rt-amd64).' > $(DEBOUT)/deb/dkms/DEBIAN/control
	printf '%s\n' '#!/bin/sh' 'set -e' \
		'# as dh_dkms: add, build and install for the running and newest kernels' \
		'if [ "$$1" = configure ]; then' \
		'	/usr/lib/dkms/common.postinst tsa $(VERSION) "" "" "$$2"' \
		'fi' > $(DEBOUT)/deb/dkms/DEBIAN/postinst
	printf '%s\n' '#!/bin/sh' 'set -e' \
		'case "$$1" in remove|upgrade|deconfigure)' \
		'	if dkms status -m tsa -v $(VERSION) | grep -q .; then dkms remove -m tsa -v $(VERSION) --all || true; fi ;;' \
		'esac' > $(DEBOUT)/deb/dkms/DEBIAN/prerm
	chmod 0755 $(DEBOUT)/deb/dkms/DEBIAN/postinst $(DEBOUT)/deb/dkms/DEBIAN/prerm
	$(MAKE) --no-print-directory install-userspace install-man \
		DESTDIR=$(DEBOUT)/deb/prstat PREFIX=/usr MANDIR=/usr/share/man \
		UNITDIR=/lib/systemd/system UDEVRULESDIR=/lib/udev/rules.d \
		LIBDIR=/usr/lib/$(DEB_MULTIARCH)
	install -D -m 0644 LICENSE $(DEBOUT)/deb/prstat/usr/share/doc/tsa-prstat/copyright
	gzip -9n $(DEBOUT)/deb/prstat/usr/share/man/man*/*
	mkdir -p $(DEBOUT)/deb/prstat/DEBIAN
	printf '%s\n' '#!/bin/sh' 'set -e' \
		'# The udev rule calibrates each later load; a module loaded already' \
		'# (an upgrade, or tsa.ko before this package) is calibrated now.' \
		'if [ "$$1" = configure ] && [ -e /proc/tsa/calibration ] &&' \
		'	! grep -qx "state applied" /proc/tsa/calibration; then' \
		'	/usr/bin/tsa-prstat --calibrate >/dev/null 2>&1 || true' \
		'fi' > $(DEBOUT)/deb/prstat/DEBIAN/postinst
	chmod 0755 $(DEBOUT)/deb/prstat/DEBIAN/postinst
	# libtsa.so.1: ldconfig after install and removal, as dh_makeshlibs has it.
	echo 'activate-noawait ldconfig' > $(DEBOUT)/deb/prstat/DEBIAN/triggers
	printf '%s\n' 'Package: tsa-prstat' 'Version: $(VERSION)' 'Architecture: $(DEB_ARCH)' \
		'Maintainer: tsa developers <tsa@localhost>' 'Section: admin' 'Priority: optional' \
		'Depends: libc6$(if $(DEB_LIBC), (>= $(DEB_LIBC))), libzstd1$(if $(DEB_ZSTD), (>= $(DEB_ZSTD))), libmicrohttpd12$(if $(DEB_MHD), (>= $(DEB_MHD))), zlib1g' \
		'Recommends: tsa-dkms (= $(VERSION))' \
		'Description: Solaris prstat -m for Linux, reading the tsa module' \
		' tsa-prstat reports per-thread microstates (USR SYS TRP TFL DFL LCK SLP' \
		' LAT) and the TSA method view from /proc/tsa/all, and records them' \
		' (tsa-record.service, not enabled) for replay; tsa-exporter serves them' \
		' to Prometheus (tsa-exporter.service, not enabled); libtsa lets a' \
		' thread read its own microstates (tsa.h, libtsa.so, tsa.pc). Man pages' \
		' tsa-prstat(8), tsa-exporter(8), tsa(4) and tsa_self(3).' > $(DEBOUT)/deb/prstat/DEBIAN/control
	fakeroot dpkg-deb --build -Zxz $(DEBOUT)/deb/dkms $(DEBOUT)/tsa-dkms_$(VERSION)_all.deb
	fakeroot dpkg-deb --build -Zxz $(DEBOUT)/deb/prstat $(DEBOUT)/tsa-prstat_$(VERSION)_$(DEB_ARCH).deb

# The version is written once, in module/tsa_version.h; dkms.conf and the
# man pages carry literal copies (dkms.conf must; man -l must show them),
# checked here.
check-version:
	@test -n "$(VERSION)" || { echo "check-version: no TSA_VERSION in module/tsa_version.h" >&2; exit 1; }
	@fail=0; \
	d=$$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf); \
	[ "$$d" = "$(VERSION)" ] || { echo "check-version: dkms.conf PACKAGE_VERSION=$$d, tsa_version.h $(VERSION)" >&2; fail=1; }; \
	for m in docs/tsa.4 docs/tsa-prstat.8 docs/tsa-exporter.8 docs/tsa_self.3; do \
		t=$$(sed -n 's/^\.TH [^ ]* [0-9] "[^"]*" "tsa \([^"]*\)".*/\1/p' $$m); \
		[ "$$t" = "$(VERSION)" ] || { echo "check-version: $$m .TH says tsa $$t, tsa_version.h $(VERSION)" >&2; fail=1; }; \
	done; \
	[ $$fail = 0 ] && echo "check-version: $(VERSION) everywhere"
