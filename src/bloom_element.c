/* bloom_element.c: stub, being written */
#include "bloom_pg.h"

PG_FUNCTION_INFO_V1(bloom_add);
Datum bloom_add(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_add: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_contains);
Datum bloom_contains(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_contains: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_contained_by);
Datum bloom_contained_by(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_contained_by: not implemented yet"); PG_RETURN_NULL(); }
BloomEncoder *bloom_encoder_create(Oid typid, MemoryContext mcxt) { elog(ERROR, "not implemented yet"); return NULL; }
bf_hash bloom_encoder_hash(BloomEncoder *encoder, Datum value) { bf_hash h = {0, 0}; elog(ERROR, "not implemented yet"); return h; }
