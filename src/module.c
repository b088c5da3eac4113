/*
 * module.c: the module's set-up.  _PG_init registers the settings and the
 * planner hooks; their order makes the hooks run as
 *
 *     prefilter (adds semi-join prefilters, prefilter/prefilter.c)
 *       -> split (lets Citus split the aggregates, distributed/split.c)
 *         -> the hook that was there before (Citus's), or standard_planner
 *
 * so that a prefilter's own aggregate is rewritten for Citus too.  It also
 * finds the extension's own objects for the hooks (module.h).
 */
#include "postgres.h"

#include "module.h"
#include "core/core.h"
#include "distributed/distributed.h"
#include "prefilter/prefilter.h"

#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/syscache.h"

#include "compat.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

static void
bloom_check_for_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

void
_PG_init(void)
{
	bf_interrupt_hook = bloom_check_for_interrupts;
	bloom_split_init();
	bloom_auto_prefilter_init();
}

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
