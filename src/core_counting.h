/*
 * core_counting.h: counting bloom filters (the type counting_bloom), plain
 * C with no PostgreSQL dependency, like the rest of the core.
 *
 * A counting filter (Fan, Cao, Almeida and Broder 2000, "Summary cache")
 * keeps a small counter at each of the m positions instead of a bit.
 * Adding a value increments the counters at its k probe positions,
 * removing it decrements them, and a lookup answers "maybe present" when
 * all k are non-zero.  The probe positions are exactly those of a bloom
 * filter of the same m, k and hash scheme (bf_probe_positions,
 * core_probe.h), and values are hashed exactly as for bloom: so counter i
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
 * A varlena: the length word, the 12-byte header of bloom.h (format_version
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

#include "core.h"

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

/* Increment the value's k counters (saturating at BF_COUNTER_MAX). */
extern void bf_counting_add(uint8_t *counters, uint64_t m, uint32_t k, uint8_t scheme,
							bf_hash hash);

/* Whether all k counters are non-zero: bf_contains of the filter's bits. */
extern bool bf_counting_contains(const uint8_t *counters, uint64_t m, uint32_t k,
								 uint8_t scheme, bf_hash hash);

/*
 * Remove the value: false, with the counters unchanged, when it is certainly
 * absent; else decrement its k counters (saturated ones stay) and true.
 */
extern bool bf_counting_remove(uint8_t *counters, uint64_t m, uint32_t k, uint8_t scheme,
							   bf_hash hash);

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
 * bf_binary_encode_header (core.h).
 */
extern bf_status bf_counting_binary_decode(const uint8_t *data, size_t len,
										   BloomHeader *header, const uint8_t **counters);

#endif							/* BLOOM_CORE_COUNTING_H */
