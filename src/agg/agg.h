/*
 * agg/agg.h: what the aggregate files (agg/bloom_agg.c, agg/self_sizing.c)
 * share, defined in agg/common.c: the aggregate memory context, the
 * aggregate call (Aggref) and its constant arguments, the check that every
 * row asks for the filter the first one did, the NULL cases of a combine
 * function, and the reading and writing of serialized states.
 */
#ifndef BLOOM_AGG_H
#define BLOOM_AGG_H

#include "types/types.h"

#include "nodes/execnodes.h"

/* Whether the call is an aggregate's, as AggCheckCallContext decides it. */
static inline bool
bloom_in_aggregate(FunctionCallInfo fcinfo)
{
	return fcinfo->context != NULL &&
		(IsA(fcinfo->context, AggState) || IsA(fcinfo->context, WindowAggState));
}

/* The aggregate memory context; ERROR, naming function, when not called as an aggregate. */
extern MemoryContext bloom_agg_context(FunctionCallInfo fcinfo, const char *function);

/*
 * The Aggref of the aggregate call being finalized, followed down the plan
 * from a Finalize Aggregate to the partial one; NULL in a window or when it
 * cannot be found.
 */
extern Aggref *bloom_agg_call(FunctionCallInfo fcinfo);

/*
 * Argument argno of aggregate call aggref (NULL: unknown; argument 0 is the
 * value) in *value, if it is a non-NULL constant of type typid: how a final
 * function with no rows learns what the call asked for.
 */
extern bool bloom_agg_call_constant(Aggref *aggref, int argno, Oid typid, Datum *value);

/*
 * The false_positive_rate and capacity (arguments 1 and 2) of the aggregate
 * call being finalized, if both are constants: what bloom_agg and
 * counting_bloom_agg return with no rows.
 */
extern bool bloom_agg_call_request(FunctionCallInfo fcinfo, double *p, int64 *n);

/*
 * Transition states that are values (1.3): an aggregate's state is an
 * expanded object of a real type (BloomAggObject, types/types.h), so that
 * Citus can split the aggregate and a parallel plan needs no serialize
 * functions.  The aggregate machinery keeps a read-write expanded state
 * without copying it, so rows are added in place, as with an internal
 * state.  A transition or combine function modifies its argument 0 only
 * when it is such a state and the call is an aggregate's
 * (bloom_agg_modifiable_object); anything else, a flat value or a call from
 * SQL, is read and copied.
 *
 * bloom_agg_object_context: a new memory context for one expanded state,
 * under the aggregate context in an aggregate call (*in_aggregate set) and
 * under CurrentMemoryContext otherwise.  bloom_agg_modifiable_object: the
 * object of kind in argument 0 that this call may modify in place, or NULL
 * (see above).
 */
extern MemoryContext bloom_agg_object_context(FunctionCallInfo fcinfo, bool *in_aggregate);
extern BloomAggObject *bloom_agg_modifiable_object(FunctionCallInfo fcinfo,
												   const BloomAggObjectKind *kind);

/* What bloom_agg was asked for, kept in its state. */
typedef struct BloomAggRequest
{
	double		false_positive_rate;
	int64		capacity;		/* BLOOM_AGG_NO_CAPACITY for the self-sizing forms */
} BloomAggRequest;

#define BLOOM_AGG_NO_CAPACITY (-1)

/* The ERROR for a row that asks for (p, n) after first: 22023, naming both. */
pg_noreturn extern void bloom_agg_raise_request_mismatch(const BloomAggRequest *first,
														 double p, int64 n);

/*
 * Every row (and every partial state) of bloom_agg must ask for the
 * false_positive_rate p and capacity n the first one did: the shape alone
 * is not enough, or the result would depend on which row came first.
 * Inline, as it runs on every row.
 */
static inline void
bloom_agg_check_request(const BloomAggRequest *first, double p, int64 n)
{
	if (p != first->false_positive_rate || n != first->capacity)
		bloom_agg_raise_request_mismatch(first, p, n);
}

/*
 * The start of a combine function: the aggregate context and the two
 * partial states (NULL: no input).  Returns false when there is nothing to
 * fold, state2 being NULL (the identity): the caller then returns state1 as
 * it is, with bloom_agg_return_state.
 */
extern bool bloom_agg_combine_start(FunctionCallInfo fcinfo, const char *function,
									MemoryContext *aggcontext, void **state1, void **state2);

/* Return a state, or SQL NULL for none (no input yet). */
static inline Datum
bloom_agg_return_state(FunctionCallInfo fcinfo, void *state)
{
	if (state == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(state);
}

/*
 * Serialized states only pass between the processes of one query, so their
 * numbers are in native byte order.  A new one of length bytes after the
 * varlena header, in CurrentMemoryContext, with *out at its first byte;
 * ERROR 54000 when it would exceed MaxAllocSize.
 */
extern bytea *bloom_agg_serial_new(Size length, char **out);

/* A serialized state being read, front to back. */
typedef struct BloomAggReader
{
	const char *next;
	Size		remaining;
} BloomAggReader;

/* Start reading the serialized state in argument 0 of a deserialize function. */
extern void bloom_agg_reader_start(FunctionCallInfo fcinfo, const char *function,
								   BloomAggReader *reader);

/* Copy the next length bytes to dst; ERROR XX001 when fewer remain. */
extern void bloom_agg_read(BloomAggReader *reader, void *dst, Size length);

/*
 * ERROR XX001 for a serialized state that does not hold together; detail
 * says what is wrong.
 */
pg_noreturn extern void bloom_agg_raise_corrupt(const char *detail);

/*
 * For scalable_bloom_agg, which finishes the self-sizing bloom_agg's states
 * (agg/self_sizing.c): the state in argument 0 of a final function, of the
 * internal form or (value_state) of type bloom_agg_state, NULL for no rows,
 * with the rate its rows asked for in *p; and the filter a state makes at
 * rate p (at most the state's), sized for its values, with the number of
 * distinct values it holds (exact, or from the bits past the exact phase).
 */
extern void *bloom_autoagg_final_state(FunctionCallInfo fcinfo, bool value_state, double *p);
extern BloomFilter *bloom_autoagg_filter(void *state, double p, uint64 *distinct);

/*
 * The shape a (false_positive_rate, capacity) request gives, remembered
 * for the request that came last: per backend, not per call site, because
 * Citus's worker_partial_agg calls the transition function through a new
 * FmgrInfo on every row, where fn_extra keeps nothing.  shape_of computes
 * a shape (raising the request's errors).
 */
typedef struct BloomRequestMemo
{
	bool		valid;
	double		p;
	int64		n;
	BloomHeader shape;
} BloomRequestMemo;
typedef void (*BloomRequestShapeFn) (double p, int64 n, BloomHeader *shape);
extern const BloomHeader *bloom_agg_request_memo(BloomRequestMemo *memo, double p, int64 n,
												 BloomRequestShapeFn shape_of);

/*
 * What each aggregate gives over no rows when its arguments are known
 * (agg/no_rows.c, and agg/self_sizing.c for the self-sized filter): the
 * final functions and bloom_agg_or_empty, which bloomfilter.split_aggregates
 * wraps around a split aggregate, share them.
 */
extern BloomFilter *bloom_agg_no_rows(double p, int64 n);
extern BloomFilter *bloom_autoagg_no_rows(double p);
extern struct varlena *counting_agg_no_rows(double p, int64 n);
extern struct varlena *scalable_agg_no_rows(double p);

#endif							/* BLOOM_AGG_H */
