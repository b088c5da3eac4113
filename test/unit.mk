# test/unit.mk: C unit tests for the core, without a server.  Included by
# the top Makefile; ROOT is the source root, and the binaries go in the
# current (build) directory.
#
#   make unitcheck            -O2 -Wall -Wextra
#   make unitcheck-sanitize   AddressSanitizer + UBSan, stopping at the first report
#
# The tests are test/unit/test_*.c, one file per core module, with their
# harness (test/unit/harness.c, which has main); the binary is
# test/unit-tests in the build directory, and test/unit-tests NAME... runs
# only the tests or files named (test/unit/harness.h).

# The core's sources: every src/core/*.c (pure C, no postgres.h) and its
# headers.  The unit tests, the fuzzers and the corpus generator build
# against these, and nothing else of src/.
CORE_SOURCES = $(sort $(wildcard $(ROOT)/src/core/*.c))
CORE_HEADERS = $(sort $(wildcard $(ROOT)/src/core/*.h))

UNIT_SOURCES = $(ROOT)/test/unit/harness.c $(sort $(wildcard $(ROOT)/test/unit/test_*.c)) $(CORE_SOURCES)
UNIT_DEPENDS = $(UNIT_SOURCES) $(ROOT)/test/unit/harness.h $(CORE_HEADERS)
UNIT_CC ?= $(firstword $(shell command -v clang gcc cc 2>/dev/null))
UNIT_CFLAGS = -O2 -Wall -Wextra -I$(ROOT)/src
UNIT_SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g

.PHONY: unitcheck unitcheck-sanitize

test/unit-tests: $(UNIT_DEPENDS)
	@mkdir -p test
	$(CC) $(UNIT_CFLAGS) -o $@ $(UNIT_SOURCES) -lm

test/unit-tests-sanitize: $(UNIT_DEPENDS)
	@mkdir -p test
	$(UNIT_CC) $(UNIT_CFLAGS) $(UNIT_SANITIZE) -o $@ $(UNIT_SOURCES) -lm

# The corpus generator is built too, so that it keeps compiling (it runs
# only for make fuzz-corpus).
unitcheck: test/unit-tests test/fuzz-corpus-gen
	./test/unit-tests

unitcheck-sanitize: test/unit-tests-sanitize
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 ./test/unit-tests-sanitize

# ---- fuzzing: libFuzzer harnesses for the codecs and the set operations ----
#
#   make fuzzcheck [FUZZ_SECONDS=60]   build the fuzzers (clang only) and run
#                                      each for FUZZ_SECONDS on a scratch copy
#                                      of test/fuzz/corpus/; reproducers go to
#                                      test/fuzz-artifacts/ in the build dir
#   make fuzz-corpus                   regenerate test/fuzz/corpus/ (in the
#                                      source tree) with test/fuzz/gen_corpus.c

FUZZERS = fuzz_text fuzz_binary fuzz_setops fuzz_scalable fuzz_counting
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_MAX_LEN ?= 4096
FUZZ_SANITIZE = -O1 -g -Wall -Wextra -I$(ROOT)/src -fsanitize=address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = $(FUZZ_SANITIZE) -fsanitize=fuzzer
FUZZ_DEPENDS = $(CORE_SOURCES) $(CORE_HEADERS) $(ROOT)/test/fuzz/fuzz.h
FUZZ_BINARIES = $(patsubst fuzz_%,test/fuzz-%,$(FUZZERS))

.PHONY: fuzzcheck fuzz-corpus

# src/core/real.c is arithmetic, like the C library's log and exp: it is
# built without the fuzzer's coverage instrumentation, which would trace
# every comparison of its inner loops and slow sizing down, but still under
# ASan and UBSan.
test/fuzz-real.o: $(ROOT)/src/core/real.c $(ROOT)/src/core/real.h
	@mkdir -p test
	$(FUZZ_CC) $(FUZZ_SANITIZE) -c -o $@ $<

test/fuzz-%: $(ROOT)/test/fuzz/fuzz_%.c $(FUZZ_DEPENDS) test/fuzz-real.o
	@mkdir -p test
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(filter-out %/core/real.c,$(CORE_SOURCES)) test/fuzz-real.o -lm

fuzzcheck: $(FUZZ_BINARIES)
	$(ROOT)/test/fuzz/fuzzcheck.sh $(FUZZ_SECONDS) $(FUZZ_MAX_LEN) test $(FUZZERS)

test/fuzz-corpus-gen: $(ROOT)/test/fuzz/gen_corpus.c $(CORE_SOURCES) $(CORE_HEADERS)
	@mkdir -p test
	$(CC) $(UNIT_CFLAGS) -o $@ $< $(CORE_SOURCES) -lm

fuzz-corpus: test/fuzz-corpus-gen
	rm -rf $(addprefix $(ROOT)/test/fuzz/corpus/,$(FUZZERS))
	./test/fuzz-corpus-gen $(ROOT)/test/fuzz/corpus
