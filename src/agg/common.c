/*
 * agg/common.c: what the aggregates share (agg/agg.h).
 *
 * A final function sees only the state, so with no rows it reads what the
 * call asked for (a false_positive_rate, a capacity) from the aggregate call
 * itself, which works when those arguments are constants.  In a Finalize
 * Aggregate above a partial one (parallel or partitionwise aggregation) the
 * planner has replaced the arguments by a reference to the partial
 * aggregate's output, so bloom_agg_call follows that reference down the plan,
 * as EXPLAIN does, to the partial Aggref that still holds them.
 */
#include "postgres.h"

#include "agg/agg.h"

#include "catalog/pg_type.h"
#include "nodes/plannodes.h"
#include "parser/parsetree.h"
#include "utils/float.h"
#include "utils/memutils.h"

MemoryContext
bloom_agg_context(FunctionCallInfo fcinfo, const char *function)
{
	MemoryContext aggcontext;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "%s called in non-aggregate context", function);
	return aggcontext;
}

/* ---- states that are values ---- */

MemoryContext
bloom_agg_object_context(FunctionCallInfo fcinfo, bool *in_aggregate)
{
	MemoryContext parent;

	*in_aggregate = AggCheckCallContext(fcinfo, &parent) != 0;
	if (!*in_aggregate)
		parent = CurrentMemoryContext;
	/* small: a state of many small groups stays small */
	return AllocSetContextCreate(parent, "bloom aggregate state", ALLOCSET_SMALL_SIZES);
}

BloomAggObject *
bloom_agg_modifiable_object(FunctionCallInfo fcinfo, const BloomAggObjectKind *kind)
{
	Datum		state;
	BloomAggObject *object;

	if (PG_ARGISNULL(0) || !AggCheckCallContext(fcinfo, NULL))
		return NULL;
	state = PG_GETARG_DATUM(0);
	if (!VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(state)))
		return NULL;
	object = bloom_agg_object_of(state, kind);
	/* the caller changes the state: a flat form built before is stale */
	if (object != NULL && object->flat != NULL)
	{
		pfree(object->flat);
		object->flat = NULL;
	}
	return object;
}

/* ---- the aggregate call ---- */

static Plan *
bloom_first_plan(List *plans)
{
	return plans != NIL ? (Plan *) linitial(plans) : NULL;
}

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

bool
bloom_agg_call_constant(Aggref *aggref, int argno, Oid typid, Datum *value)
{
	Const	   *arg;

	/* the direct arguments come first; ORDER BY expressions may follow */
	if (aggref == NULL || list_length(aggref->args) <= argno)
		return false;
	arg = (Const *) list_nth_node(TargetEntry, aggref->args, argno)->expr;
	if (!IsA(arg, Const) || arg->constisnull || arg->consttype != typid)
		return false;
	*value = arg->constvalue;
	return true;
}

bool
bloom_agg_call_request(FunctionCallInfo fcinfo, double *p, int64 *n)
{
	Aggref	   *aggref = bloom_agg_call(fcinfo);
	Datum		p_datum;
	Datum		n_datum;

	if (!bloom_agg_call_constant(aggref, 1, FLOAT8OID, &p_datum) ||
		!bloom_agg_call_constant(aggref, 2, INT8OID, &n_datum))
		return false;
	*p = DatumGetFloat8(p_datum);
	*n = DatumGetInt64(n_datum);
	return true;
}

const BloomHeader *
bloom_agg_request_memo(BloomRequestMemo *memo, double p, int64 n, BloomRequestShapeFn shape_of)
{
	/* p is never NaN here: shape_of refuses it, and memo stays invalid */
	if (!memo->valid || p != memo->p || n != memo->n)
	{
		memo->valid = false;
		shape_of(p, n, &memo->shape);
		memo->p = p;
		memo->n = n;
		memo->valid = true;
	}
	return &memo->shape;
}

/* ---- the checks of every row ---- */

void
bloom_agg_raise_request_mismatch(const BloomAggRequest *first, double p, int64 n)
{
	double		first_p = first->false_positive_rate;
	int64		first_n = first->capacity;

	if (first_n == BLOOM_AGG_NO_CAPACITY && n == BLOOM_AGG_NO_CAPACITY)
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("bloom_agg: false_positive_rate must be the same in every row"),
				errdetail("The filter is being built for false_positive_rate %s; a row has false_positive_rate %s.",
						  float8out_internal(first_p), float8out_internal(p)));
	ereport(ERROR,
			errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			errmsg("bloom_agg: false_positive_rate and capacity must be the same in every row"),
			errdetail("The filter was sized for false_positive_rate %s and capacity " INT64_FORMAT "; a row has false_positive_rate %s and capacity " INT64_FORMAT ".",
					  float8out_internal(first_p), first_n, float8out_internal(p), n));
	pg_unreachable();
}

/* ---- combine ---- */

bool
bloom_agg_combine_start(FunctionCallInfo fcinfo, const char *function,
						MemoryContext *aggcontext, void **state1, void **state2)
{
	*aggcontext = bloom_agg_context(fcinfo, function);
	*state1 = PG_ARGISNULL(0) ? NULL : PG_GETARG_POINTER(0);
	*state2 = PG_ARGISNULL(1) ? NULL : PG_GETARG_POINTER(1);
	return *state2 != NULL;
}

/* ---- serialized states ---- */

bytea *
bloom_agg_serial_new(Size length, char **out)
{
	Size		size = add_size(VARHDRSZ, length);
	bytea	   *result;

	/* the largest filters fit in a value (1 GB), but not with a state's header added */
	if (size > MaxAllocSize)
		ereport(ERROR,
				errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				errmsg("bloom filter aggregate state is too large to pass between processes"),
				errdetail("A partial state serializes to %zu bytes; the limit is %zu bytes.",
						  size, (Size) MaxAllocSize),
				errhint("Aggregate filters this large without partial aggregation: SET max_parallel_workers_per_gather = 0 and enable_partitionwise_aggregate = off."));
	result = (bytea *) bloom_palloc_large(size);
	SET_VARSIZE(result, size);
	*out = VARDATA(result);
	return result;
}

void
bloom_agg_reader_start(FunctionCallInfo fcinfo, const char *function, BloomAggReader *reader)
{
	bytea	   *serialized;

	bloom_agg_context(fcinfo, function);
	serialized = PG_GETARG_BYTEA_PP(0);
	reader->next = VARDATA_ANY(serialized);
	reader->remaining = VARSIZE_ANY_EXHDR(serialized);
}

void
bloom_agg_read(BloomAggReader *reader, void *dst, Size length)
{
	if (reader->remaining < length)
		bloom_agg_raise_corrupt("The state is too short.");
	memcpy(dst, reader->next, length);
	reader->next += length;
	reader->remaining -= length;
}

void
bloom_agg_raise_corrupt(const char *detail)
{
	ereport(ERROR,
			errcode(ERRCODE_DATA_CORRUPTED),
			errmsg("invalid serialized bloom filter aggregate state"),
			errdetail("%s", detail));
}
