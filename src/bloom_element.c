/*
 * bloom_element.c: the element operations bloom_add, bloom_contains and
 * bloom_contained_by.  Values become hashes in bloom_encoding.c.
 */
#include "bloom_pg.h"

/*
 * A view's hash scheme was checked when it was read, so this is reached only
 * if a scheme is accepted there but not implemented here.
 */
pg_noreturn static void
bloom_unsupported_hash_scheme(const BloomView *view)
{
	ereport(ERROR,
			errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			errmsg("bloom filter hash scheme %u is not supported",
				   view->header.hash_scheme));
}

/*
 * bf_contains_hash without its early exit.  In a filter larger than the CPU
 * cache each probe is a cache miss; reading all k bits with no branch
 * between them lets the CPU wait for the misses together, and spares the
 * mispredicted branch that an early exit costs on about every other lookup.
 */
static inline bool
bloom_view_contains_hash(const BloomView *view, bf_hash hash)
{
	uint64		x = hash.h1;
	uint64		y = hash.h2;
	uint32		all_set = 1;

	for (uint32 i = 0; i < view->header.k; i++)
	{
		uint64		position = bf_reduce(x, view->header.m);

		all_set &= view->bits[position >> 3] >> (position & 7);
		x += y;
		y += i + 1;
	}
	return (all_set & 1) != 0;
}

/* The membership test both contains functions share: the semi-join hot path. */
static pg_attribute_always_inline bool
bloom_test_arguments(FunctionCallInfo fcinfo, int filter_argno, int value_argno)
{
	BloomView	view;
	BloomEncoder *encoder;

	bloom_getarg(fcinfo, filter_argno, &view);
	encoder = bloom_call_encoder(fcinfo, value_argno);
	switch (view.header.hash_scheme)
	{
		case BLOOM_HASH_XXH3_EDH:
			return bloom_view_contains_hash(&view,
											bloom_encoder_hash(encoder, PG_GETARG_DATUM(value_argno),
															   view.header.flags, NULL));
		case BLOOM_HASH_XXH3_BLOCKED:
			return bf_contains(view.bits, view.header.m, view.header.k, BLOOM_HASH_XXH3_BLOCKED,
							   bloom_encoder_hash(encoder, PG_GETARG_DATUM(value_argno),
												  view.header.flags, NULL));
	}
	bloom_unsupported_hash_scheme(&view);
}

PG_FUNCTION_INFO_V1(bloom_add);
Datum
bloom_add(PG_FUNCTION_ARGS)
{
	BloomView	view;
	BloomEncoder *encoder;
	BloomFilter *filter;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	/* A NULL value leaves the filter as it is: the very same datum. */
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));

	bloom_getarg(fcinfo, 0, &view);
	encoder = bloom_call_encoder(fcinfo, 1);
	filter = bloom_copy(&view);
	switch (view.header.hash_scheme)
	{
		case BLOOM_HASH_XXH3_EDH:
		case BLOOM_HASH_XXH3_BLOCKED:
			bf_add(filter->bits, filter->m, filter->k, filter->hash_scheme,
				   bloom_encoder_hash(encoder, PG_GETARG_DATUM(1),
									  filter->flags, &filter->flags));
			break;
		default:
			bloom_unsupported_hash_scheme(&view);
	}
	PG_RETURN_POINTER(filter);
}

PG_FUNCTION_INFO_V1(bloom_contains);
Datum
bloom_contains(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(bloom_test_arguments(fcinfo, 0, 1));
}

PG_FUNCTION_INFO_V1(bloom_contained_by);
Datum
bloom_contained_by(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(bloom_test_arguments(fcinfo, 1, 0));
}
