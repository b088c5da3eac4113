/* bloom_io.c: stub, being written */
#include "bloom_pg.h"

PG_FUNCTION_INFO_V1(bloom_in);
Datum bloom_in(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_in: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_out);
Datum bloom_out(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_out: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_recv);
Datum bloom_recv(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_recv: not implemented yet"); PG_RETURN_NULL(); }
PG_FUNCTION_INFO_V1(bloom_send);
Datum bloom_send(PG_FUNCTION_ARGS) { elog(ERROR, "bloom_send: not implemented yet"); PG_RETURN_NULL(); }
