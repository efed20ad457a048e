# numa-extender — the only build file.
# Targets: all (default), test (test-unit, test-integration), asan, tsan, valgrind, bench, run, fuzz, clean, deps.
# Variables: CC, WERROR=1 (warnings are errors; CI sets it), SAN=address,undefined,
# BUILD (output folder), O (optimisation level).

CC      ?= cc
BUILD   ?= build
O       ?= -O2
SAN     ?=
WERROR  ?=

PKGS    := json-c yaml-0.1 libmicrohttpd libcurl gnutls libxxhash
TESTPKG := cmocka zlib

WARN := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wold-style-definition -Wformat=2 -Wundef -Wvla -Wwrite-strings -Wcast-qual \
        -Wnull-dereference -Wimplicit-fallthrough -Wdouble-promotion
# topology/ is pure arithmetic over quantities, base/ the utilities under it:
# silent truncation bites there.
TOPO_WARN := -Wconversion -Wsign-conversion
ifeq ($(WERROR),1)
WARN += -Werror
endif

CFLAGS_BASE := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(O) -g \
               -fno-omit-frame-pointer -MMD -MP -I. $(WARN)
ifneq ($(SAN),)
CFLAGS_BASE += -fsanitize=$(SAN) -fno-sanitize-recover=all
LDFLAGS_SAN := -fsanitize=$(SAN)
else
CFLAGS_BASE += -D_FORTIFY_SOURCE=2 -fstack-protector-strong
endif

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
TEST_LIBS  = $(shell pkg-config --libs $(TESTPKG) 2>/dev/null)

BASE_SRC := $(sort $(wildcard base/*.c))
TOPO_SRC := $(sort $(wildcard topology/*.c))
SCHED_SRC:= $(sort $(wildcard scheduler/*.c))
DRA_SRC  := $(sort $(wildcard dra/*.c))
EXT_SRC  := $(filter-out extender/cmd/main.c,$(sort $(wildcard extender/*.c extender/*/*.c)))
# tests/unit: modules called in process; tests/integration: serve and the
# other commands run as processes, real sockets, the fake API server.
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
INTEG_SRC:= $(sort $(wildcard tests/integration/test_*.c))
HELP_SRC := $(sort $(wildcard tests/support/*.c))
BENCH_SRC:= $(sort $(wildcard tests/bench/bench_*.c))

BASE_OBJ := $(BASE_SRC:%.c=$(BUILD)/%.o)
TOPO_OBJ := $(TOPO_SRC:%.c=$(BUILD)/%.o)
SCHED_OBJ:= $(SCHED_SRC:%.c=$(BUILD)/%.o)
DRA_OBJ  := $(DRA_SRC:%.c=$(BUILD)/%.o)
EXT_OBJ  := $(EXT_SRC:%.c=$(BUILD)/%.o)
HELP_OBJ := $(HELP_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
INTEG_BIN:= $(INTEG_SRC:tests/integration/%.c=$(BUILD)/tests/%)
TEST_BIN := $(UNIT_BIN) $(INTEG_BIN)
BENCH_BIN:= $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)

LIBBASE := $(BUILD)/libbase.a
LIBTOPO := $(BUILD)/libtopology.a
LIBSCHED:= $(BUILD)/libscheduler.a
LIBDRA  := $(BUILD)/libdra.a
LIBEXT  := $(BUILD)/libextender.a
BIN     := bin/numa-extender
ifneq ($(BUILD),build)
BIN     := $(BUILD)/bin/numa-extender
endif

.PHONY: all test test-unit test-integration asan tsan valgrind bench run fuzz clean deps check
all: $(BIN)

deps:
	@sh scripts/install-deps.sh

# A stamp of the flags, so that changing them rebuilds everything.
$(BUILD)/.flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CC) $(CFLAGS_BASE) $(SAN)' | cmp -s - $@ || echo '$(CC) $(CFLAGS_BASE) $(SAN)' > $@
FORCE:

$(BUILD)/topology/%.o: topology/%.c $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(TOPO_WARN) -c $< -o $@

# scheduler/ is pure like topology/. balanced.c redoes Go's float64
# arithmetic step by step: no fused multiply-add.
SCHED_FLAGS_balanced := -ffp-contract=off
$(BUILD)/scheduler/%.o: scheduler/%.c $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(TOPO_WARN) $(SCHED_FLAGS_$*) -c $< -o $@

# dra/ (Dynamic Resource Allocation: the objects, CEL selectors, the
# allocator's prediction) is pure too.
$(BUILD)/dra/%.o: dra/%.c $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(TOPO_WARN) -c $< -o $@

$(BUILD)/base/%.o: base/%.c $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(TOPO_WARN) -c $< -o $@

$(BUILD)/extender/%.o: extender/%.c $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(PKG_CFLAGS) -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(PKG_CFLAGS) -c $< -o $@

$(LIBBASE): $(BASE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIBTOPO): $(TOPO_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIBSCHED): $(SCHED_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIBDRA): $(DRA_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIBEXT): $(EXT_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(BUILD)/extender/cmd/main.o $(LIBEXT) $(LIBDRA) $(LIBSCHED) $(LIBTOPO) $(LIBBASE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(PKG_LIBS) -lpthread -lm

$(UNIT_BIN): $(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(HELP_OBJ) $(LIBEXT) $(LIBDRA) $(LIBSCHED) $(LIBTOPO) $(LIBBASE)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LIBS) $(PKG_LIBS) -lpthread -lm

$(INTEG_BIN): $(BUILD)/tests/%: $(BUILD)/tests/integration/%.o $(HELP_OBJ) $(LIBEXT) $(LIBDRA) $(LIBSCHED) $(LIBTOPO) $(LIBBASE)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LIBS) $(PKG_LIBS) -lpthread -lm

$(BUILD)/bench/%: tests/bench/%.c $(HELP_OBJ) $(LIBEXT) $(LIBDRA) $(LIBSCHED) $(LIBTOPO) $(LIBBASE) $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(PKG_CFLAGS) -o $@ $< $(HELP_OBJ) $(LIBEXT) $(LIBDRA) $(LIBSCHED) $(LIBTOPO) $(LIBBASE) $(PKG_LIBS) -lpthread -lm

# The suite: every unit binary, then every integration binary; one closing
# line "N passed, N failed". test-unit and test-integration run one half.
test: deps
	@# The benchmarks are built too (not run), so that none rots unseen.
	@$(MAKE) --no-print-directory $(BIN) $(TEST_BIN) $(BENCH_BIN)
	@BUILD=$(BUILD) BIN=$(BIN) sh tests/run-tests.sh $(TEST_BIN)

test-unit: deps
	@$(MAKE) --no-print-directory $(BIN) $(UNIT_BIN)
	@BUILD=$(BUILD) BIN=$(BIN) sh tests/run-tests.sh $(UNIT_BIN)

test-integration: deps
	@$(MAKE) --no-print-directory $(BIN) $(INTEG_BIN)
	@BUILD=$(BUILD) BIN=$(BIN) sh tests/run-tests.sh $(INTEG_BIN)

check: test

asan:
	@$(MAKE) --no-print-directory BUILD=build-asan SAN=address,undefined O=-O1 test

# The tests of what threads share (the request pool, the verdict cache, the
# store, decide_many) under ThreadSanitizer, each with a time limit: a data
# race or a hang fails. Builds -O1 in build-tsan/.
TSAN_TESTS := test_pool test_decide test_verdict_cache test_store
tsan: deps
	@$(MAKE) --no-print-directory BUILD=build-tsan SAN=thread O=-O1 \
		$(TSAN_TESTS:%=build-tsan/tests/%)
	@for t in $(TSAN_TESTS); do \
		echo "== $$t (ThreadSanitizer)"; \
		TSAN_OPTIONS=halt_on_error=1 timeout 600 ./build-tsan/tests/$$t >build-tsan/$$t.log 2>&1 \
			|| { tail -60 build-tsan/$$t.log; echo "$$t failed under ThreadSanitizer"; exit 1; }; \
		grep -E '^\[  PASSED  \]' build-tsan/$$t.log; \
	done

# serve under valgrind through a scripted session of every verb (not part of
# `make test`): builds -O1 -g without sanitizers in build-valgrind/.
valgrind: deps
	@sh scripts/valgrind-serve.sh

bench: deps
	@$(MAKE) --no-print-directory O=-O2 $(BENCH_BIN)
	@for b in $(BENCH_BIN); do echo "== $$b"; ./$$b || exit 1; done

run: deps
	@$(MAKE) --no-print-directory $(BIN)
	./$(BIN) serve --config config/example.yaml

# libFuzzer targets (clang): each runs for FUZZ_SECONDS on a scratch copy of
# its generated corpus (tests/fuzz/corpus/<name>/) and hand-written seeds
# (tests/fuzz/seeds/<name>/) with the dictionaries of what it reads
# (scripts/fuzz-prepare.sh); any crash, leak or timeout fails.
# tests/fuzz/README.md says how to run one, reproduce and minimise.
FUZZ_SECONDS ?= 30
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build-fuzz/%)
FUZZ_LIB_SRC := $(BASE_SRC) $(TOPO_SRC) $(SCHED_SRC) $(DRA_SRC) $(EXT_SRC) $(HELP_SRC)
FUZZ_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O1 -g -I. \
               -fno-sanitize-recover=all
FUZZ_LIB := build-fuzz/libfuzzlib.a

# The project (and the test support, for the fake API server) is compiled
# once with coverage; each target links against it.
build-fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP $(PKG_CFLAGS) -c $< -o $@

build-fuzz/obj/scheduler/balanced.o: FUZZ_CFLAGS += -ffp-contract=off

$(FUZZ_LIB): $(FUZZ_LIB_SRC:%.c=build-fuzz/obj/%.o)
	@rm -f $@
	ar rcs $@ $^

build-fuzz/%: tests/fuzz/%.c $(FUZZ_LIB)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined $(PKG_CFLAGS) -o $@ $< $(FUZZ_LIB) \
		$(PKG_LIBS) -lpthread -lm

fuzz: deps $(FUZZ_BIN)
	@for b in $(FUZZ_BIN); do \
		name=$$(basename $$b | sed 's/^fuzz_//'); \
		work=$$(mktemp -d); dict=$$work.dict; \
		sh scripts/fuzz-prepare.sh $$name $$work $$dict || { rm -rf $$work $$dict; exit 1; }; \
		echo "== $$b ($(FUZZ_SECONDS) s)"; \
		ASAN_OPTIONS=quarantine_size_mb=16 ./$$b -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
			-rss_limit_mb=2048 -close_fd_mask=2 -dict=$$dict \
			-artifact_prefix=build-fuzz/$$name- $$work >build-fuzz/$$name.log 2>&1 \
			|| { tail -40 build-fuzz/$$name.log; rm -rf $$work $$dict; exit 1; }; \
		tail -1 build-fuzz/$$name.log; rm -rf $$work $$dict; \
	done

clean:
	rm -rf build build-asan build-tsan build-fuzz build-valgrind bin

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
-include $(shell find build-fuzz/obj -name '*.d' 2>/dev/null)
