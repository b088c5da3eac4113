/*
 * agg/self_sizing.h: the self-sizing aggregates' state, shared by the two
 * files that hold them: agg/self_sizing.c (the state machine, the 1.2
 * aggregates with an internal state) and agg/self_sizing_state.c (the
 * state's flat form, the type bloom_agg_state, and the 1.3 aggregates whose
 * states are its values).  Nothing outside agg/ includes it.
 */
#ifndef BLOOM_AGG_SELF_SIZING_H
#define BLOOM_AGG_SELF_SIZING_H

#include "agg/agg.h"
#include "core/autosize.h"

typedef struct BloomAutoState
{
	BloomAggRequest request;	/* the rate, and BLOOM_AGG_NO_CAPACITY */
	uint32		k;
	uint64		sketch_m;		/* M, from the rate */
	bf_hashset	set;			/* exact phase: set.slots != NULL */
	uint8	   *sketch;			/* sketch phase: M bits, else NULL */

	/*
	 * A deserialized sketch is read in place in its serialized state, which
	 * lives until the combine function has read it, and never written: as
	 * its bits (sketch, with sketch_borrowed) or in the sparse form
	 * (sparse_sketch, core/core.h), the one a sketch holding a share of the
	 * values usually takes between processes.
	 */
	bool		sketch_borrowed;
	const uint8 *sparse_sketch;
	Size		sparse_sketch_length;

	/*
	 * Sketch phase: probes sorted by region of the sketch but not set yet
	 * (the sketch is far larger than the CPU cache, core/probe.h), in
	 * buffers a quarter of its size.  Whatever reads the sketch calls
	 * bloom_autoagg_flush() first.
	 */
	bf_region_adder *adder;
	BloomEncoder *encoder;		/* the value hasher, resolved once */
	uint8		flags;			/* the result's BLOOM_FLAG_*, as values set them */
} BloomAutoState;

/* Whether the state is in the sketch phase (its bits perhaps not allocated yet). */
static inline bool
bloom_autoagg_in_sketch(const BloomAutoState *state)
{
	return state->sketch != NULL || state->adder != NULL;
}

/*
 * Every row and every partial state must ask for the rate the first one did
 * (bloom_agg_check_request, with no capacity to compare).
 */
static inline void
bloom_autoagg_check_rate(const BloomAutoState *state, double p)
{
	if (p != state->request.false_positive_rate)
		bloom_agg_raise_request_mismatch(&state->request, p, BLOOM_AGG_NO_CAPACITY);
}

/*
 * The state machine (agg/self_sizing.c).  bloom_autoagg_flush: set the bits
 * the adder holds (allocating them first), before anything reads the
 * sketch.  bloom_autoagg_state_new: an empty state at rate p in
 * CurrentMemoryContext.  bloom_autoagg_grow: double the exact phase's set,
 * which is full.  bloom_autoagg_to_sketch: move to the sketch phase,
 * from a copy of the sketch base or (base NULL) an empty one.
 * bloom_autoagg_merge: fold from (any context) into into (the aggregate's).
 * bloom_autoagg_rate_arg: the rate argument argno, or the default.
 * bloom_autoagg_result: the filter for a state (NULL: no rows), in
 * CurrentMemoryContext.  bloom_autoagg_final: a final function's result.
 */
extern void bloom_autoagg_flush(BloomAutoState *state);
extern BloomAutoState *bloom_autoagg_state_new(double p);
extern void bloom_autoagg_grow(BloomAutoState *state, MemoryContext context);
extern void bloom_autoagg_to_sketch(BloomAutoState *state, MemoryContext aggcontext,
									const uint8 *base);
extern void bloom_autoagg_merge(BloomAutoState *into, BloomAutoState *from,
								MemoryContext aggcontext);
extern double bloom_autoagg_rate_arg(FunctionCallInfo fcinfo, int argno);
extern BloomFilter *bloom_autoagg_result(BloomAutoState *state, double p);
extern Datum bloom_autoagg_final(FunctionCallInfo fcinfo, BloomAutoState *state,
								 bool default_rate);

/* Room for one more hash in the exact phase: double the set when full. */
static inline void
bloom_autoagg_reserve(BloomAutoState *state, MemoryContext context)
{
	if (bf_hashset_full(&state->set))
		bloom_autoagg_grow(state, context);
}

/* Add one value's hash (on every row: inline). */
static inline void
bloom_autoagg_add(BloomAutoState *state, bf_hash hash, MemoryContext aggcontext)
{
	if (bloom_autoagg_in_sketch(state))
	{
		/* a deserialized sketch has no adder: only states built here do */
		if (state->adder != NULL)
			bf_region_adder_add(state->adder, hash);
		else
			bf_add_hash(state->sketch, state->sketch_m, state->k, hash);
		return;
	}
	bloom_autoagg_reserve(state, aggcontext);
	if (bf_hashset_add(&state->set, hash) && state->set.count > BF_AUTO_EXACT_LIMIT)
		bloom_autoagg_to_sketch(state, aggcontext, NULL);
}

/* Add the value in argument 1, if not NULL, to state, whose memory is in context. */
static inline void
bloom_autoagg_add_arg(FunctionCallInfo fcinfo, BloomAutoState *state, MemoryContext context)
{
	if (PG_ARGISNULL(1))
		return;
	if (state->encoder == NULL)
		state->encoder = bloom_call_encoder(fcinfo, 1);
	bloom_autoagg_add(state,
					  bloom_encoder_hash(state->encoder, PG_GETARG_DATUM(1),
										 state->flags, &state->flags),
					  context);
}

#endif							/* BLOOM_AGG_SELF_SIZING_H */
