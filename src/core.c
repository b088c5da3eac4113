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
 * probes i < j of one value meet when (j - i)*h2 falls within 2^64/m of a
 * multiple of 2^64 (h2 = 0 is one such case).  Unlike independent hashes,
 * the probes of such a value are not merely one bit short: they all fall
 * on a run of a few neighbouring bits, which a filter at half fill has all
 * set far more often than k scattered bits.  This happens with probability
 * about 2/(k m) per value, so it adds a floor of roughly 1/(k m) to the
 * false-positive rate that does not shrink as p does.  Kirsch and
 * Mitzenmacher's result is asymptotic in m; at the sizes people use (p =
 * 0.01 and thousands of values or more, m >= 10^4) the floor is below 1% of
 * p, but it dominates tiny filters and very small p: bloom_empty(0.01, 1)
 * (10 bits) lets about 9% through, and a filter of 1,000 values at p = 1e-6
 * about 6e-6 (measured; the self-sizing aggregate accounts for it, see
 * "Holding the target" below).  It is part of scheme 1 and cannot change
 * under it; a later scheme could derive the probes from more hash bits.
 * The cubic term, at most 41664 for k = 64, is small beside the 2^64/m
 * values that map to one bit, so here it changes little; it is kept because
 * it costs one addition and makes the scheme the published one.
 *
 * A filter records its scheme in the header; a later scheme gets a new
 * number and old filters keep working.
 *
 *
 * blocked filters (BLOOM_HASH_XXH3_BLOCKED, scheme 2)
 * ---------------------------------------------------
 *
 * Under scheme 1 a value's k probes land on k random cache lines.  In a
 * filter larger than the CPU cache each is a miss, and building a 12 MB
 * filter from a table scan spends most of its time waiting for them (7
 * random line writes per row at p = 0.01).  Scheme 2 (Putze, Sanders and
 * Singler 2007, "Cache-, hash- and space-efficient Bloom filters") splits
 * the m bits into m/512 blocks of one 64-byte line each, and puts all k
 * probes of a value in one block:
 *
 *     block = floor(h1 * (m/512) / 2^64)
 *     probe i = block * 512 + field i of w_(i/7),  fields of 9 bits
 *     w_0 = h2,  w_j = fmix64(h2 + j * 0x9e3779b97f4a7c15) for j >= 1
 *
 * h1 picks the block by the same multiply-shift as scheme 1; the probes
 * inside it are independent 9-bit fields (seven to a 64-bit word, so k <= 7
 * uses h2 alone), which leaves no coinciding-probe floor like double
 * hashing's above.  fmix64 is MurmurHash3's 64-bit finalizer, a bijection.
 *
 * The price is accuracy: blocks get different numbers of values (Poisson
 * with mean lambda = n / (m/512)), and the fuller ones let more through.
 * A block holding j values has each bit still zero with probability
 * q^j, q = (1 - 1/512)^k, so
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
 * The estimate of n inverts the expected fill the same way: a value sets
 * on average 512 (1 - q) bits of its block, so
 *
 *     E[X] = m (1 - e^(-n (1 - q) 512 / m)),  n* = -(m / (512 (1 - q))) ln(1 - X/m)
 *
 * which is Swamidass-Baldi with k replaced by 512 (1 - q), about
 * k (1 - (k - 1)/1024).  The rate of a built filter is the mean over
 * blocks of (bits set in the block / 512)^k, exactly, rather than (X/m)^k,
 * which would understate it (bf_filter_false_positive_rate).
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
 * So every decision is made in bf_real (real.c): floating point with a
 * 64-bit mantissa done with integer operations, with its own log, log1p,
 * exp, expm1 and sqrt, which gives the same bits everywhere, within a few
 * units of 2^-64 of the exact values.  The decisions are those of the
 * formulas, exactly, except within about 1e-18 of a boundary, where they
 * are still the same on every machine.  Doubles only report (estimates,
 * rates) and guide searches whose answer they do not decide: the blocked
 * shape's bisection gives a guess that bf_real checks and corrects.  On
 * x86-64 the shapes are the earlier double code's, except where that code
 * was off by one at a boundary itself (within a few 1e-16 of it: such
 * rates have to be constructed; test/unit.c pins some).
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
 * within a word.  Folding does (it ORs runs of neighbouring bits), so it
 * reads and writes its words as little-endian ones (load_le_word), and a
 * big-endian machine folds to the same bytes.  test/unit.c pins the bytes
 * of filters built by every path (bf_add, the adder, OR and AND, folds,
 * self-sizing) with digests computed on x86-64.
 */
#include "core.h"

#include <math.h>

#include "real.h"

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
 * Computing the shape in bf_real takes a few microseconds, so the last one
 * is remembered (a query may ask for the same one on every row).
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

	/* both saturate rather than wrap */
	*m = bf_real_to_u64(bits);
	*k = probes >= UINT32_MAX ? UINT32_MAX : (uint32_t) probes;
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
bf_probe_positions(bf_hash hash, uint64_t m, uint32_t k, uint8_t scheme,
				   uint64_t *positions)
{
	uint64_t	x = hash.h1;
	uint64_t	y = hash.h2;

	if (scheme == BLOOM_HASH_XXH3_BLOCKED)
	{
		uint64_t	first = bf_block_offset(hash.h1, m) * 8;
		uint32_t	i = 0;

		for (uint32_t j = 0; i < k; j++)
		{
			uint64_t	w = bf_block_word(hash.h2, j);

			for (uint32_t f = 0; f < BF_BLOCK_FIELDS && i < k; f++, i++, w >>= 9)
				positions[i] = first + (w & 511);
		}
		return;
	}
	for (uint32_t i = 0; i < k; i++)
	{
		positions[i] = bf_reduce(x, m);
		x += y;
		y += i + 1;
	}
}

void
bf_adder_init(bf_adder *adder, uint8_t *bits, uint64_t m, uint32_t k, uint8_t scheme)
{
	adder->bits = bits;
	adder->m = m;
	adder->k = k;
	adder->scheme = scheme;
	adder->misaligned = ((uintptr_t) bits & (BF_BLOCK_BYTES - 1)) != 0;
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

/*
 * Eight bytes as a word in the machine's order: for OR, AND and popcount,
 * which treat every bit alike, the order of the bits within a word does
 * not matter.
 */
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

/*
 * Eight bytes as a little-endian word: bit i of the word is bit i of the
 * layout (bloom.h).  Whatever shifts or masks bits by position (folding)
 * goes through these, so that a big-endian machine computes the same
 * bytes; there the compiler turns the byte loops into a byte-reversed load
 * or store.
 */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define load_le_word load_word
#define store_le_word store_word
#else
static inline uint64_t
load_le_word(const uint8_t *p)
{
	uint64_t	word = 0;

	for (int i = 7; i >= 0; i--)
		word = word << 8 | p[i];
	return word;
}

static inline void
store_le_word(uint8_t *p, uint64_t word)
{
	for (int i = 0; i < 8; i++, word >>= 8)
		p[i] = (uint8_t) word;
}
#endif

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
		count[popcount_stride(bits + b * BF_BLOCK_BYTES, BF_BLOCK_BYTES / 8)]++;
		if ((b + 1) % (BF_INTERRUPT_STRIDE / BF_BLOCK_BYTES) == 0)
			check_interrupts();
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

			if (blocked_rate(mid, probes) <= p)
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
 * The blocked shape takes a few milliseconds to find, so the last one is
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

/* ---- self-sizing filters ----
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
 * bit the one built directly at m' (test/unit.c checks it).
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
	*k = probes >= UINT32_MAX ? UINT32_MAX : (uint32_t) probes;
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
 * The first ladder m from the optimal m for max(n, 1) on where even X = kn
 * (n values setting k bits each, none shared) meets the bound, or 0 if that
 * is beyond limit_m.
 */
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

/* ---- folding ---- */

/*
 * How a fold by f = odd * 2^shift is computed.  Output word w depends on the
 * f source words from f*w on (64 f bits): they are first folded by 2^shift
 * into odd "middle" words, a word at a time (squeeze_word), then each run
 * of odd bits of those is ORed into one output bit.  Eight output bits come
 * from odd whole middle bytes, so that step is odd table lookups per output
 * byte: odd_table[t][v] holds the output bits that byte value v sets when
 * it is byte t of the run.  An odd part above 63 goes bit by bit.
 */
#define BF_FOLD_TABLE_ODD 63

typedef struct fold_plan
{
	uint64_t	factor;
	uint64_t	odd;
	unsigned	shift;
	const uint8_t *src;
	uint64_t	src_m;
	uint64_t	src_words;
	/* squeeze_word: after ORing runs, pack bits 2^shift apart */
	unsigned	pack_steps;
	unsigned	pack_shift[6];
	uint64_t	pack_mask[6];
	uint64_t	run_mask;
	uint8_t		odd_table[BF_FOLD_TABLE_ODD][256];
} fold_plan;

static void
fold_plan_init(fold_plan *plan, const uint8_t *src, uint64_t src_m, uint64_t dst_m)
{
	uint64_t	spacing;
	uint64_t	group;

	plan->factor = src_m / dst_m;
	plan->odd = plan->factor;
	plan->shift = 0;
	while (plan->odd % 2 == 0)
	{
		plan->odd /= 2;
		plan->shift++;
	}
	plan->src = src;
	plan->src_m = src_m;
	plan->src_words = bloom_payload_bytes(src_m) / 8;

	/*
	 * Packing bits that are spacing apart: merge pairs of groups of size
	 * group, doubling both, until the groups are whole (group * 64 / spacing
	 * bits at the bottom).
	 */
	plan->pack_steps = 0;
	plan->run_mask = 0;
	if (plan->shift >= 1 && plan->shift <= 6)
	{
		for (uint64_t bit = 0; bit < 64; bit += UINT64_C(1) << plan->shift)
			plan->run_mask |= UINT64_C(1) << bit;
		for (spacing = UINT64_C(1) << plan->shift, group = 1; spacing < 64;
			 spacing *= 2, group *= 2)
		{
			uint64_t	mask = 0;

			for (uint64_t start = 0; start < 64; start += 2 * spacing)
				mask |= ((UINT64_C(1) << (2 * group)) - 1) << start;
			plan->pack_shift[plan->pack_steps] = (unsigned) (spacing - group);
			plan->pack_mask[plan->pack_steps] = mask;
			plan->pack_steps++;
		}
	}

	if (plan->odd > 1 && plan->odd <= BF_FOLD_TABLE_ODD)
		for (uint64_t t = 0; t < plan->odd; t++)
			for (unsigned v = 0; v < 256; v++)
			{
				uint8_t		out = 0;

				for (unsigned i = 0; i < 8; i++)
					if (v & (1u << i))
						out |= (uint8_t) (1u << ((8 * t + i) / plan->odd));
				plan->odd_table[t][v] = out;
			}
}

/* Word index of the source; words past the end read as zero. */
static inline uint64_t
fold_load(const fold_plan *plan, uint64_t index)
{
	return index < plan->src_words ? load_le_word(plan->src + 8 * index) : 0;
}

/* Whether any source bit in [from, from + count) is set. */
static bool
fold_any_bit(const fold_plan *plan, uint64_t from, uint64_t count)
{
	uint64_t	to = from + count;

	if (to > plan->src_m)
		to = plan->src_m;
	while (from < to)
	{
		uint64_t	word = fold_load(plan, from >> 6) >> (from & 63);
		uint64_t	span = 64 - (from & 63);

		if (span > to - from)
		{
			span = to - from;
			word &= (UINT64_C(1) << span) - 1;
		}
		if (word != 0)
			return true;
		from += span;
	}
	return false;
}

/* OR each run of 2^shift bits of x (shift 1..6) into one bit, packed at the bottom. */
static inline uint64_t
squeeze_word(const fold_plan *plan, uint64_t x)
{
	for (unsigned r = 0; r < plan->shift; r++)
		x |= x >> (1u << r);
	x &= plan->run_mask;
	for (unsigned step = 0; step < plan->pack_steps; step++)
		x = (x | (x >> plan->pack_shift[step])) & plan->pack_mask[step];
	return x;
}

/* The 2^shift source words from index first on, folded into one word. */
static inline uint64_t
fold_pow2_word(const fold_plan *plan, uint64_t first)
{
	unsigned	shift = plan->shift;
	uint64_t	out = 0;

	if (shift == 0)
		return fold_load(plan, first);
	if (shift <= 6)
	{
		unsigned	width = 64u >> shift;

		for (uint64_t t = 0; t < (UINT64_C(1) << shift); t++)
			out |= squeeze_word(plan, fold_load(plan, first + t)) << (t * width);
		return out;
	}
	for (unsigned b = 0; b < 64; b++)
	{
		uint64_t	run = UINT64_C(1) << (shift - 6);
		uint64_t	any = 0;

		for (uint64_t t = 0; t < run; t++)
			any |= fold_load(plan, first + b * run + t);
		out |= (uint64_t) (any != 0) << b;
	}
	return out;
}

/* Output word w of the fold. */
static inline uint64_t
fold_word(const fold_plan *plan, uint64_t w)
{
	uint64_t	middle[BF_FOLD_TABLE_ODD];
	uint64_t	out = 0;
	uint64_t	odd = plan->odd;

	if (odd > BF_FOLD_TABLE_ODD)
	{
		for (unsigned b = 0; b < 64; b++)
			if (fold_any_bit(plan, (64 * w + b) * plan->factor, plan->factor))
				out |= UINT64_C(1) << b;
		return out;
	}
	for (uint64_t t = 0; t < odd; t++)
		middle[t] = fold_pow2_word(plan, (w * odd + t) << plan->shift);
	if (odd == 1)
		return middle[0];
	/* output byte j: middle bytes odd*j .. odd*j + odd - 1 */
	for (unsigned j = 0, byte = 0; j < 8; j++)
	{
		unsigned	out_byte = 0;

		for (uint64_t t = 0; t < odd; t++, byte++)
			out_byte |= plan->odd_table[t][(middle[byte >> 3] >> (8 * (byte & 7))) & 0xff];
		out |= (uint64_t) out_byte << (8 * j);
	}
	return out;
}

void
bf_fold(const uint8_t *src, uint64_t src_m, uint8_t *dst, uint64_t dst_m)
{
	fold_plan	plan;
	uint64_t	dst_words = bloom_payload_bytes(dst_m) / 8;

	fold_plan_init(&plan, src, src_m, dst_m);
	for (uint64_t w = 0; w < dst_words; w++)
	{
		if (w % BF_STRIDE_WORDS == BF_STRIDE_WORDS - 1)
			check_interrupts();
		store_le_word(dst + 8 * w, fold_word(&plan, w));
	}
}

uint64_t
bf_fold_popcount(const uint8_t *src, uint64_t src_m, uint64_t dst_m)
{
	fold_plan	plan;
	uint64_t	dst_words = bloom_payload_bytes(dst_m) / 8;
	uint64_t	count = 0;
	uint8_t		buffer[8 * 512];

	fold_plan_init(&plan, src, src_m, dst_m);
	/* fold a block at a time into buffer, and count it with bf_popcount's kernel */
	for (uint64_t start = 0; start < dst_words; start += 512)
	{
		uint64_t	n = dst_words - start < 512 ? dst_words - start : 512;

		if (start % BF_STRIDE_WORDS == 0 && start > 0)
			check_interrupts();
		for (uint64_t w = 0; w < n; w++)
			store_le_word(buffer + 8 * w, fold_word(&plan, start + w));
		count += popcount_stride(buffer, (size_t) n);
	}
	return count;
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

uint64_t
bf_auto_choose_sketch(const uint8_t *bits, uint64_t sketch_m, uint32_t k, double p)
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
	/* from the size the estimate predicts, until a candidate meets the bound */
	for (m = bf_auto_ladder_next(sketch_m, 0);
		 m != 0 && m < sketch_m && bf_real_lt(bound, auto_expected_rate(n, m, k));
		 m = bf_auto_ladder_next(sketch_m, m))
		;
	for (; m != 0; m = bf_auto_ladder_next(sketch_m, m))
		if (auto_holds(m, k, bf_fold_popcount(bits, sketch_m, m), bound))
			return m;
	return 0;
}
