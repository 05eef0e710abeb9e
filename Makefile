# dnnpar - one hand-written makefile.
#   make          release build: build/dnnpar and build/libdnnpar.a
#   make run      install missing Debian packages, build, run the main job
#   make test     sanitizer build, unit tests and golden CLI tests
#   make bench    benchmarks (bench/)

CC      ?= cc
WARN    := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wformat=2 -Wvla -Werror
DEFS    := -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
INCS    := -Iinclude -Isrc
JSON_CFLAGS := $(shell pkg-config --cflags jansson 2>/dev/null)
JSON_LIBS   := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
LIBS    := $(JSON_LIBS) -lm

LIB_SRC := $(sort $(wildcard src/*/*.c))
CLI_SRC := $(sort $(wildcard tools/dnnpar/*.c))
TEST_SRC := $(sort $(wildcard tests/unit/*.c))
HDRS    := $(wildcard include/*.h src/*/*.h tools/dnnpar/*.h tests/unit/*.h)

REL_FLAGS  := -O2 -g
TEST_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
              -fno-sanitize-recover=all

.PHONY: all run test bench clean deps format

all: build/dnnpar build/libdnnpar.a

deps:
	@bash scripts/install-deps.sh

# ---- release build ---------------------------------------------------
build/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEFS) $(INCS) $(JSON_CFLAGS) $(REL_FLAGS) -c $< -o $@

build/libdnnpar.a: $(LIB_SRC:%.c=build/obj/%.o)
	@mkdir -p build
	rm -f $@ && ar rcs $@ $^

build/dnnpar: $(CLI_SRC:%.c=build/obj/%.o) build/libdnnpar.a
	$(CC) $(REL_FLAGS) -o $@ $^ $(LIBS)

# ---- sanitizer build for tests ---------------------------------------
build-test/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEFS) $(INCS) -Ibuild-test $(JSON_CFLAGS) $(TEST_FLAGS) -c $< -o $@

build-test/libdnnpar.a: $(LIB_SRC:%.c=build-test/obj/%.o)
	rm -f $@ && ar rcs $@ $^

build-test/dnnpar: $(CLI_SRC:%.c=build-test/obj/%.o) build-test/libdnnpar.a
	$(CC) $(TEST_FLAGS) -o $@ $^ $(LIBS)

# The test registry: every TEST(name) in tests/unit/*.c, in file order.
build-test/test_list.inc: $(TEST_SRC)
	@mkdir -p build-test
	@grep -ho '^TEST([A-Za-z0-9_]*)' $(TEST_SRC) | sed 's/^TEST(\(.*\))/X(\1)/' > $@.tmp
	@mv $@.tmp $@

build-test/obj/tests/unit/main.o: build-test/test_list.inc

build-test/unit_tests: $(TEST_SRC:%.c=build-test/obj/%.o) build-test/libdnnpar.a
	$(CC) $(TEST_FLAGS) -o $@ $^ $(LIBS)

test: deps build-test/unit_tests build-test/dnnpar
	@bash tests/run.sh build-test

run: deps all
	./build/dnnpar reproduce accpar

bench: all
	@bash bench/run.sh

clean:
	rm -rf build build-test
