# dnnpar - one hand-written makefile.
#   make          release build: build/dnnpar and build/libdnnpar.a
#   make run      install missing Debian packages, build, run the main job
#   make test     sanitizer build, unit tests and golden CLI tests
#   make bench    benchmarks (bench/)
#   make alloc-check  the allocation-failure sweep over every N (slow)
#   make valgrind the golden CLI tests with the release binary under memcheck
#   make fuzz SECONDS=N   build the libFuzzer targets (tests/fuzz/) with clang-14 and
#                 run each for N seconds (default 60) over its corpus; FUZZ_TIMEOUT=S
#                 (default 10) is libFuzzer's per-input limit in wall seconds
#   make install  PREFIX=/usr/local (DESTDIR honoured): binary, static and shared
#                 library, headers (dnnpar.h, dnnpar/*.h), pkg-config file, man
#                 page, shell completion, the torch executor (share/dnnpar/python)
#   make uninstall  removes what make install put there

CC      ?= cc
WARN    := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wformat=2 -Wvla -Werror
DEFS    := -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
INCS    := -Iinclude -Isrc
JSON_CFLAGS := $(shell pkg-config --cflags jansson 2>/dev/null)
JSON_LIBS   := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
LIBS    := $(JSON_LIBS) -lprotobuf-c -lm

# ONNX: C code generated at build time from the onnx.proto Debian's
# libonnx-dev ships, by protoc-c (protobuf-c-compiler).
ONNX_PROTO ?= /usr/include/onnx/onnx.proto
GEN_FLAGS  := -std=c11 -w
# The device and node presets are data (docs/cluster.md, "Presets as data"):
# tools/codegen/gen_presets.c turns the JSON into the tables src/hw/cluster.c
# includes (gen/presets.inc of each build directory).
PRESETS_JSON := data/presets/presets.json
GEN_PRESETS  := tools/codegen/gen_presets.c

LIB_SRC := $(sort $(wildcard src/*/*.c src/*/*/*.c))
CLI_SRC := $(sort $(wildcard tools/dnnpar/*.c))
TEST_SRC := $(sort $(wildcard tests/unit/*.c))
# Each object depends on the headers it includes: the compiler writes them
# to a .d file beside it (-MMD; -MP keeps a deleted header from stopping make).
DEPFLAGS := -MMD -MP

# Build directories; override to keep concurrent builds apart (make test TB=build-test-x).
B  ?= build
TB ?= build-test

# Only what the public headers declare (include/dnnpar.h and include/dnnpar/*.h,
# their visibility pragmas) is exported;
# every other library symbol is hidden (docs/library.md).
VIS_FLAGS  := -fvisibility=hidden
REL_FLAGS  := -O2 -g $(VIS_FLAGS)
# -fPIC: the test build also links a shared library (the install test).
SAN_FLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=all
TEST_FLAGS := -O1 -g -fno-omit-frame-pointer -fPIC $(VIS_FLAGS) $(SAN_FLAGS)

# Fuzz targets (tests/fuzz/fuzz_NAME.c), their corpora in tests/fuzz/corpus/NAME/.
FUZZ_TARGETS := model_json cluster_json strategy_json onnx accpar_text cluster_spec validate_csv
FB      ?= build-fuzz
FUZZ_CC ?= clang-14
SECONDS ?= 60
# libFuzzer's -timeout: an input running longer (wall clock) is reported as a
# hang.  Raise it on a loaded machine, where CPU starvation looks like a hang.
FUZZ_TIMEOUT ?= 10
# clang's warnings differ from gcc's; the -Werror gate is the gcc builds.
FUZZ_WARN := $(filter-out -Werror,$(WARN))
FUZZ_LIB_FLAGS := -O1 -g -fno-omit-frame-pointer $(VIS_FLAGS) \
                  -fsanitize=fuzzer-no-link,address,undefined \
                  -fno-sanitize-recover=undefined

# Installation (GNU conventions).  The soname carries the part of the
# version that changes the ABI: the major from 1.0 on, major.minor before
# (0.x minors may change the API; docs/library.md "Versions").
VERSION  := $(shell sed -n 's/^\#define DNP_VERSION "\(.*\)"/\1/p' include/dnnpar/core.h)
SOMAJOR  := $(if $(filter 0,$(word 1,$(subst ., ,$(VERSION)))),$(word 1,$(subst ., ,$(VERSION))).$(word 2,$(subst ., ,$(VERSION))),$(word 1,$(subst ., ,$(VERSION))))
PREFIX   ?= /usr/local
DESTDIR  ?=
BINDIR   ?= $(PREFIX)/bin
LIBDIR   ?= $(PREFIX)/lib
INCDIR   ?= $(PREFIX)/include
MANDIR   ?= $(PREFIX)/share/man
DATADIR  ?= $(PREFIX)/share

.PHONY: all run test bench clean deps format install install-test-build uninstall shared FORCE \
        alloc-check valgrind fuzz fuzz-deps print-warn

all: $(B)/dnnpar $(B)/libdnnpar.a

deps:
	@bash scripts/install-deps.sh

# ---- release build ---------------------------------------------------
$(B)/gen/gen_presets: $(GEN_PRESETS)
	@mkdir -p $(B)/gen
	$(CC) $(WARN) $(DEFS) $(JSON_CFLAGS) -O1 -o $@ $< $(JSON_LIBS)

$(B)/gen/presets.inc: $(PRESETS_JSON) $(B)/gen/gen_presets
	$(B)/gen/gen_presets $(PRESETS_JSON) > $@.tmp && mv $@.tmp $@

$(B)/obj/src/hw/cluster.o $(B)/pic/src/hw/cluster.o: $(B)/gen/presets.inc

$(B)/gen/onnx.pb-c.c $(B)/gen/onnx.pb-c.h: $(ONNX_PROTO)
	@mkdir -p $(B)/gen
	protoc-c --proto_path=$(dir $(ONNX_PROTO)) --c_out=$(B)/gen $(notdir $(ONNX_PROTO))

$(B)/obj/gen/onnx.pb-c.o: $(B)/gen/onnx.pb-c.c
	@mkdir -p $(dir $@)
	$(CC) $(GEN_FLAGS) -I$(B)/gen $(REL_FLAGS) -c $< -o $@

$(B)/obj/%.o: %.c $(B)/gen/onnx.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEFS) $(INCS) -I$(B)/gen $(JSON_CFLAGS) $(REL_FLAGS) $(DEPFLAGS) -c $< -o $@

# The static library is one prelinked object whose hidden symbols are made
# local: a program linking it sees only the dnp_ API, as with the shared
# library (docs/library.md).  The test build keeps a plain archive: the
# unit tests call internal functions.
$(B)/libdnnpar.a: $(LIB_SRC:%.c=$(B)/obj/%.o) $(B)/obj/gen/onnx.pb-c.o
	@mkdir -p $(B)
	rm -f $@ $(B)/libdnnpar.o
	ld -r -o $(B)/libdnnpar.o $^
	objcopy --localize-hidden $(B)/libdnnpar.o
	ar rcs $@ $(B)/libdnnpar.o

# The benchmarks time internal functions (pase_, lower_, sf_, mpt_): they link
# a plain archive of the same release objects, where hidden symbols still
# resolve in a static link.
$(B)/libdnnpar-internal.a: $(LIB_SRC:%.c=$(B)/obj/%.o) $(B)/obj/gen/onnx.pb-c.o
	rm -f $@
	ar rcs $@ $^

$(B)/dnnpar: $(CLI_SRC:%.c=$(B)/obj/%.o) $(B)/libdnnpar.a
	$(CC) $(REL_FLAGS) -o $@ $^ $(LIBS)

# Shared library: the same sources compiled position-independent in $(B)/pic.
$(B)/pic/gen/onnx.pb-c.o: $(B)/gen/onnx.pb-c.c
	@mkdir -p $(dir $@)
	$(CC) $(GEN_FLAGS) -I$(B)/gen $(REL_FLAGS) -fPIC -c $< -o $@

$(B)/pic/%.o: %.c $(B)/gen/onnx.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEFS) $(INCS) -I$(B)/gen $(JSON_CFLAGS) $(REL_FLAGS) -fPIC $(DEPFLAGS) -c $< -o $@

# (the soname is set here: relinked when the Makefile changes)
$(B)/libdnnpar.so.$(VERSION): $(LIB_SRC:%.c=$(B)/pic/%.o) $(B)/pic/gen/onnx.pb-c.o Makefile
	$(CC) $(REL_FLAGS) -shared -Wl,-soname,libdnnpar.so.$(SOMAJOR) -o $@ $(filter-out Makefile,$^) $(LIBS)

shared: $(B)/libdnnpar.so.$(VERSION)

# ---- sanitizer build for tests ---------------------------------------
$(TB)/gen/presets.inc: $(PRESETS_JSON) $(B)/gen/gen_presets
	@mkdir -p $(TB)/gen
	$(B)/gen/gen_presets $(PRESETS_JSON) > $@.tmp && mv $@.tmp $@

$(TB)/obj/src/hw/cluster.o: $(TB)/gen/presets.inc

$(TB)/gen/onnx.pb-c.c $(TB)/gen/onnx.pb-c.h: $(ONNX_PROTO)
	@mkdir -p $(TB)/gen
	protoc-c --proto_path=$(dir $(ONNX_PROTO)) --c_out=$(TB)/gen $(notdir $(ONNX_PROTO))

$(TB)/obj/gen/onnx.pb-c.o: $(TB)/gen/onnx.pb-c.c $(TB)/flags
	@mkdir -p $(dir $@)
	$(CC) $(GEN_FLAGS) -I$(TB)/gen $(TEST_FLAGS) -c $< -o $@

# Objects are rebuilt when TEST_FLAGS change (they once lacked -fPIC).
$(TB)/flags: FORCE
	@mkdir -p $(TB)
	@echo '$(TEST_FLAGS)' | cmp -s - $@ || echo '$(TEST_FLAGS)' > $@

$(TB)/obj/%.o: %.c $(TB)/gen/onnx.pb-c.h $(TB)/flags
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEFS) $(INCS) -I$(TB) -I$(TB)/gen $(JSON_CFLAGS) $(TEST_FLAGS) $(DEPFLAGS) -c $< -o $@

$(TB)/libdnnpar.a: $(LIB_SRC:%.c=$(TB)/obj/%.o) $(TB)/obj/gen/onnx.pb-c.o
	rm -f $@ && ar rcs $@ $^

$(TB)/dnnpar: $(CLI_SRC:%.c=$(TB)/obj/%.o) $(TB)/libdnnpar.a
	$(CC) $(TEST_FLAGS) -o $@ $^ $(LIBS)

# The test build's objects are position-independent: its shared library
# needs no second compilation (the install test links against it).
$(TB)/libdnnpar.so.$(VERSION): $(LIB_SRC:%.c=$(TB)/obj/%.o) $(TB)/obj/gen/onnx.pb-c.o Makefile
	$(CC) $(TEST_FLAGS) -shared -Wl,-soname,libdnnpar.so.$(SOMAJOR) -o $@ $(filter-out Makefile,$^) $(LIBS)

# The test registry: every TEST(name) and TEST_SWEEP(name) in tests/unit/*.c, in file order.
$(TB)/test_list.inc: $(TEST_SRC)
	@mkdir -p $(TB)
	@grep -hoE '^TEST(_SWEEP)?\([A-Za-z0-9_]*\)' $(TEST_SRC) | sed -E 's/^TEST(_SWEEP)?\((.*)\)/X(\2)/' > $@.tmp
	@mv $@.tmp $@

$(TB)/obj/tests/unit/main.o: $(TB)/test_list.inc

$(TB)/unit_tests: $(TEST_SRC:%.c=$(TB)/obj/%.o) $(TB)/libdnnpar.a
	$(CC) $(TEST_FLAGS) -o $@ $^ $(LIBS)

# The release twin of the heavy property sweeps (TEST_SWEEP(name) in tests/unit/*.c,
# test.h "Sweeps"): those tests alone, every case, at -O2 without sanitizers,
# linked against the release objects (the internal archive, as bench/ does).
SWEEP_SRC = $(shell grep -l '^TEST_SWEEP.[A-Za-z0-9_]' $(TEST_SRC))

$(B)/sweeps/test_list.inc: $(TEST_SRC)
	@mkdir -p $(B)/sweeps
	@grep -ho '^TEST_SWEEP([A-Za-z0-9_]*)' $(TEST_SRC) | sed 's/^TEST_SWEEP(\(.*\))/X(\1)/' > $@.tmp
	@mv $@.tmp $@

$(B)/sweeps/main.o: tests/unit/main.c tests/unit/test.h $(B)/sweeps/test_list.inc
	$(CC) $(WARN) $(DEFS) $(INCS) -I$(B)/sweeps $(REL_FLAGS) -DTEST_SUITE_NAME='"sweeps"' \
	    -DTEST_SWEEP_FULL=1 -c $< -o $@

$(B)/unit_sweeps: $(B)/sweeps/main.o $(SWEEP_SRC:%.c=$(B)/obj/%.o) $(B)/libdnnpar-internal.a
	$(CC) $(REL_FLAGS) -o $@ $^ $(LIBS)

# Corpus replay drivers: each fuzz target with tests/fuzz/replay.c as main,
# no libFuzzer, under the test build's sanitizers.
$(TB)/fuzz_replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz_common.h $(TB)/libdnnpar.a
	$(CC) $(WARN) $(DEFS) $(INCS) $(TEST_FLAGS) -o $@ tests/fuzz/fuzz_$*.c tests/fuzz/replay.c \
	    $(TB)/libdnnpar.a $(LIBS)

# ---- installation -----------------------------------------------------
# Generated from docs/cli.md (man page) and the command table of the
# binary (completion); see scripts/.
%/dnnpar.1: docs/cli.md scripts/md2man.awk
	@mkdir -p $(dir $@)
	awk -v version=$(VERSION) -f scripts/md2man.awk docs/cli.md > $@.tmp && mv $@.tmp $@

%/completion/dnnpar.bash: %/dnnpar scripts/gen-completion.sh
	@mkdir -p $(dir $@)
	bash scripts/gen-completion.sh bash $< > $@.tmp && mv $@.tmp $@

%/completion/_dnnpar: %/dnnpar scripts/gen-completion.sh
	@mkdir -p $(dir $@)
	bash scripts/gen-completion.sh zsh $< > $@.tmp && mv $@.tmp $@

%/dnnpar.pc: dnnpar.pc.in include/dnnpar/core.h
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCDIR@|$(INCDIR)|g' \
	    -e 's|@VERSION@|$(VERSION)|g' $< > $@.tmp && mv $@.tmp $@

# The torch executor of `dnnpar run-torch` (docs/torch.md): installed to
# DATADIR/dnnpar/python, where the binary looks for it (../share/dnnpar/python).
TORCH_PY := $(sort $(wildcard python/dnnpar_torch/*.py))
# The machine profiler of `dnnpar profile` (docs/device-model.md), beside it.
PROFILE_PY := $(sort $(wildcard python/dnnpar_profile/*.py))

# The public API: include/dnnpar.h, the umbrella, includes these (docs/library.md,
# "Headers"); all are installed, the sub-headers to INCDIR/dnnpar/.
SUB_HEADERS := $(sort $(wildcard include/dnnpar/*.h))

# What one build directory ($(1)) installs.
INSTALL_FILES = $(1)/dnnpar $(1)/libdnnpar.a $(1)/libdnnpar.so.$(VERSION) $(1)/dnnpar.1 \
                $(1)/completion/dnnpar.bash $(1)/completion/_dnnpar

# $(call install_from,BUILD_DIR): copy one build directory's artefacts.
# The .pc file is regenerated every time: PREFIX may differ between runs.
define install_from
	@rm -f $(1)/dnnpar.pc && $(MAKE) --no-print-directory -s $(1)/dnnpar.pc PREFIX=$(PREFIX) \
	    LIBDIR=$(LIBDIR) INCDIR=$(INCDIR)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DATADIR)/bash-completion/completions \
	    $(DESTDIR)$(DATADIR)/zsh/site-functions
	install -m 755 $(1)/dnnpar $(DESTDIR)$(BINDIR)/dnnpar
	install -m 644 $(1)/libdnnpar.a $(DESTDIR)$(LIBDIR)/libdnnpar.a
	install -m 755 $(1)/libdnnpar.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libdnnpar.so.$(VERSION)
	ln -sf libdnnpar.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libdnnpar.so.$(SOMAJOR)
	ln -sf libdnnpar.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libdnnpar.so
	install -m 644 include/dnnpar.h $(DESTDIR)$(INCDIR)/dnnpar.h
	install -d $(DESTDIR)$(INCDIR)/dnnpar
	install -m 644 $(SUB_HEADERS) $(DESTDIR)$(INCDIR)/dnnpar/
	install -m 644 $(1)/dnnpar.pc $(DESTDIR)$(LIBDIR)/pkgconfig/dnnpar.pc
	install -m 644 $(1)/dnnpar.1 $(DESTDIR)$(MANDIR)/man1/dnnpar.1
	install -m 644 $(1)/completion/dnnpar.bash $(DESTDIR)$(DATADIR)/bash-completion/completions/dnnpar
	install -m 644 $(1)/completion/_dnnpar $(DESTDIR)$(DATADIR)/zsh/site-functions/_dnnpar
	install -d $(DESTDIR)$(DATADIR)/dnnpar/python/dnnpar_torch
	install -m 644 $(TORCH_PY) $(DESTDIR)$(DATADIR)/dnnpar/python/dnnpar_torch/
	install -d $(DESTDIR)$(DATADIR)/dnnpar/python/dnnpar_profile
	install -m 644 $(PROFILE_PY) $(DESTDIR)$(DATADIR)/dnnpar/python/dnnpar_profile/
	install -d $(DESTDIR)$(DATADIR)/doc/dnnpar
	install -m 644 LICENSE $(DESTDIR)$(DATADIR)/doc/dnnpar/LICENSE
endef

install: $(call INSTALL_FILES,$(B))
	$(call install_from,$(B))

# Installs the sanitizer build (used by tests/install_test.sh only).
install-test-build: $(call INSTALL_FILES,$(TB))
	$(call install_from,$(TB))

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/dnnpar $(DESTDIR)$(LIBDIR)/libdnnpar.a \
	    $(DESTDIR)$(LIBDIR)/libdnnpar.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libdnnpar.so.$(SOMAJOR) \
	    $(DESTDIR)$(LIBDIR)/libdnnpar.so $(DESTDIR)$(INCDIR)/dnnpar.h \
	    $(SUB_HEADERS:include/%=$(DESTDIR)$(INCDIR)/%) \
	    $(DESTDIR)$(LIBDIR)/pkgconfig/dnnpar.pc $(DESTDIR)$(MANDIR)/man1/dnnpar.1 \
	    $(DESTDIR)$(DATADIR)/bash-completion/completions/dnnpar \
	    $(DESTDIR)$(DATADIR)/zsh/site-functions/_dnnpar
	rm -rf $(DESTDIR)$(DATADIR)/dnnpar/python
	rm -f $(DESTDIR)$(DATADIR)/doc/dnnpar/LICENSE
	-rmdir $(DESTDIR)$(INCDIR)/dnnpar 2>/dev/null
	-rmdir $(DESTDIR)$(DATADIR)/doc/dnnpar 2>/dev/null

# The release build (make run's) is built too: -O2 enables warnings
# (-Wmaybe-uninitialized) the test build's flags do not, and -Werror must
# hold for both.
test: deps all $(B)/libdnnpar-internal.a $(B)/unit_sweeps $(TB)/unit_tests $(TB)/dnnpar $(FUZZ_TARGETS:%=$(TB)/fuzz_replay_%) \
      $(call INSTALL_FILES,$(TB))
	@bash tests/run.sh $(TB) $(B)

# tests/unit/test_alloc_fail.c with every allocation of every run failed
# in turn (make test samples them).
# (no per-test time limit: a full sweep takes minutes)
alloc-check: $(TB)/unit_tests
	DNNPAR_ALLOC_FULL=1 DNNPAR_ALLOC_REPORT=1 DNNPAR_TEST_TIMEOUT=0 ./$(TB)/unit_tests alloc_failure_loaders \
	    alloc_failure_zoo_builds alloc_failure_plans
# ---- libFuzzer build (clang-14, libclang-rt-14-dev) --------------------
fuzz-deps:
	@bash scripts/install-deps.sh fuzz

$(FB)/gen/presets.inc: $(PRESETS_JSON) $(B)/gen/gen_presets
	@mkdir -p $(FB)/gen
	$(B)/gen/gen_presets $(PRESETS_JSON) > $@.tmp && mv $@.tmp $@

$(FB)/obj/src/hw/cluster.o: $(FB)/gen/presets.inc

$(FB)/gen/onnx.pb-c.c $(FB)/gen/onnx.pb-c.h: $(ONNX_PROTO) | fuzz-deps
	@mkdir -p $(FB)/gen
	protoc-c --proto_path=$(dir $(ONNX_PROTO)) --c_out=$(FB)/gen $(notdir $(ONNX_PROTO))

$(FB)/obj/gen/onnx.pb-c.o: $(FB)/gen/onnx.pb-c.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(GEN_FLAGS) -I$(FB)/gen $(FUZZ_LIB_FLAGS) -c $< -o $@

$(FB)/obj/%.o: %.c $(FB)/gen/onnx.pb-c.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_WARN) $(DEFS) $(INCS) -I$(FB)/gen $(JSON_CFLAGS) $(FUZZ_LIB_FLAGS) $(DEPFLAGS) -c $< -o $@

$(FB)/libdnnpar.a: $(LIB_SRC:%.c=$(FB)/obj/%.o) $(FB)/obj/gen/onnx.pb-c.o
	rm -f $@ && ar rcs $@ $^

$(FB)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FB)/libdnnpar.a
	$(FUZZ_CC) $(FUZZ_WARN) $(DEFS) $(INCS) -O1 -g -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=undefined -o $@ $< $(FB)/libdnnpar.a $(LIBS)

# Each target runs SECONDS seconds (every target runs even when one fails;
# the status is 1 if any failed), new inputs going to $(FB)/corpus/NAME
# (the checked-in corpus is only read); crashes are saved as
# $(FB)/crash-NAME-*.  The last line of each run is libFuzzer's
# "Done N runs in S second(s)".
fuzz: fuzz-deps $(FUZZ_TARGETS:%=$(FB)/fuzz_%)
	@failed=; for t in $(FUZZ_TARGETS); do \
	    mkdir -p $(FB)/corpus/$$t; \
	    echo "fuzz $$t: $(SECONDS) s (log $(FB)/fuzz-$$t.log)"; \
	    $(FB)/fuzz_$$t -max_total_time=$(SECONDS) -timeout=$(FUZZ_TIMEOUT) -rss_limit_mb=2048 \
	        -print_final_stats=1 -artifact_prefix=$(FB)/crash-$$t- \
	        $(FB)/corpus/$$t tests/fuzz/corpus/$$t > $(FB)/fuzz-$$t.log 2>&1; rc=$$?; \
	    grep -E '^(Done|SUMMARY|artifact_prefix)' $(FB)/fuzz-$$t.log; \
	    [ $$rc -eq 0 ] || { echo "fuzz $$t: failed (status $$rc)"; failed="$$failed $$t"; }; \
	done; \
	[ -z "$$failed" ] || { echo "fuzz: failed:$$failed"; exit 1; }

run: deps all
	./$(B)/dnnpar reproduce accpar

bench: all $(B)/libdnnpar-internal.a
	@bash bench/run.sh


# The warning flags, for tests/headers.sh (every public header compiled on its own).
print-warn:
	@echo '$(WARN)'

# Slow (minutes): not part of make test.
valgrind: deps all
	@bash tests/valgrind.sh $(B)

clean:
	rm -rf $(B) $(TB) $(FB)

# The header dependencies the compiler recorded (none before the first build).
-include $(shell find $(B) $(TB) $(FB) -name '*.d' 2>/dev/null)
