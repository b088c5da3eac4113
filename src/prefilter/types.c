/*
 * prefilter/types.c: which equalities a filter honours, for the
 * automatic prefilter.  An equality L.a = F.b may get a prefilter only when
 * every pair of equal values hashes alike: its operator is a hash- or
 * merge-joinable equality, its collation (for text) is deterministic, and
 * the two types, under the casts that lose nothing, hash alike.  Which
 * types hash alike is the encoder's to say (bloom_encoding_group,
 * bloom_types_hash_alike in encoding/encoding.c); this file only asks.
 */
#include "postgres.h"

#include "prefilter/prefilter.h"

#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"

/*
 * The expression under the casts that lose nothing: binary-compatible
 * relabelling, and implicit casts within one group of types (int4 to
 * numeric, varchar to text, date to timestamp, ...), whose equal values a
 * filter hashes alike.
 */
Expr *
prefilter_strip_casts(Expr *expr)
{
	for (;;)
	{
		if (IsA(expr, RelabelType))
			expr = ((RelabelType *) expr)->arg;
		else if (IsA(expr, FuncExpr) &&
				 ((FuncExpr *) expr)->funcformat == COERCE_IMPLICIT_CAST &&
				 list_length(((FuncExpr *) expr)->args) == 1)
		{
			Expr	   *arg = linitial(((FuncExpr *) expr)->args);
			Oid			arg_type = exprType((Node *) arg);

			if (bloom_encoding_group(arg_type) == BLOOM_GROUP_SELF ||
				!bloom_types_hash_alike(arg_type, ((FuncExpr *) expr)->funcresulttype))
				return expr;
			expr = arg;
		}
		else
			return expr;
	}
}

/* Whether opno, between these two expressions, is an equality a filter honours. */
bool
prefilter_equality(Oid opno, Oid collation, Node *left, Node *right)
{
	if (!op_hashjoinable(opno, exprType(left)) && get_mergejoin_opfamilies(opno) == NIL)
		return false;
	if (!bloom_types_hash_alike(exprType((Node *) prefilter_strip_casts((Expr *) left)),
								exprType((Node *) prefilter_strip_casts((Expr *) right))))
		return false;
	if (OidIsValid(collation) && !get_collation_isdeterministic(collation))
		return false;
	return true;
}
