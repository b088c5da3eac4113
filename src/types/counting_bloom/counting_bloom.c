/*
 * types/counting_bloom/counting_bloom.c: the SQL functions of counting_bloom but its I/O and
 * aggregates: constructors, the element operations (add, remove, contains,
 * one value or an array), union and subtraction, the cast to bloom,
 * bloom_info and bloom_cardinality, and equality and hashing.
 *
 * Values are hashed exactly as bloom_add hashes them (encoding/encoding.c,
 * with the filter's flags), and the counters sit at bloom's probe
 * positions (core/counting.h), so bloom(f) is the bloom filter of the
 * values f holds.  Called from SQL, every function returns a new value and
 * leaves its arguments alone; NULL follows bloom's rules: a NULL filter
 * gives NULL, a NULL value (or array) leaves the filter as it is.
 */
#include "postgres.h"

#include "types/counting_bloom/counting_bloom.h"

/* ---- shapes ---- */

void
counting_raise_too_large(const char *operation, uint64 m, bool sized)
{
	ereport(ERROR,
			errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			errmsg("%s: counting filter would exceed the maximum size", operation),
			errdetail("The filter needs m = " UINT64_FORMAT " counters; the maximum is m = " UINT64_FORMAT " counters (4 bits each, PostgreSQL's 1 GB value limit).",
					  m, (uint64) BF_COUNTING_M_MAX),
			sized ? errhint("Use a higher false_positive_rate or a lower capacity.") : 0);
	pg_unreachable();
}

void
counting_shape(const char *operation, double p, int64 n, BloomHeader *shape)
{
	uint64_t	m = 0;
	uint32_t	k = 0;
	uint8_t		scheme = BLOOM_HASH_XXH3_EDH;
	bf_status	status = bf_default_shape(p, n, &m, &k, &scheme);

	if (status == BF_TOO_LARGE || (status == BF_OK && m > BF_COUNTING_M_MAX))
		counting_raise_too_large(operation, m, true);
	if (status != BF_OK)
		bloom_raise_shape_error(status, operation, m, k, p, n);
	shape->format_version = BLOOM_FORMAT_VERSION;
	shape->hash_scheme = scheme;
	shape->k = (uint8) k;
	shape->flags = bloom_new_filter_flags();
	shape->m = m;
}

void
counting_require_same_shape(const char *operation, const BloomView *a, const BloomView *b)
{
	bloom_require_same_shape_of(operation, "counting filters",
								"Combine only filters created with the same false_positive_rate and capacity, or the same m and k.",
								a, b);
}

PG_FUNCTION_INFO_V1(counting_bloom_empty);
Datum
counting_bloom_empty(PG_FUNCTION_ARGS)
{
	BloomHeader shape;

	counting_shape("counting_bloom_empty", PG_GETARG_FLOAT8(0), PG_GETARG_INT64(1), &shape);
	PG_RETURN_POINTER(counting_alloc(&shape, NULL));
}

PG_FUNCTION_INFO_V1(counting_bloom_empty_mk);
Datum
counting_bloom_empty_mk(PG_FUNCTION_ARGS)
{
	int64		m = PG_GETARG_INT64(0);
	int32		k = PG_GETARG_INT32(1);
	bf_status	status = bf_check_shape(m, k);
	BloomHeader shape;

	if (status == BF_TOO_LARGE || (status == BF_OK && (uint64) m > BF_COUNTING_M_MAX))
		counting_raise_too_large("counting_bloom_empty_mk", (uint64) m, false);
	if (status != BF_OK)
		bloom_raise_shape_error(status, "counting_bloom_empty_mk", (uint64) m, k, -1, -1);
	shape.format_version = BLOOM_FORMAT_VERSION;
	shape.hash_scheme = BLOOM_HASH_XXH3_EDH;
	shape.k = (uint8) k;
	shape.flags = bloom_new_filter_flags();
	shape.m = (uint64) m;
	PG_RETURN_POINTER(counting_alloc(&shape, NULL));
}

/* ---- element operations ---- */

/* The membership test both contains functions share: a per-row path. */
static pg_attribute_always_inline bool
counting_test_arguments(FunctionCallInfo fcinfo, int filter_argno, int value_argno)
{
	BloomView	view;
	bf_hash		hash;

	/* a stored filter: its call site keeps the bloom filter of its counters */
	if (likely(counting_getarg_lookup(fcinfo, filter_argno, &view)))
	{
		hash = bloom_hash_argument(fcinfo, value_argno, &view);
		return bf_contains(view.bits, view.header.m, view.header.k, view.header.hash_scheme,
						   hash);
	}
	/* a stored filter read by slices until it is worth detoasting */
	if (unlikely(view.bits == NULL))
		return bloom_test_slices(fcinfo, filter_argno, value_argno, &counting_layout, &view);
	hash = bloom_hash_argument(fcinfo, value_argno, &view);
	return bf_counting_contains(view.bits, view.header.m, view.header.k, view.header.hash_scheme,
								hash);
}

PG_FUNCTION_INFO_V1(counting_bloom_contains);
Datum
counting_bloom_contains(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(counting_test_arguments(fcinfo, 0, 1));
}

PG_FUNCTION_INFO_V1(counting_bloom_contained_by);
Datum
counting_bloom_contained_by(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(counting_test_arguments(fcinfo, 1, 0));
}

PG_FUNCTION_INFO_V1(counting_bloom_add);
Datum
counting_bloom_add(PG_FUNCTION_ARGS)
{
	BloomView	view;
	CountingBloomFilter *filter;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	/* a NULL value leaves the filter as it is: the very same datum */
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	counting_getarg(fcinfo, 0, &view);
	filter = counting_copy(&view);
	bf_counting_add(filter->counters, filter->m, filter->k, filter->hash_scheme,
					bloom_encoder_hash(bloom_call_encoder(fcinfo, 1), PG_GETARG_DATUM(1),
									   filter->flags, &filter->flags));
	PG_RETURN_POINTER(filter);
}

/*
 * bloom_remove: a value some counter proves absent leaves the filter as it
 * is (the very same datum); else a copy with its counters decremented.
 */
PG_FUNCTION_INFO_V1(counting_bloom_remove);
Datum
counting_bloom_remove(PG_FUNCTION_ARGS)
{
	BloomView	view;
	CountingBloomFilter *filter;
	bf_hash		hash;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	counting_getarg(fcinfo, 0, &view);
	hash = bloom_hash_argument(fcinfo, 1, &view);
	/* an absent value is told by the stored counters: no copy of them */
	if (!bf_counting_contains(view.bits, view.header.m, view.header.k, view.header.hash_scheme,
							  hash))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	filter = counting_copy(&view);
	/* a value whose probes share a counter of 1 is absent too, and found so here */
	if (!bf_counting_remove(filter->counters, filter->m, filter->k, filter->hash_scheme, hash))
	{
		pfree(filter);
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	PG_RETURN_POINTER(filter);
}

/*
 * The fold of bloom_add_all and bloom_remove_all (bloom_array_fold): the
 * values go through the prefetching ring (bf_counting_adder, which
 * prefetches only for counters larger than the cache), in their order.
 */
typedef struct CountingEach
{
	CountingBloomFilter *filter;
	bf_counting_adder *adder;
} CountingEach;

static BloomEncoder *
counting_each_first(FunctionCallInfo fcinfo, Oid element_type, void *state, uint8 **flags)
{
	CountingEach *each = (CountingEach *) state;
	CountingBloomFilter *filter;
	BloomView	view;

	counting_getarg(fcinfo, 0, &view);
	filter = counting_copy(&view);
	each->filter = filter;
	each->adder = (bf_counting_adder *) palloc(sizeof(bf_counting_adder));
	bf_counting_adder_init(each->adder, filter->counters, filter->m, filter->k,
						   filter->hash_scheme);
	*flags = &filter->flags;
	return bloom_call_encoder_of_type(fcinfo, 1, element_type);
}

static void
counting_each_add(void *state, bf_hash hash)
{
	bf_counting_adder_push(((CountingEach *) state)->adder, hash, false);
}

static void
counting_each_remove(void *state, bf_hash hash)
{
	bf_counting_adder_push(((CountingEach *) state)->adder, hash, true);
}

static void *
counting_each_finish(void *state)
{
	CountingEach *each = (CountingEach *) state;
	bool		changed;

	bf_counting_adder_flush(each->adder);
	changed = each->adder->changed > 0;
	pfree(each->adder);
	if (!changed)
	{
		pfree(each->filter);
		return NULL;
	}
	return each->filter;
}

/*
 * bloom_add_all and bloom_remove_all: each non-NULL element in turn, into
 * one copy of the filter (one rewrite of a stored filter per batch).  A
 * NULL array, or one with no non-NULL element, leaves the filter as it is,
 * the very same datum; so does a batch of removals of absent values.
 */
PG_FUNCTION_INFO_V1(counting_bloom_add_all);
Datum
counting_bloom_add_all(PG_FUNCTION_ARGS)
{
	static const BloomArrayFold fold = {
		counting_each_first, counting_each_add, counting_each_finish, true
	};
	CountingEach state = {0};

	return bloom_array_fold(fcinfo, &fold, &state);
}

PG_FUNCTION_INFO_V1(counting_bloom_remove_all);
Datum
counting_bloom_remove_all(PG_FUNCTION_ARGS)
{
	static const BloomArrayFold fold = {
		counting_each_first, counting_each_remove, counting_each_finish, false
	};
	CountingEach state = {0};

	return bloom_array_fold(fcinfo, &fold, &state);
}

/* ---- union and subtraction ---- */

void
counting_union_into(const char *operation, CountingBloomFilter *result, const BloomView *input)
{
	BloomView	result_view;

	counting_view_filter(result, &result_view);
	counting_require_same_shape(operation, &result_view, input);
	result->flags = bloom_combine_flags(operation, result->flags, input->header.flags);
	bf_counting_union(result->counters, result->counters, input->bits, input->nbytes);
}

/* a | b: counter-wise sums, saturating at 15; the filter of both multisets */
PG_FUNCTION_INFO_V1(counting_bloom_union);
Datum
counting_bloom_union(PG_FUNCTION_ARGS)
{
	BloomView	a;
	BloomView	b;
	CountingBloomFilter *result;

	counting_getarg(fcinfo, 0, &a);
	counting_getarg(fcinfo, 1, &b);
	counting_require_same_shape("operator |", &a, &b);
	result = counting_alloc(&a.header, NULL);
	result->flags = bloom_combine_flags("operator |", a.header.flags, b.header.flags);
	bf_counting_union(result->counters, a.bits, b.bits, a.nbytes);
	PG_RETURN_POINTER(result);
}

/*
 * a - b: counter-wise differences, the filter of a's values less b's.  A
 * counter of b above a's that is not saturated means b holds values a does
 * not: an ERROR, rather than a clamp that would leave counters other values
 * own too low.  A saturated counter of a stays saturated.
 */
PG_FUNCTION_INFO_V1(counting_bloom_subtract);
Datum
counting_bloom_subtract(PG_FUNCTION_ARGS)
{
	BloomView	a;
	BloomView	b;
	CountingBloomFilter *result;
	uint64_t	position = 0;

	counting_getarg(fcinfo, 0, &a);
	counting_getarg(fcinfo, 1, &b);
	counting_require_same_shape("operator -", &a, &b);
	result = counting_alloc(&a.header, NULL);
	result->flags = bloom_combine_flags("operator -", a.header.flags, b.header.flags);
	if (!bf_counting_subtract(result->counters, a.bits, b.bits, a.nbytes, &position))
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("operator -: the subtrahend holds values the minuend does not"),
				errdetail("Counter " UINT64_FORMAT " is %u in the right filter and %u in the left one.",
						  position, bf_counter_get(b.bits, position), bf_counter_get(a.bits, position)),
				errhint("Subtract only a filter of values that were added to the left one."));
	PG_RETURN_POINTER(result);
}

/* ---- the cast to bloom ---- */

/* bloom(counting_bloom): the bloom filter of the values present, bit i where counter i > 0. */
PG_FUNCTION_INFO_V1(counting_bloom_to_bloom);
Datum
counting_bloom_to_bloom(PG_FUNCTION_ARGS)
{
	BloomView	view;
	BloomFilter *result;

	counting_getarg(fcinfo, 0, &view);
	result = bloom_alloc_like(&view.header);
	bf_counting_to_bits(view.bits, view.header.m, result->bits);
	PG_RETURN_POINTER(result);
}

/* ---- estimates ---- */

/*
 * bloom_info(counting_bloom): the shape, the counters, and the values held:
 * sum / k, exact while no counter is saturated (a saturated counter has
 * stopped counting) and the sum a multiple of k (it is, for a filter built
 * by adds and removes).  The false-positive rate is bloom_info's of the cast.
 */
PG_FUNCTION_INFO_V1(counting_bloom_info);
Datum
counting_bloom_info(PG_FUNCTION_ARGS)
{
	BloomView	view;
	Datum		values[10];
	bool		nulls[10] = {0};
	bf_counting_stats stats;
	BloomFilter *bits;
	uint64		m;
	uint32		k;


	counting_getarg(fcinfo, 0, &view);
	m = view.header.m;
	k = view.header.k;
	bf_counting_stats_of(view.bits, view.nbytes, &stats);
	bits = bloom_alloc_like(&view.header);
	bf_counting_to_bits(view.bits, m, bits->bits);

	values[0] = Int64GetDatum((int64) m);
	values[1] = Int32GetDatum((int32) k);
	values[2] = Int32GetDatum((int32) view.header.hash_scheme);
	values[3] = Int32GetDatum((int32) (BLOOM_BITS_OFFSET + view.nbytes));
	values[4] = Int64GetDatum((int64) stats.nonzero);
	values[5] = Int64GetDatum((int64) stats.saturated);
	values[6] = Int64GetDatum((int64) stats.sum);
	values[7] = Float8GetDatum((double) stats.sum / (double) k);
	values[8] = BoolGetDatum(stats.saturated == 0 && stats.sum % k == 0);
	values[9] = Float8GetDatum(bf_filter_false_positive_rate(bits->bits, m, k,
															 view.header.hash_scheme,
															 stats.nonzero));
	pfree(bits);
	PG_RETURN_DATUM(bloom_result_row(fcinfo, "counting_bloom_info", values, nulls));
}

/*
 * bloom_cardinality(counting_bloom): the values held, sum / k: exact while
 * no counter is saturated, a lower bound after (bloom_info says which).
 */
PG_FUNCTION_INFO_V1(counting_bloom_cardinality);
Datum
counting_bloom_cardinality(PG_FUNCTION_ARGS)
{
	BloomView	view;
	bf_counting_stats stats;

	counting_getarg(fcinfo, 0, &view);
	bf_counting_stats_of(view.bits, view.nbytes, &stats);
	PG_RETURN_FLOAT8((double) stats.sum / (double) view.header.k);
}

/* ---- equality and hashing ---- */

/* Same shape, flags and counters (types/bloom/compare.c). */
PG_FUNCTION_INFO_V1(counting_bloom_eq);
Datum
counting_bloom_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(bloom_layout_args_equal(fcinfo, &counting_layout));
}

PG_FUNCTION_INFO_V1(counting_bloom_ne);
Datum
counting_bloom_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!bloom_layout_args_equal(fcinfo, &counting_layout));
}

PG_FUNCTION_INFO_V1(counting_bloom_hash);
Datum
counting_bloom_hash(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) (uint32) bloom_layout_arg_hash(fcinfo, &counting_layout, 0));
}

PG_FUNCTION_INFO_V1(counting_bloom_hash_extended);
Datum
counting_bloom_hash_extended(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) bloom_layout_arg_hash(fcinfo, &counting_layout,
												  (uint64) PG_GETARG_INT64(1)));
}
