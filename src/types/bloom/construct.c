/*
 * types/bloom/construct.c: new empty filters (bloom_empty, with and without its
 * arguments, bloom_empty_mk and bloom_empty_like) and filter shapes:
 * bloom_shape writes one as text, and bloom_parse_shape reads it back for
 * bloom_agg_shaped.
 */
#include "postgres.h"

#include "types/types.h"

#include "mb/pg_wchar.h"

PG_FUNCTION_INFO_V1(bloom_empty);
Datum
bloom_empty(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(bloom_alloc_optimal("bloom_empty", PG_GETARG_FLOAT8(0),
										  PG_GETARG_INT64(1), false));
}

PG_FUNCTION_INFO_V1(bloom_empty_mk);
Datum
bloom_empty_mk(PG_FUNCTION_ARGS)
{
	int64		m = PG_GETARG_INT64(0);
	int32		k = PG_GETARG_INT32(1);
	bf_status	status;

	status = bf_check_shape(m, k);
	if (status != BF_OK)
		bloom_raise_shape_error(status, "bloom_empty_mk", (uint64) m, k, -1, -1);
	PG_RETURN_POINTER(bloom_alloc((uint64) m, (uint32) k, BLOOM_HASH_XXH3_EDH));
}

/* An empty filter of the template's m, k and hash scheme; its bits are not read. */
PG_FUNCTION_INFO_V1(bloom_empty_like);
Datum
bloom_empty_like(PG_FUNCTION_ARGS)
{
	BloomView	template;
	BloomFilter *filter;

	bloom_getarg(fcinfo, 0, &template);
	filter = bloom_alloc(template.header.m, template.header.k, template.header.hash_scheme);
	filter->flags = template.header.flags;	/* text hashed as the template's */
	PG_RETURN_POINTER(filter);
}

/* bloom_shape(filter): the text form up to the bits, "bloom:v1:h1:m95851:k7:". */
PG_FUNCTION_INFO_V1(bloom_shape);
Datum
bloom_shape(PG_FUNCTION_ARGS)
{
	BloomView	filter;
	text	   *result;
	Size		length;

	bloom_getarg(fcinfo, 0, &filter);
	length = bf_text_header_length(&filter.header);
	result = (text *) palloc(VARHDRSZ + length);
	SET_VARSIZE(result, VARHDRSZ + length);
	bf_text_encode_header(&filter.header, VARDATA(result));
	PG_RETURN_TEXT_P(result);
}

void
bloom_parse_shape(const char *function, const char *text, size_t length, BloomHeader *shape)
{
	size_t		payload_offset = 0;
	bf_status	status = bf_text_decode_header(text, length, shape, &payload_offset);

	if (status == BF_OK && payload_offset != length)
		status = BF_SYNTAX;
	if (status == BF_OK)
		status = bf_check_header(shape);
	if (status != BF_OK)
		ereport(ERROR,
				errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				errmsg("%s: invalid filter shape \"%.*s\"", function,
					   pg_mbcliplen(text, (int) Min(length, 80), 80), text),
				errdetail("%s", bf_status_message(status)),
				errhint("A shape is what bloom_shape(filter) returns, such as 'bloom:v1:h1:m95851:k7:'."));
}

/*
 * bloom_empty(): BF_DEFAULT_FALSE_POSITIVE_RATE (0.01, the rate of
 * bloom_agg(value)) and BF_DEFAULT_CAPACITY (10000 values: 95,851 bits,
 * 12 kB).  Small on purpose: bloom_add copies the whole filter on every
 * call, which is the way such a filter is filled.
 */
PG_FUNCTION_INFO_V1(bloom_empty_default);
Datum
bloom_empty_default(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(bloom_alloc_optimal("bloom_empty", BF_DEFAULT_FALSE_POSITIVE_RATE,
										  BF_DEFAULT_CAPACITY, false));
}
