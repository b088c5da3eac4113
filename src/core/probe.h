/*
 * core/probe.h: where a value's k bits are, under each hash scheme, and the
 * functions that set and test them.  Part of core/core.h, which includes it; it
 * builds on core/base.h alone.
 *
 * A bloom filter (Bloom 1970) represents a set of n values by an array of m
 * bits and k hash functions onto [0, m).  Adding a value sets its k bits; a
 * lookup answers "maybe present" when all k bits are set and "certainly
 * absent" otherwise.  There are no false negatives.
 *
 * Each scheme's probe sequence is written once, as an iterator
 * (bf_edh_probe_*, bf_blocked_probe_*); every add, contains, the adder and
 * bf_probe_positions walk it.  The iterators are inlined into their loops,
 * so they cost nothing over writing the recurrence out in each.
 *
 *
 * scheme 1 (BLOOM_HASH_XXH3_EDH): enhanced double hashing
 * --------------------------------------------------------
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
 * g_i is computed incrementally, x += y; y += i + 1 (bf_edh_probe_next):
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
 * about 6e-6 (the self-sizing aggregate accounts for it, core/autosize.c).
 * It is part of scheme 1 and cannot change under it; a later scheme could
 * derive the probes from more hash bits.  The cubic term, at most 41664
 * for k = 64, is small beside the 2^64/m values that map to one bit, so
 * here it changes little; it is kept because it costs one addition and
 * makes the scheme the published one.
 *
 * Bit i is in byte i / 8 under mask 1 << (i % 8) (core/format.h), so a probe
 * touches exactly one byte and needs no alignment: a datum with a short
 * varlena header is not aligned at all.
 *
 *
 * scheme 2 (BLOOM_HASH_XXH3_BLOCKED): one cache line per value
 * -------------------------------------------------------------
 *
 * Under scheme 1 a value's k probes land on k random cache lines; in a
 * filter larger than the CPU cache each is a miss.  Scheme 2 (Putze,
 * Sanders and Singler 2007, "Cache-, hash- and space-efficient Bloom
 * filters") splits the m bits into m/512 blocks of one 64-byte line each,
 * and puts all k probes of a value in one block:
 *
 *     block = floor(h1 * (m/512) / 2^64)
 *     probe i = block * 512 + field i of w_(i/7),  fields of 9 bits
 *     w_0 = h2,  w_j = fmix64(h2 + j * 0x9e3779b97f4a7c15) for j >= 1
 *
 * h1 picks the block by the same multiply-shift as scheme 1; the probes
 * inside it are independent 9-bit fields (seven to a 64-bit word, lowest
 * first, so k <= 7 uses h2 alone), which leaves no coinciding-probe floor
 * like double hashing's above.  fmix64 is MurmurHash3's 64-bit finalizer, a
 * bijection.  What this costs in accuracy, and how blocked filters are
 * sized for it, is in core/shape.c.
 */
#ifndef BLOOM_CORE_PROBE_H
#define BLOOM_CORE_PROBE_H

#include "core/base.h"

/* floor(x * m / 2^64): maps a uniform 64-bit x onto [0, m) without division. */
static inline uint64_t
bf_reduce(uint64_t x, uint64_t m)
{
	uint64_t	high,
				low;

	bf_multiply_128(x, m, &high, &low);
	return high;
}

/* ---- scheme 1: the probe iterator ---- */

typedef struct bf_edh_probe
{
	uint64_t	m;
	uint64_t	x;				/* g_i */
	uint64_t	y;				/* g_(i+1) - g_i */
	uint32_t	i;
	uint32_t	k;
} bf_edh_probe;

static BF_ALWAYS_INLINE void
bf_edh_probe_init(bf_edh_probe *probe, bf_hash hash, uint64_t m, uint32_t k)
{
	probe->m = m;
	probe->x = hash.h1;
	probe->y = hash.h2;
	probe->i = 0;
	probe->k = k;
}

/* The next of the k positions, in [0, m), into *position; false after the last. */
static BF_ALWAYS_INLINE bool
bf_edh_probe_next(bf_edh_probe *probe, uint64_t *position)
{
	if (probe->i == probe->k)
		return false;
	*position = bf_reduce(probe->x, probe->m);
	probe->x += probe->y;
	probe->y += ++probe->i;
	return true;
}

static inline void
bf_add_hash(uint8_t *bits, uint64_t m, uint32_t k, bf_hash hash)
{
	bf_edh_probe probe;
	uint64_t	position;

	bf_edh_probe_init(&probe, hash, m, k);
	while (bf_edh_probe_next(&probe, &position))
		bits[position >> 3] |= (uint8_t) (1u << (position & 7));
}

/*
 * Whether all k bits are set, read with no branch between them: in a filter
 * larger than the CPU cache each probe is a miss, and with no early exit the
 * CPU waits for them together; an early exit would also cost a mispredicted
 * branch on about every other lookup of an absent value.
 */
static inline bool
bf_contains_hash(const uint8_t *bits, uint64_t m, uint32_t k, bf_hash hash)
{
	bf_edh_probe probe;
	uint64_t	position;
	uint32_t	all_set = 1;

	bf_edh_probe_init(&probe, hash, m, k);
	while (bf_edh_probe_next(&probe, &position))
		all_set &= bits[position >> 3] >> (position & 7);
	return (all_set & 1) != 0;
}

/* ---- scheme 2: the probe iterator ---- */

#define BF_BLOCK_BYTES (BLOOM_BLOCK_BITS / 8)
#define BF_BLOCK_FIELDS 7		/* 9-bit fields in a 64-bit word */

/* Byte offset of the value's block in the bit array (m a multiple of 512). */
static inline uint64_t
bf_block_offset(uint64_t h1, uint64_t m)
{
	return bf_reduce(h1, m / BLOOM_BLOCK_BITS) * BF_BLOCK_BYTES;
}

/*
 * The probes inside the block come a word at a time: bf_blocked_probe_word
 * gives the current word w_j and how many of its 9-bit fields, from the
 * lowest, are probes (7, or fewer in the last word); bf_blocked_probe_next
 * moves on to the next word, if there are probes left.  k >= 1, so there is
 * always a first word, and the caller's loop is
 *
 *     do
 *         w = bf_blocked_probe_word(&probe, &n), then the n fields of w
 *     while (bf_blocked_probe_next(&probe));
 */
typedef struct bf_blocked_probe
{
	uint64_t	h2;
	uint64_t	word;			/* w_j */
	uint32_t	j;
	uint32_t	left;			/* probes not given yet */
} bf_blocked_probe;

/* MurmurHash3's fmix64: a bijection that mixes every bit into every bit. */
static inline uint64_t
bf_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

static BF_ALWAYS_INLINE void
bf_blocked_probe_init(bf_blocked_probe *probe, uint64_t h2, uint32_t k)
{
	probe->h2 = h2;
	probe->word = h2;
	probe->j = 0;
	probe->left = k;
}

static BF_ALWAYS_INLINE uint64_t
bf_blocked_probe_word(bf_blocked_probe *probe, uint32_t *fields)
{
	uint32_t	n = probe->left < BF_BLOCK_FIELDS ? probe->left : BF_BLOCK_FIELDS;

	probe->left -= n;
	*fields = n;
	return probe->word;
}

/* false when all k probes were given; a word is mixed only if it is used */
static BF_ALWAYS_INLINE bool
bf_blocked_probe_next(bf_blocked_probe *probe)
{
	if (probe->left == 0)
		return false;
	probe->j++;
	probe->word = bf_mix64(probe->h2 + (uint64_t) probe->j * UINT64_C(0x9e3779b97f4a7c15));
	return true;
}

/*
 * Bit b (its low 9 bits) of a block, as a bit of one of its eight 64-bit
 * words.  The layout (bit i in byte i / 8 under mask 1 << (i % 8)) is that
 * of little-endian words, so on a little-endian machine a probe is one word
 * update, which needs fewer instructions than a byte update; elsewhere,
 * bytes.
 */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BF_BLOCK_SET_BIT(block, b) \
	do { \
		uint8_t    *word_ = (block) + (((b) >> 3) & 56); \
		uint64_t	value_; \
		memcpy(&value_, word_, 8); \
		value_ |= (uint64_t) 1 << ((b) & 63); \
		memcpy(word_, &value_, 8); \
	} while (0)
#define BF_BLOCK_GET_BIT(block, b) \
	(bf_block_get_word((block) + (((b) >> 3) & 56)) >> ((b) & 63))
#else
#define BF_BLOCK_SET_BIT(block, b) \
	((block)[((b) >> 3) & 63] |= (uint8_t) (1u << ((b) & 7)))
#define BF_BLOCK_GET_BIT(block, b) \
	((uint64_t) ((block)[((b) >> 3) & 63] >> ((b) & 7)))
#endif

static inline uint64_t
bf_block_get_word(const uint8_t *word)
{
	uint64_t	value;

	memcpy(&value, word, 8);
	return value;
}

/* Set the value's k bits in its block (block points at its first byte). */
static BF_ALWAYS_INLINE void
bf_block_set(uint8_t *block, uint32_t k, uint64_t h2)
{
	bf_blocked_probe probe;

	bf_blocked_probe_init(&probe, h2, k);
	do
	{
		uint32_t	n;
		uint64_t	w = bf_blocked_probe_word(&probe, &n);

		/*
		 * the n fields of w (n is 1..7), unrolled: adding is the
		 * aggregates' hot path, and a loop here takes about 10% more
		 * instructions per value
		 */
		switch (n)
		{
			case 7:
				BF_BLOCK_SET_BIT(block, w >> 54);
				BF_FALLTHROUGH;
			case 6:
				BF_BLOCK_SET_BIT(block, w >> 45);
				BF_FALLTHROUGH;
			case 5:
				BF_BLOCK_SET_BIT(block, w >> 36);
				BF_FALLTHROUGH;
			case 4:
				BF_BLOCK_SET_BIT(block, w >> 27);
				BF_FALLTHROUGH;
			case 3:
				BF_BLOCK_SET_BIT(block, w >> 18);
				BF_FALLTHROUGH;
			case 2:
				BF_BLOCK_SET_BIT(block, w >> 9);
				BF_FALLTHROUGH;
			default:
				BF_BLOCK_SET_BIT(block, w);
		}
	} while (bf_blocked_probe_next(&probe));
}

/* Whether all k bits are set, without an early exit (the block is one line). */
static inline bool
bf_block_test(const uint8_t *block, uint32_t k, uint64_t h2)
{
	bf_blocked_probe probe;
	uint32_t	all_set = 1;

	bf_blocked_probe_init(&probe, h2, k);
	do
	{
		uint32_t	n;
		uint64_t	w = bf_blocked_probe_word(&probe, &n);

		do
		{
			all_set &= (uint32_t) BF_BLOCK_GET_BIT(block, w);
			w >>= 9;
		} while (--n != 0);
	} while (bf_blocked_probe_next(&probe));
	return (all_set & 1) != 0;
}

/* ---- either scheme (the caller checked the scheme) ---- */

/*
 * All k positions, in probe order, into positions[0 .. k-1]: the reference
 * the tests hold every other path to.
 */
extern void bf_probe_positions(bf_hash hash, uint64_t m, uint32_t k,
							   uint8_t scheme, uint64_t *positions);

static inline void
bf_add(uint8_t *bits, uint64_t m, uint32_t k, uint8_t scheme, bf_hash hash)
{
	if (scheme == BLOOM_HASH_XXH3_BLOCKED)
		bf_block_set(bits + bf_block_offset(hash.h1, m), k, hash.h2);
	else
		bf_add_hash(bits, m, k, hash);
}

/* The one membership test: the executor's and the planner's. */
static inline bool
bf_contains(const uint8_t *bits, uint64_t m, uint32_t k, uint8_t scheme, bf_hash hash)
{
	if (scheme == BLOOM_HASH_XXH3_BLOCKED)
		return bf_block_test(bits + bf_block_offset(hash.h1, m), k, hash.h2);
	return bf_contains_hash(bits, m, k, hash);
}

/*
 * Adding many values to a filter larger than the CPU cache: each probe is a
 * cache (and TLB) miss, and adding one value at a time waits for them.  A
 * bf_adder keeps the last BF_ADDER_DEPTH values in a ring: a new value's
 * cache lines (k under scheme 1, one under scheme 2) are prefetched, and its
 * bits are set BF_ADDER_DEPTH values later, when the lines have arrived.
 * The bits after bf_adder_flush() are exactly those bf_add would have set;
 * until then up to BF_ADDER_DEPTH values are pending.  For a filter that
 * fits in the cache the ring costs more than it saves: bf_adder_init()
 * chooses the direct path there (the pipelined field tells which).
 */
#define BF_ADDER_DEPTH 16		/* a power of two */
#define BF_ADDER_MIN_BYTES ((size_t) 2 << 20)

typedef struct bf_adder
{
	uint8_t    *bits;
	uint64_t	m;
	uint32_t	k;
	uint32_t	pending;		/* values in the ring, 0..BF_ADDER_DEPTH */
	uint32_t	next;			/* slot of the next value */
	uint8_t		scheme;
	bool		pipelined;
	bool		misaligned;		/* scheme 2 blocks straddle two cache lines */
	/* scheme 1: the k positions; scheme 2: block offset and h2 */
	uint64_t	positions[BF_ADDER_DEPTH][BLOOM_K_MAX];
} bf_adder;

extern void bf_adder_init(bf_adder *adder, uint8_t *bits, uint64_t m, uint32_t k,
						  uint8_t scheme);
extern void bf_adder_flush(bf_adder *adder);

/* Set the bits of the value in the ring's slot. */
static inline void
bf_adder_set_slot(bf_adder *adder, uint32_t slot)
{
	const uint64_t *positions = adder->positions[slot];

	if (adder->scheme == BLOOM_HASH_XXH3_BLOCKED)
	{
		bf_block_set(adder->bits + positions[0], adder->k, positions[1]);
		return;
	}
	for (uint32_t i = 0; i < adder->k; i++)
		adder->bits[positions[i] >> 3] |= (uint8_t) (1u << (positions[i] & 7));
}

static inline void
bf_adder_add(bf_adder *adder, bf_hash hash)
{
	uint32_t	slot = adder->next;
	uint64_t   *positions = adder->positions[slot];
	bf_edh_probe probe;

	if (!adder->pipelined)
	{
		bf_add(adder->bits, adder->m, adder->k, adder->scheme, hash);
		return;
	}
	/* the value that was prefetched BF_ADDER_DEPTH values ago */
	if (adder->pending == BF_ADDER_DEPTH)
		bf_adder_set_slot(adder, slot);
	else
		adder->pending++;
	adder->next = (slot + 1) & (BF_ADDER_DEPTH - 1);
	if (adder->scheme == BLOOM_HASH_XXH3_BLOCKED)
	{
		positions[0] = bf_block_offset(hash.h1, adder->m);
		positions[1] = hash.h2;
#ifdef __GNUC__
		__builtin_prefetch(adder->bits + positions[0], 1, 3);
		if (adder->misaligned)
			__builtin_prefetch(adder->bits + positions[0] + BF_BLOCK_BYTES - 1, 1, 3);
#endif
		return;
	}
	bf_edh_probe_init(&probe, hash, adder->m, adder->k);
	while (bf_edh_probe_next(&probe, positions))
	{
#ifdef __GNUC__
		__builtin_prefetch(adder->bits + (*positions >> 3), 1, 3);
#endif
		positions++;
	}
}

/*
 * Adding many values to a scheme 1 filter several times the size of the
 * CPU cache (the self-sized aggregate's sketch: 63 MB at p = 0.01).  A
 * bf_adder overlaps the misses, but each of a value's k probes still moves
 * a whole cache line in from memory and back out: at k = 7, about 900
 * bytes of memory traffic a value, and memory bandwidth is the limit.  A
 * bf_region_adder sorts the probes by region of the filter first
 * (2^BF_REGION_BITS bits, 8 kB, which stays in the L1 cache while it is
 * written): a probe's offset in its region (2 bytes) goes to that
 * region's staging line, which fits in one cache line (the lines of a
 * 63 MB filter, 480 kB, stay in the L2 cache); a full staging line goes
 * whole to the region's buffer, written around the cache (non-temporal
 * stores, where the CPU has them); and when a region's buffer is full,
 * every region's offsets are set, one region at a time, so each region is
 * read and written once for all of them.  With buffers a quarter of the
 * filter's size that is about 130 bytes a value at k = 7.  The bits after
 * bf_region_adder_flush() are exactly those bf_add_hash would have set:
 * only the order in which they are set differs.
 */
#define BF_REGION_BITS 16
#define BF_REGION_STAGE 32		/* offsets in a staging line: 64 bytes */

typedef uint16_t bf_region_offset;	/* a bit's offset in its region */

typedef struct bf_region_line
{
	bf_region_offset offset[BF_REGION_STAGE];
} bf_region_line;

typedef struct bf_region_adder
{
	uint8_t    *bits;
	uint64_t	m;
	uint32_t	k;
	uint32_t	regions;		/* ceil(m / 2^BF_REGION_BITS) */
	uint32_t	capacity;		/* offsets in a region's buffer: a multiple of BF_REGION_STAGE */
	bf_region_line *staged;		/* a line per region, 64-byte aligned */
	uint8_t    *staged_count;	/* per region: offsets in its line */
	uint32_t   *buffered;		/* per region: offsets in its buffer */
	bf_region_offset *buffer;	/* regions * capacity offsets, 64-byte aligned */

	/*
	 * bits may be NULL until the probes must be set (a buffer full, or a
	 * flush): then need_bits(need_bits_arg) gives them, zeroed.  Until then
	 * bf_region_adder_sparse writes the sparse form of the bits the probes
	 * set, so a state that only travels never has them (core/bits.c).
	 */
	uint8_t    *(*need_bits) (void *arg);
	void	   *need_bits_arg;
} bf_region_adder;

/*
 * The bytes of memory bf_region_adder_init needs for a filter of m bits and
 * buffers of about buffer_bytes in all (at least one line a region).
 */
extern size_t bf_region_adder_memory(uint64_t m, size_t buffer_bytes);
extern void bf_region_adder_init(bf_region_adder *adder, uint8_t *bits, uint64_t m,
								 uint32_t k, void *memory, size_t buffer_bytes);
extern void bf_region_adder_flush(bf_region_adder *adder);

/*
 * With bits still NULL: the sparse form (bf_sparse_encode's, out as for
 * it) of the bits the probes added so far would set, or 0 when it is the
 * masks form, which takes the bits themselves.
 */
extern size_t bf_region_adder_sparse(const bf_region_adder *adder, uint8_t *out);
/* A region's staging line is full: into its buffer (flushing all when full). */
extern void bf_region_adder_spill(bf_region_adder *adder, uint32_t region);

static inline void
bf_region_adder_add(bf_region_adder *adder, bf_hash hash)
{
	bf_edh_probe probe;
	uint64_t	position;

	bf_edh_probe_init(&probe, hash, adder->m, adder->k);
	while (bf_edh_probe_next(&probe, &position))
	{
		uint32_t	region = (uint32_t) (position >> BF_REGION_BITS);
		uint32_t	count = adder->staged_count[region];

		adder->staged[region].offset[count] =
			(bf_region_offset) (position & (((uint64_t) 1 << BF_REGION_BITS) - 1));
		adder->staged_count[region] = (uint8_t) ++count;
		if (count == BF_REGION_STAGE)
			bf_region_adder_spill(adder, region);
	}
}

#endif							/* BLOOM_CORE_PROBE_H */
