/*
 * types/scalable_bloom/scalable_bloom.h: what the scalable_bloom files (types/scalable_bloom/scalable_bloom.c, the
 * type; agg/scalable_bloom_agg.c, its aggregates) share.
 */
#ifndef BLOOM_SCALABLE_H
#define BLOOM_SCALABLE_H

#include "types/types.h"
#include "core/scalable.h"

/* A scalable filter value with a 4-byte varlena header (core/scalable.h, the layout). */
typedef struct ScalableFilter
{
	int32		vl_len_;		/* varlena header; do not touch directly */
	uint8		body[FLEXIBLE_ARRAY_MEMBER];
} ScalableFilter;

/*
 * A filter argument as read: its body and validated view, which points at
 * the call site's cached one for a stored filter (no copy of its 3 kB per
 * row), else at own.
 */
typedef struct ScalableArg
{
	const uint8 *body;
	const bf_scalable_view *view;
	bf_scalable_view own;
} ScalableArg;

/*
 * The filter in argument argno (not NULL), in any varlena form; a stored
 * one is detoasted once per call site.  ERROR XX001 for a damaged value.
 */
extern void scalable_getarg(FunctionCallInfo fcinfo, int argno, ScalableArg *arg);
/*
 * For a membership test: the call site's cache entry of a stored filter in
 * argument argno while it is read by slices (types/cache.c decides, as for
 * bloom's), its stages' shapes in entry->scalable; NULL when the filter is
 * to be read whole, by scalable_getarg.
 */
extern BloomArgCache *bloom_cache_lookup_scalable(FunctionCallInfo fcinfo, int argno);

/*
 * Slices of a stored, uncompressed filter (types/slice.c): its view from
 * its header (bf_scalable_parse_shapes; ERROR XX001 when damaged), and
 * whether it holds a hash, adding the TOAST index scans made to *scans.
 */
extern void bloom_slice_scalable_view(struct varlena *value, bf_scalable_view *view);
extern bool bloom_slice_scalable_contains(struct varlena *value, const bf_scalable_view *view,
										  bf_hash hash, uint32 *scans);

/* The same for a datum, detoasted in CurrentMemoryContext. */
extern void scalable_view_datum(Datum datum, ScalableArg *arg);

/*
 * The same without the ERROR, for the planner and ANALYZE, which skip a
 * damaged value: arg is valid only when BF_OK is returned.
 */
extern bf_status scalable_view_datum_status(Datum datum, ScalableArg *arg);

/* The type's input function, by which the planner recognizes the type. */
extern PGDLLEXPORT Datum scalable_bloom_in(PG_FUNCTION_ARGS);

/*
 * A new filter of the parameters with its first stage open, in
 * CurrentMemoryContext; ERROR 22023 or 54000, naming operation, when the
 * parameters cannot make one.
 */
extern ScalableFilter *scalable_new(const char *operation, const bf_scalable_params *params);

/* A copy of the argument's value, and its view in *view. */
extern ScalableFilter *scalable_copy(const ScalableArg *arg, bf_scalable_view *view);

/*
 * Add a hash to filter (whose view is current), opening a stage when the
 * last one is full; returns the filter, which may have moved.
 */
extern ScalableFilter *scalable_add_hash(ScalableFilter *filter, bf_scalable_view *view,
										 bf_hash hash, const char *operation);

/* The stage-wise union of two filters of the same parameters. */
extern ScalableFilter *scalable_union(const char *operation, const ScalableArg *a,
									  const ScalableArg *b);

#endif							/* BLOOM_SCALABLE_H */
