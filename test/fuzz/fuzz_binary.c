/*
 * fuzz_binary.c: libFuzzer harness for the binary form (bf_binary_decode).
 *
 * The binary form is canonical, so whatever decodes must encode back to
 * exactly the input bytes.  A valid filter must also survive the text form:
 * encoded and decoded as the type's output and input functions do, it comes
 * back with the same header and bits.
 *
 * An input that starts with the sparse marker is read as bloom_recv reads
 * it: expanded (bf_binary_sparse_header, bf_binary_sparse_expand) into a
 * binary form that the checks above then take; encoded sparse again, it is
 * no longer than the input (a stored byte may be zero where the encoder
 * would have left it out) and expands to the same bits.
 */
#include "fuzz.h"

/* the largest bit array the sparse round trip allocates (three times) */
#define FUZZ_BINARY_MAX_PAYLOAD ((size_t) 64 << 20)

/* The sparse form of data, expanded as bloom_recv does: 1 when it is one and well formed. */
static int
fuzz_sparse(const uint8_t *data, size_t size)
{
	uint8_t		plain_header[BF_BINARY_HEADER_BYTES];
	BloomHeader header;
	const uint8_t *bits;
	uint8_t    *plain;
	uint8_t    *again;
	size_t		nbytes;
	size_t		length;

	if (bf_binary_sparse_header(data, size, plain_header) != BF_OK ||
		bf_binary_decode_header(plain_header, sizeof(plain_header), &header) != BF_OK)
		return 0;
	nbytes = (size_t) bloom_payload_bytes(header.m);
	/*
	 * A few bytes of sparse form can claim a filter of up to 1 GB (all
	 * zero): the harness allocates it three times, past libFuzzer's memory
	 * limit.  The checks of a claimed size do not depend on it, and a
	 * filter of 64 MiB has every form and kind.
	 */
	if (nbytes > FUZZ_BINARY_MAX_PAYLOAD)
		return 0;
	/* the input is checked before the array it claims is allocated */
	if (!bf_binary_sparse_expand(data, size, nbytes, NULL))
		return 0;
	FUZZ_ASSERT(size - BF_BINARY_HEADER_BYTES >= 1 + 8);
	plain = fuzz_malloc(BF_BINARY_HEADER_BYTES + nbytes);
	memcpy(plain, plain_header, sizeof(plain_header));
	memset(plain + BF_BINARY_HEADER_BYTES, 0, nbytes);
	FUZZ_ASSERT(bf_binary_sparse_expand(data, size, nbytes, plain + BF_BINARY_HEADER_BYTES));
	if (bf_binary_decode(plain, BF_BINARY_HEADER_BYTES + nbytes, &header, &bits) == BF_OK)
	{
		uint8_t    *back = fuzz_malloc(nbytes);

		again = fuzz_malloc(BF_BINARY_HEADER_BYTES + bf_sparse_bound(nbytes));
		length = bf_binary_sparse_encode(&header, bits, nbytes, again);
		FUZZ_ASSERT(length <= size);
		memset(back, 0, nbytes);
		FUZZ_ASSERT(bf_binary_sparse_expand(again, length, nbytes, back));
		FUZZ_ASSERT(memcmp(back, bits, nbytes) == 0);
		free(back);
		free(again);
	}
	free(plain);
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	BloomHeader header;
	BloomHeader text_header;
	const uint8_t *bits;
	uint8_t    *text_bits;
	uint8_t    *encoded;
	uint64_t	nbytes;
	uint64_t	text_length;
	char	   *text;

	if (size > 0 && data[0] == BF_BINARY_SPARSE_MARKER)
	{
		fuzz_sparse(data, size);
		return 0;
	}
	if (bf_binary_decode(data, size, &header, &bits) != BF_OK)
		return 0;

	nbytes = bloom_payload_bytes(header.m);
	FUZZ_ASSERT(bits == data + BF_BINARY_HEADER_BYTES);
	FUZZ_ASSERT(size == BF_BINARY_HEADER_BYTES + nbytes);
	FUZZ_ASSERT(bf_check_header(&header) == BF_OK);
	FUZZ_ASSERT(bf_check_bits(&header, bits, (size_t) nbytes) == BF_OK);
	FUZZ_ASSERT(fuzz_padding_is_zero(header.m, bits, (size_t) nbytes));

	/* binary round trip, byte for byte */
	encoded = fuzz_malloc(size);
	bf_binary_encode_header(&header, encoded);
	memcpy(encoded + BF_BINARY_HEADER_BYTES, bits, (size_t) nbytes);
	FUZZ_ASSERT(memcmp(encoded, data, size) == 0);
	free(encoded);

	/* through the text form and back */
	text_length = bf_text_length(&header);
	text = fuzz_malloc((size_t) text_length + 1);
	bf_text_encode(&header, bits, text);
	FUZZ_ASSERT(strlen(text) == text_length);
	FUZZ_ASSERT(fuzz_decode_text(text, (size_t) text_length, &text_header,
								 &text_bits) == BF_OK);
	FUZZ_ASSERT(fuzz_header_equal(&header, &text_header));
	FUZZ_ASSERT(memcmp(bits, text_bits, (size_t) nbytes) == 0);
	free(text_bits);
	free(text);
	return 0;
}
