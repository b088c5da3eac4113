/*
 * fuzz.h: what the libFuzzer harnesses in test/fuzz/ share.
 *
 * Each harness defines LLVMFuzzerTestOneInput and is built with
 * clang -fsanitize=fuzzer,address,undefined (see test/unit.mk, "make
 * fuzzcheck").  A broken invariant prints the condition and aborts, which
 * libFuzzer reports as a crash and saves the input as a reproducer.
 */
#ifndef BLOOM_FUZZ_H
#define BLOOM_FUZZ_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

#define FUZZ_ASSERT(cond) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", \
					__FILE__, __LINE__, #cond); \
			abort(); \
		} \
	} while (0)

extern int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void *
fuzz_malloc(size_t n)
{
	void	   *p = malloc(n > 0 ? n : 1);

	if (p == NULL)
		abort();
	return p;
}

/* A copy of data in a buffer of exactly len bytes. */
static inline uint8_t *
fuzz_copy(const uint8_t *data, size_t len)
{
	uint8_t    *p = fuzz_malloc(len);

	if (len > 0)
		memcpy(p, data, len);
	return p;
}

static inline bool
fuzz_header_equal(const BloomHeader *a, const BloomHeader *b)
{
	return a->format_version == b->format_version &&
		a->hash_scheme == b->hash_scheme && a->k == b->k &&
		a->flags == b->flags && a->m == b->m;
}

/*
 * Bits at positions >= m are zero: checked bit by bit here, independently
 * of bf_check_bits, which is one of the functions under test.
 */
static inline bool
fuzz_padding_is_zero(uint64_t m, const uint8_t *bits, size_t nbytes)
{
	for (uint64_t i = m; i < (uint64_t) nbytes * 8; i++)
		if ((bits[i / 8] >> (i % 8)) & 1)
			return false;
	return true;
}

/*
 * Decode the text form exactly as bloom_decode_text (src/types/bloom/io.c) does:
 * header, then the length the header implies, and only then allocate and
 * decode the bits.  On BF_OK *bits is a new array of
 * bloom_payload_bytes(header->m) bytes, which the caller frees.
 */
static inline bf_status
fuzz_decode_text(const char *text, size_t len, BloomHeader *header,
				 uint8_t **bits)
{
	size_t		payload_offset = 0;
	uint64_t	nbytes;
	uint8_t    *array;
	bf_status	status;

	*bits = NULL;
	status = bf_text_decode_header(text, len, header, &payload_offset);
	if (status != BF_OK)
		return status;
	FUZZ_ASSERT(bf_check_header(header) == BF_OK);
	FUZZ_ASSERT(payload_offset <= len);
	if (bf_text_length(header) != len)
		return BF_LENGTH;

	nbytes = bloom_payload_bytes(header->m);
	/* the length check bounds the allocation by the input's size */
	FUZZ_ASSERT(nbytes <= len);
	array = fuzz_malloc((size_t) nbytes);
	/* not zeroed: the decoder must write every byte */
	memset(array, 0xa5, (size_t) nbytes);
	status = bf_text_decode_bits(text + payload_offset, len - payload_offset,
								 header, array);
	if (status != BF_OK)
	{
		free(array);
		return status;
	}
	*bits = array;
	return BF_OK;
}

#endif							/* BLOOM_FUZZ_H */
