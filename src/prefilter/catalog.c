/*
 * prefilter/catalog.c: what the automatic prefilter reads from the
 * catalogs: the extension's objects the added qual calls and the foreign
 * servers that ship the filter (cached for the session), the estimates of
 * both sides, and whether a prefilter pays.
 *
 * The estimates are the planner's own inputs, read without planning: a
 * relation's rows are pg_class.reltuples (set by VACUUM and ANALYZE, and by
 * ANALYZE on a foreign table), summed over the leaves of a partitioned one;
 * a key column's distinct values come from pg_statistic.  A prefilter pays
 * when the local side's distinct keys are at most
 * bloomfilter.auto_prefilter_max_keys and the foreign side has at least
 * bloomfilter.auto_prefilter_min_ratio times as many rows.  A foreign table
 * nobody analyzed has no estimate (reltuples -1): it gets a prefilter when
 * the local side's keys are at most
 * bloomfilter.auto_prefilter_unanalyzed_max_keys, a filter cheap enough to
 * build and ship whatever the remote's size (doc/auto-prefilter.md has the
 * measurements).  Without an estimate of the local side, no prefilter.
 * Every "no" is told at DEBUG1, with the reason.
 */
#include "postgres.h"

#include "prefilter/prefilter.h"
#include "extension/extension.h"

#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "foreign/foreign.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

/* Whether a prefilter pays: the settings (prefilter/prefilter.c registers them). */
int			prefilter_max_keys = 1000000;
int			prefilter_unanalyzed_max_keys = 10000;
double		prefilter_min_ratio = 10.0;

static PrefilterCatalog prefilter_cache;

PrefilterCatalog *
prefilter_catalog(void)
{
	return &prefilter_cache;
}

bool
prefilter_catalog_available(PrefilterCatalog *cat)
{
	Oid			namespace;
	Oid			agg_args[2] = {ANYELEMENTOID, FLOAT8OID};
	Oid			contains_args[2];
	Oid			marker_args[1];

	if (cat->looked_up)
		return cat->available;
	cat->looked_up = true;
	namespace = bloom_own_schema();
	if (!OidIsValid(namespace))
		return false;
	cat->bloom_type = bloom_own_type(namespace, "bloom");
	if (!OidIsValid(cat->bloom_type))
		return false;
	contains_args[0] = cat->bloom_type;
	contains_args[1] = ANYELEMENTOID;
	marker_args[0] = cat->bloom_type;
	cat->agg = bloom_own_function(namespace, "bloom_agg", 2, agg_args);
	cat->contains = bloom_own_function(namespace, "bloom_contains", 2, contains_args);
	cat->marker = bloom_own_function(namespace, "bloom_auto_prefilter", 1, marker_args);
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
 * one, or PREFILTER_UNKNOWN if some part has no estimate.  With
 * foreign_only, PREFILTER_NOT_FOREIGN unless every leaf is a foreign table
 * whose server ships the filter.
 */
static double
prefilter_relation_rows(PrefilterCatalog *cat, Oid relid, char relkind, bool foreign_only)
{
	List	   *members;
	ListCell   *lc;
	double		rows = 0;

	if (relkind != RELKIND_PARTITIONED_TABLE)
	{
		if (!foreign_only)
			return prefilter_reltuples(relid);
		if (relkind != RELKIND_FOREIGN_TABLE)
			return PREFILTER_NOT_FOREIGN;
		if (!prefilter_server_ships(cat, GetForeignTable(relid)->serverid))
		{
			ereport(DEBUG1,
					errmsg("no automatic prefilter for foreign table \"%s\": its server does not list bloomfilter in its extensions option",
						   get_rel_name(relid)));
			return PREFILTER_NOT_FOREIGN;
		}
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
		if (part == PREFILTER_NOT_FOREIGN)
			return part;
		if (part < 0 || rows < 0)
			rows = PREFILTER_UNKNOWN;	/* but a later leaf may not qualify */
		else
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

/*
 * The distinct keys of a local table's column: its distinct values, or its
 * rows for an expression or without statistics.
 */
double
prefilter_local_keys(PrefilterCatalog *cat, const RangeTblEntry *rte, AttrNumber attnum)
{
	double		rows = prefilter_relation_rows(cat, rte->relid, rte->relkind, false);

	if (rows < 0)
		return PREFILTER_UNKNOWN;
	return prefilter_distinct(rte, attnum, rows);
}

double
prefilter_foreign_rows(PrefilterCatalog *cat, const RangeTblEntry *rte)
{
	return prefilter_relation_rows(cat, rte->relid, rte->relkind, true);
}

void
prefilter_estimate_keys(PrefilterCatalog *cat, PrefilterSource *source)
{
	RangeTblEntry *rte = rt_fetch(source->rti, source->query->rtable);
	Expr	   *key = prefilter_strip_casts(source->key);

	source->keys = prefilter_local_keys(cat, rte, IsA(key, Var) ? ((Var *) key)->varattno : 0);
}

/*
 * Decide by the rule of the file's header comment, saying at DEBUG1 why not
 * when the answer is no, so that a user can find out.
 */
bool
prefilter_pays(double keys, double remote_rows, Oid foreign_relid)
{
	if (keys < 0)
		ereport(DEBUG1,
				errmsg("no automatic prefilter for foreign table \"%s\": the local side's keys have no estimate",
					   get_rel_name(foreign_relid)),
				errhint("ANALYZE the local table."));
	else if (keys > prefilter_max_keys)
		ereport(DEBUG1,
				errmsg("no automatic prefilter for foreign table \"%s\": %.0f local keys estimated, more than bloomfilter.auto_prefilter_max_keys (%d)",
					   get_rel_name(foreign_relid), keys, prefilter_max_keys));
	else if (remote_rows < 0 && keys > prefilter_unanalyzed_max_keys)
		ereport(DEBUG1,
				errmsg("no automatic prefilter for foreign table \"%s\": it has no statistics and %.0f local keys estimated are more than bloomfilter.auto_prefilter_unanalyzed_max_keys (%d)",
					   get_rel_name(foreign_relid), keys, prefilter_unanalyzed_max_keys),
				errhint("ANALYZE the foreign table, so that its rows can be compared with the local keys."));
	else if (remote_rows >= 0 && remote_rows < prefilter_min_ratio * Max(keys, 1))
		ereport(DEBUG1,
				errmsg("no automatic prefilter for foreign table \"%s\": %.0f rows estimated, fewer than bloomfilter.auto_prefilter_min_ratio (%g) times the %.0f local keys estimated",
					   get_rel_name(foreign_relid), remote_rows, prefilter_min_ratio, keys));
	else
		return true;
	return false;
}

/* Clear the cache on a change to the objects it holds (registered by _PG_init). */
void
prefilter_catalog_init(void)
{
	CacheRegisterSyscacheCallback(PROCOID, prefilter_cache_reset, (Datum) 0);
	CacheRegisterSyscacheCallback(TYPEOID, prefilter_cache_reset, (Datum) 0);
	CacheRegisterSyscacheCallback(FOREIGNSERVEROID, prefilter_cache_reset, (Datum) 0);
	CacheRegisterSyscacheCallback(FOREIGNDATAWRAPPEROID, prefilter_cache_reset, (Datum) 0);
}
