/*
 * core/base.h: what core/core.h and core/probe.h both build on: the compiler
 * helpers of the inline hot paths and the 128-bit hash of a value.  Plain C,
 * no postgres.h; included through core/core.h everywhere else.
 */
#ifndef BLOOM_CORE_BASE_H
#define BLOOM_CORE_BASE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/format.h"
#include "core/real.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

/*
 * The stored format depends on the exact output of XXH3: bf_hash_bytes
 * decides which bits a value sets, and bloom_hash's values are kept in hash
 * indexes.  xxHash froze that output in 0.8.0; earlier releases marked XXH3
 * experimental and changed it, and a build against one would misread every
 * stored filter.
 */
#if !defined(XXH_VERSION_NUMBER) || XXH_VERSION_NUMBER < 800
#error "bloomfilter needs xxHash 0.8.0 or newer (xxhash.h): the stored format depends on XXH3's output, which xxHash froze in 0.8.0"
#endif

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

/* ---- hashing ---- */

typedef struct bf_hash
{
	uint64_t	h1;
	uint64_t	h2;
} bf_hash;

/* The 128-bit hash of a value's canonical bytes (both schemes). */
static inline bf_hash
bf_hash_bytes(const void *data, size_t len)
{
	XXH128_hash_t h = XXH3_128bits(data, len);
	bf_hash		result;

	result.h1 = h.low64;
	result.h2 = h.high64;
	return result;
}

/*
 * The bits a float4 or float8 value is hashed by (as 8 bytes little-endian):
 * its IEEE-754 binary64 bits (a float4 widened first, which is exact), -0
 * as +0 and every NaN as BF_CANONICAL_NAN_BITS, so that values SQL finds
 * equal hash equally.  Part of the stored format: it never changes.  The
 * server's encoder (encoding/encoding.c) and the client libraries use this
 * one definition.
 */
#define BF_CANONICAL_NAN_BITS UINT64_C(0x7ff8000000000000)

static inline uint64_t
bf_float8_canonical_bits(double value)
{
	uint64_t	bits;

	if (isnan(value))
		return BF_CANONICAL_NAN_BITS;
	if (value == 0.0)
		value = 0.0;			/* -0 compares equal to +0 */
	memcpy(&bits, &value, sizeof(bits));
	return bits;
}

#endif							/* BLOOM_CORE_BASE_H */
