/*
 * types/bloom/compare.c: equality (= and <>) and hashing of whole filters, the
 * bloom type's hash operator class, and the comparison and hash that
 * counting_bloom's and scalable_bloom's share; equal filters hash equally.
 */
#include "postgres.h"

#include "types/types.h"

#include "miscadmin.h"

bool
bloom_views_equal(const BloomView *a, const BloomView *b, bool compare_flags)
{
	return a->header.m == b->header.m &&
		a->header.k == b->header.k &&
		a->header.hash_scheme == b->header.hash_scheme &&
		(!compare_flags || a->header.flags == b->header.flags) &&
		memcmp(a->bits, b->bits, a->nbytes) == 0;
}

uint64
bloom_hash_payload(const uint8 *prefix, size_t prefix_length, const uint8 *bytes,
				   size_t nbytes, uint64 seed)
{
	XXH3_state_t state;

	memset(&state, 0, sizeof(state));	/* the reset reads two fields first */
	XXH3_64bits_reset_withSeed(&state, seed);
	if (prefix_length > 0)
		XXH3_64bits_update(&state, prefix, prefix_length);
	for (size_t offset = 0; offset < nbytes; offset += BF_INTERRUPT_STRIDE)
	{
		CHECK_FOR_INTERRUPTS();
		XXH3_64bits_update(&state, bytes + offset, Min(BF_INTERRUPT_STRIDE, nbytes - offset));
	}
	return XXH3_64bits_digest(&state);
}

/*
 * XXH3_64bits_withSeed over exactly what bloom_views_equal compares, so
 * equal filters hash equally: hash_scheme (1 byte), k (1 byte), flags (1
 * byte, when they are compared), m (8 bytes, little-endian whatever the
 * machine) and then the bits (or counters), which are already byte-order
 * independent.
 */
uint64
bloom_hash_view(const BloomView *view, bool hash_flags, uint64 seed)
{
	uint8		header[11];
	size_t		length = 0;

	header[length++] = view->header.hash_scheme;
	header[length++] = view->header.k;
	if (hash_flags)
		header[length++] = view->header.flags;
	for (int i = 0; i < 8; i++)
		header[length++] = (uint8) (view->header.m >> (8 * i));
	return bloom_hash_payload(header, length, view->bits, view->nbytes, seed);
}

PG_FUNCTION_INFO_V1(bloom_eq);
Datum
bloom_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(bloom_layout_args_equal(fcinfo, &bloom_layout));
}

PG_FUNCTION_INFO_V1(bloom_ne);
Datum
bloom_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!bloom_layout_args_equal(fcinfo, &bloom_layout));
}

/* Hash support 1: the low 32 bits of the seed-0 extended hash, as required. */
PG_FUNCTION_INFO_V1(bloom_hash);
Datum
bloom_hash(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) (uint32) bloom_layout_arg_hash(fcinfo, &bloom_layout, 0));
}

PG_FUNCTION_INFO_V1(bloom_hash_extended);
Datum
bloom_hash_extended(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) bloom_layout_arg_hash(fcinfo, &bloom_layout,
												  (uint64) PG_GETARG_INT64(1)));
}
