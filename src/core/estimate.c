/*
 * core/estimate.c: what the bits of a filter say (how many values it holds,
 * how often it lets an absent value through), and the false-positive rate
 * a shape is expected to have.
 *
 *
 * estimates (Swamidass and Baldi 2007)
 * ------------------------------------
 *
 * With X of the m bits set, the number of distinct values added is
 * estimated by inverting the expected fill E[X] = m (1 - e^(-kn/m)):
 *
 *     n* = -(m/k) ln(1 - X/m)
 *
 * computed with log1p, which keeps its precision when X is small next to m.
 * X = m gives +Infinity: a saturated filter says nothing about n.  The OR of
 * two filters of the same shape is exactly the filter of the union of their
 * sets, so the union is estimated at X = popcount(A | B) (bf_popcount_or
 * counts it without building it), and the intersection by inclusion and
 * exclusion, n*(A) + n*(B) - n*(A u B).  The AND of two filters is not the
 * filter of the intersection (it also keeps bits that different values set
 * in each), so it serves lookups, not estimates.
 *
 * The false-positive rate of a filter as it is, rather than as planned, is
 * (X/m)^k: each of the k probes of an absent value hits a set bit with
 * probability X/m.
 *
 * Under scheme 2 (core/probe.h) a value sets on average 512 (1 - q) bits of
 * its block, q = (1 - 1/512)^k, since its k probes may coincide, so
 *
 *     E[X] = m (1 - e^(-n (1 - q) 512 / m)),  n* = -(m / (512 (1 - q))) ln(1 - X/m)
 *
 * which is Swamidass-Baldi with k replaced by 512 (1 - q), about
 * k (1 - (k - 1)/1024).  The rate of a built filter is the mean over
 * blocks of (bits set in the block / 512)^k, exactly, rather than (X/m)^k,
 * which would understate it (bf_filter_false_positive_rate).
 *
 *
 * expected rates
 * --------------
 *
 * Before a filter is built, its rate after n values is the classical
 * (1 - e^(-kn/m))^k, with Goel and Gupta's bound beside it (core/shape.c
 * explains both), computed with -expm1(-x) for 1 - e^(-x), which keeps its
 * digits when x is small; under scheme 2 the Poisson sum over the values a
 * block gets (core/shape.c, "sizing blocked filters").
 */
#include "core/core.h"

#include <math.h>

/*
 * The expected bits one value sets, as a share of its block under scheme 2:
 * 1 - (1 - 1/512)^k (its k probes may coincide).
 */
static double
blocked_share(uint32_t k)
{
	return -expm1((double) k * log1p(-1.0 / BLOOM_BLOCK_BITS));
}

double
bf_estimate_cardinality(uint64_t m, uint32_t k, uint8_t scheme, uint64_t bits_set)
{
	double		per_value;

	if (m == 0 || k == 0)
		return NAN;
	if (bits_set == 0)
		return 0.0;
	if (bits_set >= m)
		return INFINITY;
	/* the expected share of the m bits one value sets: k/m, or less */
	per_value = scheme == BLOOM_HASH_XXH3_BLOCKED ?
		blocked_share(k) * BLOOM_BLOCK_BITS : (double) k;
	return -((double) m / per_value) * log1p(-((double) bits_set / (double) m));
}

double
bf_current_false_positive_rate(uint64_t m, uint32_t k, uint64_t bits_set)
{
	if (m == 0)
		return NAN;
	if (bits_set >= m)
		return 1.0;
	return pow((double) bits_set / (double) m, (double) k);
}

/*
 * Under scheme 2 each block's share of set bits differs, so the rate is the
 * mean over blocks of (bits set in the block / 512)^k, summed by count.
 */
double
bf_filter_false_positive_rate(const uint8_t *bits, uint64_t m, uint32_t k,
							  uint8_t scheme, uint64_t bits_set)
{
	uint64_t	count[BLOOM_BLOCK_BITS + 1] = {0};
	uint64_t	blocks;
	double		sum = 0.0;

	if (scheme != BLOOM_HASH_XXH3_BLOCKED || m == 0 || m % BLOOM_BLOCK_BITS != 0)
		return bf_current_false_positive_rate(m, k, bits_set);
	blocks = m / BLOOM_BLOCK_BITS;
	for (uint64_t b = 0; b < blocks; b++)
	{
		count[bf_popcount(bits + b * BF_BLOCK_BYTES, BF_BLOCK_BYTES)]++;
		if ((b + 1) % (BF_INTERRUPT_STRIDE / BF_BLOCK_BYTES) == 0)
			bf_check_interrupts();
	}
	for (int c = 0; c <= BLOOM_BLOCK_BITS; c++)
		if (count[c] != 0)
			sum += pow((double) c / BLOOM_BLOCK_BITS, (double) k) * (double) count[c];
	return sum / (double) blocks;
}

/*
 * (1 - e^(-kn/m))^k for real m and n.  The Goel-Gupta bound is the same
 * formula with half a value more and one bit fewer.
 */
static double
false_positive_formula(double m, uint32_t k, double n)
{
	return pow(-expm1(-(double) k * n / m), (double) k);
}

double
bf_expected_false_positive_rate(uint64_t m, uint32_t k, uint64_t n)
{
	if (m == 0 || k == 0)
		return NAN;
	return false_positive_formula((double) m, k, (double) n);
}

double
bf_goel_gupta_bound(uint64_t m, uint32_t k, uint64_t n)
{
	if (m == 0 || k == 0)
		return NAN;
	/* the formula divides by m - 1 = 0; its limit, and a true bound, is 1 */
	if (m == 1)
		return 1.0;
	return false_positive_formula((double) (m - 1), k, (double) n + 0.5);
}

/*
 * lambda = n / blocks values per block on average, Poisson-distributed; a
 * block that holds j values has each bit still zero with probability
 * q^j, q = (1 - 1/512)^k, and lets an absent value through with
 * probability (1 - q^j)^k.  Terms more than 12 standard deviations from
 * lambda are below 1e-30 of the sum and left out.
 */
static double
blocked_rate(double lambda, uint32_t k)
{
	double		q = exp((double) k * log1p(-1.0 / BLOOM_BLOCK_BITS));
	double		spread = 12.0 * sqrt(lambda) + 12.0;
	double		mode = floor(lambda);
	double		mode_poisson;
	double		mode_q;
	double		sum = 0.0;
	double		poisson,
				qj;

	if (lambda <= 0.0)
		return 0.0;
	/* From the mode outwards, P(j +- 1) and q^(j +- 1) by recurrence. */
	mode_poisson = exp(-lambda + mode * log(lambda) - lgamma(mode + 1.0));
	mode_q = pow(q, mode);
	poisson = mode_poisson;
	qj = mode_q;
	for (double j = mode; j <= lambda + spread; j += 1.0)
	{
		sum += poisson * pow(1.0 - qj, (double) k);
		poisson *= lambda / (j + 1.0);
		qj *= q;
	}
	poisson = mode_poisson;
	qj = mode_q;
	/* j = 0 adds nothing: an empty block lets no value through */
	for (double j = mode - 1.0; j >= 1.0 && j >= lambda - spread; j -= 1.0)
	{
		poisson *= (j + 1.0) / lambda;
		qj /= q;
		sum += poisson * pow(1.0 - qj, (double) k);
	}
	return sum;
}

double
bf_blocked_false_positive_rate(uint64_t m, uint32_t k, double n)
{
	if (m < BLOOM_BLOCK_BITS || k == 0)
		return NAN;
	return blocked_rate(n / (double) (m / BLOOM_BLOCK_BITS), k);
}
