/*
 * agg/filter_state.c: the 1.3 aggregates whose states are filters:
 * bloom_agg(bloom_hashed, false_positive_rate, capacity),
 * bloom_agg_shaped(bloom_hashed, shape) and the bloom_union_agg and
 * bloom_intersection_agg folds; their state is the BloomShapedState of
 * agg/bloom_agg.c, inside an expanded object when the filter is large.
 */
#include "postgres.h"

#include "agg/bloom_agg.h"

#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

/* ---- states that are filters (1.3) ---- */

/*
 * From 1.3 on, the transition state of bloom_union_agg,
 * bloom_intersection_agg and the bloom_hashed forms of bloom_agg(value, p,
 * n) and bloom_agg_shaped is of type bloom: a filter that rows are added to
 * in place.  A filter smaller than BF_ADDER_MIN_BYTES is the flat value
 * itself (the aggregate machinery keeps the copy it made of the first
 * one, and a group costs its filter); a larger one is an expanded object
 * (agg/agg.h) holding a BloomShapedState, so that values wait in its adder
 * and the filter is not copied when the first row makes it.
 *
 * Between processes (a parallel plan's workers, Citus's workers and
 * coordinator) a partial state is an ordinary filter, read in place by the
 * combine function and checked there as every filter is.  What the rows
 * asked for (the request, the shape) stays behind, and partial states must
 * have the shape of one another; in a single process the rows are held to
 * the same rule: a row's request or shape must give the filter's shape.
 * (The polymorphic aggregates keep their internal states above: Citus
 * cannot split them, and would fail where it now gathers their rows.)
 */
static Size
bloom_agg_filter_flat_size(BloomAggObject *object)
{
	BloomShapedState *state = (BloomShapedState *) object->state;

	bloom_shaped_state_flush(state);
	return VARSIZE(state->filter);
}

/* The flat form is the filter itself: written from the state, never kept. */
static void
bloom_agg_filter_flatten(BloomAggObject *object, void *result, Size allocated_size)
{
	BloomShapedState *state = (BloomShapedState *) object->state;
	BloomFilter *flat = (BloomFilter *) result;

	Assert(allocated_size == VARSIZE(state->filter));
	bloom_shaped_state_flush(state);
	memcpy(flat, state->filter, BLOOM_BITS_OFFSET);
	bloom_fill_bits(flat->bits, state->filter->bits, allocated_size - BLOOM_BITS_OFFSET);
}

/* What bloom_view_datum reads of such a state: its filter, in place. */
static bool
bloom_agg_filter_view(BloomAggObject *object, BloomView *view)
{
	return bloom_shaped_state_view((BloomShapedState *) object->state, view);
}

static const BloomAggObjectKind bloom_agg_filter_kind = {
	bloom_agg_filter_flat_size,
	bloom_agg_filter_flatten,
	bloom_agg_filter_view
};

/*
 * The state a 1.3 transition or combine function works on: filter, where
 * the bits go, inside object when the state is an expanded one.
 */
typedef struct BloomAggTarget
{
	BloomFilter *filter;
	BloomAggObject *object;
	BloomShapedState *state;		/* object's state, or NULL */
	bool		in_aggregate;
} BloomAggTarget;

/*
 * A new state for a filter of the shape of header (its flags too), empty,
 * or a copy of from when it is not NULL.  Expanded when large and in an
 * aggregate; else flat, in CurrentMemoryContext, which the aggregate
 * machinery copies into its own.
 */
static void
bloom_agg_target_new(FunctionCallInfo fcinfo, BloomShapedKind kind, const BloomHeader *header,
					 const BloomView *from, BloomAggTarget *target)
{
	MemoryContext old_context;

	target->in_aggregate = AggCheckCallContext(fcinfo, NULL) != 0;
	target->object = NULL;
	target->state = NULL;
	if (!target->in_aggregate || bloom_payload_bytes(header->m) < BF_ADDER_MIN_BYTES)
	{
		if (from != NULL)
			target->filter = bloom_copy(from);
		else
		{
			target->filter = bloom_alloc(header->m, header->k, header->hash_scheme);
			target->filter->flags = header->flags;
		}
		return;
	}

	target->object = bloom_agg_object_new(bloom_agg_object_context(fcinfo, &target->in_aggregate),
										  &bloom_agg_filter_kind);
	old_context = MemoryContextSwitchTo(target->object->header.eoh_context);
	target->state = (BloomShapedState *) palloc0(sizeof(BloomShapedState));
	target->state->kind = kind;
	target->object->state = target->state;
	if (from != NULL)
		target->filter = bloom_copy_state(from);
	else
	{
		target->filter = bloom_alloc_state(header->m, header->k, header->hash_scheme);
		target->filter->flags = header->flags;
	}
	MemoryContextSwitchTo(old_context);
	target->state->filter = target->filter;
	bloom_shaped_state_start_adder(target->object->header.eoh_context, target->state);
}

/*
 * The state in argument 0, false for SQL NULL: itself when this call may
 * modify it (an aggregate's state: its expanded object, or its own flat
 * copy), else a new one holding a copy, so that the argument is never
 * written.
 */
static bool
bloom_agg_target_arg(FunctionCallInfo fcinfo, BloomShapedKind kind, BloomAggTarget *target)
{
	BloomAggObject *own;
	struct varlena *flat;
	BloomView	view;

	if (PG_ARGISNULL(0))
		return false;
	own = bloom_agg_modifiable_object(fcinfo, &bloom_agg_filter_kind);
	if (own != NULL)
	{
		target->object = own;
		target->state = (BloomShapedState *) own->state;
		target->filter = target->state->filter;
		target->in_aggregate = true;
		return true;
	}
	flat = (struct varlena *) PG_GETARG_POINTER(0);
	if (AggCheckCallContext(fcinfo, NULL) && VARATT_IS_4B_U(flat))
	{
		/* the aggregate's own copy of the state it was given: checked once more, cheaply */
		bloom_view_datum(PointerGetDatum(flat), &view);
		target->filter = (BloomFilter *) flat;
		target->object = NULL;
		target->state = NULL;
		target->in_aggregate = true;
		return true;
	}
	bloom_getarg(fcinfo, 0, &view);
	bloom_agg_target_new(fcinfo, kind, &view.header, &view, target);
	return true;
}

static inline void
bloom_agg_target_add(BloomAggTarget *target, bf_hash hash)
{
	bloom_agg_add_hash(target->state != NULL ? target->state->adder : NULL, target->filter, hash);
}

static Datum
bloom_agg_target_result(BloomAggTarget *target)
{
	if (target->object != NULL)
		return bloom_agg_object_result(target->object, target->in_aggregate);
	PG_RETURN_POINTER(target->filter);
}

/* Argument 0 unchanged (a row that adds nothing): NULL stays NULL. */
static Datum
bloom_agg_unchanged(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/* The shape bloom_agg's (p, n) gives. */
static void
bloom_agg_shape_of(double p, int64 n, BloomHeader *shape)
{
	uint64_t	m = 0;
	uint32_t	k = 0;
	uint8_t		scheme;
	bf_status	status = bf_default_shape(p, n, &m, &k, &scheme);

	if (status != BF_OK)
		bloom_raise_shape_error(status, "bloom_agg", m, k, p, n);
	shape->format_version = BLOOM_FORMAT_VERSION;
	shape->hash_scheme = scheme;
	shape->k = (uint8) k;
	shape->flags = bloom_new_filter_flags();
	shape->m = m;
}

/* The shape of bloom_agg's (p, n), remembered (bloom_agg_request_memo). */
static const BloomHeader *
bloom_agg_request_shape(double p, int64 n)
{
	static BloomRequestMemo memo;

	return bloom_agg_request_memo(&memo, p, n, bloom_agg_shape_of);
}

static bool
bloom_same_shape(const BloomHeader *a, const BloomHeader *b)
{
	return a->m == b->m && a->k == b->k && a->hash_scheme == b->hash_scheme;
}

/* The row path of the bloom_hashed forms: the hash in argument 1 (not NULL), set in the filter. */
static void
bloom_agg_target_add_hashed(FunctionCallInfo fcinfo, BloomAggTarget *target, const char *function)
{
	bloom_agg_target_add(target,
						 bloom_hashed_hash((const BloomHashed *) PG_GETARG_POINTER(1),
										   &target->filter->flags, function));
}

/* bloom_agg(bloom_hashed, false_positive_rate, capacity) */
PG_FUNCTION_INFO_V1(bloom_agg_filter_transfn);
Datum
bloom_agg_filter_transfn(PG_FUNCTION_ARGS)
{
	BloomAggTarget target;
	const BloomHeader *shape;
	double		p;
	int64		n;

	bloom_agg_request_args(fcinfo, &p, &n);
	shape = bloom_agg_request_shape(p, n);

	if (!bloom_agg_target_arg(fcinfo, BLOOM_AGG_FIXED_CAPACITY, &target))
		bloom_agg_target_new(fcinfo, BLOOM_AGG_FIXED_CAPACITY, shape, NULL, &target);
	else
	{
		BloomView	state;

		bloom_view_filter(target.filter, &state);
		if (!bloom_same_shape(&state.header, shape))
			ereport(ERROR,
					errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("bloom_agg: false_positive_rate and capacity must be the same in every row"),
					errdetail("The filter has m = " UINT64_FORMAT ", k = %u, hash scheme %u; a row has false_positive_rate %s and capacity " INT64_FORMAT ", which give m = " UINT64_FORMAT ", k = %u, hash scheme %u.",
							  state.header.m, state.header.k, state.header.hash_scheme,
							  float8out_internal(p), n, shape->m, shape->k, shape->hash_scheme));
	}
	if (!PG_ARGISNULL(1))
		bloom_agg_target_add_hashed(fcinfo, &target, "bloom_agg");
	return bloom_agg_target_result(&target);
}

/*
 * bloom_agg_shaped(bloom_hashed, shape): the shape is text, bloom_shape()'s
 * (types/bloom/construct.c), parsed once and compared as bytes on later
 * rows (remembered per backend, as bloom_agg_request_memo's requests).  A row with a NULL value adds nothing and needs no shape; a
 * value needs one, as bloom_add(NULL, value) has no filter to add it to.  A
 * partial state cannot say "no shape yet", so this rule, unlike one that
 * depends on which row came first, is the same in every plan.
 */
PG_FUNCTION_INFO_V1(bloom_agg_shaped_transfn);
Datum
bloom_agg_shaped_transfn(PG_FUNCTION_ARGS)
{
	static struct
	{
		Size		length;		/* 0: none kept (no shape is empty) */
		char		text[64];
		BloomHeader shape;
	}			last;
	BloomAggTarget target;
	text	   *shape;
	const char *data;
	Size		length;

	if (PG_ARGISNULL(2))
	{
		if (PG_ARGISNULL(1))
			return bloom_agg_unchanged(fcinfo);
		ereport(ERROR,
				errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				errmsg("bloom_agg_shaped: a row with a value has no shape"),
				errdetail("A non-NULL value needs a filter shape to be added in; its row's is NULL."),
				errhint("Give every row the same shape, such as a scalar subquery that returns bloom_shape() of one stored filter."));
	}
	shape = PG_GETARG_TEXT_PP(2);
	data = VARDATA_ANY(shape);
	length = VARSIZE_ANY_EXHDR(shape);
	if (last.length == 0 || last.length != length || memcmp(last.text, data, length) != 0)
	{
		BloomHeader parsed;

		last.length = 0;
		bloom_parse_shape("bloom_agg_shaped", data, length, &parsed);
		last.shape = parsed;
		/* a shape is never longer; one that were would be parsed every time */
		last.length = length <= sizeof(last.text) ? length : 0;
		memcpy(last.text, data, last.length);
	}

	if (!bloom_agg_target_arg(fcinfo, BLOOM_AGG_SHAPE, &target))
		bloom_agg_target_new(fcinfo, BLOOM_AGG_SHAPE, &last.shape, NULL, &target);
	else
	{
		BloomView	state;

		bloom_view_filter(target.filter, &state);
		if (!bloom_same_shape(&state.header, &last.shape))
			ereport(ERROR,
					errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("bloom_agg_shaped: the shape must be the same in every row"),
					errdetail("The filter has m = " UINT64_FORMAT ", k = %u, hash scheme %u; a row's shape has m = " UINT64_FORMAT ", k = %u, hash scheme %u.",
							  state.header.m, state.header.k, state.header.hash_scheme,
							  last.shape.m, last.shape.k, last.shape.hash_scheme));
	}
	if (!PG_ARGISNULL(1))
		bloom_agg_target_add_hashed(fcinfo, &target, "bloom_agg_shaped");
	return bloom_agg_target_result(&target);
}

/*
 * The aggregate a fold works for, for its messages: the aggregate being
 * finalized or run when it is one of ours (not Citus's coord_combine_agg,
 * say), else the set operation.
 */
static const char *
bloom_agg_fold_name(FunctionCallInfo fcinfo, BloomSetOp op)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	char	   *name = aggref != NULL ? get_func_name(aggref->aggfnoid) : NULL;

	if (name != NULL && strncmp(name, "bloom_", 6) == 0)
		return name;
	return op == BLOOM_SETOP_UNION ? "bloom_union_agg" : "bloom_intersection_agg";
}

/*
 * The transition function of bloom_union_agg and bloom_intersection_agg,
 * and the combine function of every aggregate above: fold the filter in
 * argument 1 (any form) into the state in argument 0; NULL adds nothing.
 * The shapes must match; the error names them in an order of their own,
 * whichever came first.
 */
static Datum
bloom_agg_filter_fold(FunctionCallInfo fcinfo, BloomSetOp op)
{
	BloomAggTarget target;
	BloomView	input;
	BloomView	state;

	if (PG_ARGISNULL(1))
		return bloom_agg_unchanged(fcinfo);
	bloom_getarg(fcinfo, 1, &input);
	if (!bloom_agg_target_arg(fcinfo, BLOOM_AGG_SET_OPERATION, &target))
	{
		bloom_agg_target_new(fcinfo, BLOOM_AGG_SET_OPERATION, &input.header, &input, &target);
		return bloom_agg_target_result(&target);
	}
	bloom_view_filter(target.filter, &state);
	if (!bloom_same_shape(&state.header, &input.header))
	{
		bool		state_first = bloom_template_precedes(&state.header, &input.header);

		bloom_require_same_shape(bloom_agg_fold_name(fcinfo, op),
								 state_first ? &state : &input, state_first ? &input : &state);
	}
	if (target.state != NULL)
		bloom_shaped_state_flush(target.state);
	bloom_setop_fold(op, op == BLOOM_SETOP_UNION ? "bloom_union_agg" : "bloom_intersection_agg",
					 target.filter, &input);
	return bloom_agg_target_result(&target);
}

/*
 * The transition and combine function of bloom_union_agg, and the combine
 * function of the bloom_hashed forms of bloom_agg and of bloom_agg_shaped.
 */
PG_FUNCTION_INFO_V1(bloom_union_agg_fold);
Datum
bloom_union_agg_fold(PG_FUNCTION_ARGS)
{
	return bloom_agg_filter_fold(fcinfo, BLOOM_SETOP_UNION);
}

/* The transition and combine function of bloom_intersection_agg. */
PG_FUNCTION_INFO_V1(bloom_intersection_agg_fold);
Datum
bloom_intersection_agg_fold(PG_FUNCTION_ARGS)
{
	return bloom_agg_filter_fold(fcinfo, BLOOM_SETOP_INTERSECTION);
}

/*
 * The final function of every aggregate above: a flat copy of the state,
 * which a window aggregate goes on adding to.  With no rows, bloom_agg
 * returns the empty filter of its request when false_positive_rate and
 * capacity are constants (bloom_agg_call_request); the others return NULL.
 */
PG_FUNCTION_INFO_V1(bloom_agg_filter_finalfn);
Datum
bloom_agg_filter_finalfn(PG_FUNCTION_ARGS)
{
	BloomView	view;
	double		p;
	int64		n;

	if (!PG_ARGISNULL(0))
	{
		bloom_getarg(fcinfo, 0, &view);
		PG_RETURN_POINTER(bloom_copy(&view));
	}
	if (!AggCheckCallContext(fcinfo, NULL) || !bloom_agg_call_request(fcinfo, &p, &n))
		PG_RETURN_NULL();
	PG_RETURN_POINTER(bloom_agg_no_rows(p, n));
}
