/*
 * types/counting_bloom/counting_bloom.h: what the SQL-callable files of the type counting_bloom
 * share (types/counting_bloom/io.c, types/counting_bloom/counting_bloom.c, agg/counting_bloom_agg.c).
 *
 * A counting filter is read as a BloomView (types/types.h) whose bits are its
 * counters (core/counting.h): the header is bloom's, and the counters are
 * checked by the counting validator, the one for every input path.
 */
#ifndef BLOOM_COUNTING_H
#define BLOOM_COUNTING_H

#include "types/types.h"
#include "core/counting.h"

/*
 * View of a counting filter datum in any varlena form (short, compressed,
 * external); a value that is not inline and uncompressed is expanded in
 * CurrentMemoryContext.  ERROR XX001 for a damaged value.
 */
extern void counting_view_datum(Datum datum, BloomView *view);

/*
 * The same without the ERROR, for the planner and ANALYZE, which skip a
 * damaged value: the view is valid only when BF_OK is returned.
 */
extern bf_status counting_view_datum_status(Datum datum, BloomView *view);

/* The type's input function, by which the planner recognizes the type. */
extern PGDLLEXPORT Datum counting_bloom_in(PG_FUNCTION_ARGS);

/* counting_bloom's layout for the cache and the slices (types/types.h, types/counting_bloom/io.c). */
extern const BloomLayout counting_layout;

/*
 * The counting filter in argument argno (not NULL): an inline value read in
 * place; a stored out-of-line one detoasted and checked once per call site
 * and kept in its cache (types/types.h, BloomCallCache), keyed by its toast
 * pointer, so that a per-row membership test against a stored filter does
 * not fetch it again on every row.  A call site's filter arguments are all
 * bloom or all counting_bloom, so the cache's entries are never mixed.
 */
static inline void
counting_getarg(FunctionCallInfo fcinfo, int argno, BloomView *view)
{
	if (!bloom_getarg_cached(fcinfo, argno, view))
		bloom_cache_fetch(fcinfo, argno, &counting_layout, view);
}

/* The slow path of counting_getarg_lookup (types/counting_bloom/io.c). */
extern bool counting_cache_to_bits(FunctionCallInfo fcinfo, int argno, BloomView *view);

/*
 * The counting filter in argument argno (not NULL) for a membership test:
 * as counting_getarg, except that a stored filter is fetched by
 * bloom_cache_lookup, so that a call site that has not tested it often
 * enough to pay for detoasting reads it by slices (types/slice.c): then the
 * result is false and view->bits is NULL.  And once the call site has
 * tested as many values against the same stored filter as its counters
 * have cache lines, what it keeps is the bloom filter of its non-zero
 * counters (bf_counting_to_bits, once): then the result is true and the
 * view is of that bloom filter, a quarter of the counters' size, which
 * bf_contains tests with the answers bf_counting_contains gives on the
 * counters (core/counting.h).  Per row, a scan's test of a filter of 1M
 * values then reads 1.2 MB, not 4.8 MB: the cache misses were what made it
 * slower than bloom's.  The threshold keeps a point lookup from paying for
 * the conversion (a sequential pass over the counters, cheaper per line
 * than a test's random reads).  Otherwise the result is false and the view
 * is of the counters.  Only the contains functions call it, so their call
 * sites' caches may hold bits and every other call site's hold counters.
 */
static inline bool
counting_getarg_lookup(FunctionCallInfo fcinfo, int argno, BloomView *view)
{
	BloomArgCache *entry;

	if (bloom_getarg_cached(fcinfo, argno, view))
	{
		entry = &((BloomCallCache *) fcinfo->flinfo->fn_extra)->args[argno];
		if (likely(entry->counting_bits))
			return true;
		if (++entry->counting_lookups < view->nbytes / 64)
			return false;
		return counting_cache_to_bits(fcinfo, argno, view);
	}
	entry = bloom_cache_lookup(fcinfo, argno, &counting_layout, view);
	/* a filter taken back from the spares may be kept as bits already */
	return entry != NULL && entry->counting_bits;
}

/* The same checks on a filter's bytes in memory (header and counters). */
extern void counting_view_bytes(const uint8 *body, size_t length, BloomView *view);

/* View of a filter this code built. */
extern void counting_view_filter(const CountingBloomFilter *filter, BloomView *view);

/*
 * A new filter with the header's shape and flags, in CurrentMemoryContext:
 * counters zero, or copied from counters when it is not NULL.
 */
extern CountingBloomFilter *counting_alloc(const BloomHeader *header, const uint8 *counters);

/* The same, a copy of the view. */
static inline CountingBloomFilter *
counting_copy(const BloomView *view)
{
	return counting_alloc(&view->header, view->bits);
}

/*
 * The shape of a new filter for (p, n): bloom_empty's (bf_default_shape),
 * with this database's flags.  ERROR 22023 for p or n out of range, 54000
 * when the counters would not fit in a value; operation names the caller.
 */
extern void counting_shape(const char *operation, double p, int64 n, BloomHeader *shape);

/* ERROR 54000 for a filter of m counters, too many; operation names the caller. */
pg_noreturn extern void counting_raise_too_large(const char *operation, uint64 m, bool sized);

/* ERROR 22023 unless a and b have the same m, k and hash scheme. */
extern void counting_require_same_shape(const char *operation, const BloomView *a,
										const BloomView *b);

/*
 * The counters of input folded into result (union, saturating sums), in
 * place, after the shape and flag checks: the one union of the operator,
 * the union aggregate and the aggregates' combine function.
 */
extern void counting_union_into(const char *operation, CountingBloomFilter *result,
								const BloomView *input);

#endif							/* BLOOM_COUNTING_H */
