/*
 * types/binary_io.c: the binary input and output of the types whose stored
 * form is bloom's header and then an array (bloom, counting_bloom), written
 * once for both through their BloomLayout.
 *
 * A binary input is taken whole from the message (its length checked
 * before anything is allocated), expanded if it is in the sparse form
 * (types/sparse.c), checked by the type's own binary decoder, and copied
 * into a new value.  The output is the value's binary form, sparse only
 * between an aggregate's processes (bloom_sparse_form).
 */
#include "postgres.h"

#include "types/types.h"

#include "libpq/pqformat.h"

const uint8 *
bloom_recv_take(StringInfo buf, const char *type_name, bf_status too_large, size_t *length)
{
	const uint8 *data = (const uint8 *) buf->data + buf->cursor;
	size_t		len = buf->len - buf->cursor;

	/* the value is no larger than what was received, which must fit */
	if (len > BLOOM_MAX_VARLENA_BYTES - VARHDRSZ)
		bloom_raise_invalid_binary(type_name, bf_status_message(too_large));
	buf->cursor = buf->len;
	*length = len;
	return data;
}

bytea *
bloom_send_view(const BloomView *view)
{
	uint8		header[BF_BINARY_HEADER_BYTES];
	StringInfoData buf;

	bf_binary_encode_header(&view->header, header);
	pq_begintypsend(&buf);
	enlargeStringInfo(&buf, sizeof(header) + view->nbytes);
	pq_sendbytes(&buf, (const char *) header, sizeof(header));
	pq_sendbytes(&buf, (const char *) view->bits, (int) view->nbytes);
	return pq_endtypsend(&buf);
}

bf_status
bloom_layout_decode_binary(const BloomLayout *layout, const uint8 *data, size_t len,
						   struct varlena **result)
{
	BloomView	view;
	bf_status	status = bloom_expand_sparse(layout, &data, &len);

	if (status == BF_OK)
		status = layout->binary_decode(data, len, &view.header, &view.bits);
	if (status != BF_OK)
		return status;
	view.nbytes = layout->payload_bytes(view.header.m);
	*result = layout->copy(&view);
	return BF_OK;
}

Datum
bloom_layout_recv(FunctionCallInfo fcinfo, const BloomLayout *layout)
{
	size_t		len;
	const uint8 *data = bloom_recv_take((StringInfo) PG_GETARG_POINTER(0), layout->sql_name,
										layout->too_large, &len);
	struct varlena *result = NULL;
	bf_status	status = bloom_layout_decode_binary(layout, data, len, &result);

	if (status != BF_OK)
		bloom_raise_invalid_binary(layout->sql_name, bf_status_message(status));
	PG_RETURN_POINTER(result);
}

Datum
bloom_layout_send(FunctionCallInfo fcinfo, const BloomLayout *layout)
{
	BloomView	view;
	bytea	   *sparse;

	bloom_layout_getarg(fcinfo, 0, layout, &view);
	sparse = bloom_sparse_form(fcinfo, &view);
	PG_RETURN_BYTEA_P(sparse != NULL ? sparse : bloom_send_view(&view));
}
