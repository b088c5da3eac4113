/*
 * distributed/split.c: bloomfilter.split_aggregates, the rewrite that lets
 * Citus split the aggregates people write.
 *
 * Citus splits a custom aggregate over a distributed table into a partial
 * aggregate on each shard (worker_partial_agg) and a combine on the
 * coordinator (coord_combine_agg) only when its state has a real type; for
 * the polymorphic aggregates, whose state is internal, it either brings
 * every row to the coordinator (13.x, 14.x) or, from 15.0 on, splits them
 * and then fails in its worker's type check, which compares the declared
 * anyelement with the argument's real type ("worker_partial_agg_sfunc
 * could not confirm type correctness").  Each polymorphic aggregate has a
 * twin over bloom_hashed, the value hashed by bloom_value(), whose state is
 * a filter (or a bloom_agg_state): the same bits, in a form Citus splits.
 *
 * So, before Citus's planner sees a query, this planner hook replaces
 *
 *     bloom_agg(x, p, n)          by  bloom_agg(bloom_value(x), p, n)
 *     bloom_agg(x), bloom_agg(x, p)      bloom_agg(bloom_value(x)[, p])
 *     counting_bloom_agg(x, p, n)        counting_bloom_agg(bloom_value(x), p, n)
 *     scalable_bloom_agg(x, p)           scalable_bloom_agg(bloom_value(x), p)
 *     bloom_agg_like(x, template)        bloom_agg_shaped(bloom_value(x),
 *                                                         bloom_shape(template))
 *
 * wherever such a call is a plain one (no DISTINCT, ORDER BY or VARIADIC)
 * of a query level that Citus would otherwise gather: one that reads a
 * sharded table (hash, range or append distributed; directly, or through a
 * subquery, a CTE or a view, which the rewriter has expanded by now), is
 * not grouped by a distribution column of a table it reads directly, and
 * does not pin every such table to one shard with "column = constant" (or
 * a parameter).  In the last two cases Citus runs the whole aggregate on a
 * worker already, where bloom_value() would only cost more.  The rewrite reaches every
 * query the planner plans: subqueries, CTEs, expanded views, prepared
 * statements (custom and generic plans) and the queries of PL/pgSQL.
 *
 * Why the result cannot change: each twin sets the bits its polymorphic
 * aggregate sets for the same values (bloom_value hashes as the polymorphic
 * path does, and the twins share their row path; the regression tests and
 * t/002_citus.pl compare them bit for bit), and the twins check their
 * arguments alike.  bloom_agg_like differs from bloom_agg_shaped only where
 * a row's template is NULL, so it is rewritten only when the template is
 * the same in every row (a constant or a parameter, such as a scalar
 * subquery's), and a NULL template then makes the value NULL too:
 * "NULL in every row gives NULL", as bloom_agg_like says.
 *
 * Over no rows.  One server gives the filter of no rows (bloom_empty(p,
 * n) for bloom_agg(x, p, n)): the final function reads the constant
 * arguments from the aggregate call.  Split, Citus's coordinator calls it
 * without them, and it gives NULL.  So a rewritten call whose arguments are
 * constants (after folding, with a custom plan's parameter values) is
 * wrapped in bloom_agg_or_empty(call, arguments) (agg/no_rows.c), which
 * passes a filter through and turns NULL into the filter of no rows.  A
 * twin written by hand (bloom_agg(bloom_value(x), p, n), which Citus splits
 * as it is) is wrapped alike, in the query levels the rewrite would touch.
 *
 * The hook must run before Citus's: shared_preload_libraries = 'citus,
 * bloomfilter' (Citus refuses to load after another planner hook, and a
 * hook installed later runs first).  Loaded later, the library installs
 * the hook when a session first uses it, and the queries after that are
 * rewritten; queries before it are Citus's own (doc/distributed.md).
 *
 * bloomfilter.split_aggregates: auto (the default) rewrites as above, off
 * never, and always every plain call of every query, whatever its tables
 * (the regression tests show the rewrite that way, without Citus).
 */
#include "postgres.h"

#include "distributed/distributed.h"
#include "extension/extension.h"

#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "compat.h"

typedef enum SplitMode
{
	SPLIT_OFF,
	SPLIT_AUTO,
	SPLIT_ALWAYS
} SplitMode;

static const struct config_enum_entry split_modes[] = {
	{"off", SPLIT_OFF, false},
	{"auto", SPLIT_AUTO, false},
	{"always", SPLIT_ALWAYS, false},
	{NULL, 0, false}
};

static int	split_mode = SPLIT_AUTO;

/*
 * While a query is rewritten, a planner root that holds only the custom
 * plan's parameter values, so that a parameter folds into its value as it
 * will in the plan (NULL: none).
 */
static PlannerInfo *split_params_root = NULL;
static planner_hook_type prev_planner_hook = NULL;

/* The aggregates rewritten, each with its twin. */
typedef enum SplitTwin
{
	TWIN_FIXED,					/* bloom_agg(anyelement, float8, int8) */
	TWIN_SELF_SIZED,			/* bloom_agg(anyelement) */
	TWIN_SELF_SIZED_RATE,		/* bloom_agg(anyelement, float8) */
	TWIN_LIKE,					/* bloom_agg_like(anyelement, bloom) */
	TWIN_COUNTING,				/* counting_bloom_agg(anyelement, float8, int8) */
	TWIN_SCALABLE,				/* scalable_bloom_agg(anyelement, float8) */
	TWIN_COUNT
} SplitTwin;

typedef struct SplitCatalog
{
	bool		looked_up;
	bool		available;
	Oid			hashed_type;	/* bloom_hashed */
	Oid			value_function; /* bloom_value(anyelement) */
	Oid			shape_function; /* bloom_shape(bloom) */
	Oid			polymorphic[TWIN_COUNT];
	Oid			twin[TWIN_COUNT];
	Oid			or_empty[TWIN_COUNT];	/* bloom_agg_or_empty(result, arguments), or none */
} SplitCatalog;

static SplitCatalog split_catalog;

/* The extension's aggregates and functions, once per session (until they change). */
static bool
split_catalog_available(void)
{
	SplitCatalog *cat = &split_catalog;
	Oid			ns;
	Oid			bloom;
	Oid			h;
	static const char *const names[TWIN_COUNT] = {
		"bloom_agg", "bloom_agg", "bloom_agg", "bloom_agg_like",
		"counting_bloom_agg", "scalable_bloom_agg"
	};
	static const char *const twin_names[TWIN_COUNT] = {
		"bloom_agg", "bloom_agg", "bloom_agg", "bloom_agg_shaped",
		"counting_bloom_agg", "scalable_bloom_agg"
	};

	static const char *const result_types[TWIN_COUNT] = {
		"bloom", "bloom", "bloom", NULL, "counting_bloom", "scalable_bloom"
	};

	if (cat->looked_up)
		return cat->available;
	cat->looked_up = true;
	ns = bloom_own_schema();
	if (!OidIsValid(ns))
		return false;
	bloom = bloom_own_type(ns, "bloom");
	h = bloom_own_type(ns, "bloom_hashed");
	if (!OidIsValid(bloom) || !OidIsValid(h))
		return false;
	cat->hashed_type = h;
	{
		Oid			any[1] = {ANYELEMENTOID};
		Oid			filter[1] = {bloom};

		cat->value_function = bloom_own_function(ns, "bloom_value", 1, any);
		cat->shape_function = bloom_own_function(ns, "bloom_shape", 1, filter);
	}
	for (int t = 0; t < TWIN_COUNT; t++)
	{
		Oid			args[3];
		Oid			twin_args[3];
		int			nargs;

		args[0] = ANYELEMENTOID;
		switch ((SplitTwin) t)
		{
			case TWIN_FIXED:
			case TWIN_COUNTING:
				args[1] = FLOAT8OID;
				args[2] = INT8OID;
				nargs = 3;
				break;
			case TWIN_SELF_SIZED:
				nargs = 1;
				break;
			case TWIN_SELF_SIZED_RATE:
			case TWIN_SCALABLE:
				args[1] = FLOAT8OID;
				nargs = 2;
				break;
			case TWIN_LIKE:
				args[1] = bloom;
				nargs = 2;
				break;
			default:
				return false;
		}
		memcpy(twin_args, args, sizeof(args));
		twin_args[0] = h;
		if (t == TWIN_LIKE)
			twin_args[1] = TEXTOID;
		cat->polymorphic[t] = bloom_own_function(ns, names[t], nargs, args);
		cat->twin[t] = bloom_own_function(ns, twin_names[t], nargs, twin_args);
		if (!OidIsValid(cat->polymorphic[t]) || !OidIsValid(cat->twin[t]))
			return false;
		if (result_types[t] != NULL)
		{
			/* (result type, the aggregate's arguments but the value) */
			twin_args[0] = bloom_own_type(ns, result_types[t]);
			cat->or_empty[t] = bloom_own_function(ns, "bloom_agg_or_empty", nargs, twin_args);
		}
	}
	cat->available = OidIsValid(cat->value_function) && OidIsValid(cat->shape_function);
	return cat->available;
}

static void
split_catalog_reset(Datum arg, BloomSyscacheId cacheid, uint32 hashvalue)
{
	memset(&split_catalog, 0, sizeof(split_catalog));
}

/* The polymorphic aggregate of ours aggfnoid is (or, with twin, the twin), or -1. */
static int
split_twin_of(Oid aggfnoid, bool twin)
{
	const Oid  *aggregates = twin ? split_catalog.twin : split_catalog.polymorphic;

	for (int t = 0; t < TWIN_COUNT; t++)
		if (aggregates[t] == aggfnoid)
			return t;
	return -1;
}

/* Whether node is bloom_agg_or_empty around a twin already: nothing to wrap again. */
static bool
split_is_wrapped(Node *node)
{
	FuncExpr   *call = (FuncExpr *) node;
	Node	   *arg;

	if (!IsA(node, FuncExpr) || call->args == NIL)
		return false;
	arg = linitial(call->args);
	if (!IsA(arg, Aggref) || split_twin_of(((Aggref *) arg)->aggfnoid, true) < 0)
		return false;
	for (int t = 0; t < TWIN_COUNT; t++)
		if (OidIsValid(split_catalog.or_empty[t]) && split_catalog.or_empty[t] == call->funcid)
			return true;
	return false;
}

/* ---- which query levels Citus would gather ---- */

static bool query_reads_sharded(Query *query);

static bool
sharded_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return query_reads_sharded((Query *) node);
	return expression_tree_walker(node, sharded_walker, context);
}

/* Whether query, or any query inside it, reads a sharded table. */
static bool
query_reads_sharded(Query *query)
{
	ListCell   *lc;

	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);
		AttrNumber	column;

		if (rte->rtekind == RTE_RELATION && citus_table_is_sharded(rte->relid, &column))
			return true;
	}
	return query_tree_walker(query, sharded_walker, NULL, 0);
}

static bool
var_is_column(Node *node, Index rti, AttrNumber column)
{
	while (node != NULL && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	return node != NULL && IsA(node, Var) && ((Var *) node)->varlevelsup == 0 &&
		((Var *) node)->varno == rti && ((Var *) node)->varattno == column &&
		column != 0;
}

/*
 * Whether a top-level conjunct of quals is "column = constant" on rti's
 * column (a parameter counts: a custom plan has its value).
 */
static bool
quals_pin(Node *quals, Index rti, AttrNumber column)
{
	List	   *conjuncts = make_ands_implicit((Expr *) quals);
	ListCell   *lc;

	foreach(lc, conjuncts)
	{
		Node	   *clause = lfirst(lc);
		OpExpr	   *op;
		Node	   *left;
		Node	   *right;

		if (!IsA(clause, OpExpr) || list_length(((OpExpr *) clause)->args) != 2)
			continue;
		op = (OpExpr *) clause;
		if (!op_hashjoinable(op->opno, exprType(linitial(op->args))) &&
			!op_mergejoinable(op->opno, exprType(linitial(op->args))))
			continue;
		left = linitial(op->args);
		right = lsecond(op->args);
		if ((var_is_column(left, rti, column) && (IsA(right, Const) || IsA(right, Param))) ||
			(var_is_column(right, rti, column) && (IsA(left, Const) || IsA(left, Param))))
			return true;
	}
	return false;
}

/*
 * Whether Citus would gather the rows of query's aggregates: it reads a
 * sharded table, is not grouped by a distribution column of one it reads
 * directly, and does not pin each of those to one shard.
 */
static bool
split_level_gathers(Query *query)
{
	ListCell   *lc;
	List	   *direct = NIL;
	List	   *columns = NIL;
	bool		below = false;
	Index		rti = 0;
	bool		all_pinned;

	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);
		AttrNumber	column;

		rti++;
		if (rte->rtekind == RTE_RELATION)
		{
			if (citus_table_is_sharded(rte->relid, &column))
			{
				direct = lappend_int(direct, rti);
				columns = lappend_int(columns, column);
			}
		}
		else if (rte->rtekind == RTE_SUBQUERY && !below)
			below = query_reads_sharded(rte->subquery);
		else if (rte->rtekind == RTE_CTE && rte->ctelevelsup == 0 && !below)
		{
			ListCell   *c;

			foreach(c, query->cteList)
			{
				CommonTableExpr *cte = lfirst(c);

				if (strcmp(cte->ctename, rte->ctename) == 0 && IsA(cte->ctequery, Query))
					below = query_reads_sharded((Query *) cte->ctequery);
			}
		}
	}
	if (direct == NIL && !below)
		return false;
	if (direct == NIL)
		return true;

	foreach(lc, query->groupClause)
	{
		SortGroupClause *group = lfirst(lc);
		Node	   *expr = bloom_group_expr(query,
											(Node *) get_sortgroupclause_tle(group, query->targetList)->expr);
		ListCell   *r;
		ListCell   *c;

		forboth(r, direct, c, columns)
		{
			if (var_is_column(expr, lfirst_int(r), lfirst_int(c)))
				return false;
		}
	}

	all_pinned = query->jointree != NULL && query->jointree->quals != NULL;
	if (all_pinned)
	{
		ListCell   *r;
		ListCell   *c;

		forboth(r, direct, c, columns)
		{
			if (!quals_pin(query->jointree->quals, lfirst_int(r), lfirst_int(c)))
			{
				all_pinned = false;
				break;
			}
		}
	}
	return !all_pinned;
}

/* ---- the rewrite ---- */

static FuncExpr *
split_call(Oid function, Oid result_type, Oid result_collation, Expr *arg)
{
	return makeFuncExpr(function, result_type, list_make1(arg), result_collation,
						exprCollation((Node *) arg), COERCE_EXPLICIT_CALL);
}

/* Replaces aggref, a call of twin t's polymorphic aggregate, by the twin. */
static void
split_aggref(Aggref *aggref, int t)
{
	SplitCatalog *cat = &split_catalog;
	TargetEntry *value = linitial(aggref->args);
	Expr	   *hashed = (Expr *) split_call(cat->value_function, cat->hashed_type,
											 InvalidOid, value->expr);

	if (t == TWIN_LIKE)
	{
		TargetEntry *template = lsecond(aggref->args);
		Expr	   *expr = template->expr;
		NullTest   *is_null = makeNode(NullTest);
		CaseExpr   *when_set = makeNode(CaseExpr);
		CaseWhen   *when = makeNode(CaseWhen);

		/* CASE WHEN template IS NULL THEN NULL ELSE bloom_value(x) END */
		is_null->arg = (Expr *) copyObject(expr);
		is_null->nulltesttype = IS_NULL;
		is_null->argisrow = false;
		is_null->location = -1;
		when->expr = (Expr *) is_null;
		when->result = (Expr *) makeNullConst(cat->hashed_type, -1, InvalidOid);
		when->location = -1;
		when_set->casetype = cat->hashed_type;
		when_set->casecollid = InvalidOid;
		when_set->arg = NULL;
		when_set->args = list_make1(when);
		when_set->defresult = hashed;
		when_set->location = -1;
		if (!IsA(expr, Const))
			hashed = (Expr *) when_set;
		template->expr = (Expr *) split_call(cat->shape_function, TEXTOID,
											 DEFAULT_COLLATION_OID, expr);
	}
	value->expr = hashed;
	aggref->aggfnoid = cat->twin[t];
	linitial_oid(aggref->aggargtypes) = cat->hashed_type;
	if (t == TWIN_LIKE)
		lsecond_oid(aggref->aggargtypes) = TEXTOID;
	/* the arguments are no longer collatable: bloom_value took x's collation */
	aggref->inputcollid = InvalidOid;
}

/*
 * expr as a Const when the planner would fold it into one (0.01 reaches a
 * float8 argument as a cast of a numeric constant), else NULL.
 */
static Node *
split_constant(Node *expr)
{
	Node	   *folded;

	if (IsA(expr, Const))
		return expr;
	if (contain_mutable_functions(expr) || contain_subplans(expr) ||
		contain_var_clause(expr) || contain_agg_clause(expr))
		return NULL;
	folded = eval_const_expressions(split_params_root, copyObject(expr));
	return IsA(folded, Const) ? folded : NULL;
}

/*
 * Whether the template is the same in every row: a constant (not NULL), a
 * parameter or an uncorrelated scalar subquery.  A constant expression is
 * folded into its Const in place.
 */
static bool
split_template_fixed(Aggref *aggref)
{
	TargetEntry *entry = lsecond(aggref->args);
	Node	   *template = (Node *) entry->expr;
	Node	   *constant = split_constant(template);

	if (constant != NULL)
	{
		entry->expr = (Expr *) constant;
		return !((Const *) constant)->constisnull;
	}
	if (IsA(template, SubLink))
		return ((SubLink *) template)->subLinkType == EXPR_SUBLINK &&
			!contain_vars_of_level(((SubLink *) template)->subselect, 1);
	return IsA(template, Param);
}

typedef struct SplitContext
{
	bool		changed;
} SplitContext;

/*
 * bloom_agg_or_empty(aggref, the aggregate's other arguments) when twin t
 * has one and those arguments are constants, else aggref: Citus's split
 * gives NULL over no rows, one server the filter of no rows.
 */
static Node *
split_or_empty(Aggref *aggref, int t)
{
	Oid			function = split_catalog.or_empty[t];
	List	   *args = list_make1(aggref);
	ListCell   *lc;

	if (!OidIsValid(function))
		return (Node *) aggref;
	for_each_from(lc, aggref->args, 1)
	{
		Node	   *arg = split_constant((Node *) ((TargetEntry *) lfirst(lc))->expr);

		if (arg == NULL || ((Const *) arg)->constisnull)
			return (Node *) aggref;
		args = lappend(args, arg);
	}
	return (Node *) makeFuncExpr(function, aggref->aggtype, args, InvalidOid, InvalidOid,
								 COERCE_EXPLICIT_CALL);
}

/* Rewrites the aggregates of one query level (not of the queries inside it). */
static Node *
split_level_mutator(Node *node, SplitContext *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Query))
		return node;
	if (split_is_wrapped(node))
		return node;
	if (IsA(node, Aggref))
	{
		Aggref	   *aggref = (Aggref *) node;
		int			t = split_twin_of(aggref->aggfnoid, false);
		int			hand_written = split_twin_of(aggref->aggfnoid, true);
		bool		plain = aggref->agglevelsup == 0 && aggref->aggkind == AGGKIND_NORMAL &&
			aggref->aggorder == NIL && aggref->aggdistinct == NIL &&
			!aggref->aggstar && !aggref->aggvariadic && aggref->aggdirectargs == NIL;

		if (plain && t >= 0 && (t != TWIN_LIKE || split_template_fixed(aggref)))
		{
			split_aggref(aggref, t);
			context->changed = true;
			return split_or_empty(aggref, t);
		}
		/* a twin written by hand, bloom_agg(bloom_value(x), p, n): the same over no rows */
		if (plain && hand_written >= 0)
		{
			Node	   *wrapped = split_or_empty(aggref, hand_written);

			context->changed |= (wrapped != node);
			return wrapped;
		}
		/* an aggregate's arguments hold no aggregate of the same level */
		return node;
	}
	return expression_tree_mutator(node, split_level_mutator, (void *) context);
}

static bool split_walker(Node *node, SplitContext *context);

/* Whether node (of one query level) holds a call of a polymorphic aggregate of ours or a twin. */
static bool
split_has_ours(Node *node, void *context)
{
	if (node == NULL || IsA(node, Query))
		return false;
	if (IsA(node, Aggref) && (split_twin_of(((Aggref *) node)->aggfnoid, false) >= 0 ||
							  split_twin_of(((Aggref *) node)->aggfnoid, true) >= 0))
		return true;
	return expression_tree_walker(node, split_has_ours, context);
}

static void
split_level(Query *query, SplitContext *context)
{
	if (query->hasAggs &&
		(split_has_ours((Node *) query->targetList, NULL) ||
		 split_has_ours(query->havingQual, NULL)) &&
		(split_mode == SPLIT_ALWAYS || split_level_gathers(query)))
	{
		query->targetList = (List *) split_level_mutator((Node *) query->targetList, context);
		query->havingQual = split_level_mutator(query->havingQual, context);
	}
}

static bool
split_walker(Node *node, SplitContext *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		split_level((Query *) node, context);
		return query_tree_walker((Query *) node, split_walker, (void *) context, 0);
	}
	return expression_tree_walker(node, split_walker, (void *) context);
}

bool
bloom_split_query(Query *parse, ParamListInfo params)
{
	SplitContext context = {false};
	PlannerGlobal *glob;

	if (split_mode == SPLIT_OFF || IsBinaryUpgrade)
		return false;
	if (split_mode == SPLIT_AUTO && !citus_metadata_present())
		return false;
	if (!split_catalog_available())
		return false;
	glob = makeNode(PlannerGlobal);
	glob->boundParams = params;
	split_params_root = makeNode(PlannerInfo);
	split_params_root->glob = glob;
	PG_TRY();
	{
		split_walker((Node *) parse, &context);
	}
	PG_FINALLY();
	{
		split_params_root = NULL;
	}
	PG_END_TRY();
	return context.changed;
}

static PlannedStmt *
bloom_split_planner(BLOOM_PLANNER_HOOK_PARAMS)
{
	bloom_split_query(parse, boundParams);
	if (prev_planner_hook != NULL)
		return prev_planner_hook(BLOOM_PLANNER_HOOK_ARGS);
	return standard_planner(BLOOM_PLANNER_HOOK_ARGS);
}

void
bloom_split_init(void)
{
	DefineCustomEnumVariable("bloomfilter.split_aggregates",
							 "Rewrites the polymorphic aggregates into the forms Citus splits.",
							 "auto: in queries whose rows Citus would gather from its shards; "
							 "always: in every query; off: never.",
							 &split_mode, SPLIT_AUTO, split_modes, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	CacheRegisterSyscacheCallback(PROCOID, split_catalog_reset, (Datum) 0);
	CacheRegisterSyscacheCallback(TYPEOID, split_catalog_reset, (Datum) 0);
	citus_catalog_init();
	bloom_setup_init();
	prev_planner_hook = planner_hook;
	planner_hook = bloom_split_planner;
}
