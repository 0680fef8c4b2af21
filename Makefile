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
#   make bench      the benchmark in a Debian 6.12 guest: tables, CSV files,
#                   pictures under build/bench/ (BENCH_KERNEL=debug-6.12: in
#                   that guest, with the in-tree /proc/<pid>/stackinfo;
#                   BENCH_ARGS="--scaling-only 3": the picture's sweep alone)
#   make cost       guest instructions per call of every way (a QEMU plugin
#                   counts them, exactly) in a Debian 6.12 and a debug-6.12
#                   guest: table, breakdown, "cost:" line (build/cost/)
#   make deps       install the Debian packages all of this needs
#   make module     stackinfo.ko only; KDIR=/path/to/kernel/build overrides
#   make install    module (and depmod), library, header, pkg-config file,
#                   CLI, interposer, man pages, the Python package and gdb's
#                   info stackinfo; DESTDIR= and PREFIX= honoured; make
#                   uninstall undoes it
#   make dkms-install  register the module's source with DKMS and build and
#                   install it for KVER (default: KDIR's kernel)
#   make deb        Debian packages (stackinfo-dkms, libstackinfo0,
#                   libstackinfo-dev, stackinfo) under build/deb/
#   make tools      userspace only (build/)
#   make tools-arm64  what an arm64 guest runs, cross-built with clang into
#                   build-arm64/ (vm-run --kernel debug-6.12-arm64)
#   make check-arm64  the guest tests in the arm64 debug kernel's guest
#   make tools-musl  the library, the CLI and the library's tests that need
#                   no glibc, static, with Debian's musl-gcc into build-musl/
#                   (make tools builds them: the guests run the tests)
#   make check-extra  the x86 kernels make check leaves out for its time
#                   budget (debug-6.1), as make check holds each kernel
#   make clean

# The running kernel's build dir if it has one, else the newest Debian
# 6.12 headers installed.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(shell ls -d /usr/src/linux-headers-6.12.*-amd64 2>/dev/null | sort -V | tail -n 1))

B := build
CC ?= cc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror
INC := -Iinclude/uapi -Itools/lib -Itools/testing/lib
ALL_CFLAGS := $(WARN) $(CFLAGS) $(INC)
SAN_CFLAGS := $(WARN) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer $(INC)
LDLIBS := -lpthread
UAPI := include/uapi/linux/stackinfo.h

# libstackinfo: .so (soname, version script), .a, pkg-config file
LIB_VERSION := $(shell sed -n 's/^\#define LIBSTACKINFO_VERSION\t*"\(.*\)"/\1/p' tools/lib/libstackinfo.h)
LIB_SONAME := libstackinfo.so.$(firstword $(subst ., ,$(LIB_VERSION)))
LIB_NAMES := lib getattr backends maps proc process query text mainstack getstack handle \
	libc-glibc
# the compat symbols of released versions (tools/lib/abi/): the .so only,
# a static link has no symbol versions
LIB_COMPAT := abi-0.1.0 abi-0.2.0 abi-names
LIB_HDRS := tools/lib/libstackinfo.h tools/lib/internal.h tools/lib/compat.h $(UAPI)
LIB_PIC := $(LIB_NAMES:%=$(B)/lib/pic/%.o)
# The shared objects' own build of the same sources (the .so, the
# interposer): glibc's oldest symbol versions bound (tools/lib/glibc-symver.h),
# and 2.31's homes of those functions named as needed, so that what is
# built here loads on glibc 2.31 and later (host test glibc_symbols)
GLIBC_SYMVER := -include tools/lib/glibc-symver.h
GLIBC_NEEDED := -Wl,--push-state,--no-as-needed -l:libpthread.so.0 -l:libdl.so.2 -Wl,--pop-state
LIB_SOOBJ := $(LIB_NAMES:%=$(B)/lib/so/%.o)
LIB_COMPAT_SOOBJ := $(LIB_COMPAT:%=$(B)/lib/so/%.o)
LIB_A_SO := $(B)/lib/so/libstackinfo-so.a
LIB_SAN := $(LIB_NAMES:%=$(B)/lib/san/%.o)
LIB_SO := $(B)/lib/libstackinfo.so.$(LIB_VERSION)
LIB_A := $(B)/lib/libstackinfo.a
LIB_A_SAN := $(B)/lib/libstackinfo-san.a
PRELOAD := $(B)/lib/libstackinfo-preload.so
LIBS := $(LIB_SO) $(B)/lib/$(LIB_SONAME) $(B)/lib/libstackinfo.so $(LIB_A) $(LIB_A_SAN) \
	$(PRELOAD) $(B)/lib/libstackinfo.pc

TESTUTIL := tools/testing/lib/testutil.c tools/testing/lib/testutil.h tools/testing/lib/check.h \
	tools/testing/lib/filter.h
# Guest tests named lib_* test the library: linked against the .so (found
# through the runpath $ORIGIN/../../lib: build/lib here, /usr/lib in the
# guest, where vm-run puts it), and once more with
# the library, statically, under ASan and UBSan (lib_parity_san).
GUEST_SRCS := $(wildcard tools/testing/guest/*.c)
GUEST_TESTS := $(patsubst tools/testing/guest/%.c,$(B)/guest/tests/%,$(GUEST_SRCS)) \
	$(patsubst tools/testing/guest/%.sh,$(B)/guest/tests/%,$(wildcard tools/testing/guest/*.sh)) \
	$(B)/guest/tests/lib_parity_san $(B)/guest/tests/lib_initial_san \
	$(B)/guest/tests/lib_fork_san $(B)/guest/tests/lib_api_san $(B)/guest/tests/lib_sched_san \
	$(B)/guest/tests/lib_batch_san $(B)/guest/tests/lib_fds_san $(B)/guest/tests/lib_errno_san \
	$(B)/guest/tests/lib_seccomp_san $(B)/guest/tests/lib_getstack_san \
	$(B)/guest/tests/lib_handle_san
# The binaries of released versions (tools/testing/abi/release-*.c): each
# built from its release's recorded headers and linked against a stand-in
# made from its recorded map (tools/lib/abi/<version>/), so that it needs
# exactly the symbol versions that release's binaries need; run against
# this library in the guests (lib_abi_<version>) and on the host
# (abi_binaries, which also runs a program of this tree's header,
# build/abi/current, on the stand-ins).
ABI_RELEASES := $(patsubst tools/testing/abi/release-%.c,%,$(wildcard tools/testing/abi/release-*.c))
ABI_STANDINS := $(patsubst tools/lib/abi/%/libstackinfo.map,$(B)/abi/%/$(LIB_SONAME),\
	$(wildcard tools/lib/abi/*/libstackinfo.map))
GUEST_TESTS += $(ABI_RELEASES:%=$(B)/guest/tests/lib_abi_%)
# the callers' struct sizes (host test lib_query_sizes) also on the guests'
# backends, where the module and the in-tree file fill what the sizes cut
GUEST_TESTS += $(B)/guest/tests/lib_query_sizes
# The library, the CLI and some of the library's tests built against musl
# (make tools-musl, Debian's musl-gcc) into build-musl/, static: the guest
# runs those tests as lib_musl_NAME. They are the tests that hold the
# library against the kernel alone (/proc/<pid>/maps, RLIMIT_STACK), not
# against glibc.
MUSL := build-musl
MUSL_TESTS := lib_getstack lib_classify lib_batch lib_proc lib_environ
GUEST_TESTS += $(MUSL_TESTS:lib_%=$(B)/guest/tests/lib_musl_%)
HOST_SRCS := $(wildcard tools/testing/host/*.c)
HOST_TESTS := $(patsubst tools/testing/host/%.c,$(B)/host/%,$(HOST_SRCS)) \
	$(patsubst tools/testing/host/%.c,$(B)/host/%_san,$(filter tools/testing/host/lib_%,$(HOST_SRCS))) \
	$(patsubst tools/testing/host/%.sh,$(B)/host/%,$(wildcard tools/testing/host/*.sh))
BINS := $(B)/bin/stackinfo $(B)/bin/stackinfo-demo $(B)/bin/getattr-print \
	$(B)/bin/thread-sleeper $(B)/bin/stackinfo-bench $(B)/bin/startup-time \
	$(B)/bin/stackinfo-profile $(B)/bin/stackinfo-cost \
	$(B)/bin/stack-overflow $(B)/bin/stackinfo-layout $(B)/bin/stack-overflow-check
# the interposer's target under ASan and UBSan (host test preload_asan):
# getattr-print with the sanitizers' runtimes as shared libraries (gcc's
# way), the build that refuses a library preloaded ahead of them; not for
# the guests (libasan alone is 8 MB)
SAN_PROGS := $(B)/san/getattr-print-asan
# the in-tree series' kselftest (kernel/selftests/), run by the guest test
# intree_selftest
KSELFTEST := $(B)/guest/kselftest/proc-stackinfo
GUEST_FILES := $(B)/guest/run-tests $(B)/guest/splat-patterns $(B)/guest/log-filter.awk \
	$(B)/guest/testlib.sh \
	$(B)/guest/kmsg-since $(B)/guest/m32/compat_abi $(KSELFTEST) \
	$(patsubst tools/testing/python/%,$(B)/guest/%,$(wildcard tools/testing/python/*.py)) \
	$(B)/guest/guest-plan $(B)/guest/plan.sh $(B)/guest/libstackinfo.3 \
	$(patsubst tools/lib/abi/0.2.0/python/%,$(B)/guest/abi-0.2.0/%,\
		$(wildcard tools/lib/abi/0.2.0/python/stackinfo/*.py))

.PHONY: all module tools check demo bench cost deps clean help prune guest-tests install uninstall \
	tools-arm64 arm64-cross check-arm64 check-extra tools-musl \
	dkms-install dkms-uninstall install-tools deb

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR := $(PREFIX)/bin
LIBDIR := $(PREFIX)/lib
INCLUDEDIR := $(PREFIX)/include
MANDIR := $(PREFIX)/share/man
# The Python package (python/stackinfo) where Debian's python3 finds it:
# /usr/lib/python3/dist-packages for PREFIX=/usr, as python3-stackinfo has
# it; else $(PREFIX)/lib/python3.X/dist-packages, which Debian's python3
# reads for /usr/local. gdb's command file under $(PREFIX)/share/gdb: the
# data directory Debian's gdb reads (/usr/share/gdb) for PREFIX=/usr; for
# another prefix, `source` it in gdb, or set GDB_DATADIR=/usr/share/gdb.
PYTHON ?= python3
PYTHON_VERSION = $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python$(PYTHON_VERSION)/dist-packages)
GDB_DATADIR ?= $(PREFIX)/share/gdb
PY_FILES := $(wildcard python/stackinfo/*.py)
GDB_COMMAND := $(GDB_DATADIR)/python/gdb/command/stackinfo.py
KVER ?= $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
MODDIR := /lib/modules/$(KVER)/updates
DKMS_SRC := /usr/src/stackinfo-$(LIB_VERSION)
# what make install puts where, below $(DESTDIR)
INSTALLED := $(MODDIR)/stackinfo.ko $(LIBDIR)/libstackinfo.so.$(LIB_VERSION) \
	$(LIBDIR)/$(LIB_SONAME) $(LIBDIR)/libstackinfo.so $(LIBDIR)/libstackinfo.a \
	$(LIBDIR)/libstackinfo-preload.so $(LIBDIR)/pkgconfig/libstackinfo.pc \
	$(INCLUDEDIR)/libstackinfo.h $(INCLUDEDIR)/linux/stackinfo.h $(BINDIR)/stackinfo \
	$(MANDIR)/man1/stackinfo.1 $(MANDIR)/man3/libstackinfo.3 $(MANDIR)/man4/stackinfo.4 \
	$(MANDIR)/man3/pthread_getstack_np.3 $(GDB_COMMAND)

all: module tools

help:
	@sed -n '3,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

module:
	@if [ -z "$(KDIR)" ]; then \
		echo "module: no kernel build dir found; run 'make deps' or set KDIR" >&2; \
		exit 1; \
	fi
	@echo "module: building against $(KDIR)"
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# the cost meter's known loop, a bare multiboot kernel (host test cost_plugin)
COST_LOOP := $(B)/cost/loop.elf

tools: $(LIBS) $(BINS) $(SAN_PROGS) $(GUEST_TESTS) $(GUEST_FILES) $(HOST_TESTS) $(ABI_STANDINS) \
	$(B)/abi/current $(COST_LOOP) | prune

# the guest test programs run-tests finds, one a line: tools/testing/check
# expects a result from each (tools/testing/guest-results)
guest-tests:
	@printf '%s\n' $(notdir $(GUEST_TESTS))

# The guest's part of tools, cross-built for arm64 with clang and lld
# (scripts/deps.sh arm64: Debian 12's gcc-aarch64-linux-gnu and
# gcc-multilib exclude each other) into build-arm64/: not the host tests,
# not the -m32 program (x86's compat), not the in-tree kselftest (the arm64
# kernel has no series), not the cost meter's program (its markers and
# system calls are x86's), and not the ASan/UBSan builds: clang 14 has no
# aarch64 sanitizer runtime here.
# (-fuse-ld is unused when compiling only, which -Werror would fail)
ARM64_CC := clang --target=aarch64-linux-gnu -fuse-ld=lld -Wno-unused-command-line-argument
ARM64_TOOLS = $(filter-out $(LIB_A_SAN),$(LIBS)) $(filter-out $(B)/bin/stackinfo-cost,$(BINS)) \
	$(filter-out %_san %/lib_tsan $(B)/guest/tests/lib_musl_%,$(GUEST_TESTS)) \
	$(filter-out $(B)/guest/m32/compat_abi $(KSELFTEST),$(GUEST_FILES))
tools-arm64:
	@scripts/deps.sh arm64
	$(MAKE) B=build-arm64 CC='$(ARM64_CC)' AR=llvm-ar NM=llvm-nm GLIBC_NEEDED= arm64-cross

arm64-cross: $(ARM64_TOOLS) | prune

# musl: Debian 12's musl-tools (scripts/deps.sh base) on x86-64. musl-gcc
# reads musl's headers alone; the kernel's uapi headers (Debian's
# linux-libc-dev: linux/, asm/, asm-generic/) come through links in
# build-musl/include. The library without the interposer, which stays
# glibc's (libstackinfo(3)): getattr-musl.c and libc-musl.c stand in for
# getattr.c and libc-glibc.c. Everything links statically: the guests have
# no musl loader.
MUSL_CC := musl-gcc
MUSL_NAMES := $(filter-out getattr libc-glibc,$(LIB_NAMES)) getattr-musl libc-musl
MUSL_CFLAGS := $(WARN) $(CFLAGS) $(INC) -isystem $(MUSL)/include
MUSL_LIB := $(MUSL)/lib/libstackinfo.a
MUSL_ARCH_INC := /usr/include/$(shell gcc -print-multiarch)
tools-musl: $(MUSL_LIB) $(MUSL)/bin/stackinfo $(MUSL_TESTS:%=$(MUSL)/guest/tests/%)

$(MUSL)/include/.links:
	@mkdir -p $(@D)
	ln -sfn /usr/include/linux $(@D)/linux
	ln -sfn $(MUSL_ARCH_INC)/asm $(@D)/asm
	ln -sfn /usr/include/asm-generic $(@D)/asm-generic
	touch $@

$(MUSL)/lib/%.o: tools/lib/%.c $(LIB_HDRS) $(MUSL)/include/.links
	@mkdir -p $(@D)
	$(MUSL_CC) $(MUSL_CFLAGS) -c -o $@ $<

$(MUSL_LIB): $(MUSL_NAMES:%=$(MUSL)/lib/%.o)
	rm -f $@
	$(AR) rcs $@ $^

$(MUSL)/bin/stackinfo: tools/stackinfo/stackinfo.c $(MUSL_LIB) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(MUSL_CC) $(MUSL_CFLAGS) -static -o $@ $< $(MUSL_LIB) $(LDLIBS)

$(MUSL)/guest/tests/lib_%: tools/testing/guest/lib_%.c $(TESTUTIL) $(LIB_HDRS) $(MUSL_LIB)
	@mkdir -p $(@D)
	$(MUSL_CC) $(MUSL_CFLAGS) -DT_STATIC -static -o $@ $< tools/testing/lib/testutil.c \
		$(MUSL_LIB) $(LDLIBS)

$(B)/guest/tests/lib_musl_%: $(MUSL)/guest/tests/lib_%
	@mkdir -p $(@D)
	install -m 755 $< $@

# the arm64 guest alone, as make check holds each kernel (no host tests)
check-arm64:
	KERNELS=debug-6.12-arm64 HOST_TESTS=0 tools/testing/check

# what make check leaves out for the cold budget (docs/testing.md: What it costs)
check-extra:
	bash -c '. scripts/kernels.sh && KERNELS="$$KERNELS_EXTRA" HOST_TESTS=0 tools/testing/check'

# test binaries whose source is gone must not run again
prune:
	@for f in $(wildcard $(B)/host/* $(B)/guest/tests/*); do \
		case " $(HOST_TESTS) $(GUEST_TESTS) " in *" $$f "*) ;; *) rm -f $$f ;; esac; \
	done

$(B)/lib/pic/%.o: tools/lib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(B)/lib/so/%.o: tools/lib/%.c $(LIB_HDRS) tools/lib/glibc-symver.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(GLIBC_SYMVER) -fPIC -fvisibility=hidden -c -o $@ $<

$(B)/lib/san/%.o: tools/lib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

# The exported symbols must be exactly the map's, under the version node
# that the header's LIBSTACKINFO_VERSION names, and every released
# version's recorded symbol@node still there (docs/abi.md).
ABI_RECORDS := $(wildcard tools/lib/abi/*/symbols tools/lib/abi/*/libstackinfo.map)
$(LIB_SO): $(LIB_SOOBJ) $(LIB_COMPAT_SOOBJ) tools/lib/libstackinfo.map scripts/check-symbols.sh \
		$(ABI_RECORDS)
	$(CC) -shared -Wl,-soname,$(LIB_SONAME) -Wl,--version-script=tools/lib/libstackinfo.map \
		-Wl,-z,defs -o $@ $(LIB_SOOBJ) $(LIB_COMPAT_SOOBJ) $(LDLIBS) $(GLIBC_NEEDED)
	NM=$(NM) scripts/check-symbols.sh $@ tools/lib/libstackinfo.map $(LIB_VERSION) tools/lib/abi

$(B)/lib/$(LIB_SONAME) $(B)/lib/libstackinfo.so: $(LIB_SO)
	ln -sf $(notdir $<) $@

$(LIB_A): $(LIB_PIC)
	rm -f $@
	$(AR) rcs $@ $^

$(LIB_A_SO): $(LIB_SOOBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(LIB_A_SAN): $(LIB_SAN)
	rm -f $@
	$(AR) rcs $@ $^

$(PRELOAD): tools/preload/preload.c tools/preload/preload.map $(LIB_A_SO) $(LIB_HDRS) \
		tools/lib/glibc-symver.h
	$(CC) $(ALL_CFLAGS) $(GLIBC_SYMVER) -DSI_DEFINES_PTHREAD_GETATTR_NP -fPIC \
		-fvisibility=hidden -shared -Wl,--version-script=tools/preload/preload.map -Wl,-z,defs \
		-o $@ $< $(LIB_A_SO) $(LDLIBS) $(GLIBC_NEEDED)

$(B)/lib/libstackinfo.pc: tools/lib/libstackinfo.pc.in tools/lib/libstackinfo.h
	sed -e 's|@PREFIX@|/usr/local|' -e 's|@LIBDIR@|$${prefix}/lib|' \
		-e 's|@INCLUDEDIR@|$${prefix}/include|' -e 's|@VERSION@|$(LIB_VERSION)|' $< >$@

$(B)/bin/stackinfo: tools/stackinfo/stackinfo.c $(LIB_A) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_A) $(LDLIBS)

# what stackinfo-bench and stackinfo-profile share
BENCH_UTIL := tools/bench/benchutil.c tools/bench/benchutil.h

$(B)/bin/stackinfo-bench: tools/bench/bench.c $(BENCH_UTIL) $(LIB_A) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< tools/bench/benchutil.c $(LIB_A) $(LDLIBS)

$(B)/bin/stackinfo-profile: tools/bench/profile.c $(BENCH_UTIL) $(LIB_A) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< tools/bench/benchutil.c $(LIB_A) $(LDLIBS)

# the guest's half of the cost meter (make cost, and make check's ceilings)
$(B)/bin/stackinfo-cost: tools/cost/cost.c tools/cost/marker.h $(LIB_A) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itools/cost -o $@ $< $(LIB_A) $(LDLIBS)

$(COST_LOOP): tools/cost/loop.S tools/cost/marker.h
	@mkdir -p $(@D)
	$(CC) -m32 -nostdlib -static -Wl,--build-id=none -Wl,-Ttext=0x100000 \
		-Wl,-z,noseparate-code -Itools/cost -o $@ $<

$(B)/bin/stackinfo-demo: tools/demo/stackinfo-demo.c $(UAPI)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LDLIBS)

# the example of libstackinfo-dev, linked as a user would link it (the
# guests have the library in /usr/lib, the runpath's $ORIGIN/../lib)
$(B)/bin/stack-overflow-check: tools/examples/stack-overflow-check.c $(LIB_HDRS) $(LIB_SO) \
		$(B)/lib/$(LIB_SONAME)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< -Wl,-rpath,'$$ORIGIN/../lib' $(B)/lib/$(LIB_SONAME) $(LDLIBS)

# the bindings' test holds python/stackinfo/_abi.py against this
$(B)/bin/stackinfo-layout: $(LIB_HDRS)

$(B)/bin/%: tools/testing/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LDLIBS)

$(B)/san/getattr-print-asan: tools/testing/getattr-print.c
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) -o $@ $< $(LDLIBS)

# testutil reads maps with the library's parser (from the .a); lib_* tests
# take the public calls from the .so, listed first so that nothing else of
# the .a is pulled in
$(B)/guest/tests/lib_%: tools/testing/guest/lib_%.c $(TESTUTIL) $(LIB_HDRS) $(LIB_SO) \
		$(B)/lib/$(LIB_SONAME) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< tools/testing/lib/testutil.c \
		-Wl,-rpath,'$$ORIGIN/../../lib' $(B)/lib/$(LIB_SONAME) $(LIB_A) $(LDLIBS)

# ThreadSanitizer's: the .so, linked, and preloaded when it runs itself again
$(B)/guest/tests/lib_tsan: tools/testing/guest/lib_tsan.c $(TESTUTIL) $(LIB_HDRS) $(LIB_SO) \
		$(B)/lib/$(LIB_SONAME) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -g -fsanitize=thread $(INC) -o $@ $< tools/testing/lib/testutil.c \
		-Wl,-rpath,'$$ORIGIN/../../lib' $(B)/lib/$(LIB_SONAME) $(LIB_A) $(LDLIBS)

$(B)/guest/tests/lib_query_sizes: tools/testing/host/lib_query_sizes.c $(TESTUTIL) $(LIB_HDRS) \
		$(LIB_SO) $(B)/lib/$(LIB_SONAME) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< tools/testing/lib/testutil.c \
		-Wl,-rpath,'$$ORIGIN/../../lib' $(B)/lib/$(LIB_SONAME) $(LIB_A) $(LDLIBS)

# a release's binary: its headers, its stand-in at link time, this
# library at run time
$(B)/guest/tests/lib_abi_%: tools/testing/abi/release-%.c tools/testing/abi/release.h \
		tools/testing/lib/check.h \
		tools/lib/abi/%/include/libstackinfo.h tools/lib/abi/%/include/linux/stackinfo.h \
		$(B)/abi/%/$(LIB_SONAME) $(B)/abi/%/names.h $(LIB_SO) $(B)/lib/$(LIB_SONAME)
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CFLAGS) -Itools/lib/abi/$*/include -I$(B)/abi/$* -Itools/testing/lib \
		-o $@ $< -Wl,-rpath,'$$ORIGIN/../../lib' $(B)/abi/$*/$(LIB_SONAME) $(LDLIBS) -ldl

# the names a release exported (R_NAME("symbol") lines), which its binary
# looks up without a version
$(B)/abi/%/names.h: tools/lib/abi/%/symbols
	@mkdir -p $(@D)
	sed 's/@.*//; s/.*/R_NAME("&")/' $< >$@

# a library with release <version>'s symbol versions, each function a stand-in
$(B)/abi/%/$(LIB_SONAME): tools/lib/abi/%/libstackinfo.map tools/testing/abi/stand-in.sh
	CC='$(CC)' tools/testing/abi/stand-in.sh $< $(LIB_SONAME) $@

$(B)/abi/current: tools/testing/abi/current.c $(LIB_HDRS) $(LIB_SO) $(B)/lib/$(LIB_SONAME)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< -Wl,-rpath,'$$ORIGIN/../lib' $(B)/lib/$(LIB_SONAME) $(LDLIBS)

# a static binary: glibc's pthread_getattr_np is the one linked in
$(B)/guest/tests/lib_static: tools/testing/guest/lib_static.c $(TESTUTIL) $(LIB_HDRS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DT_STATIC -static -o $@ $< tools/testing/lib/testutil.c $(LIB_A) $(LDLIBS)

$(B)/guest/tests/lib_%_san: tools/testing/guest/lib_%.c $(TESTUTIL) $(LIB_HDRS) $(LIB_A_SAN)
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) -o $@ $< tools/testing/lib/testutil.c $(LIB_A_SAN) $(LDLIBS)

$(B)/guest/tests/%: tools/testing/guest/%.c $(TESTUTIL) $(LIB_HDRS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< tools/testing/lib/testutil.c $(LIB_A) $(LDLIBS)

$(B)/host/lib_%_san: tools/testing/host/lib_%.c $(TESTUTIL) $(LIB_HDRS) $(LIB_A_SAN)
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) -o $@ $< tools/testing/lib/testutil.c $(LIB_A_SAN) $(LDLIBS)

$(B)/host/%: tools/testing/host/%.c $(TESTUTIL) $(LIB_HDRS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< tools/testing/lib/testutil.c $(LIB_A) $(LDLIBS)

# built as in the kernel's tools/testing/selftests/proc/, against this
# tree's uapi header and the harness of Debian's linux-source-6.12
# (scripts/kselftest-headers.sh: its dir/proc finds "../kselftest_harness.h")
$(KSELFTEST): kernel/selftests/proc-stackinfo.c $(UAPI) scripts/kselftest-headers.sh
	@mkdir -p $(@D)
	kst=$$(scripts/kselftest-headers.sh) && \
	$(CC) $(WARN) $(CFLAGS) -Iinclude/uapi -isystem $$kst/proc -o $@ $< -lpthread

$(B)/host/%: tools/testing/host/%.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

$(B)/guest/tests/%: tools/testing/guest/%.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

$(B)/guest/run-tests: tools/testing/guest/run-tests
	@mkdir -p $(@D)
	install -m 755 $< $@

$(B)/guest/testlib.sh: tools/testing/lib/guest.sh
	@mkdir -p $(@D)
	install -m 644 $< $@

# what runs where (run-tests reads it with plan.sh's plan_reason)
$(B)/guest/guest-plan: tools/testing/guest-plan
	@mkdir -p $(@D)
	install -m 644 $< $@

$(B)/guest/plan.sh: tools/testing/lib/plan.sh
	@mkdir -p $(@D)
	install -m 644 $< $@

# the Python tests: the bindings' (run by lib_python in the guest, on the
# host by python_bindings) and the CLIs' (cli_parity, guest and host)
$(B)/guest/%.py: tools/testing/python/%.py
	@mkdir -p $(@D)
	install -m 644 $< $@

# libstackinfo(3), whose SYSTEM CALLS table lib_syscalls holds the library to
$(B)/guest/libstackinfo.3: man/libstackinfo.3
	@mkdir -p $(@D)
	install -m 644 $< $@

# the recorded Python package of 0.2.0, which lib_python holds against this
# library (release_0_2_0_test.py)
$(B)/guest/abi-0.2.0/%.py: tools/lib/abi/0.2.0/python/%.py
	@mkdir -p $(@D)
	install -m 644 $< $@

# the ABI from a 32-bit process (guest test compat_abi): static, since the
# guest has no 32-bit libc (gcc-multilib, scripts/deps.sh base)
$(B)/guest/m32/compat_abi: tools/testing/guest-m32/compat_abi.c $(UAPI)
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CFLAGS) -m32 -static -Iinclude/uapi -o $@ $< -lpthread

# run-tests' reader of the kernel log by sequence number
$(B)/guest/kmsg-since: tools/testing/kmsg-since.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $<

$(B)/guest/splat-patterns: tools/testing/splat-patterns
	@mkdir -p $(@D)
	install -m 644 $< $@

$(B)/guest/log-filter.awk: tools/testing/log-filter.awk
	@mkdir -p $(@D)
	install -m 644 $< $@

deps:
	scripts/deps.sh all

check:
	tools/testing/check

bench:
	scripts/deps.sh base bench
	$(MAKE) tools
	tools/bench/run $(BENCH_ARGS)

cost:
	scripts/deps.sh base cost
	$(MAKE) tools
	tools/cost/run

demo:
	scripts/deps.sh base
	$(MAKE) tools
	tools/testing/vm-run -- stackinfo-demo 5000

install: module install-tools
	install -D -m 644 stackinfo.ko $(DESTDIR)$(MODDIR)/stackinfo.ko
	[ -n "$(DESTDIR)" ] || depmod -a $(KVER)

# everything but the module: what the Debian packages take (the module
# goes through DKMS there)
install-tools: $(LIBS) $(B)/bin/stackinfo
	install -D -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/libstackinfo.so.$(LIB_VERSION)
	ln -sf libstackinfo.so.$(LIB_VERSION) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/libstackinfo.so
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/libstackinfo.a
	install -m 755 $(PRELOAD) $(DESTDIR)$(LIBDIR)/libstackinfo-preload.so
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(LIB_VERSION)|' \
		tools/lib/libstackinfo.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/libstackinfo.pc
	install -D -m 644 tools/lib/libstackinfo.h $(DESTDIR)$(INCLUDEDIR)/libstackinfo.h
	install -D -m 644 $(UAPI) $(DESTDIR)$(INCLUDEDIR)/linux/stackinfo.h
	install -D -m 755 $(B)/bin/stackinfo $(DESTDIR)$(BINDIR)/stackinfo
	install -D -m 644 man/stackinfo.1 $(DESTDIR)$(MANDIR)/man1/stackinfo.1
	install -D -m 644 man/libstackinfo.3 $(DESTDIR)$(MANDIR)/man3/libstackinfo.3
	install -D -m 644 man/pthread_getstack_np.3 $(DESTDIR)$(MANDIR)/man3/pthread_getstack_np.3
	install -D -m 644 man/stackinfo.4 $(DESTDIR)$(MANDIR)/man4/stackinfo.4
	install -d $(DESTDIR)$(PYTHONDIR)/stackinfo
	install -m 644 $(PY_FILES) $(DESTDIR)$(PYTHONDIR)/stackinfo/
	install -D -m 644 python/gdb/stackinfo.py $(DESTDIR)$(GDB_COMMAND)
	[ -n "$(DESTDIR)" ] || ldconfig

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rm -rf $(DESTDIR)$(PYTHONDIR)/stackinfo
	[ -n "$(DESTDIR)" ] || depmod -a $(KVER)

# The module's sources as DKMS wants them, then add, build, install.
dkms-install:
	scripts/deps.sh install
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)
	cp -r Kbuild dkms.conf module include kunit $(DKMS_SRC)/
	dkms add -m stackinfo -v $(LIB_VERSION)
	dkms build -m stackinfo -v $(LIB_VERSION) -k $(KVER)
	dkms install -m stackinfo -v $(LIB_VERSION) -k $(KVER)

dkms-uninstall:
	-dkms remove -m stackinfo -v $(LIB_VERSION) --all
	rm -rf $(DKMS_SRC)

deb:
	scripts/build-deb.sh $(B)/deb

clean:
	rm -rf $(B) build-arm64 $(MUSL)
	-[ -z "$(KDIR)" ] || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
