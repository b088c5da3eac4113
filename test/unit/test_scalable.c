/*
 * test_scalable.c: unit tests of scalable filters (core/scalable.c): stage
 * shapes and rates, the parameter rules, add and contains across stages,
 * the validator against every rule, the text form, and the figures behind
 * the defaults (memory against one optimal filter, measured false-positive
 * rates).
 */
#include "harness.h"

#include "core/scalable.h"

static const bf_scalable_params default_params = {
	0.01, BF_SCALABLE_DEFAULT_TIGHTENING, 1000, BF_SCALABLE_DEFAULT_GROWTH, 0, 0
};

/* A growing filter in malloc'd memory, as the SQL layer keeps one in palloc'd. */
typedef struct scalable
{
	uint8_t    *body;
	bf_scalable_view view;
} scalable;

static bool
scalable_open_stage(scalable *filter)
{
	uint64_t	m,
				new_length;
	uint32_t	k;
	uint8_t		scheme;

	if (bf_scalable_stage_plan(&filter->view.params, filter->view.stages, filter->view.length,
							   &m, &k, &scheme, &new_length) != BF_OK)
		return false;
	filter->body = realloc(filter->body, new_length);
	bf_scalable_append_stage(filter->body, &filter->view, m, k, scheme);
	return true;
}

static scalable
scalable_new(const bf_scalable_params *params)
{
	scalable	filter;

	filter.body = xmalloc(BF_SCALABLE_HEADER_BYTES);
	bf_scalable_start(filter.body, params, &filter.view);
	if (!scalable_open_stage(&filter))
		abort();
	return filter;
}

static bf_scalable_add_result
scalable_add(scalable *filter, bf_hash hash)
{
	bf_scalable_add_result result = bf_scalable_add(filter->body, &filter->view, hash);

	if (result == BF_SCALABLE_FULL)
	{
		if (!scalable_open_stage(filter))
			abort();
		result = bf_scalable_add(filter->body, &filter->view, hash);
	}
	return result;
}

static bf_status
parse_copy(const uint8_t *body, size_t len, bool check_shapes)
{
	uint8_t    *copy = exact_copy(body, len);
	bf_scalable_view view;
	bf_status	status = bf_scalable_parse(copy, len, check_shapes, &view);

	free(copy);
	return status;
}

UNIT_TEST(scalable_stage_shapes)
{
	bf_scalable_params params = default_params;
	uint64_t	m,
				optimal_m;
	uint32_t	k,
				optimal_k;
	uint8_t		scheme,
				optimal_scheme;
	double		sum = 0.0;

	CHECK_U64(bf_scalable_stage_capacity(&params, 0), 1000);
	CHECK_U64(bf_scalable_stage_capacity(&params, 3), 8000);
	params.growth = 4;
	CHECK_U64(bf_scalable_stage_capacity(&params, 3), 64000);
	/* n0 s^i past INT64_MAX: no such stage */
	params.n0 = UINT64_C(1) << 61;
	CHECK_U64(bf_scalable_stage_capacity(&params, 1), 0);
	params = default_params;

	/* p_i = p (1 - r) r^i, summing to less than p */
	CHECK(fabs(bf_scalable_stage_rate(&params, 0) - 0.002) < 1e-17);
	for (uint32_t i = 0; i < 200; i++)
		sum += bf_scalable_stage_rate(&params, i);
	CHECK(sum <= 0.01 && sum > 0.01 * (1 - 1e-12));

	/* stage i is shaped as bloom_empty(p_i, n_i) is */
	for (uint32_t i = 0; i < 12; i++)
	{
		CHECK_STATUS(bf_scalable_stage_shape(&params, i, &m, &k, &scheme), BF_OK);
		CHECK_STATUS(bf_default_shape(bf_scalable_stage_rate(&params, i),
									  (int64_t) bf_scalable_stage_capacity(&params, i),
									  &optimal_m, &optimal_k, &optimal_scheme), BF_OK);
		CHECK(m == optimal_m && k == optimal_k && scheme == optimal_scheme);
	}
	/* pinned: the same on every machine (core/real.h) */
	CHECK_STATUS(bf_scalable_stage_shape(&params, 0, &m, &k, &scheme), BF_OK);
	CHECK_U64(m, 12935);
	CHECK_U64(k, 9);
	CHECK_STATUS(bf_scalable_stage_shape(&params, 11, &m, &k, &scheme), BF_OK);
	CHECK_U64(m, 36953656);
	CHECK_U64(k, 13);
	/* blocking costs more than 10% at p_11 = 1.7e-4 */
	CHECK_U64(scheme, BLOOM_HASH_XXH3_EDH);
}

UNIT_TEST(scalable_params)
{
	bf_scalable_params params = default_params;

	CHECK_STATUS(bf_scalable_check_params(&params), BF_OK);
	params.p = 0.0;
	CHECK_STATUS(bf_scalable_check_params(&params), BF_FALSE_POSITIVE_RATE_RANGE);
	params.p = 1.0;
	CHECK_STATUS(bf_scalable_check_params(&params), BF_FALSE_POSITIVE_RATE_RANGE);
	params.p = NAN;
	CHECK_STATUS(bf_scalable_check_params(&params), BF_FALSE_POSITIVE_RATE_RANGE);
	params = default_params;
	params.n0 = 0;
	CHECK_STATUS(bf_scalable_check_params(&params), BF_CAPACITY_RANGE);
	params.n0 = UINT64_C(1) << 63;
	CHECK_STATUS(bf_scalable_check_params(&params), BF_CAPACITY_RANGE);
	params = default_params;
	params.growth = 3;
	CHECK_STATUS(bf_scalable_check_params(&params), BF_GROWTH_RANGE);
	params.growth = 1;
	CHECK_STATUS(bf_scalable_check_params(&params), BF_GROWTH_RANGE);
	params = default_params;
	params.r = 0.0;
	CHECK_STATUS(bf_scalable_check_params(&params), BF_TIGHTENING_RANGE);
	params.r = 1.0;
	CHECK_STATUS(bf_scalable_check_params(&params), BF_TIGHTENING_RANGE);
	params.r = NAN;
	CHECK_STATUS(bf_scalable_check_params(&params), BF_TIGHTENING_RANGE);
	/* r = 0.1 leaves p_i below 1e-19 within 17 stages, long before 1 GB */
	params.r = 0.1;
	params.n0 = 1;
	CHECK_STATUS(bf_scalable_check_params(&params), BF_RATE_UNHOLDABLE);
	params.r = 0.5;
	CHECK_STATUS(bf_scalable_check_params(&params), BF_OK);
	/* r near 1: p0 = p (1 - r) needs more than 64 probes */
	params.r = 1.0 - 0x1p-53;
	params.p = 1e-9;
	CHECK_STATUS(bf_scalable_check_params(&params), BF_K_RANGE);
	/* stage 0 alone past 1 GB */
	params = default_params;
	params.n0 = UINT64_C(1) << 40;
	CHECK_STATUS(bf_scalable_check_params(&params), BF_TOO_LARGE);
}

/*
 * Values added through many stages are all found; duplicates use no
 * capacity; every stage but the last is full; the validator accepts the
 * result, shapes included; stage 0 is bloom's filter of the same shape.
 */
UNIT_TEST(scalable_add_contains)
{
	bf_scalable_params params = default_params;
	scalable	filter;
	uint8_t    *plain;
	uint64_t	added = 0,
				counted = 0;

	params.n0 = 100;
	filter = scalable_new(&params);
	/* an empty filter's rate is +0, which prints as 0 */
	CHECK(bf_scalable_current_rate(filter.body, &filter.view) == 0.0 &&
		  !signbit(bf_scalable_current_rate(filter.body, &filter.view)));
	for (int64_t v = 0; v < 20000; v++)
		if (scalable_add(&filter, hash_int64(v)) == BF_SCALABLE_ADDED)
			added++;
	/* a value that tests positive is not added: a few false positives */
	fprintf(stderr, "    %" PRIu64 " of 20000 values added\n", added);
	CHECK(added <= 20000 && added > 19800);
	CHECK_U64(filter.view.stages, 8);	/* 100 * (2^8 - 1) = 25500 >= 20000 > 12700 */
	for (uint32_t i = 0; i < filter.view.stages; i++)
	{
		counted += filter.view.stage[i].count;
		if (i + 1 < filter.view.stages)
			CHECK_U64(filter.view.stage[i].count, filter.view.stage[i].capacity);
	}
	CHECK_U64(counted, added);
	for (int64_t v = 0; v < 20000; v++)
		if (!bf_scalable_contains(filter.body, &filter.view, hash_int64(v)))
		{
			CHECK(!"a value added is not found");
			break;
		}
	for (int64_t v = 0; v < 20000; v += 7)
		CHECK(scalable_add(&filter, hash_int64(v)) == BF_SCALABLE_PRESENT);
	CHECK_STATUS(parse_copy(filter.body, filter.view.length, true), BF_OK);

	/* stage 0: bloom_empty(p_0, n0) with the first 100 values */
	plain = build_filter(filter.view.stage[0].m, filter.view.stage[0].k,
						 filter.view.stage[0].scheme, 0, 100, false);
	CHECK(memcmp(plain, bf_scalable_bits(filter.body, &filter.view, 0),
				 bloom_payload_bytes(filter.view.stage[0].m)) == 0);
	free(plain);
	free(filter.body);
}

/* A blocked stage (scheme 2) past 2 MiB, and growth 4. */
UNIT_TEST(scalable_blocked_stage)
{
	bf_scalable_params params = default_params;
	scalable	filter;
	int64_t		n = 0;

	params.n0 = 500000;
	params.growth = 4;
	filter = scalable_new(&params);
	while (filter.view.stages < 2)
		scalable_add(&filter, hash_int64(n++));
	CHECK_U64(filter.view.stage[0].scheme, BLOOM_HASH_XXH3_EDH);
	CHECK_U64(filter.view.stage[1].scheme, BLOOM_HASH_XXH3_BLOCKED);
	CHECK_U64(filter.view.stage[1].capacity, 2000000);
	for (int64_t v = 0; v < n; v++)
		if (!bf_scalable_contains(filter.body, &filter.view, hash_int64(v)))
		{
			CHECK(!"a value added is not found");
			break;
		}
	CHECK_STATUS(parse_copy(filter.body, filter.view.length, true), BF_OK);
	free(filter.body);
}

/*
 * The view for reading by parts: from the header and stage 0's alone, the
 * same stages as the whole validator's (the counts aside), and the length
 * checked against them.
 */
static void
check_parse_shapes(const scalable *filter)
{
	const uint8_t *body = filter->body;
	size_t		len = filter->view.length;
	bf_scalable_view view;
	uint8_t    *head = exact_copy(body, BF_SCALABLE_HEAD_BYTES);

	CHECK_STATUS(bf_scalable_parse_shapes(head, BF_SCALABLE_HEAD_BYTES, len, &view), BF_OK);
	CHECK_U64(view.stages, filter->view.stages);
	CHECK_U64(view.length, len);
	for (uint32_t i = 0; i < view.stages; i++)
	{
		CHECK_U64(view.stage[i].offset, filter->view.stage[i].offset);
		CHECK_U64(view.stage[i].m, filter->view.stage[i].m);
		CHECK_U64(view.stage[i].k, filter->view.stage[i].k);
		CHECK_U64(view.stage[i].scheme, filter->view.stage[i].scheme);
		CHECK_U64(view.stage[i].capacity, filter->view.stage[i].capacity);
	}
	CHECK_STATUS(bf_scalable_parse_shapes(head, BF_SCALABLE_HEAD_BYTES, len - 8, &view), BF_LENGTH);
	CHECK_STATUS(bf_scalable_parse_shapes(head, BF_SCALABLE_HEAD_BYTES, len + 8, &view), BF_LENGTH);
	CHECK_STATUS(bf_scalable_parse_shapes(head, BF_SCALABLE_HEADER_BYTES, len, &view), BF_LENGTH);
	CHECK_STATUS(bf_scalable_parse_shapes(head, 30, len, &view), BF_LENGTH);
	/* the other growth: other stages after the first, another length */
	head[2] = body[2] == 2 ? 4 : 2;
	CHECK_STATUS(bf_scalable_parse_shapes(head, BF_SCALABLE_HEAD_BYTES, len, &view), BF_LENGTH);
	head[2] = 3;
	CHECK_STATUS(bf_scalable_parse_shapes(head, BF_SCALABLE_HEAD_BYTES, len, &view), BF_GROWTH_RANGE);
	head[2] = body[2];
	head[BF_SCALABLE_HEADER_BYTES + 16] = 0;	/* stage 0's k */
	CHECK_STATUS(bf_scalable_parse_shapes(head, BF_SCALABLE_HEAD_BYTES, len, &view), BF_K_RANGE);
	free(head);
}

UNIT_TEST(scalable_parse_shapes)
{
	bf_scalable_params params = default_params;
	scalable	filter;
	int64_t		n = 0;

	params.n0 = 100;
	filter = scalable_new(&params);
	for (; n < 20000; n++)
		scalable_add(&filter, hash_int64(n));
	CHECK_U64(filter.view.stages, 8);
	check_parse_shapes(&filter);
	free(filter.body);

	/* scheme 1, then scheme 2 */
	params.n0 = 500000;
	params.growth = 4;
	filter = scalable_new(&params);
	for (n = 0; filter.view.stages < 2; n++)
		scalable_add(&filter, hash_int64(n));
	CHECK_U64(filter.view.stage[1].scheme, BLOOM_HASH_XXH3_BLOCKED);
	check_parse_shapes(&filter);
	free(filter.body);

	/* one stage, a body shorter than the header and stage 0's */
	{
		uint8_t		short_body[BF_SCALABLE_HEADER_BYTES];
		bf_scalable_view view;

		bf_scalable_write_header(short_body, &default_params, 1);
		CHECK_STATUS(bf_scalable_parse_shapes(short_body, sizeof(short_body), sizeof(short_body),
											  &view), BF_LENGTH);
	}
}

/* Every field the validator reads, broken one at a time. */
UNIT_TEST(scalable_validator)
{
	bf_scalable_params params = default_params;
	scalable	filter;
	uint8_t    *body;
	size_t		len;
	uint64_t	word;

	params.n0 = 10;
	filter = scalable_new(&params);
	for (int64_t v = 0; v < 25; v++)
		scalable_add(&filter, hash_int64(v));
	CHECK_U64(filter.view.stages, 2);
	body = filter.body;
	len = filter.view.length;
	CHECK_STATUS(parse_copy(body, len, true), BF_OK);

	/* length: short, long, truncated header */
	CHECK_STATUS(parse_copy(body, len - 8, false), BF_LENGTH);
	CHECK_STATUS(parse_copy(body, 20, false), BF_LENGTH);
	{
		uint8_t    *longer = xmalloc(len + 8);

		memcpy(longer, body, len);
		memset(longer + len, 0, 8);
		CHECK_STATUS(parse_copy(longer, len + 8, false), BF_LENGTH);
		free(longer);
	}

#define BROKEN(offset, value, expected) \
	do { \
		uint8_t		saved_ = body[offset]; \
		body[offset] = (value); \
		CHECK_STATUS(parse_copy(body, len, true), expected); \
		body[offset] = saved_; \
	} while (0)
	BROKEN(0, 2, BF_FORMAT_VERSION);
	BROKEN(1, 2, BF_FLAGS);
	BROKEN(2, 3, BF_GROWTH_RANGE);
	BROKEN(3, 2, BF_STAGES);
	BROKEN(4, 0, BF_STAGES);
	BROKEN(4, 65, BF_STAGES);
	BROKEN(4, 3, BF_STAGE_COUNT);	/* stage 1 is no longer the last, and not full */
	BROKEN(4, 1, BF_LENGTH);
	BROKEN(32, 1, BF_STAGES);
	BROKEN(15, 0x40, BF_FALSE_POSITIVE_RATE_RANGE);	/* p = 2.x */
	BROKEN(23, 0x7f, BF_TIGHTENING_RANGE);	/* r NaN */
	BROKEN(24, 0, BF_CAPACITY_RANGE);
	BROKEN(24, 11, BF_STAGE_COUNT);	/* n0 = 11: stage 0 is no longer full */
	BROKEN(24, 9, BF_STAGE_COUNT);	/* n0 = 9: stage 0 holds more than it can */
	/* stage 0: count, m, k, scheme, reserved */
	BROKEN(36, 9, BF_STAGE_COUNT);	/* not full, and not the last */
	BROKEN(36 + 16, 0, BF_K_RANGE);
	BROKEN(36 + 16, 65, BF_K_RANGE);
	BROKEN(36 + 16, 8, BF_STAGE_SHAPE);
	BROKEN(36 + 17, 3, BF_HASH_SCHEME);
	BROKEN(36 + 17, 2, BF_BLOCK_SHAPE);
	BROKEN(36 + 20, 1, BF_STAGES);
	/* the last stage: more than its capacity of 20 */
	word = filter.view.stage[1].offset;
	BROKEN(word, 21, BF_STAGE_COUNT);
	/* a padding bit of stage 0 (m = 130: bytes 17..23 are padding) */
	CHECK_U64(filter.view.stage[0].m, 130);
	BROKEN(36 + 24 + 17, 0x01, BF_PADDING_BITS);
	BROKEN(36 + 24 + 23, 0x80, BF_PADDING_BITS);
#undef BROKEN
	/* m one word shorter: the lengths no longer add up */
	body[36 + 8] = 64;
	CHECK(parse_copy(body, len, false) != BF_OK);
	body[36 + 8] = 130;
	/* without check_shapes the shapes are not recomputed */
	body[36 + 16]--;
	CHECK_STATUS(parse_copy(body, len, false), BF_OK);
	CHECK_STATUS(parse_copy(body, len, true), BF_STAGE_SHAPE);
	body[36 + 16]++;
	free(filter.body);
}

static bf_status
decode_text(const char *text, uint8_t **body, size_t *len)
{
	size_t		n = strlen(text);
	char	   *copy = exact_copy(text, n);
	bf_status	status = bf_scalable_text_decode(copy, n, NULL, len);

	*body = NULL;
	if (status == BF_OK)
	{
		*body = xmalloc(*len);
		status = bf_scalable_text_decode(copy, n, *body, len);
	}
	free(copy);
	return status;
}

/* decode, then validate with shapes: the whole of text input */
static bf_status
text_status(const char *text)
{
	uint8_t    *body;
	size_t		len;
	bf_status	status = decode_text(text, &body, &len);

	if (status == BF_OK)
		status = parse_copy(body, len, true);
	free(body);
	return status;
}

UNIT_TEST(scalable_text)
{
	bf_scalable_params params = default_params;
	scalable	filter;
	char	   *text;
	uint8_t    *body;
	size_t		len;
	uint64_t	length;
	char		decimal[BF_DECIMAL_MAX];

	/* shortest decimals */
	CHECK(bf_double_decimal(0.01, decimal) == 4 && strcmp(decimal, "0.01") == 0);
	CHECK(bf_double_decimal(0.85, decimal) == 4 && strcmp(decimal, "0.85") == 0);
	CHECK(bf_double_decimal(1e-05, decimal) == 5 && strcmp(decimal, "1e-05") == 0);
	CHECK(bf_double_decimal(0.1 + 0.2, decimal) == 19 &&
		  strcmp(decimal, "0.30000000000000004") == 0);

	params.n0 = 2;
	params.flags = BLOOM_FLAG_TEXT_UTF8;
	filter = scalable_new(&params);
	for (int64_t v = 0; v < 4; v++)
		scalable_add(&filter, hash_int64(v));
	length = bf_scalable_text_length(filter.body, &filter.view);
	text = xmalloc(length + 1);
	bf_scalable_text_encode(filter.body, &filter.view, text);
	CHECK_U64(strlen(text), length);
	/* the golden form of this filter */
	CHECK(strcmp(text, "scalable_bloom:v1:p0.01:n2:s2:r0.8:f1:"
				 "c2:h1:m26:k9:uBgfAQAAAAA=;c2:h1:m54:k9:IoBoQAQRAwA=") == 0);
	if (strcmp(text, "scalable_bloom:v1:p0.01:n2:s2:r0.8:f1:"
			   "c2:h1:m26:k9:uBgfAQAAAAA=;c2:h1:m54:k9:IoBoQAQRAwA=") != 0)
		fprintf(stderr, "    got %s\n", text);
	CHECK_STATUS(decode_text(text, &body, &len), BF_OK);
	CHECK(len == filter.view.length && memcmp(body, filter.body, len) == 0);
	free(body);
	CHECK_STATUS(text_status(text), BF_OK);
	free(text);
	free(filter.body);

	/* not canonical, or not of the form */
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA="), BF_OK);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.010:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA="), BF_SCALABLE_SYNTAX);
	CHECK_STATUS(text_status("scalable_bloom:v1:p1e-2:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA="), BF_SCALABLE_SYNTAX);
	CHECK_STATUS(text_status("scalable_bloom:v1:p.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA="), BF_SCALABLE_SYNTAX);
	CHECK_STATUS(text_status("scalable_bloom:v1:pnan:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA="), BF_SCALABLE_SYNTAX);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n02:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA="), BF_SCALABLE_SYNTAX);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n2:s2:r0.8:f0:c0:h1:m26:k9:AAAAAAAAAAA="), BF_SCALABLE_SYNTAX);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n2:s2:r0.8:o0:c0:h1:m26:k9:AAAAAAAAAAA="), BF_SCALABLE_SYNTAX);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA=;"), BF_SCALABLE_SYNTAX);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n2:s2:r0.8:"), BF_SCALABLE_SYNTAX);
	CHECK_STATUS(text_status("scalable_bloom:v2:p0.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA="), BF_FORMAT_VERSION);
	CHECK_STATUS(text_status("bloom:v1:h1:m18:k3:AAAAAAAAAAA="), BF_SCALABLE_SYNTAX);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n2:s3:r0.8:c0:h1:m26:k9:AAAAAAAAAAA="), BF_GROWTH_RANGE);
	CHECK_STATUS(text_status("scalable_bloom:v1:p1:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA="), BF_FALSE_POSITIVE_RATE_RANGE);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n0:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA="), BF_CAPACITY_RANGE);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n2:s2:r1:c0:h1:m26:k9:AAAAAAAAAAA="), BF_TIGHTENING_RANGE);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n2:s2:r0.8:c3:h1:m26:k9:AAAAAAAAAAA="), BF_STAGE_COUNT);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m27:k9:AAAAAAAAAAA="), BF_STAGE_SHAPE);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAAA"), BF_BASE64);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAAAAAAA"), BF_LENGTH);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAA*="), BF_BASE64);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAB="), BF_BASE64);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAE="), BF_PADDING_BITS);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m28:k65:AAAAAAAAAAA="), BF_K_RANGE);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m99999999999999:k9:AAAAAAAAAAA="), BF_TOO_LARGE);
	CHECK_STATUS(text_status("scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA=;c0:h1:m54:k9:AAAAAAAAAAA="), BF_STAGE_COUNT);
}

/* Bits of the stages that hold n values, against one optimal filter for n. */
static double
memory_ratio(double r, uint64_t n0, uint64_t n)
{
	bf_scalable_params params = default_params;
	uint64_t	bits = 0,
				held = 0,
				optimal_m,
				m;
	uint32_t	k;
	uint8_t		scheme;

	params.r = r;
	params.n0 = n0;
	for (uint32_t i = 0; held < n; i++)
	{
		if (bf_scalable_stage_shape(&params, i, &m, &k, &scheme) != BF_OK)
			return INFINITY;
		bits += m;
		held += bf_scalable_stage_capacity(&params, i);
	}
	if (bf_optimal_shape(params.p, (int64_t) n, &optimal_m, &k) != BF_OK)
		return INFINITY;
	return (double) bits / (double) optimal_m;
}

/*
 * The figures the defaults were chosen by (core/scalable.c): memory at 10x,
 * 100x and 1,000x n0 for r = 0.8, 0.85 and 0.9, printed; the default is
 * held to the 2x.
 */
UNIT_TEST(scalable_memory_table)
{
	static const double tightening[] = {0.8, 0.85, 0.9};

	for (int i = 0; i < 3; i++)
	{
		fprintf(stderr, "    r = %.2f: memory / optimal at 10x %.3f, 100x %.3f, 1000x %.3f\n",
				tightening[i], memory_ratio(tightening[i], 1000, 10000),
				memory_ratio(tightening[i], 1000, 100000),
				memory_ratio(tightening[i], 1000, 1000000));
	}
	/*
	 * Where the last stage is full, the bits are within 2x of one optimal
	 * filter; between, the last stage's room counts too (up to about 3.5x
	 * just after a stage opens, sql/scalable_rate.sql).
	 */
	for (uint64_t n = 1000; n <= 2000000; n = 2 * n + 1000)
		CHECK(memory_ratio(BF_SCALABLE_DEFAULT_TIGHTENING, 1000, n) < 2.0);
}

/*
 * The fewest bits any filter of whole stages can take for n values: stages
 * of the capacities params gives, opened until they hold n, each a Bloom
 * filter for its capacity c_i at a rate q_i, the rates summing to at most
 * p (or the compound rate would pass p).  A Bloom filter for c values at
 * rate q takes at least c log2(1/q) / ln 2 bits, and sum c_i log2(1/q_i)
 * under sum q_i <= p is least at q_i = p c_i / C, C = sum c_i (Gibbs'
 * inequality).  That spends the whole budget on the stages open now,
 * leaving none for the next one: no filter that may still grow does as
 * well.  Against one optimal filter for n, as memory_ratio.
 */
static double
memory_lower_bound(const bf_scalable_params *params, uint64_t n)
{
	double		capacity = 0,
				bits = 0;
	uint32_t	stages = 0;

	for (uint64_t held = 0; held < n; stages++)
	{
		held += bf_scalable_stage_capacity(params, stages);
		capacity += (double) bf_scalable_stage_capacity(params, stages);
	}
	for (uint32_t i = 0; i < stages; i++)
	{
		double		c = (double) bf_scalable_stage_capacity(params, i);

		bits += c * log2(capacity / (params->p * c));
	}
	return bits / ((double) n * log2(1 / params->p));
}

/*
 * How far the defaults are from the best any whole-stage filter can do:
 * within 1.35 times the lower bound at 10x, 100x and 1,000x n0, while the
 * bound's filter could not take one stage more.  The bound itself is 1.87
 * at 10x n0 with growth 2 and 2.40 with growth 4: "within 2x of one
 * optimal filter" cannot hold at 10x for growth 4 whatever the rates, and
 * for growth 2 only by spending most of the rate budget on the first four
 * stages (core/scalable.c, doc/variants.md).
 */
UNIT_TEST(scalable_memory_against_bound)
{
	bf_scalable_params params = default_params;

	params.n0 = 1000;
	params.growth = 2;
	CHECK(fabs(memory_lower_bound(&params, 10000) - 1.870) < 0.001);
	CHECK(fabs(memory_lower_bound(&params, 100000) - 1.640) < 0.001);
	CHECK(fabs(memory_lower_bound(&params, 1000000) - 1.329) < 0.001);
	for (uint64_t n = 10000; n <= 1000000; n *= 10)
	{
		double		ratio = memory_ratio(BF_SCALABLE_DEFAULT_TIGHTENING, 1000, n);
		double		bound = memory_lower_bound(&params, n);

		fprintf(stderr, "    %" PRIu64 "x n0: memory / optimal %.3f, lower bound %.3f, ratio %.3f\n",
				n / 1000, ratio, bound, ratio / bound);
		CHECK(ratio >= bound);
		CHECK(ratio <= 1.35 * bound);
	}
	params.growth = 4;
	CHECK(memory_lower_bound(&params, 10000) > 2.0);
}

/*
 * The measured compound rate at 10x and 100x n0 (n0 = 1,000, p = 0.01, on
 * 1,000,000 absent values each) is at most p: the expected count is below
 * 10,000 by the bound, and the check allows no margin above p itself.
 * sql/scalable_rate.sql does the same through SQL up to 1,000x.
 */
UNIT_TEST(scalable_measured_rate)
{
	scalable	filter = scalable_new(&default_params);
	int64_t		added = 0;

	for (uint64_t target = 10000; target <= 100000; target *= 10)
	{
		uint64_t	passed = 0;

		while (added < (int64_t) target)
			scalable_add(&filter, hash_int64(added++));
		for (int64_t v = 0; v < 1000000; v++)
			passed += bf_scalable_contains(filter.body, &filter.view,
										   hash_int64(((int64_t) 1 << 40) + v));
		fprintf(stderr, "    %" PRIu64 " values, %u stages: %" PRIu64 " of 1000000 absent values pass (%.5f), bound from the bits %.5f\n",
				target, filter.view.stages, passed, passed / 1e6,
				bf_scalable_current_rate(filter.body, &filter.view));
		CHECK(passed <= 10000);
	}
	free(filter.body);
}

