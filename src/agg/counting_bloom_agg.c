/*
 * agg/counting_bloom_agg.c: the aggregates of counting filters.
 *
 *   counting_bloom_agg(anyelement, false_positive_rate, capacity)
 *       internal state (a CountingAggState in the aggregate context), with
 *       serialize and deserialize functions for parallel plans, as
 *       bloom_agg(value, p, n): Citus cannot split a polymorphic aggregate
 *       with a real state (CHANGELOG, 1.3), and gathers its rows instead.
 *   counting_bloom_agg(bloom_hashed, false_positive_rate, capacity)
 *       state of type counting_bloom, combined by counting_bloom_union_agg's
 *       fold: the form Citus splits, as bloom_agg(bloom_value(x), p, n).
 *   counting_bloom_union_agg(counting_bloom)
 *       saturating sums of the non-NULL filters, state counting_bloom.
 *
 * Every form adds a value's hash as bloom_add(counting_bloom, value) does,
 * so the result is the filter that adding the rows' values one by one
 * gives, whatever the plan: counter sums are associative and commutative
 * (saturating at 15 too), and partial states are combined by those sums.
 * Every row must ask for the false_positive_rate and capacity the first one
 * did (the polymorphic form) or for ones that give the filter's shape (the
 * bloom_hashed form, whose partial states carry only their shape), as
 * bloom_agg's rules are.  A state that is a value is changed in place only
 * in an aggregate call (AggCheckCallContext), where it is the aggregate's
 * own copy; called from SQL the support functions return a new value.
 * With no rows the result is the empty filter of a constant (p, n), or NULL.
 */
#include "postgres.h"

#include "agg/agg.h"
#include "types/counting_bloom/counting_bloom.h"

#include "utils/float.h"

/* The aggregate's request, and the shape it gives (the bloom_hashed form caches it per call site). */
static void
counting_agg_request_args(FunctionCallInfo fcinfo, int argno, double *p, int64 *n)
{
	if (PG_ARGISNULL(argno) || PG_ARGISNULL(argno + 1))
		ereport(ERROR,
				errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				errmsg("counting_bloom_agg: false_positive_rate and capacity must not be NULL"));
	*p = PG_GETARG_FLOAT8(argno);
	*n = PG_GETARG_INT64(argno + 1);
}

/* No rows: the empty filter of a constant request, or SQL NULL. */
static Datum
counting_agg_no_rows_result(FunctionCallInfo fcinfo)
{
	double		p;
	int64		n;

	if (!AggCheckCallContext(fcinfo, NULL) || !bloom_agg_call_request(fcinfo, &p, &n))
		PG_RETURN_NULL();
	PG_RETURN_POINTER(counting_agg_no_rows(p, n));
}

static void
counting_agg_raise_request_mismatch(double first_p, int64 first_n, double p, int64 n)
{
	ereport(ERROR,
			errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			errmsg("counting_bloom_agg: false_positive_rate and capacity must be the same in every row"),
			errdetail("The filter was sized for false_positive_rate %s and capacity " INT64_FORMAT "; a row has false_positive_rate %s and capacity " INT64_FORMAT ".",
					  float8out_internal(first_p), first_n, float8out_internal(p), n));
}

/* ---- counting_bloom_agg(anyelement, p, n): internal state ---- */

typedef struct CountingAggState
{
	CountingBloomFilter *filter;	/* in the aggregate context */
	double		false_positive_rate;
	int64		capacity;
	BloomEncoder *encoder;		/* resolved at the first value */
	bf_counting_adder *adder;	/* the rows' values, pending until flushed */
} CountingAggState;

/*
 * The state's filter, with every value added: the adder's pending values
 * applied first.  Every reader of a state's filter reads it through this.
 */
static CountingBloomFilter *
counting_agg_filter(CountingAggState *state)
{
	if (state->adder != NULL)
		bf_counting_adder_flush(state->adder);
	return state->filter;
}

/*
 * The row path both forms share: a value's hash counted in filter, through
 * adder (the internal state's, pending until flushed) when there is one.
 */
static inline void
counting_agg_add_hash(bf_counting_adder *adder, CountingBloomFilter *filter, bf_hash hash)
{
	if (adder != NULL)
		bf_counting_adder_push(adder, hash, false);
	else
		bf_counting_add(filter->counters, filter->m, filter->k, filter->hash_scheme, hash);
}

PG_FUNCTION_INFO_V1(counting_bloom_agg_transfn);
Datum
counting_bloom_agg_transfn(PG_FUNCTION_ARGS)
{
	CountingAggState *state = NULL;
	CountingBloomFilter *filter;
	double		p;
	int64		n;

	/*
	 * A state exists only when the aggregate machinery passes one, and then
	 * the cheap test of the call context will do (a per-row path): the full
	 * one is needed only to create it, as bloom_agg's.
	 */
	if (!PG_ARGISNULL(0))
	{
		if (unlikely(!bloom_in_aggregate(fcinfo)))
			elog(ERROR, "counting_bloom_agg_transfn called in non-aggregate context");
		state = (CountingAggState *) PG_GETARG_POINTER(0);
	}
	counting_agg_request_args(fcinfo, 2, &p, &n);
	if (state == NULL)
	{
		MemoryContext aggcontext = bloom_agg_context(fcinfo, "counting_bloom_agg_transfn");
		MemoryContext old_context = MemoryContextSwitchTo(aggcontext);
		BloomHeader shape;

		/* from the first row, NULL or not: a bad request is an error whatever the values */
		counting_shape("counting_bloom_agg", p, n, &shape);
		state = (CountingAggState *) palloc0(sizeof(CountingAggState));
		state->filter = counting_alloc(&shape, NULL);
		state->adder = (bf_counting_adder *) palloc(sizeof(bf_counting_adder));
		bf_counting_adder_init(state->adder, state->filter->counters, state->filter->m,
							   state->filter->k, state->filter->hash_scheme);
		state->false_positive_rate = p;
		state->capacity = n;
		MemoryContextSwitchTo(old_context);
	}
	else if (p != state->false_positive_rate || n != state->capacity)
		counting_agg_raise_request_mismatch(state->false_positive_rate, state->capacity, p, n);

	if (!PG_ARGISNULL(1))
	{
		bf_hash		hash;

		filter = state->filter;
		if (state->encoder == NULL)
			state->encoder = bloom_call_encoder(fcinfo, 1);
		hash = bloom_encoder_hash(state->encoder, PG_GETARG_DATUM(1), filter->flags,
								  &filter->flags);
		/* a state from the combine or deserialize function has no adder */
		counting_agg_add_hash(state->adder, filter, hash);
	}
	PG_RETURN_POINTER(state);
}

PG_FUNCTION_INFO_V1(counting_bloom_agg_finalfn);
Datum
counting_bloom_agg_finalfn(PG_FUNCTION_ARGS)
{
	BloomView	view;

	bloom_agg_context(fcinfo, "counting_bloom_agg_finalfn");
	if (PG_ARGISNULL(0))
		return counting_agg_no_rows_result(fcinfo);
	/* a copy: a window aggregate goes on adding to the state */
	counting_view_filter(counting_agg_filter((CountingAggState *) PG_GETARG_POINTER(0)), &view);
	PG_RETURN_POINTER(counting_copy(&view));
}

PG_FUNCTION_INFO_V1(counting_bloom_agg_combinefn);
Datum
counting_bloom_agg_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	void	   *arg1;
	void	   *arg2;
	CountingAggState *state1;
	CountingAggState *state2;
	BloomView	input;

	if (!bloom_agg_combine_start(fcinfo, "counting_bloom_agg_combinefn", &aggcontext, &arg1, &arg2))
		return bloom_agg_return_state(fcinfo, arg1);
	state1 = (CountingAggState *) arg1;
	state2 = (CountingAggState *) arg2;
	counting_view_filter(counting_agg_filter(state2), &input);
	if (state1 == NULL)
	{
		/* a copy in the aggregate context: state2 may live in a shorter-lived one */
		MemoryContext old_context = MemoryContextSwitchTo(aggcontext);

		state1 = (CountingAggState *) palloc0(sizeof(CountingAggState));
		state1->filter = counting_copy(&input);
		state1->false_positive_rate = state2->false_positive_rate;
		state1->capacity = state2->capacity;
		MemoryContextSwitchTo(old_context);
		PG_RETURN_POINTER(state1);
	}
	if (state2->false_positive_rate != state1->false_positive_rate ||
		state2->capacity != state1->capacity)
		counting_agg_raise_request_mismatch(state1->false_positive_rate, state1->capacity,
											state2->false_positive_rate, state2->capacity);
	counting_union_into("counting_bloom_agg", counting_agg_filter(state1), &input);
	PG_RETURN_POINTER(state1);
}

/*
 * Serialized state: false_positive_rate (float8) and capacity (int8) in
 * native order (states pass only between the processes of one query), then
 * the filter as stored (12-byte header and counters).
 */
#define COUNTING_AGG_SERIAL_PREFIX (sizeof(double) + sizeof(int64))

PG_FUNCTION_INFO_V1(counting_bloom_agg_serialfn);
Datum
counting_bloom_agg_serialfn(PG_FUNCTION_ARGS)
{
	CountingAggState *state;
	BloomView	view;
	bytea	   *result;
	char	   *out;

	bloom_agg_context(fcinfo, "counting_bloom_agg_serialfn");
	state = (CountingAggState *) PG_GETARG_POINTER(0);
	counting_view_filter(counting_agg_filter(state), &view);
	result = bloom_agg_serial_new(add_size(COUNTING_AGG_SERIAL_PREFIX + BLOOM_HEADER_BYTES,
										   view.nbytes), &out);
	memcpy(out, &state->false_positive_rate, sizeof(double));
	memcpy(out + sizeof(double), &state->capacity, sizeof(int64));
	out += COUNTING_AGG_SERIAL_PREFIX;
	bloom_header_write((uint8 *) out, &view.header);
	memcpy(out + BLOOM_HEADER_BYTES, view.bits, view.nbytes);
	PG_RETURN_BYTEA_P(result);
}

/*
 * The inverse, validated as every counting filter that enters the server
 * is (counting_view_bytes), and its shape must be the one its
 * false_positive_rate and capacity give.
 */
PG_FUNCTION_INFO_V1(counting_bloom_agg_deserialfn);
Datum
counting_bloom_agg_deserialfn(PG_FUNCTION_ARGS)
{
	BloomAggReader reader;
	CountingAggState *state = (CountingAggState *) palloc0(sizeof(CountingAggState));
	BloomView	view;
	uint64_t	m;
	uint32_t	k;
	uint8_t		scheme;

	bloom_agg_reader_start(fcinfo, "counting_bloom_agg_deserialfn", &reader);
	bloom_agg_read(&reader, &state->false_positive_rate, sizeof(double));
	bloom_agg_read(&reader, &state->capacity, sizeof(int64));
	counting_view_bytes((const uint8 *) reader.next, reader.remaining, &view);
	if (bf_default_shape(state->false_positive_rate, state->capacity, &m, &k, &scheme) != BF_OK ||
		m != view.header.m || k != view.header.k || scheme != view.header.hash_scheme)
		bloom_agg_raise_corrupt("The filter does not have the shape its false_positive_rate and capacity give.");
	state->filter = counting_copy(&view);
	PG_RETURN_POINTER(state);
}

/* ---- states of type counting_bloom ---- */

/*
 * The state in argument 0 as a filter this call may write: the aggregate's
 * own flat copy in an aggregate call, else (from SQL, or a value in another
 * form) a new copy.  NULL for SQL NULL.
 */
static CountingBloomFilter *
counting_agg_target(FunctionCallInfo fcinfo)
{
	struct varlena *state;
	BloomView	view;

	if (PG_ARGISNULL(0))
		return NULL;
	state = (struct varlena *) PG_GETARG_POINTER(0);
	counting_getarg(fcinfo, 0, &view);
	if (AggCheckCallContext(fcinfo, NULL) && VARATT_IS_4B_U(state))
		return (CountingBloomFilter *) state;
	return counting_copy(&view);
}

static void
counting_agg_shape_of(double p, int64 n, BloomHeader *shape)
{
	counting_shape("counting_bloom_agg", p, n, shape);
}

/* The shape of counting_bloom_agg's (p, n), remembered (bloom_agg_request_memo). */
static const BloomHeader *
counting_agg_request_shape(double p, int64 n)
{
	static BloomRequestMemo memo;

	return bloom_agg_request_memo(&memo, p, n, counting_agg_shape_of);
}

/* counting_bloom_agg(bloom_hashed, false_positive_rate, capacity) */
PG_FUNCTION_INFO_V1(counting_bloom_agg_hashed_transfn);
Datum
counting_bloom_agg_hashed_transfn(PG_FUNCTION_ARGS)
{
	CountingBloomFilter *filter = counting_agg_target(fcinfo);
	const BloomHeader *shape;
	double		p;
	int64		n;

	counting_agg_request_args(fcinfo, 2, &p, &n);
	shape = counting_agg_request_shape(p, n);
	if (filter == NULL)
		filter = counting_alloc(shape, NULL);
	else if (filter->m != shape->m || filter->k != shape->k ||
			 filter->hash_scheme != shape->hash_scheme)
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("counting_bloom_agg: false_positive_rate and capacity must be the same in every row"),
				errdetail("The filter has m = " UINT64_FORMAT ", k = %u, hash scheme %u; a row has false_positive_rate %s and capacity " INT64_FORMAT ", which give m = " UINT64_FORMAT ", k = %u, hash scheme %u.",
						  filter->m, filter->k, filter->hash_scheme,
						  float8out_internal(p), n, shape->m, shape->k, shape->hash_scheme));
	if (!PG_ARGISNULL(1))
		counting_agg_add_hash(NULL, filter,
							  bloom_hashed_hash((const BloomHashed *) PG_GETARG_POINTER(1),
												&filter->flags, "counting_bloom_agg"));
	PG_RETURN_POINTER(filter);
}

/*
 * The transition and combine function of counting_bloom_union_agg, and the
 * combine function of counting_bloom_agg(bloom_hashed, p, n): the counters
 * of the filter in argument 1 added to the state's; NULL adds nothing.
 */
PG_FUNCTION_INFO_V1(counting_bloom_union_agg_fold);
Datum
counting_bloom_union_agg_fold(PG_FUNCTION_ARGS)
{
	CountingBloomFilter *filter;
	BloomView	input;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	counting_getarg(fcinfo, 1, &input);
	filter = counting_agg_target(fcinfo);
	if (filter == NULL)
		PG_RETURN_POINTER(counting_copy(&input));
	counting_union_into("counting_bloom_union_agg", filter, &input);
	PG_RETURN_POINTER(filter);
}

/* The final function of the two above: a flat copy of the state, or for no rows see counting_agg_no_rows. */
PG_FUNCTION_INFO_V1(counting_bloom_agg_filter_finalfn);
Datum
counting_bloom_agg_filter_finalfn(PG_FUNCTION_ARGS)
{
	BloomView	view;

	if (PG_ARGISNULL(0))
		return counting_agg_no_rows_result(fcinfo);
	counting_getarg(fcinfo, 0, &view);
	PG_RETURN_POINTER(counting_copy(&view));
}
