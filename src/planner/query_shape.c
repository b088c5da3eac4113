/*
 * planner/query_shape.c: the query-shape guard, what a SELECT does besides
 * reading the rows of its FROM list and filtering them.
 */
#include "postgres.h"

#include "planner/planner.h"

/*
 * Whether query is a SELECT that does none of refused (BLOOM_SELECT_*): the
 * one place that reads a Query's clauses for the InitPlan reader
 * (planner/initplan.c) and the automatic prefilter (prefilter/joins.c),
 * each of which names what would change the rows it reads or reruns.
 */
bool
bloom_select_without(const Query *query, uint32 refused)
{
	uint32		found = 0;
	ListCell   *lc;

	if (query->commandType != CMD_SELECT || query->utilityStmt != NULL)
		return false;
	if (query->limitCount != NULL || query->limitOffset != NULL)
		found |= BLOOM_SELECT_LIMIT;
	if (query->rowMarks != NIL)
		found |= BLOOM_SELECT_LOCKING;
	if (query->hasModifyingCTE)
		found |= BLOOM_SELECT_MODIFYING_CTE;
	if (query->cteList != NIL)
		found |= BLOOM_SELECT_WITH;
	if (query->hasAggs || query->groupClause != NIL || query->groupingSets != NIL ||
		query->havingQual != NULL)
		found |= BLOOM_SELECT_GROUPING;
	if (query->hasWindowFuncs)
		found |= BLOOM_SELECT_WINDOWS;
	if (query->setOperations != NULL)
		found |= BLOOM_SELECT_SET_OPERATION;
	if (query->hasTargetSRFs)
		found |= BLOOM_SELECT_TARGET_SRFS;
	if (query->distinctClause != NIL)
		found |= BLOOM_SELECT_DISTINCT;
	if (query->sortClause != NIL)
		found |= BLOOM_SELECT_ORDER;
	if ((refused & BLOOM_SELECT_SAMPLED) != 0)
	{
		foreach(lc, query->rtable)
			if (lfirst_node(RangeTblEntry, lc)->tablesample != NULL)
				found |= BLOOM_SELECT_SAMPLED;
	}
	return (found & refused) == 0;
}
