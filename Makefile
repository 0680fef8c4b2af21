# SPDX-License-Identifier: LGPL-2.1-or-later
#
# stackinfo: the user's entry point.
#
#   make            the module (against KDIR) and the userspace tools
#   make demo       set up, then show a process with thousands of mappings
#                   in a Debian 6.12 guest: its stack, and glibc against
#                   the ioctl
#   make check      every test: host, then in QEMU guests; last line
#                   "N passed, N failed, N skipped"
#   make deps       install the Debian packages all of this needs
#   make module     stackinfo.ko only; KDIR=/path/to/kernel/build overrides
#   make tools      userspace only (build/)
#   make clean

# The running kernel's build dir if it has one, else the newest Debian
# 6.12 headers installed.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(shell ls -d /usr/src/linux-headers-6.12.*-amd64 2>/dev/null | sort -V | tail -n 1))

B := build
CC ?= cc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror
ALL_CFLAGS := $(WARN) $(CFLAGS) -Iinclude/uapi -Itools/testing/lib
LDLIBS := -lpthread

TESTUTIL := tools/testing/lib/testutil.c tools/testing/lib/testutil.h
GUEST_TESTS := $(patsubst tools/testing/guest/%.c,$(B)/guest/tests/%,$(wildcard tools/testing/guest/*.c))
HOST_TESTS := $(patsubst tools/testing/host/%.c,$(B)/host/%,$(wildcard tools/testing/host/*.c)) \
	$(patsubst tools/testing/host/%.sh,$(B)/host/%,$(wildcard tools/testing/host/*.sh))
BINS := $(B)/bin/stackinfo-demo
GUEST_FILES := $(B)/guest/run-tests $(B)/guest/splat-patterns
UAPI := include/uapi/linux/stackinfo.h

.PHONY: all module tools check demo deps clean help

all: module tools

help:
	@sed -n '3,14p' Makefile | sed 's/^# \{0,1\}//'

module:
	@if [ -z "$(KDIR)" ]; then \
		echo "module: no kernel build dir found; run 'make deps' or set KDIR" >&2; \
		exit 1; \
	fi
	@echo "module: building against $(KDIR)"
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools: $(BINS) $(GUEST_TESTS) $(GUEST_FILES) $(HOST_TESTS)

$(B)/bin/stackinfo-demo: tools/demo/stackinfo-demo.c $(UAPI)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LDLIBS)

$(B)/guest/tests/%: tools/testing/guest/%.c $(TESTUTIL) $(UAPI)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< tools/testing/lib/testutil.c $(LDLIBS)

$(B)/host/%: tools/testing/host/%.c $(TESTUTIL) $(UAPI)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< tools/testing/lib/testutil.c $(LDLIBS)

$(B)/host/%: tools/testing/host/%.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

$(B)/guest/run-tests: tools/testing/guest/run-tests
	@mkdir -p $(@D)
	install -m 755 $< $@

$(B)/guest/splat-patterns: tools/testing/splat-patterns
	@mkdir -p $(@D)
	install -m 644 $< $@

deps:
	scripts/deps.sh all

check:
	tools/testing/check

demo:
	scripts/deps.sh base
	$(MAKE) tools
	tools/testing/vm-run -- stackinfo-demo 5000

clean:
	rm -rf $(B)
	-[ -z "$(KDIR)" ] || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
