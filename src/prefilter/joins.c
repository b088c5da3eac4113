/*
 * prefilter/joins.c: recognising the joins an automatic prefilter
 * may be added to (prefilter/prefilter.c has the rules and why they keep
 * the result): the walk over a SELECT, its sub-selects in FROM and WITH,
 * and its join tree; for each qual list, the equalities between a column of
 * a foreign table and a key of one local table, IN and = ANY sub-selects,
 * and EXISTS sub-selects over one table.
 */
#include "postgres.h"

#include "prefilter/prefilter.h"

#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"

/* ---- join aliases ---- */

/*
 * Join alias Vars (columns of a JOIN's output, as USING makes) replaced by
 * the base relation columns they stand for, where they stand for one.
 */
static Node *
prefilter_resolve_aliases_mutator(Node *node, Query *query)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;
		RangeTblEntry *rte;
		Node	   *alias;

		if (var->varlevelsup != 0 || var->varattno <= 0)
			return copyObject(node);
		rte = rt_fetch(var->varno, query->rtable);
		if (rte->rtekind != RTE_JOIN || var->varattno > list_length(rte->joinaliasvars))
			return copyObject(node);
		alias = list_nth(rte->joinaliasvars, var->varattno - 1);
		if (alias == NULL || !IsA(prefilter_strip_casts((Expr *) alias), Var))
			return copyObject(node);
		return prefilter_resolve_aliases_mutator(alias, query);
	}
	if (IsA(node, Query) || IsA(node, SubLink))
		return copyObject(node);
	return expression_tree_mutator(node, prefilter_resolve_aliases_mutator, (void *) query);
}

static Node *
prefilter_resolve_aliases(Query *query, Node *node)
{
	return prefilter_resolve_aliases_mutator(node, query);
}

/* ---- where a relation sits in the join tree ---- */

/*
 * Whether range table entry rti is below jtnode; *nullable is set when it is
 * on the nullable side of an outer join below jtnode.
 */
static bool
prefilter_find_rel(Node *jtnode, Index rti, bool *nullable)
{
	if (jtnode == NULL)
		return false;
	if (IsA(jtnode, RangeTblRef))
		return ((RangeTblRef *) jtnode)->rtindex == (int) rti;
	if (IsA(jtnode, FromExpr))
	{
		ListCell   *lc;

		foreach(lc, ((FromExpr *) jtnode)->fromlist)
			if (prefilter_find_rel(lfirst(lc), rti, nullable))
				return true;
		return false;
	}
	if (IsA(jtnode, JoinExpr))
	{
		JoinExpr   *join = (JoinExpr *) jtnode;

		if (prefilter_find_rel(join->larg, rti, nullable))
		{
			if (join->jointype == JOIN_RIGHT || join->jointype == JOIN_FULL)
				*nullable = true;
			return true;
		}
		if (prefilter_find_rel(join->rarg, rti, nullable))
		{
			if (join->jointype == JOIN_LEFT || join->jointype == JOIN_FULL)
				*nullable = true;
			return true;
		}
	}
	return false;
}

/* Below jtnode, and never on the nullable side of a join below it. */
static bool
prefilter_rel_preserved_below(Node *jtnode, Index rti)
{
	bool		nullable = false;

	return prefilter_find_rel(jtnode, rti, &nullable) && !nullable;
}

/* ---- the local side ---- */

/* The one relation of level 0 an expression reads, or 0. */
typedef struct SingleRelContext
{
	Index		rti;
	bool		other;
} SingleRelContext;

static bool
prefilter_single_rel_walker(Node *node, SingleRelContext *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;

		if (var->varlevelsup != 0 || var->varattno == 0 ||
			(context->rti != 0 && var->varno != (int) context->rti))
			context->other = true;
		else
			context->rti = var->varno;
		return context->other;
	}
	if (IsA(node, SubLink) || IsA(node, Aggref) || IsA(node, WindowFunc) ||
		IsA(node, PlaceHolderVar) || IsA(node, GroupingFunc) ||
		IsA(node, CurrentOfExpr) || IsA(node, Query))
	{
		context->other = true;
		return true;
	}
	return expression_tree_walker(node, prefilter_single_rel_walker, (void *) context);
}

static Index
prefilter_single_rel(Node *expr)
{
	SingleRelContext context = {0, false};

	(void) prefilter_single_rel_walker(expr, &context);
	return context.other ? 0 : context.rti;
}

/* A local table the filter may be built from: a plain one, sampled never. */
static bool
prefilter_local_relation(RangeTblEntry *rte)
{
	return rte->rtekind == RTE_RELATION && rte->tablesample == NULL &&
		(rte->relkind == RELKIND_RELATION || rte->relkind == RELKIND_MATVIEW ||
		 rte->relkind == RELKIND_PARTITIONED_TABLE);
}

/*
 * The conjuncts of quals (join aliases resolved) that read only rti and
 * nothing volatile: a row of rti that fails one of them fails the join.
 */
static List *
prefilter_quals_of(List *quals, Index rti)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, quals)
	{
		Node	   *qual = lfirst(lc);

		if (prefilter_single_rel(qual) == rti && !contain_volatile_functions(qual))
			result = lappend(result, qual);
	}
	return result;
}

/* ---- join clauses ---- */

/*
 * The foreign side of an equality: a column (under lossless casts) of a
 * foreign table at query level levelsup, not on the nullable side of a join
 * below scope, with its table (*relid) and the table's estimated rows
 * (*remote_rows, maybe PREFILTER_UNKNOWN).
 */
static Var *
prefilter_foreign_key(PrefilterCatalog *cat, Query *query, Node *expr,
					  Index levelsup, Node *scope, Oid *relid, double *remote_rows)
{
	Var		   *var;
	RangeTblEntry *rte;

	expr = (Node *) prefilter_strip_casts((Expr *) expr);
	if (levelsup == 0)
		expr = (Node *) prefilter_strip_casts((Expr *) prefilter_resolve_aliases(query, expr));
	if (!IsA(expr, Var))
		return NULL;
	var = (Var *) expr;
	if (var->varlevelsup != levelsup || var->varattno <= 0)
		return NULL;
	rte = rt_fetch(var->varno, query->rtable);
	if (rte->rtekind != RTE_RELATION ||
		(rte->relkind != RELKIND_FOREIGN_TABLE && rte->relkind != RELKIND_PARTITIONED_TABLE) ||
		!prefilter_rel_preserved_below(scope, var->varno) ||
		!prefilter_catalog_available(cat))
		return NULL;
	*relid = rte->relid;
	*remote_rows = prefilter_foreign_rows(cat, rte);
	return *remote_rows == PREFILTER_NOT_FOREIGN ? NULL : var;
}

/*
 * For a conjunct L.a = F.b of a qual list (either order), the prefilter
 * qual; available: the conjuncts whose L-only ones the filter may copy.
 */
static Node *
prefilter_for_join_clause(PrefilterCatalog *cat, Query *query, Node *clause,
						  List *available, Node *foreign_scope, Node *local_scope)
{
	OpExpr	   *op;
	int			side;

	if (!IsA(clause, OpExpr) || list_length(((OpExpr *) clause)->args) != 2)
		return NULL;
	op = (OpExpr *) clause;
	for (side = 0; side < 2; side++)
	{
		Node	   *local = list_nth(op->args, side);
		Node	   *remote = list_nth(op->args, 1 - side);
		Var		   *foreign_key;
		double		remote_rows;
		Oid			foreign_relid;
		PrefilterSource source = {0};
		bool		nullable = false;
		List	   *resolved = NIL;
		ListCell   *lc;
		Node	   *qual;

		foreign_key = prefilter_foreign_key(cat, query, remote, 0, foreign_scope,
											  &foreign_relid, &remote_rows);
		if (foreign_key == NULL || contain_mutable_functions(local))
			continue;
		local = (Node *) prefilter_strip_casts((Expr *) prefilter_resolve_aliases(query, local));
		source.rti = prefilter_single_rel(local);
		if (source.rti == 0 ||
			!prefilter_local_relation(rt_fetch(source.rti, query->rtable)) ||
			!prefilter_find_rel(local_scope, source.rti, &nullable) ||
			!prefilter_equality(op->opno, op->inputcollid, local, remote))
			continue;
		source.query = query;
		source.key = (Expr *) local;
		foreach(lc, available)
			resolved = lappend(resolved, prefilter_resolve_aliases(query, lfirst(lc)));
		source.quals = prefilter_quals_of(resolved, source.rti);
		prefilter_estimate_keys(cat, &source);
		qual = prefilter_qual(cat, &source, foreign_key, foreign_relid, remote_rows);
		if (qual != NULL)
			return qual;
	}
	return NULL;
}

/* ---- semi-joins ---- */

/* Whether a sub-select may be run a second time to build the filter. */
static bool
prefilter_rerunnable(Query *select, int depth)
{
	int			level;

	if (!bloom_select_without(select, BLOOM_SELECT_LIMIT | BLOOM_SELECT_LOCKING |
							  BLOOM_SELECT_MODIFYING_CTE | BLOOM_SELECT_SAMPLED))
		return false;
	/* uncorrelated: no Var of this query or of any above it */
	for (level = 1; level <= depth + 1; level++)
		if (contain_vars_of_level((Node *) select, level))
			return false;
	return !contain_volatile_functions((Node *) select);
}

/*
 * F.b IN (SELECT x FROM ...), F.b = ANY (SELECT ...): the filter of the
 * sub-select's output, when its column is a table's (for the estimate).
 */
static Node *
prefilter_for_in(PrefilterCatalog *cat, Query *query, SubLink *sublink,
				 Node *foreign_scope, int depth)
{
	Query	   *select = (Query *) sublink->subselect;
	OpExpr	   *op;
	Node	   *outer;
	Node	   *inner;
	Param	   *param;
	TargetEntry *column;
	Expr	   *key;
	Var		   *foreign_key;
	double		remote_rows;
	Oid			foreign_relid;
	PrefilterSource source = {0};
	RangeTblEntry *rte;
	AttrNumber	attnum = 0;

	if (sublink->testexpr == NULL || !IsA(sublink->testexpr, OpExpr))
		return NULL;
	op = (OpExpr *) sublink->testexpr;
	if (list_length(op->args) != 2)
		return NULL;
	outer = linitial(op->args);
	inner = (Node *) prefilter_strip_casts(lsecond(op->args));
	if (!IsA(inner, Param) || ((Param *) inner)->paramkind != PARAM_SUBLINK)
		return NULL;
	param = (Param *) inner;
	foreign_key = prefilter_foreign_key(cat, query, outer, 0, foreign_scope,
										  &foreign_relid, &remote_rows);
	if (foreign_key == NULL ||
		!prefilter_equality(op->opno, op->inputcollid, inner, outer) ||
		!prefilter_rerunnable(select, depth))
		return NULL;
	column = get_tle_by_resno(select->targetList, param->paramid);
	if (column == NULL || column->resjunk)
		return NULL;
	/* the estimate: the distinct values of a table's column, or its rows */
	key = prefilter_strip_casts(column->expr);
	if (IsA(key, Var) && ((Var *) key)->varlevelsup == 0)
	{
		rte = rt_fetch(((Var *) key)->varno, select->rtable);
		attnum = ((Var *) key)->varattno;
	}
	else if (list_length(select->rtable) == 1)
		rte = linitial_node(RangeTblEntry, select->rtable); /* an expression */
	else
		return NULL;
	if (!prefilter_local_relation(rte))
		return NULL;
	source.keys = prefilter_local_keys(cat, rte, attnum);
	source.subselect = select;
	source.column = param->paramid;
	return prefilter_qual(cat, &source, foreign_key, foreign_relid, remote_rows);
}

/*
 * EXISTS (SELECT ... FROM L WHERE L.a = F.b AND ...): a filter per equality
 * with the outer foreign table, from L's rows that pass L's own quals.
 */
static List *
prefilter_for_exists(PrefilterCatalog *cat, Query *query, SubLink *sublink,
					 Node *foreign_scope)
{
	Query	   *select = (Query *) sublink->subselect;
	RangeTblRef *ref;
	List	   *conjuncts;
	List	   *own;
	List	   *added = NIL;
	ListCell   *lc;

	/* a plain SELECT of one table: GROUP BY () is true without a row of L */
	if (!bloom_select_without(select, BLOOM_SELECT_LIMIT | BLOOM_SELECT_LOCKING |
							  BLOOM_SELECT_WITH | BLOOM_SELECT_GROUPING |
							  BLOOM_SELECT_WINDOWS | BLOOM_SELECT_SET_OPERATION) ||
		list_length(select->jointree->fromlist) != 1 ||
		!IsA(linitial(select->jointree->fromlist), RangeTblRef))
		return NIL;
	ref = linitial_node(RangeTblRef, select->jointree->fromlist);
	if (!prefilter_local_relation(rt_fetch(ref->rtindex, select->rtable)))
		return NIL;
	conjuncts = make_ands_implicit((Expr *) select->jointree->quals);
	own = prefilter_quals_of(conjuncts, ref->rtindex);
	foreach(lc, conjuncts)
	{
		OpExpr	   *op = lfirst(lc);
		int			side;

		if (!IsA(op, OpExpr) || list_length(op->args) != 2)
			continue;
		for (side = 0; side < 2; side++)
		{
			Node	   *local = (Node *) prefilter_strip_casts(list_nth(op->args, side));
			Node	   *outer = list_nth(op->args, 1 - side);
			PrefilterSource source = {0};
			Var		   *foreign_key;
			double		remote_rows;
			Oid			foreign_relid;
			Node	   *qual;

			if (prefilter_single_rel(local) != (Index) ref->rtindex ||
				contain_mutable_functions(local))
				continue;
			foreign_key = prefilter_foreign_key(cat, query, outer, 1, foreign_scope,
												  &foreign_relid, &remote_rows);
			if (foreign_key == NULL ||
				!prefilter_equality(op->opno, op->inputcollid, local, outer))
				continue;
			source.query = select;
			source.rti = ref->rtindex;
			source.key = (Expr *) local;
			source.quals = own;
			prefilter_estimate_keys(cat, &source);
			qual = prefilter_qual(cat, &source, foreign_key, foreign_relid, remote_rows);
			if (qual != NULL)
				added = lappend(added, qual);
			break;
		}
	}
	return added;
}

/* ---- the walk ---- */

/*
 * The prefilter quals for the conjuncts of one qual list: join equalities
 * and top-level IN / = ANY / EXISTS sub-selects.
 */
static List *
prefilter_conjuncts(PrefilterCatalog *cat, Query *query, List *conjuncts,
					List *available, Node *foreign_scope, Node *local_scope, int depth)
{
	List	   *added = NIL;
	ListCell   *lc;

	foreach(lc, conjuncts)
	{
		Node	   *clause = lfirst(lc);

		if (IsA(clause, SubLink))
		{
			SubLink    *sublink = (SubLink *) clause;

			if (sublink->subLinkType == ANY_SUBLINK)
			{
				Node	   *qual = prefilter_for_in(cat, query, sublink, foreign_scope, depth);

				if (qual != NULL)
					added = lappend(added, qual);
			}
			else if (sublink->subLinkType == EXISTS_SUBLINK)
				added = list_concat(added, prefilter_for_exists(cat, query, sublink, foreign_scope));
		}
		else
		{
			Node	   *qual = prefilter_for_join_clause(cat, query, clause, available,
														 foreign_scope, local_scope);

			if (qual != NULL)
				added = lappend(added, qual);
		}
	}
	return added;
}

/*
 * Add the prefilters of a join tree node's quals, then of the nodes below.
 * inherited: the conjuncts above that also restrict this node's rows (the
 * path up crosses only inner joins and preserved sides).
 */
static void
prefilter_jointree(PrefilterCatalog *cat, Query *query, Node *jtnode,
				   List *inherited, int depth)
{
	List	   *conjuncts;
	List	   *available;
	List	   *added;
	ListCell   *lc;

	check_stack_depth();
	if (IsA(jtnode, FromExpr))
	{
		FromExpr   *from = (FromExpr *) jtnode;

		conjuncts = make_ands_implicit((Expr *) from->quals);
		available = list_concat_copy(conjuncts, inherited);
		added = prefilter_conjuncts(cat, query, conjuncts, available, jtnode, jtnode, depth);
		foreach(lc, from->fromlist)
			prefilter_jointree(cat, query, lfirst(lc), available, depth);
		if (added != NIL)
		{
			from->quals = (Node *) make_ands_explicit(list_concat_copy(conjuncts, added));
			query->hasSubLinks = true;
		}
	}
	else if (IsA(jtnode, JoinExpr))
	{
		JoinExpr   *join = (JoinExpr *) jtnode;
		Node	   *foreign_scope = NULL;
		Node	   *local_scope = NULL;
		List	   *larg_inherited = NIL;
		List	   *rarg_inherited = NIL;

		conjuncts = make_ands_implicit((Expr *) join->quals);
		available = list_concat_copy(conjuncts, inherited);
		/*
		 * Where the foreign and the local relation may be for a prefilter in
		 * this ON, and which conditions above still restrict each side's
		 * rows: an outer join's ON does not restrict its preserved side,
		 * and nothing above restricts its nullable side.  FULL: neither.
		 */
		switch (join->jointype)
		{
			case JOIN_INNER:
				foreign_scope = local_scope = jtnode;
				larg_inherited = rarg_inherited = available;
				break;
			case JOIN_LEFT:
				foreign_scope = join->rarg;
				local_scope = join->larg;
				larg_inherited = inherited;
				break;
			case JOIN_RIGHT:
				foreign_scope = join->larg;
				local_scope = join->rarg;
				rarg_inherited = inherited;
				break;
			default:
				break;
		}
		added = foreign_scope == NULL ? NIL :
			prefilter_conjuncts(cat, query, conjuncts, available, foreign_scope, local_scope, depth);
		prefilter_jointree(cat, query, join->larg, larg_inherited, depth);
		prefilter_jointree(cat, query, join->rarg, rarg_inherited, depth);
		if (added != NIL)
		{
			join->quals = (Node *) make_ands_explicit(list_concat_copy(conjuncts, added));
			query->hasSubLinks = true;
		}
	}
}

void
prefilter_query(PrefilterCatalog *cat, Query *query, int depth)
{
	bool		foreign = false;
	ListCell   *lc;

	check_stack_depth();
	if (query->commandType != CMD_SELECT)
		return;
	foreach(lc, query->cteList)
	{
		CommonTableExpr *cte = lfirst_node(CommonTableExpr, lc);

		if (!cte->cterecursive && IsA(cte->ctequery, Query))
			prefilter_query(cat, (Query *) cte->ctequery, depth + 1);
	}
	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->rtekind == RTE_SUBQUERY && rte->subquery != NULL)
			prefilter_query(cat, rte->subquery, depth + 1);
		else if (rte->rtekind == RTE_RELATION &&
				 (rte->relkind == RELKIND_FOREIGN_TABLE ||
				  rte->relkind == RELKIND_PARTITIONED_TABLE))
			foreign = true;
	}
	if (foreign && query->jointree != NULL && query->setOperations == NULL)
		prefilter_jointree(cat, query, (Node *) query->jointree, NIL, depth);
}
