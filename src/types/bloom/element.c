/*
 * types/bloom/element.c: the element operations bloom_add, bloom_add_all,
 * bloom_contains and bloom_contained_by, and bloom_array_fold, the array
 * loop of every filter type's bloom_add_all and bloom_remove_all.  Values
 * become hashes in encoding/encoding.c; the probes are the core's
 * (core/probe.h).
 */
#include "postgres.h"

#include "types/types.h"

#include "miscadmin.h"
#include "utils/array.h"
#include "utils/memutils.h"

/*
 * The test on a stored filter read by slices, out of line so that the hot
 * paths of contains carry nothing of it.
 */
pg_noinline bool
bloom_test_slices(FunctionCallInfo fcinfo, int filter_argno, int value_argno,
				  const BloomLayout *layout, const BloomView *view)
{
	return bloom_lookup_slices(fcinfo, filter_argno, layout, view,
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
		return bloom_test_slices(fcinfo, filter_argno, value_argno, &bloom_layout, &view);
	hash = bloom_hash_argument(fcinfo, value_argno, &view);
	return bf_contains(view.bits, view.header.m, view.header.k, view.header.hash_scheme, hash);
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
	bf_add(filter->bits, filter->m, filter->k, filter->hash_scheme,
		   bloom_encoder_hash(encoder, PG_GETARG_DATUM(1), filter->flags, &filter->flags));
	PG_RETURN_POINTER(filter);
}

/*
 * bloom_array_fold's body, inlined into bloom_add_all too, where the fold is
 * a constant: its calls become direct, and the adder's stay in the loop.
 */
static pg_attribute_always_inline Datum
bloom_array_fold_inline(FunctionCallInfo fcinfo, const BloomArrayFold *fold, void *state)
{
	ArrayType  *values;
	ArrayIterator iterator;
	BloomEncoder *encoder = NULL;
	uint8	   *flags = NULL;
	MemoryContext value_context = NULL;
	Datum		value;
	bool		isnull;
	void	   *result;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));

	values = PG_GETARG_ARRAYTYPE_P(1);
	iterator = array_create_iterator(values, 0, NULL);
	while (array_iterate(iterator, &value, &isnull))
	{
		MemoryContext old_context;
		bf_hash		hash;

		CHECK_FOR_INTERRUPTS();
		if (isnull)
			continue;
		/* read and copied at the first value: with none, left untouched */
		if (encoder == NULL)
		{
			encoder = fold->first(fcinfo, ARR_ELEMTYPE(values), state, &flags);
			value_context = AllocSetContextCreate(CurrentMemoryContext, "bloom_add_all value",
												  ALLOCSET_SMALL_SIZES);
		}

		/*
		 * What hashing one value allocates (a detoasted element, its bytes
		 * converted to UTF-8 or from a send function) is freed before the
		 * next, so memory does not grow with the array.
		 */
		old_context = MemoryContextSwitchTo(value_context);
		hash = bloom_encoder_hash(encoder, value, *flags, fold->extend_flags ? flags : NULL);
		MemoryContextSwitchTo(old_context);
		MemoryContextReset(value_context);
		fold->each(state, hash);
	}
	array_free_iterator(iterator);

	if (encoder == NULL)
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	MemoryContextDelete(value_context);
	result = fold->finish(state);
	if (result == NULL)
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	PG_RETURN_POINTER(result);
}

Datum
bloom_array_fold(FunctionCallInfo fcinfo, const BloomArrayFold *fold, void *state)
{
	return bloom_array_fold_inline(fcinfo, fold, state);
}

/* bloom_add_all's fold: one copy of the filter, set through the prefetching adder. */
typedef struct BloomAddAll
{
	BloomFilter *filter;
	bf_adder   *adder;
} BloomAddAll;

static BloomEncoder *
bloom_add_all_first(FunctionCallInfo fcinfo, Oid element_type, void *state, uint8 **flags)
{
	BloomAddAll *add = (BloomAddAll *) state;
	BloomView	view;

	bloom_getarg(fcinfo, 0, &view);
	add->filter = bloom_copy(&view);
	/* prefetching only for a filter larger than the cache (core/probe.h) */
	add->adder = (bf_adder *) palloc(sizeof(bf_adder));
	bf_adder_init(add->adder, add->filter->bits, add->filter->m, add->filter->k,
				  add->filter->hash_scheme);
	*flags = &add->filter->flags;
	return bloom_call_encoder_of_type(fcinfo, 1, element_type);
}

static void
bloom_add_all_each(void *state, bf_hash hash)
{
	bf_adder_add(((BloomAddAll *) state)->adder, hash);
}

static void *
bloom_add_all_finish(void *state)
{
	BloomAddAll *add = (BloomAddAll *) state;

	bf_adder_flush(add->adder);
	pfree(add->adder);
	return add->filter;
}

/*
 * bloom_add of every element of an array, in turn, into one copy of the
 * filter: the same bits and flags as a chain of bloom_add, for one rewrite
 * of a stored filter instead of one per value.  NULL elements are skipped;
 * a NULL array, or one with no element that is not NULL, leaves the filter
 * as it is, the very same datum, as bloom_add's NULL value does.
 */
PG_FUNCTION_INFO_V1(bloom_add_all);
Datum
bloom_add_all(PG_FUNCTION_ARGS)
{
	static const BloomArrayFold fold = {
		bloom_add_all_first, bloom_add_all_each, bloom_add_all_finish, true
	};
	BloomAddAll state;

	return bloom_array_fold_inline(fcinfo, &fold, &state);
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

/*
 * f @> bloom_value(x): the operator of bloom_slices_ops, which the planner
 * makes of f @> x for the index (index/condition.c), and true exactly when
 * f @> x is.
 */
PG_FUNCTION_INFO_V1(bloom_contains_hashed);
Datum
bloom_contains_hashed(PG_FUNCTION_ARGS)
{
	BloomView	view;
	uint8		flags;
	bf_hash		hash;

	bloom_getarg(fcinfo, 0, &view);
	flags = view.header.flags;
	hash = bloom_hashed_hash((const BloomHashed *) PG_GETARG_POINTER(1), &flags, "@>");
	PG_RETURN_BOOL(bf_contains(view.bits, view.header.m, view.header.k, view.header.hash_scheme,
							   hash));
}
