/*
 * bloom_compat.h: the differences between the PostgreSQL majors we build
 * against (15 to 19), in one place.  Every SQL-layer file includes it
 * through bloom_pg.h, after postgres.h; nowhere else tests PG_VERSION_NUM.
 *
 * Each block gives the newer API its newer name on the older majors, so the
 * code is written once, against the newest API.
 */
#ifndef BLOOM_COMPAT_H
#define BLOOM_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 150000
#error "bloomfilter needs PostgreSQL 15 or later"
#endif

/*
 * 16 moved the varlena macros (VARSIZE, VARATT_IS_EXTERNAL_ONDISK, ...)
 * from postgres.h to varatt.h.
 */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * 16 added soft input errors: an input function given an ErrorSaveContext
 * (pg_input_is_valid, COPY ... ON_ERROR) reports bad input with ereturn()
 * and returns instead of raising.  On 15 there is no such caller: ereturn
 * raises the ERROR.
 */
#if PG_VERSION_NUM >= 160000
#include "nodes/miscnodes.h"
#else
#define ereturn(context, dummy_value, ...) \
	do { \
		(void) (context); \
		ereport(ERROR, __VA_ARGS__); \
		return (dummy_value); \
	} while (0)
#endif

/*
 * 18 replaced the suffix pg_attribute_noreturn() with the prefix
 * pg_noreturn; both expand to a GCC attribute that may come first.
 */
#ifndef pg_noreturn
#define pg_noreturn pg_attribute_noreturn()
#endif

/*
 * 18 gave vacuum_delay_point() an argument saying whether ANALYZE (true)
 * or VACUUM calls it.  Callers include commands/vacuum.h.
 */
#if PG_VERSION_NUM >= 180000
#define vacuum_delay_point_analyze() vacuum_delay_point(true)
#else
#define vacuum_delay_point_analyze() vacuum_delay_point()
#endif

/*
 * 19 gave table_beginscan() a last argument of ScanOptions flags; none is
 * needed here.  Callers include access/tableam.h.
 */
#if PG_VERSION_NUM >= 190000
#define table_beginscan_plain(rel, snapshot) table_beginscan(rel, snapshot, 0, NULL, 0)
#else
#define table_beginscan_plain(rel, snapshot) table_beginscan(rel, snapshot, 0, NULL)
#endif

#endif							/* BLOOM_COMPAT_H */
