/*
 * core/autosize.c: self-sizing filters, for bloom_agg(value) and
 * bloom_agg(value, p), which are not told how many values to expect
 * (declared in core/autosize.h).
 *
 * bloom_agg(value) and bloom_agg(value, p) size the filter for the number of
 * distinct values actually aggregated, which is only known at the end, and
 * the result must be an ordinary filter: the bits bf_add_hash sets for each
 * value at the final m and k.  So the state keeps enough to set those bits
 * at a size chosen at the end.
 *
 * k depends on p alone.  The optimal k = (m/n) ln 2 with m/n = -ln p /
 * (ln 2)^2 is log2(1/p), so k = max(1, round(log2(1/p))), which is what
 * bf_optimal_shape gives for large n (for small n its ceiling on m can move
 * k by one).  Fixing k first leaves only m to choose.
 *
 * Folding.  Positions are floor(g m / 2^64) for the 64-bit g of each probe.
 * For m = f m' and t = g m / 2^64, floor(floor(t) / f) = floor(t / f) (true
 * for any real t >= 0 and integer f >= 1: write floor(t) = q f + r with
 * 0 <= r < f, then q <= t / f < q + 1), and t / f = g m' / 2^64.  So the
 * position at m' is floor(position at m / f): the filter of a set at m'
 * bits is exactly the filter at m bits with each run of f bits ORed into
 * one (bf_fold).  Nothing is approximated, and the folded filter is bit for
 * bit the one built directly at m' (test/unit/test_autosize.c checks it).
 *
 * Holding the target.  With k independent uniform probes, a filter with X
 * of its m bits set would let an absent value through with probability
 * exactly (X/m)^k.  Double hashing's probes are not independent: with
 * probability about 2/(k m) the step h2 m / 2^64 is within 1/(2k) of a
 * whole number of bits, and then the k probes fall on a run of a few
 * neighbouring bits (or of a few runs), which are all set far more often
 * than k scattered bits; an absent value whose steps are close to those of
 * a present one overlaps its bits in the same way.  That floor does not
 * shrink with the fill: it is about 1/(k m), so it matters for small m and
 * small p (bloom_empty(0.01, 1) is 10 bits that let 9% through, and at
 * p = 1e-6 a filter of 1000 values at the optimal m lets 6e-6 through,
 * measured).  The rate of a concrete filter is therefore taken as
 *
 *     (X/m)^k + (2 / (1 - f)^2 + 3) f / (k m),       f = X/m
 *
 * where the second term is an approximation of that share (a sum over the
 * runs of f^b for b runs), with constants chosen, from measurement over
 * many sets of 1 to 3000 values at p = 0.1, 0.01 and 0.001, so that it is
 * above the measured share; at f = 1/2 and large m it is 5.5 / (k m).  The
 * size is chosen by building (or folding) candidates and keeping the
 * smallest whose rate so computed is <= (1 - delta) p.  The margin delta =
 * min(0.1, 3 sqrt((1 - p) / (100000 p))) makes a measurement over 100,000
 * absent values exceed p with probability about 0.13% (3 standard
 * deviations of the binomial count) when p >= 0.0089; for smaller p it is
 * capped at 10% of p, and a measurement needs more absent values to see p.
 * The choice depends only on the set of values, so every plan (serial,
 * parallel, any order) gives the same filter.  The price is paid by tiny
 * filters: at p = 0.01 one value gets about 25 bits, 2.5 times the 10 of
 * the formula (which do not hold the target), and from about 5 values on
 * m is within 1.5 times the formula's.
 *
 * Exact phase.  Up to BF_AUTO_EXACT_LIMIT (2^17) distinct values the state
 * is the set of their 128-bit hashes (bf_hashset, at most 2^18 slots of 16
 * bytes: 4 MB).  At the end n is known exactly and m runs over the integer
 * ladder 1, 2, ..., 64, then m + floor(m / 64) (steps of at most 1/64),
 * from the first m whose expected rate (1 - (1 - 1/m)^(kn))^k meets the
 * bound and is at least the optimal m for n, until the built filter meets
 * it.  Any m >= kn / ((1 - delta) p)^(1/k) does (X <= kn), which bounds the
 * search; n = 0 gives the optimal m for n = 1.
 *
 * Sketch phase.  Past 2^17 values the hashes go into one filter of M = 15 *
 * 2^J bits, J the smallest with 5 * 2^J bits enough for
 * BF_AUTO_GUARANTEED_CAPACITY (10^7) values at the bound.  At the end it is
 * folded to the smallest size that meets the bound among the divisors
 * M / (d 2^i), d in {1, 3, 5, 15}: 1, 1.25, 1.5 and 1.875 times powers
 * of two up to 2^J, at most 1.25 apart, then 2.5, 3, 3.75 and 5 times 2^J,
 * at most 4/3 apart.  So for up to 10^7 values (and, depending on J, up to
 * 1.7 times more), whose size is at most M / 3 = 5 * 2^J, the size is within
 * 4/3 of the smallest that meets the bound, which is itself within a few
 * percent of the optimal m.  Above M / 3 the only sizes are M / 2 and M: the
 * target still holds, at up to 2 times the smallest size that meets it.
 * Past M nothing meets the bound and the caller raises an error.  The
 * candidate search starts from the size the Swamidass-Baldi estimate of n
 * predicts and counts each candidate's bits without building it
 * (bf_fold_popcount).
 */
#include "core/core.h"
#include "core/autosize.h"

/* The exact phase's ladder: every integer to 64, then steps of floor(m / 64). */
static uint64_t
auto_exact_next(uint64_t m)
{
	return m + (m >> 6 > 0 ? m >> 6 : 1);
}

/* The smallest ladder value >= m. */
static uint64_t
auto_exact_ceil(uint64_t m)
{
	uint64_t	value = 1;

	while (value < m)
		value = auto_exact_next(value);
	return value;
}

/*
 * The rate of a filter of m bits, k probes and fill f = X/m, with double
 * hashing's share: f^k + (2 / (1 - f)^2 + 3) f / (k m).  See "holding the
 * target".
 */
static bf_real
auto_rate(uint64_t m, uint32_t k, bf_real fill)
{
	bf_real		one = bf_real_from_u64(1);
	bf_real		empty;
	bf_real		share;

	if (!bf_real_lt(fill, one))
		return one;
	empty = bf_real_sub(one, fill);
	share = bf_real_add(bf_real_div(bf_real_from_u64(2), bf_real_mul(empty, empty)),
						bf_real_from_u64(3));
	share = bf_real_div(bf_real_mul(share, fill),
						bf_real_mul(bf_real_from_u64(k), bf_real_from_u64(m)));
	return bf_real_add(bf_real_pow_u32(fill, k), share);
}

/* The same, expected after n distinct values: f = 1 - (1 - 1/m)^(kn). */
static bf_real
auto_expected_rate(bf_real n, uint64_t m, uint32_t k)
{
	bf_real		zero = bf_real_from_u64(0);
	bf_real		fill;

	if (bf_real_cmp(n, zero) == 0)
		fill = zero;
	else if (m == 1)
		fill = bf_real_from_u64(1);
	else
	{
		bf_real		step = bf_real_log1p(bf_real_neg(bf_real_div(bf_real_from_u64(1),
																 bf_real_from_u64(m))));

		fill = bf_real_neg(bf_real_expm1(bf_real_mul(bf_real_mul(bf_real_from_u64(k), n), step)));
	}
	return auto_rate(m, k, fill);
}

/*
 * (1 - delta) p, delta = min(1/10, 3 sqrt((1 - p) / (100000 p))); the last
 * one is remembered.
 */
static bf_real
auto_rate_bound(double p)
{
	static double last_p = 0.0;	/* 0: none yet */
	static bf_real last_bound;
	bf_real		rate = bf_real_from_double(p);
	bf_real		one = bf_real_from_u64(1);
	bf_real		most = bf_real_div(one, bf_real_from_u64(10));
	bf_real		delta;

	if (p == last_p)
		return last_bound;
	delta = bf_real_div(bf_real_sub(one, rate), bf_real_mul(bf_real_from_u64(100000), rate));
	delta = bf_real_mul(bf_real_from_u64(3), bf_real_sqrt(delta));
	if (bf_real_lt(most, delta))
		delta = most;
	last_bound = bf_real_mul(bf_real_sub(one, delta), rate);
	last_p = p;
	return last_bound;
}

static bool
auto_holds(uint64_t m, uint32_t k, uint64_t bits_set, bf_real bound)
{
	bf_real		fill = bf_real_div(bf_real_from_u64(bits_set), bf_real_from_u64(m));

	return bf_real_le(auto_rate(m, k, fill), bound);
}

double
bf_auto_rate_bound(double p)
{
	return bf_real_to_double(auto_rate_bound(p));
}

double
bf_auto_rate(uint64_t m, uint32_t k, uint64_t bits_set)
{
	return bf_real_to_double(auto_rate(m, k, bf_real_div(bf_real_from_u64(bits_set),
														 bf_real_from_u64(m))));
}

bool
bf_auto_holds(uint64_t m, uint32_t k, uint64_t bits_set, double p)
{
	return auto_holds(m, k, bits_set, auto_rate_bound(p));
}

/* Remembers the last p, as bf_optimal_shape does (a state is made per group). */
bf_status
bf_auto_shape(double p, uint32_t *k, uint64_t *sketch_m)
{
	static double last_p = 0.0;	/* 0: none yet */
	static uint32_t last_k;
	static uint64_t last_sketch_m;
	bf_real		rate;
	uint64_t	probes;
	bf_real		per_probe;
	bf_real		bits_per_value;
	bf_real		bits;
	uint64_t	power = 1;

	*k = 0;
	*sketch_m = 0;
	if (!(p > 0.0 && p < 1.0))
		return BF_FALSE_POSITIVE_RATE_RANGE;
	if (p == last_p)
	{
		*k = last_k;
		*sketch_m = last_sketch_m;
		return BF_OK;
	}
	/* k = max(1, round(log2(1/p))) */
	rate = bf_real_from_double(p);
	probes = bf_real_to_u64(bf_real_round(bf_real_div(bf_real_neg(bf_real_log(rate)),
													  bf_real_ln2)));
	if (probes < 1)
		probes = 1;
	*k = (uint32_t) probes;		/* at most 1075 for any double p > 0 */
	if (probes > BLOOM_K_MAX)
		return BF_K_RANGE;

	/* m/n at which the expected rate is the bound: -k / ln(1 - bound^(1/k)) */
	per_probe = bf_real_exp(bf_real_div(bf_real_log(auto_rate_bound(p)), bf_real_from_u64(probes)));
	bits_per_value = bf_real_div(bf_real_from_u64(probes),
								 bf_real_neg(bf_real_log1p(bf_real_neg(per_probe))));
	bits = bf_real_mul(bits_per_value, bf_real_from_u64(BF_AUTO_GUARANTEED_CAPACITY));
	while (bf_real_lt(bf_real_from_u64(5 * power), bits))
		power <<= 1;
	*sketch_m = 15 * power;
	last_p = p;
	last_k = *k;
	last_sketch_m = *sketch_m;
	return BF_OK;
}

/* ---- the hash set ---- */

bool
bf_hashset_add(bf_hashset *set, bf_hash hash)
{
	uint64_t	mask = set->capacity - 1;
	uint64_t	slot;

	if (hash.h1 == 0 && hash.h2 == 0)
	{
		if (set->has_zero)
			return false;
		set->has_zero = true;
		set->count++;
		return true;
	}
	for (slot = hash.h1 & mask;; slot = (slot + 1) & mask)
	{
		bf_hash    *entry = &set->slots[slot];

		if (entry->h1 == hash.h1 && entry->h2 == hash.h2)
			return false;
		if (entry->h1 == 0 && entry->h2 == 0)
		{
			*entry = hash;
			set->count++;
			return true;
		}
	}
}

bool
bf_hashset_next(const bf_hashset *set, bf_hashset_iter *iter, bf_hash *hash)
{
	if (!iter->zero_done)
	{
		iter->zero_done = true;
		if (set->has_zero)
		{
			hash->h1 = 0;
			hash->h2 = 0;
			return true;
		}
	}
	while (iter->slot < set->capacity)
	{
		const bf_hash *entry = &set->slots[iter->slot++];

		if (entry->h1 != 0 || entry->h2 != 0)
		{
			*hash = *entry;
			return true;
		}
	}
	return false;
}

void
bf_hashset_move(const bf_hashset *from, bf_hashset *to)
{
	bf_hashset_iter iter = {0, false};
	bf_hash		hash;

	while (bf_hashset_next(from, &iter, &hash))
		bf_hashset_add(to, hash);
}

/* ---- the exact phase ---- */

/*
 * The exact phase's two searches (the largest m, and the first candidate)
 * depend only on p, k, n and a limit, and an aggregate of many small groups
 * asks for the same few over and over: for n < AUTO_MEMO_SIZE the last
 * answer for each n is kept.
 */
#define AUTO_MEMO_SIZE 256

typedef struct auto_memo
{
	double		p;
	uint64_t	limit;
	uint64_t	answer;
	uint32_t	k;				/* 0: nothing kept */
} auto_memo;

static auto_memo auto_max_memo[AUTO_MEMO_SIZE];
static auto_memo auto_first_memo[AUTO_MEMO_SIZE];

static bool
auto_memo_find(const auto_memo *memo, double p, uint32_t k, uint64_t n, uint64_t limit,
			   uint64_t *answer)
{
	if (n >= AUTO_MEMO_SIZE || memo[n].k != k || memo[n].p != p || memo[n].limit != limit)
		return false;
	*answer = memo[n].answer;
	return true;
}

static uint64_t
auto_memo_keep(auto_memo *memo, double p, uint32_t k, uint64_t n, uint64_t limit,
			   uint64_t answer)
{
	if (n < AUTO_MEMO_SIZE)
	{
		memo[n].p = p;
		memo[n].limit = limit;
		memo[n].answer = answer;
		memo[n].k = k;
	}
	return answer;
}

/*
 * The first ladder m from the optimal m for max(n, 1) on where even X = kn
 * (n values setting k bits each, none shared) meets the bound, or 0 if that
 * is beyond limit_m.
 */
uint64_t
bf_auto_exact_max_m(uint64_t n, double p, uint32_t k, uint64_t limit_m)
{
	uint64_t	m = 0;
	uint32_t	optimal_k;
	bf_real		bound = auto_rate_bound(p);
	uint64_t	most = n > UINT64_MAX / k ? UINT64_MAX : k * n;	/* X <= kn */

	if (auto_memo_find(auto_max_memo, p, k, n, limit_m, &m))
		return m;
	(void) bf_optimal_shape(p, n > 0 ? (int64_t) n : 1, &m, &optimal_k);
	for (m = auto_exact_ceil(m); m <= limit_m; m = auto_exact_next(m))
	{
		bf_real		fill = most < m ? bf_real_div(bf_real_from_u64(most), bf_real_from_u64(m))
			: bf_real_from_u64(1);

		if (bf_real_le(auto_rate(m, k, fill), bound))
			return auto_memo_keep(auto_max_memo, p, k, n, limit_m, m);
	}
	return auto_memo_keep(auto_max_memo, p, k, n, limit_m, 0);
}

uint64_t
bf_auto_choose_exact(const bf_hashset *set, double p, uint32_t k, uint64_t max_m,
					 uint8_t *bits)
{
	uint64_t	n = set->count;
	uint64_t	m = 0;
	uint32_t	optimal_k;
	bf_real		bound = auto_rate_bound(p);

	/* the first candidate: the first m whose expected rate meets the bound */
	if (!auto_memo_find(auto_first_memo, p, k, n, max_m, &m))
	{
		(void) bf_optimal_shape(p, n > 0 ? (int64_t) n : 1, &m, &optimal_k);
		m = auto_exact_ceil(m);
		while (m < max_m && bf_real_lt(bound, auto_expected_rate(bf_real_from_u64(n), m, k)))
			m = auto_exact_next(m);
		auto_memo_keep(auto_first_memo, p, k, n, max_m, m);
	}
	for (;; m = auto_exact_next(m))
	{
		size_t		nbytes = (size_t) bloom_payload_bytes(m);
		bf_hashset_iter iter = {0, false};
		bf_hash		hash;

		memset(bits, 0, nbytes);
		while (bf_hashset_next(set, &iter, &hash))
			bf_add_hash(bits, m, k, hash);
		if (m >= max_m || auto_holds(m, k, bf_popcount(bits, nbytes), bound))
			return m;
	}
}

/* ---- the sketch phase ---- */

uint64_t
bf_auto_ladder_next(uint64_t sketch_m, uint64_t m)
{
	uint64_t	odd = sketch_m;
	uint64_t	best = 0;

	while (odd % 2 == 0)
		odd /= 2;
	for (uint64_t d = 1; d <= odd; d += 2)
	{
		uint64_t	size;

		if (odd % d != 0 || sketch_m / d <= m)
			continue;
		/* halve while the result stays an exact divisor above m */
		for (size = sketch_m / d; size % 2 == 0 && size / 2 > m; size /= 2)
			;
		if (best == 0 || size < best)
			best = size;
	}
	return best;
}

/* The first candidate: the size the estimate of n predicts; 0 when the sketch is full. */
static uint64_t
auto_sketch_first(const uint8_t *bits, uint64_t sketch_m, uint32_t k, double p)
{
	uint64_t	bits_set = bf_popcount(bits, (size_t) bloom_payload_bytes(sketch_m));
	bf_real		bound = auto_rate_bound(p);
	bf_real		n;
	uint64_t	m;

	if (bits_set >= sketch_m)
		return 0;
	/* the Swamidass-Baldi estimate, -(M/k) ln(1 - X/M) */
	n = bf_real_log1p(bf_real_neg(bf_real_div(bf_real_from_u64(bits_set),
											  bf_real_from_u64(sketch_m))));
	n = bf_real_neg(bf_real_mul(bf_real_div(bf_real_from_u64(sketch_m), bf_real_from_u64(k)), n));
	/* the first size whose expected rate for that estimate meets the bound */
	for (m = bf_auto_ladder_next(sketch_m, 0);
		 m != 0 && m < sketch_m && bf_real_lt(bound, auto_expected_rate(n, m, k));
		 m = bf_auto_ladder_next(sketch_m, m))
		;
	return m;
}

/*
 * From the first candidate on, until one meets the bound.  Without room,
 * each candidate's bits are counted without building it; with room, each is
 * folded into the memory room(m, arg) gives and counted there, so the one
 * that meets the bound is there on return, folded once.
 */
static uint64_t
auto_search_sketch(const uint8_t *bits, uint64_t sketch_m, uint32_t k, double p,
				   bf_fold_room room, void *arg)
{
	bf_real		bound = auto_rate_bound(p);
	uint64_t	m;

	for (m = auto_sketch_first(bits, sketch_m, k, p); m != 0;
		 m = bf_auto_ladder_next(sketch_m, m))
	{
		uint64_t	bits_set;

		if (room == NULL)
			bits_set = bf_fold_popcount(bits, sketch_m, m);
		else
		{
			uint8_t    *folded = room(m, arg);

			bf_fold(bits, sketch_m, folded, m);
			bits_set = bf_popcount(folded, (size_t) bloom_payload_bytes(m));
		}
		if (auto_holds(m, k, bits_set, bound))
			return m;
	}
	return 0;
}

uint64_t
bf_auto_choose_sketch(const uint8_t *bits, uint64_t sketch_m, uint32_t k, double p)
{
	return auto_search_sketch(bits, sketch_m, k, p, NULL, NULL);
}

uint64_t
bf_auto_fold_sketch(const uint8_t *bits, uint64_t sketch_m, uint32_t k, double p,
					bf_fold_room room, void *arg)
{
	return auto_search_sketch(bits, sketch_m, k, p, room, arg);
}
