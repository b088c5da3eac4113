# test/unit.mk: C unit tests for the core (src/core.c, src/codec.c), without
# a server.  Included by the top Makefile; ROOT is the source root, and the
# binaries go in the current (build) directory.
#
#   make unitcheck            -O2 -Wall -Wextra
#   make unitcheck-sanitize   AddressSanitizer + UBSan, stopping at the first report

UNIT_SOURCES = $(ROOT)/test/unit.c $(ROOT)/src/core.c $(ROOT)/src/codec.c
UNIT_DEPENDS = $(UNIT_SOURCES) $(ROOT)/src/core.h $(ROOT)/src/bloom.h
UNIT_CC ?= $(firstword $(shell command -v clang gcc cc 2>/dev/null))
UNIT_CFLAGS = -O2 -Wall -Wextra -I$(ROOT)/src
UNIT_SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g

.PHONY: unitcheck unitcheck-sanitize

test/unit: $(UNIT_DEPENDS)
	@mkdir -p test
	$(CC) $(UNIT_CFLAGS) -o $@ $(UNIT_SOURCES) -lm

test/unit-sanitize: $(UNIT_DEPENDS)
	@mkdir -p test
	$(UNIT_CC) $(UNIT_CFLAGS) $(UNIT_SANITIZE) -o $@ $(UNIT_SOURCES) -lm

unitcheck: test/unit
	./test/unit

unitcheck-sanitize: test/unit-sanitize
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 ./test/unit-sanitize
