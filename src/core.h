/*
 * core.h: the bloom filter core, plain C with no PostgreSQL dependency.
 *
 * Sizing, hashing of canonical bytes, setting and testing bits, word-wise
 * OR/AND/popcount, the Swamidass-Baldi estimates, and the text and binary
 * codecs with their validation.  core.c explains the formulas and the hash
 * scheme; codec.c the serialized forms; real.c the arithmetic that sizing
 * decisions are made in, the same on every machine.  Everything here can
 * be unit-tested and fuzzed without a server (see test/).
 *
 * All core functions are prefixed bf_.
 */
#ifndef BLOOM_CORE_H
#define BLOOM_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bloom.h"
#include "real.h"

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
	BF_FLAGS,					/* a flag this build does not know */
	BF_LENGTH,					/* bit array length does not match m */
	BF_PADDING_BITS,			/* a bit at a position >= m is set */
	BF_BLOCK_SHAPE,				/* scheme 2 with m not a multiple of 512 */
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

/* Inlined even where the compiler would not (hot paths). */
#ifdef __GNUC__
#define BF_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define BF_ALWAYS_INLINE inline
#endif

/* A deliberate fall-through to the next case (-Wimplicit-fallthrough=5). */
#if defined(__has_attribute)
#if __has_attribute(fallthrough)
#define BF_FALLTHROUGH __attribute__((fallthrough))
#endif
#endif
#ifndef BF_FALLTHROUGH
#define BF_FALLTHROUGH ((void) 0)
#endif

/* ---- shapes ---- */

/*
 * New filters of at least this many bytes under scheme 1 are blocked
 * (scheme 2) when that costs at most BF_BLOCKED_MAX_GROWTH_PERCENT more bits.
 */
#define BF_BLOCKED_MIN_BYTES ((uint64_t) 2 << 20)
#define BF_BLOCKED_MAX_GROWTH_PERCENT 10

/* Check an explicit shape: m in [1, BLOOM_M_MAX], k in [BLOOM_K_MIN, BLOOM_K_MAX]. */
extern bf_status bf_check_shape(int64_t m, int64_t k);

/*
 * The optimal shape for capacity n at false-positive rate p:
 * m = ceil(-n ln p / (ln 2)^2), k = max(1, round((m / n) ln 2)).
 * On BF_K_RANGE or BF_TOO_LARGE, *m and *k still hold what was computed,
 * for the error message.
 */
extern bf_status bf_optimal_shape(double p, int64_t n, uint64_t *m, uint32_t *k);

/*
 * The smallest scheme 2 shape (m a multiple of 512, k) whose expected rate
 * bf_blocked_false_positive_rate(m, k, n) is at most p.  Same statuses.
 */
extern bf_status bf_blocked_shape(double p, int64_t n, uint64_t *m, uint32_t *k);

/*
 * The shape of a new filter for p and n (bloom_empty, bloom_agg): the
 * optimal scheme 1 shape, unless that is at least BF_BLOCKED_MIN_BYTES and
 * the blocked shape is at most BF_BLOCKED_MAX_GROWTH_PERCENT larger; then that.
 * Same statuses as bf_optimal_shape, which decides them.
 */
extern bf_status bf_default_shape(double p, int64_t n, uint64_t *m, uint32_t *k,
								  uint8_t *scheme);

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
	uint64_t	high,
				low;

	bf_multiply_128(x, m, &high, &low);
	return high;
}

/*
 * Scheme 1: the i-th probe position is reduce(h1 + i*h2 + (i^3 - i)/6, m),
 * computed incrementally (enhanced double hashing).  bf_probe_positions
 * writes all k of them (under either scheme); the two functions below walk
 * the same sequence.
 */
extern void bf_probe_positions(bf_hash hash, uint64_t m, uint32_t k,
							   uint8_t scheme, uint64_t *positions);

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
 * Scheme 2 (BLOOM_HASH_XXH3_BLOCKED, core.c "blocked filters"): h1 picks
 * one of the m / BLOOM_BLOCK_BITS blocks, and the k positions inside it are
 * 9-bit fields of h2, seven to a word; probes past the seventh take their
 * fields from further words bf_block_word() derives from h2.
 */
#define BF_BLOCK_BYTES (BLOOM_BLOCK_BITS / 8)
#define BF_BLOCK_FIELDS 7		/* 9-bit fields in a 64-bit word */

/* A 64-bit finalizer (MurmurHash3's fmix64 constants): a bijection that
 * mixes every input bit into every output bit. */
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

/* The word that gives in-block probes 7j .. 7j + 6. */
static inline uint64_t
bf_block_word(uint64_t h2, uint32_t j)
{
	return j == 0 ? h2 : bf_mix64(h2 + (uint64_t) j * UINT64_C(0x9e3779b97f4a7c15));
}

/* Byte offset of the value's block in the bit array (m a multiple of 512). */
static inline uint64_t
bf_block_offset(uint64_t h1, uint64_t m)
{
	return bf_reduce(h1, m / BLOOM_BLOCK_BITS) * BF_BLOCK_BYTES;
}

/*
 * Bit b of a block as a bit of one of its eight 64-bit words.  The layout
 * (bit i in byte i / 8 under mask 1 << (i % 8)) is that of little-endian
 * words, so on a little-endian machine a probe is one word update, which
 * needs fewer instructions than a byte update; elsewhere, bytes.
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
	uint64_t	w = h2;
	uint32_t	left = k;		/* k >= 1 */

	for (uint32_t j = 1;; j++)
	{
		uint32_t	n = left < BF_BLOCK_FIELDS ? left : BF_BLOCK_FIELDS;

		left -= n;
		/* unrolled: the fields of one word, n of them (1..7) */
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
		if (left == 0)
			return;
		w = bf_block_word(h2, j);
	}
}

/* Whether all k bits are set, without an early exit (the block is one line). */
static inline bool
bf_block_test(const uint8_t *block, uint32_t k, uint64_t h2)
{
	uint64_t	w = h2;
	uint32_t	left = k;		/* k >= 1 */
	uint32_t	all = 1;

	for (uint32_t j = 1;; j++)
	{
		uint32_t	n = left < BF_BLOCK_FIELDS ? left : BF_BLOCK_FIELDS;

		left -= n;
		do
		{
			all &= (uint32_t) BF_BLOCK_GET_BIT(block, w);
			w >>= 9;
		} while (--n != 0);
		if (left == 0)
			return (all & 1) != 0;
		w = bf_block_word(h2, j);
	}
}

/* Add or look up a value under either scheme (the caller checked scheme). */
static inline void
bf_add(uint8_t *bits, uint64_t m, uint32_t k, uint8_t scheme, bf_hash hash)
{
	if (scheme == BLOOM_HASH_XXH3_BLOCKED)
		bf_block_set(bits + bf_block_offset(hash.h1, m), k, hash.h2);
	else
		bf_add_hash(bits, m, k, hash);
}

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
 * chooses the direct path there (bf_adder_pipelined() tells which).
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
	uint64_t	x = hash.h1;
	uint64_t	y = hash.h2;

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
		positions[0] = bf_block_offset(x, adder->m);
		positions[1] = y;
#ifdef __GNUC__
		__builtin_prefetch(adder->bits + positions[0], 1, 3);
		if (adder->misaligned)
			__builtin_prefetch(adder->bits + positions[0] + BF_BLOCK_BYTES - 1, 1, 3);
#endif
		return;
	}
	for (uint32_t i = 0; i < adder->k; i++)
	{
		positions[i] = bf_reduce(x, adder->m);
#ifdef __GNUC__
		__builtin_prefetch(adder->bits + (positions[i] >> 3), 1, 3);
#endif
		x += y;
		y += i + 1;
	}
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

/*
 * Swamidass-Baldi: n* = -(m/k) ln(1 - X/m) under scheme 1, and its blocked
 * form -(m/512) ln(1 - X/m) / (1 - (1 - 1/512)^k) under scheme 2 (core.c);
 * +Infinity when X = m.
 */
extern double bf_estimate_cardinality(uint64_t m, uint32_t k, uint8_t scheme,
									  uint64_t bits_set);
/* The expected false-positive rate of a scheme 1 filter as it is: (X/m)^k. */
extern double bf_current_false_positive_rate(uint64_t m, uint32_t k, uint64_t bits_set);
/*
 * The same for a filter of either scheme, from its bits (X = bits_set):
 * under scheme 2 the mean over blocks of (bits set in the block / 512)^k.
 */
extern double bf_filter_false_positive_rate(const uint8_t *bits, uint64_t m, uint32_t k,
											uint8_t scheme, uint64_t bits_set);

/*
 * The false-positive rate of a filter of m bits and k probes after n
 * distinct values, before it is built: the classical estimate
 * (1 - e^(-kn/m))^k, and Goel and Gupta's upper bound
 * (1 - e^(-k(n + 0.5)/(m - 1)))^k, which is 1 for m = 1.  m >= 1, k >= 1.
 */
extern double bf_expected_false_positive_rate(uint64_t m, uint32_t k, uint64_t n);
extern double bf_goel_gupta_bound(uint64_t m, uint32_t k, uint64_t n);

/*
 * The same for a scheme 2 filter (m a multiple of 512), with the values per
 * block Poisson-distributed: sum over j of P(j) (1 - (1 - 1/512)^(kj))^k.
 */
extern double bf_blocked_false_positive_rate(uint64_t m, uint32_t k, double n);

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

/* ---- self-sizing filters (bloom_agg without a capacity; core.c explains) ---- */

/* bloom_agg(value) and bloom_empty() use this false-positive rate. */
#define BF_DEFAULT_FALSE_POSITIVE_RATE 0.01
/* bloom_empty() is sized for this many values (about 12 kB at 0.01). */
#define BF_DEFAULT_CAPACITY 10000

/* Distinct values kept exactly, as 128-bit hashes, before the sketch phase. */
#define BF_AUTO_EXACT_LIMIT ((uint64_t) 1 << 17)
/* The sketch's M / 3 bits hold this many values at the bound. */
#define BF_AUTO_GUARANTEED_CAPACITY UINT64_C(10000000)

/*
 * k for false-positive rate p, max(1, round(log2(1/p))), which is what
 * bf_optimal_shape gives for large n, and the sketch size M = 15 * 2^J bits.
 * BF_FALSE_POSITIVE_RATE_RANGE or BF_K_RANGE (*k set) for a bad p.
 */
extern bf_status bf_auto_shape(double p, uint32_t *k, uint64_t *sketch_m);

/* The rate a self-sized filter is held to: (1 - delta) p. */
extern double bf_auto_rate_bound(double p);

/*
 * The false-positive rate of a filter of m bits, k probes and X = bits_set:
 * (X/m)^k plus the share of double hashing's coinciding probes (core.c),
 * and whether it meets the bound for p.
 */
extern double bf_auto_rate(uint64_t m, uint32_t k, uint64_t bits_set);
extern bool bf_auto_holds(uint64_t m, uint32_t k, uint64_t bits_set, double p);

/*
 * An open-addressing set of 128-bit hashes (linear probing on h1).  The
 * caller owns slots (capacity entries, a power of two, zeroed) and grows
 * the set (bf_hashset_move into a larger one) while bf_hashset_full.  The
 * hash {0, 0} marks an empty slot, so it is kept in has_zero instead.
 */
typedef struct bf_hashset
{
	bf_hash    *slots;
	uint64_t	capacity;
	uint64_t	count;			/* distinct hashes held, has_zero included */
	bool		has_zero;
} bf_hashset;

/* Whether one more hash would push the load past 3/4. */
static inline bool
bf_hashset_full(const bf_hashset *set)
{
	return (set->count + 1) * 4 > set->capacity * 3;
}

/* Add hash (the set must not be full); true if it was not there yet. */
extern bool bf_hashset_add(bf_hashset *set, bf_hash hash);
/* Add every hash of from to to (which must have room for them). */
extern void bf_hashset_move(const bf_hashset *from, bf_hashset *to);
/*
 * Walk the set: start from iter = {0, false}; each call gives the next hash
 * (the zero hash first, then in slot order), false when there are no more.
 */
typedef struct bf_hashset_iter
{
	uint64_t	slot;
	bool		zero_done;
} bf_hashset_iter;
extern bool bf_hashset_next(const bf_hashset *set, bf_hashset_iter *iter, bf_hash *hash);

/*
 * Exact phase.  bf_auto_exact_max_m: an m that any n distinct values meet
 * the bound at, the most bf_auto_choose_exact can choose; 0 if it would be
 * above limit_m (the caller passes the sketch size).  bf_auto_choose_exact:
 * the m chosen for the n = set->count hashes, given max_m for n; bits must
 * have room for max_m bits, and on return its first
 * bloom_payload_bytes(m) bytes are the filter.
 */
extern uint64_t bf_auto_exact_max_m(uint64_t n, double p, uint32_t k, uint64_t limit_m);
extern uint64_t bf_auto_choose_exact(const bf_hashset *set, double p, uint32_t k,
									 uint64_t max_m, uint8_t *bits);

/*
 * Sketch phase: the sizes a sketch of sketch_m = c * 2^J bits (c odd) can be
 * folded to are sketch_m / (d * 2^i) for d dividing c; bf_auto_ladder_next
 * gives the smallest one above m (0 if none).  bf_auto_choose_sketch returns
 * the size chosen for the sketch, or 0 when even sketch_m misses the target
 * (more values than the sketch can hold).
 */
extern uint64_t bf_auto_ladder_next(uint64_t sketch_m, uint64_t m);
extern uint64_t bf_auto_choose_sketch(const uint8_t *bits, uint64_t sketch_m,
									  uint32_t k, double p);

/*
 * Fold a filter of src_m bits into dst_m bits, where src_m = f * dst_m:
 * bit i of the result is the OR of bits f*i .. f*i + f - 1.  Because
 * positions are floor(g m / 2^64), the result is bit for bit the filter the
 * same values build at dst_m bits.  dst (bloom_payload_bytes(dst_m) bytes)
 * is overwritten.  bf_fold_popcount counts the bits the fold would set
 * without writing it.
 */
extern void bf_fold(const uint8_t *src, uint64_t src_m, uint8_t *dst, uint64_t dst_m);
extern uint64_t bf_fold_popcount(const uint8_t *src, uint64_t src_m, uint64_t dst_m);

#endif							/* BLOOM_CORE_H */
