/*
 * core/scalable_text.c: the text form of a scalable bloom filter
 * (core/scalable.h), "scalable_bloom:v1:" then the parameters and each
 * stage's header and bits, and its parser, which builds the stored form and
 * leaves its checks to bf_scalable_parse.
 */
#include "core/scalable.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- the text form ---- */

#define SCALABLE_PREFIX "scalable_bloom:v1:"
#define SCALABLE_PREFIX_LENGTH (sizeof(SCALABLE_PREFIX) - 1)

size_t
bf_double_decimal(double value, char *out)
{
	int			length = 0;

	for (int digits = 1; digits <= 17; digits++)
	{
		length = snprintf(out, BF_DECIMAL_MAX, "%.*g", digits, value);
		if (strtod(out, NULL) == value)
			break;
	}
	return (size_t) length;
}

static uint64_t
decimal_length(uint64_t value)
{
	char		buffer[24];

	return (uint64_t) snprintf(buffer, sizeof(buffer), "%" PRIu64, value);
}

uint64_t
bf_scalable_text_length(const uint8_t *body, const bf_scalable_view *view)
{
	const bf_scalable_params *params = &view->params;
	char		decimal[BF_DECIMAL_MAX];
	uint64_t	length = SCALABLE_PREFIX_LENGTH;

	(void) body;
	length += 2 + bf_double_decimal(params->p, decimal);
	length += 2 + decimal_length(params->n0);
	length += 2 + decimal_length(params->growth);
	length += 2 + bf_double_decimal(params->r, decimal);
	if (params->flags != 0)
		length += 2 + decimal_length(params->flags);
	if (params->options != 0)
		length += 2 + decimal_length(params->options);
	for (uint32_t i = 0; i < view->stages; i++)
	{
		const bf_scalable_stage *stage = &view->stage[i];

		length += (i > 0) + 8 + decimal_length(stage->count) + decimal_length(stage->scheme) +
			decimal_length(stage->m) + decimal_length(stage->k) +
			bf_base64_length(bloom_payload_bytes(stage->m));
	}
	return length;
}

void
bf_scalable_text_encode(const uint8_t *body, const bf_scalable_view *view, char *out)
{
	const bf_scalable_params *params = &view->params;
	char		p[BF_DECIMAL_MAX],
				r[BF_DECIMAL_MAX];

	bf_double_decimal(params->p, p);
	bf_double_decimal(params->r, r);
	out += sprintf(out, SCALABLE_PREFIX "p%s:n%" PRIu64 ":s%u:r%s:", p, params->n0,
				   (unsigned) params->growth, r);
	if (params->flags != 0)
		out += sprintf(out, "f%u:", (unsigned) params->flags);
	if (params->options != 0)
		out += sprintf(out, "o%u:", (unsigned) params->options);
	for (uint32_t i = 0; i < view->stages; i++)
	{
		const bf_scalable_stage *stage = &view->stage[i];
		uint64_t	payload = bloom_payload_bytes(stage->m);

		out += sprintf(out, "%sc%" PRIu64 ":h%u:m%" PRIu64 ":k%u:", i > 0 ? ";" : "",
					   stage->count, (unsigned) stage->scheme, stage->m, (unsigned) stage->k);
		bf_base64_encode(bf_scalable_bits(body, view, i), (size_t) payload, out);
		out += bf_base64_length(payload);
	}
	*out = '\0';
}

/*
 * "<tag><decimal>:" at text[*pos], as core/codec.c's fields: at least one
 * digit, no leading zero, saturating at UINT64_MAX; the terminator is ':'
 * or, for the last field of a stage, any of terminators.
 */
static bool
parse_integer(const char *text, size_t len, size_t *pos, char tag, uint64_t *value)
{
	size_t		i = *pos;
	size_t		first_digit;
	uint64_t	result = 0;

	if (i >= len || text[i] != tag)
		return false;
	first_digit = ++i;
	while (i < len && text[i] >= '0' && text[i] <= '9')
	{
		unsigned	digit = (unsigned) (text[i] - '0');

		result = result > (UINT64_MAX - digit) / 10 ? UINT64_MAX : result * 10 + digit;
		i++;
	}
	if (i == first_digit || (text[first_digit] == '0' && i - first_digit > 1))
		return false;
	if (i >= len || text[i] != ':')
		return false;
	*pos = i + 1;
	*value = result;
	return true;
}

/* "<tag><shortest decimal>:" at text[*pos]: only the canonical spelling. */
static bool
parse_double(const char *text, size_t len, size_t *pos, char tag, double *value)
{
	size_t		i = *pos;
	size_t		start;
	char		copy[BF_DECIMAL_MAX];
	char		canonical[BF_DECIMAL_MAX];
	char	   *end;

	if (i >= len || text[i] != tag)
		return false;
	start = ++i;
	while (i < len && i - start < BF_DECIMAL_MAX - 1 &&
		   ((text[i] >= '0' && text[i] <= '9') || text[i] == '.' || text[i] == 'e' ||
			text[i] == '-' || text[i] == '+'))
		i++;
	if (i == start || i >= len || text[i] != ':')
		return false;
	memcpy(copy, text + start, i - start);
	copy[i - start] = '\0';
	*value = strtod(copy, &end);
	if (end != copy + (i - start))
		return false;
	if (bf_double_decimal(*value, canonical) != i - start ||
		memcmp(canonical, copy, i - start) != 0)
		return false;
	*pos = i + 1;
	return true;
}

bf_status
bf_scalable_text_decode(const char *text, size_t len, uint8_t *body, size_t *body_len)
{
	size_t		pos = SCALABLE_PREFIX_LENGTH;
	bf_scalable_params params;
	uint64_t	n0,
				growth,
				flags = 0,
				options = 0;
	uint64_t	total = BF_SCALABLE_HEADER_BYTES;
	uint32_t	stages = 0;

	if (len < SCALABLE_PREFIX_LENGTH || memcmp(text, SCALABLE_PREFIX, SCALABLE_PREFIX_LENGTH) != 0)
	{
		/* the version is checked first: a later one may spell the rest otherwise */
		if (len > 17 && memcmp(text, "scalable_bloom:v", 16) == 0)
			return BF_FORMAT_VERSION;
		return BF_SCALABLE_SYNTAX;
	}
	if (!parse_double(text, len, &pos, 'p', &params.p) ||
		!parse_integer(text, len, &pos, 'n', &n0) ||
		!parse_integer(text, len, &pos, 's', &growth) ||
		!parse_double(text, len, &pos, 'r', &params.r))
		return BF_SCALABLE_SYNTAX;
	/* "f0:" and "o0:" are not canonical: zero is written as no segment */
	if (parse_integer(text, len, &pos, 'f', &flags) && flags == 0)
		return BF_SCALABLE_SYNTAX;
	if (parse_integer(text, len, &pos, 'o', &options) && options == 0)
		return BF_SCALABLE_SYNTAX;
	if (growth > UINT8_MAX)
		return BF_GROWTH_RANGE;
	if (flags > UINT8_MAX)
		return BF_FLAGS;
	if (options > UINT8_MAX)
		return BF_STAGES;
	params.n0 = n0;
	params.growth = (uint8_t) growth;
	params.flags = (uint8_t) flags;
	params.options = (uint8_t) options;
	if (body != NULL)
		bf_scalable_write_header(body, &params, 0);

	for (;;)
	{
		uint64_t	count,
					scheme,
					m,
					k,
					payload;
		size_t		end;
		BloomHeader shape;
		bf_status	status;

		if (stages == BF_SCALABLE_STAGES_MAX)
			return BF_STAGES;
		if (!parse_integer(text, len, &pos, 'c', &count) ||
			!parse_integer(text, len, &pos, 'h', &scheme) ||
			!parse_integer(text, len, &pos, 'm', &m) ||
			!parse_integer(text, len, &pos, 'k', &k))
			return BF_SCALABLE_SYNTAX;
		if (scheme > UINT8_MAX)
			return BF_HASH_SCHEME;
		if (k > UINT8_MAX)
			return BF_K_RANGE;
		shape.format_version = BLOOM_FORMAT_VERSION;
		shape.hash_scheme = (uint8_t) scheme;
		shape.k = (uint8_t) k;
		shape.flags = params.flags;
		shape.m = m;
		if ((status = bf_check_header(&shape)) != BF_OK)
			return status;
		payload = bloom_payload_bytes(m);
		total += BF_SCALABLE_STAGE_HEADER_BYTES + payload;
		if (total > BLOOM_MAX_VARLENA_BYTES - 4)
			return BF_TOO_LARGE;
		for (end = pos; end < len && text[end] != ';'; end++)
			;
		if ((end - pos) % 4 != 0)
			return BF_BASE64;
		if ((uint64_t) (end - pos) != bf_base64_length(payload))
			return BF_LENGTH;
		if (body != NULL)
		{
			uint8_t    *stage = body + total - payload - BF_SCALABLE_STAGE_HEADER_BYTES;

			if (total > *body_len)
				return BF_LENGTH;
			bf_scalable_write_stage_header(stage, count, m, (uint32_t) k, (uint8_t) scheme);
			status = bf_base64_decode(text + pos, end - pos,
									  stage + BF_SCALABLE_STAGE_HEADER_BYTES, (size_t) payload);
			if (status != BF_OK)
				return status;
		}
		stages++;
		pos = end;
		if (pos == len)
			break;
		pos++;					/* the ';' */
	}
	if (body != NULL)
	{
		if (total != *body_len)
			return BF_LENGTH;
		bf_store_le32(body + 4, stages);
	}
	*body_len = (size_t) total;
	return BF_OK;
}
