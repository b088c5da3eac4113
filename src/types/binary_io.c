/*
 * types/binary_io.c: the binary input and output of the types whose stored
 * form is bloom's header and then an array (bloom, counting_bloom), written
 * once for both through their BloomLayout.
 *
 * A binary input is taken whole from the message (its length checked
 * before anything is allocated), expanded if it is in the sparse form
 * (types/sparse.c), checked by the type's own binary decoder, and copied
 * into a new value.  The output is the value's binary form, sparse only
 * between an aggregate's processes (bloom_send_travel).
 */
#include "postgres.h"

#include "types/types.h"

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

	bloom_layout_getarg(fcinfo, 0, layout, &view);
	PG_RETURN_BYTEA_P(bloom_send_travel(fcinfo, &view));
}
