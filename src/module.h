/*
 * module.h: what the module's set-up gives the other folders: the
 * extension's own objects, looked up in the catalogs (src/module.c).
 */
#ifndef BLOOM_MODULE_H
#define BLOOM_MODULE_H

/*
 * The schema the extension is installed in, InvalidOid when it is not
 * installed in this database; a type and a function of the extension's
 * (exact argument types), InvalidOid when there is none.
 */
extern Oid	bloom_own_schema(void);
extern Oid	bloom_own_type(Oid schema, const char *name);
extern Oid	bloom_own_function(Oid schema, const char *name, int nargs, const Oid *argtypes);

#endif
