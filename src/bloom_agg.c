/* bloom_agg.c: stub, being written */
#include "bloom_pg.h"

PG_FUNCTION_INFO_V1(bloom_agg_transfn);
Datum bloom_agg_transfn(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_agg_transfn: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_agg_finalfn);
Datum bloom_agg_finalfn(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_agg_finalfn: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_union_agg_transfn);
Datum bloom_union_agg_transfn(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_union_agg_transfn: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_intersection_agg_transfn);
Datum bloom_intersection_agg_transfn(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_intersection_agg_transfn: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_setop_agg_finalfn);
Datum bloom_setop_agg_finalfn(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_setop_agg_finalfn: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_union_agg_combinefn);
Datum bloom_union_agg_combinefn(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_union_agg_combinefn: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_intersection_agg_combinefn);
Datum bloom_intersection_agg_combinefn(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_intersection_agg_combinefn: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_agg_serialfn);
Datum bloom_agg_serialfn(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_agg_serialfn: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_agg_deserialfn);
Datum bloom_agg_deserialfn(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_agg_deserialfn: not implemented yet"); PG_RETURN_NULL(); }
