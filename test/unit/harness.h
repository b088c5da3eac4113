/*
 * harness.h: what the unit tests of the core (test/unit/test_*.c) share.
 *
 * A test is a function registered with UNIT_TEST; harness.c's main runs
 * every registered test (or those named on the command line), each from the
 * same pseudo-random state, in the order of their files' names and then of
 * their lines.  Each CHECK is one case; the last line printed is "N passed,
 * M failed" and the exit status is non-zero on any failure.  Build and run
 * with `make unitcheck` (test/unit.mk), or under AddressSanitizer and UBSan
 * with `make unitcheck-sanitize`.
 *
 * To add a test, in the file of the core module it exercises:
 *
 *     UNIT_TEST(fold_empty)
 *     {
 *         CHECK(...);
 *     }
 */
#ifndef BLOOM_UNIT_HARNESS_H
#define BLOOM_UNIT_HARNESS_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

/* ---- registration ---- */

typedef struct unit_test
{
	const char *name;
	const char *file;
	int			line;
	void		(*run) (void);
	struct unit_test *next;
} unit_test;

extern void unit_register(unit_test *test);

/*
 * UNIT_TEST(name) { ... } defines test_name and registers it before main
 * runs, from a constructor (gcc and clang, every target): adding a test
 * touches only its own file.
 */
#define UNIT_TEST(name) \
	static void test_##name(void); \
	static unit_test unit_test_##name = {#name, __FILE__, __LINE__, test_##name, NULL}; \
	__attribute__((constructor)) static void \
	unit_register_##name(void) \
	{ \
		unit_register(&unit_test_##name); \
	} \
	static void \
	test_##name(void)

/* ---- checks ---- */

extern bool check(bool ok, const char *what, const char *file, int line);

#define CHECK(cond) check((cond), #cond, __FILE__, __LINE__)

#define CHECK_U64(actual, expected) \
	do { \
		uint64_t	a_ = (actual), e_ = (expected); \
		if (!check(a_ == e_, #actual " == " #expected, __FILE__, __LINE__)) \
			fprintf(stderr, "    got %" PRIu64 ", expected %" PRIu64 "\n", a_, e_); \
	} while (0)

extern const char *status_name(bf_status status);

#define CHECK_STATUS(actual, expected) \
	check_status((actual), (expected), #actual, __FILE__, __LINE__)

extern void check_status(bf_status actual, bf_status expected, const char *what,
						 const char *file, int line);

/* ---- test data ---- */

/* splitmix64: a fixed, portable sequence, restarted before each test */
#define UNIT_RNG_SEED UINT64_C(0x9e3779b97f4a7c15)
extern uint64_t rng_state;
extern uint64_t rng_next(void);
extern void rng_fill(uint8_t *buf, size_t n);

extern void *xmalloc(size_t n);
extern void *exact_copy(const void *data, size_t len);

/* the hash of an int8 value, from its canonical (little-endian) bytes */
extern bf_hash hash_int64(int64_t value);

extern void naive_set_bit(uint8_t *bits, uint64_t i);

/* bf_interrupt_hook = count_interrupt counts its calls in interrupt_calls */
extern int	interrupt_calls;
extern void count_interrupt(void);

/* XXH3-64 of a filter's bit array */
extern uint64_t bits_digest(const uint8_t *bits, uint64_t m);

/* a filter of the int8 values first .. first + n - 1, through bf_add or a pipelined bf_adder */
extern uint8_t *build_filter(uint64_t m, uint32_t k, uint8_t scheme, int64_t first,
							 int64_t n, bool pipelined);

/* m = 18, k = 3, scheme 1: the example of core/core.h */
extern const BloomHeader valid_header;

/* The golden hash vectors (harness.c says how they were computed). */
typedef struct golden_hash
{
	const char *label;
	const uint8_t *bytes;
	size_t		len;
	uint64_t	h1;
	uint64_t	h2;
	uint64_t	positions_958506[7];
	uint64_t	positions_2_40_plus_3[7];
} golden_hash;

#define NGOLDEN 4
extern const golden_hash golden[NGOLDEN];

#endif							/* BLOOM_UNIT_HARNESS_H */
