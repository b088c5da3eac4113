/*
 * fuzz_text.c: libFuzzer harness for the text form (bf_text_decode_header,
 * bf_text_decode_bits), decoded as the type's input function does.
 *
 * The text form is canonical.  Whenever the header part decodes, printing
 * the header back gives exactly the bytes before the payload (checked with
 * snprintf, apart from the codec, so that it holds for any m, without
 * allocating the bits).  Whenever the whole input decodes, encoding it again
 * gives exactly the input, and its bit array has no padding bits set.
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *) data;
	BloomHeader header;
	size_t		payload_offset = 0;
	char		prefix[128];
	int			prefix_length;
	uint8_t    *bits;
	uint64_t	nbytes;
	uint64_t	length;
	char	   *encoded;

	if (bf_text_decode_header(text, size, &header, &payload_offset) == BF_OK)
	{
		prefix_length = snprintf(prefix, sizeof(prefix), "bloom:v%u:h%u:m%llu:k%u:",
								 header.format_version, header.hash_scheme,
								 (unsigned long long) header.m, header.k);
		if (header.flags != 0 && prefix_length > 0)
			prefix_length += snprintf(prefix + prefix_length, sizeof(prefix) - (size_t) prefix_length,
									  "f%u:", header.flags);
		FUZZ_ASSERT(prefix_length > 0 && (size_t) prefix_length == payload_offset);
		FUZZ_ASSERT(memcmp(prefix, text, payload_offset) == 0);
	}

	if (fuzz_decode_text(text, size, &header, &bits) != BF_OK)
		return 0;

	nbytes = bloom_payload_bytes(header.m);
	FUZZ_ASSERT(bf_check_header(&header) == BF_OK);
	FUZZ_ASSERT(bf_check_bits(&header, bits, (size_t) nbytes) == BF_OK);
	FUZZ_ASSERT(fuzz_padding_is_zero(header.m, bits, (size_t) nbytes));

	length = bf_text_length(&header);
	FUZZ_ASSERT(length == size);
	encoded = fuzz_malloc((size_t) length + 1);
	bf_text_encode(&header, bits, encoded);
	FUZZ_ASSERT(encoded[length] == '\0');
	FUZZ_ASSERT(memcmp(encoded, text, size) == 0);

	free(encoded);
	free(bits);
	return 0;
}
