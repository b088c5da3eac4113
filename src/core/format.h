/*
 * core/format.h: the stored form of a bloom filter, its version fields and limits.
 *
 * Every other file starts from this header.  It is plain C (no postgres.h)
 * so that the core, its unit tests and its fuzzers can use it without a
 * server.
 *
 * A filter is a varlena.  After the varlena length word comes a 12-byte
 * header and the bit array:
 *
 *     offset  size  field
 *     0       4     varlena length word (PostgreSQL's)
 *     4       1     format_version   BLOOM_FORMAT_VERSION
 *     5       1     hash_scheme      BLOOM_HASH_XXH3_EDH or BLOOM_HASH_XXH3_BLOCKED
 *     6       1     k                number of probes, 1..BLOOM_K_MAX
 *     7       1     flags            BLOOM_FLAG_*; all other bits zero
 *     8       8     m                number of bits, 1..BLOOM_M_MAX (native order on disk)
 *     16      n     bits             n = bloom_payload_bytes(m), a multiple of 8
 *
 * Bit i lives in byte i / 8 under mask 1 << (i % 8).  That is the same
 * layout as little-endian 64-bit words, and it does not depend on the
 * machine's byte order, so the serialized forms (text and binary) carry the
 * bit array unchanged.  Bits at positions >= m (the padding up to the next
 * multiple of 64) are always zero: validation rejects anything else, so two
 * filters with the same set bits are byte-identical.
 *
 * A datum may arrive with a short (1-byte) varlena header, in which case
 * nothing after the length word is aligned; readers go through
 * bloom_header_read(), which copies the header out with memcpy.
 */
#ifndef BLOOM_H
#define BLOOM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Version of the layout above.  A reader refuses any other value. */
#define BLOOM_FORMAT_VERSION 1

/*
 * Hash schemes.  A filter records the scheme its bits were set with, so that
 * a later scheme can be added while filters stored under an older one keep
 * working.  Scheme 1: XXH3-128 of the value's canonical bytes, enhanced
 * double hashing over a 64-bit index space, multiply-shift range reduction
 * (see core/probe.h for the derivation).
 *
 * Scheme 2: the same XXH3-128 hash; h1 picks one block of BLOOM_BLOCK_BITS
 * bits (one 64-byte cache line) and h2 the k bits inside it, so adding or
 * looking up a value touches one cache line instead of k.  m is a multiple
 * of BLOOM_BLOCK_BITS (core/probe.h).  New filters of 2 MiB and more use
 * it (core/shape.c, "sizing blocked filters").
 */
#define BLOOM_HASH_XXH3_EDH 1
#define BLOOM_HASH_XXH3_BLOCKED 2
#define BLOOM_HASH_SCHEME_MAX BLOOM_HASH_XXH3_BLOCKED
#define BLOOM_BLOCK_BITS 512

/*
 * Header flags.  BLOOM_FLAG_TEXT_UTF8: text reaches the hash as UTF-8 (text
 * types converted from the database encoding, send functions run with the
 * client encoding set to UTF-8), so the filter answers the same in
 * databases of any encoding.  Without it, text is hashed as the database
 * encoding's bytes: filters made before 1.2 keep that reading.  Where the
 * two agree (UTF8 and SQL_ASCII databases, ASCII text), new filters leave it
 * unset and stay byte-identical to older ones; encoding/encoding.c's essay says
 * when it is set.  Releases before 1.2 refuse a filter with any flag set.
 */
#define BLOOM_FLAG_TEXT_UTF8 0x01
#define BLOOM_FLAGS_KNOWN BLOOM_FLAG_TEXT_UTF8

/* Size of the header that follows the varlena length word. */
#define BLOOM_HEADER_BYTES 12
/* Offset of the bit array from the start of a 4-byte-header varlena. */
#define BLOOM_BITS_OFFSET (4 + BLOOM_HEADER_BYTES)

#define BLOOM_K_MIN 1
#define BLOOM_K_MAX 64

/*
 * The largest value PostgreSQL can store or allocate (MaxAllocSize, also the
 * varlena limit) is 0x3fffffff bytes.  The largest filter is the one whose
 * whole varlena fits in it.
 */
#define BLOOM_MAX_VARLENA_BYTES ((uint64_t) 0x3fffffff)
#define BLOOM_MAX_PAYLOAD_BYTES \
	(((BLOOM_MAX_VARLENA_BYTES - BLOOM_BITS_OFFSET) / 8) * 8)
#define BLOOM_M_MAX (BLOOM_MAX_PAYLOAD_BYTES * 8)

/* The header fields, as the code handles them (not as stored). */
typedef struct BloomHeader
{
	uint8_t		format_version;
	uint8_t		hash_scheme;
	uint8_t		k;
	uint8_t		flags;
	uint64_t	m;
} BloomHeader;

/* The stored form of a filter with a 4-byte varlena header. */
typedef struct BloomFilter
{
	int32_t		vl_len_;		/* varlena header; do not touch directly */
	uint8_t		format_version;
	uint8_t		hash_scheme;
	uint8_t		k;
	uint8_t		flags;
	uint64_t	m;
	uint8_t		bits[];
} BloomFilter;

/* Bytes in the bit array of a filter of m bits: whole 64-bit words. */
static inline uint64_t
bloom_payload_bytes(uint64_t m)
{
	return ((m + 63) / 64) * 8;
}

/*
 * Read the header from the bytes that follow the varlena length word.  The
 * caller has checked that at least BLOOM_HEADER_BYTES are there.
 */
static inline void
bloom_header_read(const uint8_t *body, BloomHeader *header)
{
	header->format_version = body[0];
	header->hash_scheme = body[1];
	header->k = body[2];
	header->flags = body[3];
	memcpy(&header->m, body + 4, sizeof(uint64_t));
}

/* Write the header in front of the bit array (the inverse of the above). */
static inline void
bloom_header_write(uint8_t *body, const BloomHeader *header)
{
	body[0] = header->format_version;
	body[1] = header->hash_scheme;
	body[2] = header->k;
	body[3] = header->flags;
	memcpy(body + 4, &header->m, sizeof(uint64_t));
}

#endif							/* BLOOM_H */
