/*
 * distributed/distributed.h: what the distributed folder gives the module:
 * the rewrite that lets Citus split the polymorphic aggregates
 * (distributed/split.c), what it asks of Citus's catalog
 * (distributed/citus.c), and the check of the set-up (distributed/setup.c).
 */
#ifndef BLOOM_DISTRIBUTED_H
#define BLOOM_DISTRIBUTED_H

#include "nodes/params.h"
#include "nodes/parsenodes.h"

/* The setting bloomfilter.split_aggregates and the planner hook (from _PG_init). */
extern void bloom_split_init(void);

/*
 * Rewrites the aggregates of parse (and of every query inside it) that
 * bloomfilter.split_aggregates asks for, with a custom plan's parameter
 * values params (or NULL); true when any was.
 */
extern bool bloom_split_query(Query *parse, ParamListInfo params);

/* ---- Citus's catalog (distributed/citus.c) ---- */

/* Whether Citus's metadata is in this database (pg_dist_partition). */
extern bool citus_metadata_present(void);

/*
 * Whether relid is a table Citus spreads over several shards (hash, range
 * or append distribution), and its distribution column (0 when it has
 * none).  Reference tables, Citus local tables and single-shard tables are
 * not: a query over them runs whole on one node.
 */
extern bool citus_table_is_sharded(Oid relid, AttrNumber *column);

/* The relcache callback that forgets what citus_table_is_sharded read (from _PG_init). */
extern void citus_catalog_init(void);

/* ---- the set-up (distributed/setup.c) ---- */

/* Remembers whether the library is loaded at server start (from _PG_init). */
extern void bloom_setup_init(void);

#endif
