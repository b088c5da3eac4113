/*
 * agg/bloom_agg.c: the aggregates bloom_agg(value, false_positive_rate,
 * capacity), bloom_agg_like(value, template), bloom_union_agg(bloom) and
 * bloom_intersection_agg(bloom), whose state is internal.  Their 1.3 forms
 * bloom_agg(bloom_hashed, false_positive_rate, capacity),
 * bloom_agg_shaped(bloom_hashed, shape) and the set operations' folds,
 * whose states are filters, are in agg/filter_state.c; both use the
 * BloomShapedState of agg/bloom_agg.h.
 *
 * The polymorphic aggregates' transition state is internal: a
 * BloomShapedState in the aggregate memory context,
 * holding a filter that rows are added to (or ORed, ANDed into) in place:
 * one allocation per group, nothing copied per row.  The final functions
 * return a copy and leave the state alone, because a window aggregate keeps
 * adding rows to the state after each result.  The state knows its kind
 * (BloomShapedKind): what every later row and partial state must repeat, the
 * request (p, n), the template's shape or only the shape of the filters.
 *
 * Parallel (and partitionwise) aggregation: the combine functions OR or AND
 * partial states together.  Both are associative and commutative and the
 * hashing is deterministic, so every plan gives the same bits as a serial
 * one.  Shapes are checked wherever two filters meet, in the transition and
 * the combine functions alike, and the errors read the same either way.
 * The serialize and deserialize functions move a state between processes;
 * deserialization validates everything it reads, like bloom_recv.
 *
 * bloom_agg with no rows returns an empty filter of the requested shape, so
 * that "no rows" and "rows that were all NULL" agree.  The final function
 * only sees the state, so it takes false_positive_rate and capacity from the
 * aggregate call (bloom_agg_call, agg/common.c), which works when both
 * are constants.  When they are not constants (columns, parameters of a
 * generic plan), and in a window whose frame is empty (a window function has
 * no Aggref), the shape is unknown and the result of no rows is NULL.
 *
 * bloom_agg_like is bloom_agg with the shape (m, k, hash scheme) of a
 * template filter instead of a requested (false_positive_rate, capacity):
 * the same state, row path, combine, serialize and deserialize functions,
 * so its bits are those bloom_agg and bloom_add set.  Every row's template
 * must have the shape of the first row's, or every row's must be NULL (the
 * result is then NULL, as bloom_empty_like(NULL) is): a row with a NULL
 * template among rows with one has no shape to add its value in, and
 * skipping the value would be a false negative.  Its bits are never read.
 * With no rows the template is unknown (it is rarely a constant) and the
 * result is NULL.
 */
#include "postgres.h"

#include "agg/bloom_agg.h"

#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

/* Set the bits of the values still pending in the state's adder. */
void
bloom_shaped_state_flush(BloomShapedState *state)
{
	if (state->adder != NULL)
		bf_adder_flush(state->adder);
}

/* A view of the state's filter, flushed; false when it has none. */
bool
bloom_shaped_state_view(BloomShapedState *state, BloomView *view)
{
	if (state->in_place != NULL)
	{
		*view = *state->in_place;
		return true;
	}
	if (state->filter == NULL)
		return false;
	bloom_shaped_state_flush(state);
	bloom_view_filter(state->filter, view);
	return true;
}

/* A copy of the state's filter, in CurrentMemoryContext. */
static Datum
bloom_agg_result(BloomShapedState *state)
{
	BloomView	view;

	bloom_shaped_state_flush(state);
	bloom_view_filter(state->filter, &view);
	return PointerGetDatum(bloom_copy(&view));
}

/*
 * A new state of the given kind in the aggregate context, for filter (in
 * that context too, or NULL), asked for with p and n (0 but for
 * BLOOM_AGG_FIXED_CAPACITY).
 */
static BloomShapedState *
bloom_shaped_state_new(MemoryContext aggcontext, BloomShapedKind kind, BloomFilter *filter,
					double p, int64 n)
{
	BloomShapedState *state = (BloomShapedState *) MemoryContextAllocZero(aggcontext,
																	 sizeof(BloomShapedState));

	state->kind = kind;
	state->filter = filter;
	state->request.false_positive_rate = p;
	state->request.capacity = n;
	return state;
}

/* Give the state an adder, in context, when its filter is large. */
void
bloom_shaped_state_start_adder(MemoryContext context, BloomShapedState *state)
{
	BloomFilter *filter = state->filter;

	if (filter != NULL && bloom_payload_bytes(filter->m) >= BF_ADDER_MIN_BYTES)
	{
		state->adder = (bf_adder *) MemoryContextAlloc(context, sizeof(bf_adder));
		bf_adder_init(state->adder, filter->bits, filter->m, filter->k, filter->hash_scheme);
	}
}

/*
 * The same for the first row of bloom_agg or bloom_agg_like, whose later
 * rows add values: with an adder when the filter is large.
 */
static BloomShapedState *
bloom_shaped_state_for_rows(MemoryContext aggcontext, BloomShapedKind kind, BloomFilter *filter,
						 double p, int64 n)
{
	BloomShapedState *state = bloom_shaped_state_new(aggcontext, kind, filter, p, n);

	bloom_shaped_state_start_adder(aggcontext, state);
	return state;
}

/* ---- bloom_agg ---- */

/* bloom_agg's state, with its empty filter, for the first row (kept off the row path). */
static pg_noinline BloomShapedState *
bloom_agg_start(FunctionCallInfo fcinfo, double p, int64 n)
{
	MemoryContext aggcontext = bloom_agg_context(fcinfo, "bloom_agg_transfn");
	MemoryContext old_context = MemoryContextSwitchTo(aggcontext);
	BloomFilter *filter = bloom_alloc_optimal("bloom_agg", p, n, true);

	MemoryContextSwitchTo(old_context);
	return bloom_shaped_state_for_rows(aggcontext, BLOOM_AGG_FIXED_CAPACITY, filter, p, n);
}

/*
 * The state in argument 0, or NULL before the first row.  A state exists
 * only when the aggregate machinery passes one (an internal argument cannot
 * come from SQL), and then the cheap test of the call context will do: the
 * full one (bloom_agg_start) is needed only to create it.
 */
static inline BloomShapedState *
bloom_agg_transition_state(FunctionCallInfo fcinfo, const char *function)
{
	if (PG_ARGISNULL(0))
		return NULL;
	if (unlikely(!bloom_in_aggregate(fcinfo)))
		elog(ERROR, "%s called in non-aggregate context", function);
	return (BloomShapedState *) PG_GETARG_POINTER(0);
}

/*
 * The row path of bloom_agg and bloom_agg_like: hash the value in argument
 * 1 (not NULL) as bloom_add does, and set its bits in the state's filter.
 */
static pg_attribute_always_inline void
bloom_shaped_state_add(FunctionCallInfo fcinfo, BloomShapedState *state)
{
	bf_hash		hash;

	if (state->encoder == NULL)
		state->encoder = bloom_call_encoder(fcinfo, 1);
	hash = bloom_encoder_hash(state->encoder, PG_GETARG_DATUM(1),
							  state->filter->flags, &state->filter->flags);
	bloom_agg_add_hash(state->adder, state->filter, hash);
}

/*
 * The state is created from the first row even when its value is NULL, so
 * a bad false_positive_rate or capacity is an error whatever the values.
 */
PG_FUNCTION_INFO_V1(bloom_agg_transfn);
Datum
bloom_agg_transfn(PG_FUNCTION_ARGS)
{
	BloomShapedState *state = bloom_agg_transition_state(fcinfo, "bloom_agg_transfn");
	double		p;
	int64		n;

	bloom_agg_request_args(fcinfo, &p, &n);

	if (state == NULL)
		state = bloom_agg_start(fcinfo, p, n);
	else
		bloom_agg_check_request(&state->request, p, n);

	if (!PG_ARGISNULL(1))
		bloom_shaped_state_add(fcinfo, state);
	PG_RETURN_POINTER(state);
}

/* ---- bloom_agg_like ---- */

/* "a filter of m = ..., k = ..., hash scheme ..." or "NULL", for messages */
static char *
bloom_template_description(const BloomHeader *template)
{
	if (template == NULL)
		return pstrdup("NULL");
	return psprintf("a filter of m = " UINT64_FORMAT ", k = %u, hash scheme %u",
					template->m, template->k, template->hash_scheme);
}

/* Whether template a (NULL: a NULL template) comes before b in messages. */
bool
bloom_template_precedes(const BloomHeader *a, const BloomHeader *b)
{
	if (a == NULL || b == NULL)
		return a == NULL;
	if (a->hash_scheme != b->hash_scheme)
		return a->hash_scheme < b->hash_scheme;
	if (a->m != b->m)
		return a->m < b->m;
	return a->k < b->k;
}

/*
 * Every row's template (and every partial state's) must have the shape of
 * the first one, or be NULL when it was NULL; template is NULL for a NULL
 * template.  Only the shape counts: templates of one shape with different
 * bits give the same result, whatever their order.  The message names the
 * two shapes in an order of their own, so that it is the same whichever
 * row or partial state came first.
 */
static void
bloom_agg_like_check_template(const BloomShapedState *state, const BloomHeader *template)
{
	BloomView	first;
	const BloomHeader *a = NULL;
	const BloomHeader *b = template;

	if (state->filter != NULL)
	{
		bloom_view_filter(state->filter, &first);
		a = &first.header;
	}
	if (a == NULL || b == NULL)
	{
		if (a == NULL && b == NULL)
			return;
	}
	else if (a->m == b->m && a->k == b->k && a->hash_scheme == b->hash_scheme)
		return;
	if (bloom_template_precedes(b, a))
	{
		b = a;
		a = template;
	}
	ereport(ERROR,
			errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			errmsg("bloom_agg_like: the template must have the same shape in every row"),
			errdetail("One row's template is %s; another's is %s.",
					  bloom_template_description(a), bloom_template_description(b)),
			errhint("Give every row the same template, such as a scalar subquery that returns one stored filter."));
}

/*
 * bloom_agg_like's state for the first row, with an empty filter of the
 * template's shape, or none for a NULL template.
 */
static pg_noinline BloomShapedState *
bloom_agg_like_start(FunctionCallInfo fcinfo, const BloomHeader *template)
{
	MemoryContext aggcontext = bloom_agg_context(fcinfo, "bloom_agg_like_transfn");
	MemoryContext old_context = MemoryContextSwitchTo(aggcontext);
	BloomFilter *filter = NULL;

	if (template != NULL)
	{
		filter = bloom_alloc_state(template->m, template->k, template->hash_scheme);
		filter->flags = template->flags;	/* text hashed as the template's */
	}
	MemoryContextSwitchTo(old_context);
	return bloom_shaped_state_for_rows(aggcontext, BLOOM_AGG_LIKE_TEMPLATE, filter, 0, 0);
}

/*
 * bloom_agg_like(value, template): the template is read in every row, also
 * when the value is NULL, so that a template of another shape is an error
 * whatever the values.
 */
PG_FUNCTION_INFO_V1(bloom_agg_like_transfn);
Datum
bloom_agg_like_transfn(PG_FUNCTION_ARGS)
{
	BloomShapedState *state = bloom_agg_transition_state(fcinfo, "bloom_agg_like_transfn");
	BloomView	template;
	const BloomHeader *template_shape = NULL;

	if (!PG_ARGISNULL(2))
	{
		bloom_getarg(fcinfo, 2, &template);
		template_shape = &template.header;
	}

	if (state == NULL)
		state = bloom_agg_like_start(fcinfo, template_shape);
	else
		bloom_agg_like_check_template(state, template_shape);

	if (!PG_ARGISNULL(1) && state->filter != NULL)
		bloom_shaped_state_add(fcinfo, state);
	PG_RETURN_POINTER(state);
}

PG_FUNCTION_INFO_V1(bloom_agg_finalfn);
Datum
bloom_agg_finalfn(PG_FUNCTION_ARGS)
{
	double		p;
	int64		n;

	bloom_agg_context(fcinfo, "bloom_agg_finalfn");
	if (!PG_ARGISNULL(0))
		return bloom_agg_result((BloomShapedState *) PG_GETARG_POINTER(0));

	/* no rows: an empty filter of the requested shape, if it is known */
	if (!bloom_agg_call_request(fcinfo, &p, &n))
		PG_RETURN_NULL();
	PG_RETURN_POINTER(bloom_agg_no_rows(p, n));
}

/* ---- bloom_union_agg and bloom_intersection_agg ---- */

/*
 * Fold input (NULL only from a bloom_agg_like state whose templates were all
 * NULL), the filter of partial state from, into state, after the checks of
 * the state's kind: from must have been asked for as state was.
 */
static void
bloom_shaped_state_fold(BloomSetOp op, const char *operation, BloomShapedState *state,
					 const BloomShapedState *from, const BloomView *input)
{
	if (from->kind != state->kind)
		bloom_agg_raise_corrupt("A partial state belongs to another aggregate.");
	switch (state->kind)
	{
		case BLOOM_AGG_FIXED_CAPACITY:
			bloom_agg_check_request(&state->request, from->request.false_positive_rate,
									from->request.capacity);
			break;
		case BLOOM_AGG_LIKE_TEMPLATE:
			bloom_agg_like_check_template(state, input != NULL ? &input->header : NULL);
			break;
		case BLOOM_AGG_SET_OPERATION:
		case BLOOM_AGG_SHAPE:
			break;
	}
	if (input != NULL)
		bloom_setop_fold(op, operation, state->filter, input);
}

static Datum
bloom_setop_agg_transition(FunctionCallInfo fcinfo, BloomSetOp op,
						   const char *operation, const char *function)
{
	MemoryContext aggcontext = bloom_agg_context(fcinfo, function);
	BloomShapedState *state = PG_ARGISNULL(0) ? NULL : (BloomShapedState *) PG_GETARG_POINTER(0);
	BloomView	input;

	if (PG_ARGISNULL(1))
		return bloom_agg_return_state(fcinfo, state);

	bloom_getarg(fcinfo, 1, &input);
	if (state == NULL)
	{
		/* a copy: the row's value lives in a shorter-lived context */
		MemoryContext old_context = MemoryContextSwitchTo(aggcontext);
		BloomFilter *filter = bloom_copy(&input);

		MemoryContextSwitchTo(old_context);
		state = bloom_shaped_state_new(aggcontext, BLOOM_AGG_SET_OPERATION, filter, 0, 0);
	}
	else
		bloom_setop_fold(op, operation, state->filter, &input);
	PG_RETURN_POINTER(state);
}

PG_FUNCTION_INFO_V1(bloom_union_agg_transfn);
Datum
bloom_union_agg_transfn(PG_FUNCTION_ARGS)
{
	return bloom_setop_agg_transition(fcinfo, BLOOM_SETOP_UNION, "bloom_union_agg",
									  "bloom_union_agg_transfn");
}

PG_FUNCTION_INFO_V1(bloom_intersection_agg_transfn);
Datum
bloom_intersection_agg_transfn(PG_FUNCTION_ARGS)
{
	return bloom_setop_agg_transition(fcinfo, BLOOM_SETOP_INTERSECTION,
									  "bloom_intersection_agg",
									  "bloom_intersection_agg_transfn");
}

/* Also bloom_agg_like's, whose state has no filter when its templates were NULL. */
PG_FUNCTION_INFO_V1(bloom_setop_agg_finalfn);
Datum
bloom_setop_agg_finalfn(PG_FUNCTION_ARGS)
{
	bloom_agg_context(fcinfo, "bloom_setop_agg_finalfn");
	if (PG_ARGISNULL(0) || ((BloomShapedState *) PG_GETARG_POINTER(0))->filter == NULL)
		PG_RETURN_NULL();
	return bloom_agg_result((BloomShapedState *) PG_GETARG_POINTER(0));
}

/* ---- parallel aggregation ---- */

/*
 * Fold partial state state2 into state1; a NULL state (no input) is the
 * identity.  When state1 is NULL, PostgreSQL's rule for non-strict combine
 * functions applies: return a copy in the aggregate context, because state2
 * may live in a shorter-lived one.  Both states are of one aggregate, and
 * so of one kind, whose checks speak first: bloom_agg_check_request for
 * bloom_agg, bloom_agg_like_check_template for bloom_agg_like.
 */
static Datum
bloom_agg_combine(FunctionCallInfo fcinfo, BloomSetOp op, const char *operation,
				  const char *function)
{
	MemoryContext aggcontext;
	void	   *arg1;
	void	   *arg2;
	BloomShapedState *state1;
	BloomShapedState *state2;
	BloomView	input;
	bool		has_input;

	if (!bloom_agg_combine_start(fcinfo, function, &aggcontext, &arg1, &arg2))
		return bloom_agg_return_state(fcinfo, arg1);
	state1 = (BloomShapedState *) arg1;
	state2 = (BloomShapedState *) arg2;

	has_input = bloom_shaped_state_view(state2, &input);
	if (state1 == NULL)
	{
		MemoryContext old_context = MemoryContextSwitchTo(aggcontext);
		BloomFilter *filter = has_input ? bloom_copy(&input) : NULL;

		MemoryContextSwitchTo(old_context);
		PG_RETURN_POINTER(bloom_shaped_state_new(aggcontext, state2->kind, filter,
											  state2->request.false_positive_rate,
											  state2->request.capacity));
	}
	Assert(state1->in_place == NULL);
	bloom_shaped_state_flush(state1);
	bloom_shaped_state_fold(op, operation, state1, state2, has_input ? &input : NULL);
	PG_RETURN_POINTER(state1);
}

/* Shared by bloom_agg, bloom_agg_like and bloom_union_agg. */
PG_FUNCTION_INFO_V1(bloom_union_agg_combinefn);
Datum
bloom_union_agg_combinefn(PG_FUNCTION_ARGS)
{
	return bloom_agg_combine(fcinfo, BLOOM_SETOP_UNION, "bloom_union_agg",
							 "bloom_union_agg_combinefn");
}

PG_FUNCTION_INFO_V1(bloom_intersection_agg_combinefn);
Datum
bloom_intersection_agg_combinefn(PG_FUNCTION_ARGS)
{
	return bloom_agg_combine(fcinfo, BLOOM_SETOP_INTERSECTION, "bloom_intersection_agg",
							 "bloom_intersection_agg_combinefn");
}

/*
 * Serialized state (agg/agg.h): the kind (uint32), false_positive_rate
 * (float8) and capacity (int8), then the filter as stored (12-byte header
 * and bit array, core/format.h), which a bloom_agg_like state of NULL templates
 * does not have.
 */
#define BLOOM_AGG_SERIAL_PREFIX (sizeof(uint32) + sizeof(double) + sizeof(int64))

PG_FUNCTION_INFO_V1(bloom_agg_serialfn);
Datum
bloom_agg_serialfn(PG_FUNCTION_ARGS)
{
	BloomShapedState *state;
	BloomView	view;
	uint32		kind;
	bytea	   *result;
	char	   *out;

	bloom_agg_context(fcinfo, "bloom_agg_serialfn");
	state = (BloomShapedState *) PG_GETARG_POINTER(0);
	if (state->filter != NULL)
	{
		bloom_shaped_state_flush(state);
		bloom_view_filter(state->filter, &view);
		result = bloom_agg_serial_new(add_size(BLOOM_AGG_SERIAL_PREFIX + BLOOM_HEADER_BYTES,
											   view.nbytes), &out);
	}
	else
		result = bloom_agg_serial_new(BLOOM_AGG_SERIAL_PREFIX, &out);

	kind = (uint32) state->kind;
	memcpy(out, &kind, sizeof(kind));
	out += sizeof(kind);
	memcpy(out, &state->request.false_positive_rate, sizeof(double));
	out += sizeof(double);
	memcpy(out, &state->request.capacity, sizeof(int64));
	out += sizeof(int64);
	if (state->filter != NULL)
	{
		bloom_header_write((uint8 *) out, &view.header);
		memcpy(out + BLOOM_HEADER_BYTES, view.bits, view.nbytes);
	}
	PG_RETURN_BYTEA_P(result);
}

/*
 * The inverse of the above, in CurrentMemoryContext, with the filter read in
 * place (in_place).  The filter goes through the same validation as every
 * other filter that enters the server (bloom_view_bytes); a bloom_agg
 * state's false_positive_rate and capacity must size exactly that filter,
 * and the other kinds have neither.
 */
PG_FUNCTION_INFO_V1(bloom_agg_deserialfn);
Datum
bloom_agg_deserialfn(PG_FUNCTION_ARGS)
{
	BloomAggReader reader;
	uint32		kind;
	BloomShapedState *state;
	BloomView  *view;

	bloom_agg_reader_start(fcinfo, "bloom_agg_deserialfn", &reader);
	state = (BloomShapedState *) palloc0(sizeof(BloomShapedState));
	bloom_agg_read(&reader, &kind, sizeof(kind));
	bloom_agg_read(&reader, &state->request.false_positive_rate, sizeof(double));
	bloom_agg_read(&reader, &state->request.capacity, sizeof(int64));
	if (kind != BLOOM_AGG_FIXED_CAPACITY && kind != BLOOM_AGG_LIKE_TEMPLATE &&
		kind != BLOOM_AGG_SET_OPERATION)
		bloom_agg_raise_corrupt("The kind of state is unknown.");
	state->kind = (BloomShapedKind) kind;
	if (state->kind != BLOOM_AGG_FIXED_CAPACITY &&
		(state->request.false_positive_rate != 0.0 || state->request.capacity != 0))
		bloom_agg_raise_corrupt("A set operation or bloom_agg_like state has a false_positive_rate or a capacity.");

	/* a bloom_agg_like state whose templates were all NULL: no filter */
	if (reader.remaining == 0 && state->kind == BLOOM_AGG_LIKE_TEMPLATE)
		PG_RETURN_POINTER(state);
	if (reader.remaining < BLOOM_HEADER_BYTES)
		bloom_agg_raise_corrupt("The state is too short.");

	/* the rest is the filter, checked as bloom_view_datum checks any filter */
	view = (BloomView *) palloc(sizeof(BloomView));
	bloom_view_bytes((const uint8 *) reader.next, reader.remaining, view);
	state->in_place = view;

	if (state->kind == BLOOM_AGG_FIXED_CAPACITY)
	{
		uint64_t	m;
		uint32_t	k;
		uint8_t		scheme;

		if (bf_default_shape(state->request.false_positive_rate, state->request.capacity,
							 &m, &k, &scheme) != BF_OK ||
			m != view->header.m || k != view->header.k ||
			view->header.hash_scheme != scheme)
			bloom_agg_raise_corrupt("The filter does not have the shape its false_positive_rate and capacity give.");
	}
	PG_RETURN_POINTER(state);
}
