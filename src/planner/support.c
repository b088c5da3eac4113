/*
 * planner/support.c: planner support for bloom_contains, bloom_contained_by
 * and the @> and <@ operators: the support function, and what a call costs.
 * How many rows pass is in planner/clauses.c, planner/selectivity.c and
 * planner/initplan.c.
 *
 * Cost.  A call hashes the value and reads k bits.  The reads are random
 * accesses: cheap while the filter sits in the CPU cache, a cache miss each
 * once it does not.  The constants below were measured as the CPU time of a
 * scan of 10,000,000 int8 rows against the same scan calling int8ne (doc/planner.md), and a filter whose size the planner can see is
 * charged for its size.
 */
#include "postgres.h"

#include <math.h>

#include "planner/planner.h"
#include "index/index.h"

#include "access/detoast.h"
#include "access/heaptoast.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"

/*
 * Per-call cost in cpu_operator_cost units: BLOOM_COST_BASE for hashing the
 * value and reading k bits of a filter in the CPU cache, plus
 * BLOOM_COST_CACHE_MISS times the chance that a bit is not in a cache of
 * BLOOM_COST_CACHE_BYTES, 1 - cache / bytes.  The k reads are issued
 * together (core/probe.h), so their misses overlap and the cost hardly
 * depends on k.  A filter whose size is not known at plan time is costed as
 * one of BLOOM_COST_UNKNOWN_BYTES, the bench's filter of 1,000,000 values at
 * 1%.
 */
#define BLOOM_COST_BASE			3.0
#define BLOOM_COST_CACHE_MISS	40.0
#define BLOOM_COST_CACHE_BYTES	((double) (1024 * 1024))
#define BLOOM_COST_UNKNOWN_BYTES ((double) 1198152)

/*
 * A filter column whose filters are stored out of line (over about 2 kB)
 * costs a TOAST read a row, costed as PostgreSQL costs pages read at
 * random: the TOAST index's descent (2 pages) and the chunks a lookup reads
 * (TOAST_MAX_CHUNK_SIZE bytes each, at most one per probe, types/slice.c).
 * The filters' mean size comes from the column's statistics:
 * m = -n k / ln(1 - X/m) from the mean cardinality, k and fill
 * (Swamidass-Baldi turned around).
 */
#define BLOOM_COST_INLINE_BYTES	2000.0
/* the chunks a lookup reads at most: one per probe, k = 7 at p = 0.01 */
#define BLOOM_COST_TOAST_CHUNKS_MAX 7.0

/* Per-call cost, in cpu_operator_cost units, for a filter of this many bytes. */
static double
bloom_call_cost_for_size(double bytes)
{
	double		miss = 1.0 - BLOOM_COST_CACHE_BYTES / bytes;

	return BLOOM_COST_BASE + BLOOM_COST_CACHE_MISS * Max(miss, 0.0);
}

/*
 * The mean bytes of the filters of a column (filter_arg, a column with
 * statistics), or -1.
 */
static double
bloom_column_filter_bytes(PlannerInfo *root, Node *filter_arg)
{
	VariableStatData vardata;
	double		numbers[BLOOM_STATISTIC_NUMBERS];
	double		bytes = -1.0;

	if (root == NULL || !IsA(filter_arg, Var))
		return -1.0;
	examine_variable(root, filter_arg, 0, &vardata);
	if (vardata.rel != NULL && bloom_filter_column_statistics(&vardata, numbers) &&
		numbers[BLOOM_STATISTIC_MEAN_FILL] > 0.0 && numbers[BLOOM_STATISTIC_MEAN_FILL] < 1.0)
		bytes = -numbers[BLOOM_STATISTIC_MEAN_CARDINALITY] * numbers[BLOOM_STATISTIC_MEAN_K] /
			log(1.0 - numbers[BLOOM_STATISTIC_MEAN_FILL]) / 8.0;
	ReleaseVariableStats(vardata);
	return bytes;
}

/*
 * Per-call cost of funcid when called by node (a FuncExpr or OpExpr, or
 * NULL), in cpu_operator_cost units.  Only a constant filter's size is used:
 * computing a stable expression here would run it for every cost estimate.
 * A column's filters add a TOAST read when they are stored out of line.
 */
static double
bloom_contains_call_cost(PlannerInfo *root, Oid funcid, Node *node)
{
	double		column_bytes;
	double		chunks;

	List	   *args = NIL;
	int			value_argno = bloom_value_argno(funcid);
	Node	   *filter_arg;

	if (node != NULL && IsA(node, FuncExpr))
		args = ((FuncExpr *) node)->args;
	else if (node != NULL && IsA(node, OpExpr))
		args = ((OpExpr *) node)->args;
	if (value_argno < 0 || list_length(args) != 2)
		return bloom_call_cost_for_size(BLOOM_COST_UNKNOWN_BYTES);
	filter_arg = (Node *) list_nth(args, 1 - value_argno);
	column_bytes = bloom_column_filter_bytes(root, filter_arg);
	if (column_bytes > BLOOM_COST_INLINE_BYTES)
	{
		chunks = Min(ceil(column_bytes / TOAST_MAX_CHUNK_SIZE), BLOOM_COST_TOAST_CHUNKS_MAX);
		return bloom_call_cost_for_size(column_bytes) +
			(2.0 + chunks) * random_page_cost / cpu_operator_cost;
	}
	if (!IsA(filter_arg, Const) || ((Const *) filter_arg)->constisnull ||
		bloom_filter_kind(((Const *) filter_arg)->consttype) == BLOOM_KIND_NONE)
		return bloom_call_cost_for_size(BLOOM_COST_UNKNOWN_BYTES);

	/* the filter's size, without fetching or decompressing the value */
	return bloom_call_cost_for_size((double)
									toast_raw_datum_size(((Const *) filter_arg)->constvalue));
}

PG_FUNCTION_INFO_V1(bloom_contains_support);
Datum
bloom_contains_support(PG_FUNCTION_ARGS)
{
	Node	   *request = (Node *) PG_GETARG_POINTER(0);

	if (IsA(request, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *selectivity_request = (SupportRequestSelectivity *) request;

		if (selectivity_request->is_join)
		{
			double		selectivity =
				bloom_join_selectivity(selectivity_request->root,
														 selectivity_request->funcid,
														 selectivity_request->args,
														 selectivity_request->jointype);

			/* without the filter column's statistics, PostgreSQL's default */
			if (selectivity < 0.0)
				PG_RETURN_POINTER(NULL);
			selectivity_request->selectivity = selectivity;
			PG_RETURN_POINTER(selectivity_request);
		}
		selectivity_request->selectivity =
			bloom_restriction_selectivity(selectivity_request->root,
												selectivity_request->funcid,
												selectivity_request->args,
												selectivity_request->varRelid);
		PG_RETURN_POINTER(selectivity_request);
	}
	if (IsA(request, SupportRequestIndexCondition))
		PG_RETURN_POINTER(bloom_index_condition((SupportRequestIndexCondition *) request));
	if (IsA(request, SupportRequestCost))
	{
		SupportRequestCost *cost_request = (SupportRequestCost *) request;

		cost_request->startup = 0;
		cost_request->per_tuple = cpu_operator_cost *
			bloom_contains_call_cost(cost_request->root, cost_request->funcid,
									 cost_request->node);
		PG_RETURN_POINTER(cost_request);
	}
	PG_RETURN_POINTER(NULL);
}

/* The restriction estimator of @> and <@ (the operators' RESTRICT). */
PG_FUNCTION_INFO_V1(bloom_contains_selectivity);
Datum
bloom_contains_selectivity(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	Oid			operator = PG_GETARG_OID(1);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);

	PG_RETURN_FLOAT8(bloom_restriction_selectivity(root, get_opcode(operator),
														 args, varRelid));
}

/* The join estimator of @> and <@ (the operators' JOIN). */
PG_FUNCTION_INFO_V1(bloom_contains_join_selectivity);
Datum
bloom_contains_join_selectivity(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	Oid			operator = PG_GETARG_OID(1);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	JoinType	jointype = (JoinType) PG_GETARG_INT16(3);
	double		selectivity;

	selectivity = bloom_join_selectivity(root, get_opcode(operator),
														   args, jointype);
	/* PostgreSQL's default for a boolean function */
	if (selectivity < 0.0)
		selectivity = BLOOM_DEFAULT_SELECTIVITY;
	PG_RETURN_FLOAT8(selectivity);
}
