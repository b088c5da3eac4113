/*
 * index/handler.c: the access method bloom_slices as PostgreSQL sees it:
 * its handler, its (absent) storage parameters, its operator class check
 * and its cost estimate.
 */
#include "postgres.h"

#include <math.h>

#include "compat.h"
#include "index/index.h"

#include "access/htup_details.h"
#include "access/reloptions.h"
#include "commands/vacuum.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_opclass.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "utils/catcache.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/spccache.h"
#include "utils/syscache.h"

/* The one strategy: f @> bloom_value(x). */
#define BLOOM_INDEX_STRATEGY_CONTAINS 1

static bytea *
bloom_index_options(Datum reloptions, bool validate)
{
	if (validate && DatumGetPointer(reloptions) != NULL)
	{
		List	   *options = untransformRelOptions(reloptions);

		if (options != NIL)
			ereport(ERROR,
					errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("bloom_slices has no storage parameters"),
					errdetail("Parameter \"%s\" was given.",
							  ((DefElem *) linitial(options))->defname));
	}
	return NULL;
}

/* An operator class of bloom_slices has operators of strategy 1 and no functions. */
static bool
bloom_index_validate(Oid opclass)
{
	HeapTuple	class_tuple = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclass));
	Form_pg_opclass class_form;
	CatCList   *operators;
	bool		valid = true;

	if (!HeapTupleIsValid(class_tuple))
		elog(ERROR, "cache lookup failed for operator class %u", opclass);
	class_form = (Form_pg_opclass) GETSTRUCT(class_tuple);
	operators = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(class_form->opcfamily));
	for (int i = 0; i < operators->n_members; i++)
	{
		Form_pg_amop amop = (Form_pg_amop) GETSTRUCT(&operators->members[i]->tuple);

		if (amop->amopstrategy != BLOOM_INDEX_STRATEGY_CONTAINS || amop->amoppurpose != AMOP_SEARCH)
		{
			ereport(INFO,
					errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					errmsg("operator family of bloom_slices contains operator %u with strategy %d",
						   amop->amopopr, amop->amopstrategy));
			valid = false;
		}
	}
	ReleaseCatCacheList(operators);
	ReleaseSysCache(class_tuple);
	return valid;
}

/*
 * The correlation that makes cost_index price a plain index scan's table
 * reads as cost_bitmap_heap_scan prices a bitmap heap scan's: the plain scan
 * returns its rows in heap order (index/scan.c), so it reads the same pages
 * in the same order.  cost_index prices pages_fetched random reads when the
 * correlation is 0 and a run of selectivity * pages sequential ones when it
 * is 1, in between by its square; a bitmap heap scan prices each of the
 * pages_fetched reads between random and sequential by how dense they are.
 */
static double
bloom_index_heap_order_correlation(PlannerInfo *root, IndexOptInfo *index, Selectivity selectivity)
{
	RelOptInfo *table = index->rel;
	double		pages = Max(table->pages, 1);
	double		tuples_fetched = clamp_row_est(selectivity * table->tuples);
	double		pages_fetched;
	double		run_pages = ceil(selectivity * pages);
	double		random_cost;
	double		seq_cost;
	double		uncorrelated;
	double		correlated;
	double		in_order;
	double		squared;

	get_tablespace_page_costs(table->reltablespace, &random_cost, &seq_cost);
	pages_fetched = Min(ceil(index_pages_fetched(tuples_fetched, table->pages, index->pages, root)),
						pages);
	uncorrelated = pages_fetched * random_cost;
	correlated = run_pages > 0 ? random_cost + Max(run_pages - 1, 0) * seq_cost : 0;
	in_order = pages_fetched *
		(pages_fetched >= 2 ? random_cost - (random_cost - seq_cost) * sqrt(pages_fetched / pages)
		 : random_cost);
	if (uncorrelated <= correlated)
		return 0;
	squared = (uncorrelated - in_order) / (uncorrelated - correlated);
	return sqrt(Min(Max(squared, 0), 1));
}

/*
 * The pages a lookup reads: k slices per group and key, a TID page per
 * group with matches, and the pending chain; the rows it returns cost as
 * index tuples.
 */
static void
bloom_index_cost_estimate(PlannerInfo *root, IndexPath *path, double loop_count,
						  Cost *startup_cost, Cost *total_cost, Selectivity *selectivity,
						  double *correlation, double *pages)
{
	IndexOptInfo *index = path->indexinfo;
	GenericCosts costs = {0};
	double		groups = 0;
	double		pending_pages = 1;
	double		keys = Max(list_length(path->indexclauses), 1);
	Relation	relation;
	double		read_pages;
	double		group_pages;
	List	   *originals = NIL;
	ListCell   *lc;
	Selectivity rows_selectivity;

	/* the metapage's counts, as GIN's estimate reads its own */
	relation = index_open(index->indexoid, AccessShareLock);
	if (RelationGetNumberOfBlocks(relation) > BLOOM_INDEX_METAPAGE)
	{
		Buffer		buffer = ReadBuffer(relation, BLOOM_INDEX_METAPAGE);
		Page		page;

		LockBuffer(buffer, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buffer);
		if (!PageIsNew(page) && BloomIndexPageMeta(page)->magic == BLOOM_INDEX_MAGIC)
		{
			groups = BloomIndexPageMeta(page)->groups;
			pending_pages = BloomIndexPageMeta(page)->pending_pages;
		}
		UnlockReleaseBuffer(buffer);
	}
	index_close(relation, AccessShareLock);

	/*
	 * The rows are the original clauses' (f @> x), whose estimator knows the
	 * column; the derived f @> bloom_value(x) has none.
	 */
	foreach(lc, path->indexclauses)
		originals = lappend(originals, ((IndexClause *) lfirst(lc))->rinfo);
	rows_selectivity = clauselist_selectivity(root, originals, index->rel->relid, JOIN_INNER, NULL);
	costs.numIndexTuples = Max(rows_selectivity * index->rel->tuples, 1.0);
	genericcostestimate(root, path, loop_count, &costs);
	costs.indexSelectivity = rows_selectivity;
	/* the pending chain is read in order; the slices, TIDs and headers at random */
	group_pages = groups * (1 + 7 * keys + Min(costs.numIndexTuples / Max(groups, 1), 1));
	read_pages = Min(1 + pending_pages + group_pages, Max(index->pages, 1));
	*pages = read_pages;
	*startup_cost = costs.indexStartupCost;
	*total_cost = costs.indexStartupCost +
		(1 + pending_pages) * seq_page_cost + group_pages * random_page_cost +
		costs.numIndexTuples * cpu_index_tuple_cost +
		(pending_pages * 8 + groups * 8 * keys) * cpu_operator_cost;
	*selectivity = costs.indexSelectivity;
	*correlation = bloom_index_heap_order_correlation(root, index, rows_selectivity);
}

PG_FUNCTION_INFO_V1(bloom_slices_handler);
Datum
bloom_slices_handler(PG_FUNCTION_ARGS)
{
	static IndexAmRoutine static_routine;
	IndexAmRoutine *routine = bloom_am_routine(&static_routine);

	routine->amstrategies = 1;
	routine->amsupport = 0;
	routine->amoptsprocnum = 0;
	routine->amcanorder = false;
	routine->amcanorderbyop = false;
	routine->amcanbackward = false;
	routine->amcanunique = false;
	routine->amcanmulticol = false;
	routine->amoptionalkey = false;
	routine->amsearcharray = false;
	routine->amsearchnulls = false;
	routine->amstorage = false;
	routine->amclusterable = false;
	routine->ampredlocks = false;
	routine->amcanparallel = false;
	routine->amcaninclude = false;
	routine->amusemaintenanceworkmem = true;
	routine->amparallelvacuumoptions = VACUUM_OPTION_NO_PARALLEL;
	routine->amkeytype = InvalidOid;

	routine->ambuild = bloom_index_build;
	routine->ambuildempty = bloom_index_build_empty;
	routine->aminsert = bloom_index_insert;
	routine->ambulkdelete = bloom_index_bulk_delete;
	routine->amvacuumcleanup = bloom_index_vacuum_cleanup;
	routine->amcanreturn = NULL;
	routine->amcostestimate = bloom_index_cost_estimate;
	routine->amoptions = bloom_index_options;
	routine->amproperty = NULL;
	routine->ambuildphasename = NULL;
	routine->amvalidate = bloom_index_validate;
	routine->amadjustmembers = NULL;
	routine->ambeginscan = bloom_index_begin_scan;
	routine->amrescan = bloom_index_rescan;
	routine->amgettuple = bloom_index_get_tuple;
	routine->amgetbitmap = bloom_index_get_bitmap;
	routine->amendscan = bloom_index_end_scan;
	routine->ammarkpos = NULL;
	routine->amrestrpos = NULL;
	routine->amestimateparallelscan = NULL;
	routine->aminitparallelscan = NULL;
	routine->amparallelrescan = NULL;

	PG_RETURN_POINTER(routine);
}
