/* bloom_setops.c: stub, being written */
#include "bloom_pg.h"

PG_FUNCTION_INFO_V1(bloom_empty);
Datum bloom_empty(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_empty: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_empty_mk);
Datum bloom_empty_mk(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_empty_mk: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_union);
Datum bloom_union(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_union: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_intersection);
Datum bloom_intersection(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_intersection: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_or);
Datum bloom_or(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_or: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_and);
Datum bloom_and(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_and: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_eq);
Datum bloom_eq(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_eq: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_ne);
Datum bloom_ne(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_ne: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_hash);
Datum bloom_hash(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_hash: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_hash_extended);
Datum bloom_hash_extended(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_hash_extended: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_cardinality);
Datum bloom_cardinality(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_cardinality: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_union_cardinality);
Datum bloom_union_cardinality(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_union_cardinality: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_intersection_cardinality);
Datum bloom_intersection_cardinality(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_intersection_cardinality: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_jaccard);
Datum bloom_jaccard(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_jaccard: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_info);
Datum bloom_info(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_info: not implemented yet"); PG_RETURN_NULL(); }
