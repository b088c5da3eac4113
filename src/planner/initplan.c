/*
 * planner/initplan.c: the filter of bloom_contains((SELECT f FROM t ...), x),
 * which the planner sees only as a Param set by an InitPlan.
 *
 * An InitPlan, bloom_contains((SELECT f FROM t WHERE ...), x), is a Param
 * set by a SubPlan of root->init_plans, whose planned query is in
 * root->glob->subroots.  When that query is SELECT column FROM table
 * [WHERE column = constant ...] on a small table the user may read, the
 * planner reads the filter as the executor will and estimates as for a
 * known filter (planner/selectivity.c).
 * Otherwise, when its output is a bloom column, that column's statistics
 * (planner/analyze.c) stand for the filter: member = min(1, n* / D) with the
 * median n* of the sampled filters, and their mean rate for (X/m)^k.  A join
 * clause between a bloom column and a value column is estimated per pair of
 * rows the same way, with the mean n* and the filters' NULL fraction.
 * Anything else (an expression, no statistics, a semi-join) gets
 * PostgreSQL's default for a boolean function, 1/3 of the non-NULL rows.
 */
#include "postgres.h"

#include "planner/planner.h"

#include "access/detoast.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_class.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

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
 * or *isnull is set when the row has a NULL or no row passes.  A filter of
 * more than BLOOM_PEEK_MAX_BYTES is not read (false): detoasting it would
 * cost every planning of the query what the scan itself spends once (about
 * 60 ms at 62 MB), and its column's statistics stand for it instead.
 */
#define BLOOM_PEEK_MAX_PAGES 8
#define BLOOM_PEEK_MAX_BYTES ((Size) 2 << 20)

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
	bool		too_large = false;

	if (!bloom_select_without(parse, BLOOM_SELECT_LIMIT | BLOOM_SELECT_LOCKING |
							  BLOOM_SELECT_GROUPING | BLOOM_SELECT_WINDOWS |
							  BLOOM_SELECT_SET_OPERATION | BLOOM_SELECT_TARGET_SRFS |
							  BLOOM_SELECT_DISTINCT | BLOOM_SELECT_ORDER))
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
			{
				/* the size from the toast pointer, before fetching anything */
				if (toast_raw_datum_size(value) > BLOOM_PEEK_MAX_BYTES)
					too_large = true;
				else
					*filter = PointerGetDatum(PG_DETOAST_DATUM_COPY(value));
			}
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
	return !too_large;
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
				bloom_filter_kind(var->vartype) == BLOOM_KIND_NONE)
				return NULL;
			*subroot = initplan_root;
			*rel = initplan_root->simple_rel_array[var->varno];
			return var;
		}
	}
	return NULL;
}

/*
 * P(pass) for an InitPlan's filter: read it when the planner may
 * (bloom_peek_initplan_filter), or else take the median filter of the
 * column it comes from (planner/analyze.c).  -1 when neither is known.
 */
double
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
														 bloom_filter_kind(var->vartype),
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
