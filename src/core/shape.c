/*
 * core/shape.c: status messages, shape and header checks, and sizing: the
 * m and k of a new filter under either scheme.
 *
 *
 * sizing (scheme 1)
 * -----------------
 *
 * After n distinct values have been added with k uniform probes each, a
 * given bit is still zero with probability (1 - 1/m)^(kn) ~ e^(-kn/m), so a
 * value that was never added passes all k probes with probability about
 *
 *     p = (1 - e^(-kn/m))^k
 *
 * For fixed m and n this is smallest at k = (m/n) ln 2, where half of the
 * bits are set and p = 2^-k.  Solving for m gives the size for a target p:
 *
 *     m = ceil(-n ln p / (ln 2)^2)        k = max(1, round((m/n) ln 2))
 *
 * p = 0.01 and n = 100000 give m = 958506 (9.59 bits, 1.2 bytes per value)
 * and k = 7.  bf_optimal_shape computes this in bf_real (see "the same
 * shape on every machine" below) and refuses k > BLOOM_K_MAX (p below about
 * 4e-20) and m > BLOOM_M_MAX (a filter that would not fit in PostgreSQL's
 * 1 GB value limit).
 *
 * The formula for p treats the bits a lookup probes as independent, which
 * they are not quite: Bose et al. (2008) showed that it slightly
 * underestimates the true rate.  Goel and Gupta (2010) bound the true rate
 * from above, with no approximation, by
 *
 *     (1 - e^(-k(n + 0.5)/(m - 1)))^k
 *
 * that is, the classical formula holds at the cost of at most half a value
 * more and one bit fewer.  Near the optimal k the two differ by a relative
 * O(k^2/m) (3e-5 for the example above), far below the sampling noise of any
 * measurement, so the classical formula is the one reported and the one the
 * unit tests hold the implementation to (core/estimate.c computes both).
 *
 *
 * sizing blocked filters (scheme 2)
 * ---------------------------------
 *
 * Scheme 2 puts all k probes of a value in one block of 512 bits
 * (core/probe.h).  The price is accuracy: blocks get different numbers of
 * values (Poisson with mean lambda = n / (m/512)), and the fuller ones let
 * more through.  A block holding j values has each bit still zero with
 * probability q^j, q = (1 - 1/512)^k, so
 *
 *     p = sum over j of P(j; lambda) (1 - q^j)^k
 *
 * (bf_blocked_false_positive_rate).  At scheme 1's m and k this is 1.16%
 * instead of 1% at p = 0.01, so a blocked filter is sized by this formula,
 * not the classical one: bf_blocked_shape bisects for the largest lambda
 * that meets p for each k (the number of blocks that gives is then checked
 * in bf_real), and keeps the k that needs the fewest blocks.
 * Fewer probes than (m/n) ln 2 are best, because the rate is dominated by
 * the fuller blocks.  The cost in bits over scheme 1 is 0.8% at p = 0.1,
 * 3.2% at 0.01 (k = 6 instead of 7), 7.7% at 0.001, 14% at 1e-4 and 34%
 * at 1e-6, so bf_default_shape blocks a new filter only when scheme 1
 * would be at least 2 MiB (larger than the caches where it matters) and
 * blocking costs at most 10% more bits (p >= about 5e-4).  Smaller
 * filters, explicit shapes (bloom_empty_mk) and self-sized ones stay
 * scheme 1, so bloom_empty(0.01, 100000) is still 958506 bits and 7 probes.
 *
 *
 * the same shape on every machine
 * -------------------------------
 *
 * Filters combine (OR, AND, union estimates) only when their shapes are
 * equal, and golden results pin shapes, so the shape chosen for p and n, or
 * for a set of values, must not depend on the machine.  Double arithmetic
 * does: the x87 unit of i386 keeps 80-bit intermediates, compilers for
 * arm64 and s390x fuse multiplications and additions, and log, exp and pow
 * differ in their last bit between C libraries.  A decision whose exact
 * value lies within such an error of its boundary (m = ceil(x) with x
 * within 1e-15 of an integer, k = round(log2(1/p)) near a half-integer,
 * the blocked rate against p, a self-sized candidate's rate against its
 * bound) goes one way on one machine and the other way on another.  No
 * margin helps, since some inputs fall on any margin; nor do compiler flags
 * (-ffloat-store, -ffp-contract=off): an extension is built with the
 * server's flags, and the C library would still differ.
 *
 * So every decision is made in bf_real (core/real.c): floating point with a
 * 64-bit mantissa done with integer operations, with its own log, log1p,
 * exp, expm1 and sqrt, which gives the same bits everywhere, within a few
 * units of 2^-64 of the exact values.  The decisions are those of the
 * formulas, exactly, except within about 1e-18 of a boundary, where they
 * are still the same on every machine.  Doubles only report (estimates,
 * rates) and guide searches whose answer they do not decide: the blocked
 * shape's bisection gives a guess that bf_real checks and corrects.
 * test/unit/test_shape.c pins shapes that lie within a few 1e-16 of a boundary.
 */
#include "core/core.h"

#include <math.h>

const char *
bf_status_message(bf_status status)
{
	switch (status)
	{
		case BF_OK:
			return "The value is valid.";
		case BF_FALSE_POSITIVE_RATE_RANGE:
			return "The false-positive rate must be greater than 0 and less than 1.";
		case BF_CAPACITY_RANGE:
			return "The capacity must be at least 1.";
		case BF_M_RANGE:
			return "The number of bits m must be at least 1.";
		case BF_K_RANGE:
			return "The number of hash probes k must be between 1 and 64.";
		case BF_TOO_LARGE:
			return "The number of bits m is larger than the largest filter PostgreSQL can store (a value of at most 1 GB).";
		case BF_FORMAT_VERSION:
			return "The filter has an unknown format version; this build reads format version 1 only.";
		case BF_HASH_SCHEME:
			return "The filter uses an unknown hash scheme; this build knows hash schemes 1 and 2 only.";
		case BF_FLAGS:
			return "The filter has an unknown flag set; this build knows flag 1 (text hashed as UTF-8) only.";
		case BF_LENGTH:
			return "The length of the bit array does not match m: it must be m rounded up to a whole number of 64-bit words.";
		case BF_PADDING_BITS:
			return "A bit at a position at or beyond m is set; the padding bits after position m - 1 must be zero.";
		case BF_BLOCK_SHAPE:
			return "Under hash scheme 2 the number of bits m must be a multiple of 512.";
		case BF_SYNTAX:
			return "The text form must be bloom:v<format>:h<scheme>:m<bits>:k<probes>:[f<flags>:]<base64 bits>, with decimal numbers that have no sign and no leading zeros.";
		case BF_BASE64:
			return "The bit array is not canonical base64: only A-Z, a-z, 0-9, + and / are allowed, with = padding to a multiple of 4 characters and zero unused bits in the last character.";
		case BF_GROWTH_RANGE:
			return "The growth factor must be 2 or 4.";
		case BF_TIGHTENING_RANGE:
			return "The tightening ratio must be greater than 0 and less than 1.";
		case BF_RATE_UNHOLDABLE:
			return "With this tightening ratio a stage the filter can still reach below PostgreSQL's 1 GB value limit would need a false-positive rate below about 1e-19 (more than 64 hash probes); use a tightening ratio closer to 1 or a higher false-positive rate.";
		case BF_STAGES:
			return "The scalable filter's header is malformed: the number of stages must be between 1 and 64, and unknown options and reserved bytes must be zero.";
		case BF_STAGE_COUNT:
			return "A stage's count of values is above its capacity, or a stage other than the last is not full.";
		case BF_STAGE_SHAPE:
			return "A stage's m, k or hash scheme is not the one the filter's parameters give.";
		case BF_SCALABLE_SYNTAX:
			return "The text form must be scalable_bloom:v1:p<rate>:n<capacity>:s<growth>:r<tightening>:[f<flags>:][o<options>:] then stages c<count>:h<scheme>:m<bits>:k<probes>:<base64 bits> separated by ';', with rates in their shortest decimal form and integers with no sign and no leading zeros.";
		case BF_COUNTING_TOO_LARGE:
			return "The number of counters m is larger than the largest counting filter PostgreSQL can store (a value of at most 1 GB, two 4-bit counters a byte).";
		case BF_COUNTING_LENGTH:
			return "The length of the counter array does not match m: it must be m 4-bit counters rounded up to a whole number of 64-bit words.";
		case BF_COUNTING_PADDING:
			return "A counter at a position at or beyond m is not zero; the padding counters after position m - 1 must be zero.";
		case BF_COUNTING_SYNTAX:
			return "The text form must be counting_bloom:v<format>:h<scheme>:m<counters>:k<probes>:[f<flags>:]<base64 counters>, with decimal numbers that have no sign and no leading zeros.";
	}
	return "Unknown bloom filter status.";
}

/* ---- shapes ---- */

bf_status
bf_check_shape(int64_t m, int64_t k)
{
	if (m < 1)
		return BF_M_RANGE;
	if ((uint64_t) m > BLOOM_M_MAX)
		return BF_TOO_LARGE;
	if (k < BLOOM_K_MIN || k > BLOOM_K_MAX)
		return BF_K_RANGE;
	return BF_OK;
}

/* (ln 2)^2, rounded to 64 bits */
static const bf_real real_ln2_squared = {UINT64_C(0xf5fdeffc162c7543), -65, false};

/*
 * k depends (almost) only on p, so BF_K_RANGE is reported before
 * BF_TOO_LARGE: a rate below about 1e-19 is refused whatever the capacity.
 * Computing the shape in bf_real costs far more than using it, and a query
 * may ask for the same one on every row, so the last one is remembered.
 */
bf_status
bf_optimal_shape(double p, int64_t n, uint64_t *m, uint32_t *k)
{
	static double last_p;
	static int64_t last_n = 0;	/* 0: none yet */
	static uint64_t last_m;
	static uint32_t last_k;
	bf_real		bits;
	uint64_t	probes;

	*m = 0;
	*k = 0;
	/* Written so that NaN fails too. */
	if (!(p > 0.0 && p < 1.0))
		return BF_FALSE_POSITIVE_RATE_RANGE;
	if (n < 1)
		return BF_CAPACITY_RANGE;
	if (n == last_n && p == last_p)
	{
		*m = last_m;
		*k = last_k;
		goto checked;
	}

	/* m = ceil(-n ln p / (ln 2)^2), k = max(1, round((m/n) ln 2)) */
	{
		bf_real		capacity = bf_real_from_u64((uint64_t) n);
		bf_real		minus_log_p = bf_real_neg(bf_real_log(bf_real_from_double(p)));

		bits = bf_real_ceil(bf_real_div(bf_real_mul(capacity, minus_log_p), real_ln2_squared));
		probes = bf_real_to_u64(bf_real_round(bf_real_mul(bf_real_div(bits, capacity),
														  bf_real_ln2)));
	}
	if (probes < 1)
		probes = 1;

	/*
	 * m saturates rather than wraps (bf_real_to_u64).  k is at most about
	 * log2(1/p) + 2 <= 1077 for any double p > 0, so the cast is exact.
	 */
	*m = bf_real_to_u64(bits);
	*k = (uint32_t) probes;
	last_p = p;
	last_n = n;
	last_m = *m;
	last_k = *k;

checked:
	if (*k > BLOOM_K_MAX)
		return BF_K_RANGE;
	if (*m > BLOOM_M_MAX)
		return BF_TOO_LARGE;
	return BF_OK;
}

bf_status
bf_check_header(const BloomHeader *header)
{
	if (header->format_version != BLOOM_FORMAT_VERSION)
		return BF_FORMAT_VERSION;
	if (header->hash_scheme != BLOOM_HASH_XXH3_EDH &&
		header->hash_scheme != BLOOM_HASH_XXH3_BLOCKED)
		return BF_HASH_SCHEME;
	if (header->k < BLOOM_K_MIN || header->k > BLOOM_K_MAX)
		return BF_K_RANGE;
	if ((header->flags & ~BLOOM_FLAGS_KNOWN) != 0)
		return BF_FLAGS;
	if (header->m < 1)
		return BF_M_RANGE;
	if (header->m > BLOOM_M_MAX)
		return BF_TOO_LARGE;
	if (header->hash_scheme == BLOOM_HASH_XXH3_BLOCKED && header->m % BLOOM_BLOCK_BITS != 0)
		return BF_BLOCK_SHAPE;
	return BF_OK;
}

bf_status
bf_check_bits(const BloomHeader *header, const uint8_t *bits, size_t nbytes)
{
	uint64_t	m = header->m;
	uint64_t	first_padding_byte;

	/* m again, for a header not checked yet: bloom_payload_bytes must not overflow */
	if (m < 1)
		return BF_M_RANGE;
	if (m > BLOOM_M_MAX)
		return BF_TOO_LARGE;
	if (nbytes != bloom_payload_bytes(m))
		return BF_LENGTH;

	/* The partial byte holding bit m - 1, then whole bytes up to the end. */
	first_padding_byte = (m + 7) / 8;
	if (m % 8 != 0 && (bits[m / 8] & (0xff << (m % 8))) != 0)
		return BF_PADDING_BITS;
	for (uint64_t i = first_padding_byte; i < nbytes; i++)
		if (bits[i] != 0)
			return BF_PADDING_BITS;
	return BF_OK;
}

/*
 * ln P(j; lambda) = -lambda + j ln lambda - ln j! at j = floor(lambda) >= 1,
 * in bf_real.  From j = 50 on, with Stirling's series for ln j!, it is
 * j ln(lambda / j) + (j - lambda) - ln(2 pi j) / 2 - S(j), which cancels
 * nothing (S(j) = 1/(12j) - 1/(360j^3) + 1/(1260j^5) - 1/(1680j^7), off by
 * less than 1e-18 there).
 */
static bf_real
blocked_log_mode_poisson(bf_real lambda, uint64_t j)
{
	const bf_real two_pi = {UINT64_C(0xc90fdaa22168c235), -61, false};
	bf_real		whole = bf_real_from_u64(j);
	bf_real		series = bf_real_from_u64(0);
	static const uint64_t denominators[] = {12, 360, 1260, 1680};
	bf_real		power;
	bf_real		result;

	if (j < 50)
	{
		bf_real		factorial = bf_real_from_u64(1);

		for (uint64_t i = 2; i <= j; i++)
			factorial = bf_real_mul(factorial, bf_real_from_u64(i));
		return bf_real_sub(bf_real_sub(bf_real_mul(whole, bf_real_log(lambda)), lambda),
						   bf_real_log(factorial));
	}
	power = whole;
	for (int i = 0; i < 4; i++)
	{
		bf_real		term = bf_real_div(bf_real_from_u64(1),
									   bf_real_mul(bf_real_from_u64(denominators[i]), power));

		series = i % 2 == 0 ? bf_real_add(series, term) : bf_real_sub(series, term);
		power = bf_real_mul(power, bf_real_mul(whole, whole));
	}
	result = bf_real_mul(whole, bf_real_log1p(bf_real_div(bf_real_sub(lambda, whole), whole)));
	result = bf_real_add(result, bf_real_sub(whole, lambda));
	result = bf_real_sub(result, bf_real_div(bf_real_log(bf_real_mul(two_pi, whole)),
											 bf_real_from_u64(2)));
	return bf_real_sub(result, series);
}

/*
 * blocked_rate in bf_real, to decide shapes by (0 < lambda < 512): the same
 * sum over the same range of j, to 1e-15 or better, but for the tails: the
 * terms P(j) (1 - q^j)^k are unimodal in j (both factors are log-concave),
 * and fall from the mode downwards, so each direction stops at the first
 * term below 2^-70 of the sum once they fall.
 */
static bf_real
blocked_rate_real(bf_real lambda, uint32_t k)
{
	bf_real		q = bf_real_pow_u32(bf_real_div(bf_real_from_u64(BLOOM_BLOCK_BITS - 1),
												bf_real_from_u64(BLOOM_BLOCK_BITS)), k);
	bf_real		one = bf_real_from_u64(1);
	bf_real		spread = bf_real_add(bf_real_mul(bf_real_from_u64(12), bf_real_sqrt(lambda)),
									 bf_real_from_u64(12));
	uint64_t	mode = bf_real_to_u64(bf_real_floor(lambda));
	uint64_t	last = bf_real_to_u64(bf_real_floor(bf_real_add(lambda, spread)));
	bf_real		below = bf_real_sub(lambda, spread);
	uint64_t	first = bf_real_lt(below, one) ? 1 : bf_real_to_u64(bf_real_ceil(below));
	bf_real		tiny = bf_real_from_double(0x1p-70);
	bf_real		mode_poisson,
				mode_q,
				poisson,
				qj,
				previous;
	bf_real		sum = bf_real_from_u64(0);

	if (mode == 0)
		mode_poisson = bf_real_exp(bf_real_neg(lambda));
	else
		mode_poisson = bf_real_exp(blocked_log_mode_poisson(lambda, mode));
	mode_q = bf_real_pow_u32(q, (uint32_t) mode);
	poisson = mode_poisson;
	qj = mode_q;
	previous = sum;
	for (uint64_t j = mode; j <= last; j++)
	{
		bf_real		term = bf_real_mul(poisson, bf_real_pow_u32(bf_real_sub(one, qj), k));

		if (bf_real_lt(term, previous) && bf_real_lt(term, bf_real_mul(sum, tiny)))
			break;
		sum = bf_real_add(sum, term);
		previous = term;
		poisson = bf_real_div(bf_real_mul(poisson, lambda), bf_real_from_u64(j + 1));
		qj = bf_real_mul(qj, q);
	}
	poisson = mode_poisson;
	qj = mode_q;
	for (uint64_t j = mode - 1; mode >= 1 && j >= first; j--)
	{
		bf_real		term;

		poisson = bf_real_div(bf_real_mul(poisson, bf_real_from_u64(j + 1)), lambda);
		qj = bf_real_div(qj, q);
		term = bf_real_mul(poisson, bf_real_pow_u32(bf_real_sub(one, qj), k));
		if (bf_real_lt(term, bf_real_mul(sum, tiny)))
			break;
		sum = bf_real_add(sum, term);
	}
	return sum;
}

/*
 * Whether blocks blocks hold n values at rate p with k probes, decided in
 * bf_real.  The rate increases with lambda = n / blocks, and it is above p
 * at lambda = 512 for the k tried (bf_blocked_shape), so from there on the
 * answer is no without a sum.
 */
static bool
blocked_holds(int64_t n, uint64_t blocks, uint32_t k, bf_real p)
{
	if ((uint64_t) n >= blocks * BLOOM_BLOCK_BITS)
		return false;
	return bf_real_le(blocked_rate_real(bf_real_div(bf_real_from_u64((uint64_t) n),
													bf_real_from_u64(blocks)), k), p);
}

/*
 * The fewest blocks, at most limit, that hold n values at rate p with k
 * probes, or 0 if none do: a search from guess, outwards in steps that
 * double, then by bisection.  The answer does not depend on the guess, which
 * only makes it fast (a good one costs two sums).
 */
static uint64_t
blocked_fewest_blocks(int64_t n, uint32_t k, bf_real p, uint64_t guess, uint64_t limit)
{
	uint64_t	low,			/* 0 or a number that does not hold */
				high;			/* a number that holds */

	guess = guess < 1 ? 1 : guess > limit ? limit : guess;
	if (blocked_holds(n, guess, k, p))
	{
		high = guess;
		for (uint64_t step = 1;; step *= 2)
		{
			low = high > step ? high - step : 0;
			if (low == 0 || !blocked_holds(n, low, k, p))
				break;
			high = low;
		}
	}
	else
	{
		low = guess;
		for (uint64_t step = 1;; step *= 2)
		{
			if (low >= limit)
				return 0;
			high = limit - low > step ? low + step : limit;
			if (blocked_holds(n, high, k, p))
				break;
			low = high;
		}
	}
	while (high - low > 1)
	{
		uint64_t	middle = low + (high - low) / 2;

		if (blocked_holds(n, middle, k, p))
			high = middle;
		else
			low = middle;
	}
	return high;
}

#define BF_BLOCKED_K_RANGE 10

bf_status
bf_blocked_shape(double p, int64_t n, uint64_t *m, uint32_t *k)
{
	uint64_t	classic_m;
	uint32_t	classic_k;
	bf_status	status = bf_optimal_shape(p, n, &classic_m, &classic_k);
	bf_real		rate = bf_real_from_double(p);
	uint64_t	best_blocks = 0;
	uint32_t	best_k = 0;

	*m = classic_m;
	*k = classic_k;
	if (status != BF_OK)
		return status;

	/*
	 * The rate is a function of lambda = n / blocks for each k, increasing
	 * in lambda: bisect for the largest lambda that meets p, which gives
	 * the fewest blocks that keep lambda at or below it; that number is
	 * then checked, and corrected if need be, in bf_real (blocked_holds),
	 * so that every machine finds the same.  Blocking calls for fewer
	 * probes than k = (m/n) ln 2 (the blocks that got more than their share
	 * of values dominate the rate), so k from that down by up to
	 * BF_BLOCKED_K_RANGE are tried (the best k is 7 below it at p = 1e-8).
	 */
	for (uint32_t probes = classic_k > BF_BLOCKED_K_RANGE ? classic_k - BF_BLOCKED_K_RANGE : 1;
		 probes <= classic_k; probes++)
	{
		double		low = 0.0,
					high = (double) BLOOM_BLOCK_BITS;
		double		guess;
		uint64_t	blocks;

		/* p >= the rate of 512 values a block */
		if (bf_real_le(blocked_rate_real(bf_real_from_u64(BLOOM_BLOCK_BITS), probes), rate))
			continue;
		for (int i = 0; i < 40; i++)
		{
			double		mid = 0.5 * (low + high);

			/* one block of 512 bits holding mid values: lambda = mid */
			if (bf_blocked_false_positive_rate(BLOOM_BLOCK_BITS, probes, mid) <= p)
				low = mid;
			else
				high = mid;
		}
		guess = low > 0.0 ? ceil((double) n / low) : (double) UINT64_MAX;
		blocks = blocked_fewest_blocks(n, probes, rate,
									   guess < (double) UINT64_MAX ? (uint64_t) guess : UINT64_MAX,
									   BLOOM_M_MAX / BLOOM_BLOCK_BITS);
		if (blocks != 0 && (best_blocks == 0 || blocks < best_blocks))
		{
			best_blocks = blocks;
			best_k = probes;
		}
	}
	if (best_blocks == 0)
		return BF_TOO_LARGE;
	*m = best_blocks * BLOOM_BLOCK_BITS;
	*k = best_k;
	return BF_OK;
}

/*
 * The blocked shape costs many bf_real sums to find, so the last one is
 * remembered (a query that calls bloom_empty(p, n) for every row asks for
 * the same one each time).
 */
bf_status
bf_default_shape(double p, int64_t n, uint64_t *m, uint32_t *k, uint8_t *scheme)
{
	static double last_p = 0.0;
	static int64_t last_n = 0;
	static uint64_t last_m;
	static uint32_t last_k;
	bf_status	status = bf_optimal_shape(p, n, m, k);
	uint64_t	blocked_m;
	uint32_t	blocked_k;

	*scheme = BLOOM_HASH_XXH3_EDH;
	if (status != BF_OK || bloom_payload_bytes(*m) < BF_BLOCKED_MIN_BYTES)
		return status;
	if (p == last_p && n == last_n)
	{
		blocked_m = last_m;
		blocked_k = last_k;
	}
	else
	{
		if (bf_blocked_shape(p, n, &blocked_m, &blocked_k) != BF_OK)
			blocked_m = 0;
		last_p = p;
		last_n = n;
		last_m = blocked_m;
		last_k = blocked_k;
	}
	if (blocked_m != 0 &&
		blocked_m * 100 <= *m * (100 + BF_BLOCKED_MAX_GROWTH_PERCENT))
	{
		*m = blocked_m;
		*k = blocked_k;
		*scheme = BLOOM_HASH_XXH3_BLOCKED;
	}
	return status;
}

