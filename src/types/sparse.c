/*
 * types/sparse.c: the sparse forms a bloom or counting_bloom value travels
 * in between Citus's workers and its coordinator.
 *
 * Citus sends a shard's partial state through the state type's send
 * function (Citus 14 on) or output function (Citus 13), called with its
 * aggregate's context.  A partial filter holds a fraction of the values in
 * a full-size filter, so most of its bytes are zero: there, and only
 * there, the type writes the sparse binary form (core/core.h) when it is
 * the shorter, and in text "TYPE:sparse:" followed by that form in base64.
 * Every input accepts them, always: a sparse form is expanded into the
 * binary form, which the type's own binary checks then read as they read
 * any other.  What is stored, copied, dumped or replicated is never sparse.
 */
#include "postgres.h"

#include "types/types.h"

#include "utils/memutils.h"

bytea *
bloom_sparse_form(FunctionCallInfo fcinfo, const BloomView *view)
{
	Size		bound;
	bytea	   *result;
	size_t		length;

	if (!AggCheckCallContext(fcinfo, NULL) || view->nbytes < 64)
		return NULL;
	bound = add_size(VARHDRSZ + BF_BINARY_HEADER_BYTES, bf_sparse_bound(view->nbytes));
	result = (bytea *) bloom_palloc_large(bound);
	length = bf_binary_sparse_encode(&view->header, view->bits, view->nbytes,
									 (uint8 *) VARDATA(result));
	if (length >= BF_BINARY_HEADER_BYTES + view->nbytes)
	{
		pfree(result);
		return NULL;
	}
	SET_VARSIZE(result, VARHDRSZ + length);
	return result;
}

char *
bloom_out_sparse(FunctionCallInfo fcinfo, const char *prefix, const BloomView *view,
				 uint64 text_length)
{
	bytea	   *sparse = bloom_sparse_form(fcinfo, view);
	size_t		prefix_length = strlen(prefix);
	size_t		nbytes;
	uint64		length;
	char	   *text;

	if (sparse == NULL)
		return NULL;
	nbytes = VARSIZE(sparse) - VARHDRSZ;
	length = prefix_length + bf_base64_length(nbytes);
	if (length >= text_length)
	{
		pfree(sparse);
		return NULL;
	}
	text = bloom_palloc_large(length + 1);
	memcpy(text, prefix, prefix_length);
	bf_base64_encode((const uint8 *) VARDATA(sparse), nbytes, text + prefix_length);
	text[length] = '\0';
	pfree(sparse);
	return text;
}

bf_status
bloom_expand_sparse(const BloomLayout *layout, const uint8 **data, size_t *len)
{
	uint8		plain_header[BF_BINARY_HEADER_BYTES];
	BloomHeader header;
	uint64		nbytes;
	uint8	   *plain;
	bf_status	status;

	if (*len == 0 || (*data)[0] != BF_BINARY_SPARSE_MARKER)
		return BF_OK;
	status = bf_binary_sparse_header(*data, *len, plain_header);
	if (status == BF_OK)
		status = bf_binary_decode_header(plain_header, sizeof(plain_header), &header);
	if (status == BF_OK || status == BF_TOO_LARGE)
		status = layout->check_header(&header);
	if (status != BF_OK)
		return status;
	/* checked whole before the array it claims is allocated */
	nbytes = layout->payload_bytes(header.m);
	if (!bf_binary_sparse_expand(*data, *len, nbytes, NULL))
		return layout->length_error;
	plain = bloom_palloc_large(BF_BINARY_HEADER_BYTES + nbytes);
	memcpy(plain, plain_header, sizeof(plain_header));
	bloom_fill_bits(plain + BF_BINARY_HEADER_BYTES, NULL, nbytes);
	bf_binary_sparse_expand(*data, *len, nbytes, plain + BF_BINARY_HEADER_BYTES);
	*data = plain;
	*len = BF_BINARY_HEADER_BYTES + nbytes;
	return BF_OK;
}

bool
bloom_is_sparse_text(const char *prefix, const char *text)
{
	return strncmp(text, prefix, strlen(prefix)) == 0;
}

bf_status
bloom_decode_sparse_text(const BloomLayout *layout, const char *prefix, const char *text,
						 const uint8 **plain, size_t *plain_len)
{
	size_t		length = strlen(text);
	size_t		base64 = length - strlen(prefix);
	size_t		nbytes;
	uint8	   *data;
	bf_status	status;

	if (base64 == 0 || base64 % 4 != 0)
		return BF_BASE64;
	nbytes = base64 / 4 * 3 - (text[length - 1] == '=') - (text[length - 2] == '=');
	data = palloc(nbytes);
	status = bf_base64_decode(text + strlen(prefix), base64, data, nbytes);
	if (status == BF_OK && (nbytes == 0 || data[0] != BF_BINARY_SPARSE_MARKER))
		status = BF_SYNTAX;
	*plain = data;
	*plain_len = nbytes;
	if (status == BF_OK)
		status = bloom_expand_sparse(layout, plain, plain_len);
	return status;
}
