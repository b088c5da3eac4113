/*
 * core_probe.c: the out-of-line part of core_probe.h, which explains both
 * hash schemes: all k positions of a value at once, and the adder's ring.
 */
#include "core.h"

void
bf_probe_positions(bf_hash hash, uint64_t m, uint32_t k, uint8_t scheme,
				   uint64_t *positions)
{
	if (scheme == BLOOM_HASH_XXH3_BLOCKED)
	{
		uint64_t	first = bf_block_offset(hash.h1, m) * 8;
		bf_blocked_probe probe;

		bf_blocked_probe_init(&probe, hash.h2, k);
		do
		{
			uint32_t	n;
			uint64_t	w = bf_blocked_probe_word(&probe, &n);

			for (; n > 0; n--, w >>= 9)
				*positions++ = first + (w & (BLOOM_BLOCK_BITS - 1));
		} while (bf_blocked_probe_next(&probe));
	}
	else
	{
		bf_edh_probe probe;

		bf_edh_probe_init(&probe, hash, m, k);
		while (bf_edh_probe_next(&probe, positions))
			positions++;
	}
}

void
bf_adder_init(bf_adder *adder, uint8_t *bits, uint64_t m, uint32_t k, uint8_t scheme)
{
	adder->bits = bits;
	adder->m = m;
	adder->k = k;
	adder->scheme = scheme;
	adder->misaligned = ((uintptr_t) bits & (BF_BLOCK_BYTES - 1)) != 0;
	adder->pending = 0;
	adder->next = 0;
	adder->pipelined = bloom_payload_bytes(m) >= BF_ADDER_MIN_BYTES;
}

/* Set the bits of every pending value, oldest first (any order would do). */
void
bf_adder_flush(bf_adder *adder)
{
	uint32_t	slot = (adder->next - adder->pending) & (BF_ADDER_DEPTH - 1);

	for (; adder->pending > 0; adder->pending--)
	{
		bf_adder_set_slot(adder, slot);
		slot = (slot + 1) & (BF_ADDER_DEPTH - 1);
	}
	adder->next = 0;
}
