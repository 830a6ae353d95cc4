# SPDX-License-Identifier: GPL-2.0
#
# make            build tsa.ko and tsa-prstat
# make check      install test dependencies, build, run every test suite
# make demo       boot a kernel in QEMU with tsa loaded and show it at work
# make bench      overhead benchmarks (ratios, one guest run)
#
# KDIR selects the kernel build tree: the running kernel's when it has one,
# else the newest installed Debian generic headers.

VERSION := $(shell sed -n 's/^\#define TSA_VERSION "\(.*\)"/\1/p' module/tsa_version.h)
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | \
		grep -v -- '-rt-' | sort -V | tail -n 1))
# Warnings are errors in CI and in `make check`.
WERROR ?= $(if $(CI),y,)

.PHONY: all module userspace check demo bench deps clean kunit install uninstall

all: module userspace

module:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { echo "tsa: no kernel build tree; install linux-headers-amd64 or set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) TSA_WERROR=$(WERROR) modules

userspace:
	$(MAKE) -C userspace WERROR=$(WERROR) VERSION=$(VERSION)

deps:
	bash tests/deps.sh

check:
	bash tests/check.sh

demo:
	bash tests/demo.sh

bench:
	bash tests/bench.sh

kunit:
	bash tests/kunit.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	$(MAKE) -C userspace clean
