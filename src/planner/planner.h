/*
 * planner/planner.h: what the planner files share, and the prefilter
 * (prefilter/) uses.  From the bottom up: planner/stored_filter.c, a filter
 * of any type as the estimates and ANALYZE read it; planner/query_shape.c,
 * the query-shape guard; planner/selectivity.c, the estimate for a filter;
 * planner/initplan.c, filters that come from an InitPlan;
 * planner/clauses.c, the estimates of clauses; planner/support.c, the
 * support function and costs.  planner/analyze.c gathers the statistics
 * they read.  Its declarations bring the planner's nodes and selfuncs.h,
 * which those files use too; each includes the rest of what it uses itself.
 */
#ifndef BLOOM_SUPPORT_H
#define BLOOM_SUPPORT_H

#include "types/types.h"

#include "nodes/pathnodes.h"
#include "nodes/primnodes.h"
#include "utils/selfuncs.h"

/* PostgreSQL's estimate for a boolean function it knows nothing about. */
#define BLOOM_DEFAULT_SELECTIVITY (1.0 / 3.0)
/* a column's filters' false-positive rate before ANALYZE says: the usual p */
#define BLOOM_UNANALYZED_FPR 0.01

/*
 * Which argument of funcid is the value: the one declared anyelement.  -1
 * if the function is not of that shape.
 */
extern int	bloom_value_argno(Oid funcid);

/* The filter types whose membership tests the planner estimates. */
typedef enum BloomFilterKind
{
	BLOOM_KIND_NONE,			/* not a filter type */
	BLOOM_KIND_BLOOM,
	BLOOM_KIND_COUNTING,
	BLOOM_KIND_SCALABLE
} BloomFilterKind;

/* Which filter type typid (or the type of a domain over it) is. */
extern BloomFilterKind bloom_filter_kind(Oid typid);

/*
 * A filter of any kind as the estimates read it (planner/stored_filter.c):
 * what it passes (bloom_planner_filter_contains), its current
 * false-positive rate and estimated cardinality n* (+Infinity when a
 * stage is saturated), its m and fill X/m (over all of a scalable filter's
 * stages), k (their mean), and the flags its values were hashed with.
 */
typedef struct BloomPlannerFilter
{
	BloomFilterKind kind;
	BloomView	bloom;			/* bloom, or the bits of a counting filter */
	struct ScalableArg *scalable;	/* scalable_bloom */
	uint8		flags;
	double		false_positive_rate;
	double		cardinality;
	double		m;
	double		fill;
	double		k;
} BloomPlannerFilter;

/*
 * Read datum, a filter of kind in any varlena form; what it allocates
 * (a detoasted copy, a counting filter's bits) is in CurrentMemoryContext.
 * The filter is valid only when BF_OK is returned: a damaged value gets
 * its validator's status.
 */
extern bf_status bloom_planner_filter_read(Datum datum, BloomFilterKind kind,
										   BloomPlannerFilter *filter);

/* The same, with the type's ERROR XX001 for a damaged value. */
extern void bloom_planner_filter_open(Datum datum, BloomFilterKind kind,
									  BloomPlannerFilter *filter);

/* Whether the filter passes a value of this hash. */
extern bool bloom_planner_filter_contains(const BloomPlannerFilter *filter, bf_hash hash);

/* The fraction of the column's rows that are NULL. */
extern double bloom_null_fraction(VariableStatData *vardata);

/* P(pass) for a known filter value (isnull: none). */
extern double bloom_known_filter_selectivity(VariableStatData *vardata, Oid funcid,
											 Node *value_arg, BloomFilterKind kind,
											 Datum filter, bool isnull);

/* P(pass) for a filter known only by its estimated cardinality and rate. */
extern double bloom_unseen_filter_selectivity(VariableStatData *value_vardata,
											  double cardinality, double false_positive_rate);

/*
 * The numbers of a bloom column's statistics slot (planner/analyze.c), in
 * numbers[BLOOM_STATISTIC_NUMBERS]; false when ANALYZE kept none.
 */
extern bool bloom_filter_column_statistics(VariableStatData *vardata, double *numbers);

/* P(pass) for the filter an InitPlan sets in param; -1 when nothing is known. */
extern double bloom_initplan_selectivity(PlannerInfo *root, VariableStatData *vardata,
										 Oid funcid, Node *value_arg, Param *param);

/* The selectivity of a restriction clause funcid(args). */
extern double bloom_restriction_selectivity(PlannerInfo *root, Oid funcid, List *args,
											int varRelid);

/* The selectivity of a join clause funcid(args); -1 when not estimable. */
extern double bloom_join_selectivity(PlannerInfo *root, Oid funcid, List *args,
									 JoinType jointype);

/*
 * What a SELECT may do besides reading the rows of its FROM list and
 * filtering them.  A caller that reads or reruns a query's rows names the
 * ones it cannot allow (bloom_select_without).
 */
#define BLOOM_SELECT_LIMIT			(1 << 0)	/* LIMIT or OFFSET */
#define BLOOM_SELECT_LOCKING		(1 << 1)	/* FOR UPDATE, FOR SHARE, ... */
#define BLOOM_SELECT_MODIFYING_CTE	(1 << 2)	/* a WITH that writes */
#define BLOOM_SELECT_WITH			(1 << 3)	/* any WITH */
#define BLOOM_SELECT_GROUPING		(1 << 4)	/* aggregates, GROUP BY, grouping sets, HAVING */
#define BLOOM_SELECT_WINDOWS		(1 << 5)	/* window functions */
#define BLOOM_SELECT_SET_OPERATION	(1 << 6)	/* UNION, INTERSECT, EXCEPT */
#define BLOOM_SELECT_TARGET_SRFS	(1 << 7)	/* set-returning functions in the output */
#define BLOOM_SELECT_DISTINCT		(1 << 8)	/* DISTINCT, DISTINCT ON */
#define BLOOM_SELECT_ORDER			(1 << 9)	/* ORDER BY */
#define BLOOM_SELECT_SAMPLED		(1 << 10)	/* TABLESAMPLE in its range table */

/* Whether query is a SELECT that does none of what refused names. */
extern bool bloom_select_without(const Query *query, uint32 refused);

#endif							/* BLOOM_SUPPORT_H */
