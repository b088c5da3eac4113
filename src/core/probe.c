/*
 * core/probe.c: the out-of-line part of core/probe.h, which explains both
 * hash schemes: all k positions of a value at once, the adder's ring and
 * the region adder's buffers.
 */
#include "core/core.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

/* ---- bf_region_adder ---- */

#define BF_LINE_BYTES 64

static uintptr_t
bf_align_line(uintptr_t address)
{
	return (address + BF_LINE_BYTES - 1) & ~(uintptr_t) (BF_LINE_BYTES - 1);
}

static uint32_t
bf_region_count(uint64_t m)
{
	return (uint32_t) ((m + ((uint64_t) 1 << BF_REGION_BITS) - 1) >> BF_REGION_BITS);
}

static uint32_t
bf_region_capacity(uint64_t m, size_t buffer_bytes)
{
	size_t		per_region = buffer_bytes / bf_region_count(m) / sizeof(bf_region_offset);

	per_region -= per_region % BF_REGION_STAGE;
	return (uint32_t) (per_region < BF_REGION_STAGE ? BF_REGION_STAGE : per_region);
}

size_t
bf_region_adder_memory(uint64_t m, size_t buffer_bytes)
{
	size_t		regions = bf_region_count(m);

	/* the slack aligns the staging lines and the buffer to cache lines */
	return BF_LINE_BYTES + regions * sizeof(bf_region_line) +
		regions * (sizeof(uint8_t) + sizeof(uint32_t)) + BF_LINE_BYTES +
		regions * (size_t) bf_region_capacity(m, buffer_bytes) * sizeof(bf_region_offset);
}

void
bf_region_adder_init(bf_region_adder *adder, uint8_t *bits, uint64_t m, uint32_t k,
					 void *memory, size_t buffer_bytes)
{
	uintptr_t	next = bf_align_line((uintptr_t) memory);

	adder->bits = bits;
	adder->need_bits = NULL;
	adder->need_bits_arg = NULL;
	adder->m = m;
	adder->k = k;
	adder->regions = bf_region_count(m);
	adder->capacity = bf_region_capacity(m, buffer_bytes);
	adder->staged = (bf_region_line *) next;
	next += adder->regions * sizeof(bf_region_line);
	adder->buffered = (uint32_t *) next;
	next += adder->regions * sizeof(uint32_t);
	adder->staged_count = (uint8_t *) next;
	next += adder->regions * sizeof(uint8_t);
	adder->buffer = (bf_region_offset *) bf_align_line(next);
	memset(adder->buffered, 0, adder->regions * sizeof(uint32_t));
	memset(adder->staged_count, 0, adder->regions * sizeof(uint8_t));
}

/* Set the bits at count offsets of a region. */
static void
bf_region_set(uint8_t *region, const bf_region_offset *offsets, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++)
		region[offsets[i] >> 3] |= (uint8_t) (1u << (offsets[i] & 7));
}

void
bf_region_adder_flush(bf_region_adder *adder)
{
	size_t		nbytes = bloom_payload_bytes(adder->m);
	const size_t region_bytes = (size_t) 1 << (BF_REGION_BITS - 3);

#ifdef __SSE2__
	/* the buffers' non-temporal stores, before they are read */
	_mm_sfence();
#endif
	if (adder->bits == NULL)
		adder->bits = adder->need_bits(adder->need_bits_arg);
	for (uint32_t r = 0; r < adder->regions; r++)
	{
		size_t		start = (size_t) r * region_bytes;
		uint8_t    *region = adder->bits + start;
		uint32_t	count = adder->buffered[r];

#ifdef __GNUC__
		/*
		 * Bring the region in line by line, in order, where the offsets
		 * would fetch most of its lines one random miss at a time.
		 */
		if (count >= region_bytes / BF_LINE_BYTES / 2)
		{
			size_t		end = nbytes - start < region_bytes ? nbytes - start : region_bytes;

			for (size_t line = 0; line < end; line += BF_LINE_BYTES)
				__builtin_prefetch(region + line, 1, 3);
		}
#endif
		bf_region_set(region, adder->buffer + (size_t) r * adder->capacity, count);
		bf_region_set(region, adder->staged[r].offset, adder->staged_count[r]);
		adder->buffered[r] = 0;
		adder->staged_count[r] = 0;
		if ((start + region_bytes) % BF_INTERRUPT_STRIDE == 0)
			bf_check_interrupts();
	}
}

/*
 * Set the bits at count offsets of a region, and mark the 64-bit words
 * they fall in (a bit per word).
 */
static void
bf_region_set_marking(uint8_t *region, const bf_region_offset *offsets, uint32_t count,
					  uint64_t *touched)
{
	for (uint32_t i = 0; i < count; i++)
	{
		unsigned	word = offsets[i] >> 6;

		region[offsets[i] >> 3] |= (uint8_t) (1u << (offsets[i] & 7));
		touched[word >> 6] |= (uint64_t) 1 << (word & 63);
	}
}

size_t
bf_region_adder_sparse(const bf_region_adder *adder, uint8_t *out)
{
	size_t		nbytes = bloom_payload_bytes(adder->m);
	const size_t region_bytes = (size_t) 1 << (BF_REGION_BITS - 3);
	uint64_t	region[((size_t) 1 << BF_REGION_BITS) / 64];
	uint64_t	touched[((size_t) 1 << BF_REGION_BITS) / 64 / 64];
	bf_sparse_gaps gaps;

#ifdef __SSE2__
	_mm_sfence();
#endif
	bf_sparse_gaps_begin(&gaps, nbytes, out);
	memset(region, 0, sizeof(region));
	for (uint32_t r = 0; r < adder->regions; r++)
	{
		size_t		start = (size_t) r * region_bytes;
		size_t		length = nbytes - start < region_bytes ? nbytes - start : region_bytes;

		/*
		 * The region's bits, in a scratch copy; then each word they fall in
		 * (a few hundred of 1,024 for a sketch's share of the values), in
		 * order, is written out and cleared.
		 */
		memset(touched, 0, sizeof(touched));
		bf_region_set_marking((uint8_t *) region, adder->buffer + (size_t) r * adder->capacity,
							  adder->buffered[r], touched);
		bf_region_set_marking((uint8_t *) region, adder->staged[r].offset,
							  adder->staged_count[r], touched);
		for (unsigned t = 0; t < sizeof(touched) / sizeof(touched[0]); t++)
			for (uint64_t mask = touched[t]; mask != 0; mask &= mask - 1)
			{
				size_t		word = t * 64 + (size_t) __builtin_ctzll(mask);
				size_t		at = word * sizeof(uint64_t);

				bf_sparse_gaps_put(&gaps, (const uint8_t *) &region[word],
								   length - at < sizeof(uint64_t) ? length - at : sizeof(uint64_t),
								   start + at);
				region[word] = 0;
			}
		if ((start + region_bytes) % BF_INTERRUPT_STRIDE == 0)
			bf_check_interrupts();
	}
	return bf_sparse_gaps_end(&gaps);
}

void
bf_region_adder_spill(bf_region_adder *adder, uint32_t region)
{
	bf_region_offset *to;
	const bf_region_offset *from = adder->staged[region].offset;

	if (adder->buffered[region] + BF_REGION_STAGE > adder->capacity)
	{
		/* sets this region's full staging line too */
		bf_region_adder_flush(adder);
		return;
	}
	to = adder->buffer + (size_t) region * adder->capacity + adder->buffered[region];
#ifdef __SSE2__
	/* a whole line, aligned: written around the cache, never read first */
	for (size_t i = 0; i < sizeof(bf_region_line); i += sizeof(__m128i))
		_mm_stream_si128((__m128i *) ((char *) to + i),
						 _mm_load_si128((const __m128i *) ((const char *) from + i)));
#else
	memcpy(to, from, sizeof(bf_region_line));
#endif
	adder->buffered[region] += BF_REGION_STAGE;
	adder->staged_count[region] = 0;
}
