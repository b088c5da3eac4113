/*
 * prefilter/build.c: the qual an automatic prefilter adds,
 *
 *     bloom_contains((SELECT bloom_auto_prefilter(bloom_agg(key, rate))
 *                     FROM <source>), foreign_key)
 *
 * built as the parser would build it from that text: a scalar sub-select
 * over a copy of the local relation's range table entry (its permissions
 * and row security along) with the quals copied from the join, or over the
 * IN sub-select as a subquery.
 */
#include "postgres.h"

#include "prefilter/prefilter.h"

#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"

/* The filter's false-positive rate: a setting (prefilter/prefilter.c registers it). */
double		prefilter_rate = 0.01;

static bool
prefilter_forget_nulling_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		bloom_var_forget_nulling((Var *) node);
		return false;
	}
	return expression_tree_walker(node, prefilter_forget_nulling_walker, context);
}

/*
 * Forget the outer joins that could null the Vars: in the sub-select they
 * read the table itself, and a foreign key in a qual it qualifies for is
 * never below an outer join that nulls it.
 */
static void
prefilter_forget_nulling_rels(Node *node)
{
	(void) prefilter_forget_nulling_walker(node, NULL);
}

/* Vars of the local relation, renumbered to the sub-select's only entry. */
static Node *
prefilter_renumber(Node *node, Index rti)
{
	node = copyObject(node);
	ChangeVarNodes(node, rti, 1, 0);
	prefilter_forget_nulling_rels(node);
	return node;
}

/*
 * SELECT bloom_auto_prefilter(bloom_agg(key, rate)) FROM <source>: the
 * local relation with its quals, or an IN sub-select as a subquery.
 */
static SubLink *
prefilter_sublink(PrefilterCatalog *cat, PrefilterSource *source)
{
	Query	   *select = makeNode(Query);
	RangeTblEntry *rte;
	Expr	   *key;
	List	   *quals = NIL;
	Aggref	   *agg = makeNode(Aggref);
	FuncExpr   *marker;
	SubLink    *sublink = makeNode(SubLink);
	RangeTblRef *reference = makeNode(RangeTblRef);
	ListCell   *lc;

	select->commandType = CMD_SELECT;
	select->querySource = QSRC_ORIGINAL;
	select->canSetTag = true;
	if (source->subselect != NULL)
	{
		TargetEntry *column = get_tle_by_resno(source->subselect->targetList, source->column);
		List	   *names = NIL;

		rte = makeNode(RangeTblEntry);
		rte->rtekind = RTE_SUBQUERY;
		rte->subquery = copyObject(source->subselect);
		foreach(lc, source->subselect->targetList)
		{
			TargetEntry *entry = lfirst_node(TargetEntry, lc);

			if (!entry->resjunk)
				names = lappend(names, makeString(pstrdup(entry->resname ? entry->resname : "?column?")));
		}
		rte->eref = makeAlias("bloom_auto_prefilter", names);
		rte->inFromCl = true;
		select->rtable = list_make1(rte);
		key = (Expr *) makeVar(1, source->column, exprType((Node *) column->expr),
							   exprTypmod((Node *) column->expr),
							   exprCollation((Node *) column->expr), 0);
	}
	else
	{
		rte = copyObject(rt_fetch(source->rti, source->query->rtable));
		rte->inFromCl = true;
		select->rtable = list_make1(rte);
		bloom_copy_permission_info(source->query, rte, select);
		key = (Expr *) prefilter_renumber((Node *) source->key, source->rti);
		foreach(lc, source->quals)
			quals = lappend(quals, prefilter_renumber(lfirst(lc), source->rti));
	}
	reference->rtindex = 1;
	select->jointree = makeFromExpr(list_make1(reference),
									quals == NIL ? NULL : (Node *) make_ands_explicit(quals));

	agg->aggfnoid = cat->agg;
	agg->aggtype = cat->bloom_type;
	agg->aggcollid = InvalidOid;
	agg->inputcollid = exprCollation((Node *) key);
	agg->aggargtypes = list_make2_oid(exprType((Node *) key), FLOAT8OID);
	agg->args = list_make2(makeTargetEntry(key, 1, NULL, false),
						   makeTargetEntry((Expr *) makeConst(FLOAT8OID, -1, InvalidOid, sizeof(float8),
															  Float8GetDatum(prefilter_rate),
															  false, FLOAT8PASSBYVAL),
										   2, NULL, false));
	agg->aggkind = AGGKIND_NORMAL;
	agg->agglevelsup = 0;
	agg->aggsplit = AGGSPLIT_SIMPLE;
	agg->aggno = -1;
	agg->aggtransno = -1;
	agg->location = -1;
	marker = makeFuncExpr(cat->marker, cat->bloom_type, list_make1(agg),
						  InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	select->targetList = list_make1(makeTargetEntry((Expr *) marker, 1,
													pstrdup("bloom_auto_prefilter"), false));
	select->hasAggs = true;

	sublink->subLinkType = EXPR_SUBLINK;
	sublink->subLinkId = 0;
	sublink->subselect = (Node *) select;
	sublink->location = -1;
	return sublink;
}

Node *
prefilter_qual(PrefilterCatalog *cat, PrefilterSource *source, Var *foreign_key,
			   Oid foreign_relid, double remote_rows)
{
	if (!prefilter_pays(source->keys, remote_rows, foreign_relid))
		return NULL;
	foreign_key = copyObject(foreign_key);
	foreign_key->varlevelsup = 0;
	prefilter_forget_nulling_rels((Node *) foreign_key);
	return (Node *) makeFuncExpr(cat->contains, BOOLOID,
								 list_make2(prefilter_sublink(cat, source), foreign_key),
								 InvalidOid, exprCollation((Node *) foreign_key),
								 COERCE_EXPLICIT_CALL);
}
