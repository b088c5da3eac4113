/*
 * bloom_setops.c: construction, set operations, equality and hashing of
 * whole filters, and the cardinality estimates.
 *
 * Union and intersection are bitwise OR and AND of filters of one shape
 * (same m, k and hash scheme).  The union is exact: it is the filter the
 * values of both sets would have built.  The intersection is a filter that
 * contains every value of both sets, but it may have bits set that no common
 * value set (two different values can share a bit), so its false-positive
 * rate and its cardinality estimate are at least those of a filter built
 * from the common values alone.
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

#include "bloom_pg.h"

#include <math.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/float.h"

/* ---- construction ---- */

PG_FUNCTION_INFO_V1(bloom_empty);
Datum
bloom_empty(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(bloom_alloc_optimal("bloom_empty", PG_GETARG_FLOAT8(0),
										  PG_GETARG_INT64(1), false));
}

PG_FUNCTION_INFO_V1(bloom_empty_mk);
Datum
bloom_empty_mk(PG_FUNCTION_ARGS)
{
	int64		m = PG_GETARG_INT64(0);
	int32		k = PG_GETARG_INT32(1);
	bf_status	status;

	status = bf_check_shape(m, k);
	if (status != BF_OK)
		bloom_raise_shape_error(status, "bloom_empty_mk", (uint64) m, k, -1, -1);
	PG_RETURN_POINTER(bloom_alloc((uint64) m, (uint32) k, BLOOM_HASH_XXH3_EDH));
}

/* An empty filter of the template's m, k and hash scheme; its bits are not read. */
PG_FUNCTION_INFO_V1(bloom_empty_like);
Datum
bloom_empty_like(PG_FUNCTION_ARGS)
{
	BloomView	template;
	BloomFilter *filter;

	bloom_getarg(fcinfo, 0, &template);
	filter = bloom_alloc(template.header.m, template.header.k, template.header.hash_scheme);
	filter->flags = template.header.flags;	/* text hashed as the template's */
	PG_RETURN_POINTER(filter);
}

/* bloom_shape(filter): the text form up to the bits, "bloom:v1:h1:m95851:k7:". */
PG_FUNCTION_INFO_V1(bloom_shape);
Datum
bloom_shape(PG_FUNCTION_ARGS)
{
	BloomView	filter;
	text	   *result;
	Size		length;

	bloom_getarg(fcinfo, 0, &filter);
	length = bf_text_header_length(&filter.header);
	result = (text *) palloc(VARHDRSZ + length);
	SET_VARSIZE(result, VARHDRSZ + length);
	bf_text_encode_header(&filter.header, VARDATA(result));
	PG_RETURN_TEXT_P(result);
}

void
bloom_parse_shape(const char *function, const char *text, size_t length, BloomHeader *shape)
{
	size_t		payload_offset = 0;
	bf_status	status = bf_text_decode_header(text, length, shape, &payload_offset);

	if (status == BF_OK && payload_offset != length)
		status = BF_SYNTAX;
	if (status == BF_OK)
		status = bf_check_header(shape);
	if (status != BF_OK)
		ereport(ERROR,
				errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				errmsg("%s: invalid filter shape \"%.*s\"", function,
					   pg_mbcliplen(text, (int) Min(length, 80), 80), text),
				errdetail("%s", bf_status_message(status)),
				errhint("A shape is what bloom_shape(filter) returns, such as 'bloom:v1:h1:m95851:k7:'."));
}

/*
 * bloom_empty(): BF_DEFAULT_FALSE_POSITIVE_RATE (0.01, the rate of
 * bloom_agg(value)) and BF_DEFAULT_CAPACITY (10000 values: 95,851 bits,
 * 12 kB).  Small on purpose: bloom_add copies the whole filter on every
 * call, which is the way such a filter is filled.
 */
PG_FUNCTION_INFO_V1(bloom_empty_default);
Datum
bloom_empty_default(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(bloom_alloc_optimal("bloom_empty", BF_DEFAULT_FALSE_POSITIVE_RATE,
										  BF_DEFAULT_CAPACITY, false));
}

/* ---- union and intersection ---- */

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

/* ---- equality and hashing ---- */

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

/* ---- estimates ---- */

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
	TupleDesc	tupdesc;
	Datum		values[7];
	bool		nulls[7] = {0};
	uint64		bits_set;
	uint64		m;
	uint32		k;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "bloom_info: return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);

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

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
