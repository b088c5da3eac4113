/*
 * planner/analyze.c: statistics of bloom, counting_bloom and scalable_bloom
 * columns, for the planner's estimate of a filter it cannot see
 * (planner/initplan.c, planner/selectivity.c): an InitPlan's filter, or a join
 * to a table of filters.  Each filter is read as the estimates read it
 * (planner/stored_filter.c).
 *
 * ANALYZE first gathers what it gathers for any type with an equality
 * operator (NULL fraction, width, distinct values and the most common
 * values; std_typanalyze), then reads the sampled filters one at a time and
 * keeps, in a slot of its own (BLOOM_STATISTIC_KIND, types/types.h), the mean
 * and median estimated cardinality n* (Swamidass-Baldi), the mean current
 * false-positive rate, fill ratio and k.  Each filter is detoasted into a
 * context reset after it, so memory holds one filter at a time; when the
 * sample's filters add up to more than BLOOM_ANALYZE_MAX_BYTES, an evenly
 * spaced subset of them is read.  A damaged value is skipped (counted as
 * NULL by the standard statistics).
 */
#include "postgres.h"

#include "planner/planner.h"

#include <math.h>

#include "access/detoast.h"
#include "commands/vacuum.h"
#include "utils/memutils.h"

/* analyze.c's limit: wider values are counted but not compared */
#define WIDTH_THRESHOLD 1024

/* At most this many bytes of filters are read per column and ANALYZE. */
#define BLOOM_ANALYZE_MAX_BYTES ((double) (256 * 1024 * 1024))

/* What the standard compute function needs, kept while ours runs. */
typedef struct BloomAnalyzeData
{
	AnalyzeAttrComputeStatsFunc std_compute_stats;
	void	   *std_extra_data;
	BloomFilterKind kind;
} BloomAnalyzeData;

static int
bloom_compare_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

/* Add the bloom slot to stats from the sampled rows' filters. */
static void
bloom_compute_filter_stats(VacAttrStats *stats, BloomFilterKind kind,
						   AnalyzeAttrFetchFunc fetchfunc, int samplerows)
{
	double		total_bytes = 0.0;
	int			nonnull_count = 0;
	int			stride;
	int			seen = 0;
	int			filter_count = 0;
	double	   *cardinalities;
	double		sum_cardinality = 0.0;
	double		sum_fpr = 0.0;
	double		sum_fill = 0.0;
	double		sum_k = 0.0;
	MemoryContext filter_context;
	MemoryContext old_context;
	int			slot;
	float4	   *numbers;

	for (slot = 0; slot < STATISTIC_NUM_SLOTS; slot++)
		if (stats->stakind[slot] == 0)
			break;
	if (slot == STATISTIC_NUM_SLOTS)
		return;

	/* the sizes, without fetching or decompressing a value */
	for (int i = 0; i < samplerows; i++)
	{
		bool		isnull;
		Datum		value = fetchfunc(stats, i, &isnull);

		if (isnull)
			continue;
		nonnull_count++;
		total_bytes += (double) toast_raw_datum_size(value);
	}
	if (nonnull_count == 0)
		return;
	stride = (int) ceil(total_bytes / BLOOM_ANALYZE_MAX_BYTES);
	stride = Max(stride, 1);

	cardinalities = palloc(sizeof(double) * (nonnull_count / stride + 1));
	filter_context = AllocSetContextCreate(CurrentMemoryContext, "bloom analyze",
										   ALLOCSET_DEFAULT_SIZES);
	for (int i = 0; i < samplerows; i++)
	{
		bool		isnull;
		Datum		value = fetchfunc(stats, i, &isnull);
		BloomPlannerFilter filter;
		double		cardinality;

		if (isnull)
			continue;
		if (seen++ % stride != 0)
			continue;
		vacuum_delay_point_analyze();

		old_context = MemoryContextSwitchTo(filter_context);
		if (bloom_planner_filter_read(value, kind, &filter) == BF_OK)
		{
			/* a saturated filter (n* infinite) counts as m values */
			cardinality = Min(filter.cardinality, filter.m);
			cardinalities[filter_count++] = cardinality;
			sum_cardinality += cardinality;
			sum_fpr += filter.false_positive_rate;
			sum_fill += filter.fill;
			sum_k += filter.k;
		}
		MemoryContextSwitchTo(old_context);
		MemoryContextReset(filter_context);
	}
	MemoryContextDelete(filter_context);

	if (filter_count > 0)
	{
		qsort(cardinalities, filter_count, sizeof(double), bloom_compare_double);
		numbers = MemoryContextAlloc(stats->anl_context,
									 sizeof(float4) * BLOOM_STATISTIC_NUMBERS);
		numbers[BLOOM_STATISTIC_MEAN_CARDINALITY] = sum_cardinality / filter_count;
		numbers[BLOOM_STATISTIC_MEDIAN_CARDINALITY] = filter_count % 2 == 1 ?
			cardinalities[filter_count / 2] :
			(cardinalities[filter_count / 2 - 1] + cardinalities[filter_count / 2]) / 2;
		numbers[BLOOM_STATISTIC_MEAN_FPR] = sum_fpr / filter_count;
		numbers[BLOOM_STATISTIC_MEAN_FILL] = sum_fill / filter_count;
		numbers[BLOOM_STATISTIC_MEAN_K] = sum_k / filter_count;
		numbers[BLOOM_STATISTIC_FILTERS] = filter_count;
		stats->stakind[slot] = BLOOM_STATISTIC_KIND;
		stats->staop[slot] = InvalidOid;
		stats->stacoll[slot] = InvalidOid;
		stats->stanumbers[slot] = numbers;
		stats->numnumbers[slot] = BLOOM_STATISTIC_NUMBERS;
		stats->numvalues[slot] = 0;
		stats->stavalues[slot] = NULL;
		stats->stats_valid = true;
	}
	pfree(cardinalities);
}

/*
 * The fetch function the standard compute function is given while it runs:
 * ANALYZE handles one column at a time, so one is enough.
 */
static AnalyzeAttrFetchFunc bloom_analyze_std_fetchfunc;
static BloomFilterKind bloom_analyze_kind;

/*
 * The sampled value, or NULL for a damaged one.  The standard compute
 * function compares the values of at most WIDTH_THRESHOLD bytes with
 * the type's =, which raises an ERROR for a damaged value and would stop every
 * ANALYZE of the table; those are checked here (they are small: the check
 * costs little), the larger ones it never reads.
 */
static Datum
bloom_analyze_fetch_valid(VacAttrStatsP stats, int rownum, bool *isNull)
{
	Datum		value = bloom_analyze_std_fetchfunc(stats, rownum, isNull);
	BloomPlannerFilter filter;

	if (!*isNull && toast_raw_datum_size(value) <= WIDTH_THRESHOLD &&
		bloom_planner_filter_read(value, bloom_analyze_kind, &filter) != BF_OK)
		*isNull = true;
	return value;
}

static void
bloom_compute_stats(VacAttrStats *stats, AnalyzeAttrFetchFunc fetchfunc,
					int samplerows, double totalrows)
{
	BloomAnalyzeData *data = (BloomAnalyzeData *) stats->extra_data;

	stats->extra_data = data->std_extra_data;
	bloom_analyze_std_fetchfunc = fetchfunc;
	bloom_analyze_kind = data->kind;
	data->std_compute_stats(stats, bloom_analyze_fetch_valid, samplerows, totalrows);
	bloom_analyze_std_fetchfunc = NULL;
	stats->extra_data = data;
	bloom_compute_filter_stats(stats, data->kind, fetchfunc, samplerows);
}

/*
 * The typanalyze function of bloom, counting_bloom and scalable_bloom
 * (ALTER TYPE ... SET (ANALYZE = ...)).
 */
PG_FUNCTION_INFO_V1(bloom_typanalyze);
Datum
bloom_typanalyze(PG_FUNCTION_ARGS)
{
	VacAttrStats *stats = (VacAttrStats *) PG_GETARG_POINTER(0);
	BloomFilterKind kind = bloom_filter_kind(stats->attrtypid);
	BloomAnalyzeData *data;

	/* another type's values must not be read as filters */
	if (kind == BLOOM_KIND_NONE || !std_typanalyze(stats))
		PG_RETURN_BOOL(false);
	data = palloc(sizeof(BloomAnalyzeData));
	data->kind = kind;
	data->std_compute_stats = stats->compute_stats;
	data->std_extra_data = stats->extra_data;
	stats->compute_stats = bloom_compute_stats;
	stats->extra_data = data;
	PG_RETURN_BOOL(true);
}
