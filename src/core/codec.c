/*
 * core/codec.c: the text and binary forms of a filter, and strict base64.
 *
 * Text form (type input and output):
 *
 *     bloom:v<format>:h<scheme>:m<m>:k<k>:[f<flags>:]<base64 of the bit array>
 *     bloom:v1:h1:m18:k3:AAAAAAAAAAA=
 *     bloom:v1:h1:m18:k3:f1:AAAAAAAAAAA=
 *
 * The flags segment is there only when the header's flags are not zero, so
 * a filter without flags reads as it did before flags existed, and releases
 * that know no flags refuse one with flags (':' is not base64).
 *
 * Binary form (send and recv): format_version, hash_scheme, k, flags (one
 * byte each), m (8 bytes, big-endian), then the bit array as stored.
 *
 * Both forms are canonical: numbers are decimal without sign or leading
 * zeros, base64 is the standard alphabet with '=' padding and zero unused
 * bits, and padding bits after position m - 1 are zero.  Any other spelling
 * is rejected, so a filter has exactly one text form and one binary form,
 * and equal filters compare equal byte for byte in either.
 *
 * Every decoder takes an explicit length, never relies on a terminating NUL,
 * and never reads outside [0, len): these functions see untrusted input and
 * are fuzzed (test/).
 */
#include "core/core.h"

static const char base64_alphabet[65] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The 6-bit value of each base64 character; 0xff for anything else, '=' too. */
static const uint8_t base64_value[256] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3e, 0xff, 0xff, 0xff, 0x3f,
	0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
	0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28,
	0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f, 0x30, 0x31, 0x32, 0x33, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/*
 * Groups of 3 bytes (4 characters) between calls of the interrupt hook:
 * about BF_INTERRUPT_STRIDE bytes of bit array.
 */
#define BASE64_STRIDE_GROUPS (BF_INTERRUPT_STRIDE / 3)

/* ---- base64 ---- */

/* 4 characters per started group of 3 bytes; saturates instead of wrapping. */
uint64_t
bf_base64_length(uint64_t nbytes)
{
	uint64_t	groups = nbytes / 3 + (nbytes % 3 != 0);

	if (groups > UINT64_MAX / 4)
		return UINT64_MAX;
	return groups * 4;
}

/*
 * The two characters of each 12-bit value, so that a 3-byte group takes two
 * look-ups instead of four.  8 kB, filled on first use from the alphabet.
 */
static char base64_pairs[4096][2];
static bool base64_pairs_ready = false;

static void
base64_fill_pairs(void)
{
	for (int v = 0; v < 4096; v++)
	{
		base64_pairs[v][0] = base64_alphabet[v >> 6];
		base64_pairs[v][1] = base64_alphabet[v & 63];
	}
	base64_pairs_ready = true;
}

/* Writes bf_base64_length(nbytes) characters; no NUL. */
void
bf_base64_encode(const uint8_t *src, size_t nbytes, char *dst)
{
	size_t		groups = nbytes / 3;
	size_t		rest = nbytes % 3;

	if (!base64_pairs_ready)
		base64_fill_pairs();
	for (size_t start = 0; start < groups; start += BASE64_STRIDE_GROUPS)
	{
		size_t		end = groups - start < BASE64_STRIDE_GROUPS ? groups : start + BASE64_STRIDE_GROUPS;
		const uint8_t *in = src + 3 * start;
		char	   *out = dst + 4 * start;

		if (start > 0)
			bf_check_interrupts();
		for (size_t i = start; i < end; i++)
		{
			uint32_t	v = (uint32_t) in[0] << 16 | (uint32_t) in[1] << 8 | in[2];

			memcpy(out, base64_pairs[v >> 12], 2);
			memcpy(out + 2, base64_pairs[v & 0xfff], 2);
			in += 3;
			out += 4;
		}
	}

	if (rest > 0)
	{
		const uint8_t *in = src + 3 * groups;
		char	   *out = dst + 4 * groups;
		uint32_t	v = (uint32_t) in[0] << 16 | (rest == 2 ? (uint32_t) in[1] << 8 : 0);

		out[0] = base64_alphabet[v >> 18];
		out[1] = base64_alphabet[(v >> 12) & 63];
		out[2] = rest == 2 ? base64_alphabet[(v >> 6) & 63] : '=';
		out[3] = '=';
	}
}

/*
 * The 12-bit value of each pair of characters, or BASE64_BAD_PAIR when
 * either is not in the alphabet: a 4-character group takes two look-ups.
 * 128 kB, of which valid input touches about 12 kB; filled on first use.
 */
#define BASE64_BAD_PAIR 0x8000
static uint16_t base64_pair_values[65536];
static bool base64_pair_values_ready = false;

static void
base64_fill_pair_values(void)
{
	for (int first = 0; first < 256; first++)
		for (int second = 0; second < 256; second++)
		{
			uint8_t		a = base64_value[first],
						b = base64_value[second];

			base64_pair_values[first << 8 | second] =
				(a | b) & 0x80 ? BASE64_BAD_PAIR : (uint16_t) (a << 6 | b);
		}
	base64_pair_values_ready = true;
}

/*
 * Decode the canonical base64 form of exactly nbytes bytes into dst.  len
 * must be bf_base64_length(nbytes); '=' may only pad the last group; the
 * bits of the last character that fall beyond the data must be zero.
 */
bf_status
bf_base64_decode(const char *src, size_t len, uint8_t *dst, size_t nbytes)
{
	const uint8_t *text = (const uint8_t *) src;
	size_t		groups = nbytes / 3;
	size_t		rest = nbytes % 3;

	if ((uint64_t) len != bf_base64_length(nbytes))
		return BF_BASE64;

	if (!base64_pair_values_ready)
		base64_fill_pair_values();
	for (size_t start = 0; start < groups; start += BASE64_STRIDE_GROUPS)
	{
		size_t		end = groups - start < BASE64_STRIDE_GROUPS ? groups : start + BASE64_STRIDE_GROUPS;
		const uint8_t *in = text + 4 * start;
		uint8_t    *out = dst + 3 * start;

		uint32_t	seen = 0;

		if (start > 0)
			bf_check_interrupts();
		for (size_t i = start; i < end; i++)
		{
			uint32_t	high = base64_pair_values[in[0] << 8 | in[1]],
						low = base64_pair_values[in[2] << 8 | in[3]];
			uint32_t	v = high << 12 | low;

			seen |= high | low;
			out[0] = (uint8_t) (v >> 16);
			out[1] = (uint8_t) (v >> 8);
			out[2] = (uint8_t) v;
			in += 4;
			out += 3;
		}

		/*
		 * BASE64_BAD_PAIR marks a pair with a bad character; valid values
		 * are below 4096.  Checked once a stride, not once a group: a bad
		 * input is refused all the same (what was written into dst is then
		 * discarded), and the loop has no branch.
		 */
		if ((seen & BASE64_BAD_PAIR) != 0)
			return BF_BASE64;
	}

	if (rest > 0)
	{
		const uint8_t *in = text + 4 * groups;
		uint8_t    *out = dst + 3 * groups;
		uint32_t	a = base64_value[in[0]],
					b = base64_value[in[1]];

		if (((a | b) & 0x80) != 0 || in[3] != '=')
			return BF_BASE64;
		if (rest == 1)
		{
			/* xy==: 12 bits carry 8; the low 4 bits of y must be zero */
			if (in[2] != '=' || (b & 0x0f) != 0)
				return BF_BASE64;
			out[0] = (uint8_t) (a << 2 | b >> 4);
		}
		else
		{
			/* xyz=: 18 bits carry 16; the low 2 bits of z must be zero */
			uint32_t	c = base64_value[in[2]];

			if ((c & 0x80) != 0 || (c & 0x03) != 0)
				return BF_BASE64;
			out[0] = (uint8_t) (a << 2 | b >> 4);
			out[1] = (uint8_t) ((b & 0x0f) << 4 | c >> 2);
		}
	}
	return BF_OK;
}

/* ---- text form ---- */

#define TEXT_PREFIX "bloom:"

static unsigned
decimal_digits(uint64_t value)
{
	unsigned	digits = 1;

	while (value >= 10)
	{
		value /= 10;
		digits++;
	}
	return digits;
}

/* Write value in decimal at out; return the position after it. */
static char *
write_decimal(char *out, uint64_t value)
{
	unsigned	digits = decimal_digits(value);

	for (unsigned i = digits; i > 0; i--)
	{
		out[i - 1] = (char) ('0' + value % 10);
		value /= 10;
	}
	return out + digits;
}

/*
 * "bloom:" "v" V ":h" H ":m" M ":k" K ":": 14 characters besides the four
 * numbers; "f" F ":" when flags are set.  The base64 follows.  Another type
 * with this header (a counting filter) spells it with its own prefix.
 */
uint64_t
bf_text_header_length_for(const char *prefix, const BloomHeader *header)
{
	return strlen(prefix) + 8 +
		decimal_digits(header->format_version) +
		decimal_digits(header->hash_scheme) +
		decimal_digits(header->m) +
		decimal_digits(header->k) +
		(header->flags != 0 ? 2 + decimal_digits(header->flags) : 0);
}

uint64_t
bf_text_header_length(const BloomHeader *header)
{
	return bf_text_header_length_for(TEXT_PREFIX, header);
}

uint64_t
bf_text_length(const BloomHeader *header)
{
	return bf_text_header_length(header) + bf_base64_length(bloom_payload_bytes(header->m));
}

char *
bf_text_encode_header(const BloomHeader *header, char *out)
{
	return bf_text_encode_header_for(TEXT_PREFIX, header, out);
}

char *
bf_text_encode_header_for(const char *prefix, const BloomHeader *header, char *out)
{
	size_t		prefix_length = strlen(prefix);

	memcpy(out, prefix, prefix_length);
	out += prefix_length;
	*out++ = 'v';
	out = write_decimal(out, header->format_version);
	*out++ = ':';
	*out++ = 'h';
	out = write_decimal(out, header->hash_scheme);
	*out++ = ':';
	*out++ = 'm';
	out = write_decimal(out, header->m);
	*out++ = ':';
	*out++ = 'k';
	out = write_decimal(out, header->k);
	*out++ = ':';
	if (header->flags != 0)
	{
		*out++ = 'f';
		out = write_decimal(out, header->flags);
		*out++ = ':';
	}
	return out;
}

void
bf_text_encode(const BloomHeader *header, const uint8_t *bits, char *out)
{
	uint64_t	nbytes = bloom_payload_bytes(header->m);

	out = bf_text_encode_header(header, out);
	bf_base64_encode(bits, (size_t) nbytes, out);
	out[bf_base64_length(nbytes)] = '\0';
}

/*
 * Parse "<tag><decimal>:" at text[*pos], advancing *pos past the colon.  The
 * number has at least one digit and no leading zero; a value too large for
 * 64 bits saturates at UINT64_MAX, which every range check refuses.
 */
static bool
parse_field(const char *text, size_t len, size_t *pos, char tag, uint64_t *value)
{
	size_t		i = *pos;
	size_t		first_digit;
	uint64_t	result = 0;

	if (i >= len || text[i] != tag)
		return false;
	i++;
	first_digit = i;
	while (i < len && text[i] >= '0' && text[i] <= '9')
	{
		unsigned	digit = (unsigned) (text[i] - '0');

		if (result > (UINT64_MAX - digit) / 10)
			result = UINT64_MAX;
		else
			result = result * 10 + digit;
		i++;
	}
	if (i == first_digit)
		return false;
	if (text[first_digit] == '0' && i - first_digit > 1)
		return false;
	if (i >= len || text[i] != ':')
		return false;
	*pos = i + 1;
	*value = result;
	return true;
}

bf_status
bf_text_decode_header(const char *text, size_t len, BloomHeader *header,
					  size_t *payload_offset)
{
	return bf_text_decode_header_for(TEXT_PREFIX, text, len, header, payload_offset);
}

bf_status
bf_text_decode_header_for(const char *prefix, const char *text, size_t len,
						  BloomHeader *header, size_t *payload_offset)
{
	size_t		prefix_length = strlen(prefix);
	size_t		pos = prefix_length;
	uint64_t	version,
				scheme,
				m,
				k,
				flags = 0;

	if (len < prefix_length || memcmp(text, prefix, prefix_length) != 0)
		return BF_SYNTAX;

	/*
	 * The version comes first and is checked first: a later format may spell
	 * the rest differently.
	 */
	if (!parse_field(text, len, &pos, 'v', &version))
		return BF_SYNTAX;
	if (version != BLOOM_FORMAT_VERSION)
		return BF_FORMAT_VERSION;

	if (!parse_field(text, len, &pos, 'h', &scheme) ||
		!parse_field(text, len, &pos, 'm', &m) ||
		!parse_field(text, len, &pos, 'k', &k))
		return BF_SYNTAX;

	/*
	 * "f<flags>:" if present.  Base64 may begin with 'f' and digits but
	 * never has a ':', so a failed parse is the payload.  "f0:" is not
	 * canonical: no flags are written as no segment.
	 */
	if (parse_field(text, len, &pos, 'f', &flags) && flags == 0)
		return BF_SYNTAX;

	/* Values too wide for the header fields must not wrap into range. */
	if (scheme > UINT8_MAX)
		return BF_HASH_SCHEME;
	if (k > UINT8_MAX)
		return BF_K_RANGE;
	if (flags > UINT8_MAX)
		return BF_FLAGS;

	header->format_version = (uint8_t) version;
	header->hash_scheme = (uint8_t) scheme;
	header->k = (uint8_t) k;
	header->flags = (uint8_t) flags;
	header->m = m;
	*payload_offset = pos;
	return bf_check_header(header);
}

bf_status
bf_text_decode_bits(const char *base64, size_t len, const BloomHeader *header,
					uint8_t *bits)
{
	bf_status	status = bf_check_header(header);
	uint64_t	nbytes;

	if (status != BF_OK)
		return status;
	nbytes = bloom_payload_bytes(header->m);

	/* Well-formed base64 of the wrong length is a length error. */
	if (len % 4 != 0)
		return BF_BASE64;
	if ((uint64_t) len != bf_base64_length(nbytes))
		return BF_LENGTH;
	status = bf_base64_decode(base64, len, bits, (size_t) nbytes);
	if (status != BF_OK)
		return status;
	return bf_check_bits(header, bits, (size_t) nbytes);
}

/* ---- binary form ---- */

void
bf_binary_encode_header(const BloomHeader *header, uint8_t *out)
{
	out[0] = header->format_version;
	out[1] = header->hash_scheme;
	out[2] = header->k;
	out[3] = header->flags;
	for (int i = 0; i < 8; i++)
		out[4 + i] = (uint8_t) (header->m >> (56 - 8 * i));
}

bf_status
bf_binary_decode_header(const uint8_t *data, size_t len, BloomHeader *header)
{
	uint64_t	m = 0;

	if (len < BF_BINARY_HEADER_BYTES)
		return BF_LENGTH;
	header->format_version = data[0];
	header->hash_scheme = data[1];
	header->k = data[2];
	header->flags = data[3];
	for (int i = 0; i < 8; i++)
		m = m << 8 | data[4 + i];
	header->m = m;
	return bf_check_header(header);
}

bf_status
bf_binary_decode(const uint8_t *data, size_t len, BloomHeader *header,
				 const uint8_t **bits)
{
	bf_status	status;

	*bits = NULL;
	status = bf_binary_decode_header(data, len, header);
	if (status != BF_OK)
		return status;
	status = bf_check_bits(header, data + BF_BINARY_HEADER_BYTES,
						   len - BF_BINARY_HEADER_BYTES);
	if (status != BF_OK)
		return status;
	*bits = data + BF_BINARY_HEADER_BYTES;
	return BF_OK;
}

/* ---- sparse binary form ---- */

size_t
bf_binary_sparse_encode(const BloomHeader *header, const uint8_t *array, size_t nbytes,
						uint8_t *out)
{
	bf_binary_encode_header(header, out);
	out[0] = BF_BINARY_SPARSE_MARKER;
	return BF_BINARY_HEADER_BYTES + bf_sparse_encode(array, nbytes, out + BF_BINARY_HEADER_BYTES);
}

bf_status
bf_binary_sparse_header(const uint8_t *data, size_t len, uint8_t *plain)
{
	if (len < BF_BINARY_HEADER_BYTES)
		return BF_LENGTH;
	if (data[0] != BF_BINARY_SPARSE_MARKER)
		return BF_FORMAT_VERSION;
	memcpy(plain, data, BF_BINARY_HEADER_BYTES);
	plain[0] = BLOOM_FORMAT_VERSION;
	return BF_OK;
}

bool
bf_binary_sparse_expand(const uint8_t *data, size_t len, size_t nbytes, uint8_t *array)
{
	if (len < BF_BINARY_HEADER_BYTES ||
		!bf_sparse_check(data + BF_BINARY_HEADER_BYTES, len - BF_BINARY_HEADER_BYTES, nbytes))
		return false;
	if (array != NULL)
		bf_sparse_or_into(array, nbytes, data + BF_BINARY_HEADER_BYTES,
						  len - BF_BINARY_HEADER_BYTES);
	return true;
}
