/*
 * distributed/citus.c: which tables Citus spreads over shards, read from
 * its catalog pg_dist_partition without linking to Citus.
 *
 * A row of pg_dist_partition names a table (logicalrelid), how it is
 * distributed (partmethod: 'h' hash, 'r' range, 'a' append, 'n' none for
 * reference, Citus local and single-shard tables) and its distribution
 * column (partkey, the Var node in PostgreSQL's text form).  What was read
 * is kept per table for the session and forgotten when the table's
 * relcache entry is invalidated, which Citus does whenever it changes the
 * table's metadata (create_distributed_table, undistribute_table, ...).
 */
#include "postgres.h"

#include "distributed/distributed.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

typedef struct CitusTableEntry
{
	Oid			relid;			/* the hash key */
	bool		sharded;
	AttrNumber	column;
} CitusTableEntry;

static HTAB *citus_tables = NULL;

bool
citus_metadata_present(void)
{
	return OidIsValid(get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE));
}

/* The distribution column of a partkey text (a Var), 0 when there is none. */
static AttrNumber
citus_partkey_column(text *partkey)
{
	char	   *string = text_to_cstring(partkey);
	Node	   *node = stringToNode(string);

	if (node != NULL && IsA(node, Var))
		return ((Var *) node)->varattno;
	return 0;
}

/* Reads relid's row of pg_dist_partition into entry (not sharded when there is none). */
static void
citus_read_table(Oid relid, CitusTableEntry *entry)
{
	Oid			catalog = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
	Relation	rel;
	TupleDesc	desc;
	AttrNumber	relid_attnum = InvalidAttrNumber;
	AttrNumber	method_attnum = InvalidAttrNumber;
	AttrNumber	key_attnum = InvalidAttrNumber;
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tuple;

	entry->sharded = false;
	entry->column = 0;
	if (!OidIsValid(catalog))
		return;
	rel = table_open(catalog, AccessShareLock);
	desc = RelationGetDescr(rel);
	for (int i = 0; i < desc->natts; i++)
	{
		const char *name = NameStr(TupleDescAttr(desc, i)->attname);

		if (strcmp(name, "logicalrelid") == 0)
			relid_attnum = i + 1;
		else if (strcmp(name, "partmethod") == 0)
			method_attnum = i + 1;
		else if (strcmp(name, "partkey") == 0)
			key_attnum = i + 1;
	}
	if (relid_attnum == InvalidAttrNumber || method_attnum == InvalidAttrNumber)
	{
		table_close(rel, AccessShareLock);
		return;
	}
	ScanKeyInit(&key, relid_attnum, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
	{
		/*
		 * heap_deform_tuple, not heap_getattr: from 15.20 on heap_getattr is
		 * an inline that calls a function older minor releases lack, and
		 * the library must load into them too.
		 */
		Datum	   *values = palloc(desc->natts * sizeof(Datum));
		bool	   *nulls = palloc(desc->natts * sizeof(bool));

		heap_deform_tuple(tuple, desc, values, nulls);
		if (!nulls[method_attnum - 1])
		{
			char		m = DatumGetChar(values[method_attnum - 1]);

			entry->sharded = (m == 'h' || m == 'r' || m == 'a');
		}
		if (entry->sharded && key_attnum != InvalidAttrNumber && !nulls[key_attnum - 1])
			entry->column = citus_partkey_column(DatumGetTextPP(values[key_attnum - 1]));
		pfree(values);
		pfree(nulls);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
}

bool
citus_table_is_sharded(Oid relid, AttrNumber *column)
{
	CitusTableEntry *entry;
	bool		found;

	if (citus_tables == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(CitusTableEntry);
		citus_tables = hash_create("bloomfilter Citus tables", 64, &ctl,
								   HASH_ELEM | HASH_BLOBS);
	}
	entry = hash_search(citus_tables, &relid, HASH_FIND, &found);
	if (!found)
	{
		CitusTableEntry read;

		/* read first: an error on the way leaves no entry behind */
		read.relid = relid;
		citus_read_table(relid, &read);
		entry = hash_search(citus_tables, &relid, HASH_ENTER, NULL);
		*entry = read;
	}
	*column = entry->column;
	return entry->sharded;
}

static void
citus_tables_invalidate(Datum arg, Oid relid)
{
	if (citus_tables == NULL)
		return;
	if (OidIsValid(relid))
		hash_search(citus_tables, &relid, HASH_REMOVE, NULL);
	else
	{
		hash_destroy(citus_tables);
		citus_tables = NULL;
	}
}

void
citus_catalog_init(void)
{
	CacheRegisterRelcacheCallback(citus_tables_invalidate, (Datum) 0);
}
