/*
 * bloom_agg.c: the aggregates bloom_agg(value, false_positive_rate,
 * capacity), bloom_agg_like(value, template), bloom_union_agg(bloom) and
 * bloom_intersection_agg(bloom).
 *
 * The transition state is a BloomAggState in the aggregate memory context,
 * holding a filter that rows are added to (or ORed, ANDed into) in place:
 * one allocation per group, nothing copied per row.  The final functions
 * return a copy and leave the state alone, because a window aggregate keeps
 * adding rows to the state after each result.
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
 * aggregate call (AggGetAggref), which works when both are constants.  When
 * they are not constants (columns, parameters of a generic plan), and in a
 * window whose frame is empty (a window function has no Aggref), the shape
 * is unknown and the result of no rows is NULL.
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
#include "bloom_pg.h"

#include "catalog/pg_type.h"
#include "nodes/execnodes.h"
#include "nodes/plannodes.h"
#include "parser/parsetree.h"
#include "utils/float.h"
#include "utils/memutils.h"

typedef struct BloomAggState
{
	BloomFilter *filter;		/* in the aggregate memory context */

	/*
	 * bloom_agg: the false_positive_rate and capacity the filter was sized
	 * from, which every later row must repeat.  Both are 0 in the set
	 * operation aggregates; bloom_agg_like has 0 and BLOOM_AGG_LIKE_CAPACITY,
	 * and its filter is NULL while every template has been NULL.
	 */
	double		false_positive_rate;
	int64		capacity;

	BloomEncoder *encoder;		/* bloom_agg's value hasher, resolved once */

	/*
	 * bloom_agg into a filter larger than the CPU cache: values whose bits
	 * are prefetched but not set yet (core.h).  NULL for smaller filters,
	 * which take bf_add_hash directly.  Whatever reads state->filter calls
	 * bloom_agg_state_flush() first.
	 */
	bf_adder   *adder;
} BloomAggState;

/* The capacity of a bloom_agg_like state: none that bloom_agg accepts. */
#define BLOOM_AGG_LIKE_CAPACITY (-1)

/* Set the bits of the values still pending in the state's adder. */
static void
bloom_agg_state_flush(BloomAggState *state)
{
	if (state->adder != NULL)
		bf_adder_flush(state->adder);
}

/* Whether the call is an aggregate's, as AggCheckCallContext decides it. */
static inline bool
bloom_in_aggregate(FunctionCallInfo fcinfo)
{
	return fcinfo->context != NULL &&
		(IsA(fcinfo->context, AggState) || IsA(fcinfo->context, WindowAggState));
}

/* The aggregate memory context; ERROR when not called as an aggregate. */
MemoryContext
bloom_agg_context(FunctionCallInfo fcinfo, const char *function)
{
	MemoryContext aggcontext;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "%s called in non-aggregate context", function);
	return aggcontext;
}

/* A copy of the state's filter, in CurrentMemoryContext. */
static Datum
bloom_agg_result(BloomAggState *state)
{
	BloomView	view;

	bloom_agg_state_flush(state);
	bloom_view_filter(state->filter, &view);
	return PointerGetDatum(bloom_copy(&view));
}

/* ---- bloom_agg ---- */

/*
 * Every row (and every partial state) must ask for the filter the first one
 * did; the shape alone is not enough, or the result would depend on which
 * row came first.
 */
static void
bloom_agg_check_request(const BloomAggState *state, double p, int64 n)
{
	if (p != state->false_positive_rate || n != state->capacity)
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("bloom_agg: false_positive_rate and capacity must be the same in every row"),
				errdetail("The filter was sized for false_positive_rate %s and capacity " INT64_FORMAT "; a row has false_positive_rate %s and capacity " INT64_FORMAT ".",
						  float8out_internal(state->false_positive_rate),
						  state->capacity, float8out_internal(p), n));
}

/*
 * A new state in the aggregate context for filter (in that context too;
 * NULL for bloom_agg_like's NULL templates), asked for with p and n, which
 * every later row must repeat.
 */
static BloomAggState *
bloom_agg_state_new(MemoryContext aggcontext, BloomFilter *filter, double p, int64 n)
{
	BloomAggState *state = (BloomAggState *) MemoryContextAllocZero(aggcontext,
																	 sizeof(BloomAggState));

	state->filter = filter;
	state->false_positive_rate = p;
	state->capacity = n;
	if (filter != NULL && bloom_payload_bytes(filter->m) >= BF_ADDER_MIN_BYTES)
	{
		state->adder = (bf_adder *) MemoryContextAlloc(aggcontext, sizeof(bf_adder));
		bf_adder_init(state->adder, filter->bits, filter->m, filter->k, filter->hash_scheme);
	}
	return state;
}

/* bloom_agg's state, with its empty filter, for the first row (kept off the row path). */
static pg_noinline BloomAggState *
bloom_agg_start(FunctionCallInfo fcinfo, double p, int64 n)
{
	MemoryContext aggcontext = bloom_agg_context(fcinfo, "bloom_agg_transfn");
	MemoryContext old_context = MemoryContextSwitchTo(aggcontext);
	BloomFilter *filter = bloom_alloc_optimal("bloom_agg", p, n, true);

	MemoryContextSwitchTo(old_context);
	return bloom_agg_state_new(aggcontext, filter, p, n);
}

/*
 * The state in argument 0, or NULL before the first row.  A state exists
 * only when the aggregate machinery passes one (an internal argument cannot
 * come from SQL), and then the cheap test of the call context will do: the
 * full one (bloom_agg_start) is needed only to create it.
 */
static inline BloomAggState *
bloom_agg_transition_state(FunctionCallInfo fcinfo, const char *function)
{
	if (PG_ARGISNULL(0))
		return NULL;
	if (unlikely(!bloom_in_aggregate(fcinfo)))
		elog(ERROR, "%s called in non-aggregate context", function);
	return (BloomAggState *) PG_GETARG_POINTER(0);
}

/*
 * The row path of bloom_agg and bloom_agg_like: hash the value in argument
 * 1 (not NULL) as bloom_add does, and set its bits in the state's filter.
 */
static pg_attribute_always_inline void
bloom_agg_state_add(FunctionCallInfo fcinfo, BloomAggState *state)
{
	bf_hash		hash;

	if (state->encoder == NULL)
		state->encoder = bloom_call_encoder(fcinfo, 1);
	hash = bloom_encoder_hash(state->encoder, PG_GETARG_DATUM(1),
							  state->filter->flags, &state->filter->flags);
	if (state->adder != NULL)
		bf_adder_add(state->adder, hash);
	else
		bf_add(state->filter->bits, state->filter->m, state->filter->k,
			   state->filter->hash_scheme, hash);
}

/*
 * The state is created from the first row even when its value is NULL, so
 * a bad false_positive_rate or capacity is an error whatever the values.
 */
PG_FUNCTION_INFO_V1(bloom_agg_transfn);
Datum
bloom_agg_transfn(PG_FUNCTION_ARGS)
{
	BloomAggState *state = bloom_agg_transition_state(fcinfo, "bloom_agg_transfn");
	double		p;
	int64		n;

	if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR,
				errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				errmsg("bloom_agg: false_positive_rate and capacity must not be NULL"));
	p = PG_GETARG_FLOAT8(2);
	n = PG_GETARG_INT64(3);

	if (state == NULL)
		state = bloom_agg_start(fcinfo, p, n);
	else
		bloom_agg_check_request(state, p, n);

	if (!PG_ARGISNULL(1))
		bloom_agg_state_add(fcinfo, state);
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
static bool
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
bloom_agg_like_check_template(const BloomAggState *state, const BloomHeader *template)
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
static pg_noinline BloomAggState *
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
	return bloom_agg_state_new(aggcontext, filter, 0, BLOOM_AGG_LIKE_CAPACITY);
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
	BloomAggState *state = bloom_agg_transition_state(fcinfo, "bloom_agg_like_transfn");
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
		bloom_agg_state_add(fcinfo, state);
	PG_RETURN_POINTER(state);
}

static Plan *
bloom_first_plan(List *plans)
{
	return plans != NIL ? (Plan *) linitial(plans) : NULL;
}

/*
 * The Aggref that holds the arguments of the aggregate call being finalized,
 * or NULL (a window aggregate has none).  In a Finalize Aggregate above a
 * partial one (parallel or partitionwise aggregation) the planner has
 * replaced the arguments by a reference to the partial aggregate's output:
 * follow it down the plan, as EXPLAIN does, to the partial Aggref.
 */
Aggref *
bloom_agg_call(FunctionCallInfo fcinfo)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	Plan	   *plan;
	Expr	   *expr;

	if (aggref == NULL || !DO_AGGSPLIT_COMBINE(aggref->aggsplit))
		return aggref;
	if (aggref->args == NIL)
		return NULL;

	plan = castNode(AggState, fcinfo->context)->ss.ps.plan;
	expr = linitial_node(TargetEntry, aggref->args)->expr;
	while (IsA(expr, Var) && ((Var *) expr)->varno == OUTER_VAR)
	{
		TargetEntry *target;

		/* an Append's children all compute the same partial aggregate */
		if (IsA(plan, Append))
			plan = bloom_first_plan(((Append *) plan)->appendplans);
		else if (IsA(plan, MergeAppend))
			plan = bloom_first_plan(((MergeAppend *) plan)->mergeplans);
		else
			plan = outerPlan(plan);
		if (plan == NULL)
			return NULL;
		target = get_tle_by_resno(plan->targetlist, ((Var *) expr)->varattno);
		if (target == NULL)
			return NULL;
		expr = target->expr;
	}
	if (!IsA(expr, Aggref) || ((Aggref *) expr)->aggfnoid != aggref->aggfnoid)
		return NULL;
	return (Aggref *) expr;
}

/* false_positive_rate and capacity of the call, if both are constants. */
static bool
bloom_agg_call_request(FunctionCallInfo fcinfo, double *p, int64 *n)
{
	Aggref	   *aggref = bloom_agg_call(fcinfo);
	Const	   *p_const;
	Const	   *n_const;

	if (aggref == NULL || list_length(aggref->args) < 3)
		return false;
	p_const = (Const *) list_nth_node(TargetEntry, aggref->args, 1)->expr;
	n_const = (Const *) list_nth_node(TargetEntry, aggref->args, 2)->expr;
	if (!IsA(p_const, Const) || p_const->constisnull || p_const->consttype != FLOAT8OID ||
		!IsA(n_const, Const) || n_const->constisnull || n_const->consttype != INT8OID)
		return false;
	*p = DatumGetFloat8(p_const->constvalue);
	*n = DatumGetInt64(n_const->constvalue);
	return true;
}

PG_FUNCTION_INFO_V1(bloom_agg_finalfn);
Datum
bloom_agg_finalfn(PG_FUNCTION_ARGS)
{
	double		p;
	int64		n;

	bloom_agg_context(fcinfo, "bloom_agg_finalfn");
	if (!PG_ARGISNULL(0))
		return bloom_agg_result((BloomAggState *) PG_GETARG_POINTER(0));

	/* no rows: an empty filter of the requested shape, if it is known */
	if (!bloom_agg_call_request(fcinfo, &p, &n))
		PG_RETURN_NULL();
	PG_RETURN_POINTER(bloom_alloc_optimal("bloom_agg", p, n, false));
}

/* ---- bloom_union_agg and bloom_intersection_agg ---- */

/*
 * Fold a filter, asked for with (p, n) by bloom_agg, by the template of
 * bloom_agg_like or with (0, 0) by the set operation aggregates, into
 * state.  input is NULL only for a bloom_agg_like state whose templates were
 * all NULL.  A NULL state stands for no input yet: the result is then a new
 * state in the aggregate context with a copy of the filter, which may live
 * in a shorter-lived context (a row's value, a deserialized partial state).
 */
static BloomAggState *
bloom_agg_state_fold(MemoryContext aggcontext, BloomSetOp op, const char *operation,
					 BloomAggState *state, const BloomView *input, double p, int64 n)
{
	if (state == NULL)
	{
		MemoryContext old_context = MemoryContextSwitchTo(aggcontext);

		state = (BloomAggState *) palloc0(sizeof(BloomAggState));
		if (input != NULL)
			state->filter = bloom_setop_fold(op, operation, NULL, input);
		state->false_positive_rate = p;
		state->capacity = n;
		MemoryContextSwitchTo(old_context);
		return state;
	}

	/* bloom_agg's and bloom_agg_like's checks first; the set operation states pass them */
	bloom_agg_check_request(state, p, n);
	if (n == BLOOM_AGG_LIKE_CAPACITY)
		bloom_agg_like_check_template(state, input != NULL ? &input->header : NULL);
	if (input != NULL)
		bloom_setop_fold(op, operation, state->filter, input);
	return state;
}

static Datum
bloom_setop_agg_transition(FunctionCallInfo fcinfo, BloomSetOp op,
						   const char *operation, const char *function)
{
	MemoryContext aggcontext = bloom_agg_context(fcinfo, function);
	BloomAggState *state = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);
	BloomView	input;

	if (PG_ARGISNULL(1))
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(state);
	}

	bloom_getarg(fcinfo, 1, &input);
	PG_RETURN_POINTER(bloom_agg_state_fold(aggcontext, op, operation, state, &input, 0, 0));
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
	if (PG_ARGISNULL(0) || ((BloomAggState *) PG_GETARG_POINTER(0))->filter == NULL)
		PG_RETURN_NULL();
	return bloom_agg_result((BloomAggState *) PG_GETARG_POINTER(0));
}

/* ---- parallel aggregation ---- */

/*
 * Fold partial state state2 into state1; a NULL state (no input) is the
 * identity.  When state1 is NULL, PostgreSQL's rule for non-strict combine
 * functions applies: return a copy in the aggregate context, because state2
 * may live in a shorter-lived one.
 */
static Datum
bloom_agg_combine(FunctionCallInfo fcinfo, BloomSetOp op, const char *operation,
				  const char *function)
{
	MemoryContext aggcontext = bloom_agg_context(fcinfo, function);
	BloomAggState *state1 = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);
	BloomAggState *state2 = PG_ARGISNULL(1) ? NULL : (BloomAggState *) PG_GETARG_POINTER(1);
	BloomView	input;

	if (state2 == NULL)
	{
		if (state1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(state1);
	}

	bloom_agg_state_flush(state2);
	if (state1 != NULL)
		bloom_agg_state_flush(state1);
	if (state2->filter != NULL)
		bloom_view_filter(state2->filter, &input);
	PG_RETURN_POINTER(bloom_agg_state_fold(aggcontext, op, operation, state1,
										   state2->filter != NULL ? &input : NULL,
										   state2->false_positive_rate, state2->capacity));
}

/*
 * Shared by bloom_agg and bloom_agg_like, where bloom_agg_check_request and
 * bloom_agg_like_check_template speak first.
 */
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
 * Serialized state: false_positive_rate (float8) and capacity (int8), both 0
 * for the set operation aggregates, 0 and BLOOM_AGG_LIKE_CAPACITY for
 * bloom_agg_like, then the filter as stored (12-byte header and bit array,
 * bloom.h), which a bloom_agg_like state of NULL templates does not have.
 * It only passes between the processes of one query, so numbers are in
 * native byte order.
 */
#define BLOOM_AGG_SERIAL_PREFIX (sizeof(double) + sizeof(int64))

/* The first BLOOM_AGG_SERIAL_PREFIX bytes: what the state was asked for. */
static void
bloom_agg_serialize_request(const BloomAggState *state, char *out)
{
	memcpy(out, &state->false_positive_rate, sizeof(double));
	memcpy(out + sizeof(double), &state->capacity, sizeof(int64));
}

PG_FUNCTION_INFO_V1(bloom_agg_serialfn);
Datum
bloom_agg_serialfn(PG_FUNCTION_ARGS)
{
	BloomAggState *state;
	BloomView	view;
	Size		size;
	bytea	   *result;
	char	   *out;

	bloom_agg_context(fcinfo, "bloom_agg_serialfn");
	state = (BloomAggState *) PG_GETARG_POINTER(0);
	if (state->filter == NULL)
	{
		result = (bytea *) palloc(VARHDRSZ + BLOOM_AGG_SERIAL_PREFIX);
		SET_VARSIZE(result, VARHDRSZ + BLOOM_AGG_SERIAL_PREFIX);
		bloom_agg_serialize_request(state, VARDATA(result));
		PG_RETURN_BYTEA_P(result);
	}
	bloom_agg_state_flush(state);
	bloom_view_filter(state->filter, &view);

	size = add_size(VARHDRSZ + BLOOM_AGG_SERIAL_PREFIX + BLOOM_HEADER_BYTES, view.nbytes);
	/* the largest filters fit in a value (1 GB), but not with the 28 bytes added here */
	if (size > MaxAllocSize)
		ereport(ERROR,
				errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				errmsg("bloom filter aggregate state is too large to pass between processes"),
				errdetail("A partial filter of m = " UINT64_FORMAT " bits serializes to %zu bytes; the limit is %zu bytes.",
						  view.header.m, size, (Size) MaxAllocSize),
				errhint("Aggregate filters this large without partial aggregation: SET max_parallel_workers_per_gather = 0 and enable_partitionwise_aggregate = off."));
	result = (bytea *) palloc(size);
	SET_VARSIZE(result, size);
	out = VARDATA(result);
	bloom_agg_serialize_request(state, out);
	out += BLOOM_AGG_SERIAL_PREFIX;
	bloom_header_write((uint8 *) out, &view.header);
	memcpy(out + BLOOM_HEADER_BYTES, view.bits, view.nbytes);
	PG_RETURN_BYTEA_P(result);
}

void
bloom_agg_raise_corrupt(const char *detail)
{
	ereport(ERROR,
			errcode(ERRCODE_DATA_CORRUPTED),
			errmsg("invalid serialized bloom filter aggregate state"),
			errdetail("%s", detail));
}

/*
 * The inverse of the above, in CurrentMemoryContext.  The filter goes
 * through the same validation as every other filter that enters the server
 * (bloom_view_datum), and false_positive_rate and capacity must size exactly
 * that filter.
 */
PG_FUNCTION_INFO_V1(bloom_agg_deserialfn);
Datum
bloom_agg_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *serialized;
	const char *in;
	Size		length;
	BloomAggState *state;
	BloomFilter *filter;
	BloomView	view;

	bloom_agg_context(fcinfo, "bloom_agg_deserialfn");
	serialized = PG_GETARG_BYTEA_PP(0);
	in = VARDATA_ANY(serialized);
	length = VARSIZE_ANY_EXHDR(serialized);
	if (length < BLOOM_AGG_SERIAL_PREFIX)
		bloom_agg_raise_corrupt("The state is too short.");

	state = (BloomAggState *) palloc0(sizeof(BloomAggState));
	memcpy(&state->false_positive_rate, in, sizeof(double));
	memcpy(&state->capacity, in + sizeof(double), sizeof(int64));

	/* a bloom_agg_like state whose templates were all NULL: no filter */
	if (length == BLOOM_AGG_SERIAL_PREFIX && state->capacity == BLOOM_AGG_LIKE_CAPACITY &&
		state->false_positive_rate == 0.0)
		PG_RETURN_POINTER(state);
	if (length < BLOOM_AGG_SERIAL_PREFIX + BLOOM_HEADER_BYTES)
		bloom_agg_raise_corrupt("The state is too short.");

	/* the rest is the filter after its varlena length word */
	length -= BLOOM_AGG_SERIAL_PREFIX;
	filter = (BloomFilter *) palloc(VARHDRSZ + length);
	SET_VARSIZE(filter, VARHDRSZ + length);
	memcpy((char *) filter + VARHDRSZ, in + BLOOM_AGG_SERIAL_PREFIX, length);
	bloom_view_datum(PointerGetDatum(filter), &view);
	state->filter = filter;

	if (state->capacity == 0 || state->capacity == BLOOM_AGG_LIKE_CAPACITY)
	{
		/* any shape: a set operation's or a template's */
		if (state->false_positive_rate != 0.0)
			bloom_agg_raise_corrupt("A set operation or bloom_agg_like state has a false_positive_rate.");
	}
	else
	{
		uint64_t	m;
		uint32_t	k;
		uint8_t		scheme;

		if (bf_default_shape(state->false_positive_rate, state->capacity, &m, &k,
							 &scheme) != BF_OK ||
			m != view.header.m || k != view.header.k ||
			view.header.hash_scheme != scheme)
			bloom_agg_raise_corrupt("The filter does not have the shape its false_positive_rate and capacity give.");
	}
	PG_RETURN_POINTER(state);
}
