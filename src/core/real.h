/*
 * core/real.h: real arithmetic that gives the same bits on every machine.
 *
 * A bf_real is a binary floating-point number with a 64-bit mantissa,
 * computed with integer operations only, so that x86-64, arm64, s390x and
 * i386 (whose x87 unit keeps 80-bit intermediates) all get the same result,
 * whatever the compiler does with double arithmetic (fused multiply-add,
 * excess precision) and whatever the C library's log and exp return in
 * their last bit.  The core makes every sizing decision (m, k, scheme,
 * self-sizing) with it; see core/shape.c, "the same shape on every machine".
 *
 * Every operation rounds its exact result to 64 bits (to nearest, ties away
 * from zero), so it is accurate to 2^-64 relative; log, log1p, exp, expm1
 * and sqrt to a few units of 2^-64.  Only finite values: the callers keep to
 * the domains below.  Zero is never negative.
 */
#ifndef BLOOM_CORE_REAL_H
#define BLOOM_CORE_REAL_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The 128-bit product of a and b.  Where the compiler has a 128-bit type
 * (64-bit targets) it is used, for speed only: the result is the same
 * integer either way.  Shared by the sizing arithmetic here and by the
 * core's multiply-shift reduction (bf_reduce).
 */
static inline void
bf_multiply_128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
#ifdef __SIZEOF_INT128__
	unsigned __int128 product = (unsigned __int128) a * b;

	*hi = (uint64_t) (product >> 64);
	*lo = (uint64_t) product;
#else
	uint64_t	a_lo = (uint32_t) a,
				a_hi = a >> 32,
				b_lo = (uint32_t) b,
				b_hi = b >> 32;
	uint64_t	lo_lo = a_lo * b_lo,
				hi_lo = a_hi * b_lo,
				lo_hi = a_lo * b_hi,
				hi_hi = a_hi * b_hi;
	uint64_t	middle = (lo_lo >> 32) + (uint32_t) hi_lo + (uint32_t) lo_hi;

	*lo = middle << 32 | (uint32_t) lo_lo;
	*hi = hi_hi + (hi_lo >> 32) + (lo_hi >> 32) + (middle >> 32);
#endif
}

typedef struct bf_real
{
	uint64_t	mantissa;		/* 0 for the value 0, else bit 63 is set */
	int32_t		exponent;		/* the value is mantissa * 2^exponent */
	bool		negative;
} bf_real;

/* ln 2, rounded to 64 bits */
extern const bf_real bf_real_ln2;

/* Exact conversions. */
extern bf_real bf_real_from_u64(uint64_t value);
extern bf_real bf_real_from_double(double value);	/* finite values */

/* The nearest double (for reporting; decisions stay in bf_real). */
extern double bf_real_to_double(bf_real value);

extern bf_real bf_real_add(bf_real a, bf_real b);
extern bf_real bf_real_sub(bf_real a, bf_real b);
extern bf_real bf_real_mul(bf_real a, bf_real b);
extern bf_real bf_real_div(bf_real a, bf_real b);	/* b != 0 */
/* -1, 0 or 1 as a <, = or > b */
extern int	bf_real_cmp(bf_real a, bf_real b);
/* a^e, by repeated squaring */
extern bf_real bf_real_pow_u32(bf_real a, uint32_t e);

extern bf_real bf_real_log(bf_real x);	/* x > 0 */
extern bf_real bf_real_log1p(bf_real x);	/* x > -1 */
extern bf_real bf_real_exp(bf_real x);
extern bf_real bf_real_expm1(bf_real x);
extern bf_real bf_real_sqrt(bf_real x);	/* x >= 0 */

/* Rounding to an integer value (exact); round is half away from zero. */
extern bf_real bf_real_floor(bf_real x);
extern bf_real bf_real_ceil(bf_real x);
extern bf_real bf_real_round(bf_real x);
/* An integral x >= 0 as uint64_t, UINT64_MAX if it is 2^64 or more. */
extern uint64_t bf_real_to_u64(bf_real x);

/* Shorthands for the core's formulas. */
static inline bool
bf_real_lt(bf_real a, bf_real b)
{
	return bf_real_cmp(a, b) < 0;
}

static inline bool
bf_real_le(bf_real a, bf_real b)
{
	return bf_real_cmp(a, b) <= 0;
}

static inline bf_real
bf_real_neg(bf_real a)
{
	a.negative = a.mantissa != 0 && !a.negative;
	return a;
}

#endif							/* BLOOM_CORE_REAL_H */
