/*
 * bloom_support.c: planner support for bloom_contains, bloom_contained_by
 * and the @> and <@ operators: how many rows pass, and what a call costs.
 *
 * Selectivity.  A row passes "filter contains value" when its value is one
 * of the n values added to the filter (a member), or when it is not and the
 * k probed bits happen to be set anyway (a false positive, probability
 * (X/m)^k for a filter with X of its m bits set).  So for a value drawn from
 * the column,
 *
 *     P(pass) = member + (1 - member) * (X/m)^k
 *
 * where member is the fraction of the column's rows whose value is in the
 * filter.  When the filter is known at plan time (a constant, a parameter of
 * a custom plan, a PL/pgSQL variable, or a stable expression, which
 * estimate_expression_value() computes), the column's statistics give it:
 *
 *   - each most-common value is hashed and tested: its frequency counts when
 *     it passes, exactly, false positive or not;
 *   - the histogram bounds are a sample of the other values: the fraction of
 *     them that pass, c/N, estimates P(pass) there, so
 *     member = (c/N - (X/m)^k) / (1 - (X/m)^k);
 *   - member cannot exceed n* / D, the filter's estimated cardinality n*
 *     (Swamidass-Baldi, less the most-common values found in it) over the
 *     number D of distinct values outside the most-common list, since at
 *     most n* of those D values, each about as frequent as another, are
 *     members; nor can it be below 0, so the rate (X/m)^k is the floor.
 *   - without a histogram (no statistics, or a type with no ordering) member
 *     is that bound, n* / D, with D the table's row count when nothing better
 *     is known: every filter value is assumed present, which is the
 *     semi-join case a prefilter is for.
 *
 * Then NULLs (stanullfrac) never pass, the functions being strict.  Values
 * are hashed with the encoder of the value argument's type, the one the
 * executor will use (statistics are of that type, or one binary-compatible
 * with it), so an int4 column probed against a filter of int8 values is
 * estimated as it will run.  The histogram is a sample of ANALYZE's sample:
 * with the default statistics target (101 bounds), a 2% selectivity is seen
 * as 2 +- 1.4 bounds; raise the column's target for a tighter estimate.
 *
 * An InitPlan, bloom_contains((SELECT f FROM t WHERE ...), x), is a Param
 * set by a SubPlan of root->init_plans, whose planned query is in
 * root->glob->subroots.  When that query is SELECT column FROM table
 * [WHERE column = constant ...] on a small table the user may read, the
 * planner reads the filter as the executor will and uses it as above.
 * Otherwise, when its output is a bloom column, that column's statistics
 * (bloom_analyze.c) stand for the filter: member = min(1, n* / D) with the
 * median n* of the sampled filters, and their mean rate for (X/m)^k.  A join
 * clause between a bloom column and a value column is estimated per pair of
 * rows the same way, with the mean n* and the filters' NULL fraction.
 * Anything else (an expression, no statistics, a semi-join) gets
 * PostgreSQL's default for a boolean function, 1/3 of the non-NULL rows.
 *
 * Cost.  A call hashes the value and reads k bits.  The reads are random
 * accesses: cheap while the filter sits in the CPU cache, a cache miss each
 * once it does not.  The constants below were measured as the CPU time of a
 * scan of 10,000,000 int8 rows against the same scan calling int8ne (README,
 * "Planner estimates"), and a filter whose size the planner can see is
 * charged for its size.
 */
#include "bloom_pg.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_class.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "parser/parsetree.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rls.h"
#include "utils/selfuncs.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

/* PostgreSQL's estimate for a boolean function it knows nothing about. */
#define BLOOM_DEFAULT_SELECTIVITY (1.0 / 3.0)

/*
 * Per-call cost in cpu_operator_cost units: BLOOM_COST_BASE for hashing the
 * value and reading k bits of a filter in the CPU cache, plus
 * BLOOM_COST_CACHE_MISS times the chance that a bit is not in a cache of
 * BLOOM_COST_CACHE_BYTES, 1 - cache / bytes.  The k reads are issued
 * together (core_probe.h), so their misses overlap and the cost hardly
 * depends on k.  A filter whose size is not known at plan time is costed as
 * one of BLOOM_COST_UNKNOWN_BYTES, the bench's filter of 1,000,000 values at
 * 1%.
 */
#define BLOOM_COST_BASE			3.0
#define BLOOM_COST_CACHE_MISS	40.0
#define BLOOM_COST_CACHE_BYTES	((double) (1024 * 1024))
#define BLOOM_COST_UNKNOWN_BYTES ((double) 1198152)

/*
 * Which argument of the function is the value: the one declared anyelement
 * (bloom_contains(bloom, anyelement), bloom_contained_by(anyelement, bloom)).
 * -1 if the function is not of that shape.
 */
static int
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
 * Whether a value of this type can be hashed without an ERROR, so that the
 * statistics can be probed: bloom_encoder_create() needs a binary send
 * function, and the send functions of arrays, composites, ranges and
 * multiranges need one for every element, field or bound in turn (a row type
 * with an aclitem field has MCVs, and hashing them raised an ERROR in
 * EXPLAIN).  An anonymous record's fields are not known here: false.
 */
static bool
bloom_type_is_hashable(Oid typid)
{
	Oid			base_typid = getBaseType(typid);
	HeapTuple	tuple;
	Form_pg_type type;
	bool		hashable;
	char		typtype;
	Oid			typrelid;
	Oid			element_typid;

	check_stack_depth();
	if (base_typid == RECORDOID)
		return false;
	tuple = SearchSysCache1(TYPEOID, ObjectIdGetDatum(base_typid));
	if (!HeapTupleIsValid(tuple))
		return false;
	type = (Form_pg_type) GETSTRUCT(tuple);
	hashable = OidIsValid(type->typsend);
	typtype = type->typtype;
	typrelid = type->typrelid;
	ReleaseSysCache(tuple);
	if (!hashable)
		return false;

	element_typid = get_element_type(base_typid);
	if (OidIsValid(element_typid))
		return bloom_type_is_hashable(element_typid);
	if (typtype == TYPTYPE_RANGE)
		return bloom_type_is_hashable(get_range_subtype(base_typid));
	if (typtype == TYPTYPE_MULTIRANGE)
		return bloom_type_is_hashable(get_multirange_range(base_typid));
	if (typtype == TYPTYPE_COMPOSITE && OidIsValid(typrelid))
	{
		TupleDesc	tupdesc = lookup_rowtype_tupdesc(base_typid, -1);

		for (int i = 0; i < tupdesc->natts && hashable; i++)
		{
			Form_pg_attribute attribute = TupleDescAttr(tupdesc, i);

			if (!attribute->attisdropped)
				hashable = bloom_type_is_hashable(attribute->atttypid);
		}
		ReleaseTupleDesc(tupdesc);
	}
	return hashable;
}

/*
 * Whether typid is the bloom type or a domain over it, recognized by its
 * input function being this module's bloom_in (its OID and schema vary).  A
 * superuser can attach the estimator or the support function to a function
 * of any argument types, and a datum of another type must not be read as a
 * filter: a pass-by-value int4 read as a pointer is no address at all.
 */
static bool
bloom_is_filter_type(Oid typid)
{
	HeapTuple	tuple = SearchSysCache1(TYPEOID, ObjectIdGetDatum(getBaseType(typid)));
	Oid			input_function;
	FmgrInfo	input;

	if (!HeapTupleIsValid(tuple))
		return false;
	input_function = ((Form_pg_type) GETSTRUCT(tuple))->typinput;
	ReleaseSysCache(tuple);
	if (!OidIsValid(input_function))
		return false;
	fmgr_info(input_function, &input);
	return input.fn_addr == bloom_in;
}

/* The fraction of the column's rows that are NULL, 0 without statistics. */
static double
bloom_null_fraction(VariableStatData *vardata)
{
	if (!HeapTupleIsValid(vardata->statsTuple))
		return 0.0;
	return ((Form_pg_statistic) GETSTRUCT(vardata->statsTuple))->stanullfrac;
}

/*
 * P(value passes the filter) for a value of the column described by vardata,
 * hashed by encoder; the formula is in the comment at the top of the file.
 * encoder is NULL when the statistics must not be probed: the user may not
 * read the column, or its values cannot be hashed.
 */
static double
bloom_column_selectivity(VariableStatData *vardata, BloomEncoder *encoder,
						 const BloomView *view)
{
	uint64		bits_set = bf_popcount(view->bits, view->nbytes);
	double		false_positive_rate;
	double		cardinality;
	double		null_fraction = 0.0;
	double		mcv_pass = 0.0;		/* frequency of the MCVs that pass */
	double		mcv_total = 0.0;	/* frequency of all MCVs */
	int			mcv_count = 0;
	int			mcv_pass_count = 0;
	int			histogram_count = 0;
	int			histogram_pass_count = 0;
	double		distinct;
	double		rest_distinct;
	double		rest_fraction;
	double		rest_cardinality;
	double		member_bound;
	double		member;
	double		selectivity;
	bool		distinct_is_default;

	if (bits_set == 0)
		return 0.0;				/* an empty filter contains nothing */
	false_positive_rate = bf_filter_false_positive_rate(view->bits, view->header.m,
														view->header.k,
														view->header.hash_scheme,
														bits_set);
	cardinality = bf_estimate_cardinality(view->header.m, view->header.k,
										  view->header.hash_scheme, bits_set);

	null_fraction = bloom_null_fraction(vardata);
	if (encoder != NULL && HeapTupleIsValid(vardata->statsTuple))
	{
		AttStatsSlot sslot;

		if (get_attstatsslot(&sslot, vardata->statsTuple, STATISTIC_KIND_MCV,
							 InvalidOid, ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS))
		{
			for (int i = 0; i < sslot.nvalues; i++)
			{
				bf_hash		hash = bloom_encoder_hash(encoder, sslot.values[i],
															   view->header.flags, NULL);

				mcv_total += sslot.numbers[i];
				if (bf_contains(view->bits, view->header.m, view->header.k,
								view->header.hash_scheme, hash))
				{
					mcv_pass += sslot.numbers[i];
					mcv_pass_count++;
				}
			}
			mcv_count = sslot.nvalues;
			free_attstatsslot(&sslot);
		}
		if (get_attstatsslot(&sslot, vardata->statsTuple, STATISTIC_KIND_HISTOGRAM,
							 InvalidOid, ATTSTATSSLOT_VALUES))
		{
			for (int i = 0; i < sslot.nvalues; i++)
			{
				bf_hash		hash = bloom_encoder_hash(encoder, sslot.values[i],
															   view->header.flags, NULL);

				if (bf_contains(view->bits, view->header.m, view->header.k,
								view->header.hash_scheme, hash))
					histogram_pass_count++;
			}
			histogram_count = sslot.nvalues;
			free_attstatsslot(&sslot);
		}
	}

	/* The rows that are neither NULL nor one of the MCVs, and their values. */
	rest_fraction = 1.0 - null_fraction - mcv_total;
	CLAMP_PROBABILITY(rest_fraction);
	distinct = get_variable_numdistinct(vardata, &distinct_is_default);
	if (distinct_is_default && vardata->rel != NULL && vardata->rel->tuples > 0)
		distinct = vardata->rel->tuples;	/* no statistics: as if all distinct */
	rest_distinct = Max(distinct - mcv_count, 1.0);

	/*
	 * The filter's values not already found among the MCVs: those that
	 * passed, less the false positives expected among them.
	 */
	rest_cardinality = cardinality -
		Max(mcv_pass_count - false_positive_rate * mcv_count, 0.0);
	if (rest_cardinality < 0.0)
		rest_cardinality = 0.0;
	member_bound = Min(1.0, rest_cardinality / rest_distinct);

	if (false_positive_rate >= 1.0)
		member = 0.0;			/* saturated: everything passes anyway */
	else if (histogram_count > 0)
	{
		member = ((double) histogram_pass_count / histogram_count - false_positive_rate) /
			(1.0 - false_positive_rate);
		member = Max(0.0, Min(member, member_bound));
	}
	else
		member = member_bound;

	selectivity = mcv_pass +
		rest_fraction * (false_positive_rate + (1.0 - false_positive_rate) * member);
	CLAMP_PROBABILITY(selectivity);
	return selectivity;
}

/*
 * P(value passes a filter the planner cannot see) from the filter's
 * estimated cardinality and false-positive rate (from the statistics of the
 * bloom column it comes from): member = min(1, n* / D), with D the value
 * column's number of distinct values (its row count without statistics),
 * then the formula at the top of the file.  NULL values never pass.
 */
static double
bloom_unseen_filter_selectivity(VariableStatData *value_vardata, double cardinality,
								double false_positive_rate)
{
	bool		distinct_is_default;
	double		distinct = get_variable_numdistinct(value_vardata, &distinct_is_default);
	double		member;
	double		selectivity;

	if (distinct_is_default && value_vardata->rel != NULL && value_vardata->rel->tuples > 0)
		distinct = value_vardata->rel->tuples;
	member = Min(1.0, cardinality / Max(distinct, 1.0));
	CLAMP_PROBABILITY(false_positive_rate);
	selectivity = (1.0 - bloom_null_fraction(value_vardata)) *
		(member + (1.0 - member) * false_positive_rate);
	CLAMP_PROBABILITY(selectivity);
	return selectivity;
}

/*
 * The numbers of a bloom column's statistics slot (bloom_analyze.c), in
 * numbers[BLOOM_STATISTIC_NUMBERS]; false when ANALYZE kept none.
 */
static bool
bloom_filter_column_statistics(VariableStatData *vardata, double *numbers)
{
	AttStatsSlot sslot;
	bool		found = false;

	if (!HeapTupleIsValid(vardata->statsTuple))
		return false;
	if (get_attstatsslot(&sslot, vardata->statsTuple, BLOOM_STATISTIC_KIND,
						 InvalidOid, ATTSTATSSLOT_NUMBERS))
	{
		if (sslot.nnumbers >= BLOOM_STATISTIC_NUMBERS)
		{
			for (int i = 0; i < BLOOM_STATISTIC_NUMBERS; i++)
				numbers[i] = sslot.numbers[i];
			found = true;
		}
		free_attstatsslot(&sslot);
	}
	return found;
}

/*
 * Whether the planner may read a row of the table by this qual to learn an
 * InitPlan's filter: column = constant (or constant = column) with an
 * equality operator of a btree or hash operator family, so that reading it
 * runs nothing of the user's that the query would not run, and cannot fail.
 */
static bool
bloom_is_peekable_qual(Node *clause, Index relid)
{
	OpExpr	   *op;
	Node	   *left;
	Node	   *right;
	Node	   *var_side;

	if (!IsA(clause, OpExpr) || list_length(((OpExpr *) clause)->args) != 2)
		return false;
	op = (OpExpr *) clause;
	left = (Node *) linitial(op->args);
	right = (Node *) lsecond(op->args);
	if (IsA(left, Const))
		var_side = right;
	else if (IsA(right, Const))
		var_side = left;
	else
		return false;
	if (IsA(var_side, RelabelType))
		var_side = (Node *) ((RelabelType *) var_side)->arg;
	if (!IsA(var_side, Var) || ((Var *) var_side)->varno != relid ||
		((Var *) var_side)->varlevelsup != 0 || ((Var *) var_side)->varattno <= 0)
		return false;
	return op_mergejoinable(op->opno, exprType(left)) ||
		op_hashjoinable(op->opno, exprType(left));
}

/*
 * Read the filter an InitPlan will return, when its query is
 * SELECT column FROM table [WHERE column = constant AND ...] on a table of
 * at most BLOOM_PEEK_MAX_PAGES pages that the user may read and that has no
 * row security, as the executor would read it now: the first row passing
 * the quals, under the active snapshot.  The planner reads tables itself
 * elsewhere too (selfuncs.c's get_actual_variable_range() reads an index's
 * ends).  On success *filter is a detoasted copy in CurrentMemoryContext,
 * or *isnull is set when the row has a NULL or no row passes.
 */
#define BLOOM_PEEK_MAX_PAGES 8

static bool
bloom_peek_initplan_filter(PlannerInfo *subroot, RelOptInfo *rel, Var *var,
						   Datum *filter, bool *isnull)
{
	Query	   *parse = subroot->parse;
	RangeTblEntry *rte = planner_rt_fetch(rel->relid, subroot);
	List	   *quals = NIL;
	ListCell   *lc;
	Relation	relation;
	EState	   *estate;
	ExprContext *econtext;
	ExprState  *qual_state;
	TupleTableSlot *slot;
	TableScanDesc scan;
	bool		found = false;

	if (parse->commandType != CMD_SELECT || parse->setOperations != NULL ||
		parse->hasAggs || parse->hasWindowFuncs || parse->hasTargetSRFs ||
		parse->groupClause != NIL || parse->groupingSets != NIL ||
		parse->havingQual != NULL || parse->distinctClause != NIL ||
		parse->sortClause != NIL || parse->limitCount != NULL ||
		parse->limitOffset != NULL || parse->rowMarks != NIL)
		return false;
	if (rte->rtekind != RTE_RELATION || rte->inh || rte->tablesample != NULL ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW) ||
		IS_DUMMY_REL(rel))
		return false;
	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (!bloom_is_peekable_qual((Node *) rinfo->clause, rel->relid))
			return false;
		quals = lappend(quals, copyObject(rinfo->clause));
	}
	if (!ActiveSnapshotSet() ||
		pg_class_aclcheck(rte->relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK ||
		check_enable_rls(rte->relid, InvalidOid, true) == RLS_ENABLED)
		return false;

	/*
	 * The table's size as it is (rel->pages counts a table never vacuumed
	 * as at least 10 pages).
	 */
	relation = table_open(rte->relid, AccessShareLock);
	if (RelationGetNumberOfBlocks(relation) > BLOOM_PEEK_MAX_PAGES)
	{
		table_close(relation, AccessShareLock);
		return false;
	}
	/* operators the planner made from equivalence classes have no opfuncid yet */
	fix_opfuncids((Node *) quals);
	estate = CreateExecutorState();
	econtext = GetPerTupleExprContext(estate);
	qual_state = ExecPrepareQual(quals, estate);
	slot = table_slot_create(relation, NULL);
	scan = table_beginscan_plain(relation, GetActiveSnapshot());
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		CHECK_FOR_INTERRUPTS();
		econtext->ecxt_scantuple = slot;
		if (ExecQual(qual_state, econtext))
		{
			Datum		value = slot_getattr(slot, var->varattno, isnull);

			if (!*isnull)
				*filter = PointerGetDatum(PG_DETOAST_DATUM_COPY(value));
			found = true;
			break;
		}
		ResetExprContext(econtext);
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	FreeExecutorState(estate);
	table_close(relation, AccessShareLock);
	if (!found)
		*isnull = true;			/* no row: the InitPlan returns NULL */
	return true;
}

/*
 * The column an InitPlan's filter comes from: the Param param is set by an
 * InitPlan of this query level or an outer one whose query's first output
 * is a column of a base relation, (SELECT f FROM t WHERE ...).  Sets
 * *subroot and *rel to the InitPlan's planner state and that relation.
 */
static Var *
bloom_initplan_column(PlannerInfo *root, Param *param, PlannerInfo **subroot,
					  RelOptInfo **rel)
{
	if (param->paramkind != PARAM_EXEC)
		return NULL;
	for (PlannerInfo *level = root; level != NULL; level = level->parent_root)
	{
		ListCell   *lc;

		foreach(lc, level->init_plans)
		{
			SubPlan    *subplan = (SubPlan *) lfirst(lc);
			PlannerInfo *initplan_root;
			TargetEntry *target;
			Node	   *expr;
			Var		   *var;

			if (!IsA(subplan, SubPlan) || !list_member_int(subplan->setParam, param->paramid))
				continue;
			if (subplan->subLinkType != EXPR_SUBLINK || subplan->plan_id < 1 ||
				subplan->plan_id > list_length(root->glob->subroots))
				return NULL;
			initplan_root = (PlannerInfo *) list_nth(root->glob->subroots, subplan->plan_id - 1);
			if (initplan_root == NULL || initplan_root->parse->targetList == NIL)
				return NULL;
			target = linitial_node(TargetEntry, initplan_root->parse->targetList);
			expr = (Node *) target->expr;
			if (IsA(expr, RelabelType))
				expr = (Node *) ((RelabelType *) expr)->arg;
			if (!IsA(expr, Var))
				return NULL;
			var = (Var *) expr;
			if (var->varlevelsup != 0 || var->varattno <= 0 ||
				var->varno >= (Index) initplan_root->simple_rel_array_size ||
				initplan_root->simple_rel_array[var->varno] == NULL ||
				initplan_root->simple_rel_array[var->varno]->reloptkind != RELOPT_BASEREL ||
				bms_membership(initplan_root->all_baserels) != BMS_SINGLETON ||
				!bloom_is_filter_type(var->vartype))
				return NULL;
			*subroot = initplan_root;
			*rel = initplan_root->simple_rel_array[var->varno];
			return var;
		}
	}
	return NULL;
}

/*
 * P(pass) for a known filter value (NULL: none), the constant case at the
 * top of the file.
 */
static double
bloom_known_filter_selectivity(VariableStatData *vardata, Oid funcid, Node *value_arg,
							   Datum filter, bool isnull)
{
	MemoryContext estimate_context;
	MemoryContext old_context;
	BloomView	view;
	Oid			value_type = exprType(value_arg);
	BloomEncoder *encoder = NULL;
	double		selectivity;

	if (isnull)
		return 0.0;				/* strict: NULL, never true */

	/*
	 * Everything the estimate allocates (a detoasted copy of the filter, the
	 * encoder, what hashing a value takes) goes with this context.
	 */
	estimate_context = AllocSetContextCreate(CurrentMemoryContext, "bloom selectivity",
											 ALLOCSET_DEFAULT_SIZES);
	old_context = MemoryContextSwitchTo(estimate_context);
	bloom_view_datum(filter, &view);
	/* statistics are probed only where the user may see their values */
	if (statistic_proc_security_check(vardata, funcid) &&
		bloom_type_is_hashable(value_type))
		encoder = bloom_encoder_create(value_type, estimate_context);
	if (view.header.hash_scheme != BLOOM_HASH_XXH3_EDH &&
		view.header.hash_scheme != BLOOM_HASH_XXH3_BLOCKED)
		selectivity = (1.0 - bloom_null_fraction(vardata)) * BLOOM_DEFAULT_SELECTIVITY;
	else
		selectivity = bloom_column_selectivity(vardata, encoder, &view);
	MemoryContextSwitchTo(old_context);
	MemoryContextDelete(estimate_context);
	return selectivity;
}

/*
 * P(pass) for an InitPlan's filter: read it when the planner may
 * (bloom_peek_initplan_filter), or else take the median filter of the
 * column it comes from (bloom_analyze.c).  -1 when neither is known.
 */
static double
bloom_initplan_selectivity(PlannerInfo *root, VariableStatData *vardata, Oid funcid,
						   Node *value_arg, Param *param)
{
	PlannerInfo *subroot;
	RelOptInfo *rel;
	Var		   *var = bloom_initplan_column(root, param, &subroot, &rel);
	VariableStatData filter_vardata;
	double		numbers[BLOOM_STATISTIC_NUMBERS];
	double		selectivity = -1.0;

	if (var == NULL)
		return -1.0;
	{
		MemoryContext peek_context = AllocSetContextCreate(CurrentMemoryContext,
														   "bloom initplan filter",
														   ALLOCSET_DEFAULT_SIZES);
		MemoryContext old_context = MemoryContextSwitchTo(peek_context);
		Datum		filter = (Datum) 0;
		bool		isnull = false;
		bool		peeked = bloom_peek_initplan_filter(subroot, rel, var, &filter, &isnull);

		MemoryContextSwitchTo(old_context);
		if (peeked)
			selectivity = bloom_known_filter_selectivity(vardata, funcid, value_arg,
														 filter, isnull);
		MemoryContextDelete(peek_context);
		if (peeked)
			return selectivity;
	}

	examine_variable(subroot, (Node *) var, 0, &filter_vardata);
	if (bloom_filter_column_statistics(&filter_vardata, numbers))
		selectivity = bloom_unseen_filter_selectivity(vardata,
													  numbers[BLOOM_STATISTIC_MEDIAN_CARDINALITY],
													  numbers[BLOOM_STATISTIC_MEAN_FPR]);
	ReleaseVariableStats(filter_vardata);
	return selectivity;
}

/*
 * The selectivity of the restriction clause funcid(args), for the support
 * function and the operators' estimator alike.
 */
static double
bloom_contains_selectivity_internal(PlannerInfo *root, Oid funcid, List *args,
									int varRelid)
{
	int			value_argno = bloom_value_argno(funcid);
	Node	   *filter_arg;
	Node	   *value_arg;
	VariableStatData vardata;
	double		selectivity = -1.0;

	if (value_argno < 0 || list_length(args) != 2 ||
		!bloom_is_filter_type(exprType((Node *) list_nth(args, 1 - value_argno))))
		return BLOOM_DEFAULT_SELECTIVITY;
	value_arg = (Node *) list_nth(args, value_argno);
	filter_arg = estimate_expression_value(root, (Node *) list_nth(args, 1 - value_argno));

	examine_variable(root, value_arg, varRelid, &vardata);
	if (IsA(filter_arg, Const))
		selectivity = bloom_known_filter_selectivity(&vardata, funcid, value_arg,
													 ((Const *) filter_arg)->constvalue,
													 ((Const *) filter_arg)->constisnull);
	else if (IsA(filter_arg, Param))
		selectivity = bloom_initplan_selectivity(root, &vardata, funcid, value_arg,
												 (Param *) filter_arg);
	if (selectivity < 0.0)
		selectivity = (1.0 - bloom_null_fraction(&vardata)) * BLOOM_DEFAULT_SELECTIVITY;
	ReleaseVariableStats(vardata);
	return selectivity;
}

/*
 * The selectivity of the join clause funcid(args) between a column of
 * filters and a column of values, per pair of rows, from both columns'
 * statistics: the mean filter of the column (bloom_analyze.c), NULL filters
 * and NULL values never passing.  -1 when it is not of that form or the
 * filter column has no statistics.
 */
static double
bloom_contains_join_selectivity_internal(PlannerInfo *root, Oid funcid, List *args,
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
	if (!IsA(filter_arg, Var) || !bloom_is_filter_type(exprType(filter_arg)))
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

/* Per-call cost, in cpu_operator_cost units, for a filter of this many bytes. */
static double
bloom_call_cost_for_size(double bytes)
{
	double		miss = 1.0 - BLOOM_COST_CACHE_BYTES / bytes;

	return BLOOM_COST_BASE + BLOOM_COST_CACHE_MISS * Max(miss, 0.0);
}

/*
 * Per-call cost of funcid when called by node (a FuncExpr or OpExpr, or
 * NULL), in cpu_operator_cost units.  Only a constant filter's size is used:
 * computing a stable expression here would run it for every cost estimate.
 */
static double
bloom_contains_call_cost(Oid funcid, Node *node)
{
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
	if (!IsA(filter_arg, Const) || ((Const *) filter_arg)->constisnull ||
		!bloom_is_filter_type(((Const *) filter_arg)->consttype))
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
				bloom_contains_join_selectivity_internal(selectivity_request->root,
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
			bloom_contains_selectivity_internal(selectivity_request->root,
												selectivity_request->funcid,
												selectivity_request->args,
												selectivity_request->varRelid);
		PG_RETURN_POINTER(selectivity_request);
	}
	if (IsA(request, SupportRequestCost))
	{
		SupportRequestCost *cost_request = (SupportRequestCost *) request;

		cost_request->startup = 0;
		cost_request->per_tuple = cpu_operator_cost *
			bloom_contains_call_cost(cost_request->funcid, cost_request->node);
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

	PG_RETURN_FLOAT8(bloom_contains_selectivity_internal(root, get_opcode(operator),
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

	selectivity = bloom_contains_join_selectivity_internal(root, get_opcode(operator),
														   args, jointype);
	/* PostgreSQL's default for a boolean function */
	if (selectivity < 0.0)
		selectivity = BLOOM_DEFAULT_SELECTIVITY;
	PG_RETURN_FLOAT8(selectivity);
}
