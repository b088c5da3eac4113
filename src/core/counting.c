/*
 * core/counting.c: counting bloom filters (core/counting.h explains the
 * structure, its one hazard and the stored form): checks, element
 * operations on the probe positions bloom uses, whole-array kernels and
 * the text and binary forms.
 *
 * Every decoder takes an explicit length and never reads outside it: these
 * functions see untrusted input and are fuzzed (test/fuzz/fuzz_counting.c).
 */
#include "core/counting.h"

/* Counter bytes between calls of the interrupt hook. */
#define COUNTING_STRIDE BF_INTERRUPT_STRIDE

/* ---- the increment table (core/counting.h) ---- */

#define COUNTER_STEP(b) {((b) & 15) != 15, (((b) >> 4) != 15) << 4}
#define COUNTER_STEPS4(b) COUNTER_STEP(b), COUNTER_STEP((b) + 1), COUNTER_STEP((b) + 2), COUNTER_STEP((b) + 3)
#define COUNTER_STEPS16(b) COUNTER_STEPS4(b), COUNTER_STEPS4((b) + 4), COUNTER_STEPS4((b) + 8), COUNTER_STEPS4((b) + 12)
#define COUNTER_STEPS64(b) COUNTER_STEPS16(b), COUNTER_STEPS16((b) + 16), COUNTER_STEPS16((b) + 32), COUNTER_STEPS16((b) + 48)

const uint8_t bf_counter_steps[256][2] = {
	COUNTER_STEPS64(0), COUNTER_STEPS64(64), COUNTER_STEPS64(128), COUNTER_STEPS64(192)
};

#define COUNTER_DOWN(c, one) ((c) == 0 ? BF_COUNTER_AT_ZERO : (c) == 15 ? 0 : (one))
#undef COUNTER_STEP
#define COUNTER_STEP(b) {COUNTER_DOWN((b) & 15, 1), COUNTER_DOWN((b) >> 4, 16)}

const uint8_t bf_counter_down_steps[256][2] = {
	COUNTER_STEPS64(0), COUNTER_STEPS64(64), COUNTER_STEPS64(128), COUNTER_STEPS64(192)
};

/* ---- checks ---- */

bf_status
bf_counting_check_header(const BloomHeader *header)
{
	bf_status	status = bf_check_header(header);

	/* bloom's limit is in bits; a counting filter's is 4 times smaller */
	if (status == BF_TOO_LARGE || (status == BF_OK && header->m > BF_COUNTING_M_MAX))
		return BF_COUNTING_TOO_LARGE;
	return status;
}

bf_status
bf_counting_check_counters(const BloomHeader *header, const uint8_t *counters, size_t nbytes)
{
	uint64_t	m = header->m;

	/* m again, for a header not checked yet: the size must not overflow */
	if (m < 1)
		return BF_M_RANGE;
	if (m > BF_COUNTING_M_MAX)
		return BF_COUNTING_TOO_LARGE;
	if (nbytes != bf_counting_payload_bytes(m))
		return BF_COUNTING_LENGTH;

	/* the high nibble of the byte holding counter m - 1, then whole bytes */
	if (m % 2 != 0 && (counters[m / 2] & 0xf0) != 0)
		return BF_COUNTING_PADDING;
	for (uint64_t i = (m + 1) / 2; i < nbytes; i++)
		if (counters[i] != 0)
			return BF_COUNTING_PADDING;
	return BF_OK;
}

/* ---- whole arrays ---- */

void
bf_counting_union(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t nbytes)
{
	for (size_t i = 0; i < nbytes; i++)
	{
		unsigned	low = (unsigned) (a[i] & 15) + (b[i] & 15);
		unsigned	high = (unsigned) (a[i] >> 4) + (b[i] >> 4);

		if (i % COUNTING_STRIDE == 0 && i > 0)
			bf_check_interrupts();
		dst[i] = (uint8_t) ((high > 15 ? 15 : high) << 4 | (low > 15 ? 15 : low));
	}
}

bool
bf_counting_subtract(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t nbytes,
					 uint64_t *position)
{
	for (size_t i = 0; i < nbytes; i++)
	{
		unsigned	result = 0;

		if (i % COUNTING_STRIDE == 0 && i > 0)
			bf_check_interrupts();
		for (unsigned half = 0; half < 2; half++)
		{
			unsigned	shift = half * BF_COUNTER_BITS;
			unsigned	x = (a[i] >> shift) & 15;
			unsigned	y = (b[i] >> shift) & 15;

			if (x != BF_COUNTER_MAX)
			{
				if (y > x)
				{
					*position = (uint64_t) i * 2 + half;
					return false;
				}
				x -= y;
			}
			result |= x << shift;
		}
		dst[i] = (uint8_t) result;
	}
	return true;
}

void
bf_counting_stats_of(const uint8_t *counters, size_t nbytes, bf_counting_stats *stats)
{
	stats->nonzero = 0;
	stats->saturated = 0;
	stats->sum = 0;
	for (size_t i = 0; i < nbytes; i++)
	{
		unsigned	low = counters[i] & 15;
		unsigned	high = counters[i] >> 4;

		if (i % COUNTING_STRIDE == 0 && i > 0)
			bf_check_interrupts();
		stats->nonzero += (low != 0) + (high != 0);
		stats->saturated += (low == BF_COUNTER_MAX) + (high == BF_COUNTER_MAX);
		stats->sum += low + high;
	}
}

/*
 * A 64-bit word of 16 counters at a time (counter i at bit 4i of the
 * little-endian word) gives 16 bits: each counter's four bits ORed into its
 * lowest, then those 16 bits gathered, pairs, then nibbles, bytes and two
 * bytes at a time.
 */
void
bf_counting_to_bits(const uint8_t *counters, uint64_t m, uint8_t *bits)
{
	size_t		words = (size_t) bf_counting_payload_bytes(m) / 8;
	size_t		bit_bytes = (size_t) bloom_payload_bytes(m);
	size_t		j;

	for (size_t w = 0; w < words; w++)
	{
		uint64_t	x = bf_load_le64(counters + 8 * w);

		if (w % (COUNTING_STRIDE / 8) == 0 && w > 0)
			bf_check_interrupts();
		x |= x >> 2;
		x |= x >> 1;
		x &= UINT64_C(0x1111111111111111);
		x = (x | (x >> 3)) & UINT64_C(0x0303030303030303);
		x = (x | (x >> 6)) & UINT64_C(0x000F000F000F000F);
		x = (x | (x >> 12)) & UINT64_C(0x000000FF000000FF);
		x = (x | (x >> 24)) & UINT64_C(0xFFFF);
		bits[2 * w] = (uint8_t) x;
		bits[2 * w + 1] = (uint8_t) (x >> 8);
	}

	/*
	 * m counters padded to a multiple of 16 may end before m bits padded to
	 * a multiple of 64: the rest of the bits is padding, zero
	 */
	for (j = 2 * words; j < bit_bytes; j++)
		bits[j] = 0;
}

/* ---- serialized forms ---- */

uint64_t
bf_counting_text_length(const BloomHeader *header)
{
	return bf_text_header_length_for(BF_COUNTING_TEXT_PREFIX, header) +
		bf_base64_length(bf_counting_payload_bytes(header->m));
}

void
bf_counting_text_encode(const BloomHeader *header, const uint8_t *counters, char *out)
{
	uint64_t	nbytes = bf_counting_payload_bytes(header->m);

	out = bf_text_encode_header_for(BF_COUNTING_TEXT_PREFIX, header, out);
	bf_base64_encode(counters, (size_t) nbytes, out);
	out[bf_base64_length(nbytes)] = '\0';
}

bf_status
bf_counting_text_decode_header(const char *text, size_t len, BloomHeader *header,
							   size_t *payload_offset)
{
	bf_status	status = bf_text_decode_header_for(BF_COUNTING_TEXT_PREFIX, text, len,
												   header, payload_offset);

	if (status == BF_SYNTAX)
		return BF_COUNTING_SYNTAX;
	if (status == BF_TOO_LARGE)
		return BF_COUNTING_TOO_LARGE;
	if (status != BF_OK)
		return status;
	return bf_counting_check_header(header);
}

bf_status
bf_counting_text_decode_counters(const char *base64, size_t len, const BloomHeader *header,
								 uint8_t *counters)
{
	bf_status	status = bf_counting_check_header(header);
	uint64_t	nbytes;

	if (status != BF_OK)
		return status;
	nbytes = bf_counting_payload_bytes(header->m);

	/* well-formed base64 of the wrong length is a length error */
	if (len % 4 != 0)
		return BF_BASE64;
	if ((uint64_t) len != bf_base64_length(nbytes))
		return BF_COUNTING_LENGTH;
	status = bf_base64_decode(base64, len, counters, (size_t) nbytes);
	if (status != BF_OK)
		return status;
	return bf_counting_check_counters(header, counters, (size_t) nbytes);
}

bf_status
bf_counting_binary_decode(const uint8_t *data, size_t len, BloomHeader *header,
						  const uint8_t **counters)
{
	bf_status	status;

	*counters = NULL;
	status = bf_binary_decode_header(data, len, header);
	if (status == BF_LENGTH)
		return BF_COUNTING_LENGTH;
	if (status == BF_TOO_LARGE)
		return BF_COUNTING_TOO_LARGE;
	if (status == BF_OK)
		status = bf_counting_check_header(header);
	if (status != BF_OK)
		return status;
	status = bf_counting_check_counters(header, data + BF_BINARY_HEADER_BYTES,
										len - BF_BINARY_HEADER_BYTES);
	if (status != BF_OK)
		return status;
	*counters = data + BF_BINARY_HEADER_BYTES;
	return BF_OK;
}
