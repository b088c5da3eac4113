/*
 * index/condition.c: the index condition bloom_contains_support gives the
 * planner for f @> x, x <@ f and bloom_contains(f, x) when f is the key of
 * an index whose operator family has f @> bloom_hashed (bloom_slices_ops):
 * f @> bloom_value(x).  The index needs the value hashed, not the value:
 * an operator class cannot name every type x may have, and a scan key does
 * not say which type it holds.  The condition is exact, so the original
 * clause is not kept beside it.
 */
#include "postgres.h"

#include "compat.h"
#include "index/index.h"

#include "access/htup_details.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "utils/catcache.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

/* The family's operator of strategy 1 on key_type, and its right type. */
static Oid
bloom_index_family_operator(Oid opfamily, Oid key_type, Oid *right_type)
{
	CatCList   *operators = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamily));
	Oid			found = InvalidOid;

	for (int i = 0; i < operators->n_members && !OidIsValid(found); i++)
	{
		Form_pg_amop amop = (Form_pg_amop) GETSTRUCT(&operators->members[i]->tuple);

		if (amop->amopstrategy == 1 && amop->amoplefttype == key_type &&
			amop->amoppurpose == AMOP_SEARCH)
		{
			found = amop->amopopr;
			*right_type = amop->amoprighttype;
		}
	}
	ReleaseCatCacheList(operators);
	return found;
}

/* bloom_value(anyelement) returning hashed_type, in hashed_type's schema. */
static Oid
bloom_index_value_function(Oid hashed_type)
{
	HeapTuple	tuple = SearchSysCache1(TYPEOID, ObjectIdGetDatum(hashed_type));
	Oid			argument = ANYELEMENTOID;
	Oid			function;
	char	   *schema;

	if (!HeapTupleIsValid(tuple))
		return InvalidOid;
	schema = get_namespace_name(((Form_pg_type) GETSTRUCT(tuple))->typnamespace);
	ReleaseSysCache(tuple);
	if (schema == NULL)
		return InvalidOid;
	function = LookupFuncName(list_make2(makeString(schema), makeString("bloom_value")),
							  1, &argument, true);
	if (OidIsValid(function) && get_func_rettype(function) != hashed_type)
		return InvalidOid;
	return function;
}

List *
bloom_index_condition(SupportRequestIndexCondition *request)
{
	Node	   *node = request->node;
	List	   *args;
	Oid			function;
	Oid		   *declared;
	int			nargs;
	Node	   *key;
	Node	   *value;
	Oid			operator;
	Oid			hashed_type = InvalidOid;
	Expr	   *hashed;

	if (IsA(node, OpExpr))
	{
		args = ((OpExpr *) node)->args;
		function = ((OpExpr *) node)->opfuncid;
	}
	else if (IsA(node, FuncExpr))
	{
		args = ((FuncExpr *) node)->args;
		function = ((FuncExpr *) node)->funcid;
	}
	else
		return NIL;
	if (list_length(args) != 2 || request->indexarg < 0 || request->indexarg > 1)
		return NIL;

	/* the key must be the filter argument, not the value (anyelement) */
	get_func_signature(function, &declared, &nargs);
	if (nargs != 2 || declared[request->indexarg] == ANYELEMENTOID)
		return NIL;
	key = (Node *) list_nth(args, request->indexarg);
	value = (Node *) list_nth(args, 1 - request->indexarg);

	operator = bloom_index_family_operator(request->opfamily, exprType(key), &hashed_type);
	if (!OidIsValid(operator) ||
		!is_pseudo_constant_for_index(request->root, value, request->index))
		return NIL;

	if (exprType(value) == hashed_type)
		hashed = (Expr *) value;
	else
	{
		Oid			value_function = bloom_index_value_function(hashed_type);

		if (!OidIsValid(value_function))
			return NIL;
		hashed = (Expr *) makeFuncExpr(value_function, hashed_type, list_make1(value),
									   InvalidOid, exprCollation(value), COERCE_EXPLICIT_CALL);
	}
	request->lossy = false;
	return list_make1(make_opclause(operator, BOOLOID, false, (Expr *) key, hashed,
									InvalidOid, InvalidOid));
}
