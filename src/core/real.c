/*
 * core/real.c: real arithmetic that gives the same bits on every machine
 * (core/real.h).
 *
 * Values are mantissa * 2^exponent with a 64-bit mantissa.  The basic
 * operations form the exact result in 128 bits (two uint64_t where there is
 * no 128-bit integer type, as on i386) and round it to 64.  The functions
 * reduce their argument and sum a series, with constants written out in
 * hexadecimal:
 *
 *     log x = E ln 2 + log1p(t),  x = 2^E (1 + t),  -0.293 <= t < 0.415
 *     log1p t = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...),  s = t / (2 + t)
 *     exp x = 2^N exp(r),  N = round(x / ln 2),  |r| <= 0.35 (Taylor)
 *     expm1 x: the Taylor series without its 1 for |x| < 1/4
 *     sqrt x = exp(log(x) / 2), then a Newton step
 *
 * A series stops at the first term below 2^-68 of the sum; that depends on
 * the values only, so it stops at the same term everywhere.
 */
#include "core/real.h"

#include <math.h>
#include <string.h>

/* Exponents stay far inside int32_t: beyond this, 0 or the largest value. */
#define REAL_EXPONENT_LIMIT (INT32_C(1) << 30)

static const bf_real real_zero = {0, 0, false};
static const bf_real real_one = {UINT64_C(1) << 63, -63, false};

const bf_real bf_real_ln2 = {UINT64_C(0xb17217f7d1cf79ac), -64, false};

/* ln 2 split for exp's reduction: a 40-bit high part (so that N * high is
 * exact for |N| < 2^24) and the rest */
static const bf_real real_ln2_high = {UINT64_C(0xb17217f7d1) << 24, -64, false};
static const bf_real real_ln2_low = {UINT64_C(0xcf79abc9e3b39804), -104, false};
static const bf_real real_inverse_ln2 = {UINT64_C(0xb8aa3b295c17f0bc), -63, false};
/* sqrt(2) * 2^63, the mantissa above which log halves its argument */
#define REAL_SQRT2_MANTISSA UINT64_C(0xb504f333f9de6484)

/* (hi * 2^64 + lo) * 2^exponent, rounded to 64 bits. */
static bf_real
real_normalize(uint64_t hi, uint64_t lo, int64_t exponent, bool negative)
{
	bf_real		result;
	int			shift;

	if (hi == 0)
	{
		if (lo == 0)
			return real_zero;
		hi = lo;
		lo = 0;
		exponent -= 64;
	}
	shift = __builtin_clzll(hi);
	if (shift > 0)
	{
		hi = hi << shift | lo >> (64 - shift);
		lo <<= shift;
		exponent -= shift;
	}
	exponent += 64;
	if (lo >> 63)
	{
		hi++;
		if (hi == 0)
		{
			hi = UINT64_C(1) << 63;
			exponent++;
		}
	}
	if (exponent < -REAL_EXPONENT_LIMIT)
		return real_zero;
	if (exponent > REAL_EXPONENT_LIMIT)
	{
		hi = UINT64_MAX;
		exponent = REAL_EXPONENT_LIMIT;
	}
	result.mantissa = hi;
	result.exponent = (int32_t) exponent;
	result.negative = negative;
	return result;
}

bf_real
bf_real_from_u64(uint64_t value)
{
	return real_normalize(0, value, 0, false);
}

/* IEEE 754 binary64, which every PostgreSQL platform has. */
bf_real
bf_real_from_double(double value)
{
	uint64_t	bits;
	uint64_t	fraction;
	int			biased;

	memcpy(&bits, &value, sizeof(bits));
	fraction = bits & ((UINT64_C(1) << 52) - 1);
	biased = (int) ((bits >> 52) & 0x7ff);
	if (biased == 0)			/* zero or subnormal */
		return real_normalize(0, fraction, -1074, (bits >> 63) != 0);
	return real_normalize(0, fraction | UINT64_C(1) << 52, biased - 1075, (bits >> 63) != 0);
}

double
bf_real_to_double(bf_real value)
{
	uint64_t	top = value.mantissa >> 11;
	uint64_t	rest = value.mantissa & 0x7ff;
	double		result;

	/* to nearest, ties to even, as a double operation would */
	if (rest > 0x400 || (rest == 0x400 && (top & 1)))
		top++;
	result = ldexp((double) top, value.exponent + 11);
	return value.negative ? -result : result;
}

/* |a| < |b| */
static bool
real_smaller(bf_real a, bf_real b)
{
	if (a.mantissa == 0 || b.mantissa == 0)
		return a.mantissa == 0 && b.mantissa != 0;
	return a.exponent < b.exponent ||
		(a.exponent == b.exponent && a.mantissa < b.mantissa);
}

bf_real
bf_real_add(bf_real a, bf_real b)
{
	int64_t		shift;
	uint64_t	b_hi,
				b_lo;

	if (real_smaller(a, b))
	{
		bf_real		swap = a;

		a = b;
		b = swap;
	}
	if (b.mantissa == 0)
		return a;
	/* a is (a.mantissa, 0) * 2^(a.exponent - 64); b the same, shifted */
	shift = (int64_t) a.exponent - b.exponent;
	if (shift >= 128)
		return a;
	if (shift == 0)
	{
		b_hi = b.mantissa;
		b_lo = 0;
	}
	else if (shift < 64)
	{
		b_hi = b.mantissa >> shift;
		b_lo = b.mantissa << (64 - shift);
	}
	else
	{
		b_hi = 0;
		b_lo = shift == 64 ? b.mantissa : b.mantissa >> (shift - 64);
	}
	if (a.negative == b.negative)
	{
		uint64_t	hi = a.mantissa + b_hi;
		uint64_t	lo = b_lo;

		if (hi < a.mantissa)	/* carry out of 128 bits: keep the top 128 */
			return real_normalize(UINT64_C(1) << 63 | hi >> 1, hi << 63 | lo >> 1,
								  (int64_t) a.exponent - 63, a.negative);
		return real_normalize(hi, lo, (int64_t) a.exponent - 64, a.negative);
	}
	return real_normalize(a.mantissa - b_hi - (b_lo != 0), 0 - b_lo,
						  (int64_t) a.exponent - 64, a.negative);
}

bf_real
bf_real_sub(bf_real a, bf_real b)
{
	return bf_real_add(a, bf_real_neg(b));
}

bf_real
bf_real_mul(bf_real a, bf_real b)
{
	uint64_t	hi,
				lo;

	if (a.mantissa == 0 || b.mantissa == 0)
		return real_zero;
	bf_multiply_128(a.mantissa, b.mantissa, &hi, &lo);
	return real_normalize(hi, lo, (int64_t) a.exponent + b.exponent,
						  a.negative != b.negative);
}

/*
 * (hi * 2^64 + lo) / divisor for hi < divisor, one quotient bit at a time,
 * with the remainder in *remainder.
 */
static uint64_t
real_divide(uint64_t hi, uint64_t lo, uint64_t divisor, uint64_t *remainder)
{
#ifdef __SIZEOF_INT128__
	unsigned __int128 dividend = (unsigned __int128) hi << 64 | lo;

	*remainder = (uint64_t) (dividend % divisor);
	return (uint64_t) (dividend / divisor);
#else
	uint64_t	quotient = 0;

	for (int i = 0; i < 64; i++)
	{
		bool		carry = (hi >> 63) != 0;

		hi = hi << 1 | lo >> 63;
		lo <<= 1;
		quotient <<= 1;
		if (carry || hi >= divisor)
		{
			hi -= divisor;
			quotient |= 1;
		}
	}
	*remainder = hi;
	return quotient;
#endif
}

bf_real
bf_real_div(bf_real a, bf_real b)
{
	uint64_t	quotient,
				remainder;
	int64_t		exponent = (int64_t) a.exponent - b.exponent;
	bf_real		result;

	if (a.mantissa == 0 || b.mantissa == 0)
		return real_zero;
	/* a quotient in [2^63, 2^64): a * 2^63 or a * 2^64 over b */
	if (a.mantissa >= b.mantissa)
	{
		quotient = real_divide(a.mantissa >> 1, a.mantissa << 63, b.mantissa, &remainder);
		exponent -= 63;
	}
	else
	{
		quotient = real_divide(a.mantissa, 0, b.mantissa, &remainder);
		exponent -= 64;
	}
	if (remainder >= b.mantissa - remainder)
	{
		quotient++;
		if (quotient == 0)
		{
			quotient = UINT64_C(1) << 63;
			exponent++;
		}
	}
	result = real_normalize(0, quotient, exponent, a.negative != b.negative);
	return result;
}

int
bf_real_cmp(bf_real a, bf_real b)
{
	int			sign_a = a.mantissa == 0 ? 0 : a.negative ? -1 : 1;
	int			sign_b = b.mantissa == 0 ? 0 : b.negative ? -1 : 1;

	if (sign_a != sign_b)
		return sign_a < sign_b ? -1 : 1;
	if (sign_a == 0)
		return 0;
	if (real_smaller(a, b))
		return -sign_a;
	if (real_smaller(b, a))
		return sign_a;
	return 0;
}

bf_real
bf_real_pow_u32(bf_real a, uint32_t e)
{
	bf_real		result = a;

	if (e == 0)
		return real_one;
	for (int bit = 30 - __builtin_clz(e); bit >= 0; bit--)
	{
		result = bf_real_mul(result, result);
		if ((e >> bit) & 1)
			result = bf_real_mul(result, a);
	}
	return result;
}

/* Whether term is below 2^-68 of sum (a series may stop). */
static bool
real_negligible(bf_real term, bf_real sum)
{
	return term.mantissa == 0 ||
		(sum.mantissa != 0 && (int64_t) term.exponent < (int64_t) sum.exponent - 68);
}

/* 2^e times a */
static bf_real
real_scale(bf_real a, int64_t e)
{
	if (a.mantissa == 0)
		return a;
	return real_normalize(0, a.mantissa, a.exponent + e, a.negative);
}

/* log1p(t) for |t| < 0.42: 2 atanh(t / (2 + t)). */
static bf_real
real_log1p_series(bf_real t)
{
	bf_real		s = bf_real_div(t, bf_real_add(bf_real_from_u64(2), t));
	bf_real		s2 = bf_real_mul(s, s);
	bf_real		power = s;
	bf_real		sum = s;

	for (uint64_t i = 1;; i++)
	{
		bf_real		term;

		power = bf_real_mul(power, s2);
		term = bf_real_div(power, bf_real_from_u64(2 * i + 1));
		if (real_negligible(term, sum))
			break;
		sum = bf_real_add(sum, term);
	}
	return real_scale(sum, 1);
}

bf_real
bf_real_log(bf_real x)
{
	/* x = 2^E y with y in [sqrt(2)/2, sqrt(2)) */
	int64_t		e = (int64_t) x.exponent + 63;
	bf_real		y = {x.mantissa, -63, false};
	bf_real		result;

	if (x.mantissa > REAL_SQRT2_MANTISSA)
	{
		y.exponent = -64;
		e++;
	}
	result = real_log1p_series(bf_real_sub(y, real_one));
	if (e != 0)
	{
		bf_real		whole = bf_real_mul(bf_real_from_u64(e < 0 ? (uint64_t) -e : (uint64_t) e),
										bf_real_ln2);

		result = bf_real_add(e < 0 ? bf_real_neg(whole) : whole, result);
	}
	return result;
}

/* |x| < 2^p */
static bool
real_below_power(bf_real x, int p)
{
	return x.mantissa == 0 || (int64_t) x.exponent + 64 <= p;
}

bf_real
bf_real_log1p(bf_real x)
{
	if (real_below_power(x, -2))
		return real_log1p_series(x);
	return bf_real_log(bf_real_add(real_one, x));
}

/* Taylor series of exp(x) - 1 for |x| <= 0.35. */
static bf_real
real_expm1_series(bf_real x)
{
	bf_real		term = x;
	bf_real		sum = x;

	for (uint64_t i = 2;; i++)
	{
		term = bf_real_div(bf_real_mul(term, x), bf_real_from_u64(i));
		if (real_negligible(term, sum))
			break;
		sum = bf_real_add(sum, term);
	}
	return sum;
}

bf_real
bf_real_exp(bf_real x)
{
	bf_real		whole;
	bf_real		r;
	uint64_t	n;

	if (x.mantissa == 0)
		return real_one;
	/* beyond 2^23 the reduction below is not exact; e^x is 2^(+-12e6) */
	if (!real_below_power(x, 23))
		return x.negative ? real_zero : real_normalize(UINT64_MAX, 0, REAL_EXPONENT_LIMIT, false);
	/* x = n ln 2 + r, n = round(x / ln 2) */
	whole = bf_real_round(bf_real_mul(x, real_inverse_ln2));
	n = bf_real_to_u64(x.negative ? bf_real_neg(whole) : whole);
	r = bf_real_sub(x, bf_real_mul(whole, real_ln2_high));
	r = bf_real_sub(r, bf_real_mul(whole, real_ln2_low));
	r = bf_real_add(real_one, real_expm1_series(r));
	return real_scale(r, x.negative ? -(int64_t) n : (int64_t) n);
}

bf_real
bf_real_expm1(bf_real x)
{
	if (real_below_power(x, -2))
		return real_expm1_series(x);
	return bf_real_sub(bf_real_exp(x), real_one);
}

/* exp(log(x) / 2), then one Newton step y = (y + x / y) / 2 */
bf_real
bf_real_sqrt(bf_real x)
{
	bf_real		y;

	if (x.mantissa == 0)
		return x;
	y = bf_real_exp(real_scale(bf_real_log(x), -1));
	return real_scale(bf_real_add(y, bf_real_div(x, y)), -1);
}

/* x with the bits below 2^0 cleared (towards zero) */
static bf_real
real_truncate(bf_real x, bool *had_fraction)
{
	int64_t		fraction_bits = -(int64_t) x.exponent;

	*had_fraction = false;
	if (x.mantissa == 0 || fraction_bits <= 0)
		return x;
	if (fraction_bits >= 64)
	{
		*had_fraction = true;
		return real_zero;
	}
	*had_fraction = (x.mantissa & ((UINT64_C(1) << fraction_bits) - 1)) != 0;
	return real_normalize(0, x.mantissa >> fraction_bits, 0, x.negative);
}

bf_real
bf_real_floor(bf_real x)
{
	bool		had_fraction;
	bf_real		whole = real_truncate(x, &had_fraction);

	if (had_fraction && x.negative)
		whole = bf_real_sub(whole, real_one);
	return whole;
}

bf_real
bf_real_ceil(bf_real x)
{
	bool		had_fraction;
	bf_real		whole = real_truncate(x, &had_fraction);

	if (had_fraction && !x.negative)
		whole = bf_real_add(whole, real_one);
	return whole;
}

bf_real
bf_real_round(bf_real x)
{
	bf_real		half = {UINT64_C(1) << 63, -64, false};
	bf_real		magnitude = x;

	magnitude.negative = false;
	magnitude = bf_real_floor(bf_real_add(magnitude, half));
	return x.negative ? bf_real_neg(magnitude) : magnitude;
}

uint64_t
bf_real_to_u64(bf_real x)
{
	if (x.mantissa == 0 || x.negative)
		return 0;
	if (x.exponent > 0)
		return UINT64_MAX;
	if (x.exponent <= -64)
		return 0;
	return x.mantissa >> -x.exponent;
}
