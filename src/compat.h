/*
 * compat.h: the differences between the PostgreSQL majors we build
 * against (15 to 19), in one place.  Every SQL-layer file includes it
 * after postgres.h (through types/types.h, or itself); nowhere else tests
 * PG_VERSION_NUM.
 *
 * Each block gives the newer API its newer name on the older majors, so the
 * code is written once, against the newest API.
 */
#ifndef BLOOM_COMPAT_H
#define BLOOM_COMPAT_H

#if PG_VERSION_NUM < 150000
#error "bloomfilter needs PostgreSQL 15 or later"
#endif

/*
 * 16 moved the varlena macros (VARSIZE, VARATT_IS_EXTERNAL_ONDISK, ...)
 * from postgres.h to varatt.h.
 */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * 16 added soft input errors: an input function given an ErrorSaveContext
 * (pg_input_is_valid, COPY ... ON_ERROR) reports bad input with ereturn()
 * and returns instead of raising.  On 15 there is no such caller: ereturn
 * raises the ERROR.
 */
#if PG_VERSION_NUM >= 160000
#include "nodes/miscnodes.h"
#else
#define ereturn(context, dummy_value, ...) \
	do { \
		(void) (context); \
		ereport(ERROR, __VA_ARGS__); \
		return (dummy_value); \
	} while (0)
#endif

/*
 * 18 replaced the suffix pg_attribute_noreturn() with the prefix
 * pg_noreturn; both expand to a GCC attribute that may come first.
 */
#ifndef pg_noreturn
#define pg_noreturn pg_attribute_noreturn()
#endif

/*
 * 18 gave vacuum_delay_point() an argument saying whether ANALYZE (true)
 * or VACUUM calls it.  Callers include commands/vacuum.h.
 */
#if PG_VERSION_NUM >= 180000
#define vacuum_delay_point_analyze() vacuum_delay_point(true)
#define vacuum_delay_point_vacuum() vacuum_delay_point(false)
#else
#define vacuum_delay_point_analyze() vacuum_delay_point()
#define vacuum_delay_point_vacuum() vacuum_delay_point()
#endif

/*
 * 19 gave table_beginscan() a last argument of ScanOptions flags; none is
 * needed here.  Callers include access/tableam.h.
 */
#if PG_VERSION_NUM >= 190000
#define table_beginscan_plain(rel, snapshot) table_beginscan(rel, snapshot, 0, NULL, 0)
#else
#define table_beginscan_plain(rel, snapshot) table_beginscan(rel, snapshot, 0, NULL)
#endif


/*
 * Three differences the automatic prefilter (bloom_autoprefilter*.c) meets:
 *
 * 19 gave planner_hook and standard_planner a last argument, the
 * ExplainState of an EXPLAIN (NULL otherwise).
 */
#if PG_VERSION_NUM >= 190000
#define BLOOM_PLANNER_HOOK_PARAMS Query *parse, const char *query_string, \
	int cursorOptions, ParamListInfo boundParams, ExplainState *es
#define BLOOM_PLANNER_HOOK_ARGS parse, query_string, cursorOptions, boundParams, es
#else
#define BLOOM_PLANNER_HOOK_PARAMS Query *parse, const char *query_string, \
	int cursorOptions, ParamListInfo boundParams
#define BLOOM_PLANNER_HOOK_ARGS parse, query_string, cursorOptions, boundParams
#endif

/*
 * 16 marks a Var with the outer joins that can null it (varnullingrels),
 * and keeps a query's permissions apart from its range table (rteperminfos,
 * RangeTblEntry.perminfoindex); 15 keeps them in the RangeTblEntry, which a
 * copy carries along.  bloom_copy_permission_info: a copy of rte, from
 * query from, goes into query to as its last range table entry.
 */
#if PG_VERSION_NUM >= 160000
#include "parser/parse_relation.h"
#define bloom_var_forget_nulling(var) ((var)->varnullingrels = NULL)
static inline void
bloom_copy_permission_info(const Query *from, RangeTblEntry *rte, Query *to)
{
	if (rte->perminfoindex == 0)
		return;
	to->rteperminfos = lappend(to->rteperminfos,
							   copyObject(getRTEPermissionInfo(from->rteperminfos, rte)));
	rte->perminfoindex = list_length(to->rteperminfos);
}
#else
#define bloom_var_forget_nulling(var) ((void) (var))
#define bloom_copy_permission_info(from, rte, to) ((void) 0)
#endif

/*
 * 19 gave a syscache invalidation callback's cache id its own enum type.
 */
#if PG_VERSION_NUM >= 190000
#include "utils/syscache.h"
typedef SysCacheIdentifier BloomSyscacheId;
#else
typedef int BloomSyscacheId;
#endif

/*
 * 16 exported get_extension_schema(); on 15 it is read from pg_extension.
 */
#if PG_VERSION_NUM >= 160000
#include "commands/extension.h"
#define bloom_extension_schema(extension) get_extension_schema(extension)
#else
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_extension.h"
#include "utils/fmgroids.h"
static inline Oid
bloom_extension_schema(Oid extension)
{
	Relation	catalog = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	Oid			schema = InvalidOid;

	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(extension));
	scan = systable_beginscan(catalog, ExtensionOidIndexId, true, NULL, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
		schema = ((Form_pg_extension) GETSTRUCT(tuple))->extnamespace;
	systable_endscan(scan);
	table_close(catalog, AccessShareLock);
	return schema;
}
#endif

/*
 * 18 groups a query's GROUP BY expressions in a range table entry of their
 * own (RTE_GROUP): above the grouping, the target list reads them as Vars
 * of that entry.  bloom_group_expr: what such a Var stands for (expr
 * itself before 18, or when it is something else).
 */
#include "nodes/parsenodes.h"
#include "parser/parsetree.h"

static inline Node *
bloom_group_expr(Query *query, Node *expr)
{
#if PG_VERSION_NUM >= 180000
	if (expr != NULL && IsA(expr, Var) && ((Var *) expr)->varlevelsup == 0)
	{
		Var		   *var = (Var *) expr;
		RangeTblEntry *rte = rt_fetch(var->varno, query->rtable);

		if (rte->rtekind == RTE_GROUP && var->varattno >= 1 &&
			var->varattno <= list_length(rte->groupexprs))
			return (Node *) list_nth(rte->groupexprs, var->varattno - 1);
	}
#endif
	return expr;
}

/*
 * 16 replaced pg_class_ownercheck() with object_ownercheck().
 */
#include "utils/acl.h"
#if PG_VERSION_NUM >= 160000
#include "catalog/pg_class.h"
#define bloom_relation_owned(relation, role) object_ownercheck(RelationRelationId, relation, role)
#else
#define bloom_relation_owned(relation, role) pg_class_ownercheck(relation, role)
#endif

/*
 * 19 keeps the IndexAmRoutine an access method's handler returns, which
 * must therefore be static; older majors copy it and pfree the one
 * returned, which must therefore be palloc'd.
 */
#include "access/amapi.h"

static inline IndexAmRoutine *
bloom_am_routine(IndexAmRoutine *static_routine)
{
#if PG_VERSION_NUM >= 190000
	memset(static_routine, 0, sizeof(IndexAmRoutine));
	static_routine->type = T_IndexAmRoutine;
	return static_routine;
#else
	(void) static_routine;
	return makeNode(IndexAmRoutine);
#endif
}

/*
 * 18 split a TIDBitmap iteration's page from its offsets: a private
 * iterator fills a TBMIterateResult, and tbm_extract_page_tuple() gives the
 * offsets of a page that is not lossy; before, tbm_iterate() returned a
 * result holding them.  bloom_tbm_next_page: the next page of a private
 * iteration, its offsets (*ntuples -1 when the page is lossy: any offset),
 * and whether its tuples need a recheck; false at the end.
 */
#include "access/htup_details.h"
#include "nodes/tidbitmap.h"
#if PG_VERSION_NUM >= 180000
typedef TBMPrivateIterator BloomTbmIterator;
#define bloom_tbm_begin_iterate(tbm) tbm_begin_private_iterate(tbm)
#define bloom_tbm_end_iterate(iterator) tbm_end_private_iterate(iterator)
static inline bool
bloom_tbm_next_page(BloomTbmIterator *iterator, BlockNumber *block,
					OffsetNumber offsets[MaxHeapTuplesPerPage], int *ntuples, bool *recheck)
{
	TBMIterateResult result;

	if (!tbm_private_iterate(iterator, &result))
		return false;
	*block = result.blockno;
	*recheck = result.recheck;
	*ntuples = result.lossy ? -1 : tbm_extract_page_tuple(&result, offsets, MaxHeapTuplesPerPage);
	return true;
}
#else
typedef TBMIterator BloomTbmIterator;
#define bloom_tbm_begin_iterate(tbm) tbm_begin_iterate(tbm)
#define bloom_tbm_end_iterate(iterator) tbm_end_iterate(iterator)
static inline bool
bloom_tbm_next_page(BloomTbmIterator *iterator, BlockNumber *block,
					OffsetNumber offsets[MaxHeapTuplesPerPage], int *ntuples, bool *recheck)
{
	TBMIterateResult *result = tbm_iterate(iterator);

	if (result == NULL)
		return false;
	*block = result->blockno;
	*recheck = result->recheck;
	*ntuples = result->ntuples;
	if (result->ntuples > 0)
		memcpy(offsets, result->offsets, sizeof(OffsetNumber) * result->ntuples);
	return true;
}
#endif

#endif							/* BLOOM_COMPAT_H */
