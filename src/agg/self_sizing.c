/*
 * agg/self_sizing.c: the self-sizing aggregates bloom_agg(value) and
 * bloom_agg(value, false_positive_rate), which need no capacity.
 *
 * The result is an ordinary filter (hash scheme 1, k = round(log2(1/p)))
 * whose m is chosen in the final function for the number of distinct values
 * actually aggregated; core/autosize.c explains the method
 * and the bounds.  The transition state has two phases:
 *
 * - exact: the set of the values' 128-bit hashes (bf_hashset), which starts
 *   at 16 slots and doubles, so that small groups stay small, up to
 *   BF_AUTO_EXACT_LIMIT (2^17) distinct values, 4 MB;
 * - sketch: past that, one filter of M = 15 * 2^J bits (60 MB at p = 0.01),
 *   which the final function folds down to the size it chooses.  Its
 *   probes wait in the region adder's buffers (core/probe.h), and its M bits
 *   are allocated only when they must be set: when a buffer is full (about
 *   a million values), or when something reads them.  A state that only
 *   travels (a worker's share on Citus, or in a parallel plan) with fewer
 *   values is written in the sparse form straight from the buffers.
 *
 * This file holds the state machine and the 1.2 aggregates, whose state is
 * internal; agg/self_sizing_state.c holds the state's flat form, the type
 * bloom_agg_state and the 1.3 aggregates whose states are its values.
 *
 * The final function reads the state and builds a new filter, so the
 * aggregates work as window aggregates.  Parallel aggregation: the combine
 * function merges hash sets (moving to the sketch past the limit), adds a
 * hash set to a sketch, or ORs sketches; the phase and the bits depend only
 * on the set of values, so every plan gives the same filter as a serial
 * one.  Deserialization validates everything it reads, and reads a sketch
 * in place for the combine function.  A partial sketch travels in a sparse
 * form when that is shorter (a worker's share of the values sets a few
 * percent of its bits), as the leader receives it through a 64 kB queue.
 *
 * With no rows the result is the empty filter of the optimal size for one
 * value, when the false-positive rate is known: bloom_agg(value) always,
 * bloom_agg(value, p) when p is a constant (as for bloom_agg with a
 * capacity, agg/bloom_agg.c).
 */
#include "postgres.h"

#include "agg/self_sizing.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/memutils.h"



/*
 * Set the bits of the values still pending in the sketch's adder, which
 * allocates them first if need be (bloom_autoagg_need_bits).
 */
void
bloom_autoagg_flush(BloomAutoState *state)
{
	if (state->adder != NULL)
		bf_region_adder_flush(state->adder);
}

/* The adder's need_bits: the sketch's M bits, zeroed, beside the adder. */
static uint8_t *
bloom_autoagg_need_bits(void *arg)
{
	BloomAutoState *state = (BloomAutoState *) arg;
	MemoryContext old_context = MemoryContextSwitchTo(GetMemoryChunkContext(state->adder));

	state->sketch = (uint8 *) bloom_palloc_large(bloom_payload_bytes(state->sketch_m));
	bloom_fill_bits(state->sketch, NULL, bloom_payload_bytes(state->sketch_m));
	MemoryContextSwitchTo(old_context);
	return state->sketch;
}

#define BLOOM_AUTO_INITIAL_SLOTS 16

/* k and M for rate p, or the ERROR for a bad p. */
static void
bloom_autoagg_shape(double p, uint32 *k, uint64 *sketch_m)
{
	bf_status	status = bf_auto_shape(p, k, sketch_m);

	if (status != BF_OK)
		bloom_raise_shape_error(status, "bloom_agg", 0, *k, p, -1);
}

/* A new, empty state in the current memory context. */
BloomAutoState *
bloom_autoagg_state_new(double p)
{
	BloomAutoState *state = (BloomAutoState *) palloc0(sizeof(BloomAutoState));

	bloom_autoagg_shape(p, &state->k, &state->sketch_m);
	state->request.false_positive_rate = p;
	state->request.capacity = BLOOM_AGG_NO_CAPACITY;
	state->flags = bloom_new_filter_flags();
	state->set.capacity = BLOOM_AUTO_INITIAL_SLOTS;
	state->set.slots = (bf_hash *) palloc0(BLOOM_AUTO_INITIAL_SLOTS * sizeof(bf_hash));
	return state;
}


/* The ERROR for a rate that n distinct values cannot meet within M bits. */
pg_noreturn static void
bloom_autoagg_raise_rate_error(double p, uint64 n, uint64 sketch_m)
{
	ereport(ERROR,
			errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			errmsg("bloom_agg: a self-sized filter cannot hold false_positive_rate %g", p),
			errdetail("For " UINT64_FORMAT " distinct values it would need more than the self-sizing limit of m = " UINT64_FORMAT " bits at this rate.",
					  n, sketch_m),
			errhint("Use a higher false_positive_rate."));
}

/*
 * Move from the exact phase to the sketch: the hashes go into M bits, which
 * start as a copy of the sketch base (of the same M), or empty when base is
 * NULL (and are then allocated when needed).  A rate that not even one
 * value can meet within M bits (1e-19: the double-hashing floor,
 * core/probe.h) fails here as it does in the exact phase, before M bits are
 * allocated for nothing, rather than as "too many distinct values" from the
 * final function.
 */
void
bloom_autoagg_to_sketch(BloomAutoState *state, MemoryContext aggcontext, const uint8 *base)
{
	bf_hashset_iter iter = {0, false};
	bf_hash		hash;
	MemoryContext old_context;
	Size		nbytes = bloom_payload_bytes(state->sketch_m);

	if (bf_auto_exact_max_m(1, state->request.false_positive_rate, state->k, state->sketch_m) == 0)
		bloom_autoagg_raise_rate_error(state->request.false_positive_rate,
									   Max(state->set.count, 1), state->sketch_m);
	old_context = MemoryContextSwitchTo(aggcontext);

	if (base != NULL)
	{
		state->sketch = (uint8 *) bloom_palloc_large(nbytes);
		bloom_fill_bits(state->sketch, base, nbytes);
	}
	state->adder = (bf_region_adder *) palloc(sizeof(bf_region_adder));
	bf_region_adder_init(state->adder, state->sketch, state->sketch_m, state->k,
						 bloom_palloc_large(bf_region_adder_memory(state->sketch_m, nbytes / 4)),
						 nbytes / 4);
	state->adder->need_bits = bloom_autoagg_need_bits;
	state->adder->need_bits_arg = state;
	MemoryContextSwitchTo(old_context);
	while (bf_hashset_next(&state->set, &iter, &hash))
		bf_region_adder_add(state->adder, hash);
	pfree(state->set.slots);
	memset(&state->set, 0, sizeof(state->set));
}

/* The exact phase's set is full: double it. */
void
bloom_autoagg_grow(BloomAutoState *state, MemoryContext context)
{
	bf_hashset	bigger = {NULL, state->set.capacity * 2, 0, false};

	bigger.slots = (bf_hash *) MemoryContextAllocZero(context,
													  mul_size(bigger.capacity, sizeof(bf_hash)));
	bf_hashset_move(&state->set, &bigger);
	pfree(state->set.slots);
	state->set = bigger;
}

/* Fold state from (any memory context) into state into (the aggregate's). */
void
bloom_autoagg_merge(BloomAutoState *into, BloomAutoState *from,
					MemoryContext aggcontext)
{
	Assert(!into->sketch_borrowed && into->sparse_sketch == NULL);
	bloom_autoagg_check_rate(into, from->request.false_positive_rate);
	if (from->sparse_sketch != NULL)
	{
		if (!bloom_autoagg_in_sketch(into))
			bloom_autoagg_to_sketch(into, aggcontext, NULL);
		bloom_autoagg_flush(into);
		bf_sparse_or_into(into->sketch, bloom_payload_bytes(into->sketch_m), from->sparse_sketch,
						  from->sparse_sketch_length);
	}
	else if (bloom_autoagg_in_sketch(from))
	{
		bloom_autoagg_flush(from);
		/* into's own hashes go into a copy of from's sketch: one pass, not two */
		if (!bloom_autoagg_in_sketch(into))
			bloom_autoagg_to_sketch(into, aggcontext, from->sketch);
		else
		{
			bloom_autoagg_flush(into);
			bf_or_into(into->sketch, from->sketch, bloom_payload_bytes(into->sketch_m));
		}
	}
	else
	{
		bf_hashset_iter iter = {0, false};
		bf_hash		hash;

		while (bf_hashset_next(&from->set, &iter, &hash))
			bloom_autoagg_add(into, hash, aggcontext);
	}
}

/* The rate argument of the call, or the default. */
double
bloom_autoagg_rate_arg(FunctionCallInfo fcinfo, int argno)
{
	if (PG_NARGS() <= argno)
		return BF_DEFAULT_FALSE_POSITIVE_RATE;
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				errmsg("bloom_agg: false_positive_rate must not be NULL"));
	return PG_GETARG_FLOAT8(argno);
}


/*
 * bloom_agg(value) and bloom_agg(value, false_positive_rate), with an
 * internal state (1.2).  The state is created from the first row even when
 * its value is NULL, so a bad rate is an error whatever the values.
 */
PG_FUNCTION_INFO_V1(bloom_autoagg_transfn);
Datum
bloom_autoagg_transfn(PG_FUNCTION_ARGS)
{
	BloomAutoState *state = PG_ARGISNULL(0) ? NULL : (BloomAutoState *) PG_GETARG_POINTER(0);
	MemoryContext aggcontext;
	double		p = bloom_autoagg_rate_arg(fcinfo, 2);

	if (state == NULL)
	{
		MemoryContext old_context;

		aggcontext = bloom_agg_context(fcinfo, "bloom_autoagg_transfn");
		old_context = MemoryContextSwitchTo(aggcontext);
		state = bloom_autoagg_state_new(p);
		MemoryContextSwitchTo(old_context);
	}
	else
	{
		/*
		 * Only the aggregate machinery passes a state (an internal argument
		 * cannot come from SQL), so the cheap test of the call will do, and
		 * the state lives in the aggregate context.
		 */
		if (unlikely(!bloom_in_aggregate(fcinfo)))
			elog(ERROR, "bloom_autoagg_transfn called in non-aggregate context");
		aggcontext = GetMemoryChunkContext(state);
		bloom_autoagg_check_rate(state, p);
	}
	bloom_autoagg_add_arg(fcinfo, state, aggcontext);
	PG_RETURN_POINTER(state);
}

/* bf_fold_room for the sketch's result: a filter per candidate, the last one kept. */
typedef struct BloomAutoRoom
{
	BloomHeader shape;
	BloomFilter *filter;
} BloomAutoRoom;

static uint8_t *
bloom_autoagg_room(uint64_t m, void *arg)
{
	BloomAutoRoom *room = (BloomAutoRoom *) arg;

	if (room->filter != NULL)
		pfree(room->filter);
	room->shape.m = m;
	room->filter = bloom_alloc_like(&room->shape);
	return room->filter->bits;
}

/* The filter for a state (NULL: no rows), in CurrentMemoryContext. */
BloomFilter *
bloom_autoagg_result(BloomAutoState *state, double p)
{
	BloomFilter *filter;
	uint32		k;
	uint64		sketch_m;
	uint64		m;

	if (state != NULL && bloom_autoagg_in_sketch(state))
	{
		BloomAutoRoom room;

		bloom_autoagg_flush(state);
		memset(&room, 0, sizeof(room));
		room.shape.format_version = BLOOM_FORMAT_VERSION;
		room.shape.hash_scheme = BLOOM_HASH_XXH3_EDH;
		room.shape.k = state->k;
		room.shape.flags = state->flags;
		if (bf_auto_fold_sketch(state->sketch, state->sketch_m, state->k, p,
								bloom_autoagg_room, &room) != 0)
			return room.filter;
		ereport(ERROR,
					errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					errmsg("bloom_agg: too many distinct values for a self-sized filter at false_positive_rate %g",
						   p),
					errdetail("A self-sized filter at this rate has at most m = " UINT64_FORMAT " bits, which cannot hold about %.0f distinct values at the rate.",
							  state->sketch_m,
							  bf_estimate_cardinality(state->sketch_m, state->k, BLOOM_HASH_XXH3_EDH,
													  bf_popcount(state->sketch,
																  bloom_payload_bytes(state->sketch_m)))),
					errhint("Give the capacity: bloom_agg(value, false_positive_rate, capacity)."));
	}

	{
		bf_hashset	empty = {NULL, 0, 0, false};
		const bf_hashset *set = state != NULL ? &state->set : &empty;
		uint64		max_m;
		uint8	   *bits;

		bloom_autoagg_shape(p, &k, &sketch_m);
		max_m = bf_auto_exact_max_m(set->count, p, k, sketch_m);
		if (max_m == 0)
			bloom_autoagg_raise_rate_error(p, set->count, sketch_m);
		bits = (uint8 *) palloc(bloom_payload_bytes(max_m));
		m = bf_auto_choose_exact(set, p, k, max_m, bits);
		filter = bloom_alloc(m, k, BLOOM_HASH_XXH3_EDH);
		if (state != NULL)
			filter->flags = state->flags;
		memcpy(filter->bits, bits, bloom_payload_bytes(m));
		pfree(bits);
		return filter;
	}
}

/*
 * The result of a final function for state (NULL: no rows).  With no rows
 * the rate is the default for bloom_agg(value) (default_rate), and for
 * bloom_agg(value, p) comes from the aggregate call, so it must be a
 * constant; otherwise (and in a window frame with no rows) the result of no
 * rows is NULL.
 */
Datum
bloom_autoagg_final(FunctionCallInfo fcinfo, BloomAutoState *state, bool default_rate)
{
	Datum		p;

	if (state != NULL)
		PG_RETURN_POINTER(bloom_autoagg_result(state, state->request.false_positive_rate));
	if (default_rate)
		PG_RETURN_POINTER(bloom_autoagg_no_rows(BF_DEFAULT_FALSE_POSITIVE_RATE));
	if (!bloom_agg_call_constant(bloom_agg_call(fcinfo), 1, FLOAT8OID, &p))
		PG_RETURN_NULL();
	PG_RETURN_POINTER(bloom_autoagg_no_rows(DatumGetFloat8(p)));
}

/* bloom_agg(value, p) over no rows: the empty filter of the optimal size for one value. */
BloomFilter *
bloom_autoagg_no_rows(double p)
{
	return bloom_autoagg_result(NULL, p);
}

PG_FUNCTION_INFO_V1(bloom_autoagg_default_finalfn);
Datum
bloom_autoagg_default_finalfn(PG_FUNCTION_ARGS)
{
	bloom_agg_context(fcinfo, "bloom_autoagg_default_finalfn");
	return bloom_autoagg_final(fcinfo, PG_ARGISNULL(0) ? NULL :
							   (BloomAutoState *) PG_GETARG_POINTER(0), true);
}

PG_FUNCTION_INFO_V1(bloom_autoagg_finalfn);
Datum
bloom_autoagg_finalfn(PG_FUNCTION_ARGS)
{
	bloom_agg_context(fcinfo, "bloom_autoagg_finalfn");
	return bloom_autoagg_final(fcinfo, PG_ARGISNULL(0) ? NULL :
							   (BloomAutoState *) PG_GETARG_POINTER(0), false);
}

/*
 * Fold partial state2 into state1; a NULL state (no input) is the identity.
 * state2 may live in a shorter-lived context, so when state1 is NULL the
 * result is a new state in the aggregate context.
 */
PG_FUNCTION_INFO_V1(bloom_autoagg_combinefn);
Datum
bloom_autoagg_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	void	   *arg1;
	void	   *arg2;
	BloomAutoState *state1;
	BloomAutoState *state2;

	if (!bloom_agg_combine_start(fcinfo, "bloom_autoagg_combinefn", &aggcontext, &arg1, &arg2))
		return bloom_agg_return_state(fcinfo, arg1);
	state1 = (BloomAutoState *) arg1;
	state2 = (BloomAutoState *) arg2;
	if (state1 == NULL)
	{
		MemoryContext old_context = MemoryContextSwitchTo(aggcontext);

		state1 = bloom_autoagg_state_new(state2->request.false_positive_rate);
		MemoryContextSwitchTo(old_context);
	}
	bloom_autoagg_merge(state1, state2, aggcontext);
	state1->flags |= state2->flags;	/* one database: both read text alike */
	PG_RETURN_POINTER(state1);
}
