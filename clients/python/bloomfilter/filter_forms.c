/*
 * bloomfilter/filter_forms.c: new filters (empty(p, n) in bloom_empty's
 * shape, empty_mk, the scalable filter's first stage), and the text and
 * binary forms of the three types, read through core's one validator of
 * each: what the server refuses, this refuses with its SQLSTATE and detail.
 */
#include "_core.h"

#include <string.h>
/* ---- construction ---- */

PyObject *
Filter_empty(PyTypeObject *type, PyObject *args)
{
	double		p;
	long long	n;
	int			kind = KIND_BLOOM;
	uint64_t	m;
	uint32_t	k;
	uint8_t		scheme;
	bf_status	status;
	FilterObject *self;

	if (!PyArg_ParseTuple(args, "dL|i", &p, &n, &kind))
		return NULL;
	status = bf_default_shape(p, n, &m, &k, &scheme);
	if (status == BF_OK && kind == KIND_COUNTING && m > BF_COUNTING_M_MAX)
		status = BF_COUNTING_TOO_LARGE;
	if (status != BF_OK)
		return raise_error(shape_sqlstate(status), bf_status_message(status),
						   "empty(%g, %lld): no filter of that shape", p, n);
	self = filter_new(type, kind, kind == KIND_COUNTING ? bf_counting_payload_bytes(m) : bloom_payload_bytes(m));
	if (self == NULL)
		return NULL;
	self->header = (BloomHeader) {BLOOM_FORMAT_VERSION, scheme, (uint8_t) k, 0, m};
	return (PyObject *) self;
}

PyObject *
Filter_empty_mk(PyTypeObject *type, PyObject *args)
{
	long long	m;
	long long	k;
	int			kind = KIND_BLOOM;
	bf_status	status;
	FilterObject *self;

	if (!PyArg_ParseTuple(args, "LL|i", &m, &k, &kind))
		return NULL;
	status = bf_check_shape(m, k);
	if (status == BF_OK && kind == KIND_COUNTING && (uint64_t) m > BF_COUNTING_M_MAX)
		status = BF_COUNTING_TOO_LARGE;
	if (status != BF_OK)
		return raise_error(shape_sqlstate(status), bf_status_message(status),
						   "empty_mk(%lld, %lld): no filter of that shape", m, k);
	self = filter_new(type, kind, kind == KIND_COUNTING ? bf_counting_payload_bytes(m) : bloom_payload_bytes(m));
	if (self == NULL)
		return NULL;
	self->header = (BloomHeader) {BLOOM_FORMAT_VERSION, BLOOM_HASH_XXH3_EDH, (uint8_t) k, 0, (uint64_t) m};
	return (PyObject *) self;
}

PyObject *
Filter_scalable_empty(PyTypeObject *type, PyObject *args)
{
	bf_scalable_params params = {0};
	long long	n0;
	int			growth = BF_SCALABLE_DEFAULT_GROWTH;
	bf_status	status;
	FilterObject *self;

	params.r = BF_SCALABLE_DEFAULT_TIGHTENING;
	if (!PyArg_ParseTuple(args, "dL|id", &params.p, &n0, &growth, &params.r))
		return NULL;
	if (n0 < 1)
		return raise_error("22023", bf_status_message(BF_CAPACITY_RANGE),
						   "scalable_empty: initial capacity out of range");
	params.n0 = (uint64_t) n0;
	params.growth = (growth == 2 || growth == 4) ? (uint8_t) growth : 0;
	status = bf_scalable_check_params(&params);
	if (status != BF_OK)
		return raise_error(status == BF_TOO_LARGE ? "54000" : "22023", bf_status_message(status),
						   "scalable_empty: no filter of those parameters");
	self = filter_new(type, KIND_SCALABLE, BF_SCALABLE_HEADER_BYTES);
	if (self == NULL)
		return NULL;
	bf_scalable_start(self->array, &params, self->view);
	if (scalable_open_stage(self) < 0)
	{
		Py_DECREF(self);
		return NULL;
	}
	return (PyObject *) self;
}

/* Parse a text form of any of the three types into a new object of type. */
PyObject *
Filter_from_text(PyTypeObject *type, PyObject *arg)
{
	Py_ssize_t	len;
	const char *text;
	FilterObject *self;
	bf_status	status;
	int			kind;

	if (!PyUnicode_Check(arg))
		return PyErr_Format(PyExc_TypeError, "from_text takes a str, not %.100s", Py_TYPE(arg)->tp_name);
	text = PyUnicode_AsUTF8AndSize(arg, &len);
	if (text == NULL)
		return NULL;
	if (len >= 15 && memcmp(text, BF_COUNTING_TEXT_PREFIX, 15) == 0)
		kind = KIND_COUNTING;
	else if (len >= 15 && memcmp(text, "scalable_bloom:", 15) == 0)
		kind = KIND_SCALABLE;
	else
		kind = KIND_BLOOM;

	if (kind == KIND_SCALABLE)
	{
		size_t		body_len = 0;

		status = bf_scalable_text_decode(text, len, NULL, &body_len);
		if (status != BF_OK)
			goto invalid;
		self = filter_new(type, kind, body_len);
		if (self == NULL)
			return NULL;
		status = bf_scalable_text_decode(text, len, self->array, &body_len);
		if (status == BF_OK)
			status = bf_scalable_parse(self->array, body_len, true, self->view);
		if (status != BF_OK)
		{
			Py_DECREF(self);
			goto invalid;
		}
		return (PyObject *) self;
	}
	else
	{
		BloomHeader header;
		size_t		offset;
		uint64_t	nbytes;

		status = kind == KIND_COUNTING
			? bf_counting_text_decode_header(text, len, &header, &offset)
			: bf_text_decode_header(text, len, &header, &offset);
		if (status != BF_OK)
			goto invalid;
		nbytes = kind == KIND_COUNTING ? bf_counting_payload_bytes(header.m) : bloom_payload_bytes(header.m);
		/* the base64 must be as long as the array needs before anything is allocated */
		if (bf_base64_length(nbytes) != (uint64_t) (len - offset))
		{
			status = kind == KIND_COUNTING ? BF_COUNTING_LENGTH : BF_LENGTH;
			goto invalid;
		}
		self = filter_new(type, kind, nbytes);
		if (self == NULL)
			return NULL;
		self->header = header;
		status = kind == KIND_COUNTING
			? bf_counting_text_decode_counters(text + offset, len - offset, &header, self->array)
			: bf_text_decode_bits(text + offset, len - offset, &header, self->array);
		if (status != BF_OK)
		{
			Py_DECREF(self);
			goto invalid;
		}
		return (PyObject *) self;
	}
invalid:
	return raise_error("22P02", bf_status_message(status), "invalid input syntax for type %s",
					   kind_name(kind));
}

/*
 * The sparse binary form (core/core.h), which the server's binary input
 * also takes: expanded into *owned, and data and len pointed at it.
 */
static bf_status
expand_sparse(int kind, const uint8_t **data, size_t *len, uint8_t **owned)
{
	uint8_t		plain_header[BF_BINARY_HEADER_BYTES];
	BloomHeader header;
	uint64_t	nbytes;
	bf_status	status;

	if (*len == 0 || (*data)[0] != BF_BINARY_SPARSE_MARKER)
		return BF_OK;
	status = bf_binary_sparse_header(*data, *len, plain_header);
	if (status == BF_OK)
		status = bf_binary_decode_header(plain_header, sizeof(plain_header), &header);
	if (status == BF_OK || status == BF_TOO_LARGE)
		status = kind == KIND_COUNTING ? bf_counting_check_header(&header) : bf_check_header(&header);
	if (status != BF_OK)
		return status;
	nbytes = kind == KIND_COUNTING ? bf_counting_payload_bytes(header.m) : bloom_payload_bytes(header.m);
	if (!bf_binary_sparse_expand(*data, *len, nbytes, NULL))
		return kind == KIND_COUNTING ? BF_COUNTING_LENGTH : BF_LENGTH;
	*owned = PyMem_Calloc(BF_BINARY_HEADER_BYTES + nbytes, 1);
	if (*owned == NULL)
		return BF_TOO_LARGE;
	memcpy(*owned, plain_header, sizeof(plain_header));
	bf_binary_sparse_expand(*data, *len, nbytes, *owned + BF_BINARY_HEADER_BYTES);
	*data = *owned;
	*len = BF_BINARY_HEADER_BYTES + nbytes;
	return BF_OK;
}

PyObject *
Filter_from_binary(PyTypeObject *type, PyObject *args)
{
	Py_buffer	data;
	int			kind;
	bf_status	status;
	FilterObject *self = NULL;

	if (!PyArg_ParseTuple(args, "y*i", &data, &kind))
		return NULL;
	if (kind == KIND_SCALABLE)
	{
		bf_scalable_view view;

		status = bf_scalable_parse(data.buf, data.len, true, &view);
		if (status == BF_OK && (self = filter_new(type, kind, data.len)) != NULL)
		{
			memcpy(self->array, data.buf, data.len);
			*self->view = view;
		}
	}
	else
	{
		BloomHeader header;
		const uint8_t *array;
		const uint8_t *bytes = data.buf;
		size_t		len = data.len;
		uint8_t    *owned = NULL;

		status = expand_sparse(kind, &bytes, &len, &owned);
		if (status == BF_OK)
			status = kind == KIND_COUNTING
				? bf_counting_binary_decode(bytes, len, &header, &array)
				: bf_binary_decode(bytes, len, &header, &array);
		if (status == BF_OK &&
			(self = filter_new(type, kind, len - BF_BINARY_HEADER_BYTES)) != NULL)
		{
			self->header = header;
			memcpy(self->array, array, self->nbytes);
		}
		PyMem_Free(owned);
	}
	PyBuffer_Release(&data);
	if (status != BF_OK)
		return raise_error("22P03", bf_status_message(status),
						   "invalid binary representation for type %s", kind_name(kind));
	return (PyObject *) self;
}

/* ---- forms ---- */

PyObject *
Filter_to_text(FilterObject *self, PyObject *unused)
{
	uint64_t	len;
	char	   *text;
	PyObject   *result;

	if (self->kind == KIND_SCALABLE)
		len = bf_scalable_text_length(self->array, self->view);
	else if (self->kind == KIND_COUNTING)
		len = bf_counting_text_length(&self->header);
	else
		len = bf_text_length(&self->header);
	if (len > PY_SSIZE_T_MAX - 1 || (text = PyMem_Malloc(len + 1)) == NULL)
		return PyErr_NoMemory();
	if (self->kind == KIND_SCALABLE)
		bf_scalable_text_encode(self->array, self->view, text);
	else if (self->kind == KIND_COUNTING)
		bf_counting_text_encode(&self->header, self->array, text);
	else
		bf_text_encode(&self->header, self->array, text);
	result = PyUnicode_FromStringAndSize(text, len);
	PyMem_Free(text);
	return result;
}

PyObject *
Filter_to_binary(FilterObject *self, PyObject *unused)
{
	PyObject   *result;
	char	   *out;

	if (self->kind == KIND_SCALABLE)
		return PyBytes_FromStringAndSize((const char *) self->array, self->view->length);
	result = PyBytes_FromStringAndSize(NULL, BF_BINARY_HEADER_BYTES + self->nbytes);
	if (result == NULL)
		return NULL;
	out = PyBytes_AS_STRING(result);
	bf_binary_encode_header(&self->header, (uint8_t *) out);
	memcpy(out + BF_BINARY_HEADER_BYTES, self->array, self->nbytes);
	return result;
}

