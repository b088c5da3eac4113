/*
 * planner/clauses.c: how many rows pass bloom_contains, bloom_contained_by,
 * @> and <@: restriction and join clauses, each estimated from what its
 * filter argument is: a value the planner can compute, an InitPlan's
 * Param, a column of filters, or (a join) the other side's column.  The
 * formula is planner/selectivity.c's.
 */
#include "postgres.h"

#include "extension/extension.h"
#include "planner/planner.h"

#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"

/*
 * Which argument of the function is the value: the one declared anyelement
 * (bloom_contains(bloom, anyelement), bloom_contained_by(anyelement, bloom)).
 * -1 if the function is not of that shape.
 */
int
bloom_value_argno(Oid funcid)
{
	Oid		   *argtypes;
	int			nargs;
	int			value_argno = -1;

	get_func_signature(funcid, &argtypes, &nargs);
	if (nargs == 2 && (argtypes[0] == ANYELEMENTOID) != (argtypes[1] == ANYELEMENTOID))
		value_argno = argtypes[0] == ANYELEMENTOID ? 0 : 1;
	pfree(argtypes);
	return value_argno;
}

/*
 * Whether funcid takes a filter and a bloom_hashed of its own schema, as
 * bloom_contains_hashed does (f @> bloom_value(x), the operator bloom_slices
 * indexes, written by hand).
 */
static bool
bloom_takes_hashed_value(Oid funcid)
{
	Oid		   *argtypes;
	int			nargs;
	bool		takes;

	get_func_signature(funcid, &argtypes, &nargs);
	takes = nargs == 2 && bloom_filter_kind(argtypes[0]) != BLOOM_KIND_NONE &&
		argtypes[1] == bloom_own_type(get_func_namespace(funcid), "bloom_hashed");
	pfree(argtypes);
	return takes;
}

/*
 * P(a stored filter of a column passes a value that does not come from the
 * filter's row): "which stored filters may contain x?", the lookup
 * bloom_slices indexes.  The value is taken to be a member of about one
 * filter of the column (1 / rows) and to pass the others at the column's
 * mean false-positive rate (planner/analyze.c), BLOOM_UNANALYZED_FPR before
 * ANALYZE; NULL filters never pass.  -1 when filter_arg is not a column of
 * one relation or the value reads that relation too.
 */
static double
bloom_filter_column_selectivity(PlannerInfo *root, Node *filter_arg, Node *value_arg,
								int varRelid)
{
	VariableStatData vardata;
	double		numbers[BLOOM_STATISTIC_NUMBERS];
	double		false_positive_rate = BLOOM_UNANALYZED_FPR;
	double		member;
	double		selectivity = -1.0;

	examine_variable(root, filter_arg, varRelid, &vardata);
	if (vardata.rel != NULL && vardata.rel->relid > 0 &&
		!bms_is_member(vardata.rel->relid, pull_varnos(root, value_arg)))
	{
		if (bloom_filter_column_statistics(&vardata, numbers))
			false_positive_rate = numbers[BLOOM_STATISTIC_MEAN_FPR];
		CLAMP_PROBABILITY(false_positive_rate);
		member = 1.0 / Max(vardata.rel->tuples, 1.0);
		selectivity = (1.0 - bloom_null_fraction(&vardata)) *
			(member + (1.0 - member) * false_positive_rate);
		CLAMP_PROBABILITY(selectivity);
	}
	ReleaseVariableStats(vardata);
	return selectivity;
}

/*
 * The selectivity of the restriction clause funcid(args), for the support
 * function and the operators' estimator alike.
 */
double
bloom_restriction_selectivity(PlannerInfo *root, Oid funcid, List *args,
									int varRelid)
{
	int			value_argno = bloom_value_argno(funcid);
	BloomFilterKind kind;
	Node	   *filter_arg;
	Node	   *value_arg;
	VariableStatData vardata;
	double		selectivity = -1.0;

	/*
	 * f @> bloom_value(x) written by hand: a column of filters against the
	 * value is estimated as f @> x is; the estimates that hash the value
	 * cannot take it hashed.
	 */
	if (value_argno < 0 && list_length(args) == 2 && bloom_takes_hashed_value(funcid))
	{
		selectivity = bloom_filter_column_selectivity(root, (Node *) linitial(args),
													  (Node *) lsecond(args), varRelid);
		return selectivity < 0.0 ? BLOOM_DEFAULT_SELECTIVITY : selectivity;
	}
	if (value_argno < 0 || list_length(args) != 2)
		return BLOOM_DEFAULT_SELECTIVITY;
	kind = bloom_filter_kind(exprType((Node *) list_nth(args, 1 - value_argno)));
	if (kind == BLOOM_KIND_NONE)
		return BLOOM_DEFAULT_SELECTIVITY;
	value_arg = (Node *) list_nth(args, value_argno);
	filter_arg = estimate_expression_value(root, (Node *) list_nth(args, 1 - value_argno));

	examine_variable(root, value_arg, varRelid, &vardata);
	if (IsA(filter_arg, Const))
		selectivity = bloom_known_filter_selectivity(&vardata, funcid, value_arg, kind,
													 ((Const *) filter_arg)->constvalue,
													 ((Const *) filter_arg)->constisnull);
	else if (IsA(filter_arg, Param))
		selectivity = bloom_initplan_selectivity(root, &vardata, funcid, value_arg,
												 (Param *) filter_arg);
	else
		selectivity = bloom_filter_column_selectivity(root, (Node *) list_nth(args, 1 - value_argno),
													  value_arg, varRelid);
	if (selectivity < 0.0)
		selectivity = (1.0 - bloom_null_fraction(&vardata)) * BLOOM_DEFAULT_SELECTIVITY;
	ReleaseVariableStats(vardata);
	return selectivity;
}

/*
 * The selectivity of the join clause funcid(args) between a column of
 * filters and a column of values, per pair of rows, from both columns'
 * statistics: the mean filter of the column (planner/analyze.c), NULL filters
 * and NULL values never passing.  -1 when it is not of that form or the
 * filter column has no statistics.
 */
double
bloom_join_selectivity(PlannerInfo *root, Oid funcid, List *args,
										 JoinType jointype)
{
	int			value_argno = bloom_value_argno(funcid);
	Node	   *filter_arg;
	VariableStatData filter_vardata;
	VariableStatData value_vardata;
	double		numbers[BLOOM_STATISTIC_NUMBERS];
	double		selectivity = -1.0;

	/* a semi- or anti-join asks another question: whether any filter passes */
	if (value_argno < 0 || list_length(args) != 2 ||
		(jointype != JOIN_INNER && jointype != JOIN_LEFT && jointype != JOIN_FULL))
		return -1.0;
	filter_arg = (Node *) list_nth(args, 1 - value_argno);
	if (IsA(filter_arg, RelabelType))
		filter_arg = (Node *) ((RelabelType *) filter_arg)->arg;
	if (!IsA(filter_arg, Var) || bloom_filter_kind(exprType(filter_arg)) == BLOOM_KIND_NONE)
		return -1.0;

	examine_variable(root, filter_arg, 0, &filter_vardata);
	if (bloom_filter_column_statistics(&filter_vardata, numbers))
	{
		examine_variable(root, (Node *) list_nth(args, value_argno), 0, &value_vardata);
		selectivity = (1.0 - bloom_null_fraction(&filter_vardata)) *
			bloom_unseen_filter_selectivity(&value_vardata,
											numbers[BLOOM_STATISTIC_MEAN_CARDINALITY],
											numbers[BLOOM_STATISTIC_MEAN_FPR]);
		ReleaseVariableStats(value_vardata);
	}
	ReleaseVariableStats(filter_vardata);
	return selectivity;
}
