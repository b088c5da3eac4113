/*
 * bloom_element.c: the element operations bloom_add, bloom_contains and
 * bloom_contained_by.  Values become hashes in bloom_encoding.c; the probes
 * are the core's (core_probe.h).
 */
#include "bloom_pg.h"

/*
 * A view's hash scheme was checked when it was read (bf_check_header), so
 * only a scheme accepted there but not implemented here gets this far: an
 * internal error, not one a user can cause.
 */
pg_noreturn static void
bloom_unexpected_hash_scheme(const BloomView *view)
{
	elog(ERROR, "unexpected bloom hash scheme %u", view->header.hash_scheme);
	pg_unreachable();
}

/* The value's hash for a filter with the view's flags. */
static pg_attribute_always_inline bf_hash
bloom_hash_argument(FunctionCallInfo fcinfo, int value_argno, const BloomView *view)
{
	return bloom_encoder_hash(bloom_call_encoder(fcinfo, value_argno),
							  PG_GETARG_DATUM(value_argno), view->header.flags, NULL);
}

/*
 * The test on a stored filter read by slices, out of line so that the hot
 * path below carries nothing of it.
 */
static pg_noinline bool
bloom_test_slices(FunctionCallInfo fcinfo, int filter_argno, int value_argno,
				  const BloomView *view)
{
	return bloom_lookup_slices(fcinfo, filter_argno, view,
							   bloom_hash_argument(fcinfo, value_argno, view));
}

/* The membership test both contains functions share: the semi-join hot path. */
static pg_attribute_always_inline bool
bloom_test_arguments(FunctionCallInfo fcinfo, int filter_argno, int value_argno)
{
	BloomView	view;
	bf_hash		hash;

	/* a stored filter read by slices until it is worth detoasting */
	if (unlikely(!bloom_getarg_lookup(fcinfo, filter_argno, &view)))
		return bloom_test_slices(fcinfo, filter_argno, value_argno, &view);
	hash = bloom_hash_argument(fcinfo, value_argno, &view);
	/* a constant scheme in each case, so that each inlines one path */
	switch (view.header.hash_scheme)
	{
		case BLOOM_HASH_XXH3_EDH:
			return bf_contains(view.bits, view.header.m, view.header.k, BLOOM_HASH_XXH3_EDH, hash);
		case BLOOM_HASH_XXH3_BLOCKED:
			return bf_contains(view.bits, view.header.m, view.header.k, BLOOM_HASH_XXH3_BLOCKED,
							   hash);
	}
	bloom_unexpected_hash_scheme(&view);
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
			bloom_unexpected_hash_scheme(&view);
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
