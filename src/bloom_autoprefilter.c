/*
 * bloom_autoprefilter.c: bloomfilter.auto_prefilter, semi-join prefilters
 * that the planner adds by itself to joins with postgres_fdw tables.
 *
 * Written by hand, a prefilter is a qual on the foreign table F,
 *
 *     bloom_contains((SELECT bloom_agg(L.a, p) FROM L WHERE <L's quals>), F.b)
 *
 * which the planner makes an InitPlan and postgres_fdw ships as
 * bloom_contains($1, b) in the Remote SQL when the server lists bloomfilter
 * in its extensions option.  With the setting on, a planner_hook adds that
 * qual to the Query before standard_planner sees it, so every later step
 * (InitPlan, pushdown to each foreign partition, EXPLAIN, generic and custom
 * plans) is PostgreSQL's own, exactly as for the hand-written form.  The
 * filter's aggregate is wrapped in bloom_auto_prefilter(), an identity
 * function, so that EXPLAIN VERBOSE names where the filter came from.
 *
 * Why the result cannot change.  The qual C is added to the very qual list Q
 * (a WHERE, or a join's ON) that holds the equality L.a = F.b, as another
 * AND-ed condition.  Whenever Q is true, L.a = F.b with a row of L that
 * passes the quals copied into the filter's sub-select, so F.b is in the
 * filter and C is true: Q AND C is true exactly when Q is.  The quals copied
 * come from Q itself, and from the qual lists above it only while the path
 * up crosses inner joins or the preserved side of an outer join: a row of L
 * they reject is then rejected above anyway, and removing a combination
 * below cannot make a null-extended row appear.  A filter holds no NULL, and
 * the equality is strict, so NULL keys change nothing either.
 *
 * What qualifies (doc/auto-prefilter.md has the reasons):
 *   - F is a foreign table of a postgres_fdw server whose extensions option
 *     lists bloomfilter, or a partitioned table all of whose leaves are;
 *   - Q is a WHERE or an inner join's ON (F and L anywhere below, F not on
 *     the nullable side of a join below), or the ON of a LEFT (RIGHT) join
 *     with F in its right (left) input and L in the other one: never a FULL
 *     join, F on the preserved side, or an anti-join (NOT EXISTS, NOT IN are
 *     not top-level conjuncts);
 *   - the equality is an equality operator (hash- or merge-joinable) between
 *     types whose equal values the filter hashes alike (reference.md, "What
 *     equal means"), under a deterministic collation for text; the foreign
 *     side is a column, the local side an immutable expression over one
 *     local table;
 *   - semi-joins: F.b IN (SELECT ...) / = ANY (SELECT ...), uncorrelated, no
 *     LIMIT, and EXISTS (SELECT ... FROM L WHERE L.a = F.b ...) over one
 *     table;
 *   - it should pay: the local side's distinct keys (n_distinct of the key,
 *     else its table's rows) are at most auto_prefilter_max_keys, and F's
 *     rows (reltuples, after ANALYZE) at least auto_prefilter_min_ratio times
 *     as many.  Without statistics, no prefilter.
 * Anything else leaves the Query untouched, so the plan is the one the
 * setting off gives.
 */
#include "postgres.h"

#include "bloom_support.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

/* The settings (registered by bloom_auto_prefilter_init). */
static bool auto_prefilter = false;
static int	auto_prefilter_max_keys = 1000000;
static double auto_prefilter_min_ratio = 10.0;
static double auto_prefilter_rate = 0.01;

static planner_hook_type prev_planner_hook = NULL;

/*
 * The extension's objects the added qual calls, and the foreign servers seen
 * so far, kept for the session (in TopMemoryContext) until an invalidation of
 * pg_proc, pg_type or a foreign server or wrapper (CREATE, DROP or ALTER
 * EXTENSION, ALTER SERVER ...) clears them: looking them up for every query
 * planned would cost more than the rest of the walk.
 */
typedef struct PrefilterCatalog
{
	bool		looked_up;
	bool		available;
	Oid			bloom_type;
	Oid			agg;			/* bloom_agg(anyelement, float8) */
	Oid			contains;		/* bloom_contains(bloom, anyelement) */
	Oid			marker;			/* bloom_auto_prefilter(bloom) */
	List	   *servers_ok;		/* foreign servers found to qualify */
	List	   *servers_not;	/* and found not to */
} PrefilterCatalog;

/* One key of a prefilter: the local side, as a source of rows and a key. */
typedef struct PrefilterSource
{
	Query	   *query;			/* the Query whose rtable holds rti */
	Index		rti;			/* the local relation, in query */
	Expr	   *key;			/* the local key, over rti */
	List	   *quals;			/* conjuncts over rti only, to copy */
	Query	   *subselect;		/* or: an uncorrelated IN sub-select ... */
	AttrNumber	column;			/* ... and its output column */
	double		keys;			/* estimated distinct keys */
} PrefilterSource;

static PrefilterCatalog prefilter_cache;

PG_FUNCTION_INFO_V1(bloom_auto_prefilter);

/*
 * bloom_auto_prefilter(bloom): its argument.  The filter of an automatic
 * prefilter passes through it so that EXPLAIN shows where it came from.
 */
Datum
bloom_auto_prefilter(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/* ---- the catalog ---- */

static Oid
prefilter_function(Oid namespace, const char *name, int nargs, const Oid *argtypes)
{
	return GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid,
						   CStringGetDatum(name),
						   PointerGetDatum(buildoidvector(argtypes, nargs)),
						   ObjectIdGetDatum(namespace));
}

/* Whether the extension (at 1.2 or later) is installed in this database. */
static bool
prefilter_catalog_available(PrefilterCatalog *cat)
{
	Oid			extension;
	Oid			namespace;
	Oid			agg_args[2] = {ANYELEMENTOID, FLOAT8OID};
	Oid			contains_args[2];
	Oid			marker_args[1];

	if (cat->looked_up)
		return cat->available;
	cat->looked_up = true;
	extension = get_extension_oid("bloomfilter", true);
	if (!OidIsValid(extension))
		return false;
	namespace = bloom_extension_schema(extension);
	if (!OidIsValid(namespace))
		return false;
	cat->bloom_type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
									  CStringGetDatum("bloom"),
									  ObjectIdGetDatum(namespace));
	if (!OidIsValid(cat->bloom_type))
		return false;
	contains_args[0] = cat->bloom_type;
	contains_args[1] = ANYELEMENTOID;
	marker_args[0] = cat->bloom_type;
	cat->agg = prefilter_function(namespace, "bloom_agg", 2, agg_args);
	cat->contains = prefilter_function(namespace, "bloom_contains", 2, contains_args);
	cat->marker = prefilter_function(namespace, "bloom_auto_prefilter", 1, marker_args);
	cat->available = OidIsValid(cat->agg) && OidIsValid(cat->contains) &&
		OidIsValid(cat->marker);
	return cat->available;
}

static void
prefilter_cache_reset(Datum arg, BloomSyscacheId cacheid, uint32 hashvalue)
{
	list_free(prefilter_cache.servers_ok);
	list_free(prefilter_cache.servers_not);
	memset(&prefilter_cache, 0, sizeof(prefilter_cache));
}

/* Whether a server is postgres_fdw's and lists bloomfilter in extensions. */
static bool
prefilter_server_ships(PrefilterCatalog *cat, Oid serverid)
{
	ForeignServer *server;
	ForeignDataWrapper *wrapper;
	ListCell   *lc;
	bool		ships = false;
	MemoryContext old_context;

	if (list_member_oid(cat->servers_ok, serverid))
		return true;
	if (list_member_oid(cat->servers_not, serverid))
		return false;
	server = GetForeignServer(serverid);
	wrapper = GetForeignDataWrapper(server->fdwid);
	if (OidIsValid(wrapper->fdwhandler) &&
		strcmp(get_func_name(wrapper->fdwhandler), "postgres_fdw_handler") == 0)
	{
		foreach(lc, server->options)
		{
			DefElem    *option = lfirst_node(DefElem, lc);
			char	   *names;
			List	   *extensions;
			ListCell   *name;

			if (strcmp(option->defname, "extensions") != 0)
				continue;
			names = pstrdup(defGetString(option));
			if (!SplitIdentifierString(names, ',', &extensions))
				continue;
			foreach(name, extensions)
				if (strcmp((char *) lfirst(name), "bloomfilter") == 0)
					ships = true;
		}
	}
	old_context = MemoryContextSwitchTo(TopMemoryContext);
	if (ships)
		cat->servers_ok = lappend_oid(cat->servers_ok, serverid);
	else
		cat->servers_not = lappend_oid(cat->servers_not, serverid);
	MemoryContextSwitchTo(old_context);
	return ships;
}

/* pg_class.reltuples, or -1 when the table was never analyzed or vacuumed. */
static double
prefilter_reltuples(Oid relid)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	double		rows;

	if (!HeapTupleIsValid(tuple))
		return -1;
	rows = ((Form_pg_class) GETSTRUCT(tuple))->reltuples;
	ReleaseSysCache(tuple);
	return rows;
}

/*
 * The estimated rows of a relation, summed over the leaves of a partitioned
 * one, or -1 if some part has no estimate.  With foreign_only, also -1
 * unless every leaf is a foreign table whose server ships the filter.
 */
static double
prefilter_relation_rows(PrefilterCatalog *cat, Oid relid, char relkind, bool foreign_only)
{
	List	   *members;
	ListCell   *lc;
	double		rows = 0;

	if (relkind != RELKIND_PARTITIONED_TABLE)
	{
		if (foreign_only &&
			(relkind != RELKIND_FOREIGN_TABLE ||
			 !prefilter_server_ships(cat, GetForeignTable(relid)->serverid)))
			return -1;
		return prefilter_reltuples(relid);
	}
	members = find_all_inheritors(relid, AccessShareLock, NULL);
	foreach(lc, members)
	{
		Oid			member = lfirst_oid(lc);
		char		kind = get_rel_relkind(member);
		double		part;

		if (kind == RELKIND_PARTITIONED_TABLE)
			continue;
		part = prefilter_relation_rows(cat, member, kind, foreign_only);
		if (part < 0)
			return -1;
		rows += part;
	}
	return rows;
}

/*
 * Distinct values of a column from pg_statistic, or rows when there are no
 * statistics for it (the distinct values cannot exceed the rows).
 */
static double
prefilter_distinct(const RangeTblEntry *rte, AttrNumber attnum, double rows)
{
	HeapTuple	tuple;
	double		distinct = rows;

	if (attnum <= 0)
		return rows;
	tuple = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(rte->relid),
							Int16GetDatum(attnum), BoolGetDatum(rte->inh));
	if (HeapTupleIsValid(tuple))
	{
		float4		stadistinct = ((Form_pg_statistic) GETSTRUCT(tuple))->stadistinct;

		if (stadistinct > 0)
			distinct = Min(rows, stadistinct);
		else if (stadistinct < 0)
			distinct = -stadistinct * rows;
		ReleaseSysCache(tuple);
	}
	return distinct;
}

/* ---- which equalities the filter honours ---- */

/* The groups of types whose equal values a filter hashes alike. */
typedef enum PrefilterTypeGroup
{
	GROUP_NONE,
	GROUP_INTEGER,				/* int2, int4, int8, numeric */
	GROUP_FLOAT,				/* float4, float8 */
	GROUP_TEXT,					/* text, varchar, bpchar, name */
	GROUP_DATE,					/* date, timestamp */
	GROUP_SELF					/* the type alone */
} PrefilterTypeGroup;

static PrefilterTypeGroup
prefilter_type_group(Oid type)
{
	switch (getBaseType(type))
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case NUMERICOID:
			return GROUP_INTEGER;
		case FLOAT4OID:
		case FLOAT8OID:
			return GROUP_FLOAT;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case NAMEOID:
			return GROUP_TEXT;
		case DATEOID:
		case TIMESTAMPOID:
			return GROUP_DATE;
		case TIMESTAMPTZOID:
		case UUIDOID:
		case BYTEAOID:
		case BOOLOID:
		case OIDOID:
		case TIMEOID:
		case CHAROID:
		case MACADDROID:
		case INETOID:
			return GROUP_SELF;
		default:
			return type_is_enum(getBaseType(type)) ? GROUP_SELF : GROUP_NONE;
	}
}

/* Whether equal values of the two types hash alike in a filter. */
static bool
prefilter_types_agree(Oid left, Oid right)
{
	PrefilterTypeGroup group = prefilter_type_group(left);

	if (group == GROUP_NONE || group != prefilter_type_group(right))
		return false;
	return group != GROUP_SELF || getBaseType(left) == getBaseType(right);
}

/*
 * The expression under the casts that lose nothing: binary-compatible
 * relabelling, and implicit casts within one group of types (int4 to
 * numeric, varchar to text, date to timestamp, ...), whose equal values a
 * filter hashes alike.
 */
static Expr *
prefilter_strip_casts(Expr *expr)
{
	for (;;)
	{
		if (IsA(expr, RelabelType))
			expr = ((RelabelType *) expr)->arg;
		else if (IsA(expr, FuncExpr) &&
				 ((FuncExpr *) expr)->funcformat == COERCE_IMPLICIT_CAST &&
				 list_length(((FuncExpr *) expr)->args) == 1)
		{
			Expr	   *arg = linitial(((FuncExpr *) expr)->args);
			PrefilterTypeGroup group = prefilter_type_group(exprType((Node *) arg));

			if (group == GROUP_NONE || group == GROUP_SELF ||
				group != prefilter_type_group(((FuncExpr *) expr)->funcresulttype))
				return expr;
			expr = arg;
		}
		else
			return expr;
	}
}

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

/* Estimate the local side's distinct keys; false when it cannot be known. */
static bool
prefilter_estimate_keys(PrefilterCatalog *cat, PrefilterSource *source)
{
	RangeTblEntry *rte = rt_fetch(source->rti, source->query->rtable);
	double		rows = prefilter_relation_rows(cat, rte->relid, rte->relkind, false);
	Expr	   *key = prefilter_strip_casts(source->key);

	if (rows < 0)
		return false;
	source->keys = IsA(key, Var) ?
		prefilter_distinct(rte, ((Var *) key)->varattno, rows) : rows;
	return true;
}

/* ---- building the qual ---- */

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
															  Float8GetDatum(auto_prefilter_rate),
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

/* bloom_contains(<the filter>, foreign_key), if it should pay. */
static Node *
prefilter_qual(PrefilterCatalog *cat, PrefilterSource *source, Var *foreign_key,
			   double remote_rows)
{
	if (source->keys > auto_prefilter_max_keys ||
		remote_rows < auto_prefilter_min_ratio * Max(source->keys, 1))
		return NULL;
	foreign_key = copyObject(foreign_key);
	foreign_key->varlevelsup = 0;
	prefilter_forget_nulling_rels((Node *) foreign_key);
	return (Node *) makeFuncExpr(cat->contains, BOOLOID,
								 list_make2(prefilter_sublink(cat, source), foreign_key),
								 InvalidOid, exprCollation((Node *) foreign_key),
								 COERCE_EXPLICIT_CALL);
}

/*
 * The foreign side of an equality: a column (under lossless casts) of a
 * foreign table at query level levelsup, not on the nullable side of a join
 * below scope, whose rows are estimated (*remote_rows).
 */
static Var *
prefilter_foreign_key(PrefilterCatalog *cat, Query *query, Node *expr,
					  Index levelsup, Node *scope, double *remote_rows)
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
	*remote_rows = prefilter_relation_rows(cat, rte->relid, rte->relkind, true);
	return *remote_rows < 0 ? NULL : var;
}

/* Whether opno, between these two expressions, is an equality a filter honours. */
static bool
prefilter_equality(Oid opno, Oid collation, Node *left, Node *right)
{
	if (!op_hashjoinable(opno, exprType(left)) && get_mergejoin_opfamilies(opno) == NIL)
		return false;
	if (!prefilter_types_agree(exprType((Node *) prefilter_strip_casts((Expr *) left)),
							   exprType((Node *) prefilter_strip_casts((Expr *) right))))
		return false;
	if (OidIsValid(collation) && !get_collation_isdeterministic(collation))
		return false;
	return true;
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
		PrefilterSource source = {0};
		bool		nullable = false;
		List	   *resolved = NIL;
		ListCell   *lc;
		Node	   *qual;

		foreign_key = prefilter_foreign_key(cat, query, remote, 0, foreign_scope, &remote_rows);
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
		if (!prefilter_estimate_keys(cat, &source))
			continue;
		qual = prefilter_qual(cat, &source, foreign_key, remote_rows);
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
	PrefilterSource source = {0};
	RangeTblEntry *rte;
	double		rows;

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
	foreign_key = prefilter_foreign_key(cat, query, outer, 0, foreign_scope, &remote_rows);
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
		rte = rt_fetch(((Var *) key)->varno, select->rtable);
	else if (list_length(select->rtable) == 1)
		rte = linitial_node(RangeTblEntry, select->rtable);
	else
		return NULL;
	if (!prefilter_local_relation(rte))
		return NULL;
	rows = prefilter_relation_rows(cat, rte->relid, rte->relkind, false);
	if (rows < 0)
		return NULL;
	source.keys = IsA(key, Var) && rt_fetch(((Var *) key)->varno, select->rtable) == rte ?
		prefilter_distinct(rte, ((Var *) key)->varattno, rows) : rows;
	source.subselect = select;
	source.column = param->paramid;
	return prefilter_qual(cat, &source, foreign_key, remote_rows);
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
			Node	   *qual;

			if (prefilter_single_rel(local) != (Index) ref->rtindex ||
				contain_mutable_functions(local))
				continue;
			foreign_key = prefilter_foreign_key(cat, query, outer, 1, foreign_scope, &remote_rows);
			if (foreign_key == NULL ||
				!prefilter_equality(op->opno, op->inputcollid, local, outer))
				continue;
			source.query = select;
			source.rti = ref->rtindex;
			source.key = (Expr *) local;
			source.quals = own;
			if (!prefilter_estimate_keys(cat, &source))
				continue;
			qual = prefilter_qual(cat, &source, foreign_key, remote_rows);
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

/* Add prefilters to a SELECT and to the SELECTs in its FROM and WITH. */
static void
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

static PlannedStmt *
bloom_auto_prefilter_planner(BLOOM_PLANNER_HOOK_PARAMS)
{
	if (auto_prefilter && !IsBinaryUpgrade && parse->commandType == CMD_SELECT)
	{
		prefilter_query(&prefilter_cache, parse, 0);
	}
	if (prev_planner_hook != NULL)
		return prev_planner_hook(BLOOM_PLANNER_HOOK_ARGS);
	return standard_planner(BLOOM_PLANNER_HOOK_ARGS);
}

/* The settings, and the hook; from _PG_init. */
void
bloom_auto_prefilter_init(void)
{
	DefineCustomBoolVariable("bloomfilter.auto_prefilter",
							 "Adds Bloom filter prefilters to joins with postgres_fdw tables.",
							 "A filter of the local join keys is built at run time and shipped "
							 "in the foreign scan's remote SQL, where the join allows it.",
							 &auto_prefilter, false, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("bloomfilter.auto_prefilter_max_keys",
							"The most distinct local keys (estimated) an automatic prefilter is built for.",
							NULL, &auto_prefilter_max_keys, 1000000, 1, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("bloomfilter.auto_prefilter_min_ratio",
							 "How many times more rows than local keys the foreign table must have (estimated) for an automatic prefilter.",
							 NULL, &auto_prefilter_min_ratio, 10.0, 0.0, 1e12,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("bloomfilter.auto_prefilter_rate",
							 "The false-positive rate of automatic prefilters.",
							 NULL, &auto_prefilter_rate, 0.01, 1e-9, 0.5,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("bloomfilter");

	CacheRegisterSyscacheCallback(PROCOID, prefilter_cache_reset, (Datum) 0);
	CacheRegisterSyscacheCallback(TYPEOID, prefilter_cache_reset, (Datum) 0);
	CacheRegisterSyscacheCallback(FOREIGNSERVEROID, prefilter_cache_reset, (Datum) 0);
	CacheRegisterSyscacheCallback(FOREIGNDATAWRAPPEROID, prefilter_cache_reset, (Datum) 0);
	prev_planner_hook = planner_hook;
	planner_hook = bloom_auto_prefilter_planner;
}
