/*
 * core/core.h: the bloom filter core, plain C with no PostgreSQL dependency.
 *
 * The one header the SQL layer, the unit tests and the fuzzers include for
 * the core.  Everything here can be unit-tested and fuzzed without a server
 * (see test/).  All core functions are prefixed bf_.  The core is one file
 * per job, each with its design notes at the top; doc/development.md lists
 * them, and test/layout.sh checks that list against the tree.
 */
#ifndef BLOOM_CORE_H
#define BLOOM_CORE_H

#include "core/base.h"

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
	BF_BASE64,					/* bit array is not canonical base64 */
	/* scalable filters (core/scalable.h) */
	BF_GROWTH_RANGE,			/* growth s not 2 or 4 */
	BF_TIGHTENING_RANGE,		/* tightening r not in (0, 1) */
	BF_RATE_UNHOLDABLE,			/* a stage below 1 GB would need k > 64 */
	BF_STAGES,					/* stage count, options or reserved bytes */
	BF_STAGE_COUNT,				/* a stage's count above its capacity, or not full */
	BF_STAGE_SHAPE,				/* a stage's shape is not the one its parameters give */
	BF_SCALABLE_SYNTAX,			/* scalable text form not of the expected shape */
	/* counting filters (core/counting.h) */
	BF_COUNTING_TOO_LARGE,		/* m > BF_COUNTING_M_MAX */
	BF_COUNTING_LENGTH,			/* counter array length does not match m */
	BF_COUNTING_PADDING,		/* a counter at a position >= m is not zero */
	BF_COUNTING_SYNTAX			/* counting text form not of the expected shape */
} bf_status;

extern const char *bf_status_message(bf_status status);

/*
 * Called every BF_INTERRUPT_STRIDE bytes by loops over large filters, so the
 * server can honour query cancel.  NULL (the default) means no check.
 */
#define BF_INTERRUPT_STRIDE ((size_t) 1 << 20)
extern void (*bf_interrupt_hook) (void);

static inline void
bf_check_interrupts(void)
{
	if (bf_interrupt_hook != NULL)
		bf_interrupt_hook();
}

/* ---- shapes (core/shape.c) ---- */

/* bloom_agg(value) and bloom_empty() use this false-positive rate. */
#define BF_DEFAULT_FALSE_POSITIVE_RATE 0.01
/* bloom_empty() is sized for this many values (about 12 kB at 0.01). */
#define BF_DEFAULT_CAPACITY 10000

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

/* ---- hashing and probes ---- */

/*
 * The hash of a value (bf_hash, bf_hash_bytes) is in core/base.h; probe
 * positions, add and contains under each scheme, and the adder here.
 */
#include "core/probe.h"

/* ---- whole-array operations (core/bits.c; nbytes is a multiple of 8) ---- */

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

/*
 * Fold a scheme 1 filter of src_m bits into dst_m bits, where src_m = f *
 * dst_m: bit i of the result is the OR of bits f*i .. f*i + f - 1, which is
 * bit for bit the filter the same values build at dst_m bits
 * (core/autosize.c explains why).  dst (bloom_payload_bytes(dst_m) bytes)
 * is overwritten.  bf_fold_popcount counts the bits the fold would set
 * without writing it.
 */
extern void bf_fold(const uint8_t *src, uint64_t src_m, uint8_t *dst, uint64_t dst_m);

/*
 * Bit-slice rows (core/slices.c): OR bit p of rows[j] into bit column + j of
 * slice p, for every p < m, where slice p is the slice_bytes bytes at
 * slices + p * slice_bytes (bits little-endian, as a filter's).  Each row
 * holds bloom_payload_bytes(m) bytes; slice_bytes is a multiple of 8 with
 * column + nrows <= 8 * slice_bytes.
 */
extern void bf_slice_rows(const uint8_t *const *rows, uint32_t nrows, uint32_t column,
						  uint64_t m, uint8_t *slices, uint32_t slice_bytes);
extern uint64_t bf_fold_popcount(const uint8_t *src, uint64_t src_m, uint64_t dst_m);

/*
 * Eight bytes as a little-endian 64-bit word, and back: on a little-endian
 * machine a plain load or store; elsewhere the compiler turns the byte
 * loops into a byte-reversed one.
 */
static inline uint64_t
bf_load_le64(const uint8_t *p)
{
	uint64_t	word = 0;

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&word, p, sizeof(word));
#else
	for (int i = 7; i >= 0; i--)
		word = word << 8 | p[i];
#endif
	return word;
}

static inline void
bf_store_le64(uint8_t *p, uint64_t word)
{
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &word, sizeof(word));
#else
	for (int i = 0; i < 8; i++, word >>= 8)
		p[i] = (uint8_t) word;
#endif
}

/* The same for 32-bit fields (the scalable filter's, core/scalable.c). */
static inline uint32_t
bf_load_le32(const uint8_t *p)
{
	return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
		(uint32_t) p[3] << 24;
}

static inline void
bf_store_le32(uint8_t *p, uint32_t value)
{
	for (int i = 0; i < 4; i++, value >>= 8)
		p[i] = (uint8_t) value;
}

/*
 * The sparse form of a bit array of nbytes bytes (core/sparse.c): a kind
 * byte, then either the number of nonzero bytes (a little-endian 64-bit
 * word) and the gaps between them, each followed by the byte
 * (BF_SPARSE_GAPS), or the masks of the nonzero bytes of each
 * 64-byte block (little-endian 64-bit words) followed by those bytes
 * (BF_SPARSE_MASKS), whichever is shorter.
 * bf_sparse_encode writes it to out, which has room for
 * bf_sparse_bound(nbytes) bytes, and returns its length; bf_sparse_check:
 * whether length bytes at in are a well-formed sparse form of an array of
 * nbytes bytes; bf_sparse_or_into ORs a checked one (length bytes) into
 * bits.
 */
#define BF_SPARSE_MASKS 0
#define BF_SPARSE_GAPS 1

static inline size_t
bf_sparse_blocks(size_t nbytes)
{
	return (nbytes + 63) / 64;
}

static inline size_t
bf_sparse_bound(size_t nbytes)
{
	return 1 + bf_sparse_blocks(nbytes) * sizeof(uint64_t) + nbytes;
}

extern size_t bf_sparse_encode(const uint8_t *bits, size_t nbytes, uint8_t *out);
extern bool bf_sparse_check(const uint8_t *in, size_t length, size_t nbytes);
extern void bf_sparse_or_into(uint8_t *bits, size_t nbytes, const uint8_t *in, size_t length);

/*
 * The gaps form written a piece of the array at a time (for an array that
 * exists only in pieces, core/probe.h): bf_sparse_gaps_begin for an array
 * of nbytes bytes, with out as for bf_sparse_encode; bf_sparse_gaps_put for
 * each piece, in order of offset (the piece's first byte in the array);
 * bf_sparse_gaps_end returns the form's length, or 0 when the masks form
 * is the shorter one, which bf_sparse_encode would then have written.  The
 * two ways write the same bytes.
 */
typedef struct bf_sparse_gaps
{
	uint8_t    *out;
	size_t		length;			/* bytes written */
	size_t		overhead;		/* of them, bytes of gaps and the count */
	uint64_t	count;			/* nonzero bytes */
	size_t		budget;			/* the masks' bytes: more gap bytes, and the masks win */
	uint64_t	next;			/* the offset after the last nonzero byte */
} bf_sparse_gaps;

extern void bf_sparse_gaps_begin(bf_sparse_gaps *gaps, size_t nbytes, uint8_t *out);
extern void bf_sparse_gaps_put(bf_sparse_gaps *gaps, const uint8_t *piece, size_t length,
							   uint64_t offset);
extern size_t bf_sparse_gaps_end(const bf_sparse_gaps *gaps);

/* ---- estimates (core/estimate.c) ---- */

/*
 * Swamidass-Baldi: n* = -(m/k) ln(1 - X/m) under scheme 1, and its blocked
 * form -(m/512) ln(1 - X/m) / (1 - (1 - 1/512)^k) under scheme 2;
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

/* ---- serialized forms (core/codec.c) ---- */

/*
 * Text form:  bloom:v<format>:h<scheme>:m<m>:k<k>:<base64 of the bit array>
 * e.g.        bloom:v1:h1:m18:k3:AAAAAAAAAAA=
 * Decimal numbers without sign or leading zeros; standard base64 with '='
 * padding and zero unused bits, so every filter has exactly one text form.
 */
/* Exact length of the text form (without the terminating NUL). */
extern uint64_t bf_text_length(const BloomHeader *header);
/*
 * The header part alone ("bloom:v1:h1:m95851:k7:", a filter's shape): its
 * length, and bf_text_encode_header writes it at out (no NUL) and returns
 * the position after it.
 */
extern uint64_t bf_text_header_length(const BloomHeader *header);
extern char *bf_text_encode_header(const BloomHeader *header, char *out);
/* Writes bf_text_length() characters and a NUL into out. */
extern void bf_text_encode(const BloomHeader *header, const uint8_t *bits, char *out);
/*
 * Parse and check the header part of the text form in text[0..len).  On
 * success *payload_offset is where the base64 starts.
 */
extern bf_status bf_text_decode_header(const char *text, size_t len,
									   BloomHeader *header, size_t *payload_offset);
/*
 * The same three for the text form of another type with this header
 * (core/counting.h): prefix is its "<type>:" in place of "bloom:".
 */
extern uint64_t bf_text_header_length_for(const char *prefix, const BloomHeader *header);
extern char *bf_text_encode_header_for(const char *prefix, const BloomHeader *header,
									   char *out);
extern bf_status bf_text_decode_header_for(const char *prefix, const char *text, size_t len,
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
/* Decode and check the binary header alone (BF_LENGTH when len is shorter). */
extern bf_status bf_binary_decode_header(const uint8_t *data, size_t len, BloomHeader *header);

/*
 * Sparse binary form: a filter (or counting filter) whose bytes are mostly
 * zero, its array of nbytes bytes in the sparse form of bf_sparse_encode
 * (core/bits.c).  It travels only between this extension's own functions
 * (a partial state from a Citus worker to the coordinator, sent by the
 * type's send function under an aggregate), and the binary inputs accept it
 * as well as the binary form:
 *
 *   byte 0        BF_BINARY_SPARSE_MARKER (not a format version)
 *   bytes 1-11    hash_scheme, k, flags, m, as in the binary form
 *   then          bf_sparse_encode's form of the array
 *
 * bf_binary_sparse_encode writes it to out, which has room for
 * BF_BINARY_HEADER_BYTES + bf_sparse_bound(nbytes) bytes, and returns its
 * length.  bf_binary_sparse_header copies the header of data into plain as
 * the binary form's (BF_FORMAT_VERSION when data is not sparse, BF_LENGTH
 * when it is too short); bf_binary_sparse_expand, once data is known to
 * describe an array of nbytes bytes, checks that the rest of data is
 * exactly its sparse form, and if so ORs it into array (nbytes zero bytes;
 * NULL to check only).  The type's own binary checks then apply to the
 * expanded form.
 */
#define BF_BINARY_SPARSE_MARKER 0x81
extern size_t bf_binary_sparse_encode(const BloomHeader *header, const uint8_t *array,
									  size_t nbytes, uint8_t *out);
extern bf_status bf_binary_sparse_header(const uint8_t *data, size_t len, uint8_t *plain);
extern bool bf_binary_sparse_expand(const uint8_t *data, size_t len, size_t nbytes,
									uint8_t *array);

/* base64, exposed for the unit tests and the fuzzers */
extern uint64_t bf_base64_length(uint64_t nbytes);
extern void bf_base64_encode(const uint8_t *src, size_t nbytes, char *dst);
extern bf_status bf_base64_decode(const char *src, size_t len, uint8_t *dst,
								  size_t nbytes);

#endif							/* BLOOM_CORE_H */
