/*
 * bloom_compare.c: equality (= and <>) and hashing of whole filters, the
 * bloom type's hash operator class; equal filters hash equally.
 */
#include "postgres.h"

#include "bloom_pg.h"

#include "miscadmin.h"

/*
 * Whether the two filter arguments have the same m, k, hash scheme and bits.
 * Validation makes the format version, the flags and the padding bits the
 * same in every valid filter, so this is byte equality of the values.
 */
static bool
bloom_args_equal(FunctionCallInfo fcinfo)
{
	BloomView	a;
	BloomView	b;

	bloom_getarg(fcinfo, 0, &a);
	bloom_getarg(fcinfo, 1, &b);
	return a.header.m == b.header.m &&
		a.header.k == b.header.k &&
		a.header.hash_scheme == b.header.hash_scheme &&
		memcmp(a.bits, b.bits, a.nbytes) == 0;
}

PG_FUNCTION_INFO_V1(bloom_eq);
Datum
bloom_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(bloom_args_equal(fcinfo));
}

PG_FUNCTION_INFO_V1(bloom_ne);
Datum
bloom_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!bloom_args_equal(fcinfo));
}

/*
 * XXH3_64bits_withSeed over exactly what bloom_eq compares, so equal
 * filters hash equally: hash_scheme (1 byte), k (1 byte), m (8 bytes,
 * little-endian whatever the machine) and then the bit array, which is
 * already byte-order independent.  The bits are fed in slices so a query on
 * a huge filter can be cancelled.
 */
static uint64
bloom_hash_view(const BloomView *view, uint64 seed)
{
	XXH3_state_t state;
	uint8		header[10];
	size_t		offset;

	header[0] = view->header.hash_scheme;
	header[1] = view->header.k;
	for (int i = 0; i < 8; i++)
		header[2 + i] = (uint8) (view->header.m >> (8 * i));

	memset(&state, 0, sizeof(state));	/* the reset reads two fields first */
	XXH3_64bits_reset_withSeed(&state, seed);
	XXH3_64bits_update(&state, header, sizeof(header));
	for (offset = 0; offset < view->nbytes; offset += BF_INTERRUPT_STRIDE)
	{
		CHECK_FOR_INTERRUPTS();
		XXH3_64bits_update(&state, view->bits + offset,
						   Min(BF_INTERRUPT_STRIDE, view->nbytes - offset));
	}
	return XXH3_64bits_digest(&state);
}

/* Hash support 1: the low 32 bits of the seed-0 extended hash, as required. */
PG_FUNCTION_INFO_V1(bloom_hash);
Datum
bloom_hash(PG_FUNCTION_ARGS)
{
	BloomView	view;

	bloom_getarg(fcinfo, 0, &view);
	PG_RETURN_INT32((int32) (uint32) bloom_hash_view(&view, 0));
}

PG_FUNCTION_INFO_V1(bloom_hash_extended);
Datum
bloom_hash_extended(PG_FUNCTION_ARGS)
{
	BloomView	view;

	bloom_getarg(fcinfo, 0, &view);
	PG_RETURN_INT64((int64) bloom_hash_view(&view, (uint64) PG_GETARG_INT64(1)));
}
