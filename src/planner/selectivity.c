/*
 * planner/selectivity.c: the fraction of a column's values that pass a
 * filter, known or known by its column's statistics, for the clauses of
 * planner/clauses.c and the InitPlans of planner/initplan.c.
 *
 * Selectivity.  A row passes "filter contains value" when its value is one
 * of the n values added to the filter (a member), or when it is not and the
 * k probed bits happen to be set anyway (a false positive, probability
 * (X/m)^k for a filter with X of its m bits set).  So for a value drawn from
 * the column,
 *
 *     P(pass) = member + (1 - member) * (X/m)^k
 *
 * where member is the fraction of the column's rows whose value is in the
 * filter.  When the filter is known at plan time (a constant, a parameter of
 * a custom plan, a PL/pgSQL variable, or a stable expression, which
 * estimate_expression_value() computes), the column's statistics give it:
 *
 *   - each most-common value is hashed and tested: its frequency counts when
 *     it passes, exactly, false positive or not;
 *   - the histogram bounds are a sample of the other values: the fraction of
 *     them that pass, c/N, estimates P(pass) there, so
 *     member = (c/N - (X/m)^k) / (1 - (X/m)^k);
 *   - member cannot exceed n* / D, the filter's estimated cardinality n*
 *     (Swamidass-Baldi, less the most-common values found in it) over the
 *     number D of distinct values outside the most-common list, since at
 *     most n* of those D values, each about as frequent as another, are
 *     members; nor can it be below 0, so the rate (X/m)^k is the floor.
 *   - without a histogram (no statistics, or a type with no ordering) member
 *     is that bound, n* / D, with D the table's row count when nothing better
 *     is known: every filter value is assumed present, which is the
 *     semi-join case a prefilter is for.
 *
 * Then NULLs (stanullfrac) never pass, the functions being strict.  Values
 * are hashed with the encoder of the value argument's type, the one the
 * executor will use (statistics are of that type, or one binary-compatible
 * with it), so an int4 column probed against a filter of int8 values is
 * estimated as it will run.  The histogram is a sample of ANALYZE's sample:
 * with the default statistics target (101 bounds), a 2% selectivity is seen
 * as 2 +- 1.4 bounds; raise the column's target for a tighter estimate.
 */
#include "postgres.h"

#include "planner/planner.h"

#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

/* The fraction of the column's rows that are NULL, 0 without statistics. */
double
bloom_null_fraction(VariableStatData *vardata)
{
	if (!HeapTupleIsValid(vardata->statsTuple))
		return 0.0;
	return ((Form_pg_statistic) GETSTRUCT(vardata->statsTuple))->stanullfrac;
}

/*
 * P(value passes the filter) for a value of the column described by vardata,
 * hashed by encoder; the formula is in the comment at the top of the file.
 * encoder is NULL when the statistics must not be probed: the user may not
 * read the column, or its values cannot be hashed.
 */
static double
bloom_column_selectivity(VariableStatData *vardata, BloomEncoder *encoder,
						 const BloomPlannerFilter *filter)
{
	double		false_positive_rate = filter->false_positive_rate;
	double		cardinality = filter->cardinality;
	double		null_fraction = 0.0;
	double		mcv_pass = 0.0;		/* frequency of the MCVs that pass */
	double		mcv_total = 0.0;	/* frequency of all MCVs */
	int			mcv_count = 0;
	int			mcv_pass_count = 0;
	int			histogram_count = 0;
	int			histogram_pass_count = 0;
	double		distinct;
	double		rest_distinct;
	double		rest_fraction;
	double		rest_cardinality;
	double		member_bound;
	double		member;
	double		selectivity;
	bool		distinct_is_default;

	if (filter->fill == 0.0)
		return 0.0;				/* an empty filter contains nothing */

	null_fraction = bloom_null_fraction(vardata);
	if (encoder != NULL && HeapTupleIsValid(vardata->statsTuple))
	{
		AttStatsSlot sslot;

		if (get_attstatsslot(&sslot, vardata->statsTuple, STATISTIC_KIND_MCV,
							 InvalidOid, ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS))
		{
			for (int i = 0; i < sslot.nvalues; i++)
			{
				bf_hash		hash = bloom_encoder_hash(encoder, sslot.values[i],
															   filter->flags, NULL);

				mcv_total += sslot.numbers[i];
				if (bloom_planner_filter_contains(filter, hash))
				{
					mcv_pass += sslot.numbers[i];
					mcv_pass_count++;
				}
			}
			mcv_count = sslot.nvalues;
			free_attstatsslot(&sslot);
		}
		if (get_attstatsslot(&sslot, vardata->statsTuple, STATISTIC_KIND_HISTOGRAM,
							 InvalidOid, ATTSTATSSLOT_VALUES))
		{
			for (int i = 0; i < sslot.nvalues; i++)
			{
				bf_hash		hash = bloom_encoder_hash(encoder, sslot.values[i],
															   filter->flags, NULL);

				if (bloom_planner_filter_contains(filter, hash))
					histogram_pass_count++;
			}
			histogram_count = sslot.nvalues;
			free_attstatsslot(&sslot);
		}
	}

	/* The rows that are neither NULL nor one of the MCVs, and their values. */
	rest_fraction = 1.0 - null_fraction - mcv_total;
	CLAMP_PROBABILITY(rest_fraction);
	distinct = get_variable_numdistinct(vardata, &distinct_is_default);
	if (distinct_is_default && vardata->rel != NULL && vardata->rel->tuples > 0)
		distinct = vardata->rel->tuples;	/* no statistics: as if all distinct */
	rest_distinct = Max(distinct - mcv_count, 1.0);

	/*
	 * The filter's values not already found among the MCVs: those that
	 * passed, less the false positives expected among them.
	 */
	rest_cardinality = cardinality -
		Max(mcv_pass_count - false_positive_rate * mcv_count, 0.0);
	if (rest_cardinality < 0.0)
		rest_cardinality = 0.0;
	member_bound = Min(1.0, rest_cardinality / rest_distinct);

	if (false_positive_rate >= 1.0)
		member = 0.0;			/* saturated: everything passes anyway */
	else if (histogram_count > 0)
	{
		member = ((double) histogram_pass_count / histogram_count - false_positive_rate) /
			(1.0 - false_positive_rate);
		member = Max(0.0, Min(member, member_bound));
	}
	else
		member = member_bound;

	selectivity = mcv_pass +
		rest_fraction * (false_positive_rate + (1.0 - false_positive_rate) * member);
	CLAMP_PROBABILITY(selectivity);
	return selectivity;
}

/*
 * P(value passes a filter the planner cannot see) from the filter's
 * estimated cardinality and false-positive rate (from the statistics of the
 * bloom column it comes from): member = min(1, n* / D), with D the value
 * column's number of distinct values (its row count without statistics),
 * then the formula at the top of the file.  NULL values never pass.
 */
double
bloom_unseen_filter_selectivity(VariableStatData *value_vardata, double cardinality,
								double false_positive_rate)
{
	bool		distinct_is_default;
	double		distinct = get_variable_numdistinct(value_vardata, &distinct_is_default);
	double		member;
	double		selectivity;

	if (distinct_is_default && value_vardata->rel != NULL && value_vardata->rel->tuples > 0)
		distinct = value_vardata->rel->tuples;
	member = Min(1.0, cardinality / Max(distinct, 1.0));
	CLAMP_PROBABILITY(false_positive_rate);
	selectivity = (1.0 - bloom_null_fraction(value_vardata)) *
		(member + (1.0 - member) * false_positive_rate);
	CLAMP_PROBABILITY(selectivity);
	return selectivity;
}

/*
 * The numbers of a bloom column's statistics slot (planner/analyze.c), in
 * numbers[BLOOM_STATISTIC_NUMBERS]; false when ANALYZE kept none.
 */
bool
bloom_filter_column_statistics(VariableStatData *vardata, double *numbers)
{
	AttStatsSlot sslot;
	bool		found = false;

	if (!HeapTupleIsValid(vardata->statsTuple))
		return false;
	if (get_attstatsslot(&sslot, vardata->statsTuple, BLOOM_STATISTIC_KIND,
						 InvalidOid, ATTSTATSSLOT_NUMBERS))
	{
		if (sslot.nnumbers >= BLOOM_STATISTIC_NUMBERS)
		{
			for (int i = 0; i < BLOOM_STATISTIC_NUMBERS; i++)
				numbers[i] = sslot.numbers[i];
			found = true;
		}
		free_attstatsslot(&sslot);
	}
	return found;
}

/*
 * P(pass) for a known filter value (NULL: none), the constant case at the
 * top of the file.
 */
double
bloom_known_filter_selectivity(VariableStatData *vardata, Oid funcid, Node *value_arg,
							   BloomFilterKind kind, Datum datum, bool isnull)
{
	MemoryContext estimate_context;
	MemoryContext old_context;
	BloomPlannerFilter filter;
	Oid			value_type = exprType(value_arg);
	BloomEncoder *encoder = NULL;
	double		selectivity;

	if (isnull)
		return 0.0;				/* strict: NULL, never true */

	/*
	 * Everything the estimate allocates (a detoasted copy of the filter, the
	 * encoder, what hashing a value takes) goes with this context.
	 */
	estimate_context = AllocSetContextCreate(CurrentMemoryContext, "bloom selectivity",
											 ALLOCSET_DEFAULT_SIZES);
	old_context = MemoryContextSwitchTo(estimate_context);
	bloom_planner_filter_open(datum, kind, &filter);
	/* statistics are probed only where the user may see their values */
	if (statistic_proc_security_check(vardata, funcid) &&
		bloom_encoding_supported(value_type))
		encoder = bloom_encoder_create(value_type, estimate_context);
	selectivity = bloom_column_selectivity(vardata, encoder, &filter);
	MemoryContextSwitchTo(old_context);
	MemoryContextDelete(estimate_context);
	return selectivity;
}
