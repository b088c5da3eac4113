/*
 * types/bloom/setops.c: union and intersection of filters, as functions (variadic,
 * skipping NULLs), as the | and & operators, and as the fold the aggregates
 * share (bloom_setop_fold).
 *
 * Union and intersection are bitwise OR and AND of filters of one shape
 * (same m, k and hash scheme).  The union is exact: it is the filter the
 * values of both sets would have built.  The intersection is a filter that
 * contains every value of both sets, but it may have bits set that no common
 * value set (two different values can share a bit), so its false-positive
 * rate and its cardinality estimate are at least those of a filter built
 * from the common values alone.
 */
#include "postgres.h"

#include "types/types.h"

#include "utils/array.h"

BloomFilter *
bloom_setop_fold(BloomSetOp op, const char *operation,
				 BloomFilter *result, const BloomView *input)
{
	BloomView	result_view;

	if (result == NULL)
		return bloom_copy(input);

	bloom_view_filter(result, &result_view);
	bloom_require_same_shape(operation, &result_view, input);
	result->flags = bloom_combine_flags(operation, result->flags, input->header.flags);
	if (op == BLOOM_SETOP_UNION)
		bf_or_into(result->bits, input->bits, input->nbytes);
	else
		bf_and_into(result->bits, input->bits, input->nbytes);
	return result;
}

/* The variadic form: fold the non-NULL elements; NULL if there are none. */
static Datum
bloom_setop_array(FunctionCallInfo fcinfo, BloomSetOp op, const char *operation)
{
	ArrayType  *filters = PG_GETARG_ARRAYTYPE_P(0);
	ArrayIterator iterator = array_create_iterator(filters, 0, NULL);
	BloomFilter *result = NULL;
	Datum		element;
	bool		isnull;

	while (array_iterate(iterator, &element, &isnull))
	{
		BloomView	view;

		if (isnull)
			continue;
		bloom_view_datum(element, &view);
		result = bloom_setop_fold(op, operation, result, &view);
	}
	array_free_iterator(iterator);

	if (result == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(result);
}

/* The two-argument form behind the | and & operators. */
static Datum
bloom_setop_pair(FunctionCallInfo fcinfo, BloomSetOp op, const char *operation)
{
	BloomView	a;
	BloomView	b;
	BloomFilter *result;

	bloom_getarg(fcinfo, 0, &a);
	bloom_getarg(fcinfo, 1, &b);
	bloom_require_same_shape(operation, &a, &b);
	/* one pass over a, b and the result, not a copy of a and a second pass */
	result = bloom_alloc_like(&a.header);
	result->flags = bloom_combine_flags(operation, a.header.flags, b.header.flags);
	if (op == BLOOM_SETOP_UNION)
		bf_or(result->bits, a.bits, b.bits, a.nbytes);
	else
		bf_and(result->bits, a.bits, b.bits, a.nbytes);
	PG_RETURN_POINTER(result);
}

PG_FUNCTION_INFO_V1(bloom_union);
Datum
bloom_union(PG_FUNCTION_ARGS)
{
	return bloom_setop_array(fcinfo, BLOOM_SETOP_UNION, "bloom_union");
}

PG_FUNCTION_INFO_V1(bloom_intersection);
Datum
bloom_intersection(PG_FUNCTION_ARGS)
{
	return bloom_setop_array(fcinfo, BLOOM_SETOP_INTERSECTION, "bloom_intersection");
}

PG_FUNCTION_INFO_V1(bloom_or);
Datum
bloom_or(PG_FUNCTION_ARGS)
{
	return bloom_setop_pair(fcinfo, BLOOM_SETOP_UNION, "operator |");
}

PG_FUNCTION_INFO_V1(bloom_and);
Datum
bloom_and(PG_FUNCTION_ARGS)
{
	return bloom_setop_pair(fcinfo, BLOOM_SETOP_INTERSECTION, "operator &");
}
