/*
 * types/counting_bloom/io.c: reading counting filter values, and the type's input
 * and output functions, text and binary.
 *
 * Both serialized forms are defined and validated in core/counting.c; text
 * and binary input accept exactly the same filters, every value read from a
 * table goes through the same checks, and nothing is allocated until the
 * input's size has been checked against what its header claims.
 */
#include "postgres.h"

#include "types/counting_bloom/counting_bloom.h"

#include "utils/memutils.h"

static bf_status
counting_view_bytes_status(const uint8_t *body, size_t length, BloomView *view)
{
	return bloom_view_bytes_checked(body, length, view, BF_COUNTING_LENGTH,
									bf_counting_check_header, bf_counting_check_counters);
}

void
counting_view_bytes(const uint8 *body, size_t length, BloomView *view)
{
	bloom_raise_invalid_value("counting_bloom", counting_view_bytes_status(body, length, view));
}

static struct varlena *
counting_copy_value(const BloomView *view)
{
	return (struct varlena *) counting_copy(view);
}

const BloomLayout counting_layout = {
	.type_name = "counting_bloom",
	.position_bits = BF_COUNTER_BITS,
	.length_error = BF_COUNTING_LENGTH,
	.check_header = bf_counting_check_header,
	.payload_bytes = bf_counting_payload_bytes,
	.block_contains = bf_counting_block_contains,
	.view_datum = counting_view_datum,
	.flags_in_identity = true,
	.sql_name = "counting_bloom",
	.too_large = BF_COUNTING_TOO_LARGE,
	.binary_decode = bf_counting_binary_decode,
	.copy = counting_copy_value,
};

bool
counting_cache_to_bits(FunctionCallInfo fcinfo, int argno, BloomView *view)
{
	BloomArgCache *entry = &((BloomCallCache *) fcinfo->flinfo->fn_extra)->args[argno];
	BloomView	counters = entry->view;
	uint64		size;
	char	   *chunk;
	BloomFilter *bits;

	/* the bit array on a cache line of its own, so that a scheme 2 block is one line */
	size = BLOOM_BITS_OFFSET + bloom_payload_bytes(counters.header.m);
	chunk = MemoryContextAllocHuge(fcinfo->flinfo->fn_mcxt, size + BF_BLOCK_BYTES);
	bits = (BloomFilter *) (TYPEALIGN(BF_BLOCK_BYTES, chunk + BLOOM_BITS_OFFSET) - BLOOM_BITS_OFFSET);
	SET_VARSIZE(bits, size);
	bits->format_version = BLOOM_FORMAT_VERSION;
	bits->hash_scheme = counters.header.hash_scheme;
	bits->k = counters.header.k;
	bits->flags = counters.header.flags;
	bits->m = counters.header.m;
	bf_counting_to_bits(counters.bits, counters.header.m, bits->bits);

	/* the cache entry holds the bits from now on: the counters are not needed */
	pfree(entry->allocation);
	entry->allocation = chunk;
	entry->value = (struct varlena *) bits;
	bloom_view_filter(bits, &entry->view);
	entry->counting_bits = true;
	*view = entry->view;
	return true;
}

bf_status
counting_view_datum_status(Datum datum, BloomView *view)
{
	struct varlena *value;

	value = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(datum));
	return counting_view_bytes_status((const uint8 *) VARDATA_ANY(value),
									  VARSIZE_ANY_EXHDR(value), view);
}

void
counting_view_datum(Datum datum, BloomView *view)
{
	bloom_raise_invalid_value("counting_bloom", counting_view_datum_status(datum, view));
}

void
counting_view_filter(const CountingBloomFilter *filter, BloomView *view)
{
	view->header.format_version = filter->format_version;
	view->header.hash_scheme = filter->hash_scheme;
	view->header.k = filter->k;
	view->header.flags = filter->flags;
	view->header.m = filter->m;
	view->bits = filter->counters;
	view->nbytes = bf_counting_payload_bytes(filter->m);
}

CountingBloomFilter *
counting_alloc(const BloomHeader *header, const uint8 *counters)
{
	uint64		nbytes = bf_counting_payload_bytes(header->m);
	CountingBloomFilter *filter;

	/* every caller's shape is checked: by counting_shape, or as a filter's header */
	Assert(bf_counting_check_header(header) == BF_OK);
	filter = (CountingBloomFilter *) bloom_palloc_large(BLOOM_BITS_OFFSET + nbytes);
	SET_VARSIZE(filter, BLOOM_BITS_OFFSET + nbytes);
	filter->format_version = BLOOM_FORMAT_VERSION;
	filter->hash_scheme = header->hash_scheme;
	filter->k = header->k;
	filter->flags = header->flags;
	filter->m = header->m;
	bloom_fill_bits(filter->counters, counters, nbytes);
	return filter;
}

/*
 * Decode the text form; on success *result is a new filter.  The text must
 * have exactly the length its header implies before the counters are
 * allocated, so a short string cannot make us allocate a large filter.
 */
static bf_status
counting_decode_text(const char *text, size_t len, CountingBloomFilter **result)
{
	BloomHeader header;
	size_t		payload_offset;
	CountingBloomFilter *filter;
	bf_status	status;

	status = bf_counting_text_decode_header(text, len, &header, &payload_offset);
	if (status != BF_OK)
		return status;
	if (bf_counting_text_length(&header) != len)
		return BF_COUNTING_LENGTH;
	filter = counting_alloc(&header, NULL);
	status = bf_counting_text_decode_counters(text + payload_offset, len - payload_offset,
											  &header, filter->counters);
	if (status != BF_OK)
	{
		pfree(filter);
		return status;
	}
	*result = filter;
	return BF_OK;
}

/* The prefix of the sparse text form (types/sparse.c). */
#define COUNTING_SPARSE_TEXT_PREFIX "counting_bloom:sparse:"

PG_FUNCTION_INFO_V1(counting_bloom_in);
Datum
counting_bloom_in(PG_FUNCTION_ARGS)
{
	const char *text = PG_GETARG_CSTRING(0);
	CountingBloomFilter *filter = NULL;
	bf_status	status;

	if (bloom_is_sparse_text(COUNTING_SPARSE_TEXT_PREFIX, text))
	{
		const uint8 *plain;
		size_t		plain_len;
		struct varlena *value = NULL;

		status = bloom_decode_sparse_text(&counting_layout, COUNTING_SPARSE_TEXT_PREFIX, text,
										  &plain, &plain_len);
		if (status == BF_OK)
			status = bloom_layout_decode_binary(&counting_layout, plain, plain_len, &value);
		filter = (CountingBloomFilter *) value;
	}
	else
		status = counting_decode_text(text, strlen(text), &filter);

	if (!bloom_input_status(fcinfo->context, "counting_bloom", status))
		return (Datum) 0;
	PG_RETURN_POINTER(filter);
}

PG_FUNCTION_INFO_V1(counting_bloom_out);
Datum
counting_bloom_out(PG_FUNCTION_ARGS)
{
	BloomView	view;
	uint64		length;
	char	   *text;

	counting_getarg(fcinfo, 0, &view);
	length = bf_counting_text_length(&view.header);
	if (length >= MaxAllocSize)
		ereport(ERROR,
				errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				errmsg("counting_bloom filter is too large for text output"),
				errdetail("The text form of a filter of m = " UINT64_FORMAT " counters would take " UINT64_FORMAT " bytes; the limit is %zu.",
						  view.header.m, length, (Size) MaxAllocSize - 1),
				errhint("Use binary COPY or counting_bloom_send() to move larger filters."));
	text = bloom_out_sparse(fcinfo, COUNTING_SPARSE_TEXT_PREFIX, &view, length);
	if (text != NULL)
		PG_RETURN_CSTRING(text);
	text = bloom_palloc_large(length + 1);
	bf_counting_text_encode(&view.header, view.bits, text);
	PG_RETURN_CSTRING(text);
}

PG_FUNCTION_INFO_V1(counting_bloom_recv);
Datum
counting_bloom_recv(PG_FUNCTION_ARGS)
{
	return bloom_layout_recv(fcinfo, &counting_layout);
}

PG_FUNCTION_INFO_V1(counting_bloom_send);
Datum
counting_bloom_send(PG_FUNCTION_ARGS)
{
	return bloom_layout_send(fcinfo, &counting_layout);
}
