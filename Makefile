# libxlat: hand-written, non-recursive GNU make. Works without configure;
# ./configure writes config.mk, which overrides the defaults below.
-include config.mk

VERSION_MAJOR := 0
VERSION_MINOR := 1
VERSION_PATCH := 0
VERSION       := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)
# libtool-style interface version current:revision:age, kept apart from the
# package version; the SONAME is libxlat.so.(current - age).
LT_CURRENT  := 1
LT_REVISION := 0
LT_AGE      := 1
SOMAJOR     := $(shell echo $$(( $(LT_CURRENT) - $(LT_AGE) )))
SONAME      := libxlat.so.$(SOMAJOR)
SOFILE      := libxlat.so.$(SOMAJOR).$(LT_AGE).$(LT_REVISION)

PREFIX      ?= /usr/local
prefix      ?= $(PREFIX)
includedir  ?= $(prefix)/include
bindir      ?= $(prefix)/bin
libdir      ?= $(prefix)/lib
datarootdir ?= $(prefix)/share
docdir      ?= $(datarootdir)/doc/libxlat
mandir      ?= $(datarootdir)/man
# CMake's find_package(libxlat) looks in <prefix>/lib/cmake/libxlat.
cmakedir    ?= $(libdir)/cmake/libxlat
DESTDIR     ?=

CC        ?= cc
CXX       ?= c++
AR        ?= ar
PKG_CONFIG ?= pkg-config
DOXYGEN   ?= doxygen
LDCONFIG  ?= ldconfig
CFLAGS    ?= -O2 -g
# The C++ test of xlat/xlat.hpp; the same optimisation as the C code by default.
CXXFLAGS  ?= $(CFLAGS)
LDFLAGS   ?=
SANFLAGS  ?=
# Warnings are on for everyone; WERROR=1 (what CI and developers use) makes
# them errors. Off by default, so that a newer compiler's new warning does
# not stop a user's build.
WERROR    ?= 0
WARNFLAGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
ifeq ($(WERROR),1)
WARNFLAGS += -Werror
endif
XCFLAGS   := -std=gnu11 $(WARNFLAGS) -Iinclude -Ilib/core $(CFLAGS) $(SANFLAGS)
LIBCFLAGS := $(XCFLAGS) -fPIC -fvisibility=hidden -DXLAT_BUILDING_LIBRARY
CXXWARNFLAGS := -Wall -Wextra -Wshadow
ifeq ($(WERROR),1)
CXXWARNFLAGS += -Werror
endif
XCXXFLAGS := -std=c++17 $(CXXWARNFLAGS) -Iinclude $(CXXFLAGS) $(SANFLAGS)

CHECK_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS   ?= $(shell $(PKG_CONFIG) --libs check 2>/dev/null)

# Variant builds (make sanitize) use their own object and output folders.
BUILD ?= build
OUT   ?= lib

LIB_SRCS  := $(sort $(wildcard lib/*/*.c))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
HEADERS   := $(sort $(wildcard include/xlat/*.h))
# Header-only C++ API, installed beside the C headers (not in Doxygen's input).
CXX_HEADERS := $(sort $(wildcard include/xlat/*.hpp))
STATIC    := $(OUT)/libxlat.a
SHARED    := $(OUT)/$(SOFILE)

TEST_SRCS  := $(sort $(wildcard tests/check_*.c))
# Helpers shared by the unit runner and the long runner.
TEST_COMMON := tests/testutil.c tests/testutil.h tests/tlb_model.c tests/tlb_model.h \
               tests/shootdown_run.c tests/shootdown_run.h tests/walk_fixture.c tests/walk_fixture.h \
               tests/walk_random.c tests/walk_random.h tests/least_fixture.c tests/least_fixture.h \
               tests/system_random.c tests/system_random.h tests/host.c tests/host.h \
               tests/gmmu_fixture.c tests/gmmu_fixture.h \
               tests/barre_alloc_fixture.c tests/barre_alloc_fixture.h \
               tests/fbarre_fixture.c tests/fbarre_fixture.h \
               tests/barre_system_random.c tests/barre_system_random.h \
               tests/alloc_run.h tests/alloc_run_loop.c tests/alloc_run_units.c \
               tests/alloc_run_systems.c
# The bad-input suite's world and the state digest it compares.
TEST_COMMON += tests/state_digest.c tests/state_digest.h tests/bad_input_world.c tests/bad_input_world.h
LONG_SRCS  := $(sort $(wildcard tests/long/*.c))
TEST_BIN   := $(BUILD)/tests/check_xlat
LONG_BIN   := $(BUILD)/tests/check_long
BENCH_SRCS := $(sort $(wildcard tests/bench/*.c))
BENCH_BIN  := $(BUILD)/tests/bench_xlat
# tests/cxx/check_cxx.cc built twice: the default mode (-fno-exceptions
# -fno-rtti) and the host's opt-in to exceptions (XLAT_CXX_EXCEPTIONS).
CXX_TEST_SRC  := tests/cxx/check_cxx.cc
CXX_TEST_BINS := $(BUILD)/tests/check_cxx $(BUILD)/tests/check_cxx_exc
EXAMPLES   := $(patsubst examples/%.c,$(BUILD)/examples/%,$(sort $(wildcard examples/*.c)))
# The C++ examples (examples/*.cc), built with $(CXX) beside the C ones.
CXX_EXAMPLES := $(patsubst examples/%.cc,$(BUILD)/examples/%,$(sort $(wildcard examples/*.cc)))

# xlat-sim (tools/xlat-sim): a program around the library, not part of it;
# it reads INI files with libinih, writes JSON with libjansson and reads
# compressed traces with zlib and liblzma (Debian: libinih-dev libjansson-dev
# zlib1g-dev liblzma-dev). Without them make builds the library and the
# examples and says, once, what xlat-sim needs.
SIM_PKGS   := inih jansson zlib liblzma
SIM_DEBS   := libinih-dev libjansson-dev zlib1g-dev liblzma-dev
SIM_FOUND  := $(shell $(PKG_CONFIG) --exists $(SIM_PKGS) 2>/dev/null && echo yes)
SIM_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags $(SIM_PKGS) 2>/dev/null)
SIM_LIBS   ?= $(shell $(PKG_CONFIG) --libs $(SIM_PKGS) 2>/dev/null) -lm
SIM_SRCS   := $(sort $(wildcard tools/xlat-sim/*.c))
SIM_HDRS   := $(sort $(wildcard tools/xlat-sim/*.h))
# Everything but main.c, also linked into the test runner and the bench.
SIM_OBJS   := $(patsubst %.c,$(BUILD)/%.o,$(filter-out tools/xlat-sim/main.c,$(SIM_SRCS)))
SIM_AR     := $(BUILD)/tools/libxlatsim.a
SIM_BIN    := $(BUILD)/bin/xlat-sim
SIM_TEST_SRCS := $(sort $(wildcard tests/sim/*.c))
SIM_XCFLAGS := $(XCFLAGS) $(SIM_CFLAGS) -Itools/xlat-sim
ifeq ($(SIM_FOUND),yes)
SIM_ALL := $(SIM_BIN)
else
SIM_ALL := sim-missing
endif

# The libFuzzer harnesses (tests/fuzz/fuzz_NAME.c, doc/reliability.md) also
# link into the test runner: each built by $(CC) with its entry point renamed
# fuzz_NAME_one, found by tests/check_fuzz_corpus.c through the X-macro list
# $(FUZZ_LIST), which replays tests/fuzz/corpus/NAME through it.
FUZZ_SRCS  := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRCS))
FUZZ_CHECK_OBJS := $(FUZZ_NAMES:%=$(BUILD)/fuzz/check/fuzz_%.o)
FUZZ_LIST  := $(BUILD)/fuzz/harnesses.h

TEST_DEFS := -DXLAT_TEST_SRCDIR='"$(CURDIR)"' -DXLAT_TEST_CC='"$(CC)"' \
             -DXLAT_TEST_CXX='"$(CXX)"' -DXLAT_TEST_SHARED='"$(CURDIR)/$(SHARED)"' \
             -DXLAT_TEST_EXAMPLES='"$(CURDIR)/$(BUILD)/examples"' \
             -DXLAT_TEST_SIM='"$(CURDIR)/$(SIM_BIN)"'

.PHONY: all check check-long run bench bench-instr bench-smoke docs install uninstall clean sanitize valgrind distclean \
        abi-check abi-update experiments fuzz fuzz-coverage fuzz-tools cov-tools

# The CMake package (find_package(libxlat)), written from cmake/*.in.
CMAKE_PKG := build/cmake/libxlatConfig.cmake build/cmake/libxlatConfigVersion.cmake

all: $(STATIC) $(SHARED) $(OUT)/$(SONAME) $(OUT)/libxlat.so $(EXAMPLES) $(CXX_EXAMPLES) libxlat.pc \
     $(CMAKE_PKG) $(SIM_ALL)

.PHONY: sim-missing sim-required
sim-missing:
	@echo "libxlat: xlat-sim not built: it needs $(SIM_PKGS) (apt-get install -y $(SIM_DEBS))"

sim-required:
	@if [ "$(SIM_FOUND)" != yes ]; then \
	    echo "this target needs xlat-sim, which needs $(SIM_PKGS): apt-get install -y $(SIM_DEBS)" >&2; \
	    exit 1; fi

$(BUILD)/tools/xlat-sim/%.o: tools/xlat-sim/%.c $(SIM_HDRS) $(HEADERS) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(SIM_XCFLAGS) -c $< -o $@

$(SIM_AR): $(SIM_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(SIM_BIN): $(BUILD)/tools/xlat-sim/main.o $(SIM_AR) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) $< -o $@ $(SIM_AR) $(STATIC) $(SIM_LIBS) $(LDFLAGS)

$(BUILD)/%.o: %.c $(HEADERS) $(wildcard lib/*/*.h) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(LIBCFLAGS) -c $< -o $@

$(STATIC): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(SHARED): $(LIB_OBJS) lib/libxlat.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=lib/libxlat.map \
	    -Wl,--no-undefined $(CFLAGS) $(SANFLAGS) $(LDFLAGS) -o $@ $(LIB_OBJS)

$(OUT)/$(SONAME): $(SHARED)
	ln -sf $(SOFILE) $@

$(OUT)/libxlat.so: $(OUT)/$(SONAME)
	ln -sf $(SONAME) $@

# ---- threads: examples/threads.c (doc/threads.md) runs contexts in
# parallel pthreads and serially and fails when they differ; make check runs
# it with every example (tests/check_examples.c), and .ci/stage-threads
# builds it and the library under ThreadSanitizer in build/tsan.
$(BUILD)/examples/threads: LDFLAGS += -pthread
# ---- end threads

$(BUILD)/examples/%: examples/%.c $(STATIC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) $< -o $@ $(STATIC) $(LDFLAGS)

$(BUILD)/examples/%: examples/%.cc $(STATIC) $(HEADERS) $(CXX_HEADERS)
	@mkdir -p $(dir $@)
	$(CXX) $(XCXXFLAGS) $< -o $@ $(STATIC) $(LDFLAGS)

$(TEST_BIN): $(TEST_SRCS) $(SIM_TEST_SRCS) $(TEST_COMMON) tests/suites.h $(STATIC) $(SHARED) \
             $(SIM_AR) $(SIM_BIN) $(FUZZ_CHECK_OBJS) $(FUZZ_LIST)
	@mkdir -p $(dir $@)
	$(CC) $(SIM_XCFLAGS) -Itests -I$(dir $(FUZZ_LIST)) $(CHECK_CFLAGS) $(TEST_DEFS) $(TEST_SRCS) \
	    $(SIM_TEST_SRCS) $(filter %.c,$(TEST_COMMON)) $(FUZZ_CHECK_OBJS) -o $@ $(SIM_AR) $(STATIC) \
	    $(CHECK_LIBS) $(SIM_LIBS) $(LDFLAGS)

# fuzz.h's entry point renamed per harness, so that all of them link together.
$(BUILD)/fuzz/check/fuzz_%.o: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h tests/fuzz/fuzz_entry.h \
                              $(HEADERS) $(SIM_HDRS) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(SIM_XCFLAGS) -Itests $(CHECK_CFLAGS) -include tests/fuzz/fuzz_entry.h \
	    -DLLVMFuzzerTestOneInput=fuzz_$*_one -c $< -o $@

# Rewritten only when the list of harnesses changed (like build/pc-vars).
$(FUZZ_LIST): FORCE
	@mkdir -p $(dir $@)
	@printf '/* Written by make from tests/fuzz/fuzz_*.c. */\n$(foreach n,$(FUZZ_NAMES),FUZZ_HARNESS($(n))\n)' \
	    | sed 's/^ //' > $@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv $@.new $@; fi

$(BUILD)/tests/check_cxx: $(CXX_TEST_SRC) $(HEADERS) $(CXX_HEADERS) $(STATIC)
	@mkdir -p $(dir $@)
	$(CXX) $(XCXXFLAGS) -fno-exceptions -fno-rtti $< -o $@ $(STATIC) $(LDFLAGS)

$(BUILD)/tests/check_cxx_exc: $(CXX_TEST_SRC) $(HEADERS) $(CXX_HEADERS) $(STATIC)
	@mkdir -p $(dir $@)
	$(CXX) $(XCXXFLAGS) -DXLAT_CXX_EXCEPTIONS $< -o $@ $(STATIC) $(LDFLAGS)

$(LONG_BIN): $(LONG_SRCS) $(TEST_COMMON) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) $(CHECK_CFLAGS) $(TEST_DEFS) $(LONG_SRCS) $(filter %.c,$(TEST_COMMON)) \
	    -o $@ $(STATIC) $(CHECK_LIBS) $(LDFLAGS)

$(BENCH_BIN): $(BENCH_SRCS) tests/bench/bench.h $(STATIC) $(SIM_AR)
	@mkdir -p $(dir $@)
	$(CC) $(SIM_XCFLAGS) $(BENCH_SRCS) -o $@ $(SIM_AR) $(STATIC) $(SIM_LIBS) $(LDFLAGS)

# The C++ tests run first, so that Check's summary stays the last line.
check: sim-required all $(TEST_BIN) $(CXX_TEST_BINS)
	@if [ -z "$(CHECK_LIBS)" ]; then \
	    echo "make check needs Check: apt-get install -y check pkg-config" >&2; exit 1; fi
	$(foreach t,$(CXX_TEST_BINS),$(t) &&) true
	$(TEST_BIN)

check-long: all $(LONG_BIN)
	$(LONG_BIN)

# The README's run command: least-TLB's baseline against least-TLB on 4 GPUs
# sharing pages, the same workload through both, one table.
RUN_ARGS ?= compare --preset least-baseline --preset least-tlb

run: sim-required all
	$(SIM_BIN) $(RUN_ARGS)

# The papers' headline comparisons (experiments/*.list): CSVs, latency CDFs
# and, with gnuplot, charts in build/experiments (doc/results.md).
experiments: sim-required $(SIM_BIN)
	XLAT_SIM=$(SIM_BIN) experiments/run $(BUILD)/experiments

# The ABI against the baseline abi/libxlat.abi (doc/abi.md; needs Debian's
# abigail-tools): abi-check fails when a function or type of the baseline
# changed; abi-update rewrites the baseline, deliberately, with a NEWS entry.
abi-check: $(SHARED)
	abi/check

abi-update: $(SHARED)
	abi/check --update

# A whole `make bench` ends with the instructions per operation of the
# kernels (bench-instr) when valgrind is installed.
bench: sim-required $(BENCH_BIN)
	$(BENCH_BIN) $(BENCH)
	@if [ -n "$(BENCH)" ]; then :; elif command -v valgrind >/dev/null 2>&1; then \
	    printf '\n-- instructions per operation (callgrind, the measured loop only) --\n'; \
	    tests/bench/instr $(BENCH_BIN); \
	else echo "(no instructions per operation: make bench-instr needs valgrind)"; fi

# Every group and kernel of the bench once, at small sizes, failing on an
# exit status or a word on stderr (.ci/run; the figures mean nothing).
bench-smoke: sim-required $(BENCH_BIN)
	tests/bench/smoke $(BENCH_BIN)

# Operations per host second beside callgrind's instructions per operation
# for the kernels of `bench_xlat --kernel` (KERNELS=... for some of them).
bench-instr: sim-required $(BENCH_BIN)
	tests/bench/instr $(BENCH_BIN) $(KERNELS)

# The quick suite under valgrind's memcheck, in one process (CK_FORK=no), so
# that the leak check at exit covers every test: no error, no definite or
# indirect leak (doc/reliability.md). Needs Debian's valgrind.
VALGRIND ?= valgrind
valgrind: sim-required all $(TEST_BIN)
	@command -v $(VALGRIND) >/dev/null 2>&1 || { \
	    echo "make valgrind needs valgrind: apt-get install -y valgrind" >&2; exit 1; }
	CK_FORK=no $(VALGRIND) -q --error-exitcode=9 --leak-check=full \
	    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
	    $(TEST_BIN)

sanitize:
	$(MAKE) BUILD=build/san OUT=build/san/lib CFLAGS="-O1 -g -fno-omit-frame-pointer" \
	    CXXFLAGS="-O1 -g -fno-omit-frame-pointer" SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" \
	    PY_CHECK=no check

# libFuzzer (tests/fuzz, doc/reliability.md): make fuzz builds every
# tests/fuzz/fuzz_NAME.c with clang, ASan and UBSan into build/fuzz/bin and
# runs each for FUZZ_TIME seconds on a work corpus grown from
# tests/fuzz/corpus/NAME; make fuzz-coverage replays the corpora through
# builds with clang's source coverage and reports the lines of lib/ run.
FUZZ_CC       ?= clang-14
FUZZ_PROFDATA ?= llvm-profdata-14
FUZZ_COV      ?= llvm-cov-14
FUZZ_TIME     ?= 60
FUZZ_OUT      := build/fuzz
# No -Werror: the library's warning gate is gcc's (WERROR=1).
FUZZ_CFLAGS   := -std=gnu11 -Wall -Wextra -g -O1 -Iinclude -Ilib/core -Itests -Itools/xlat-sim \
                 $(SIM_CFLAGS) $(CHECK_CFLAGS) -include tests/fuzz/fuzz_entry.h
FUZZ_MODE_obj := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_MODE_cov := -fprofile-instr-generate -fcoverage-mapping
FUZZ_LINK_obj := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_LINK_cov := -fsanitize=fuzzer -fprofile-instr-generate -fcoverage-mapping
# What a harness may call besides its own file: the library, xlat-sim but
# its main() and the tests' helpers, in an archive, so that each harness
# links only what it uses.
FUZZ_DEP_SRCS := $(LIB_SRCS) $(filter-out tools/xlat-sim/main.c,$(SIM_SRCS)) \
                 tests/tlb_model.c tests/testutil.c
FUZZ_LIBS     := $(CHECK_LIBS) $(SIM_LIBS)
FUZZ_BINS     := $(FUZZ_NAMES:%=$(FUZZ_OUT)/bin/fuzz_%)
FUZZ_COV_BINS := $(FUZZ_NAMES:%=$(FUZZ_OUT)/cov/fuzz_%)

fuzz-tools:
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || { \
	    echo "make fuzz needs $(FUZZ_CC): apt-get install -y clang-14 libclang-rt-14-dev" >&2; exit 1; }
	@printf 'int LLVMFuzzerTestOneInput(const char *d, long n) { return !d + (int)n; }\n' | \
	    $(FUZZ_CC) -fsanitize=fuzzer,address,undefined -x c - -o /dev/null 2>/dev/null || { \
	    echo "make fuzz needs libFuzzer for $(FUZZ_CC): apt-get install -y libclang-rt-14-dev" >&2; exit 1; }
	@if [ -z "$(CHECK_LIBS)" ]; then \
	    echo "make fuzz needs Check (the TLB harness links tests/tlb_model.c): apt-get install -y check pkg-config" >&2; \
	    exit 1; fi

cov-tools: fuzz-tools
	@command -v $(FUZZ_PROFDATA) >/dev/null 2>&1 && command -v $(FUZZ_COV) >/dev/null 2>&1 || { \
	    echo "make fuzz-coverage needs $(FUZZ_PROFDATA) and $(FUZZ_COV): apt-get install -y llvm-14" >&2; \
	    exit 1; }

# Objects of both builds: obj (libFuzzer, ASan, UBSan) and cov (coverage).
define fuzz_build
$(FUZZ_OUT)/$(1)/%.o: %.c $(HEADERS) $(wildcard lib/*/*.h) $(SIM_HDRS) tests/fuzz/fuzz.h \
                      tests/fuzz/fuzz_entry.h Makefile | $(2)
	@mkdir -p $$(dir $$@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_MODE_$(1)) $$(if $$(filter lib/%,$$<),-DXLAT_BUILDING_LIBRARY) \
	    -c $$< -o $$@

$(FUZZ_OUT)/$(1)/libdeps.a: $(FUZZ_DEP_SRCS:%.c=$(FUZZ_OUT)/$(1)/%.o)
	rm -f $$@
	$(AR) rcs $$@ $$^

$(3)/fuzz_%: $(FUZZ_OUT)/$(1)/tests/fuzz/fuzz_%.o $(FUZZ_OUT)/$(1)/libdeps.a
	@mkdir -p $$(dir $$@)
	$(FUZZ_CC) $(FUZZ_LINK_$(1)) $$< -o $$@ $(FUZZ_OUT)/$(1)/libdeps.a $(FUZZ_LIBS)
endef
# The harnesses' objects are kept: make would delete them as intermediate.
.PRECIOUS: $(FUZZ_OUT)/obj/%.o $(FUZZ_OUT)/cov/%.o
$(eval $(call fuzz_build,obj,fuzz-tools,$(FUZZ_OUT)/bin))
$(eval $(call fuzz_build,cov,cov-tools,$(FUZZ_OUT)/cov))

fuzz: sim-required $(FUZZ_BINS)
	tests/fuzz/run $(FUZZ_TIME) $(FUZZ_OUT) $(FUZZ_NAMES)

fuzz-coverage: sim-required $(FUZZ_COV_BINS)
	FUZZ_PROFDATA=$(FUZZ_PROFDATA) FUZZ_COV=$(FUZZ_COV) tests/fuzz/coverage $(FUZZ_OUT) $(FUZZ_NAMES)

# libxlat.pc and the CMake package record the install paths: build/pc-vars
# changes whenever they do (make install PREFIX=... after a plain make), and
# the files follow. The .pc also replaces the one configure wrote, with the
# paths fully expanded.
PC_VARS = $(prefix)|$(or $(exec_prefix),$(prefix))|$(libdir)|$(includedir)|$(cmakedir)|$(VERSION)
build/pc-vars: FORCE
	@mkdir -p $(dir $@)
	@echo '$(PC_VARS)' | cmp -s - $@ 2>/dev/null || echo '$(PC_VARS)' > $@

libxlat.pc: libxlat.pc.in build/pc-vars Makefile
	sed -e 's|@prefix@|$(prefix)|g' -e 's|@exec_prefix@|$(or $(exec_prefix),$(prefix))|g' \
	    -e 's|@libdir@|$(libdir)|g' -e 's|@includedir@|$(includedir)|g' \
	    -e 's|@PACKAGE_VERSION@|$(VERSION)|g' $< > $@

# The version file refuses a build whose pointers differ in size from the
# library's; the compiler says what size that is.
build/cmake/%.cmake: cmake/%.cmake.in build/pc-vars Makefile
	@mkdir -p $(dir $@)
	sizeof_void_p=$$(printf '__SIZEOF_POINTER__\n' | $(CC) -E -P -x c - 2>/dev/null | tail -n 1); \
	sed -e 's|@prefix@|$(prefix)|g' -e 's|@libdir@|$(libdir)|g' \
	    -e 's|@includedir@|$(includedir)|g' -e 's|@cmakedir@|$(cmakedir)|g' \
	    -e 's|@VERSION@|$(VERSION)|g' -e 's|@VERSION_MAJOR@|$(VERSION_MAJOR)|g' \
	    -e 's|@SONAME@|$(SONAME)|g' -e 's|@SOFILE@|$(SOFILE)|g' \
	    -e "s|@SIZEOF_VOID_P@|$$sizeof_void_p|g" $< > $@

.PHONY: FORCE
FORCE:

doc/Doxyfile: doc/Doxyfile.in Makefile
	sed -e 's|@PACKAGE_VERSION@|$(VERSION)|g' -e 's|@srcdir@|.|g' $< > $@

docs: doc/Doxyfile $(HEADERS) $(wildcard doc/*.md)
	@command -v $(DOXYGEN) >/dev/null 2>&1 || { \
	    echo "make docs needs doxygen: apt-get install -y doxygen" >&2; exit 1; }
	$(DOXYGEN) doc/Doxyfile

# The man pages' names come from Doxygen (one per header, group and struct),
# so install lists the ones it put in man3 in $(docdir)/man3-pages, and
# uninstall (or the next install) removes exactly those.
MAN_LIST = $(DESTDIR)$(docdir)/man3-pages
define remove_man_pages
if [ -f '$(MAN_LIST)' ]; then \
    echo "rm -f (the pages listed in $(MAN_LIST))"; \
    sed 's|^|$(DESTDIR)$(mandir)/man3/|' '$(MAN_LIST)' | xargs rm -f; \
    rm -f '$(MAN_LIST)'; fi
endef

# A library installed into the live system (no DESTDIR) is found by programs
# only once ldconfig has refreshed the dynamic linker's cache: as root,
# install and uninstall run it. A libdir the dynamic linker does not search
# gets one line saying so (README, Installing).
define run_ldconfig
ldc=$$(PATH="$$PATH:/usr/sbin:/sbin" command -v $(LDCONFIG)) || exit 0; \
if [ "$$(id -u)" = 0 ]; then echo "$$ldc"; "$$ldc" || exit 0; fi
endef

install: all
	install -d $(DESTDIR)$(includedir)/xlat $(DESTDIR)$(libdir)/pkgconfig $(DESTDIR)$(cmakedir)
	install -m 644 $(HEADERS) $(CXX_HEADERS) $(DESTDIR)$(includedir)/xlat/
	install -m 644 $(STATIC) $(DESTDIR)$(libdir)/
	install -m 755 $(SHARED) $(DESTDIR)$(libdir)/
	ln -sf $(SOFILE) $(DESTDIR)$(libdir)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(libdir)/libxlat.so
	install -m 644 libxlat.pc $(DESTDIR)$(libdir)/pkgconfig/
	install -m 644 $(CMAKE_PKG) $(DESTDIR)$(cmakedir)/
	@if [ -x '$(SIM_BIN)' ]; then \
	    echo "install $(SIM_BIN) doc/xlat-sim.1 -> $(DESTDIR)$(bindir), $(DESTDIR)$(mandir)/man1"; \
	    install -d '$(DESTDIR)$(bindir)' '$(DESTDIR)$(mandir)/man1' && \
	    install -m 755 '$(SIM_BIN)' '$(DESTDIR)$(bindir)/xlat-sim' && \
	    install -m 644 doc/xlat-sim.1 '$(DESTDIR)$(mandir)/man1/xlat-sim.1'; \
	fi
	@if [ -f doc/html/index.html ]; then \
	    echo "install doc/html -> $(DESTDIR)$(docdir)/html"; \
	    rm -rf '$(DESTDIR)$(docdir)/html' && install -d '$(DESTDIR)$(docdir)' && \
	    cp -R doc/html '$(DESTDIR)$(docdir)/html' && chmod -R u+w,go+rX,go-w '$(DESTDIR)$(docdir)/html'; \
	else \
	    echo "libxlat: the documentation is not built, so not installed (make docs, then make install again)"; \
	fi
	@$(remove_man_pages)
	@if ls doc/man/man3/*.3xlat >/dev/null 2>&1; then \
	    echo "install -m 644 doc/man/man3/*.3xlat $(DESTDIR)$(mandir)/man3/"; \
	    install -d '$(DESTDIR)$(mandir)/man3' '$(DESTDIR)$(docdir)' && \
	    install -m 644 doc/man/man3/*.3xlat '$(DESTDIR)$(mandir)/man3/' && \
	    (cd doc/man/man3 && ls *.3xlat) > '$(MAN_LIST)'; \
	fi
ifeq ($(DESTDIR),)
	@$(run_ldconfig); \
	"$$ldc" -p | grep -qF ' => $(libdir)/$(SONAME)' || \
	    echo "libxlat: $(libdir) is not on the dynamic linker's path: see Installing in the README"
endif

# Removes what install put there, then the folders install may have made
# (libxlat's own, and lib/pkgconfig, lib/cmake and man/man3) when nothing
# else is in them; never the prefix's include, lib or share.
UNINSTALL_DIRS = $(includedir)/xlat $(libdir)/pkgconfig $(cmakedir) \
                 $(filter %/cmake,$(patsubst %/,%,$(dir $(cmakedir)))) $(docdir) $(mandir)/man3 \
                 $(mandir)/man1

uninstall:
	rm -f $(addprefix $(DESTDIR)$(includedir)/xlat/,$(notdir $(HEADERS) $(CXX_HEADERS)))
	rm -f $(DESTDIR)$(libdir)/libxlat.a $(DESTDIR)$(libdir)/$(SOFILE) \
	    $(DESTDIR)$(libdir)/$(SONAME) $(DESTDIR)$(libdir)/libxlat.so \
	    $(DESTDIR)$(libdir)/pkgconfig/libxlat.pc
	rm -f $(addprefix $(DESTDIR)$(cmakedir)/,$(notdir $(CMAKE_PKG)))
	rm -f $(DESTDIR)$(bindir)/xlat-sim $(DESTDIR)$(mandir)/man1/xlat-sim.1
	rm -rf '$(DESTDIR)$(docdir)/html'
	@$(remove_man_pages)
	@for d in $(addprefix $(DESTDIR),$(UNINSTALL_DIRS)); do \
	    if [ -d "$$d" ] && rmdir "$$d" 2>/dev/null; then echo "rmdir $$d"; fi; done
ifeq ($(DESTDIR),)
	@$(run_ldconfig)
endif

# ---- Python module (python/, tests/python/, doc/python.md) ----------------
# The xlat package over the shared library through cffi's ABI mode: built
# into build/python/xlat when python3 is there, its declarations generated
# from the headers by python/gen_cdef.py. Debian's /usr/bin/python3 by
# default (PYTHON=... for another); tests need python3-cffi.
PYTHON     ?= $(shell if [ -x /usr/bin/python3 ]; then echo /usr/bin/python3; else command -v python3; fi)
PY_FOUND   := $(if $(PYTHON),$(shell $(PYTHON) -c '' 2>/dev/null && echo yes))
PY_OUT     := $(BUILD)/python/xlat
PY_SRCS    := $(sort $(wildcard python/xlat/*.py))
PY_BUILT   := $(PY_SRCS:python/xlat/%=$(PY_OUT)/%) $(PY_OUT)/_cdef.py $(PY_OUT)/_paths.py
# Where the package finds libxlat.so.0 and xlat-sim: the build tree here,
# $(libdir) and $(bindir) once installed (XLAT_LIBRARY and XLAT_SIM override).
define py_paths
printf '"""Written by make: where libxlat and xlat-sim are."""\n\nLIBDIR = %s\nSONAME = %s\nSIM = %s\n' \
    "'$(1)'" "'$(SONAME)'" "'$(2)'"
endef

.PHONY: python check-python install-python uninstall-python
ifeq ($(PY_FOUND),yes)
python: $(PY_BUILT)
else
python:
	@echo "libxlat: the Python module not built: it needs python3"
endif
all: python
check: check-python
install: install-python
uninstall: uninstall-python

$(PY_OUT)/%.py: python/xlat/%.py
	@mkdir -p $(dir $@)
	cp $< $@

$(PY_OUT)/_cdef.py: python/gen_cdef.py $(HEADERS) include/xlat/experimental.h
	@mkdir -p $(dir $@)
	$(PYTHON) python/gen_cdef.py --cc $(CC) --include include -o $@

$(PY_OUT)/_paths.py: Makefile
	@mkdir -p $(dir $@)
	$(call py_paths,$(CURDIR)/$(OUT),$(CURDIR)/$(SIM_BIN)) > $@

# make sanitize sets PY_CHECK=no: its library needs the ASan runtime, which
# python3 was not started with.
PY_CHECK ?= yes
check-python: python $(SHARED) $(OUT)/$(SONAME) $(SIM_ALL)
	@if [ "$(PY_CHECK)" != yes ]; then \
	    echo "skipped: the Python tests (a sanitized library cannot be loaded into python3)"; \
	elif [ "$(PY_FOUND)" != yes ]; then echo "skipped: the Python tests need python3"; \
	elif ! $(PYTHON) -c 'import cffi' 2>/dev/null; then \
	    echo "skipped: the Python tests need cffi for $(PYTHON) (apt-get install -y python3-cffi)"; \
	else PYTHONPATH=$(CURDIR)/$(BUILD)/python XLAT_SRCDIR=$(CURDIR) $(PYTHON) tests/python/run.py; fi

# The package goes where $(PYTHON) looks for the prefix (python/site_dir.py);
# PYTHONDIR=... chooses another folder.
PY_DIR = $(or $(PYTHONDIR),$(shell $(PYTHON) python/site_dir.py '$(prefix)'))
install-python: python
	@if [ "$(PY_FOUND)" = yes ]; then \
	    d='$(DESTDIR)$(PY_DIR)/xlat'; echo "install build/python/xlat -> $$d"; \
	    rm -rf "$$d" && install -d "$$d" && install -m 644 $(filter-out %/_paths.py,$(PY_BUILT)) "$$d/" && \
	    $(call py_paths,$(libdir),$(bindir)/xlat-sim) > "$$d/_paths.py"; fi

# The folders above the package go too when empty, but never those of a
# live /usr or /usr/local (Debian's python3 made them).
uninstall-python:
	@if [ "$(PY_FOUND)" = yes ]; then \
	    d='$(DESTDIR)$(PY_DIR)'; echo "rm -rf $$d/xlat"; rm -rf "$$d/xlat"; \
	    case '$(DESTDIR)|$(prefix)' in '|/usr'|'|/usr/local') ;; \
	    *) rmdir "$$d" 2>/dev/null && rmdir "$$(dirname "$$d")" 2>/dev/null || true;; esac; fi
# ---- end of the Python module ------------------------------------------------

clean:
	rm -rf build doc/html doc/man doc/Doxyfile libxlat.pc \
	    lib/libxlat.a lib/libxlat.so lib/libxlat.so.*

distclean: clean
	rm -rf config.mk config.log config.status autom4te.cache configure aclocal.m4
