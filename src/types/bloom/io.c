/*
 * types/bloom/io.c: the type's input and output functions, text and binary.
 *
 * Both serialized forms are defined and validated in core/codec.c; text
 * and binary input accept exactly the same filters (every header field, the
 * bit array length and the padding bits are checked), and nothing is
 * allocated until the input's size has been checked against what it claims.
 * The helper before bloom_in serves counting_bloom's and scalable_bloom's
 * input too.
 */
#include "postgres.h"

#include "types/types.h"

#include "utils/memutils.h"

/*
 * Decode the text form; on success *result is a new filter.  The text must
 * have exactly the length its header implies before any bits are allocated,
 * so a short string cannot make us allocate a large filter.
 */
static bf_status
bloom_decode_text(const char *text, size_t len, BloomFilter **result)
{
	BloomHeader header;
	size_t		payload_offset;
	BloomFilter *filter;
	bf_status	status;

	status = bf_text_decode_header(text, len, &header, &payload_offset);
	if (status != BF_OK)
		return status;
	if (bf_text_length(&header) != len)
		return BF_LENGTH;

	/* the decoder writes every byte of the bit array, or fails */
	filter = bloom_alloc_like(&header);
	status = bf_text_decode_bits(text + payload_offset, len - payload_offset,
								 &header, filter->bits);
	if (status != BF_OK)
	{
		pfree(filter);
		return status;
	}
	*result = filter;
	return BF_OK;
}

bool
bloom_input_status(Node *escontext, const char *type_name, bf_status status)
{
	if (status == BF_OK)
		return true;
	ereturn(escontext, false,
			errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			errmsg("invalid input syntax for type %s", type_name),
			errdetail("%s", bf_status_message(status)));
}

/* The prefix of the sparse text form (types/sparse.c). */
#define BLOOM_SPARSE_TEXT_PREFIX "bloom:sparse:"

PG_FUNCTION_INFO_V1(bloom_in);
Datum
bloom_in(PG_FUNCTION_ARGS)
{
	const char *text = PG_GETARG_CSTRING(0);
	BloomFilter *filter = NULL;
	bf_status	status;
	size_t		len = strlen(text);

	if (bloom_is_sparse_text(BLOOM_SPARSE_TEXT_PREFIX, text))
	{
		const uint8 *plain;
		size_t		plain_len;
		struct varlena *value = NULL;

		status = bloom_decode_sparse_text(&bloom_layout, BLOOM_SPARSE_TEXT_PREFIX, text,
										  &plain, &plain_len);
		if (status == BF_OK)
			status = bloom_layout_decode_binary(&bloom_layout, plain, plain_len, &value);
		filter = (BloomFilter *) value;
	}
	else
		status = bloom_decode_text(text, len, &filter);
	if (!bloom_input_status(fcinfo->context, "bloom", status))
		return (Datum) 0;
	PG_RETURN_POINTER(filter);
}

/* The largest m whose text form (and its terminating NUL) fits in a palloc. */
static uint64
bloom_text_max_m(const BloomHeader *shape)
{
	BloomHeader header = *shape;
	uint64		low = 0,
				high = BLOOM_M_MAX;

	/* bf_text_length grows with m; find the last m that fits */
	while (low < high)
	{
		uint64		middle = low + (high - low + 1) / 2;

		header.m = middle;
		if (bf_text_length(&header) < MaxAllocSize)
			low = middle;
		else
			high = middle - 1;
	}
	return low;
}

PG_FUNCTION_INFO_V1(bloom_out);
Datum
bloom_out(PG_FUNCTION_ARGS)
{
	BloomView	view;
	uint64		length;
	char	   *text;

	bloom_getarg(fcinfo, 0, &view);
	length = bf_text_length(&view.header);
	text = bloom_out_sparse(fcinfo, BLOOM_SPARSE_TEXT_PREFIX, &view, length);
	if (text != NULL)
		PG_RETURN_CSTRING(text);
	if (length >= MaxAllocSize)
		ereport(ERROR,
				errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				errmsg("bloom filter is too large for text output"),
				errdetail("The text form of a filter of m = " UINT64_FORMAT " bits would take " UINT64_FORMAT " bytes; the largest filter with a text form has m = " UINT64_FORMAT " bits.",
						  view.header.m, length, bloom_text_max_m(&view.header)),
				errhint("Use binary COPY or bloom_send() to move larger filters."));

	text = bloom_palloc_large(length + 1);
	bf_text_encode(&view.header, view.bits, text);
	PG_RETURN_CSTRING(text);
}

PG_FUNCTION_INFO_V1(bloom_recv);
Datum
bloom_recv(PG_FUNCTION_ARGS)
{
	return bloom_layout_recv(fcinfo, &bloom_layout);
}

PG_FUNCTION_INFO_V1(bloom_send);
Datum
bloom_send(PG_FUNCTION_ARGS)
{
	return bloom_layout_send(fcinfo, &bloom_layout);
}
