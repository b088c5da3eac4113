/*
 * core/counting.h: counting bloom filters (the type counting_bloom), plain
 * C with no PostgreSQL dependency, like the rest of the core.
 *
 * A counting filter (Fan, Cao, Almeida and Broder 2000, "Summary cache")
 * keeps a small counter at each of the m positions instead of a bit.
 * Adding a value increments the counters at its k probe positions,
 * removing it decrements them, and a lookup answers "maybe present" when
 * all k are non-zero.  The probe positions are exactly those of a bloom
 * filter of the same m, k and hash scheme (bf_probe_positions,
 * core/probe.h), and values are hashed exactly as for bloom: so counter i
 * is non-zero exactly where the bloom filter of the values present has bit
 * i set, and bf_counting_to_bits gives that filter.
 *
 *
 * counters and saturation
 * -----------------------
 *
 * Counters are 4 bits wide, 0 to BF_COUNTER_MAX = 15.  Fan et al. show
 * that at the optimal k a counter exceeds 15 with probability below
 * 1.37e-15 * m, so 4 bits are enough in practice; a counter that does
 * reach 15 is saturated and stays 15 on every later add and remove (and
 * in unions and differences).  That keeps the promise of no false
 * negatives: a counter that may have counted more values than it can
 * hold is never brought down to zero by removals.
 *
 *   - add: one increment per probe, so a position probed twice by one
 *     value (double hashing can repeat a position) is incremented twice;
 *     while nothing is saturated the sum of the counters is exactly k times
 *     the number of values held (adds minus removes), which is what the
 *     SQL layer reports as the count of values (exact only while no
 *     counter is saturated).
 *   - remove: if some probe finds its counter at 0 (or finds it used up by
 *     an earlier probe of the same value at the same position), the value
 *     is certainly absent and the filter is left unchanged; otherwise each
 *     probe decrements its counter unless it is saturated.
 *   - the hazard: removing a value that was never added but tests positive
 *     (a false positive) decrements counters that other values own, and one
 *     of those may then read as absent: a false negative.  Only values that
 *     were added may be removed.
 *
 *
 * the stored form (this must never change under format version 1)
 * ----------------------------------------------------------------
 *
 * A varlena: the length word, the 12-byte header of core/format.h (format_version
 * 1, hash_scheme, k, flags, m in native order), then the counter array:
 *
 *     counter i is in byte i / 2: the low nibble for even i, the high
 *     nibble for odd i
 *
 * padded with zero bytes to a whole number of 64-bit words
 * (bf_counting_payload_bytes(m) = ceil(m / 16) * 8 bytes).  The layout does
 * not depend on the machine's byte order.  Counters at positions >= m are
 * zero: validation rejects anything else, so equal filters are
 * byte-identical.  The header fields are checked as bloom's are
 * (bf_check_header), and m is at most BF_COUNTING_M_MAX, the most counters
 * a value of PostgreSQL's 1 GB limit holds.
 *
 * Text form:    counting_bloom:v1:h<scheme>:m<m>:k<k>:[f<flags>:]<base64>
 *               (the base64 of the counter array, canonical as bloom's)
 * Binary form:  format_version, hash_scheme, k, flags (one byte each), m
 *               (8 bytes, big-endian), then the counter array as stored:
 *               bloom's binary header, then the counters.
 */
#ifndef BLOOM_CORE_COUNTING_H
#define BLOOM_CORE_COUNTING_H

#include "core/core.h"

#define BF_COUNTER_BITS 4
#define BF_COUNTER_MAX 15

/* The most counters a filter may have: its varlena fits in 1 GB. */
#define BF_COUNTING_M_MAX (BLOOM_MAX_PAYLOAD_BYTES * 2)

#define BF_COUNTING_TEXT_PREFIX "counting_bloom:"

/* The stored form of a counting filter with a 4-byte varlena header. */
typedef struct CountingBloomFilter
{
	int32_t		vl_len_;		/* varlena header; do not touch directly */
	uint8_t		format_version;
	uint8_t		hash_scheme;
	uint8_t		k;
	uint8_t		flags;
	uint64_t	m;
	uint8_t		counters[];
} CountingBloomFilter;

/* Bytes in the counter array of m counters: whole 64-bit words. */
static inline uint64_t
bf_counting_payload_bytes(uint64_t m)
{
	return ((m + 15) / 16) * 8;
}

static inline unsigned
bf_counter_get(const uint8_t *counters, uint64_t i)
{
	return (counters[i >> 1] >> ((i & 1) * BF_COUNTER_BITS)) & BF_COUNTER_MAX;
}

/* Check every header field, m against BF_COUNTING_M_MAX too. */
extern bf_status bf_counting_check_header(const BloomHeader *header);

/* Check that a counter array of nbytes bytes fits header->m (length and padding). */
extern bf_status bf_counting_check_counters(const BloomHeader *header,
											const uint8_t *counters, size_t nbytes);

/* ---- element operations (the hash is the value's, as bloom's) ---- */

/*
 * Add and contains walk the scheme's probe iterator (core/probe.h) inline,
 * as bf_add and bf_contains do: they are per-row paths, where an array of
 * positions and a call cost about as much as the probes.  Under scheme 2 a
 * value's counters are in the 512 counters (256 bytes) of its block.
 */

/*
 * What incrementing a counter adds to its byte b: bf_counter_steps[b][0] for
 * the low nibble, [1] for the high one; 1 or 16, or 0 when that counter is
 * saturated.  A 512-byte table, which stays in the L1 cache: one load where
 * computing it took a shift, a mask, a compare and a shift more, on the
 * per-row path (8 instructions fewer per probe under callgrind).
 */
extern const uint8_t bf_counter_steps[256][2];

/*
 * The same for a decrement: 1 or 16, 0 when the counter is saturated, and
 * BF_COUNTER_AT_ZERO when it is 0 (the value is absent).
 */
#define BF_COUNTER_AT_ZERO 0x80
extern const uint8_t bf_counter_down_steps[256][2];

/* Counter i: one increment unless it is saturated, with no branch. */
static BF_ALWAYS_INLINE void
bf_counter_increment(uint8_t *counters, uint64_t i)
{
	uint8_t    *byte = &counters[i >> 1];

	*byte += bf_counter_steps[*byte][i & 1];
}

/* 1 if counter i is non-zero, else 0, with no branch. */
static BF_ALWAYS_INLINE uint32_t
bf_counter_nonzero(const uint8_t *counters, uint64_t i)
{
	return (bf_counter_get(counters, i) + BF_COUNTER_MAX) >> BF_COUNTER_BITS;
}

/* Increment the value's k counters (saturating at BF_COUNTER_MAX). */
static inline void
bf_counting_add(uint8_t *counters, uint64_t m, uint32_t k, uint8_t scheme, bf_hash hash)
{
	if (scheme == BLOOM_HASH_XXH3_BLOCKED)
	{
		uint8_t    *block = counters + bf_block_offset(hash.h1, m) * 4;
		bf_blocked_probe probe;

		bf_blocked_probe_init(&probe, hash.h2, k);
		do
		{
			uint32_t	n;
			uint64_t	w = bf_blocked_probe_word(&probe, &n);

			for (; n > 0; n--, w >>= 9)
				bf_counter_increment(block, w & (BLOOM_BLOCK_BITS - 1));
		} while (bf_blocked_probe_next(&probe));
	}
	else
	{
		bf_edh_probe probe;
		uint64_t	position;

		bf_edh_probe_init(&probe, hash, m, k);
		while (bf_edh_probe_next(&probe, &position))
			bf_counter_increment(counters, position);
	}
}

/*
 * Scheme 2: whether the k counters of h2 in a block (its 256 bytes, which
 * may be a copy: a lookup by TOAST slices reads just the block) are all
 * non-zero, with no branch between the probes.  bf_block_test's
 * counterpart.
 */
static BF_ALWAYS_INLINE bool
bf_counting_block_contains(const uint8_t *block, uint32_t k, uint64_t h2)
{
	uint32_t	all_nonzero = 1;
	bf_blocked_probe probe;

	bf_blocked_probe_init(&probe, h2, k);
	do
	{
		uint32_t	n;
		uint64_t	w = bf_blocked_probe_word(&probe, &n);

		for (; n > 0; n--, w >>= 9)
			all_nonzero &= bf_counter_nonzero(block, w & (BLOOM_BLOCK_BITS - 1));
	} while (bf_blocked_probe_next(&probe));
	return all_nonzero != 0;
}

/*
 * Whether all k counters are non-zero: bf_contains of the filter's bits,
 * with no branch between the probes, as bf_contains (core/probe.h says why).
 */
static inline bool
bf_counting_contains(const uint8_t *counters, uint64_t m, uint32_t k, uint8_t scheme,
					 bf_hash hash)
{
	uint32_t	all_nonzero = 1;
	bf_edh_probe probe;
	uint64_t	position;

	if (scheme == BLOOM_HASH_XXH3_BLOCKED)
		return bf_counting_block_contains(counters + bf_block_offset(hash.h1, m) * 4, k,
										  hash.h2);
	bf_edh_probe_init(&probe, hash, m, k);
	while (bf_edh_probe_next(&probe, &position))
		all_nonzero &= bf_counter_nonzero(counters, position);
	return all_nonzero != 0;
}

/*
 * Counter i: false if it is 0, else true, decremented unless it is
 * saturated.
 */
static BF_ALWAYS_INLINE bool
bf_counter_decrement(uint8_t *counters, uint64_t i)
{
	uint8_t    *byte = &counters[i >> 1];
	uint8_t		step = bf_counter_down_steps[*byte][i & 1];

	if (step == BF_COUNTER_AT_ZERO)
		return false;
	*byte -= step;
	return true;
}

/*
 * Remove the value: false, with the counters unchanged, when it is certainly
 * absent; else decrement its k counters (saturated ones stay) and true.
 *
 * Probe by probe; a probe that finds its counter at 0 (at 0 from the start,
 * or brought there by an earlier probe of this value at the same position)
 * proves the value absent, and the decrements made so far are undone, so
 * the filter is unchanged.  The first n probes of a value are the probes of
 * the same value with k = n under either scheme, so the undo is
 * bf_counting_add with k = n: an increment unless saturated, and a counter
 * decremented here is at most 13 while one at 15 was skipped.
 */
static inline bool
bf_counting_remove(uint8_t *counters, uint64_t m, uint32_t k, uint8_t scheme, bf_hash hash)
{
	uint32_t	done = 0;

	if (scheme == BLOOM_HASH_XXH3_BLOCKED)
	{
		uint8_t    *block = counters + bf_block_offset(hash.h1, m) * 4;
		bf_blocked_probe probe;

		bf_blocked_probe_init(&probe, hash.h2, k);
		do
		{
			uint32_t	n;
			uint64_t	w = bf_blocked_probe_word(&probe, &n);

			for (; n > 0; n--, w >>= 9, done++)
				if (!bf_counter_decrement(block, w & (BLOOM_BLOCK_BITS - 1)))
					goto absent;
		} while (bf_blocked_probe_next(&probe));
	}
	else
	{
		bf_edh_probe probe;
		uint64_t	position;

		bf_edh_probe_init(&probe, hash, m, k);
		for (; bf_edh_probe_next(&probe, &position); done++)
			if (!bf_counter_decrement(counters, position))
				goto absent;
	}
	return true;

absent:
	if (done > 0)
		bf_counting_add(counters, m, done, scheme, hash);
	return false;
}

/*
 * Adding (or removing) many values to a counting filter larger than the
 * CPU cache (a filter of 1M values at p = 0.01 has 4.8 MB of counters, four
 * times its bloom filter): each probe is a cache miss, and one value at a
 * time waits for them.  As bf_adder does for bloom (core/probe.h), a
 * bf_counting_adder keeps the last BF_ADDER_DEPTH values in a ring: a new
 * value's counters are prefetched, and the value is added or removed
 * BF_ADDER_DEPTH values later, when they have arrived.  The values are
 * applied in the order they came, so after bf_counting_adder_flush() the
 * counters are exactly those of bf_counting_add and bf_counting_remove
 * called one value at a time.  For a filter that fits in the cache the
 * ring costs more than it saves: bf_counting_adder_init() chooses the
 * direct path there, at bf_adder's threshold.
 */
typedef struct bf_counting_adder
{
	uint8_t    *counters;
	uint64_t	m;
	uint32_t	k;
	uint8_t		scheme;
	bool		pipelined;
	uint32_t	pending;		/* values in the ring, 0..BF_ADDER_DEPTH */
	uint32_t	next;			/* slot of the next value */
	uint64_t	changed;		/* values applied that changed the counters */
	bf_hash		hash[BF_ADDER_DEPTH];
	bool		remove[BF_ADDER_DEPTH];
} bf_counting_adder;

static inline void
bf_counting_adder_init(bf_counting_adder *adder, uint8_t *counters, uint64_t m, uint32_t k,
					   uint8_t scheme)
{
	adder->counters = counters;
	adder->m = m;
	adder->k = k;
	adder->scheme = scheme;
	adder->pipelined = bf_counting_payload_bytes(m) >= BF_ADDER_MIN_BYTES;
	adder->pending = 0;
	adder->next = 0;
	adder->changed = 0;
}

/* Add or remove one value now; a removal proved absent changes nothing. */
static BF_ALWAYS_INLINE void
bf_counting_adder_apply(bf_counting_adder *adder, bf_hash hash, bool remove)
{
	if (!remove)
	{
		bf_counting_add(adder->counters, adder->m, adder->k, adder->scheme, hash);
		adder->changed++;
	}
	else if (bf_counting_remove(adder->counters, adder->m, adder->k, adder->scheme, hash))
		adder->changed++;
}

/* Add (remove = false) or remove the value, now or BF_ADDER_DEPTH values later. */
static inline void
bf_counting_adder_push(bf_counting_adder *adder, bf_hash hash, bool remove)
{
	uint32_t	slot = adder->next;

	if (!adder->pipelined)
	{
		bf_counting_adder_apply(adder, hash, remove);
		return;
	}
	/* the value that was prefetched BF_ADDER_DEPTH values ago */
	if (adder->pending == BF_ADDER_DEPTH)
		bf_counting_adder_apply(adder, adder->hash[slot], adder->remove[slot]);
	else
		adder->pending++;
	adder->hash[slot] = hash;
	adder->remove[slot] = remove;
	adder->next = (slot + 1) & (BF_ADDER_DEPTH - 1);
#ifdef __GNUC__
	if (adder->scheme == BLOOM_HASH_XXH3_BLOCKED)
	{
		/* the block's 256 bytes of counters: four cache lines, or five unaligned */
		const uint8_t *block = adder->counters + bf_block_offset(hash.h1, adder->m) * 4;

		for (unsigned offset = 0; offset < 256; offset += 64)
			__builtin_prefetch(block + offset, 1, 3);
		__builtin_prefetch(block + 255, 1, 3);
	}
	else
	{
		bf_edh_probe probe;
		uint64_t	position;

		bf_edh_probe_init(&probe, hash, adder->m, adder->k);
		while (bf_edh_probe_next(&probe, &position))
			__builtin_prefetch(adder->counters + (position >> 1), 1, 3);
	}
#endif
}

/* Apply the values still in the ring, in the order they came. */
static inline void
bf_counting_adder_flush(bf_counting_adder *adder)
{
	uint32_t	slot = (adder->next - adder->pending) & (BF_ADDER_DEPTH - 1);

	for (; adder->pending > 0; adder->pending--, slot = (slot + 1) & (BF_ADDER_DEPTH - 1))
		bf_counting_adder_apply(adder, adder->hash[slot], adder->remove[slot]);
	adder->next = 0;
}

/* ---- whole arrays (nbytes = bf_counting_payload_bytes(m)) ---- */

/* dst = a + b counter by counter, saturating; dst may be a or b. */
extern void bf_counting_union(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t nbytes);

/*
 * dst = a - b counter by counter; a saturated counter of a stays saturated.
 * false when some counter of b exceeds a's that is not saturated (b holds
 * values a does not), with *position the first such counter; dst is then
 * partly written.  dst may be a or b.
 */
extern bool bf_counting_subtract(uint8_t *dst, const uint8_t *a, const uint8_t *b,
								 size_t nbytes, uint64_t *position);

typedef struct bf_counting_stats
{
	uint64_t	nonzero;		/* counters > 0: the bits the bloom filter sets */
	uint64_t	saturated;		/* counters at BF_COUNTER_MAX */
	uint64_t	sum;			/* of all counters */
} bf_counting_stats;

extern void bf_counting_stats_of(const uint8_t *counters, size_t nbytes,
								 bf_counting_stats *stats);

/*
 * The bloom filter of the values present: bit i set where counter i is
 * non-zero.  bits has bloom_payload_bytes(m) bytes, all written.
 */
extern void bf_counting_to_bits(const uint8_t *counters, uint64_t m, uint8_t *bits);

/* ---- serialized forms ---- */

/* Exact length of the text form (without the terminating NUL). */
extern uint64_t bf_counting_text_length(const BloomHeader *header);
/* Writes bf_counting_text_length() characters and a NUL into out. */
extern void bf_counting_text_encode(const BloomHeader *header, const uint8_t *counters,
									char *out);
/* Parse and check the header part; *payload_offset is where the base64 starts. */
extern bf_status bf_counting_text_decode_header(const char *text, size_t len,
												BloomHeader *header, size_t *payload_offset);
/*
 * Decode the base64 part into counters (bf_counting_payload_bytes(m)
 * bytes, supplied by the caller) and check length and padding.
 */
extern bf_status bf_counting_text_decode_counters(const char *base64, size_t len,
												  const BloomHeader *header,
												  uint8_t *counters);

/*
 * Decode and check a whole binary form of len bytes; on success *counters
 * points into data at the counter array.  The header is written with
 * bf_binary_encode_header (core/core.h).
 */
extern bf_status bf_counting_binary_decode(const uint8_t *data, size_t len,
										   BloomHeader *header, const uint8_t **counters);

#endif							/* BLOOM_CORE_COUNTING_H */
