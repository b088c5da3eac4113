/*
 * bloom_autoprefilter_types.c: which equalities a filter honours, for the
 * automatic prefilter.  An equality L.a = F.b may get a prefilter only when
 * every pair of equal values hashes alike: its operator is a hash- or
 * merge-joinable equality, its collation (for text) is deterministic, and
 * the two types, under the casts that lose nothing, are in one group of
 * types whose equal values a filter hashes alike.
 */
#include "postgres.h"

#include "bloom_autoprefilter.h"

#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"

/* The groups of types whose equal values a filter hashes alike. */
typedef enum PrefilterTypeGroup
{
	GROUP_NONE,
	GROUP_INTEGER,				/* int2, int4, int8, numeric */
	GROUP_FLOAT,				/* float4, float8 */
	GROUP_TEXT,					/* text, varchar, bpchar, name */
	GROUP_DATE,					/* date, timestamp */
	GROUP_SELF					/* the type alone */
} PrefilterTypeGroup;

static PrefilterTypeGroup
prefilter_type_group(Oid type)
{
	switch (getBaseType(type))
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case NUMERICOID:
			return GROUP_INTEGER;
		case FLOAT4OID:
		case FLOAT8OID:
			return GROUP_FLOAT;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case NAMEOID:
			return GROUP_TEXT;
		case DATEOID:
		case TIMESTAMPOID:
			return GROUP_DATE;
		case TIMESTAMPTZOID:
		case UUIDOID:
		case BYTEAOID:
		case BOOLOID:
		case OIDOID:
		case TIMEOID:
		case CHAROID:
		case MACADDROID:
		case INETOID:
			return GROUP_SELF;
		default:
			return type_is_enum(getBaseType(type)) ? GROUP_SELF : GROUP_NONE;
	}
}

/* Whether equal values of the two types hash alike in a filter. */
static bool
prefilter_types_agree(Oid left, Oid right)
{
	PrefilterTypeGroup group = prefilter_type_group(left);

	if (group == GROUP_NONE || group != prefilter_type_group(right))
		return false;
	return group != GROUP_SELF || getBaseType(left) == getBaseType(right);
}

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
			PrefilterTypeGroup group = prefilter_type_group(exprType((Node *) arg));

			if (group == GROUP_NONE || group == GROUP_SELF ||
				group != prefilter_type_group(((FuncExpr *) expr)->funcresulttype))
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
	if (!prefilter_types_agree(exprType((Node *) prefilter_strip_casts((Expr *) left)),
							   exprType((Node *) prefilter_strip_casts((Expr *) right))))
		return false;
	if (OidIsValid(collation) && !get_collation_isdeterministic(collation))
		return false;
	return true;
}
