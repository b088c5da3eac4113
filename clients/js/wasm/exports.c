/*
 * clients/js/wasm/exports.c: the WebAssembly face of src/core for the
 * JavaScript client.  Everything a filter does (sizing, hashing, probes,
 * estimates, codecs) is the core's own code, called from here; this file
 * only passes arguments across: JavaScript numbers for m (at most 2^33,
 * exact in a double), pointers into the module's memory for bytes, and a
 * BloomHeader in memory for the header fields.  Batches take values already
 * in their canonical bytes (clients/js/src/values.ts): fixed-width ones one
 * after the other, variable-width ones with count + 1 offsets.
 */
#include <stdlib.h>

#include "core/core.h"
#include "core/counting.h"
#include "core/scalable.h"

#define EXPORT(name) __attribute__((export_name(#name)))

EXPORT(js_malloc) void *
js_malloc(size_t n)
{
	return malloc(n);
}

EXPORT(js_calloc) void *
js_calloc(size_t n)
{
	return calloc(n, 1);
}

EXPORT(js_free) void
js_free(void *p)
{
	free(p);
}

EXPORT(js_status_message) const char *
js_status_message(int status)
{
	return bf_status_message((bf_status) status);
}

/* ---- shapes: out is m (uint64), k (uint32), scheme (uint8) ---- */

typedef struct js_shape
{
	uint64_t	m;
	uint32_t	k;
	uint8_t		scheme;
} js_shape;

EXPORT(js_default_shape) int
js_default_shape(double p, double n, js_shape *out)
{
	return bf_default_shape(p, (int64_t) n, &out->m, &out->k, &out->scheme);
}

EXPORT(js_check_shape) int
js_check_shape(double m, double k)
{
	return bf_check_shape((int64_t) m, (int64_t) k);
}

EXPORT(js_check_header) int
js_check_header(const BloomHeader *header)
{
	return bf_check_header(header);
}

EXPORT(js_header_size) size_t
js_header_size(void)
{
	return sizeof(BloomHeader);
}

/* ---- membership: one value, and batches ---- */

EXPORT(js_add) void
js_add(uint8_t *bits, double m, uint32_t k, uint32_t scheme, const uint8_t *data, size_t len)
{
	bf_add(bits, (uint64_t) m, k, (uint8_t) scheme, bf_hash_bytes(data, len));
}

EXPORT(js_contains) int
js_contains(const uint8_t *bits, double m, uint32_t k, uint32_t scheme,
			const uint8_t *data, size_t len)
{
	return bf_contains(bits, (uint64_t) m, k, (uint8_t) scheme, bf_hash_bytes(data, len));
}

EXPORT(js_add_fixed) void
js_add_fixed(uint8_t *bits, double m, uint32_t k, uint32_t scheme,
			 const uint8_t *data, size_t width, size_t count)
{
	for (size_t i = 0; i < count; i++, data += width)
		bf_add(bits, (uint64_t) m, k, (uint8_t) scheme, bf_hash_bytes(data, width));
}

EXPORT(js_contains_fixed) void
js_contains_fixed(const uint8_t *bits, double m, uint32_t k, uint32_t scheme,
				  const uint8_t *data, size_t width, size_t count, uint8_t *out)
{
	for (size_t i = 0; i < count; i++, data += width)
		out[i] = bf_contains(bits, (uint64_t) m, k, (uint8_t) scheme,
							 bf_hash_bytes(data, width));
}

EXPORT(js_add_varying) void
js_add_varying(uint8_t *bits, double m, uint32_t k, uint32_t scheme,
			   const uint8_t *data, const uint32_t *offsets, size_t count)
{
	for (size_t i = 0; i < count; i++)
		bf_add(bits, (uint64_t) m, k, (uint8_t) scheme,
			   bf_hash_bytes(data + offsets[i], offsets[i + 1] - offsets[i]));
}

EXPORT(js_contains_varying) void
js_contains_varying(const uint8_t *bits, double m, uint32_t k, uint32_t scheme,
					const uint8_t *data, const uint32_t *offsets, size_t count, uint8_t *out)
{
	for (size_t i = 0; i < count; i++)
		out[i] = bf_contains(bits, (uint64_t) m, k, (uint8_t) scheme,
							 bf_hash_bytes(data + offsets[i], offsets[i + 1] - offsets[i]));
}

/* ---- whole arrays and estimates ---- */

EXPORT(js_popcount) double
js_popcount(const uint8_t *bits, size_t nbytes)
{
	return (double) bf_popcount(bits, nbytes);
}

EXPORT(js_popcount_or) double
js_popcount_or(const uint8_t *a, const uint8_t *b, size_t nbytes)
{
	return (double) bf_popcount_or(a, b, nbytes);
}

EXPORT(js_or) void
js_or(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t nbytes)
{
	bf_or(dst, a, b, nbytes);
}

EXPORT(js_and) void
js_and(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t nbytes)
{
	bf_and(dst, a, b, nbytes);
}

EXPORT(js_cardinality) double
js_cardinality(double m, uint32_t k, uint32_t scheme, double bits_set)
{
	return bf_estimate_cardinality((uint64_t) m, k, (uint8_t) scheme, (uint64_t) bits_set);
}

EXPORT(js_false_positive_rate) double
js_false_positive_rate(const uint8_t *bits, double m, uint32_t k, uint32_t scheme,
					   double bits_set)
{
	return bf_filter_false_positive_rate(bits, (uint64_t) m, k, (uint8_t) scheme,
										 (uint64_t) bits_set);
}

EXPORT(js_expected_false_positive_rate) double
js_expected_false_positive_rate(double m, uint32_t k, double n)
{
	return bf_expected_false_positive_rate((uint64_t) m, k, (uint64_t) n);
}

/* ---- bloom's forms ---- */

EXPORT(js_text_length) double
js_text_length(const BloomHeader *header)
{
	return (double) bf_text_length(header);
}

EXPORT(js_text_encode) void
js_text_encode(const BloomHeader *header, const uint8_t *bits, char *out)
{
	bf_text_encode(header, bits, out);
}

/*
 * Decode a whole text form into header and array (allocated here), as
 * bloom_in and counting_bloom_in do: the exact length is checked before
 * the array is allocated.
 */
static int
js_decode_text(const char *text, size_t len, BloomHeader *header, uint8_t **array, bool counting)
{
	size_t		offset;
	bf_status	status = counting ? bf_counting_text_decode_header(text, len, header, &offset)
		: bf_text_decode_header(text, len, header, &offset);

	*array = NULL;
	if (status != BF_OK)
		return status;
	if ((counting ? bf_counting_text_length(header) : bf_text_length(header)) != len)
		return counting ? BF_COUNTING_LENGTH : BF_LENGTH;
	*array = calloc((counting ? bf_counting_payload_bytes(header->m)
					 : bloom_payload_bytes(header->m)) + 1, 1);
	if (*array == NULL)
		return counting ? BF_COUNTING_TOO_LARGE : BF_TOO_LARGE;
	status = counting ? bf_counting_text_decode_counters(text + offset, len - offset, header, *array)
		: bf_text_decode_bits(text + offset, len - offset, header, *array);
	if (status != BF_OK)
	{
		free(*array);
		*array = NULL;
	}
	return status;
}

EXPORT(js_text_decode) int
js_text_decode(const char *text, size_t len, BloomHeader *header, uint8_t **bits)
{
	return js_decode_text(text, len, header, bits, false);
}

EXPORT(js_binary_encode_header) void
js_binary_encode_header(const BloomHeader *header, uint8_t *out)
{
	bf_binary_encode_header(header, out);
}

/*
 * A binary input in the sparse form (core/core.h), expanded as the
 * server's recv expands it (types/sparse.c), statuses and all: *plain is
 * the plain binary form (malloc'd; the caller frees it), or NULL when data
 * is not sparse.
 */
static bf_status
js_expand_sparse(const uint8_t *data, size_t len, bool counting, uint8_t **plain, size_t *plain_len)
{
	uint8_t		plain_header[BF_BINARY_HEADER_BYTES];
	BloomHeader header;
	size_t		nbytes;
	bf_status	status;

	*plain = NULL;
	if (len == 0 || data[0] != BF_BINARY_SPARSE_MARKER)
		return BF_OK;
	status = bf_binary_sparse_header(data, len, plain_header);
	if (status == BF_OK)
		status = bf_binary_decode_header(plain_header, sizeof(plain_header), &header);
	if (status == BF_OK || status == BF_TOO_LARGE)
		status = counting ? bf_counting_check_header(&header) : bf_check_header(&header);
	if (status != BF_OK)
		return status;
	nbytes = counting ? bf_counting_payload_bytes(header.m) : bloom_payload_bytes(header.m);
	if (!bf_binary_sparse_expand(data, len, nbytes, NULL))
		return counting ? BF_COUNTING_LENGTH : BF_LENGTH;
	*plain = calloc(BF_BINARY_HEADER_BYTES + nbytes, 1);
	if (*plain == NULL)
		return counting ? BF_COUNTING_TOO_LARGE : BF_TOO_LARGE;
	memcpy(*plain, plain_header, sizeof(plain_header));
	bf_binary_sparse_expand(data, len, nbytes, *plain + BF_BINARY_HEADER_BYTES);
	*plain_len = BF_BINARY_HEADER_BYTES + nbytes;
	return BF_OK;
}

/*
 * Decode a whole binary form, plain or sparse; *offset is where its array
 * starts in *form, which is data or the expanded form (freed by the
 * caller when it is not data).
 */
static int
js_decode_binary(const uint8_t *data, size_t len, BloomHeader *header, const uint8_t **form,
				 size_t *offset, bool counting)
{
	uint8_t    *plain;
	size_t		plain_len;
	const uint8_t *array;
	bf_status	status = js_expand_sparse(data, len, counting, &plain, &plain_len);

	*form = data;
	if (status != BF_OK)
		return status;
	if (plain != NULL)
	{
		*form = plain;
		len = plain_len;
	}
	status = counting ? bf_counting_binary_decode(*form, len, header, &array)
		: bf_binary_decode(*form, len, header, &array);
	if (status == BF_OK)
		*offset = (size_t) (array - *form);
	else if (plain != NULL)
	{
		free(plain);
		*form = data;
	}
	return status;
}

EXPORT(js_binary_decode) int
js_binary_decode(const uint8_t *data, size_t len, BloomHeader *header, const uint8_t **form,
				 size_t *offset)
{
	return js_decode_binary(data, len, header, form, offset, false);
}

/* ---- counting_bloom: read, and test membership ---- */

EXPORT(js_counting_text_decode) int
js_counting_text_decode(const char *text, size_t len, BloomHeader *header, uint8_t **counters)
{
	return js_decode_text(text, len, header, counters, true);
}

EXPORT(js_counting_binary_decode) int
js_counting_binary_decode(const uint8_t *data, size_t len, BloomHeader *header,
						  const uint8_t **form, size_t *offset)
{
	return js_decode_binary(data, len, header, form, offset, true);
}

EXPORT(js_counting_contains) int
js_counting_contains(const uint8_t *counters, double m, uint32_t k, uint32_t scheme,
					 const uint8_t *data, size_t len)
{
	return bf_counting_contains(counters, (uint64_t) m, k, (uint8_t) scheme,
								bf_hash_bytes(data, len));
}

EXPORT(js_counting_text_length) double
js_counting_text_length(const BloomHeader *header)
{
	return (double) bf_counting_text_length(header);
}

EXPORT(js_counting_text_encode) void
js_counting_text_encode(const BloomHeader *header, const uint8_t *counters, char *out)
{
	bf_counting_text_encode(header, counters, out);
}

/* ---- scalable_bloom: a body and its view, both in the module's memory ---- */

EXPORT(js_scalable_view_size) size_t
js_scalable_view_size(void)
{
	return sizeof(bf_scalable_view);
}

EXPORT(js_scalable_parse) int
js_scalable_parse(const uint8_t *body, size_t len, bf_scalable_view *view)
{
	return bf_scalable_parse(body, len, true, view);
}

/* Measure a text form: *body_len is the length of the body it gives. */
EXPORT(js_scalable_text_measure) int
js_scalable_text_measure(const char *text, size_t len, size_t *body_len)
{
	return bf_scalable_text_decode(text, len, NULL, body_len);
}

EXPORT(js_scalable_text_decode) int
js_scalable_text_decode(const char *text, size_t len, uint8_t *body, size_t *body_len)
{
	return bf_scalable_text_decode(text, len, body, body_len);
}

EXPORT(js_scalable_contains) int
js_scalable_contains(const uint8_t *body, const bf_scalable_view *view,
					 const uint8_t *data, size_t len)
{
	return bf_scalable_contains(body, view, bf_hash_bytes(data, len));
}

EXPORT(js_scalable_text_length) double
js_scalable_text_length(const uint8_t *body, const bf_scalable_view *view)
{
	return (double) bf_scalable_text_length(body, view);
}

EXPORT(js_scalable_text_encode) void
js_scalable_text_encode(const uint8_t *body, const bf_scalable_view *view, char *out)
{
	bf_scalable_text_encode(body, view, out);
}

EXPORT(js_scalable_cardinality) double
js_scalable_cardinality(const uint8_t *body, const bf_scalable_view *view)
{
	return bf_scalable_cardinality(body, view);
}

EXPORT(js_scalable_stages) uint32_t
js_scalable_stages(const bf_scalable_view *view)
{
	return view->stages;
}

/* The 128-bit hash of a value's canonical bytes: h1 then h2 at out. */
EXPORT(js_hash) void
js_hash(const uint8_t *data, size_t len, uint64_t *out)
{
	bf_hash		hash = bf_hash_bytes(data, len);

	out[0] = hash.h1;
	out[1] = hash.h2;
}
