/*
 * core.c: sizing, hashing to bit positions, whole-array operations and
 * estimates for bloom filters.
 *
 * Plain C with no PostgreSQL headers, so that test/ can unit-test and fuzz
 * it without a server.  The serialized forms live in codec.c.
 *
 * A bloom filter (Bloom 1970) represents a set of n values by an array of m
 * bits and k hash functions onto [0, m).  Adding a value sets its k bits; a
 * lookup answers "maybe present" when all k bits are set and "certainly
 * absent" otherwise.  There are no false negatives.
 *
 *
 * sizing
 * ------
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
 * and k = 7.  bf_optimal_shape computes this in double precision and
 * refuses k > BLOOM_K_MAX (p below about 4e-20) and m > BLOOM_M_MAX (a
 * filter that would not fit in PostgreSQL's 1 GB value limit).
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
 * unit tests hold the implementation to.  bf_expected_false_positive_rate
 * and bf_goel_gupta_bound compute the two (SQL: bloom_expected_fpr), with
 * -expm1(-x) for 1 - e^(-x), which keeps its digits when x is small.
 *
 *
 * hashing scheme (BLOOM_HASH_XXH3_EDH)
 * ------------------------------------
 *
 * The SQL layer turns each value into canonical bytes, the same on every
 * platform for equal values.  They are hashed once with XXH3-128; h1 is the
 * low and h2 the high 64 bits.  Kirsch and Mitzenmacher (2006, "Less
 * hashing, same performance") show that k positions derived from two hashes
 * give the same asymptotic false-positive rate as k independent hashes.
 * We use enhanced double hashing (Dillinger and Manolios 2004), which adds
 * a cubic term to h1 + i*h2, but do the arithmetic modulo 2^64 rather than
 * modulo m, and only then map onto [0, m):
 *
 *     g_i = h1 + i*h2 + (i^3 - i)/6   (mod 2^64),   i = 0 .. k-1
 *     position_i = floor(g_i * m / 2^64)
 *
 * g_i is computed incrementally, x += y; y += i + 1 (bf_add_hash in core.h):
 * the differences of (i^3 - i)/6 are the triangular numbers.
 *
 * The mapping is multiply-shift (Lemire 2019, "Fast random integer
 * generation in an interval"): one multiplication instead of a 64-bit
 * division, for any m, not only powers of two or primes.  It keeps the high
 * bits of g_i, and hits each position with a probability within 2^-64 of
 * 1/m.  Nothing is truncated to 32 bits, so all of the up to BLOOM_M_MAX
 * (about 2^33) bits are reachable.
 *
 * Modulo m, double hashing degenerates when h2 is 0 or shares a factor with
 * m (the probes cycle over a few positions), which is what the cubic term
 * was introduced to break.  Modulo 2^64 the failure depends on h2 alone:
 * probes i < j of one value meet only when (j - i)*h2 falls within 2^64/m
 * of a multiple of 2^64 (h2 = 0 is one such case), which has probability
 * about 2/m per pair, the same as for independent hashes.  The cubic term,
 * at most 41664 for k = 64, is small beside the 2^64/m values that map to
 * one bit, so here it changes little; it is kept because it costs one
 * addition and makes the scheme the published one.
 *
 * A filter records its scheme in the header; a later scheme gets a new
 * number and old filters keep working.
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
 *
 * bit layout
 * ----------
 *
 * Bit i is in byte i / 8 under mask 1 << (i % 8) (see bloom.h).  A probe
 * touches exactly one byte, so it needs no alignment, which matters because
 * a datum with a short varlena header is not aligned at all.  The layout
 * does not depend on the machine's byte order, so the text and binary forms
 * carry the array unchanged.  It is also the layout of little-endian 64-bit
 * words, and the whole-array operations below load 8 bytes at a time through
 * memcpy (a plain unaligned load on the usual machines, which the compiler
 * can vectorize): OR, AND and popcount do not care about the order of bits
 * within a word.
 */
#include "core.h"

#include <math.h>

/* ln 2; M_LN2 is not in ISO C. */
#define BF_LN2 0.693147180559945309417232121458176568

void		(*bf_interrupt_hook) (void) = NULL;

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
			return "The filter uses an unknown hash scheme; this build knows hash scheme 1 only.";
		case BF_FLAGS:
			return "The filter's reserved flags are not zero.";
		case BF_LENGTH:
			return "The length of the bit array does not match m: it must be m rounded up to a whole number of 64-bit words.";
		case BF_PADDING_BITS:
			return "A bit at a position at or beyond m is set; the padding bits after position m - 1 must be zero.";
		case BF_SYNTAX:
			return "The text form must be bloom:v<format>:h<scheme>:m<bits>:k<probes>:<base64 bits>, with decimal numbers that have no sign and no leading zeros.";
		case BF_BASE64:
			return "The bit array is not canonical base64: only A-Z, a-z, 0-9, + and / are allowed, with = padding to a multiple of 4 characters and zero unused bits in the last character.";
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

/*
 * k depends (almost) only on p, so BF_K_RANGE is reported before
 * BF_TOO_LARGE: a rate below about 1e-19 is refused whatever the capacity.
 */
bf_status
bf_optimal_shape(double p, int64_t n, uint64_t *m, uint32_t *k)
{
	double		bits;
	double		probes;

	*m = 0;
	*k = 0;
	/* Written so that NaN fails too. */
	if (!(p > 0.0 && p < 1.0))
		return BF_FALSE_POSITIVE_RATE_RANGE;
	if (n < 1)
		return BF_CAPACITY_RANGE;

	bits = ceil(-(double) n * log(p) / (BF_LN2 * BF_LN2));
	probes = round(bits / (double) n * BF_LN2);
	if (probes < 1.0)
		probes = 1.0;

	/* Converting a double beyond the target's range is undefined: clamp. */
	*m = bits >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t) bits;
	*k = probes >= 4294967295.0 ? UINT32_MAX : (uint32_t) probes;

	if (probes > BLOOM_K_MAX)
		return BF_K_RANGE;
	if (bits > (double) BLOOM_M_MAX)
		return BF_TOO_LARGE;
	return BF_OK;
}

bf_status
bf_check_header(const BloomHeader *header)
{
	if (header->format_version != BLOOM_FORMAT_VERSION)
		return BF_FORMAT_VERSION;
	if (header->hash_scheme != BLOOM_HASH_XXH3_EDH)
		return BF_HASH_SCHEME;
	if (header->k < BLOOM_K_MIN || header->k > BLOOM_K_MAX)
		return BF_K_RANGE;
	if (header->flags != 0)
		return BF_FLAGS;
	if (header->m < 1)
		return BF_M_RANGE;
	if (header->m > BLOOM_M_MAX)
		return BF_TOO_LARGE;
	return BF_OK;
}

bf_status
bf_check_bits(const BloomHeader *header, const uint8_t *bits, size_t nbytes)
{
	uint64_t	m = header->m;
	uint64_t	first_padding_byte;

	/* Callers check the header first; an unchecked m must not overflow. */
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

/* ---- hashing ---- */

void
bf_probe_positions(bf_hash hash, uint64_t m, uint32_t k, uint64_t *positions)
{
	uint64_t	x = hash.h1;
	uint64_t	y = hash.h2;

	for (uint32_t i = 0; i < k; i++)
	{
		positions[i] = bf_reduce(x, m);
		x += y;
		y += i + 1;
	}
}

void
bf_adder_init(bf_adder *adder, uint8_t *bits, uint64_t m, uint32_t k)
{
	adder->bits = bits;
	adder->m = m;
	adder->k = k;
	adder->pending = 0;
	adder->next = 0;
	adder->pipelined = bloom_payload_bytes(m) >= BF_ADDER_MIN_BYTES;
}

/* Set the bits of every pending value, oldest first (any order would do). */
void
bf_adder_flush(bf_adder *adder)
{
	uint32_t	slot = (adder->next - adder->pending) & (BF_ADDER_DEPTH - 1);

	for (; adder->pending > 0; adder->pending--)
	{
		bf_adder_set_slot(adder, slot);
		slot = (slot + 1) & (BF_ADDER_DEPTH - 1);
	}
	adder->next = 0;
}

/* ---- whole-array operations ---- */

/*
 * Each operation is an outer loop over strides of BF_INTERRUPT_STRIDE bytes,
 * calling the interrupt hook between them, around a tight inner loop over
 * 64-bit words that the compiler can unroll and vectorize.  nbytes is a
 * multiple of 8 for every filter; a stray tail is handled bytewise anyway,
 * so that no input makes a loop read past the end.
 */
#define BF_STRIDE_WORDS (BF_INTERRUPT_STRIDE / 8)

static inline uint64_t
load_word(const uint8_t *p)
{
	uint64_t	word;

	memcpy(&word, p, sizeof(word));
	return word;
}

static inline void
store_word(uint8_t *p, uint64_t word)
{
	memcpy(p, &word, sizeof(word));
}

static inline void
check_interrupts(void)
{
	if (bf_interrupt_hook != NULL)
		bf_interrupt_hook();
}

/*
 * Without a popcount instruction in the baseline ISA, __builtin_popcountll
 * becomes a libgcc call.  On x86-64 compile the popcount loops twice, once
 * for CPUs with POPCNT, and pick one at run time.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__POPCNT__)
#define BF_POPCNT_DISPATCH 1
#endif

/* The kernels are inlined into each variant, so each gets its own code. */
#ifdef __GNUC__
#define BF_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define BF_ALWAYS_INLINE inline
#endif

static BF_ALWAYS_INLINE uint64_t
popcount_words(const uint8_t *a, size_t nwords)
{
	uint64_t	count = 0;

	for (size_t i = 0; i < nwords; i++)
		count += (uint64_t) __builtin_popcountll(load_word(a + 8 * i));
	return count;
}

static BF_ALWAYS_INLINE uint64_t
popcount_or_words(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	uint64_t	count = 0;

	for (size_t i = 0; i < nwords; i++)
		count += (uint64_t) __builtin_popcountll(load_word(a + 8 * i) |
												 load_word(b + 8 * i));
	return count;
}

static uint64_t
popcount_words_generic(const uint8_t *a, size_t nwords)
{
	return popcount_words(a, nwords);
}

static uint64_t
popcount_or_words_generic(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	return popcount_or_words(a, b, nwords);
}

#ifdef BF_POPCNT_DISPATCH
__attribute__((target("popcnt")))
static uint64_t
popcount_words_popcnt(const uint8_t *a, size_t nwords)
{
	return popcount_words(a, nwords);
}

__attribute__((target("popcnt")))
static uint64_t
popcount_or_words_popcnt(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	return popcount_or_words(a, b, nwords);
}

static bool
have_popcnt(void)
{
	static int	known = -1;

	if (known < 0)
	{
		__builtin_cpu_init();
		known = __builtin_cpu_supports("popcnt") ? 1 : 0;
	}
	return known == 1;
}
#endif

static uint64_t
popcount_stride(const uint8_t *a, size_t nwords)
{
#ifdef BF_POPCNT_DISPATCH
	if (have_popcnt())
		return popcount_words_popcnt(a, nwords);
#endif
	return popcount_words_generic(a, nwords);
}

static uint64_t
popcount_or_stride(const uint8_t *a, const uint8_t *b, size_t nwords)
{
#ifdef BF_POPCNT_DISPATCH
	if (have_popcnt())
		return popcount_or_words_popcnt(a, b, nwords);
#endif
	return popcount_or_words_generic(a, b, nwords);
}

/* popcount(a), or popcount(a | b) when b is not NULL, a stride at a time. */
static uint64_t
popcount_strides(const uint8_t *a, const uint8_t *b, size_t nbytes)
{
	size_t		nwords = nbytes / 8;
	uint64_t	count = 0;

	for (size_t start = 0; start < nwords; start += BF_STRIDE_WORDS)
	{
		size_t		n = nwords - start < BF_STRIDE_WORDS ? nwords - start : BF_STRIDE_WORDS;

		if (start > 0)
			check_interrupts();
		if (b != NULL)
			count += popcount_or_stride(a + 8 * start, b + 8 * start, n);
		else
			count += popcount_stride(a + 8 * start, n);
	}
	for (size_t i = nwords * 8; i < nbytes; i++)
		count += (uint64_t) __builtin_popcount(b != NULL ? a[i] | b[i] : a[i]);
	return count;
}

uint64_t
bf_popcount(const uint8_t *bits, size_t nbytes)
{
	return popcount_strides(bits, NULL, nbytes);
}

uint64_t
bf_popcount_or(const uint8_t *a, const uint8_t *b, size_t nbytes)
{
	return popcount_strides(a, b, nbytes);
}

/*
 * dst = a | b and dst = a & b, word by word; dst may be a (in place), and
 * need not be initialized.  One pass over the three arrays: a new union is
 * not a copy of a followed by a second pass that ORs b into it.
 */
static BF_ALWAYS_INLINE void
combine_words(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t nbytes, bool is_or)
{
	size_t		nwords = nbytes / 8;

	for (size_t start = 0; start < nwords; start += BF_STRIDE_WORDS)
	{
		size_t		end = nwords - start < BF_STRIDE_WORDS ? nwords : start + BF_STRIDE_WORDS;

		if (start > 0)
			check_interrupts();
		for (size_t i = start; i < end; i++)
		{
			uint64_t	x = load_word(a + 8 * i);
			uint64_t	y = load_word(b + 8 * i);

			store_word(dst + 8 * i, is_or ? x | y : x & y);
		}
	}
	for (size_t i = nwords * 8; i < nbytes; i++)
		dst[i] = is_or ? a[i] | b[i] : a[i] & b[i];
}

void
bf_or(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t nbytes)
{
	combine_words(dst, a, b, nbytes, true);
}

void
bf_and(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t nbytes)
{
	combine_words(dst, a, b, nbytes, false);
}

/* ---- estimates ---- */

double
bf_estimate_cardinality(uint64_t m, uint32_t k, uint64_t bits_set)
{
	if (m == 0 || k == 0)
		return NAN;
	if (bits_set == 0)
		return 0.0;
	if (bits_set >= m)
		return INFINITY;
	return -((double) m / (double) k) * log1p(-((double) bits_set / (double) m));
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
