/*
 * core.h: the bloom filter core, plain C with no PostgreSQL dependency.
 *
 * Sizing, hashing of canonical bytes, setting and testing bits, word-wise
 * OR/AND/popcount, the Swamidass-Baldi estimates, and the text and binary
 * codecs with their validation.  core.c explains the formulas and the hash
 * scheme; codec.c the serialized forms.  Everything here can be unit-tested
 * and fuzzed without a server (see test/).
 *
 * All core functions are prefixed bf_.
 */
#ifndef BLOOM_CORE_H
#define BLOOM_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bloom.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

/*
 * Outcome of a check or a decode.  The SQL layer maps each to an SQLSTATE;
 * bf_status_message() gives the detail sentence.
 */
typedef enum bf_status
{
	BF_OK = 0,
	BF_FALSE_POSITIVE_RATE_RANGE,	/* p not in the open interval (0, 1) */
	BF_CAPACITY_RANGE,			/* n < 1 */
	BF_M_RANGE,					/* m < 1 */
	BF_K_RANGE,					/* k not in [BLOOM_K_MIN, BLOOM_K_MAX] */
	BF_TOO_LARGE,				/* m > BLOOM_M_MAX */
	BF_FORMAT_VERSION,			/* unknown format version */
	BF_HASH_SCHEME,				/* unknown hash scheme */
	BF_FLAGS,					/* reserved flags not zero */
	BF_LENGTH,					/* bit array length does not match m */
	BF_PADDING_BITS,			/* a bit at a position >= m is set */
	BF_SYNTAX,					/* text form not of the expected shape */
	BF_BASE64					/* bit array is not canonical base64 */
} bf_status;

extern const char *bf_status_message(bf_status status);

/*
 * Called every BF_INTERRUPT_STRIDE bytes by loops over large filters, so the
 * server can honour query cancel.  NULL (the default) means no check.
 */
#define BF_INTERRUPT_STRIDE ((size_t) 1 << 20)
extern void (*bf_interrupt_hook) (void);

/* ---- shapes ---- */

/* Check an explicit shape: m in [1, BLOOM_M_MAX], k in [BLOOM_K_MIN, BLOOM_K_MAX]. */
extern bf_status bf_check_shape(int64_t m, int64_t k);

/*
 * The optimal shape for capacity n at false-positive rate p:
 * m = ceil(-n ln p / (ln 2)^2), k = max(1, round((m / n) ln 2)).
 * On BF_K_RANGE or BF_TOO_LARGE, *m and *k still hold what was computed,
 * for the error message.
 */
extern bf_status bf_optimal_shape(double p, int64_t n, uint64_t *m, uint32_t *k);

/* Check every header field; bit array length and padding are checked apart. */
extern bf_status bf_check_header(const BloomHeader *header);

/* Check that a bit array of nbytes bytes fits header->m (length and padding). */
extern bf_status bf_check_bits(const BloomHeader *header, const uint8_t *bits,
							   size_t nbytes);

/* ---- hashing (scheme BLOOM_HASH_XXH3_EDH) ---- */

typedef struct bf_hash
{
	uint64_t	h1;
	uint64_t	h2;
} bf_hash;

/* The 128-bit hash of a value's canonical bytes. */
static inline bf_hash
bf_hash_bytes(const void *data, size_t len)
{
	XXH128_hash_t h = XXH3_128bits(data, len);
	bf_hash		result;

	result.h1 = h.low64;
	result.h2 = h.high64;
	return result;
}

/* floor(x * m / 2^64): maps a uniform 64-bit x onto [0, m) without division. */
static inline uint64_t
bf_reduce(uint64_t x, uint64_t m)
{
#ifdef __SIZEOF_INT128__
	return (uint64_t) (((unsigned __int128) x * m) >> 64);
#else
	uint64_t	x_lo = (uint32_t) x,
				x_hi = x >> 32,
				m_lo = (uint32_t) m,
				m_hi = m >> 32;
	uint64_t	lo_lo = x_lo * m_lo,
				hi_lo = x_hi * m_lo,
				lo_hi = x_lo * m_hi,
				hi_hi = x_hi * m_hi;
	uint64_t	cross = (lo_lo >> 32) + (uint32_t) hi_lo + lo_hi;

	return hi_hi + (hi_lo >> 32) + (cross >> 32);
#endif
}

/*
 * The i-th probe position is reduce(h1 + i*h2 + (i^3 - i)/6, m), computed
 * incrementally (enhanced double hashing).  bf_probe_positions writes all k
 * of them; the two functions below walk the same sequence.
 */
extern void bf_probe_positions(bf_hash hash, uint64_t m, uint32_t k,
							   uint64_t *positions);

static inline void
bf_add_hash(uint8_t *bits, uint64_t m, uint32_t k, bf_hash hash)
{
	uint64_t	x = hash.h1;
	uint64_t	y = hash.h2;

	for (uint32_t i = 0; i < k; i++)
	{
		uint64_t	position = bf_reduce(x, m);

		bits[position >> 3] |= (uint8_t) (1u << (position & 7));
		x += y;
		y += i + 1;
	}
}

static inline bool
bf_contains_hash(const uint8_t *bits, uint64_t m, uint32_t k, bf_hash hash)
{
	uint64_t	x = hash.h1;
	uint64_t	y = hash.h2;

	for (uint32_t i = 0; i < k; i++)
	{
		uint64_t	position = bf_reduce(x, m);

		if ((bits[position >> 3] & (1u << (position & 7))) == 0)
			return false;
		x += y;
		y += i + 1;
	}
	return true;
}

/*
 * Adding many values to a filter larger than the CPU cache: each probe is a
 * cache (and TLB) miss, and bf_add_hash waits for them one value at a time.
 * A bf_adder keeps the probe positions of the last BF_ADDER_DEPTH values in
 * a ring: a new value's k cache lines are prefetched, and its bits are set
 * BF_ADDER_DEPTH values later, when the lines have arrived.  The bits after
 * bf_adder_flush() are exactly those bf_add_hash would have set; until then
 * up to BF_ADDER_DEPTH values are pending.  For a filter that fits in the
 * cache the ring costs more than it saves: bf_adder_init() chooses the
 * direct path there (bf_adder_pipelined() tells which).
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
	bool		pipelined;
	uint64_t	positions[BF_ADDER_DEPTH][BLOOM_K_MAX];
} bf_adder;

extern void bf_adder_init(bf_adder *adder, uint8_t *bits, uint64_t m, uint32_t k);
extern void bf_adder_flush(bf_adder *adder);

static inline void
bf_adder_set_slot(bf_adder *adder, uint32_t slot)
{
	const uint64_t *positions = adder->positions[slot];

	for (uint32_t i = 0; i < adder->k; i++)
		adder->bits[positions[i] >> 3] |= (uint8_t) (1u << (positions[i] & 7));
}

static inline void
bf_adder_add(bf_adder *adder, bf_hash hash)
{
	uint32_t	slot = adder->next;
	uint64_t   *positions = adder->positions[slot];
	uint64_t	x = hash.h1;
	uint64_t	y = hash.h2;

	if (!adder->pipelined)
	{
		bf_add_hash(adder->bits, adder->m, adder->k, hash);
		return;
	}
	/* the value that was prefetched BF_ADDER_DEPTH values ago */
	if (adder->pending == BF_ADDER_DEPTH)
		bf_adder_set_slot(adder, slot);
	else
		adder->pending++;
	for (uint32_t i = 0; i < adder->k; i++)
	{
		positions[i] = bf_reduce(x, adder->m);
#ifdef __GNUC__
		__builtin_prefetch(adder->bits + (positions[i] >> 3), 1, 3);
#endif
		x += y;
		y += i + 1;
	}
	adder->next = (slot + 1) & (BF_ADDER_DEPTH - 1);
}

/* ---- whole-array operations (nbytes is a multiple of 8) ---- */

extern uint64_t bf_popcount(const uint8_t *bits, size_t nbytes);
/* popcount(a | b) without materializing the union */
extern uint64_t bf_popcount_or(const uint8_t *a, const uint8_t *b, size_t nbytes);
/* dst = a | b, dst = a & b; dst may be a, and need not be initialized */
extern void bf_or(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t nbytes);
extern void bf_and(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t nbytes);

/* dst |= src, dst &= src */
static inline void
bf_or_into(uint8_t *dst, const uint8_t *src, size_t nbytes)
{
	bf_or(dst, dst, src, nbytes);
}

static inline void
bf_and_into(uint8_t *dst, const uint8_t *src, size_t nbytes)
{
	bf_and(dst, dst, src, nbytes);
}

/* ---- estimates ---- */

/* Swamidass-Baldi: n* = -(m/k) ln(1 - X/m); +Infinity when X = m. */
extern double bf_estimate_cardinality(uint64_t m, uint32_t k, uint64_t bits_set);
/* The expected false-positive rate of the filter as it is: (X/m)^k. */
extern double bf_current_false_positive_rate(uint64_t m, uint32_t k, uint64_t bits_set);

/*
 * The false-positive rate of a filter of m bits and k probes after n
 * distinct values, before it is built: the classical estimate
 * (1 - e^(-kn/m))^k, and Goel and Gupta's upper bound
 * (1 - e^(-k(n + 0.5)/(m - 1)))^k, which is 1 for m = 1.  m >= 1, k >= 1.
 */
extern double bf_expected_false_positive_rate(uint64_t m, uint32_t k, uint64_t n);
extern double bf_goel_gupta_bound(uint64_t m, uint32_t k, uint64_t n);

/* ---- serialized forms (codec.c) ---- */

/*
 * Text form:  bloom:v<format>:h<scheme>:m<m>:k<k>:<base64 of the bit array>
 * e.g.        bloom:v1:h1:m18:k3:AAAAAAAAAAA=
 * Decimal numbers without sign or leading zeros; standard base64 with '='
 * padding and zero unused bits, so every filter has exactly one text form.
 */
/* Exact length of the text form (without the terminating NUL). */
extern uint64_t bf_text_length(const BloomHeader *header);
/* Writes bf_text_length() characters and a NUL into out. */
extern void bf_text_encode(const BloomHeader *header, const uint8_t *bits, char *out);
/*
 * Parse and check the header part of the text form in text[0..len).  On
 * success *payload_offset is where the base64 starts.
 */
extern bf_status bf_text_decode_header(const char *text, size_t len,
									   BloomHeader *header, size_t *payload_offset);
/*
 * Decode the base64 part into bits (bloom_payload_bytes(header->m) bytes,
 * supplied by the caller) and check length and padding bits.
 */
extern bf_status bf_text_decode_bits(const char *base64, size_t len,
									 const BloomHeader *header, uint8_t *bits);

/*
 * Binary form (send/recv): format_version, hash_scheme, k, flags (1 byte
 * each), m (8 bytes, big-endian), then the bit array as stored.
 */
#define BF_BINARY_HEADER_BYTES 12
extern void bf_binary_encode_header(const BloomHeader *header, uint8_t *out);
/*
 * Decode and check a whole binary form of len bytes; on success *bits points
 * into data at the bit array.
 */
extern bf_status bf_binary_decode(const uint8_t *data, size_t len,
								  BloomHeader *header, const uint8_t **bits);

/* base64, exposed for the unit tests and the fuzzers */
extern uint64_t bf_base64_length(uint64_t nbytes);
extern void bf_base64_encode(const uint8_t *src, size_t nbytes, char *dst);
extern bf_status bf_base64_decode(const char *src, size_t len, uint8_t *dst,
								  size_t nbytes);

#endif							/* BLOOM_CORE_H */
