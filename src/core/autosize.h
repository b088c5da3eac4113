/*
 * core/autosize.h: self-sizing filters (bloom_agg without a capacity), for
 * agg/self_sizing.c and the unit tests; core/autosize.c explains the method.
 */
#ifndef BLOOM_CORE_AUTOSIZE_H
#define BLOOM_CORE_AUTOSIZE_H

#include "core/core.h"

/* Distinct values kept exactly, as 128-bit hashes, before the sketch phase. */
#define BF_AUTO_EXACT_LIMIT ((uint64_t) 1 << 17)
/* The sketch's M / 3 bits hold this many values at the bound. */
#define BF_AUTO_GUARANTEED_CAPACITY UINT64_C(10000000)

/*
 * k for false-positive rate p, max(1, round(log2(1/p))), which is what
 * bf_optimal_shape gives for large n, and the sketch size M = 15 * 2^J bits.
 * BF_FALSE_POSITIVE_RATE_RANGE or BF_K_RANGE (*k set) for a bad p.
 */
extern bf_status bf_auto_shape(double p, uint32_t *k, uint64_t *sketch_m);

/* The rate a self-sized filter is held to: (1 - delta) p. */
extern double bf_auto_rate_bound(double p);

/*
 * The false-positive rate of a filter of m bits, k probes and X = bits_set:
 * (X/m)^k plus the share of double hashing's coinciding probes
 * (core/autosize.c, "holding the target"), and whether it meets the bound
 * for p.
 */
extern double bf_auto_rate(uint64_t m, uint32_t k, uint64_t bits_set);
extern bool bf_auto_holds(uint64_t m, uint32_t k, uint64_t bits_set, double p);

/*
 * An open-addressing set of 128-bit hashes (linear probing on h1).  The
 * caller owns slots (capacity entries, a power of two, zeroed) and grows
 * the set (bf_hashset_move into a larger one) while bf_hashset_full.  The
 * hash {0, 0} marks an empty slot, so it is kept in has_zero instead.
 */
typedef struct bf_hashset
{
	bf_hash    *slots;
	uint64_t	capacity;
	uint64_t	count;			/* distinct hashes held, has_zero included */
	bool		has_zero;
} bf_hashset;

/* Whether one more hash would push the load past 3/4. */
static inline bool
bf_hashset_full(const bf_hashset *set)
{
	return (set->count + 1) * 4 > set->capacity * 3;
}

/* Add hash (the set must not be full); true if it was not there yet. */
extern bool bf_hashset_add(bf_hashset *set, bf_hash hash);
/* Add every hash of from to to (which must have room for them). */
extern void bf_hashset_move(const bf_hashset *from, bf_hashset *to);
/*
 * Walk the set: start from iter = {0, false}; each call gives the next hash
 * (the zero hash first, then in slot order), false when there are no more.
 */
typedef struct bf_hashset_iter
{
	uint64_t	slot;
	bool		zero_done;
} bf_hashset_iter;
extern bool bf_hashset_next(const bf_hashset *set, bf_hashset_iter *iter, bf_hash *hash);

/*
 * Exact phase.  bf_auto_exact_max_m: an m that any n distinct values meet
 * the bound at, the most bf_auto_choose_exact can choose; 0 if it would be
 * above limit_m (the caller passes the sketch size).  bf_auto_choose_exact:
 * the m chosen for the n = set->count hashes, given max_m for n; bits must
 * have room for max_m bits, and on return its first
 * bloom_payload_bytes(m) bytes are the filter.
 */
extern uint64_t bf_auto_exact_max_m(uint64_t n, double p, uint32_t k, uint64_t limit_m);
extern uint64_t bf_auto_choose_exact(const bf_hashset *set, double p, uint32_t k,
									 uint64_t max_m, uint8_t *bits);

/*
 * Sketch phase: the sizes a sketch of sketch_m = c * 2^J bits (c odd) can be
 * folded to are sketch_m / (d * 2^i) for d dividing c; bf_auto_ladder_next
 * gives the smallest one above m (0 if none).  bf_auto_choose_sketch returns
 * the size chosen for the sketch, or 0 when even sketch_m misses the target
 * (more values than the sketch can hold).
 */
extern uint64_t bf_auto_ladder_next(uint64_t sketch_m, uint64_t m);
extern uint64_t bf_auto_choose_sketch(const uint8_t *bits, uint64_t sketch_m,
									  uint32_t k, double p);

/*
 * The same search, building the result as it goes: each candidate m is
 * folded into room(m, arg), which returns memory for
 * bloom_payload_bytes(m) bytes (the caller may free or reuse the previous
 * candidate's); when it returns m != 0, the memory room gave last holds the
 * filter of m bits.  It chooses what bf_auto_choose_sketch chooses and folds
 * the result once, where choosing and then folding would fold it twice.
 */
typedef uint8_t *(*bf_fold_room) (uint64_t m, void *arg);
extern uint64_t bf_auto_fold_sketch(const uint8_t *bits, uint64_t sketch_m, uint32_t k,
									double p, bf_fold_room room, void *arg);

#endif							/* BLOOM_CORE_AUTOSIZE_H */
