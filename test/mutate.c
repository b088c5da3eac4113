/*
 * mutate.c: deterministic mutations of valid filters, for
 * t/010_mutation.pl.
 *
 *   mutate SEEDS TEXT_OUT BINARY_DIR BINARY_MANIFEST
 *
 * SEEDS holds one valid filter a line: a name, its text form and its binary
 * form (bloom_send output in hex), separated by tabs.  From each, this
 * writes
 *
 *   TEXT_OUT         one mutated text input a line: id, seed, class,
 *                    expected verdict, the input's bytes in hex
 *   BINARY_DIR/<id>.copy
 *                    a PGCOPY binary file of one tuple (id int4, f bloom)
 *                    whose bloom field, and sometimes its length word, is
 *                    mutated
 *   BINARY_MANIFEST  one line a file: id, seed, class, expected verdict,
 *                    path, and the bytes COPY hands to bloom_recv in hex
 *                    ("-" when COPY must fail before calling it)
 *
 * The expected verdict comes from a reference validator written here from
 * the description of the formats (README.md, src/core/format.h), independently of
 * src/core/codec.c, so a wrongly accepted input is caught as surely as a wrongly
 * rejected one:
 *
 *   A   accepted, and it must be the filter's one canonical form
 *   R   rejected by the type's input or receive function
 *   C   rejected by COPY itself (field length beyond the end of the file)
 *   N   the length word says NULL: a NULL row
 *   ?   a valid field followed by bytes COPY may or may not refuse
 *
 * Everything is derived from a fixed seed, so every run tests the same
 * inputs.  Text inputs never contain a NUL byte (a cstring cannot), but any
 * other byte may appear; the test runs them in a SQL_ASCII database.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUT 16384
#define MAX_SEEDS 64

/* The format's limits, from src/core/format.h (restated, not included). */
#define FORMAT_VERSION 1
#define HASH_SCHEME 1
#define K_MAX 64
#define M_MAX ((uint64_t) ((0x3fffffffULL - 16) / 8) * 8 * 8)
#define BINARY_HEADER 12
#define FLAG_TEXT_UTF8 1		/* the one flag a filter may have */

typedef struct Buffer
{
	uint8_t		data[MAX_INPUT];
	size_t		len;
} Buffer;

typedef struct Seed
{
	char		name[64];
	Buffer		text;
	Buffer		binary;
	/* the text form's parts */
	char		m_text[32];
	char		k_text[8];
	size_t		payload_offset;
	uint64_t	m;
	unsigned	k;
} Seed;

static Seed seeds[MAX_SEEDS];
static int	nseeds;

static FILE *text_out;
static FILE *binary_manifest;
static const char *binary_dir;
static long next_id = 1;

static void
die(const char *message)
{
	fprintf(stderr, "mutate: %s\n", message);
	exit(2);
}

/* ---- deterministic random numbers (splitmix64) ---- */

static uint64_t rng_state = UINT64_C(0x626c6f6f6d2d6d75);	/* "bloom-mu" */

static uint64_t
rng(void)
{
	uint64_t	z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* uniform in [0, n); n > 0 */
static size_t
rng_below(size_t n)
{
	return (size_t) (rng() % n);
}

/* ---- buffer edits ---- */

static void
buffer_set(Buffer *b, const void *data, size_t len)
{
	if (len > MAX_INPUT)
		die("input too long");
	memcpy(b->data, data, len);
	b->len = len;
}

/* Replace len bytes at pos with the n bytes of what. */
static void
buffer_splice(Buffer *b, size_t pos, size_t len, const void *what, size_t n)
{
	if (pos > b->len)
		pos = b->len;
	if (len > b->len - pos)
		len = b->len - pos;
	if (b->len - len + n > MAX_INPUT)
		return;
	memmove(b->data + pos + n, b->data + pos + len, b->len - pos - len);
	memcpy(b->data + pos, what, n);
	b->len = b->len - len + n;
}

static void
buffer_append_str(Buffer *b, const char *s)
{
	buffer_splice(b, b->len, 0, s, strlen(s));
}

/* ---- hex and base64 ---- */

static const char alphabet[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int
base64_value(uint8_t c)
{
	const char *p = c != 0 ? strchr(alphabet, c) : NULL;

	return p != NULL ? (int) (p - alphabet) : -1;
}

static void
base64_encode(const uint8_t *src, size_t n, Buffer *out)
{
	for (size_t i = 0; i < n; i += 3)
	{
		uint32_t	v = (uint32_t) src[i] << 16;
		char		group[4];

		if (i + 1 < n)
			v |= (uint32_t) src[i + 1] << 8;
		if (i + 2 < n)
			v |= src[i + 2];
		group[0] = alphabet[v >> 18];
		group[1] = alphabet[(v >> 12) & 63];
		group[2] = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
		group[3] = i + 2 < n ? alphabet[v & 63] : '=';
		buffer_splice(out, out->len, 0, group, 4);
	}
}

/*
 * Decode canonical base64 of exactly nbytes bytes: 4 characters per started
 * group of 3 bytes, '=' only as padding of the last group, unused bits of
 * the last character zero.
 */
static bool
base64_decode_canonical(const uint8_t *s, size_t len, uint8_t *out, uint64_t nbytes)
{
	uint64_t	groups = (nbytes + 2) / 3;
	size_t		o = 0;

	if (len != groups * 4)
		return false;
	for (uint64_t g = 0; g < groups; g++)
	{
		const uint8_t *in = s + 4 * g;
		uint64_t	left = nbytes - 3 * g;	/* bytes still to produce */
		int			v[4];

		for (int i = 0; i < 4; i++)
			v[i] = base64_value(in[i]);
		if (v[0] < 0 || v[1] < 0)
			return false;
		if (left >= 3)
		{
			if (v[2] < 0 || v[3] < 0)
				return false;
			out[o++] = (uint8_t) (v[0] << 2 | v[1] >> 4);
			out[o++] = (uint8_t) ((v[1] & 15) << 4 | v[2] >> 2);
			out[o++] = (uint8_t) ((v[2] & 3) << 6 | v[3]);
		}
		else if (left == 2)
		{
			if (v[2] < 0 || in[3] != '=' || (v[2] & 3) != 0)
				return false;
			out[o++] = (uint8_t) (v[0] << 2 | v[1] >> 4);
			out[o++] = (uint8_t) ((v[1] & 15) << 4 | v[2] >> 2);
		}
		else
		{
			if (in[2] != '=' || in[3] != '=' || (v[1] & 15) != 0)
				return false;
			out[o++] = (uint8_t) (v[0] << 2 | v[1] >> 4);
		}
	}
	return true;
}

static void
hex_write(FILE *f, const uint8_t *data, size_t len)
{
	for (size_t i = 0; i < len; i++)
		fprintf(f, "%02x", data[i]);
}

static bool
hex_decode(const char *hex, Buffer *out)
{
	size_t		n = strlen(hex);

	if (n % 2 != 0 || n / 2 > MAX_INPUT)
		return false;
	for (size_t i = 0; i < n / 2; i++)
	{
		unsigned	byte;

		if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
			return false;
		out->data[i] = (uint8_t) byte;
	}
	out->len = n / 2;
	return true;
}

/* ---- the reference validators ---- */

static uint64_t
payload_bytes(uint64_t m)
{
	return (m + 63) / 64 * 8;
}

/* No bit at a position >= m is set. */
static bool
padding_clear(const uint8_t *bits, uint64_t m, uint64_t nbytes)
{
	for (uint64_t i = m; i < nbytes * 8; i++)
		if (bits[i / 8] & (1u << (i % 8)))
			return false;
	return true;
}

/* A canonical decimal (digits, no leading zero) ending at ':'; *pos past it. */
static bool
parse_decimal(const Buffer *b, size_t *pos, uint64_t *value)
{
	size_t		i = *pos;
	uint64_t	v = 0;

	if (i >= b->len || b->data[i] < '1' || b->data[i] > '9')
		return false;
	for (; i < b->len && b->data[i] >= '0' && b->data[i] <= '9'; i++)
	{
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (b->data[i] - '0');
	}
	if (i >= b->len || b->data[i] != ':')
		return false;
	*pos = i + 1;
	*value = v;
	return true;
}

/* Hash scheme 1, or scheme 2 (blocked) with m a multiple of 512. */
static bool
scheme_is_valid(uint64_t scheme, uint64_t m)
{
	return scheme == 1 || (scheme == 2 && m % 512 == 0);
}

static bool
text_is_valid(const Buffer *b)
{
	static const char prefix[] = "bloom:v1:h";
	static uint8_t bits[MAX_INPUT];
	size_t		pos = sizeof(prefix) - 1;
	uint64_t	scheme,
				m,
				k,
				nbytes;

	if (b->len < pos || memcmp(b->data, prefix, pos) != 0)
		return false;
	if (!parse_decimal(b, &pos, &scheme))
		return false;
	if (pos >= b->len || b->data[pos] != 'm')
		return false;
	pos++;
	if (!parse_decimal(b, &pos, &m) || m < 1 || m > M_MAX || !scheme_is_valid(scheme, m))
		return false;
	if (pos >= b->len || b->data[pos] != 'k')
		return false;
	pos++;
	if (!parse_decimal(b, &pos, &k) || k < 1 || k > K_MAX)
		return false;
	/* "f1:", the one flag (text hashed as UTF-8); base64 has no ':' */
	if (pos + 3 <= b->len && memcmp(b->data + pos, "f1:", 3) == 0)
		pos += 3;
	nbytes = payload_bytes(m);
	if (nbytes > sizeof(bits))
		return false;			/* far longer than any input here */
	if (!base64_decode_canonical(b->data + pos, b->len - pos, bits, nbytes))
		return false;
	return padding_clear(bits, m, nbytes);
}

static uint64_t
binary_m(const uint8_t *field)
{
	uint64_t	m = 0;

	for (int i = 0; i < 8; i++)
		m = m << 8 | field[4 + i];
	return m;
}

static bool
binary_is_valid(const uint8_t *field, size_t len)
{
	uint64_t	m;

	if (len < BINARY_HEADER)
		return false;
	if (field[0] != FORMAT_VERSION ||
		field[2] < 1 || field[2] > K_MAX || (field[3] != 0 && field[3] != FLAG_TEXT_UTF8))
		return false;
	m = binary_m(field);
	if (m < 1 || m > M_MAX || len - BINARY_HEADER != payload_bytes(m) ||
		!scheme_is_valid(field[1], m))
		return false;
	return padding_clear(field + BINARY_HEADER, m, len - BINARY_HEADER);
}

/* ---- output ---- */

static void
emit_text(const Seed *seed, const char *class, const Buffer *b)
{
	/* a cstring ends at the first NUL: such an input is not one */
	if (memchr(b->data, 0, b->len) != NULL)
		return;
	fprintf(text_out, "%ld\t%s\t%s\t%c\t", next_id++, seed->name, class,
			text_is_valid(b) ? 'A' : 'R');
	hex_write(text_out, b->data, b->len);
	fputc('\n', text_out);
}

static void
put_be32(uint8_t *out, uint32_t v)
{
	out[0] = (uint8_t) (v >> 24);
	out[1] = (uint8_t) (v >> 16);
	out[2] = (uint8_t) (v >> 8);
	out[3] = (uint8_t) v;
}

/*
 * Write a PGCOPY file of one tuple (id, field) whose field length word is
 * length_word (normally field->len), and its manifest line.
 */
static void
emit_binary(const Seed *seed, const char *class, const Buffer *field, int64_t length_word)
{
	static const uint8_t signature[11] = "PGCOPY\n\377\r\n";
	static uint8_t file[MAX_INPUT + 64];
	char		path[4096];
	size_t		n = 0;
	size_t		field_start;
	long		id = next_id++;
	char		verdict;
	FILE	   *f;

	memcpy(file, signature, 11);	/* with its final NUL */
	n = 11;
	put_be32(file + n, 0);		/* flags */
	put_be32(file + n + 4, 0);	/* header extension length */
	n += 8;
	file[n++] = 0;				/* field count 2 */
	file[n++] = 2;
	put_be32(file + n, 4);
	put_be32(file + n + 4, (uint32_t) id);
	n += 8;
	put_be32(file + n, (uint32_t) length_word);
	n += 4;
	field_start = n;
	memcpy(file + n, field->data, field->len);
	n += field->len;
	file[n++] = 0xff;			/* trailer: field count -1 */
	file[n++] = 0xff;

	snprintf(path, sizeof(path), "%s/%ld.copy", binary_dir, id);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(file, 1, n, f) != n || fclose(f) != 0)
		die("cannot write a binary file");

	/* What COPY hands to bloom_recv, and what must happen. */
	fprintf(binary_manifest, "%ld\t%s\t%s\t", id, seed->name, class);
	if (length_word == -1)
	{
		/* a NULL; the field's bytes, if any, are then read as the next tuple */
		fprintf(binary_manifest, "%c\t%s\t-\n", field->len == 0 ? 'N' : 'C', path);
	}
	else if (length_word < -1 || (uint64_t) length_word > n - field_start)
		fprintf(binary_manifest, "C\t%s\t-\n", path);
	else
	{
		size_t		rest = n - field_start - (size_t) length_word;

		if (!binary_is_valid(file + field_start, (size_t) length_word))
			verdict = 'R';
		else if (rest == 2 || rest == 0)
			verdict = 'A';		/* then the trailer or nothing: a clean end */
		else
			verdict = '?';
		fprintf(binary_manifest, "%c\t%s\t", verdict, path);
		hex_write(binary_manifest, file + field_start, (size_t) length_word);
		fputc('\n', binary_manifest);
	}
}

/* ---- mutation operators, shared by text and binary ---- */

/* Bytes worth trying in a text form, besides uniformly random ones. */
static const char *const text_pool[] = {
	"A", "B", "Z", "a", "z", "0", "1", "9", "+", "/", "=", ":", "v", "h",
	"m", "k", "b", "-", "_", ".", "!", "~", "*", " ", "\t", "\n", "\r",
	"\x7f", "\x80", "\xff", "\xc3", "\xc3\xa9", "\xef\xbc\x90", "\xef\xbc\x9a",
	"\xd9\xa3", "\xef\xbb\xbf", "\xf0\x9f\x98\x80", "\\", "'", "\"", "%",
	"==", "AAAA", "::", "bloom:"
};
#define TEXT_POOL_SIZE (sizeof(text_pool) / sizeof(text_pool[0]))

/* A random non-NUL byte string for text inputs, or a random byte for binary. */
static void
random_piece(bool text, uint8_t *out, size_t *n)
{
	if (text && rng_below(2) == 0)
	{
		const char *s = text_pool[rng_below(TEXT_POOL_SIZE)];

		*n = strlen(s);
		memcpy(out, s, *n);
		return;
	}
	if (!text && rng_below(2) == 0)
	{
		static const uint8_t interesting[] = {0, 1, 2, 0x3f, 0x40, 0x41, 0x7f, 0x80, 0xfe, 0xff};

		out[0] = interesting[rng_below(sizeof(interesting))];
	}
	else
		out[0] = (uint8_t) (text ? 1 + rng_below(255) : rng_below(256));
	*n = 1;
}

static void
op_bitflip(Buffer *b)
{
	size_t		pos;

	if (b->len == 0)
		return;
	pos = rng_below(b->len);
	b->data[pos] ^= (uint8_t) (1u << rng_below(8));
}

static void
op_substitute(Buffer *b, bool text)
{
	uint8_t		piece[8];
	size_t		n;

	if (b->len == 0)
		return;
	random_piece(text, piece, &n);
	buffer_splice(b, rng_below(b->len), 1, piece, n);
}

static void
op_truncate(Buffer *b)
{
	if (b->len > 0)
		b->len = rng_below(b->len);
}

static void
op_extend(Buffer *b, bool text)
{
	size_t		count = 1 + rng_below(8);

	for (size_t i = 0; i < count; i++)
	{
		uint8_t		piece[8];
		size_t		n;

		random_piece(text, piece, &n);
		buffer_splice(b, b->len, 0, piece, n);
	}
}

static void
op_duplicate(Buffer *b)
{
	size_t		pos,
				span;
	uint8_t		copy[8];

	if (b->len == 0)
		return;
	pos = rng_below(b->len);
	span = 1 + rng_below(rng_below(4) == 0 ? 8 : 1);
	if (span > b->len - pos)
		span = b->len - pos;
	memcpy(copy, b->data + pos, span);
	buffer_splice(b, pos + span, 0, copy, span);
}

static void
op_delete(Buffer *b)
{
	size_t		pos;

	if (b->len == 0)
		return;
	pos = rng_below(b->len);
	buffer_splice(b, pos, 1 + rng_below(rng_below(4) == 0 ? 8 : 1), "", 0);
}

/* One of the byte-level operators above, at random. */
static void
op_random(Buffer *b, bool text)
{
	switch (rng_below(6))
	{
		case 0:
			op_bitflip(b);
			break;
		case 1:
			op_substitute(b, text);
			break;
		case 2:
			op_truncate(b);
			break;
		case 3:
			op_extend(b, text);
			break;
		case 4:
			op_duplicate(b);
			break;
		default:
			op_delete(b);
			break;
	}
}

/* ---- text mutations ---- */

/* The text form with one of its four fields, or its payload, replaced. */
static void
text_with(const Seed *seed, Buffer *out, const char *v, const char *h,
		  const char *m, const char *k)
{
	char		head[256];

	snprintf(head, sizeof(head), "bloom:v%s:h%s:m%s:k%s:", v, h, m, k);
	buffer_set(out, head, strlen(head));
	buffer_splice(out, out->len, 0, seed->text.data + seed->payload_offset,
				  seed->text.len - seed->payload_offset);
}

/* Numbers and near-numbers for the header fields. */
static const char *const number_pool[] = {
	"", "0", "00", "01", "001", "1", "2", "3", "+1", "-1", "-0", " 1", "1 ",
	"1.0", "1e0", "0x1", "1_0", "\xef\xbc\x91", "\xd9\xa1", "63", "64", "65",
	"127", "128", "255", "256", "257", "65535", "65536", "2147483647",
	"2147483648", "4294967295", "4294967296", "4294967297",
	"9223372036854775807", "9223372036854775808", "18446744073709551615",
	"18446744073709551616", "18446744073709551617", "99999999999999999999999999999",
	"8589934399", "8589934400", "8589934401", "NaN", "Infinity", "x"
};
#define NUMBER_POOL_SIZE (sizeof(number_pool) / sizeof(number_pool[0]))

static void
text_header_mutations(const Seed *s)
{
	Buffer		b;
	char		num[64];
	const uint64_t m = s->m;
	const uint64_t m_values[] = {
		m - 1, m + 1, m + 7, m + 8, m + 63, m + 64, m - 64, 2 * m, m / 2,
		(m + 63) / 64 * 64, (m + 63) / 64 * 64 - 63, (m + 63) / 64 * 64 + 1,
		m + 0x100000000ULL, m + 0x8000000000000000ULL
	};

	for (size_t i = 0; i < NUMBER_POOL_SIZE; i++)
	{
		const char *n = number_pool[i];

		text_with(s, &b, n, "1", s->m_text, s->k_text);
		emit_text(s, "text-version", &b);
		text_with(s, &b, "1", n, s->m_text, s->k_text);
		emit_text(s, "text-hash-scheme", &b);
		text_with(s, &b, "1", "1", n, s->k_text);
		emit_text(s, "text-m", &b);
		text_with(s, &b, "1", "1", s->m_text, n);
		emit_text(s, "text-k", &b);
	}
	/* m near the seed's: accepted when the bit array has that length and fits */
	for (size_t i = 0; i < sizeof(m_values) / sizeof(m_values[0]); i++)
	{
		snprintf(num, sizeof(num), "%" PRIu64, m_values[i]);
		text_with(s, &b, "1", "1", num, s->k_text);
		emit_text(s, "text-m", &b);
	}
	/* signs, leading zeros and spaces around the seed's own m and k */
	{
		/* what goes before and after the number; "=" repeats the number */
		static const char *const around[][2] = {
			{"0", ""}, {"00", ""}, {"+", ""}, {"-", ""}, {" ", ""}, {"", " "},
			{"", "0"}, {"", ".0"}, {"", "="}
		};

		for (size_t i = 0; i < sizeof(around) / sizeof(around[0]); i++)
		{
			const char *after_m = strcmp(around[i][1], "=") == 0 ? s->m_text : around[i][1];
			const char *after_k = strcmp(around[i][1], "=") == 0 ? s->k_text : around[i][1];

			snprintf(num, sizeof(num), "%s%s%s", around[i][0], s->m_text, after_m);
			text_with(s, &b, "1", "1", num, s->k_text);
			emit_text(s, "text-m", &b);
			snprintf(num, sizeof(num), "%s%s%s", around[i][0], s->k_text, after_k);
			text_with(s, &b, "1", "1", s->m_text, num);
			emit_text(s, "text-k", &b);
		}
	}
}

/* Edits of the frame: prefix, tags, separators, field order. */
static void
text_syntax_mutations(const Seed *s)
{
	const char *payload = (const char *) s->text.data + s->payload_offset;
	int			plen = (int) (s->text.len - s->payload_offset);
	const char *m = s->m_text,
			   *k = s->k_text;
	char		t[MAX_INPUT];
	Buffer		b;

#define SYNTAX(...) \
	do { \
		int n_ = snprintf(t, sizeof(t), __VA_ARGS__); \
		buffer_set(&b, t, (size_t) n_); \
		emit_text(s, "text-syntax", &b); \
	} while (0)

	SYNTAX("Bloom:v1:h1:m%s:k%s:%.*s", m, k, plen, payload);
	SYNTAX("BLOOM:v1:h1:m%s:k%s:%.*s", m, k, plen, payload);
	SYNTAX("bloom;v1:h1:m%s:k%s:%.*s", m, k, plen, payload);
	SYNTAX("bloom v1:h1:m%s:k%s:%.*s", m, k, plen, payload);
	SYNTAX(" bloom:v1:h1:m%s:k%s:%.*s", m, k, plen, payload);
	SYNTAX("\tbloom:v1:h1:m%s:k%s:%.*s", m, k, plen, payload);
	SYNTAX("bloom:v1:h1:m%s:k%s:%.*s ", m, k, plen, payload);
	SYNTAX("bloom:v1:h1:m%s:k%s:%.*s\n", m, k, plen, payload);
	SYNTAX("bloom:v1:h1:m%s:k%s: %.*s", m, k, plen, payload);
	SYNTAX("v1:h1:m%s:k%s:%.*s", m, k, plen, payload);
	SYNTAX("bloom:bloom:v1:h1:m%s:k%s:%.*s", m, k, plen, payload);
	SYNTAX("bloom::v1:h1:m%s:k%s:%.*s", m, k, plen, payload);
	SYNTAX("bloom:V1:h1:m%s:k%s:%.*s", m, k, plen, payload);
	SYNTAX("bloom:v1:H1:m%s:k%s:%.*s", m, k, plen, payload);
	SYNTAX("bloom:v1:h1:M%s:k%s:%.*s", m, k, plen, payload);
	SYNTAX("bloom:v1:h1:m%s:K%s:%.*s", m, k, plen, payload);
	SYNTAX("bloom:v1:h1:k%s:m%s:%.*s", k, m, plen, payload);
	SYNTAX("bloom:h1:v1:m%s:k%s:%.*s", m, k, plen, payload);
	SYNTAX("bloom:v1:m%s:k%s:%.*s", m, k, plen, payload);
	SYNTAX("bloom:v1:h1:k%s:%.*s", k, plen, payload);
	SYNTAX("bloom:v1:h1:m%s:%.*s", m, plen, payload);
	SYNTAX("bloom:v1:h1:m%s:k%s:%.*s", m, k, 0, payload);
	SYNTAX("bloom:v1:h1:m%s:k%s", m, k);
	SYNTAX("bloom:v1:h1:m%s:k%s%.*s", m, k, plen, payload);
	SYNTAX("bloom:v1:h1:m%s:k%s::%.*s", m, k, plen, payload);
	SYNTAX("bloom:v1:h1:m%s:k%s:%.*s:", m, k, plen, payload);
	SYNTAX("bloom:v1:h1:m%s:k%s:x1:%.*s", m, k, plen, payload);
	SYNTAX("bloom:v1:h1:m%s:m%s:k%s:%.*s", m, m, k, plen, payload);
	SYNTAX("bloom:v1:h1:m%s:k%s:k%s:%.*s", m, k, k, plen, payload);
	SYNTAX("bloom:v1:v1:h1:m%s:k%s:%.*s", m, k, plen, payload);
	SYNTAX("bloom:v1h1m%sk%s%.*s", m, k, plen, payload);
	SYNTAX("bloom:v1,h1,m%s,k%s,%.*s", m, k, plen, payload);
	SYNTAX("bloom:v1:h1:m%s:k%s:%.*s%.*s", m, k, plen, payload, plen, payload);
	SYNTAX("bloom:v1:h1:m%s:k%s:%.*s", m, k, plen / 2, payload);
	SYNTAX("bloom:v1:h1:m%s:k%s:%s", m, k, "");
	SYNTAX("%s", "");
	SYNTAX("%s", "bloom:");
	SYNTAX("%s", "bloom:v1:h1:m:k:");
	SYNTAX("%s", "null");
	SYNTAX("%s", "NULL");
#undef SYNTAX
}

/* Edits inside the base64 payload: characters, padding, unused bits. */
static void
text_base64_mutation(const Seed *s, Buffer *b)
{
	static const char *const bad[] = {"-", "_", ".", "*", " ", "\n", "\r", "\t",
	"!", "~", "=", "\\", "\xc3\xa9", "\xff", "%", ":"};
	size_t		start = s->payload_offset;
	size_t		plen = s->text.len - start;
	size_t		pos = start + rng_below(plen);
	uint8_t		c;

	buffer_set(b, s->text.data, s->text.len);
	switch (rng_below(9))
	{
		case 0:					/* a character outside the alphabet */
			{
				const char *x = bad[rng_below(sizeof(bad) / sizeof(bad[0]))];

				buffer_splice(b, pos, 1, x, strlen(x));
			}
			break;
		case 1:					/* the url-safe alphabet */
			for (size_t i = start; i < b->len; i++)
				if (b->data[i] == '+' || b->data[i] == '/')
					b->data[i] = b->data[i] == '+' ? '-' : '_';
			buffer_splice(b, pos, 1, rng_below(2) ? "-" : "_", 1);
			break;
		case 2:					/* padding removed */
			while (b->len > start && b->data[b->len - 1] == '=')
				b->len--;
			break;
		case 3:					/* padding added */
			buffer_append_str(b, rng_below(2) ? "=" : "==");
			break;
		case 4:					/* '=' inside */
			buffer_splice(b, pos, 1, "=", 1);
			break;
		case 5:					/* a whole group more, or less */
			if (rng_below(2) && plen >= 4)
				buffer_splice(b, start + 4 * rng_below(plen / 4), 4, "", 0);
			else
				buffer_splice(b, start + 4 * rng_below(plen / 4 + 1), 0, "AAAA", 4);
			break;
		case 6:					/* unused bits of the last data character */
			{
				size_t		last = b->len - 1;

				while (last > start && b->data[last] == '=')
					last--;
				c = b->data[last];
				if (base64_value(c) >= 0)
					b->data[last] = (uint8_t) alphabet[(base64_value(c) ^ (1 + rng_below(15))) & 63];
			}
			break;
		case 7:					/* another valid character: other bits */
			b->data[pos] = (uint8_t) alphabet[rng_below(64)];
			break;
		default:				/* case swapped */
			c = b->data[pos];
			if (c >= 'a' && c <= 'z')
				b->data[pos] = (uint8_t) (c - 32);
			else if (c >= 'A' && c <= 'Z')
				b->data[pos] = (uint8_t) (c + 32);
			else
				b->data[pos] = 'a';
			break;
	}
}

/* The seed with some bits of its bit array changed, re-encoded canonically. */
static void
text_with_bits(const Seed *s, Buffer *b, const uint8_t *bits, size_t nbytes)
{
	buffer_set(b, s->text.data, s->payload_offset);
	base64_encode(bits, nbytes, b);
}

static void
text_mutations(const Seed *s)
{
	Buffer		b;
	const uint8_t *seed_bits = s->binary.data + BINARY_HEADER;
	size_t		nbytes = s->binary.len - BINARY_HEADER;
	uint8_t		bits[MAX_INPUT];

	emit_text(s, "text-identity", &s->text);

	for (int i = 0; i < 100; i++)
	{
		buffer_set(&b, s->text.data, s->text.len);
		op_bitflip(&b);
		emit_text(s, "text-bitflip", &b);
	}
	for (int i = 0; i < 100; i++)
	{
		buffer_set(&b, s->text.data, s->text.len);
		op_substitute(&b, true);
		emit_text(s, "text-substitute", &b);
	}
	for (int i = 0; i < 40; i++)
	{
		buffer_set(&b, s->text.data, s->text.len);
		if (i < 3)
			b.len = i == 0 ? 0 : i == 1 ? s->text.len - 1 : s->payload_offset;
		else
			op_truncate(&b);
		emit_text(s, "text-truncate", &b);
	}
	for (int i = 0; i < 30; i++)
	{
		buffer_set(&b, s->text.data, s->text.len);
		op_extend(&b, true);
		emit_text(s, "text-extend", &b);
	}
	for (int i = 0; i < 30; i++)
	{
		buffer_set(&b, s->text.data, s->text.len);
		op_duplicate(&b);
		emit_text(s, "text-duplicate", &b);
	}
	for (int i = 0; i < 30; i++)
	{
		buffer_set(&b, s->text.data, s->text.len);
		op_delete(&b);
		emit_text(s, "text-delete", &b);
	}
	text_header_mutations(s);
	text_syntax_mutations(s);
	for (int i = 0; i < 40; i++)
	{
		text_base64_mutation(s, &b);
		emit_text(s, "text-base64", &b);
	}

	/* single bits of the array: valid below m, padding at or above it */
	for (int i = 0; i < 44; i++)
	{
		uint64_t	bit = i == 0 ? 0 : i == 1 ? s->m - 1 : i == 2 ? s->m :
			i == 3 ? nbytes * 8 - 1 : rng_below(nbytes * 8);

		if (bit >= nbytes * 8)
			continue;
		memcpy(bits, seed_bits, nbytes);
		bits[bit / 8] ^= (uint8_t) (1u << (bit % 8));
		text_with_bits(s, &b, bits, nbytes);
		emit_text(s, "text-bits", &b);
	}
	/* every bit below m set; every bit set; none set */
	memset(bits, 0, nbytes);
	for (uint64_t i = 0; i < s->m; i++)
		bits[i / 8] |= (uint8_t) (1u << (i % 8));
	text_with_bits(s, &b, bits, nbytes);
	emit_text(s, "text-bits", &b);
	memset(bits, 0xff, nbytes);
	text_with_bits(s, &b, bits, nbytes);
	emit_text(s, "text-bits", &b);
	memset(bits, 0, nbytes);
	text_with_bits(s, &b, bits, nbytes);
	emit_text(s, "text-bits", &b);

	for (int i = 0; i < 100; i++)
	{
		int			n = 2 + (int) rng_below(3);

		/* a third start from a payload edit, then byte-level edits */
		if (rng_below(3) == 0)
			text_base64_mutation(s, &b);
		else
			buffer_set(&b, s->text.data, s->text.len);
		for (int j = 0; j < n; j++)
			op_random(&b, true);
		emit_text(s, "text-combined", &b);
	}
}

/* ---- binary mutations ---- */

static void
binary_emit(const Seed *s, const char *class, const Buffer *b)
{
	emit_binary(s, class, b, (int64_t) b->len);
}

static void
set_m(Buffer *b, uint64_t m)
{
	for (int i = 0; i < 8; i++)
		b->data[4 + i] = (uint8_t) (m >> (56 - 8 * i));
}

static void
binary_mutations(const Seed *s)
{
	Buffer		b;
	const uint64_t m = s->m;
	const size_t len = s->binary.len;
	const uint64_t nbits = (len - BINARY_HEADER) * 8;

	binary_emit(s, "binary-identity", &s->binary);

	for (int i = 0; i < 100; i++)
	{
		b = s->binary;
		op_bitflip(&b);
		binary_emit(s, "binary-bitflip", &b);
	}
	for (int i = 0; i < 80; i++)
	{
		b = s->binary;
		op_substitute(&b, false);
		binary_emit(s, "binary-substitute", &b);
	}

	/* header fields */
	{
		static const uint8_t versions[] = {0, 2, 3, 0x7f, 0x80, 0xff};
		static const uint8_t schemes[] = {0, 2, 3, 0x80, 0xff};
		static const uint8_t ks[] = {0, 1, 2, 7, 63, 64, 65, 0x80, 0xff};
		static const uint8_t flags[] = {1, 2, 0x40, 0x80, 0xff};
		const uint64_t m_values[] = {
			0, 1, m - 1, m + 1, m - 8, m + 8, m - 64, m + 64, m + 63, 2 * m,
			m / 2, (m + 63) / 64 * 64, (m + 63) / 64 * 64 - 63,
			(m + 63) / 64 * 64 + 1, 0x80000000ULL, 0x100000000ULL,
			0x100000000ULL + m, 0x8000000000000000ULL, UINT64_MAX,
			UINT64_MAX - m + 1, M_MAX, M_MAX + 1, M_MAX + 64, m | (1ULL << 56),
			m | (1ULL << 40), __builtin_bswap64(m)
		};

		for (size_t i = 0; i < sizeof(versions); i++)
		{
			b = s->binary;
			b.data[0] = versions[i];
			binary_emit(s, "binary-header", &b);
		}
		for (size_t i = 0; i < sizeof(schemes); i++)
		{
			b = s->binary;
			b.data[1] = schemes[i];
			binary_emit(s, "binary-header", &b);
		}
		for (size_t i = 0; i < sizeof(ks); i++)
		{
			b = s->binary;
			b.data[2] = ks[i];
			binary_emit(s, "binary-header", &b);
		}
		for (size_t i = 0; i < sizeof(flags); i++)
		{
			b = s->binary;
			b.data[3] = flags[i];
			binary_emit(s, "binary-header", &b);
		}
		for (size_t i = 0; i < sizeof(m_values) / sizeof(m_values[0]); i++)
		{
			b = s->binary;
			set_m(&b, m_values[i]);
			binary_emit(s, "binary-m", &b);
		}
	}

	for (int i = 0; i < 30; i++)
	{
		static const size_t fixed[] = {0, 1, 4, 11, 12, 13};

		b = s->binary;
		if (i < 6)
			b.len = fixed[i];
		else if (i == 6)
			b.len = len - 1;
		else if (i == 7 && len >= 8)
			b.len = len - 8;
		else
			op_truncate(&b);
		binary_emit(s, "binary-truncate", &b);
	}
	for (int i = 0; i < 30; i++)
	{
		b = s->binary;
		if (i == 0)
			buffer_splice(&b, b.len, 0, "\0\0\0\0\0\0\0\0", 8);
		else
			op_extend(&b, false);
		binary_emit(s, "binary-extend", &b);
	}
	for (int i = 0; i < 44; i++)
	{
		uint64_t	bit = i == 0 ? 0 : i == 1 ? m - 1 : i == 2 ? m :
			i == 3 ? nbits - 1 : rng_below(nbits);

		if (bit >= nbits)
			continue;
		b = s->binary;
		b.data[BINARY_HEADER + bit / 8] ^= (uint8_t) (1u << (bit % 8));
		binary_emit(s, "binary-bits", &b);
	}

	/* the length word alone: the file's structure no longer holds */
	{
		const int64_t words[] = {
			-1, -2, -3, INT32_MIN, 0, 1, 11, 12, (int64_t) len - 1,
			(int64_t) len + 1, (int64_t) len + 2, (int64_t) len + 3,
			(int64_t) len - 8, (int64_t) len + 8, 0x7fffffff, 0x3fffffff,
			0x40000000, 0x10000000
		};

		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			emit_binary(s, "binary-length-word", &s->binary, words[i]);
	}

	for (int i = 0; i < 100; i++)
	{
		int			n = 2 + (int) rng_below(3);

		b = s->binary;
		for (int j = 0; j < n; j++)
			op_random(&b, false);
		if (rng_below(8) == 0)
			emit_binary(s, "binary-combined", &b, (int64_t) b.len + (rng_below(2) ? 1 : -1));
		else
			binary_emit(s, "binary-combined", &b);
	}
}

/* ---- seeds ---- */

static void
read_seeds(const char *path)
{
	FILE	   *f = fopen(path, "r");
	static char line[4 * MAX_INPUT];

	if (f == NULL)
		die("cannot open the seed file");
	while (fgets(line, sizeof(line), f) != NULL)
	{
		Seed	   *s;
		char	   *name = strtok(line, "\t\n"),
				   *text = strtok(NULL, "\t\n"),
				   *hex = strtok(NULL, "\t\n");
		size_t		pos;
		uint64_t	k;

		if (name == NULL)
			continue;
		if (text == NULL || hex == NULL || nseeds == MAX_SEEDS)
			die("bad seed line");
		s = &seeds[nseeds++];
		snprintf(s->name, sizeof(s->name), "%s", name);
		buffer_set(&s->text, text, strlen(text));
		if (!hex_decode(hex, &s->binary) || !binary_is_valid(s->binary.data, s->binary.len))
			die("a seed's binary form is not valid");
		if (!text_is_valid(&s->text))
			die("a seed's text form is not valid");

		/* the fields of the (valid) text form */
		pos = strlen("bloom:v1:h1:m");
		if (!parse_decimal(&s->text, &pos, &s->m))
			die("unreachable");
		snprintf(s->m_text, sizeof(s->m_text), "%" PRIu64, s->m);
		pos++;					/* 'k' */
		if (!parse_decimal(&s->text, &pos, &k))
			die("unreachable");
		s->k = (unsigned) k;
		snprintf(s->k_text, sizeof(s->k_text), "%u", s->k);
		s->payload_offset = pos;
		if (s->m != binary_m(s->binary.data) || s->k != s->binary.data[2])
			die("a seed's text and binary forms differ");
	}
	fclose(f);
	if (nseeds == 0)
		die("no seeds");
}

int
main(int argc, char **argv)
{
	if (argc != 5)
	{
		fprintf(stderr, "usage: %s SEEDS TEXT_OUT BINARY_DIR BINARY_MANIFEST\n", argv[0]);
		return 2;
	}
	read_seeds(argv[1]);
	text_out = fopen(argv[2], "w");
	binary_dir = argv[3];
	binary_manifest = fopen(argv[4], "w");
	if (text_out == NULL || binary_manifest == NULL)
		die("cannot open an output file");

	for (int i = 0; i < nseeds; i++)
		text_mutations(&seeds[i]);
	for (int i = 0; i < nseeds; i++)
		binary_mutations(&seeds[i]);

	if (fclose(text_out) != 0 || fclose(binary_manifest) != 0)
		die("cannot write an output file");
	fprintf(stderr, "mutate: %d seeds, %ld mutations\n", nseeds, next_id - 1);
	return 0;
}
