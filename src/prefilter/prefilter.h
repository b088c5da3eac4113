/*
 * prefilter/prefilter.h: what the files of the automatic prefilter share,
 * and no other file uses.
 *
 *   prefilter/prefilter.c          the hook, its settings, and why the
 *                                  result cannot change
 *   prefilter/catalog.c  the extension's objects and the foreign
 *                                  servers (cached), the estimates, and
 *                                  whether a prefilter pays
 *   prefilter/types.c    which equalities a filter honours
 *   prefilter/joins.c    recognising joins: the walk over the
 *                                  query, join clauses, IN and EXISTS
 *   prefilter/build.c    building the sub-select and the qual
 */
#ifndef BLOOM_AUTOPREFILTER_H
#define BLOOM_AUTOPREFILTER_H

#include "planner/planner.h"

#include "nodes/parsenodes.h"

/*
 * bloomfilter.auto_prefilter and its settings, and the planner hook that
 * adds the prefilters (prefilter/prefilter.c); called by _PG_init.
 */
extern void bloom_auto_prefilter_init(void);

/*
 * The settings, registered by prefilter/prefilter.c and defined where they
 * are read: the first three in prefilter/catalog.c, the rate in
 * prefilter/build.c.
 */
extern int	prefilter_max_keys;
extern int	prefilter_unanalyzed_max_keys;
extern double prefilter_min_ratio;
extern double prefilter_rate;

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

/* ---- the catalog and the estimates (prefilter/catalog.c) ---- */

/* The session's catalog cache, and its invalidation callbacks (from _PG_init). */
extern PrefilterCatalog *prefilter_catalog(void);
extern void prefilter_catalog_init(void);

/* Whether the extension (at 1.2 or later) is installed in this database. */
extern bool prefilter_catalog_available(PrefilterCatalog *cat);

/* What an estimate is when there is none, or when the table cannot have a prefilter. */
#define PREFILTER_UNKNOWN (-1.0)
#define PREFILTER_NOT_FOREIGN (-2.0)

/*
 * The estimated rows of a foreign table, or of a partitioned table all of
 * whose leaves are foreign: PREFILTER_UNKNOWN when some part has no estimate
 * (never analyzed), PREFILTER_NOT_FOREIGN when some part is not a foreign
 * table of a server that ships the filter.
 */
extern double prefilter_foreign_rows(PrefilterCatalog *cat, const RangeTblEntry *rte);

/*
 * The estimated distinct values of column attnum of a local table (0: of an
 * expression over it, taken as its rows), or PREFILTER_UNKNOWN.
 */
extern double prefilter_local_keys(PrefilterCatalog *cat, const RangeTblEntry *rte,
								   AttrNumber attnum);

/* Estimate the local side's distinct keys (source->keys), maybe PREFILTER_UNKNOWN. */
extern void prefilter_estimate_keys(PrefilterCatalog *cat, PrefilterSource *source);

/*
 * Whether a filter of that many local keys pays against remote_rows rows
 * (maybe PREFILTER_UNKNOWN) of foreign_relid; says why not at DEBUG1.
 */
extern bool prefilter_pays(double keys, double remote_rows, Oid foreign_relid);

/* ---- which equalities a filter honours (prefilter/types.c) ---- */

/* The expression under the casts that lose nothing. */
extern Expr *prefilter_strip_casts(Expr *expr);

/* Whether opno, between these two expressions, is an equality a filter honours. */
extern bool prefilter_equality(Oid opno, Oid collation, Node *left, Node *right);

/* ---- recognising joins (prefilter/joins.c) ---- */

/* Add prefilters to a SELECT and to the SELECTs in its FROM and WITH. */
extern void prefilter_query(PrefilterCatalog *cat, Query *query, int depth);

/* ---- building the qual (prefilter/build.c) ---- */

/* bloom_contains(<the filter>, foreign_key), if it should pay; else NULL. */
extern Node *prefilter_qual(PrefilterCatalog *cat, PrefilterSource *source,
							Var *foreign_key, Oid foreign_relid, double remote_rows);

#endif							/* BLOOM_AUTOPREFILTER_H */
