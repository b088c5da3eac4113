/*
 * fuzz_binary.c: libFuzzer harness for the binary form (bf_binary_decode).
 *
 * The binary form is canonical, so whatever decodes must encode back to
 * exactly the input bytes.  A valid filter must also survive the text form:
 * encoded and decoded as the type's output and input functions do, it comes
 * back with the same header and bits.
 */
#include "fuzz.h"

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
