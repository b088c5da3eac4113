/*
 * gen_corpus.c: writes the seed corpus of the fuzzers (test/fuzz/corpus/).
 *
 *     gen_corpus OUTDIR      writes OUTDIR/fuzz_text/, fuzz_binary/, fuzz_setops/,
 *                            fuzz_scalable/
 *                            fuzz_counting/
 *
 * Run by "make fuzz-corpus", which regenerates test/fuzz/corpus/.  The
 * output is deterministic: filters of the shapes m = 1, 18, 63, 64, 65, 1000
 * and k = 1, 7, 64, empty, with a few values added (hashes of the int8
 * values 1, 2, ... as the SQL layer would make them) and saturated, in the
 * text and the binary form, plus near-valid variants that each break one
 * rule, so the fuzzers start next to every check.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/core.h"
#include "core/scalable.h"
#include "core/counting.h"

static const char *outdir;

typedef struct filter
{
	BloomHeader header;
	uint8_t		bits[256];		/* enough for m <= 2048 */
} filter;

static void
make_directory(const char *path)
{
	if (mkdir(path, 0777) != 0 && errno != EEXIST)
	{
		perror(path);
		exit(1);
	}
}

static void
write_file(const char *fuzzer, const char *name, const void *data, size_t len)
{
	char		path[4096];
	FILE	   *file;

	snprintf(path, sizeof(path), "%s/%s/%s", outdir, fuzzer, name);
	file = fopen(path, "wb");
	if (file == NULL || fwrite(data, 1, len, file) != len || fclose(file) != 0)
	{
		perror(path);
		exit(1);
	}
}

static bf_hash
hash_int64(int64_t value)
{
	uint8_t		bytes[8];

	/* canonical bytes of an int8, as the SQL layer hashes it */
	for (int i = 0; i < 8; i++)
		bytes[i] = (uint8_t) ((uint64_t) value >> (8 * i));
	return bf_hash_bytes(bytes, sizeof(bytes));
}

static uint64_t
double_bits(double value)
{
	uint64_t	bits;

	memcpy(&bits, &value, sizeof(bits));
	return bits;
}

static uint64_t
payload_bytes(const filter *f)
{
	return bloom_payload_bytes(f->header.m);
}

/* A filter of shape (m, k) with the int8 values first .. first + count - 1. */
static filter
make_filter_scheme(uint64_t m, uint8_t k, uint8_t scheme, int64_t first, int count)
{
	filter		f;

	memset(&f, 0, sizeof(f));
	f.header.format_version = BLOOM_FORMAT_VERSION;
	f.header.hash_scheme = scheme;
	f.header.k = k;
	f.header.flags = 0;
	f.header.m = m;
	if (payload_bytes(&f) > sizeof(f.bits))
		abort();
	for (int i = 0; i < count; i++)
		bf_add(f.bits, m, k, scheme, hash_int64(first + i));
	return f;
}

static filter
make_filter(uint64_t m, uint8_t k, int64_t first, int count)
{
	return make_filter_scheme(m, k, BLOOM_HASH_XXH3_EDH, first, count);
}

/* Every one of the m bits set. */
static filter
make_saturated(uint64_t m, uint8_t k)
{
	filter		f = make_filter(m, k, 0, 0);

	for (uint64_t i = 0; i < m; i++)
		f.bits[i / 8] |= (uint8_t) (1u << (i % 8));
	return f;
}

/*
 * The text form, written by the encoder whatever the header says (the
 * near-valid variants rely on that); returns its length.
 */
static size_t
text_form(const filter *f, char *out, size_t out_size)
{
	uint64_t	length = bf_text_length(&f->header);

	if (length + 1 > out_size)
		abort();
	bf_text_encode(&f->header, f->bits, out);
	return (size_t) length;
}

static size_t
binary_form(const filter *f, uint8_t *out, size_t out_size)
{
	size_t		nbytes = (size_t) payload_bytes(f);

	if (BF_BINARY_HEADER_BYTES + nbytes > out_size)
		abort();
	bf_binary_encode_header(&f->header, out);
	memcpy(out + BF_BINARY_HEADER_BYTES, f->bits, nbytes);
	return BF_BINARY_HEADER_BYTES + nbytes;
}

static void
write_text(const char *name, const filter *f)
{
	char		text[1024];

	write_file("fuzz_text", name, text, text_form(f, text, sizeof(text)));
}

static void
write_binary(const char *name, const filter *f)
{
	uint8_t		form[1024];

	write_file("fuzz_binary", name, form, binary_form(f, form, sizeof(form)));
}

/* The input of fuzz_setops: h1, h2 little-endian, length of a big-endian, a, b. */
static void
write_setops(const char *name, uint64_t h1, uint64_t h2,
			 const uint8_t *a, size_t length_a, const uint8_t *b, size_t length_b)
{
	uint8_t		input[2048];
	size_t		len = 0;

	if (18 + length_a + length_b > sizeof(input) || length_a > 0xffff)
		abort();
	for (int i = 0; i < 8; i++)
		input[len++] = (uint8_t) (h1 >> (8 * i));
	for (int i = 0; i < 8; i++)
		input[len++] = (uint8_t) (h2 >> (8 * i));
	input[len++] = (uint8_t) (length_a >> 8);
	input[len++] = (uint8_t) length_a;
	memcpy(input + len, a, length_a);
	len += length_a;
	memcpy(input + len, b, length_b);
	len += length_b;
	write_file("fuzz_setops", name, input, len);
}

static void
write_setops_pair(const char *name, uint64_t h1, uint64_t h2,
				  const filter *a, const filter *b)
{
	uint8_t		form_a[1024];
	uint8_t		form_b[1024];
	size_t		length_a = binary_form(a, form_a, sizeof(form_a));
	size_t		length_b = binary_form(b, form_b, sizeof(form_b));

	write_setops(name, h1, h2, form_a, length_a, form_b, length_b);
}

static const struct
{
	uint64_t	m;
	uint8_t		k_empty;		/* k of the empty filter of this m */
	uint8_t		k_values;		/* k of the one with values added */
	int			values;
}			shapes[] = {
	{1, 1, 64, 1},
	{18, 7, 1, 3},
	{63, 64, 7, 2},
	{64, 1, 7, 5},
	{65, 7, 64, 2},
	{1000, 64, 7, 60},
};

#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

static void
text_corpus(void)
{
	char		name[64];
	char		text[1024];
	size_t		len;
	filter		f;

	for (size_t i = 0; i < NSHAPES; i++)
	{
		snprintf(name, sizeof(name), "m%llu-k%u-empty",
				 (unsigned long long) shapes[i].m, shapes[i].k_empty);
		f = make_filter(shapes[i].m, shapes[i].k_empty, 0, 0);
		write_text(name, &f);
		snprintf(name, sizeof(name), "m%llu-k%u-%dvalues",
				 (unsigned long long) shapes[i].m, shapes[i].k_values,
				 shapes[i].values);
		f = make_filter(shapes[i].m, shapes[i].k_values, 1, shapes[i].values);
		write_text(name, &f);
	}
	f = make_saturated(65, 7);
	write_text("m65-k7-saturated", &f);
	f = make_filter_scheme(512, 6, BLOOM_HASH_XXH3_BLOCKED, 1, 20);
	write_text("blocked-m512-k6-20values", &f);
	f = make_filter_scheme(1536, 16, BLOOM_HASH_XXH3_BLOCKED, 1, 30);
	write_text("blocked-m1536-k16-30values", &f);

	/* near-valid: each breaks one rule of a valid m18 k7 filter */
	f = make_filter(18, 7, 1, 3);
	f.bits[2] |= 0x10;			/* bit 20 >= m */
	write_text("bad-padding-bit", &f);

	f = make_filter(18, 7, 1, 3);
	len = text_form(&f, text, sizeof(text));
	text[len - 2] = 'B';		/* "xyz=": nonzero unused bits in z */
	write_file("fuzz_text", "bad-base64-unused-bits", text, len);
	text[len - 2] = '*';
	write_file("fuzz_text", "bad-base64-character", text, len);
	write_file("fuzz_text", "bad-truncated", text, len - 1);
	text[len - 2] = 'A';
	text[len] = 'A';
	write_file("fuzz_text", "bad-extra-character", text, len + 1);

	f = make_filter(18, 0, 0, 0);
	write_text("bad-k0", &f);
	f = make_filter(18, 65, 0, 0);
	write_text("bad-k65", &f);
	f = make_filter(18, 7, 0, 0);
	f.header.format_version = 2;
	write_text("bad-version2", &f);
	f = make_filter(18, 7, 0, 0);
	f.header.hash_scheme = 3;
	write_text("bad-scheme3", &f);
	f = make_filter(1000, 7, 0, 0);
	f.header.hash_scheme = BLOOM_HASH_XXH3_BLOCKED;
	write_text("bad-blocked-m1000", &f);
	f = make_filter(64, 7, 0, 0);
	f.header.m = 0;
	write_text("bad-m0", &f);
	/* m65 with the bit array of m64: one word short */
	f = make_filter(64, 7, 1, 2);
	len = text_form(&f, text, sizeof(text));
	memcpy(text + 13, "65", 2);	/* "bloom:v1:h1:m64:" */
	write_file("fuzz_text", "bad-length-m65-with-m64-bits", text, len);
	len = (size_t) snprintf(text, sizeof(text), "bloom:v1:h1:m%llu:k7:AAAAAAAAAAA=",
							(unsigned long long) BLOOM_M_MAX + 1);
	write_file("fuzz_text", "bad-m-too-large", text, len);

#define LITERAL(name, s) write_file("fuzz_text", name, s, sizeof(s) - 1)
	LITERAL("bad-leading-zero", "bloom:v1:h1:m018:k7:AAAAAAAAAAA=");
	LITERAL("bad-no-payload", "bloom:v1:h1:m18:k7:");
	LITERAL("bad-m-overflow", "bloom:v1:h1:m99999999999999999999999:k7:AAAAAAAAAAA=");
	LITERAL("bad-prefix", "Bloom:v1:h1:m18:k7:AAAAAAAAAAA=");
#undef LITERAL
}

static void
binary_corpus(void)
{
	char		name[64];
	uint8_t		form[1024];
	size_t		len;
	filter		f;

	for (size_t i = 0; i < NSHAPES; i++)
	{
		snprintf(name, sizeof(name), "m%llu-k%u-empty",
				 (unsigned long long) shapes[i].m, shapes[i].k_empty);
		f = make_filter(shapes[i].m, shapes[i].k_empty, 0, 0);
		write_binary(name, &f);
		snprintf(name, sizeof(name), "m%llu-k%u-%dvalues",
				 (unsigned long long) shapes[i].m, shapes[i].k_values,
				 shapes[i].values);
		f = make_filter(shapes[i].m, shapes[i].k_values, 1, shapes[i].values);
		write_binary(name, &f);
	}
	f = make_saturated(63, 64);
	write_binary("m63-k64-saturated", &f);
	f = make_filter_scheme(1024, 9, BLOOM_HASH_XXH3_BLOCKED, 1, 40);
	write_binary("blocked-m1024-k9-40values", &f);
	f = make_filter(1000, 7, 0, 0);
	f.header.hash_scheme = BLOOM_HASH_XXH3_BLOCKED;
	write_binary("bad-blocked-m1000", &f);

	/* near-valid: each breaks one rule of a valid m65 k7 filter */
	f = make_filter(65, 7, 1, 2);
	f.bits[8] |= 0x02;			/* bit 65 >= m */
	write_binary("bad-padding-bit", &f);
	f = make_filter(65, 7, 1, 2);
	f.header.flags = 2;
	write_binary("bad-flags", &f);
	f = make_filter(65, 7, 1, 2);
	f.header.flags = 1;
	write_binary("flag-text-utf8", &f);
	f = make_filter(65, 7, 1, 2);
	f.header.format_version = 2;
	write_binary("bad-version2", &f);
	f = make_filter(65, 7, 1, 2);
	f.header.hash_scheme = 0;
	write_binary("bad-scheme0", &f);
	f = make_filter(65, 0, 0, 0);
	write_binary("bad-k0", &f);
	f = make_filter(65, 65, 0, 0);
	write_binary("bad-k65", &f);

	f = make_filter(65, 7, 1, 2);
	len = binary_form(&f, form, sizeof(form));
	write_file("fuzz_binary", "bad-truncated", form, len - 1);
	write_file("fuzz_binary", "bad-header-only", form, BF_BINARY_HEADER_BYTES);
	memset(form + len, 0, 8);
	write_file("fuzz_binary", "bad-extra-word", form, len + 8);

	/* m = 0 and m = BLOOM_M_MAX + 1, with the bits of m = 64 */
	f = make_filter(64, 7, 1, 2);
	len = binary_form(&f, form, sizeof(form));
	memset(form + 4, 0, 8);
	write_file("fuzz_binary", "bad-m0", form, len);
	f.header.m = BLOOM_M_MAX + 1;
	bf_binary_encode_header(&f.header, form);
	write_file("fuzz_binary", "bad-m-too-large", form, len);

	/* the sparse form (a partial state between Citus's nodes), and one cut short */
	f = make_filter(2048, 7, 1, 20);
	len = bf_binary_sparse_encode(&f.header, f.bits, (size_t) payload_bytes(&f), form);
	write_file("fuzz_binary", "sparse-m2048-k7-20values", form, len);
	write_file("fuzz_binary", "bad-sparse-truncated", form, len - 1);
}

static void
setops_corpus(void)
{
	filter		a,
				b;
	uint8_t		form_a[1024];
	size_t		length_a;

	a = make_filter(1, 1, 0, 0);
	b = make_filter(1, 1, 1, 1);
	write_setops_pair("m1-k1-empty-full", 1, 2, &a, &b);

	a = make_filter(18, 7, 1, 3);
	b = make_filter(18, 7, 3, 3);
	write_setops_pair("m18-k7-overlapping", 0x0123456789abcdef, 0xfedcba9876543210, &a, &b);

	a = make_filter(63, 64, 1, 1);
	b = make_saturated(63, 64);
	write_setops_pair("m63-k64-saturated", 0, 0, &a, &b);

	a = make_filter(64, 1, 1, 10);
	b = make_filter(64, 1, 11, 10);
	write_setops_pair("m64-k1-h-max", UINT64_MAX, UINT64_MAX, &a, &b);

	a = make_filter(65, 7, 1, 2);
	b = make_saturated(65, 7);
	write_setops_pair("m65-k7-saturated", 1ull << 63, 1, &a, &b);

	a = make_filter(1000, 64, 1, 30);
	b = make_filter(1000, 64, 20, 30);
	write_setops_pair("m1000-k64-overlapping", 42, 0x9e3779b97f4a7c15, &a, &b);

	a = make_filter(1000, 7, 1, 60);
	b = make_filter(1000, 7, 0, 0);
	write_setops_pair("m1000-k7-empty", 7, 7, &a, &b);

	a = make_filter_scheme(1024, 6, BLOOM_HASH_XXH3_BLOCKED, 1, 40);
	b = make_filter_scheme(1024, 6, BLOOM_HASH_XXH3_BLOCKED, 30, 40);
	write_setops_pair("blocked-m1024-k6-overlapping", 11, 0x0123456789abcdef, &a, &b);
	a = make_filter_scheme(512, 20, BLOOM_HASH_XXH3_BLOCKED, 1, 10);
	b = make_filter(512, 20, 1, 10);
	write_setops_pair("mismatch-scheme", 5, 6, &a, &b);

	/* shapes that differ: each filter alone */
	a = make_filter(64, 7, 1, 5);
	b = make_filter(65, 7, 1, 5);
	write_setops_pair("mismatch-m64-m65", 5, 6, &a, &b);
	a = make_filter(64, 7, 1, 5);
	b = make_filter(64, 1, 1, 5);
	write_setops_pair("mismatch-k7-k1", 5, 6, &a, &b);

	/* h1 and h2 as p and n for bf_optimal_shape: valid, k > 64, m too large */
	a = make_filter(1000, 7, 1, 60);
	b = make_filter(1000, 7, 30, 60);
	write_setops_pair("sizing-p0.01-n100000", double_bits(0.01), 100000, &a, &b);
	write_setops_pair("sizing-p1e-20-n10", double_bits(1e-20), 10, &a, &b);
	write_setops_pair("sizing-p0.5-n1e10", double_bits(0.5), 10000000000, &a, &b);
	write_setops_pair("sizing-p0.01-n1e7-blocked", double_bits(0.01), 10000000, &a, &b);
	write_setops_pair("sizing-p1e-4-n1e7-classic", double_bits(1e-4), 10000000, &a, &b);

	/* a valid, b one byte short */
	a = make_filter(18, 7, 1, 3);
	length_a = binary_form(&a, form_a, sizeof(form_a));
	write_setops("b-truncated", 3, 4, form_a, length_a, form_a, length_a - 1);
}

/*
 * Scalable filters (fuzz_scalable): byte 0 then a body (binary) or byte 0 =
 * 0 then a text form; of n0 = 2, 3 and 10 with 0 to 40 values (up to four
 * stages), at growth 2 and 4, with and without flags.
 */
static void
scalable_corpus(void)
{
	static const struct
	{
		uint64_t	n0;
		uint8_t		growth;
		uint8_t		flags;
		int			values;
	}			cases[] = {{2, 2, 0, 0}, {2, 2, 0, 5}, {3, 4, 1, 9}, {10, 2, 0, 40}};

	for (int c = 0; c < 4; c++)
	{
		bf_scalable_params params = {0.01, BF_SCALABLE_DEFAULT_TIGHTENING, cases[c].n0,
		cases[c].growth, cases[c].flags, 0};
		bf_scalable_view view;
		uint8_t    *body = malloc(1 << 16);
		char	   *text = malloc(1 << 17);
		char		name[64];
		uint64_t	m,
					length;
		uint32_t	k;
		uint8_t		scheme;

		bf_scalable_start(body + 1, &params, &view);
		bf_scalable_stage_plan(&params, 0, view.length, &m, &k, &scheme, &length);
		bf_scalable_append_stage(body + 1, &view, m, k, scheme);
		for (int64_t v = 1; v <= cases[c].values; v++)
			if (bf_scalable_add(body + 1, &view, hash_int64(v)) == BF_SCALABLE_FULL)
			{
				bf_scalable_stage_plan(&params, view.stages, view.length, &m, &k, &scheme,
									   &length);
				bf_scalable_append_stage(body + 1, &view, m, k, scheme);
				bf_scalable_add(body + 1, &view, hash_int64(v));
			}
		body[0] = 1;
		snprintf(name, sizeof(name), "binary-n%d", c);
		write_file("fuzz_scalable", name, body, view.length + 1);
		text[0] = 0;
		bf_scalable_text_encode(body + 1, &view, text + 1);
		snprintf(name, sizeof(name), "text-n%d", c);
		write_file("fuzz_scalable", name, text, strlen(text + 1) + 1);
		free(body);
		free(text);
	}
}

/* ---- counting filters: text and binary forms in one directory ---- */

static void
write_counting(const char *name, uint64_t m, uint8_t k, uint8_t scheme, uint8_t flags,
			   int64_t first, int count, int repeat)
{
	BloomHeader header = {BLOOM_FORMAT_VERSION, scheme, k, flags, m};
	uint8_t		counters[1024];
	uint8_t		form[2048];
	char		text[2048];
	char		file[96];
	size_t		nbytes = (size_t) bf_counting_payload_bytes(m);

	if (nbytes > sizeof(counters) || bf_counting_text_length(&header) + 1 > sizeof(text))
		abort();
	memset(counters, 0, sizeof(counters));
	for (int r = 0; r < repeat; r++)
		for (int i = 0; i < count; i++)
			bf_counting_add(counters, m, k, scheme, hash_int64(first + i));
	bf_binary_encode_header(&header, form);
	memcpy(form + BF_BINARY_HEADER_BYTES, counters, nbytes);
	snprintf(file, sizeof(file), "binary-%s", name);
	write_file("fuzz_counting", file, form, BF_BINARY_HEADER_BYTES + nbytes);
	bf_counting_text_encode(&header, counters, text);
	snprintf(file, sizeof(file), "text-%s", name);
	write_file("fuzz_counting", file, text, strlen(text));
}

static void
counting_corpus(void)
{
	BloomHeader header = {BLOOM_FORMAT_VERSION, BLOOM_HASH_XXH3_EDH, 3, 0, 18};
	uint8_t		form[64];
	char		text[128];

	write_counting("m1-k1-empty", 1, 1, BLOOM_HASH_XXH3_EDH, 0, 0, 0, 1);
	write_counting("m18-k3-3values", 18, 3, BLOOM_HASH_XXH3_EDH, 0, 1, 3, 1);
	write_counting("m17-k7-saturated", 17, 7, BLOOM_HASH_XXH3_EDH, 0, 1, 4, 6);
	write_counting("m65-k64-2values", 65, 64, BLOOM_HASH_XXH3_EDH, 1, 1, 2, 1);
	write_counting("m1000-k7-60values", 1000, 7, BLOOM_HASH_XXH3_EDH, 0, 1, 60, 2);
	write_counting("blocked-m512-k6-20values", 512, 6, BLOOM_HASH_XXH3_BLOCKED, 0, 1, 20, 1);
	write_counting("blocked-m1024-k16-30values", 1024, 16, BLOOM_HASH_XXH3_BLOCKED, 0, 1, 30, 3);

	/* near-valid: each breaks one rule */
	bf_binary_encode_header(&header, form);
	memset(form + BF_BINARY_HEADER_BYTES, 0, 16);
	form[BF_BINARY_HEADER_BYTES + 9] = 0x01;	/* counter 18 >= m */
	write_file("fuzz_counting", "binary-bad-padding", form, BF_BINARY_HEADER_BYTES + 16);
	form[BF_BINARY_HEADER_BYTES + 9] = 0;
	write_file("fuzz_counting", "binary-bad-bloom-length", form, BF_BINARY_HEADER_BYTES + 8);
	header.m = BF_COUNTING_M_MAX + 1;
	bf_binary_encode_header(&header, form);
	write_file("fuzz_counting", "binary-bad-m-too-large", form, BF_BINARY_HEADER_BYTES + 16);

#define LITERAL(name, s) write_file("fuzz_counting", name, s, sizeof(s) - 1)
	LITERAL("text-bad-padding", "counting_bloom:v1:h1:m18:k3:AAAAAAAAAAAAAQAAAAAAAA==");
	LITERAL("text-bad-bloom-prefix", "bloom:v1:h1:m18:k3:AAAAAAAAAAAAAAAAAAAAAA==");
	LITERAL("text-bad-bloom-length", "counting_bloom:v1:h1:m18:k3:AAAAAAAAAAA=");
	LITERAL("text-bad-base64", "counting_bloom:v1:h1:m18:k3:AAAAAAAAAAAAAAAAAAAAAB==");
#undef LITERAL
	snprintf(text, sizeof(text), "counting_bloom:v1:h1:m%llu:k3:AAAAAAAAAAA=",
			 (unsigned long long) BF_COUNTING_M_MAX + 1);
	write_file("fuzz_counting", "text-bad-m-too-large", text, strlen(text));
}

int
main(int argc, char **argv)
{
	char		path[4096];
	const char *fuzzers[] = {"fuzz_text", "fuzz_binary", "fuzz_setops", "fuzz_scalable",
		"fuzz_counting"};

	if (argc != 2)
	{
		fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
		return 2;
	}
	outdir = argv[1];
	make_directory(outdir);
	for (size_t i = 0; i < sizeof(fuzzers) / sizeof(fuzzers[0]); i++)
	{
		snprintf(path, sizeof(path), "%s/%s", outdir, fuzzers[i]);
		make_directory(path);
	}
	text_corpus();
	binary_corpus();
	setops_corpus();
	scalable_corpus();
	counting_corpus();
	return 0;
}
