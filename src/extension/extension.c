/*
 * extension/extension.c: the extension's own objects (extension/extension.h),
 * found through the syscache.
 */
#include "postgres.h"

#include "extension/extension.h"

#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "utils/builtins.h"
#include "utils/syscache.h"

#include "compat.h"

Oid
bloom_own_schema(void)
{
	Oid			extension = get_extension_oid("bloomfilter", true);

	return OidIsValid(extension) ? bloom_extension_schema(extension) : InvalidOid;
}

Oid
bloom_own_type(Oid schema, const char *name)
{
	return GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
						   CStringGetDatum(name), ObjectIdGetDatum(schema));
}

Oid
bloom_own_function(Oid schema, const char *name, int nargs, const Oid *argtypes)
{
	return GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid,
						   CStringGetDatum(name),
						   PointerGetDatum(buildoidvector(argtypes, nargs)),
						   ObjectIdGetDatum(schema));
}
