/*
 * fuzz_counting.c: libFuzzer harness for the counting filter's forms and
 * operations (core/counting.c).
 *
 * The input is tried as a text form and as a binary form, each decoded as
 * src/types/counting_bloom/io.c does.  Whatever decodes is canonical (encodes
 * back to exactly the input), has zero padding counters (checked here
 * nibble by nibble, apart from the validator under test), goes through the
 * other form and back unchanged, and obeys the operations' laws: adding a
 * value and removing it again restores the counters when nothing
 * saturated, a filter less itself is empty but for saturated counters, and
 * the bloom filter of the counters has a bit exactly where a counter is
 * non-zero.
 */
#include "fuzz.h"
#include "core/counting.h"

static bool
padding_counters_zero(uint64_t m, const uint8_t *counters, size_t nbytes)
{
	for (uint64_t i = m; i < (uint64_t) nbytes * 2; i++)
		if (bf_counter_get(counters, i) != 0)
			return false;
	return true;
}

/* The laws every valid filter obeys; counters is not modified. */
static void
check_filter(const BloomHeader *header, const uint8_t *counters, const uint8_t *data,
			 size_t size)
{
	uint64_t	m = header->m;
	size_t		nbytes = (size_t) bf_counting_payload_bytes(m);
	uint8_t    *copy = fuzz_copy(counters, nbytes);
	uint8_t    *bits = fuzz_malloc((size_t) bloom_payload_bytes(m));
	bf_counting_stats stats;
	bf_hash		hash = bf_hash_bytes(data, size);
	uint64_t	positions[BLOOM_K_MAX];
	uint64_t	position;
	bool		saturated = false;

	FUZZ_ASSERT(bf_counting_check_header(header) == BF_OK);
	FUZZ_ASSERT(bf_counting_check_counters(header, counters, nbytes) == BF_OK);
	FUZZ_ASSERT(padding_counters_zero(m, counters, nbytes));

	/* the bloom filter of the counters */
	bf_counting_stats_of(counters, nbytes, &stats);
	bf_counting_to_bits(counters, m, bits);
	FUZZ_ASSERT(bf_check_bits(header, bits, (size_t) bloom_payload_bytes(m)) == BF_OK);
	FUZZ_ASSERT(bf_popcount(bits, (size_t) bloom_payload_bytes(m)) == stats.nonzero);
	FUZZ_ASSERT(bf_counting_contains(counters, m, header->k, header->hash_scheme, hash) ==
				bf_contains(bits, m, header->k, header->hash_scheme, hash));

	/* add, then remove: back where it was unless a probe saturated */
	bf_counting_add(copy, m, header->k, header->hash_scheme, hash);
	FUZZ_ASSERT(bf_counting_contains(copy, m, header->k, header->hash_scheme, hash));
	bf_probe_positions(hash, m, header->k, header->hash_scheme, positions);
	for (uint32_t i = 0; i < header->k; i++)
		saturated |= bf_counter_get(copy, positions[i]) == BF_COUNTER_MAX;
	FUZZ_ASSERT(bf_counting_remove(copy, m, header->k, header->hash_scheme, hash));
	FUZZ_ASSERT(saturated || memcmp(copy, counters, nbytes) == 0);

	/* removing a value that tests absent changes nothing */
	memcpy(copy, counters, nbytes);
	if (!bf_counting_contains(copy, m, header->k, header->hash_scheme, hash))
	{
		FUZZ_ASSERT(!bf_counting_remove(copy, m, header->k, header->hash_scheme, hash));
		FUZZ_ASSERT(memcmp(copy, counters, nbytes) == 0);
	}

	/* a - a: only the saturated counters are left, at 15 */
	FUZZ_ASSERT(bf_counting_subtract(copy, counters, counters, nbytes, &position));
	for (uint64_t i = 0; i < m; i++)
		FUZZ_ASSERT(bf_counter_get(copy, i) ==
					(bf_counter_get(counters, i) == BF_COUNTER_MAX ? BF_COUNTER_MAX : 0));

	/* a + a, saturating, and back down: a wherever a's counter was at most 7 */
	bf_counting_union(copy, counters, counters, nbytes);
	for (uint64_t i = 0; i < m; i++)
	{
		unsigned	c = bf_counter_get(counters, i);

		FUZZ_ASSERT(bf_counter_get(copy, i) == (2 * c > 15 ? 15 : 2 * c));
	}
	free(copy);
	free(bits);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	BloomHeader header;
	BloomHeader again;
	const uint8_t *counters;
	size_t		payload_offset = 0;
	uint64_t	nbytes;
	uint64_t	length;
	uint8_t    *decoded;
	uint8_t    *encoded;
	char	   *text;

	/* binary */
	if (bf_counting_binary_decode(data, size, &header, &counters) == BF_OK)
	{
		nbytes = bf_counting_payload_bytes(header.m);
		FUZZ_ASSERT(counters == data + BF_BINARY_HEADER_BYTES);
		FUZZ_ASSERT(size == BF_BINARY_HEADER_BYTES + nbytes);
		encoded = fuzz_malloc(size);
		bf_binary_encode_header(&header, encoded);
		memcpy(encoded + BF_BINARY_HEADER_BYTES, counters, (size_t) nbytes);
		FUZZ_ASSERT(memcmp(encoded, data, size) == 0);
		free(encoded);

		/* through the text form and back */
		length = bf_counting_text_length(&header);
		text = fuzz_malloc((size_t) length + 1);
		bf_counting_text_encode(&header, counters, text);
		FUZZ_ASSERT(strlen(text) == length);
		FUZZ_ASSERT(bf_counting_text_decode_header(text, (size_t) length, &again,
												   &payload_offset) == BF_OK);
		FUZZ_ASSERT(fuzz_header_equal(&header, &again));
		decoded = fuzz_malloc((size_t) nbytes);
		FUZZ_ASSERT(bf_counting_text_decode_counters(text + payload_offset,
													 (size_t) length - payload_offset,
													 &again, decoded) == BF_OK);
		FUZZ_ASSERT(memcmp(decoded, counters, (size_t) nbytes) == 0);
		free(decoded);
		free(text);
		check_filter(&header, counters, data, size);
	}

	/* text, decoded as the input function does: the length first, then allocate */
	if (bf_counting_text_decode_header((const char *) data, size, &header,
									   &payload_offset) != BF_OK)
		return 0;
	FUZZ_ASSERT(payload_offset <= size);
	if (bf_counting_text_length(&header) != size)
		return 0;
	nbytes = bf_counting_payload_bytes(header.m);
	FUZZ_ASSERT(nbytes <= size);
	decoded = fuzz_malloc((size_t) nbytes);
	memset(decoded, 0xa5, (size_t) nbytes);
	if (bf_counting_text_decode_counters((const char *) data + payload_offset,
										 size - payload_offset, &header, decoded) == BF_OK)
	{
		text = fuzz_malloc(size + 1);
		bf_counting_text_encode(&header, decoded, text);
		FUZZ_ASSERT(memcmp(text, data, size) == 0 && text[size] == '\0');
		free(text);
		check_filter(&header, decoded, data, size);
	}
	free(decoded);
	return 0;
}
