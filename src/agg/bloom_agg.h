/*
 * agg/bloom_agg.h: the state of the fixed-shape aggregates (bloom_agg with
 * a capacity, bloom_agg_like, the unions and intersections), shared by the
 * two files that hold them: agg/bloom_agg.c (the 1.0-1.2 aggregates, whose
 * state is internal) and agg/filter_state.c (the 1.3 aggregates, whose
 * states are filters).  Nothing outside agg/ includes it.
 *
 * "Shaped": the filter's shape is fixed before its first value, by a
 * request (p, n), a template or the filters folded.  (The SQL type
 * bloom_agg_state is something else: the self-sized aggregates' state,
 * agg/self_sizing.h.)
 */
#ifndef BLOOM_AGG_BLOOM_AGG_H
#define BLOOM_AGG_BLOOM_AGG_H

#include "agg/agg.h"

/* Which aggregate a state belongs to, and so what every row must repeat. */
typedef enum BloomShapedKind
{
	BLOOM_AGG_FIXED_CAPACITY,	/* bloom_agg(value, p, n): the request (p, n) */
	BLOOM_AGG_LIKE_TEMPLATE,	/* bloom_agg_like: the template's shape */
	BLOOM_AGG_SET_OPERATION,	/* bloom_union_agg, bloom_intersection_agg: the shape */
	BLOOM_AGG_SHAPE				/* bloom_agg_shaped: the shape */
} BloomShapedKind;

typedef struct BloomShapedState
{
	BloomShapedKind kind;

	/*
	 * In the aggregate memory context.  NULL only in a bloom_agg_like state
	 * while every template has been NULL, and in a deserialized state whose
	 * filter is read in place.
	 */
	BloomFilter *filter;

	/*
	 * A deserialized state's filter, read in place in the serialized state,
	 * which lives until the combine function has read it: a copy of a large
	 * filter would only be ORed in and dropped.  Never written.  A pointer,
	 * so that the state of each of many small groups stays as small.
	 */
	const BloomView *in_place;

	/*
	 * BLOOM_AGG_FIXED_CAPACITY: the false_positive_rate and capacity the
	 * filter was sized from, which every later row must repeat; 0 in the
	 * other kinds.
	 */
	BloomAggRequest request;

	BloomEncoder *encoder;		/* the value hasher, resolved once */

	/*
	 * A bloom_agg or bloom_agg_like filter larger than the CPU cache: values
	 * whose bits are prefetched but not set yet (core/core.h).  NULL for smaller
	 * filters, which take bf_add directly, and in states not built from
	 * rows.  Whatever reads state->filter calls bloom_shaped_state_flush()
	 * first.
	 */
	bf_adder   *adder;
} BloomShapedState;

/*
 * From agg/bloom_agg.c.  bloom_shaped_state_flush: set the bits of the values
 * still pending in the state's adder.  bloom_shaped_state_view: a view of the
 * state's filter, flushed; false when it has none.
 * bloom_shaped_state_start_adder: give the state an adder, in context, when
 * its filter is large.  bloom_template_precedes: whether template a
 * (NULL: a NULL template) comes before b in messages.
 */
extern void bloom_shaped_state_flush(BloomShapedState *state);
extern bool bloom_shaped_state_view(BloomShapedState *state, BloomView *view);
extern void bloom_shaped_state_start_adder(MemoryContext context, BloomShapedState *state);
extern bool bloom_template_precedes(const BloomHeader *a, const BloomHeader *b);

/*
 * The row path both forms share: a value's hash set in the state's filter,
 * through adder (the state's, which holds values whose bits are prefetched
 * but not set yet) when it has one.
 */
static inline void
bloom_agg_add_hash(bf_adder *adder, BloomFilter *filter, bf_hash hash)
{
	if (adder != NULL)
		bf_adder_add(adder, hash);
	else
		bf_add(filter->bits, filter->m, filter->k, filter->hash_scheme, hash);
}

/*
 * bloom_agg's false_positive_rate and capacity, arguments 2 and 3 of its
 * transition function (on every row: inline).
 */
static inline void
bloom_agg_request_args(FunctionCallInfo fcinfo, double *p, int64 *n)
{
	if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR,
				errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				errmsg("bloom_agg: false_positive_rate and capacity must not be NULL"));
	*p = PG_GETARG_FLOAT8(2);
	*n = PG_GETARG_INT64(3);
}

#endif							/* BLOOM_AGG_BLOOM_AGG_H */
