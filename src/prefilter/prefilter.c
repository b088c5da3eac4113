/*
 * prefilter/prefilter.c: bloomfilter.auto_prefilter, semi-join prefilters
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
 *     as many; F never analyzed (no rows to compare with), the local
 *     side's keys at most auto_prefilter_unanalyzed_max_keys.  Without
 *     statistics of the local side, no prefilter.  A DEBUG1 line says why
 *     not.
 * Anything else leaves the Query untouched, so the plan is the one the
 * setting off gives.
 *
 * This file has the hook and its settings; prefilter/prefilter.h names the
 * files of the other jobs (the catalog and the estimates, the equalities a
 * filter honours, recognising joins, building the qual).
 */
#include "postgres.h"

#include "prefilter/prefilter.h"

#include "miscadmin.h"
#include "optimizer/planner.h"
#include "utils/guc.h"

/*
 * bloomfilter.auto_prefilter, registered by bloom_auto_prefilter_init with
 * the other settings, which are defined where they are read
 * (prefilter/catalog.c, prefilter/build.c).
 */
static bool auto_prefilter = false;

static planner_hook_type prev_planner_hook = NULL;

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

static PlannedStmt *
bloom_auto_prefilter_planner(BLOOM_PLANNER_HOOK_PARAMS)
{
	if (auto_prefilter && !IsBinaryUpgrade && parse->commandType == CMD_SELECT)
	{
		prefilter_query(prefilter_catalog(), parse, 0);
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
							NULL, &prefilter_max_keys, 1000000, 1, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("bloomfilter.auto_prefilter_unanalyzed_max_keys",
							"The most distinct local keys (estimated) an automatic prefilter is built for when the foreign table has no statistics.",
							"A foreign table nobody analyzed has no row estimate to compare with; a filter of this many keys is cheap whatever the foreign table's size.",
							&prefilter_unanalyzed_max_keys, 10000, 0, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("bloomfilter.auto_prefilter_min_ratio",
							 "How many times more rows than local keys the foreign table must have (estimated) for an automatic prefilter.",
							 NULL, &prefilter_min_ratio, 10.0, 0.0, 1e12,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("bloomfilter.auto_prefilter_rate",
							 "The false-positive rate of automatic prefilters.",
							 NULL, &prefilter_rate, 0.01, 1e-9, 0.5,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("bloomfilter");

	prefilter_catalog_init();
	prev_planner_hook = planner_hook;
	planner_hook = bloom_auto_prefilter_planner;
}
