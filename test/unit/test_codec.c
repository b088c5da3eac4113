/*
 * test_codec.c: unit tests of the serialized forms (codec.c): strict base64,
 * the text form and the binary form, against naive reference encoders and
 * every rule a decoder must enforce.
 */
#include "harness.h"

/* field by field: the struct has padding bytes */
static bool
header_equal(const BloomHeader *a, const BloomHeader *b)
{
	return a->format_version == b->format_version &&
		a->hash_scheme == b->hash_scheme && a->k == b->k &&
		a->flags == b->flags && a->m == b->m;
}

/* ---- base64 ---- */

/* A bit-at-a-time encoder, to hold the table-driven one to. */
static void
naive_base64(const uint8_t *src, size_t nbytes, char *dst)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t		nbits = 8 * nbytes;
	size_t		out = 0;

	for (size_t bit = 0; bit < nbits; bit += 6)
	{
		unsigned	value = 0;

		for (size_t j = bit; j < bit + 6; j++)
			value = value << 1 | (j < nbits ? (src[j / 8] >> (7 - j % 8)) & 1 : 0);
		dst[out++] = alphabet[value];
	}
	while (out % 4 != 0)
		dst[out++] = '=';
	dst[out] = '\0';
}

static bf_status
base64_decode_exact(const char *text, size_t len, uint8_t *dst, size_t nbytes)
{
	char	   *copy = exact_copy(text, len);
	bf_status	status = bf_base64_decode(copy, len, dst, nbytes);

	free(copy);
	return status;
}

UNIT_TEST(base64)
{
	static const struct
	{
		const char *bytes;
		const char *text;
	}			rfc4648[] = {
		{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"},
		{"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
		{"\xff\xff\xfe", "///+"}, {"\xfb\xef", "++8="},
	};
	uint8_t		data[200];
	uint8_t		decoded[200];
	char		text[300];
	char		expected[300];
	bool		round_trips = true;

	for (size_t i = 0; i < sizeof(rfc4648) / sizeof(rfc4648[0]); i++)
	{
		size_t		nbytes = strlen(rfc4648[i].bytes);

		CHECK_U64(bf_base64_length(nbytes), strlen(rfc4648[i].text));
		bf_base64_encode((const uint8_t *) rfc4648[i].bytes, nbytes, text);
		text[bf_base64_length(nbytes)] = '\0';
		CHECK(strcmp(text, rfc4648[i].text) == 0);
		CHECK_STATUS(base64_decode_exact(rfc4648[i].text, strlen(rfc4648[i].text), decoded, nbytes), BF_OK);
		CHECK(nbytes == 0 || memcmp(decoded, rfc4648[i].bytes, nbytes) == 0);
	}

	/* every length 0..100: table-driven encoder = naive one, and back */
	for (size_t nbytes = 0; nbytes <= 100; nbytes++)
	{
		uint8_t    *src;
		size_t		len = (size_t) bf_base64_length(nbytes);

		rng_fill(data, nbytes);
		src = exact_copy(data, nbytes);
		bf_base64_encode(src, nbytes, text);
		free(src);
		naive_base64(data, nbytes, expected);
		round_trips &= len == strlen(expected) && memcmp(text, expected, len) == 0;
		round_trips &= base64_decode_exact(text, len, decoded, nbytes) == BF_OK;
		round_trips &= nbytes == 0 || memcmp(decoded, data, nbytes) == 0;
	}
	CHECK(round_trips);

	CHECK_U64(bf_base64_length(UINT64_MAX), UINT64_MAX);	/* saturates */
	CHECK_U64(bf_base64_length(UINT64_MAX / 4 * 3), UINT64_MAX / 4 * 4);

	/* malformed, one class per line: decoding "foobar"-sized data */
	{
		static const struct
		{
			const char *text;
			size_t		nbytes;
		}			bad[] = {
			{"Zm9vYmF", 6},		/* one character short */
			{"Zm9vYmFyA", 6},	/* one character too many */
			{"Zm9vYmFyZm9v", 6},	/* one group too many */
			{"Zm9vYmFy", 5},	/* length of a different byte count */
			{"Zm9vYmFy", 7},
			{"", 1},
			{"Zm9v YmF", 6},	/* whitespace */
			{" Zm9vYmF", 6},
			{"Zm9vYmF\n", 6},
			{"Zm9vYmF\t", 6},
			{"Zm9v\r\nYm", 6},
			{"Zm9vYm-y", 6},	/* base64url alphabet */
			{"Zm9vYm_y", 6},
			{"Zm9vYm.y", 6},
			{"Zm9=YmFy", 6},	/* '=' not at the end */
			{"Zg==Zm9v", 4},
			{"Zm9v====", 4},	/* too much padding */
			{"Zm9=", 3},		/* padding where none is due */
			{"Zg=A", 1},		/* padding not at the end of the group */
			{"Z===", 1},
			{"=g==", 1},
			{"Zm=8", 2},
			{"Zg=", 1},			/* unpadded */
			{"Zg", 1},
			{"Zm8", 2},
			{"Zh==", 1},		/* non-zero unused bits */
			{"Zv==", 1},
			{"Zm9=", 2},
			{"Zm/=", 2},
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			CHECK_STATUS(base64_decode_exact(bad[i].text, strlen(bad[i].text), decoded, bad[i].nbytes), BF_BASE64);
		/* a NUL is just another bad character */
		CHECK_STATUS(base64_decode_exact("Zm9v\0mFy", 8, decoded, 6), BF_BASE64);
	}

	/* every byte value outside the alphabet, at every position of a group */
	{
		int			rejected = 0,
					accepted = 0;

		for (int c = 0; c < 256; c++)
			for (int position = 0; position < 4; position++)
			{
				char		group[4] = {'Z', 'm', '9', 'v'};

				group[position] = (char) c;
				if (base64_decode_exact(group, 4, decoded, 3) == BF_OK)
					accepted++;
				else
					rejected++;
			}
		CHECK(accepted == 4 * 64);
		CHECK(rejected == 4 * (256 - 64));
	}

	/*
	 * Uniqueness of the last group: of the 64^2 strings "xy==", exactly 256
	 * decode (one per byte), and of the 64^3 "xyz=", exactly 65536; each
	 * re-encodes to itself.
	 */
	{
		static const char alphabet[] =
			"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		int			accepted_1 = 0,
					accepted_2 = 0;
		bool		canonical = true;

		for (int x = 0; x < 64; x++)
			for (int y = 0; y < 64; y++)
			{
				char		group[4] = {alphabet[x], alphabet[y], '=', '='};

				if (bf_base64_decode(group, 4, decoded, 1) == BF_OK)
				{
					accepted_1++;
					bf_base64_encode(decoded, 1, text);
					canonical &= memcmp(text, group, 4) == 0;
				}
				for (int z = 0; z < 64; z++)
				{
					char		group3[4] = {alphabet[x], alphabet[y], alphabet[z], '='};

					if (bf_base64_decode(group3, 4, decoded, 2) == BF_OK)
					{
						accepted_2++;
						bf_base64_encode(decoded, 2, text);
						canonical &= memcmp(text, group3, 4) == 0;
					}
				}
			}
		CHECK(accepted_1 == 256);
		CHECK(accepted_2 == 65536);
		CHECK(canonical);
	}

	/* a large buffer crosses interrupt strides both ways */
	{
		size_t		nbytes = 3 * BF_INTERRUPT_STRIDE + 2;
		size_t		len = (size_t) bf_base64_length(nbytes);
		uint8_t    *src = xmalloc(nbytes);
		uint8_t    *back = xmalloc(nbytes);
		char	   *encoded = xmalloc(len);

		rng_fill(src, nbytes);
		bf_interrupt_hook = count_interrupt;
		interrupt_calls = 0;
		bf_base64_encode(src, nbytes, encoded);
		CHECK(interrupt_calls == 3);
		interrupt_calls = 0;
		CHECK_STATUS(bf_base64_decode(encoded, len, back, nbytes), BF_OK);
		CHECK(interrupt_calls == 3);
		bf_interrupt_hook = NULL;
		CHECK(memcmp(src, back, nbytes) == 0);
		/* a bad character late in the stream is still found */
		encoded[len - 100] = '*';
		CHECK_STATUS(bf_base64_decode(encoded, len, back, nbytes), BF_BASE64);
		free(src);
		free(back);
		free(encoded);
	}
}

/* ---- text form ---- */

/*
 * Decode a whole text form from a buffer of exactly len bytes, as bloom_in
 * would: header, then the bit array into a buffer the size m calls for.
 */
static bf_status
text_decode(const char *text, size_t len, BloomHeader *header, uint8_t **bits)
{
	char	   *copy = exact_copy(text, len);
	size_t		offset = 0;
	bf_status	status;

	*bits = NULL;
	status = bf_text_decode_header(copy, len, header, &offset);
	if (status == BF_OK)
	{
		CHECK(offset <= len);
		/* header-only cases use m up to BLOOM_M_MAX: don't allocate 1 GB */
		if (bloom_payload_bytes(header->m) <= ((size_t) 1 << 24))
		{
			*bits = xmalloc((size_t) bloom_payload_bytes(header->m));
			status = bf_text_decode_bits(copy + offset, len - offset, header, *bits);
		}
		else if (bf_base64_length(bloom_payload_bytes(header->m)) == len - offset)
			status = BF_OK;
		else
			status = BF_LENGTH;
	}
	free(copy);
	if (status != BF_OK)
	{
		free(*bits);
		*bits = NULL;
	}
	return status;
}

static char *
text_encode(const BloomHeader *header, const uint8_t *bits)
{
	char	   *text = xmalloc((size_t) bf_text_length(header) + 1);

	bf_text_encode(header, bits, text);
	return text;
}

UNIT_TEST(text_form)
{
	/* the example from core/core.h, and a golden filter holding the four golden values */
	{
		uint8_t		zero[8] = {0};
		char	   *text = text_encode(&valid_header, zero);

		CHECK(strcmp(text, "bloom:v1:h1:m18:k3:AAAAAAAAAAA=") == 0);
		CHECK_U64(bf_text_length(&valid_header), 31);
		free(text);
	}
	/* flags are a segment of their own, written only when set */
	{
		BloomHeader header = valid_header;
		uint8_t		zero[8] = {0};
		char	   *text;

		header.flags = BLOOM_FLAG_TEXT_UTF8;
		text = text_encode(&header, zero);
		CHECK(strcmp(text, "bloom:v1:h1:m18:k3:f1:AAAAAAAAAAA=") == 0);
		CHECK_U64(bf_text_length(&header), 34);
		free(text);
	}
	/* the header alone is a filter's shape (bloom_shape), read back by the header decoder */
	{
		BloomHeader header = valid_header;
		BloomHeader back;
		char		shape[64];
		char	   *end;
		size_t		payload_offset = 0;

		header.flags = BLOOM_FLAG_TEXT_UTF8;
		end = bf_text_encode_header(&header, shape);
		*end = '\0';
		CHECK(strcmp(shape, "bloom:v1:h1:m18:k3:f1:") == 0);
		CHECK_U64(bf_text_header_length(&header), strlen(shape));
		CHECK_STATUS(bf_text_decode_header(shape, strlen(shape), &back, &payload_offset), BF_OK);
		CHECK_U64(payload_offset, strlen(shape));
		CHECK(back.m == 18 && back.k == 3 && back.hash_scheme == 1 && back.flags == BLOOM_FLAG_TEXT_UTF8);
	}
	{
		BloomHeader header = {1, 1, 3, 0, 100};
		uint8_t		bits[16] = {0};
		const char *expected = "bloom:v1:h1:m100:k3:AABAAGABIAsEAAAEBgAAAA==";
		char	   *text;
		BloomHeader decoded;
		uint8_t    *decoded_bits;

		for (size_t g = 0; g < NGOLDEN; g++)
			bf_add_hash(bits, header.m, header.k, bf_hash_bytes(golden[g].bytes, golden[g].len));
		text = text_encode(&header, bits);
		CHECK(strcmp(text, expected) == 0);
		CHECK_STATUS(text_decode(expected, strlen(expected), &decoded, &decoded_bits), BF_OK);
		CHECK(decoded_bits != NULL && memcmp(decoded_bits, bits, 16) == 0);
		for (size_t g = 0; g < NGOLDEN && decoded_bits != NULL; g++)
			CHECK(bf_contains_hash(decoded_bits, header.m, header.k,
								   bf_hash_bytes(golden[g].bytes, golden[g].len)));
		free(text);
		free(decoded_bits);
	}

	/* round trips over many shapes; length exact */
	{
		bool		ok = true;

		for (int trial = 0; trial < 400; trial++)
		{
			BloomHeader header = {1, 1, (uint8_t) (1 + rng_next() % 64), 0,
			trial < 300 ? (uint64_t) trial + 1 : 1 + rng_next() % 2000000};
			size_t		nbytes = (size_t) bloom_payload_bytes(header.m);
			uint8_t    *bits = xmalloc(nbytes);
			uint8_t    *decoded_bits;
			BloomHeader decoded;
			char	   *text;

			memset(bits, 0, nbytes);
			for (int i = 0; i < 20; i++)
				bf_add_hash(bits, header.m, header.k, (bf_hash) {rng_next(), rng_next()});
			text = text_encode(&header, bits);
			ok &= strlen(text) == bf_text_length(&header);
			ok &= text_decode(text, strlen(text), &decoded, &decoded_bits) == BF_OK;
			ok &= decoded_bits != NULL &&
				header_equal(&decoded, &header) &&
				memcmp(decoded_bits, bits, nbytes) == 0;
			free(bits);
			free(decoded_bits);
			free(text);
		}
		CHECK(ok);
	}
	{
		BloomHeader header = {1, 1, 64, 0, BLOOM_M_MAX};

		/* "bloom:v1:h1:m8589934400:k64:" + 4 * ceil(1073741800 / 3) */
		CHECK_U64(bf_text_length(&header), 28 + 1431655736);
	}

	/* malformed text, one class per line */
	{
		static const struct
		{
			const char *text;
			bf_status	status;
		}			cases[] = {
			{"bloom:v1:h1:m18:k3:AAAAAAAAAAA=", BF_OK},
			{"bloom:v1:h1:m1:k1:AAAAAAAAAAA=", BF_OK},
			{"bloom:v1:h1:m64:k64://////////8=", BF_OK},
			{"bloom:v1:h1:m8589934400:k3:", BF_LENGTH},	/* header fine, payload short */
			{"", BF_SYNTAX},
			{"bloom", BF_SYNTAX},
			{"bloom:", BF_SYNTAX},
			{"bloom:v", BF_SYNTAX},
			{"bloom:v1", BF_SYNTAX},
			{"bloom:v1:", BF_SYNTAX},
			{"bloom:v1:h1:m18:k3", BF_SYNTAX},
			{"Bloom:v1:h1:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"BLOOM:V1:H1:M18:K3:AAAAAAAAAAA=", BF_SYNTAX},
			{" bloom:v1:h1:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom: v1:h1:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1 :h1:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m 18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m18:k3 :AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom;v1;h1;m18;k3;AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:m18:h1:k3:AAAAAAAAAAA=", BF_SYNTAX},	/* order */
			{"bloom:v1:h1:k3:m18:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:k3:AAAAAAAAAAA=", BF_SYNTAX},	/* missing field */
			{"bloom:v1:h1:m18:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m18:k:AAAAAAAAAAA=", BF_SYNTAX},	/* no digits */
			{"bloom:v1:h:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v:h1:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v01:h1:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},	/* leading zeros */
			{"bloom:v1:h01:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m018:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m00:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m18:k03:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m+18:k3:AAAAAAAAAAA=", BF_SYNTAX},	/* signs */
			{"bloom:v1:h1:m-18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v+1:h1:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m0x12:k3:AAAAAAAAAAA=", BF_SYNTAX},	/* not decimal */
			{"bloom:v1:h1:m1e3:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m18.0:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m18:k3:x:AAAAAAAAAAA=", BF_BASE64},	/* extra field */
			{"bloom:v1:h1:m18:k3:f1:AAAAAAAAAAA=", BF_OK},	/* flags */
			{"bloom:v1:h1:m18:k3:f0:AAAAAAAAAAA=", BF_SYNTAX},	/* no flags: no segment */
			{"bloom:v1:h1:m18:k3:f01:AAAAAAAAAAA=", BF_LENGTH},	/* read as payload */
			{"bloom:v1:h1:m18:k3:f2:AAAAAAAAAAA=", BF_FLAGS},
			{"bloom:v1:h1:m18:k3:f257:AAAAAAAAAAA=", BF_FLAGS},
			{"bloom:v1:h1:m18:k3:f1:f1:AAAAAAAAAAA=", BF_BASE64},
			{"bloom:v1:h1:m64:k3:f1AAAAAAAAA=", BF_OK},	/* base64 may start f<digit> */
			{"bloom:v1:h1:m18:k3:AAAAAAAAAAA=:f1", BF_BASE64},
			{"bloom:v2:h1:m18:k3:AAAAAAAAAAA=", BF_FORMAT_VERSION},
			{"bloom:v0:h1:m18:k3:AAAAAAAAAAA=", BF_FORMAT_VERSION},
			{"bloom:v257:h1:m18:k3:AAAAAAAAAAA=", BF_FORMAT_VERSION},	/* 257 = 1 mod 256 */
			{"bloom:v18446744073709551617:h1:m18:k3:AAAAAAAAAAA=", BF_FORMAT_VERSION},
			{"bloom:v99999999999999999999999999:h1:m18:k3:AAAAAAAAAAA=", BF_FORMAT_VERSION},
			{"bloom:v2:a later format may look different", BF_FORMAT_VERSION},
			{"bloom:v1:h0:m18:k3:AAAAAAAAAAA=", BF_HASH_SCHEME},
			{"bloom:v1:h3:m18:k3:AAAAAAAAAAA=", BF_HASH_SCHEME},
			{"bloom:v1:h2:m18:k3:AAAAAAAAAAA=", BF_BLOCK_SHAPE},
			{"bloom:v1:h257:m18:k3:AAAAAAAAAAA=", BF_HASH_SCHEME},
			{"bloom:v1:h18446744073709551617:m18:k3:AAAAAAAAAAA=", BF_HASH_SCHEME},
			{"bloom:v1:h1:m18:k0:AAAAAAAAAAA=", BF_K_RANGE},
			{"bloom:v1:h1:m18:k65:AAAAAAAAAAA=", BF_K_RANGE},
			{"bloom:v1:h1:m18:k259:AAAAAAAAAAA=", BF_K_RANGE},	/* 259 = 3 mod 256 */
			{"bloom:v1:h1:m18:k18446744073709551619:AAAAAAAAAAA=", BF_K_RANGE},
			{"bloom:v1:h1:m0:k3:AAAAAAAAAAA=", BF_M_RANGE},
			{"bloom:v1:h1:m8589934401:k3:AAAAAAAAAAA=", BF_TOO_LARGE},
			{"bloom:v1:h1:m18446744073709551615:k3:AAAAAAAAAAA=", BF_TOO_LARGE},
			{"bloom:v1:h1:m18446744073709551616:k3:AAAAAAAAAAA=", BF_TOO_LARGE},	/* 2^64 */
			{"bloom:v1:h1:m18446744073709551634:k3:AAAAAAAAAAA=", BF_TOO_LARGE},	/* 2^64 + 18 */
			{"bloom:v1:h1:m999999999999999999999999999999:k3:AAAAAAAAAAA=", BF_TOO_LARGE},
			{"bloom:v1:h1:m18:k3:", BF_LENGTH},	/* payload length */
			{"bloom:v1:h1:m18:k3:AAAAAAAA", BF_LENGTH},
			{"bloom:v1:h1:m18:k3:AAAAAAAAAAA=AAAA", BF_LENGTH},
			{"bloom:v1:h1:m64:k3:AAAAAAAAAAA=", BF_OK},
			{"bloom:v1:h1:m65:k3:AAAAAAAAAAA=", BF_LENGTH},
			{"bloom:v1:h1:m18:k3:AAAAAAAAAAA", BF_BASE64},	/* base64 */
			{"bloom:v1:h1:m18:k3:AAAAAAAAAAA=A", BF_BASE64},
			{"bloom:v1:h1:m18:k3:AAAAAAAAAA==", BF_BASE64},
			{"bloom:v1:h1:m18:k3:AAAAAAAAAAAA", BF_BASE64},
			{"bloom:v1:h1:m18:k3:AAAAAAAAAAB=", BF_BASE64},	/* unused bits */
			{"bloom:v1:h1:m18:k3:AAAAAA AAAA=", BF_BASE64},
			{"bloom:v1:h1:m18:k3:AAAAAAAAAAA=\n", BF_BASE64},
			{"bloom:v1:h1:m18:k3:AAAAAAAAAAA=\n\n\n\n", BF_LENGTH},
			{"bloom:v1:h1:m18:k3:AAAEAAAAAAA=", BF_PADDING_BITS},	/* bit 18 */
			{"bloom:v1:h1:m18:k3:AAACAAAAAAA=", BF_OK},	/* bit 17 */
			{"bloom:v1:h1:m18:k3:AAAAAAAAAIA=", BF_PADDING_BITS},	/* bit 63 */
			{"bloom:v1:h1:m64:k3:AAAAAAAAAIA=", BF_OK},
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		{
			BloomHeader header;
			uint8_t    *bits;
			bf_status	status = text_decode(cases[i].text, strlen(cases[i].text), &header, &bits);

			if (status != cases[i].status)
				fprintf(stderr, "    text: \"%s\"\n", cases[i].text);
			CHECK_STATUS(status, cases[i].status);
			free(bits);
		}
	}

	/* every proper prefix of a valid text form is rejected */
	{
		const char *valid = "bloom:v1:h1:m100:k3:AABAAGABIAsEAAAEBgAAAA==";
		bool		all_rejected = true;

		for (size_t len = 0; len < strlen(valid); len++)
		{
			BloomHeader header;
			uint8_t    *bits;

			all_rejected &= text_decode(valid, len, &header, &bits) != BF_OK;
			free(bits);
		}
		CHECK(all_rejected);
	}
}

/* ---- binary form ---- */

static bf_status
binary_decode_exact(const uint8_t *data, size_t len, BloomHeader *header)
{
	uint8_t    *copy = exact_copy(data, len);
	const uint8_t *bits;
	bf_status	status = bf_binary_decode(copy, len, header, &bits);

	if (status == BF_OK)
		CHECK(bits == copy + BF_BINARY_HEADER_BYTES);
	else
		CHECK(bits == NULL);
	free(copy);
	return status;
}

UNIT_TEST(binary_form)
{
	/* m = 18: header bytes, big-endian m, then 8 bytes of bits */
	uint8_t		valid[BF_BINARY_HEADER_BYTES + 8] = {0};
	uint8_t		form[BF_BINARY_HEADER_BYTES + 16];
	BloomHeader header;

	bf_binary_encode_header(&valid_header, valid);
	CHECK(memcmp(valid, "\x01\x01\x03\x00\x00\x00\x00\x00\x00\x00\x00\x12", 12) == 0);
	valid[BF_BINARY_HEADER_BYTES + 2] = 0x02;	/* bit 17, the last one */
	CHECK_STATUS(binary_decode_exact(valid, sizeof(valid), &header), BF_OK);
	CHECK(header_equal(&header, &valid_header));

	{
		BloomHeader big = {1, 1, 7, 0, 0x0102030405060708};

		bf_binary_encode_header(&big, form);
		CHECK(memcmp(form, "\x01\x01\x07\x00\x01\x02\x03\x04\x05\x06\x07\x08", 12) == 0);
	}

	/* round trips */
	{
		bool		ok = true;

		for (int trial = 0; trial < 300; trial++)
		{
			BloomHeader h = {1, 1, (uint8_t) (1 + rng_next() % 64), 0, 1 + rng_next() % 100000};
			size_t		nbytes = (size_t) bloom_payload_bytes(h.m);
			uint8_t    *data = xmalloc(BF_BINARY_HEADER_BYTES + nbytes);
			BloomHeader decoded;

			bf_binary_encode_header(&h, data);
			memset(data + BF_BINARY_HEADER_BYTES, 0, nbytes);
			for (int i = 0; i < 50; i++)
				bf_add_hash(data + BF_BINARY_HEADER_BYTES, h.m, h.k, (bf_hash) {rng_next(), rng_next()});
			ok &= binary_decode_exact(data, BF_BINARY_HEADER_BYTES + nbytes, &decoded) == BF_OK;
			ok &= header_equal(&decoded, &h);
			free(data);
		}
		CHECK(ok);
	}

	/* every truncation, then each field wrong in turn */
	for (size_t len = 0; len < sizeof(valid); len++)
		CHECK_STATUS(binary_decode_exact(valid, len, &header), BF_LENGTH);
	{
		static const struct
		{
			size_t		offset;
			uint8_t		value;
			bf_status	status;
		}			cases[] = {
			{0, 0, BF_FORMAT_VERSION},
			{0, 2, BF_FORMAT_VERSION},
			{0, 0xff, BF_FORMAT_VERSION},
			{1, 0, BF_HASH_SCHEME},
			{1, 3, BF_HASH_SCHEME},
			{1, 2, BF_BLOCK_SHAPE},	/* m = 18 */
			{2, 0, BF_K_RANGE},
			{2, 65, BF_K_RANGE},
			{2, 0xff, BF_K_RANGE},
			{3, 1, BF_OK},	/* BLOOM_FLAG_TEXT_UTF8 */
			{3, 2, BF_FLAGS},
			{3, 0x80, BF_FLAGS},
			{4, 0x01, BF_TOO_LARGE},	/* m's most significant byte */
			{7, 0x02, BF_TOO_LARGE},	/* m = 2^33 + 18 > BLOOM_M_MAX */
			{8, 0x01, BF_LENGTH},	/* m = 2^24 + 18: bit array too short */
			{11, 0x00, BF_M_RANGE},	/* m = 0 */
			{11, 0x40, BF_OK},	/* m = 64 */
			{11, 0x41, BF_LENGTH},	/* m = 65 needs 16 bytes */
			{11, 0x11, BF_PADDING_BITS},	/* m = 17: the set bit 17 is padding */
			{BF_BINARY_HEADER_BYTES + 2, 0x04, BF_PADDING_BITS},	/* bit 18 */
			{BF_BINARY_HEADER_BYTES + 7, 0x80, BF_PADDING_BITS},	/* bit 63 */
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		{
			uint8_t		data[sizeof(valid)];

			memcpy(data, valid, sizeof(valid));
			data[cases[i].offset] = cases[i].value;
			CHECK_STATUS(binary_decode_exact(data, sizeof(data), &header), cases[i].status);
		}
	}

	/* m written little-endian is a different, too-large m */
	{
		uint8_t		data[sizeof(valid)];

		memcpy(data, valid, sizeof(valid));
		memset(data + 4, 0, 8);
		data[4] = 18;
		CHECK_STATUS(binary_decode_exact(data, sizeof(data), &header), BF_TOO_LARGE);
	}

	/* extra bytes */
	memset(form, 0, sizeof(form));
	memcpy(form, valid, sizeof(valid));
	CHECK_STATUS(binary_decode_exact(form, sizeof(valid) + 1, &header), BF_LENGTH);
	CHECK_STATUS(binary_decode_exact(form, sizeof(valid) + 8, &header), BF_LENGTH);
}

/*
 * The sparse binary form: expanded, it is the binary form, at every fill
 * from empty to full; shorter than the binary form while the filter is
 * sparse; and a truncation, a wrong marker or a byte of the array past its
 * end is refused.  (The binary form's own checks, run on the expanded
 * form, catch a padding bit.)
 */
static bool
sparse_round_trip(const BloomHeader *h, const uint8_t *bits, size_t nbytes, size_t *length)
{
	uint8_t    *form = xmalloc(BF_BINARY_HEADER_BYTES + bf_sparse_bound(nbytes));
	uint8_t    *plain = xmalloc(BF_BINARY_HEADER_BYTES + nbytes);
	BloomHeader decoded;
	const uint8_t *decoded_bits;
	bool		ok;

	*length = bf_binary_sparse_encode(h, bits, nbytes, form);
	memset(plain, 0, BF_BINARY_HEADER_BYTES + nbytes);
	ok = bf_binary_sparse_header(form, *length, plain) == BF_OK &&
		bf_binary_sparse_expand(form, *length, nbytes, plain + BF_BINARY_HEADER_BYTES) &&
		binary_decode_exact(plain, BF_BINARY_HEADER_BYTES + nbytes, &decoded) == BF_OK &&
		header_equal(&decoded, h) &&
		bf_binary_decode(plain, BF_BINARY_HEADER_BYTES + nbytes, &decoded, &decoded_bits) == BF_OK &&
		memcmp(decoded_bits, bits, nbytes) == 0;
	free(form);
	free(plain);
	return ok;
}

UNIT_TEST(binary_sparse_form)
{
	bool		round_trips = true;
	bool		shorter_when_sparse = true;

	for (int trial = 0; trial < 200; trial++)
	{
		BloomHeader h = {1, 1, (uint8_t) (1 + rng_next() % 16), 0, 1 + rng_next() % 50000};
		size_t		nbytes = (size_t) bloom_payload_bytes(h.m);
		uint8_t    *bits = xmalloc(nbytes);
		int			values = trial % 4 == 0 ? 0 : (int) (rng_next() % (h.m / 4 + 2));
		size_t		length;

		memset(bits, 0, nbytes);
		for (int i = 0; i < values; i++)
			bf_add_hash(bits, h.m, h.k, (bf_hash) {rng_next(), rng_next()});
		round_trips &= sparse_round_trip(&h, bits, nbytes, &length);
		if (bf_popcount(bits, nbytes) * 16 < h.m && nbytes >= 64)
			shorter_when_sparse &= length < BF_BINARY_HEADER_BYTES + nbytes;
		free(bits);
	}
	CHECK(round_trips);
	CHECK(shorter_when_sparse);

	{
		/* m = 18: bit 17 set, then the form's bytes are header, kind, mask, byte */
		uint8_t		bits[8] = {0, 0, 0x02, 0, 0, 0, 0, 0};
		uint8_t		form[BF_BINARY_HEADER_BYTES + 16];
		uint8_t		plain[BF_BINARY_HEADER_BYTES + 8];
		size_t		length = bf_binary_sparse_encode(&valid_header, bits, 8, form);
		bool		refused = true;

		CHECK(length == BF_BINARY_HEADER_BYTES + 1 + 8 + 1);
		CHECK(form[0] == BF_BINARY_SPARSE_MARKER);
		for (size_t len = 0; len < length; len++)
			refused &= bf_binary_sparse_header(form, len, plain) != BF_OK ||
				!bf_binary_sparse_expand(form, len, 8, NULL);
		CHECK(refused);
		/* the plain binary form is not sparse, and a sparse one is not plain */
		{
			uint8_t		header[BF_BINARY_HEADER_BYTES];
			BloomHeader decoded;

			bf_binary_encode_header(&valid_header, plain);
			CHECK_STATUS(bf_binary_sparse_header(plain, sizeof(plain), header), BF_FORMAT_VERSION);
			CHECK_STATUS(binary_decode_exact(form, length, &decoded), BF_FORMAT_VERSION);
		}
		/* a mask bit past the array's 8 bytes */
		form[BF_BINARY_HEADER_BYTES + 2] = 0x01;
		CHECK(!bf_binary_sparse_expand(form, length, 8, NULL));
	}
}
