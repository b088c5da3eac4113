/*
 * extension/extension.h: the extension's own objects, looked up in the
 * catalogs (extension/extension.c), for the folders that find them by name
 * at plan time: distributed/, planner/ and prefilter/.
 */
#ifndef BLOOM_EXTENSION_H
#define BLOOM_EXTENSION_H

/*
 * The schema the extension is installed in, InvalidOid when it is not
 * installed in this database; a type and a function of the extension's
 * (exact argument types), InvalidOid when there is none.
 */
extern Oid	bloom_own_schema(void);
extern Oid	bloom_own_type(Oid schema, const char *name);
extern Oid	bloom_own_function(Oid schema, const char *name, int nargs, const Oid *argtypes);

#endif
