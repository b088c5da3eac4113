/*
 * types/bloom/estimate.c: the cardinality estimates of filters and of their union
 * and intersection, Jaccard similarity, and bloom_info.
 *
 * Estimates (Swamidass and Baldi 2007): a filter with X of its m bits set
 * holds about n* = -(m/k) ln(1 - X/m) distinct values.  From that:
 *
 *     |A u B| ~ n*(A | B)               popcount of A | B, never materialized
 *     |A n B| ~ n*(A) + n*(B) - n*(A | B), clamped at 0 (noise can make
 *                                       it slightly negative)
 *     J(A, B) ~ |A n B| / |A u B|
 *
 * Degenerate cases, decided here once:
 *
 * - A saturated filter (X = m) says nothing about how many values went in:
 *   its cardinality is +Infinity (bloom_cardinality, bloom_union_cardinality,
 *   bloom_info).
 * - If the union is saturated the intersection is unknowable (Infinity minus
 *   something), so bloom_intersection_cardinality and bloom_jaccard return
 *   NaN rather than a number that looks meaningful.  (A saturated A or B
 *   saturates the union, so this covers every saturated input.)
 * - bloom_jaccard of two empty filters is 1: the two sets are equal (both
 *   empty), which keeps J(A, A) = 1 for every A and agrees with =.  The
 *   alternatives, 0 or NaN, would make an empty filter unlike itself.
 */
#include "postgres.h"

#include "types/types.h"

#include <math.h>

#include "utils/float.h"

static double
bloom_view_cardinality(const BloomView *view)
{
	return bf_estimate_cardinality(view->header.m, view->header.k, view->header.hash_scheme,
								   bf_popcount(view->bits, view->nbytes));
}

PG_FUNCTION_INFO_V1(bloom_cardinality);
Datum
bloom_cardinality(PG_FUNCTION_ARGS)
{
	BloomView	view;

	bloom_getarg(fcinfo, 0, &view);
	PG_RETURN_FLOAT8(bloom_view_cardinality(&view));
}

/*
 * Both filter arguments, which must be of one shape, and the number of bits
 * set in A | B (counted without building the union).
 */
static uint64
bloom_getarg_pair(FunctionCallInfo fcinfo, const char *operation,
				  BloomView *a, BloomView *b)
{
	bloom_getarg(fcinfo, 0, a);
	bloom_getarg(fcinfo, 1, b);
	bloom_require_same_shape(operation, a, b);
	return bf_popcount_or(a->bits, b->bits, a->nbytes);
}

PG_FUNCTION_INFO_V1(bloom_union_cardinality);
Datum
bloom_union_cardinality(PG_FUNCTION_ARGS)
{
	BloomView	a;
	BloomView	b;
	uint64		union_bits_set;

	union_bits_set = bloom_getarg_pair(fcinfo, "bloom_union_cardinality", &a, &b);
	PG_RETURN_FLOAT8(bf_estimate_cardinality(a.header.m, a.header.k, a.header.hash_scheme,
											 union_bits_set));
}

/*
 * n(A) + n(B) - n(A u B), at least 0, and n(A u B) in *union_estimate; NaN
 * when the union is saturated.
 */
static double
bloom_intersection_estimate(FunctionCallInfo fcinfo, const char *operation,
							double *union_estimate)
{
	BloomView	a;
	BloomView	b;
	uint64		union_bits_set;

	union_bits_set = bloom_getarg_pair(fcinfo, operation, &a, &b);
	*union_estimate = bf_estimate_cardinality(a.header.m, a.header.k, a.header.hash_scheme,
											  union_bits_set);
	if (union_bits_set == a.header.m)
		return get_float8_nan();
	return Max(0.0, bloom_view_cardinality(&a) + bloom_view_cardinality(&b) -
			   *union_estimate);
}

PG_FUNCTION_INFO_V1(bloom_intersection_cardinality);
Datum
bloom_intersection_cardinality(PG_FUNCTION_ARGS)
{
	double		union_estimate;

	PG_RETURN_FLOAT8(bloom_intersection_estimate(fcinfo, "bloom_intersection_cardinality",
												 &union_estimate));
}

PG_FUNCTION_INFO_V1(bloom_jaccard);
Datum
bloom_jaccard(PG_FUNCTION_ARGS)
{
	double		union_estimate;
	double		intersection_estimate;

	intersection_estimate = bloom_intersection_estimate(fcinfo, "bloom_jaccard",
														&union_estimate);
	if (isnan(intersection_estimate))
		PG_RETURN_FLOAT8(intersection_estimate);
	/* both empty: equal sets */
	if (union_estimate == 0.0)
		PG_RETURN_FLOAT8(1.0);
	PG_RETURN_FLOAT8(intersection_estimate / union_estimate);
}

/* ---- bloom_info ---- */

PG_FUNCTION_INFO_V1(bloom_info);
Datum
bloom_info(PG_FUNCTION_ARGS)
{
	BloomView	view;
	Datum		values[7];
	bool		nulls[7] = {0};
	uint64		bits_set;
	uint64		m;
	uint32		k;


	bloom_getarg(fcinfo, 0, &view);
	m = view.header.m;
	k = view.header.k;
	bits_set = bf_popcount(view.bits, view.nbytes);

	values[0] = Int64GetDatum((int64) m);
	values[1] = Int32GetDatum((int32) k);
	/* the filter as a value (4-byte header), however it happens to be stored */
	values[2] = Int32GetDatum((int32) (BLOOM_BITS_OFFSET + view.nbytes));
	values[3] = Int64GetDatum((int64) bits_set);
	values[4] = Float8GetDatum((double) bits_set / (double) m);
	values[5] = Float8GetDatum(bf_estimate_cardinality(m, k, view.header.hash_scheme, bits_set));
	values[6] = Float8GetDatum(bf_filter_false_positive_rate(view.bits, m, k,
															 view.header.hash_scheme,
															 bits_set));

	PG_RETURN_DATUM(bloom_result_row(fcinfo, "bloom_info", values, nulls));
}
