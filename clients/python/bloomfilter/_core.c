/*
 * bloomfilter/_core.c: the server's src/core as a CPython extension.
 *
 * Shapes, sizing, hashing, probes, estimates and the text and binary forms
 * are src/core's own functions, compiled in (setup.py); this file is the
 * glue: the filter objects, the values Python hands over turned into their
 * canonical bytes (the common types here, the rest in bloomfilter/values.py
 * as a Value), and the library's error.  A Python value's canonical bytes
 * are those the server hashes for the SQL type it maps to (doc/clients.md).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/counting.h"
#include "core/scalable.h"

static PyObject *BloomError;	/* bloomfilter.BloomError */
static PyObject *slow_encoder;	/* values.py's encoder for the other types */

/* ---- errors ---- */

/* Raise BloomError(message: detail) with .sqlstate and .detail, as the server's. */
static PyObject *
raise_error(const char *sqlstate, const char *detail, const char *format, ...)
{
	char		message[512];
	va_list		args;
	PyObject   *text;
	PyObject   *error;

	va_start(args, format);
	vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	text = detail ? PyUnicode_FromFormat("%s: %s", message, detail) : PyUnicode_FromString(message);
	if (text == NULL)
		return NULL;
	error = PyObject_CallOneArg(BloomError, text);
	Py_DECREF(text);
	if (error == NULL)
		return NULL;
	{
		PyObject   *state = PyUnicode_FromString(sqlstate);
		PyObject   *why = detail ? PyUnicode_FromString(detail) : Py_NewRef(Py_None);
		int			failed = state == NULL || why == NULL ||
			PyObject_SetAttrString(error, "sqlstate", state) < 0 ||
			PyObject_SetAttrString(error, "detail", why) < 0;

		Py_XDECREF(state);
		Py_XDECREF(why);
		if (failed)
		{
			Py_DECREF(error);
			return NULL;
		}
	}
	PyErr_SetObject(BloomError, error);
	Py_DECREF(error);
	return NULL;
}

/* The SQLSTATE the server gives a status from sizing or shape checks. */
static const char *
shape_sqlstate(bf_status status)
{
	return (status == BF_TOO_LARGE || status == BF_COUNTING_TOO_LARGE) ? "54000" : "22023";
}

/* ---- values ---- */

static inline bf_hash
hash_u64(uint64_t value)
{
	uint8_t		little[8];

	bf_store_le64(little, value);
	return bf_hash_bytes(little, 8);
}

static inline bf_hash
hash_float8(double value)
{
	return hash_u64(bf_float8_canonical_bits(value));
}

/*
 * A value already encoded: bloomfilter.Value (values.py makes them, for the
 * types encoded in Python and for an explicit SQL type).  Its hash is taken
 * once.
 */
typedef struct
{
	PyObject_HEAD
	bf_hash		hash;
	uint8_t		flags;			/* BLOOM_FLAG_TEXT_UTF8 for non-ASCII text */
	PyObject   *data;			/* the canonical bytes */
	PyObject   *sqltype;		/* str */
} ValueObject;

static PyTypeObject ValueType;

static int
Value_init(ValueObject *self, PyObject *args, PyObject *kwargs)
{
	static char *keywords[] = {"data", "sqltype", "flags", NULL};
	Py_buffer	data;
	PyObject   *sqltype;
	int			flags = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*U|i", keywords, &data, &sqltype, &flags))
		return -1;
	if (flags & ~BLOOM_FLAGS_KNOWN)
	{
		PyBuffer_Release(&data);
		PyErr_SetString(PyExc_ValueError, "unknown flags");
		return -1;
	}
	self->hash = bf_hash_bytes(data.buf, data.len);
	self->flags = (uint8_t) flags;
	Py_XSETREF(self->data, PyBytes_FromStringAndSize(data.buf, data.len));
	PyBuffer_Release(&data);
	Py_INCREF(sqltype);
	Py_XSETREF(self->sqltype, sqltype);
	return self->data ? 0 : -1;
}

static void
Value_dealloc(ValueObject *self)
{
	Py_XDECREF(self->data);
	Py_XDECREF(self->sqltype);
	Py_TYPE(self)->tp_free((PyObject *) self);
}

static PyObject *
Value_get_h1(ValueObject *self, void *closure)
{
	return PyLong_FromUnsignedLongLong(self->hash.h1);
}

static PyObject *
Value_get_h2(ValueObject *self, void *closure)
{
	return PyLong_FromUnsignedLongLong(self->hash.h2);
}

static PyObject *
Value_get_flags(ValueObject *self, void *closure)
{
	return PyLong_FromLong(self->flags);
}

static PyObject *
Value_get_data(ValueObject *self, void *closure)
{
	return Py_NewRef(self->data);
}

static PyObject *
Value_get_sqltype(ValueObject *self, void *closure)
{
	return Py_NewRef(self->sqltype);
}

static PyObject *
Value_repr(ValueObject *self)
{
	return PyUnicode_FromFormat("Value(%R, %R)", self->data, self->sqltype);
}

static PyObject *
Value_richcompare(PyObject *a, PyObject *b, int op)
{
	bool		equal;

	if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, &ValueType))
		Py_RETURN_NOTIMPLEMENTED;
	equal = ((ValueObject *) a)->hash.h1 == ((ValueObject *) b)->hash.h1 &&
		((ValueObject *) a)->hash.h2 == ((ValueObject *) b)->hash.h2;
	return PyBool_FromLong(op == Py_EQ ? equal : !equal);
}

static Py_hash_t
Value_hash(ValueObject *self)
{
	Py_hash_t	h = (Py_hash_t) (self->hash.h1 >> 1);

	return h == -1 ? -2 : h;
}

static PyGetSetDef Value_getset[] = {
	{"h1", (getter) Value_get_h1, NULL, "low 64 bits of the XXH3-128 hash", NULL},
	{"h2", (getter) Value_get_h2, NULL, "high 64 bits of the XXH3-128 hash", NULL},
	{"flags", (getter) Value_get_flags, NULL, "header flags adding it sets", NULL},
	{"data", (getter) Value_get_data, NULL, "the canonical bytes", NULL},
	{"sqltype", (getter) Value_get_sqltype, NULL, "the SQL type it stands for", NULL},
	{NULL}
};

static PyTypeObject ValueType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "bloomfilter._core.Value",
	.tp_basicsize = sizeof(ValueObject),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "A value as the server hashes it: Value(canonical_bytes, sqltype, flags=0).",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc) Value_init,
	.tp_dealloc = (destructor) Value_dealloc,
	.tp_getset = Value_getset,
	.tp_repr = (reprfunc) Value_repr,
	.tp_richcompare = Value_richcompare,
	.tp_hash = (hashfunc) Value_hash,
};

/*
 * The hash of a Python value, and the flags adding it sets.  int, float,
 * str, bytes and bool here (the per-row path); every other type through
 * values.py, which returns a Value or raises BloomError.
 */
static int
hash_value(PyObject *value, bf_hash *hash, uint8_t *flags)
{
	PyTypeObject *type = Py_TYPE(value);

	*flags = 0;
	if (type == &PyLong_Type)
	{
		int			overflow;
		long long	integer = PyLong_AsLongLongAndOverflow(value, &overflow);

		if (overflow == 0)
		{
			if (integer == -1 && PyErr_Occurred())
				return -1;
			*hash = hash_u64((uint64_t) integer);
			return 0;
		}
		/* beyond int64: numeric's text, handled with the other types */
	}
	else if (type == &PyFloat_Type)
	{
		*hash = hash_float8(PyFloat_AS_DOUBLE(value));
		return 0;
	}
	else if (type == &PyUnicode_Type)
	{
		Py_ssize_t	len;
		const char *utf8 = PyUnicode_AsUTF8AndSize(value, &len);

		if (utf8 == NULL)
		{
			PyErr_Clear();
			raise_error("22021", "A Python str with a lone surrogate has no UTF-8 form, and PostgreSQL text is UTF-8.",
						"cannot encode a str as text");
			return -1;
		}
		if (memchr(utf8, 0, len) != NULL)
		{
			raise_error("22021", "PostgreSQL text cannot contain the character NUL (U+0000).",
						"cannot encode a str as text");
			return -1;
		}
		if (!PyUnicode_IS_ASCII(value))
			*flags = BLOOM_FLAG_TEXT_UTF8;
		*hash = bf_hash_bytes(utf8, len);
		return 0;
	}
	else if (type == &PyBytes_Type)
	{
		*hash = bf_hash_bytes(PyBytes_AS_STRING(value), PyBytes_GET_SIZE(value));
		return 0;
	}
	else if (type == &PyBool_Type)
	{
		uint8_t		byte = value == Py_True ? 1 : 0;

		*hash = bf_hash_bytes(&byte, 1);
		return 0;
	}

	if (!PyObject_TypeCheck(value, &ValueType))
	{
		PyObject   *encoded;

		if (slow_encoder == NULL)
		{
			PyErr_SetString(PyExc_RuntimeError, "bloomfilter._core: no encoder registered");
			return -1;
		}
		encoded = PyObject_CallOneArg(slow_encoder, value);
		if (encoded == NULL)
			return -1;
		if (!PyObject_TypeCheck(encoded, &ValueType))
		{
			Py_DECREF(encoded);
			PyErr_SetString(PyExc_TypeError, "the encoder did not return a Value");
			return -1;
		}
		*hash = ((ValueObject *) encoded)->hash;
		*flags = ((ValueObject *) encoded)->flags;
		Py_DECREF(encoded);
		return 0;
	}
	*hash = ((ValueObject *) value)->hash;
	*flags = ((ValueObject *) value)->flags;
	return 0;
}

/* ---- filters ---- */

enum filter_kind
{
	KIND_BLOOM,
	KIND_COUNTING,
	KIND_SCALABLE
};

/*
 * A filter of any of the three types.  bloom and counting_bloom: the header
 * and the array (bits or counters).  scalable_bloom: the body (its stored
 * form, which is also its binary form) and its view.
 */
typedef struct
{
	PyObject_HEAD
	int			kind;
	BloomHeader header;
	uint8_t    *array;
	size_t		nbytes;
	bf_scalable_view *view;
} FilterObject;

static PyTypeObject FilterType;

static FilterObject *
filter_new(PyTypeObject *type, int kind, size_t nbytes)
{
	FilterObject *self = (FilterObject *) type->tp_alloc(type, 0);

	if (self == NULL)
		return NULL;
	self->kind = kind;
	self->array = PyMem_Calloc(nbytes ? nbytes : 1, 1);
	self->nbytes = nbytes;
	if (self->array == NULL)
	{
		Py_DECREF(self);
		PyErr_NoMemory();
		return NULL;
	}
	if (kind == KIND_SCALABLE)
	{
		self->view = PyMem_Calloc(1, sizeof(bf_scalable_view));
		if (self->view == NULL)
		{
			Py_DECREF(self);
			PyErr_NoMemory();
			return NULL;
		}
	}
	return self;
}

static void
Filter_dealloc(FilterObject *self)
{
	PyMem_Free(self->array);
	PyMem_Free(self->view);
	Py_TYPE(self)->tp_free((PyObject *) self);
}

static const char *
kind_name(int kind)
{
	return kind == KIND_BLOOM ? "bloom" : kind == KIND_COUNTING ? "counting_bloom" : "scalable_bloom";
}

static inline void
filter_set_flags(FilterObject *self, uint8_t flags)
{
	if (self->kind == KIND_SCALABLE)
	{
		self->array[1] |= flags;
		self->view->params.flags |= flags;
	}
	else
		self->header.flags |= flags;
}

static inline bool
filter_contains_hash(const FilterObject *self, bf_hash hash)
{
	switch (self->kind)
	{
		case KIND_BLOOM:
			return bf_contains(self->array, self->header.m, self->header.k,
							   self->header.hash_scheme, hash);
		case KIND_COUNTING:
			return bf_counting_contains(self->array, self->header.m, self->header.k,
										self->header.hash_scheme, hash);
		default:
			return bf_scalable_contains(self->array, self->view, hash);
	}
}

/* Open the next stage of a scalable filter (as the server's scalable_open_stage). */
static int
scalable_open_stage(FilterObject *self)
{
	uint64_t	m;
	uint32_t	k;
	uint8_t		scheme;
	uint64_t	new_length;
	uint8_t    *body;
	bf_status	status = bf_scalable_stage_plan(&self->view->params, self->view->stages,
												self->view->length, &m, &k, &scheme, &new_length);

	if (status != BF_OK)
	{
		raise_error(status == BF_TOO_LARGE || status == BF_STAGES ? "54000" : "22023",
					bf_status_message(status), "bloom_add: the scalable filter cannot grow");
		return -1;
	}
	body = PyMem_Realloc(self->array, new_length);
	if (body == NULL)
	{
		PyErr_NoMemory();
		return -1;
	}
	memset(body + self->view->length, 0, new_length - self->view->length);
	self->array = body;
	self->nbytes = new_length;
	bf_scalable_append_stage(body, self->view, m, k, scheme);
	return 0;
}

static inline int
filter_add_hash(FilterObject *self, bf_hash hash)
{
	switch (self->kind)
	{
		case KIND_BLOOM:
			bf_add(self->array, self->header.m, self->header.k, self->header.hash_scheme, hash);
			return 0;
		case KIND_COUNTING:
			bf_counting_add(self->array, self->header.m, self->header.k,
							self->header.hash_scheme, hash);
			return 0;
		default:
			if (bf_scalable_add(self->array, self->view, hash) == BF_SCALABLE_FULL)
			{
				if (scalable_open_stage(self) < 0)
					return -1;
				(void) bf_scalable_add(self->array, self->view, hash);
			}
			return 0;
	}
}

/*
 * Batches go a chunk at a time: the chunk's values hashed first (the
 * Python objects prefetched ahead), then each value's cache lines
 * prefetched, then the probes, so that the misses of a filter larger than
 * the cache overlap instead of waiting one after another.
 */
#define BATCH_CHUNK 64

static inline void
filter_prefetch(const FilterObject *self, bf_hash hash)
{
#ifdef __GNUC__
	if (self->kind == KIND_SCALABLE)
		return;
	if (self->header.hash_scheme == BLOOM_HASH_XXH3_BLOCKED)
	{
		uint64_t	offset = bf_block_offset(hash.h1, self->header.m);

		if (self->kind == KIND_COUNTING)
			offset *= 4;
		__builtin_prefetch(self->array + offset);
	}
	else
	{
		bf_edh_probe probe;
		uint64_t	position;

		bf_edh_probe_init(&probe, hash, self->header.m, self->header.k);
		while (bf_edh_probe_next(&probe, &position))
			__builtin_prefetch(self->array + (self->kind == KIND_COUNTING ? position >> 1 : position >> 3));
	}
#endif
}

/* Whether prefetching pays: a filter larger than a typical L2 cache. */
static inline bool
filter_prefetches(const FilterObject *self)
{
	return self->kind != KIND_SCALABLE && self->nbytes >= ((size_t) 256 << 10);
}

/* ---- construction ---- */

static PyObject *
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

static PyObject *
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

static PyObject *
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
static PyObject *
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

static PyObject *
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

static PyObject *
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

static PyObject *
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

/* ---- membership ---- */

static PyObject *
Filter_add(FilterObject *self, PyObject *value)
{
	bf_hash		hash;
	uint8_t		flags;

	if (hash_value(value, &hash, &flags) < 0)
		return NULL;
	if (flags)
		filter_set_flags(self, flags);
	if (filter_add_hash(self, hash) < 0)
		return NULL;
	Py_RETURN_NONE;
}

static int
Filter_sq_contains(FilterObject *self, PyObject *value)
{
	bf_hash		hash;
	uint8_t		flags;

	if (hash_value(value, &hash, &flags) < 0)
		return -1;
	return filter_contains_hash(self, hash);
}

static PyObject *
Filter_contains(FilterObject *self, PyObject *value)
{
	int			found = Filter_sq_contains(self, value);

	return found < 0 ? NULL : PyBool_FromLong(found);
}

/*
 * The hashes of a typed buffer (array.array, a NumPy array, memoryview):
 * integer formats are integers, 'd' float8, 'f' float4, with no Python
 * object per element.  Returns 1 when handled, 0 when values is no such
 * buffer, -1 on error.
 */
typedef int (*hash_sink) (FilterObject *self, Py_ssize_t start, const bf_hash *hashes,
						  Py_ssize_t count, void *state);

static int
hash_buffer(FilterObject *self, PyObject *values, hash_sink sink, PyObject **list)
{
	Py_ssize_t	n;
	Py_ssize_t *count = &n;
	void	   *state = NULL;
	bf_hash		chunk[BATCH_CHUNK];
	Py_buffer	view;
	const char *format;
	char		code;
	int			status = 1;

	if (!PyObject_CheckBuffer(values) || PyBytes_Check(values) || PyByteArray_Check(values))
		return 0;
	if (PyObject_GetBuffer(values, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
		return -1;
	format = view.format ? view.format : "B";
	if (*format == '@' || *format == '=' || *format == '<')
		format++;
	code = format[0];
	if (format[0] == '\0' || format[1] != '\0' || strchr("bBhHiIlLqQfd", code) == NULL)
	{
		PyBuffer_Release(&view);
		raise_error("22023", "A buffer of values must hold integers or floats, one per element "
					"(array.array or NumPy format b, B, h, H, i, I, l, L, q, Q, f or d).",
					"add_many: cannot read buffer of format %s", view.format ? view.format : "B");
		return -1;
	}
	*count = view.len / view.itemsize;
	if (list != NULL)
	{
		if ((*list = PyList_New(*count)) == NULL)
		{
			PyBuffer_Release(&view);
			return -1;
		}
		state = *list;
	}
	for (Py_ssize_t i = 0; i < *count && status > 0; i++)
	{
		const char *item = (const char *) view.buf + i * view.itemsize;
		bf_hash		hash;
		Py_ssize_t	slot = i % BATCH_CHUNK;

		switch (code)
		{
#define INTEGER_CASE(c, ctype) \
			case c: { ctype v; memcpy(&v, item, sizeof(v)); hash = hash_u64((uint64_t) (int64_t) v); break; }
				INTEGER_CASE('b', signed char)
				INTEGER_CASE('B', unsigned char)
				INTEGER_CASE('h', short)
				INTEGER_CASE('H', unsigned short)
				INTEGER_CASE('i', int)
				INTEGER_CASE('I', unsigned int)
				INTEGER_CASE('l', long)
				INTEGER_CASE('q', long long)
#undef INTEGER_CASE
			case 'L':
			case 'Q':
				{
					unsigned long long v = 0;

					memcpy(&v, item, view.itemsize);
					if (v > (unsigned long long) INT64_MAX)
					{
						/* numeric's text: the decimal digits */
						char		digits[24];
						int			len = snprintf(digits, sizeof(digits), "%llu", v);

						hash = bf_hash_bytes(digits, len);
					}
					else
						hash = hash_u64(v);
					break;
				}
			case 'f':
				{
					float		v;

					memcpy(&v, item, sizeof(v));
					hash = hash_float8((double) v);
					break;
				}
			default:
				{
					double		v;

					memcpy(&v, item, sizeof(v));
					hash = hash_float8(v);
					break;
				}
		}
		chunk[slot] = hash;
		if ((slot == BATCH_CHUNK - 1 || i == *count - 1) &&
			sink(self, i - slot, chunk, slot + 1, state) < 0)
			status = -1;
	}
	PyBuffer_Release(&view);
	return status;
}

static int
add_sink(FilterObject *self, Py_ssize_t start, const bf_hash *hashes, Py_ssize_t count, void *state)
{
	if (filter_prefetches(self))
		for (Py_ssize_t i = 0; i < count; i++)
			filter_prefetch(self, hashes[i]);
	for (Py_ssize_t i = 0; i < count; i++)
		if (filter_add_hash(self, hashes[i]) < 0)
			return -1;
	return 0;
}

static int
contains_sink(FilterObject *self, Py_ssize_t start, const bf_hash *hashes, Py_ssize_t count,
			  void *state)
{
	PyObject   *result = (PyObject *) state;

	if (filter_prefetches(self))
		for (Py_ssize_t i = 0; i < count; i++)
			filter_prefetch(self, hashes[i]);
	for (Py_ssize_t i = 0; i < count; i++)
		PyList_SET_ITEM(result, start + i,
						Py_NewRef(filter_contains_hash(self, hashes[i]) ? Py_True : Py_False));
	return 0;
}

/*
 * Hash count items (of left still to come, for prefetching the objects
 * ahead); *flags_out (when not NULL) gains the flags they set.
 */
static int
hash_chunk(PyObject **items, Py_ssize_t count, Py_ssize_t left, bf_hash *hashes, uint8_t *flags_out)
{
	for (Py_ssize_t i = 0; i < count; i++)
	{
		uint8_t		flags;

#ifdef __GNUC__
		if (i + 8 < left)
			__builtin_prefetch(items[i + 8]);
#endif
		if (hash_value(items[i], &hashes[i], &flags) < 0)
			return -1;
		if (flags_out != NULL)
			*flags_out |= flags;
	}
	return 0;
}

/* add_many(values): a sequence, any iterable, or a typed buffer. */
static PyObject *
Filter_add_many(FilterObject *self, PyObject *values)
{
	int			handled = hash_buffer(self, values, add_sink, NULL);
	PyObject   *sequence;
	Py_ssize_t	n;
	PyObject  **items;
	bf_hash    *hashes;
	uint8_t		flags = 0;
	int			status = 0;

	if (handled < 0)
		return NULL;
	if (handled)
		Py_RETURN_NONE;
	sequence = PySequence_Fast(values, "add_many takes a sequence, an iterable or a buffer of values");
	if (sequence == NULL)
		return NULL;
	n = PySequence_Fast_GET_SIZE(sequence);
	items = PySequence_Fast_ITEMS(sequence);
	/* every value hashed before any is added: a value that cannot be leaves the filter as it was */
	hashes = PyMem_Malloc((n ? n : 1) * sizeof(bf_hash));
	if (hashes == NULL)
	{
		Py_DECREF(sequence);
		return PyErr_NoMemory();
	}
	if (hash_chunk(items, n, n, hashes, &flags) < 0)
		status = -1;
	else
	{
		filter_set_flags(self, flags);
		for (Py_ssize_t start = 0; start < n && status == 0; start += BATCH_CHUNK)
			status = add_sink(self, start, hashes + start,
							  n - start < BATCH_CHUNK ? n - start : BATCH_CHUNK, NULL);
	}
	PyMem_Free(hashes);
	Py_DECREF(sequence);
	if (status < 0)
		return NULL;
	Py_RETURN_NONE;
}

/* contains_many(values): a list of bools, one per value. */
static PyObject *
Filter_contains_many(FilterObject *self, PyObject *values)
{
	PyObject   *result;
	PyObject   *sequence;
	Py_ssize_t	n;
	PyObject  **items;
	int			handled;

	result = NULL;
	handled = hash_buffer(self, values, contains_sink, &result);
	if (handled < 0)
	{
		Py_XDECREF(result);
		return NULL;
	}
	if (handled)
		return result;
	sequence = PySequence_Fast(values, "contains_many takes a sequence, an iterable or a buffer of values");
	if (sequence == NULL)
		return NULL;
	n = PySequence_Fast_GET_SIZE(sequence);
	items = PySequence_Fast_ITEMS(sequence);
	result = PyList_New(n);
	if (result == NULL)
	{
		Py_DECREF(sequence);
		return NULL;
	}
	for (Py_ssize_t start = 0; start < n; start += BATCH_CHUNK)
	{
		bf_hash		hashes[BATCH_CHUNK];
		Py_ssize_t	count = n - start < BATCH_CHUNK ? n - start : BATCH_CHUNK;

		if (hash_chunk(items + start, count, n - start, hashes, NULL) < 0)
		{
			Py_DECREF(sequence);
			Py_DECREF(result);
			return NULL;
		}
		contains_sink(self, start, hashes, count, result);
	}
	Py_DECREF(sequence);
	return result;
}

/* ---- combining ---- */

static bool
same_shape(const FilterObject *a, const FilterObject *b)
{
	return a->header.m == b->header.m && a->header.k == b->header.k &&
		a->header.hash_scheme == b->header.hash_scheme;
}

static PyObject *
shape_error(const char *operation, const FilterObject *a, const FilterObject *b)
{
	char		detail[256];

	snprintf(detail, sizeof(detail),
			 "One filter has m = %llu, k = %u, hash scheme %u; the other has m = %llu, k = %u, hash scheme %u.",
			 (unsigned long long) a->header.m, a->header.k, a->header.hash_scheme,
			 (unsigned long long) b->header.m, b->header.k, b->header.hash_scheme);
	return raise_error("22023", detail, "%s requires bloom filters of the same shape", operation);
}

/* The other operand of a two-filter operation, when it is a bloom filter like self. */
static FilterObject *
other_bloom(FilterObject *self, PyObject *other, const char *operation)
{
	FilterObject *b;

	if (!PyObject_TypeCheck(other, &FilterType) || ((FilterObject *) other)->kind != KIND_BLOOM ||
		self->kind != KIND_BLOOM)
	{
		PyErr_Format(PyExc_TypeError, "%s takes two bloom filters", operation);
		return NULL;
	}
	b = (FilterObject *) other;
	if (!same_shape(self, b))
	{
		shape_error(operation, self, b);
		return NULL;
	}
	return b;
}

static PyObject *
filter_combine(FilterObject *self, PyObject *other, bool is_union)
{
	FilterObject *b = other_bloom(self, other, is_union ? "union" : "intersection");
	FilterObject *result;

	if (b == NULL)
		return NULL;
	result = filter_new(Py_TYPE(self), KIND_BLOOM, self->nbytes);
	if (result == NULL)
		return NULL;
	result->header = self->header;
	result->header.flags = self->header.flags | b->header.flags;
	if (is_union)
		bf_or(result->array, self->array, b->array, self->nbytes);
	else
		bf_and(result->array, self->array, b->array, self->nbytes);
	return (PyObject *) result;
}

static PyObject *
Filter_union(FilterObject *self, PyObject *other)
{
	if (self->kind == KIND_COUNTING && PyObject_TypeCheck(other, &FilterType) &&
		((FilterObject *) other)->kind == KIND_COUNTING)
	{
		FilterObject *b = (FilterObject *) other;
		FilterObject *result;

		if (!same_shape(self, b))
			return shape_error("union", self, b);
		if ((result = filter_new(Py_TYPE(self), KIND_COUNTING, self->nbytes)) == NULL)
			return NULL;
		result->header = self->header;
		result->header.flags = self->header.flags | b->header.flags;
		bf_counting_union(result->array, self->array, b->array, self->nbytes);
		return (PyObject *) result;
	}
	return filter_combine(self, other, true);
}

static PyObject *
Filter_intersection(FilterObject *self, PyObject *other)
{
	return filter_combine(self, other, false);
}

static PyObject *
Filter_nb_or(PyObject *a, PyObject *b)
{
	if (!PyObject_TypeCheck(a, &FilterType) || !PyObject_TypeCheck(b, &FilterType))
		Py_RETURN_NOTIMPLEMENTED;
	return Filter_union((FilterObject *) a, b);
}

static PyObject *
Filter_nb_and(PyObject *a, PyObject *b)
{
	if (!PyObject_TypeCheck(a, &FilterType) || !PyObject_TypeCheck(b, &FilterType))
		Py_RETURN_NOTIMPLEMENTED;
	return Filter_intersection((FilterObject *) a, b);
}

/* = as the server's: same shape and array; counting filters' flags count too. */
static PyObject *
Filter_richcompare(PyObject *a, PyObject *b, int op)
{
	FilterObject *x = (FilterObject *) a;
	FilterObject *y = (FilterObject *) b;
	bool		equal;

	if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, &FilterType))
		Py_RETURN_NOTIMPLEMENTED;
	if (x->kind != y->kind)
		equal = false;
	else if (x->kind == KIND_SCALABLE)
		equal = x->view->length == y->view->length &&
			memcmp(x->array, y->array, x->view->length) == 0;
	else
		equal = same_shape(x, y) && x->nbytes == y->nbytes &&
			(x->kind != KIND_COUNTING || x->header.flags == y->header.flags) &&
			memcmp(x->array, y->array, x->nbytes) == 0;
	return PyBool_FromLong(op == Py_EQ ? equal : !equal);
}

static PyObject *
Filter_copy(FilterObject *self, PyObject *unused)
{
	FilterObject *copy = filter_new(Py_TYPE(self), self->kind, self->nbytes);

	if (copy == NULL)
		return NULL;
	copy->header = self->header;
	memcpy(copy->array, self->array, self->nbytes);
	if (self->view)
		*copy->view = *self->view;
	return (PyObject *) copy;
}

/* ---- estimates ---- */

static uint64_t
filter_bits_set(const FilterObject *self)
{
	if (self->kind == KIND_COUNTING)
	{
		bf_counting_stats stats;

		bf_counting_stats_of(self->array, self->nbytes, &stats);
		return stats.nonzero;
	}
	return bf_popcount(self->array, self->nbytes);
}

static PyObject *
Filter_cardinality(FilterObject *self, PyObject *unused)
{
	if (self->kind == KIND_SCALABLE)
		return PyFloat_FromDouble(bf_scalable_cardinality(self->array, self->view));
	return PyFloat_FromDouble(bf_estimate_cardinality(self->header.m, self->header.k,
													  self->header.hash_scheme,
													  filter_bits_set(self)));
}

static PyObject *
Filter_false_positive_rate(FilterObject *self, PyObject *unused)
{
	if (self->kind == KIND_SCALABLE)
		return PyFloat_FromDouble(bf_scalable_current_rate(self->array, self->view));
	if (self->kind == KIND_COUNTING)
	{
		uint8_t    *bits = PyMem_Calloc(bloom_payload_bytes(self->header.m), 1);
		uint64_t	bits_set;
		double		rate;

		if (bits == NULL)
			return PyErr_NoMemory();
		bf_counting_to_bits(self->array, self->header.m, bits);
		bits_set = bf_popcount(bits, bloom_payload_bytes(self->header.m));
		rate = bf_filter_false_positive_rate(bits, self->header.m, self->header.k,
											 self->header.hash_scheme, bits_set);
		PyMem_Free(bits);
		return PyFloat_FromDouble(rate);
	}
	return PyFloat_FromDouble(bf_filter_false_positive_rate(self->array, self->header.m,
															self->header.k,
															self->header.hash_scheme,
															bf_popcount(self->array, self->nbytes)));
}

static PyObject *
Filter_bits_set(FilterObject *self, PyObject *unused)
{
	if (self->kind == KIND_SCALABLE)
	{
		uint64_t	total = 0;

		for (uint32_t i = 0; i < self->view->stages; i++)
			total += bf_popcount(bf_scalable_bits(self->array, self->view, i),
								 bloom_payload_bytes(self->view->stage[i].m));
		return PyLong_FromUnsignedLongLong(total);
	}
	return PyLong_FromUnsignedLongLong(filter_bits_set(self));
}

/*
 * The estimates of two filters (bloom_union_cardinality,
 * bloom_intersection_cardinality, bloom_jaccard): the union counted
 * without building it; the intersection n(A) + n(B) - n(A | B), at least
 * 0, NaN when the union is saturated; the Jaccard index 1 for two empty
 * filters.  As types/bloom/estimate.c.
 */
static PyObject *
Filter_pair_estimates(FilterObject *self, PyObject *other)
{
	FilterObject *b = other_bloom(self, other, "estimate");
	uint64_t	union_bits;
	double		union_estimate;
	double		intersection;
	double		jaccard;

	if (b == NULL)
		return NULL;
	union_bits = bf_popcount_or(self->array, b->array, self->nbytes);
	union_estimate = bf_estimate_cardinality(self->header.m, self->header.k,
											 self->header.hash_scheme, union_bits);
	if (union_bits == self->header.m)
		intersection = jaccard = NAN;
	else
	{
		double		sum = bf_estimate_cardinality(self->header.m, self->header.k,
												  self->header.hash_scheme,
												  bf_popcount(self->array, self->nbytes)) +
			bf_estimate_cardinality(b->header.m, b->header.k, b->header.hash_scheme,
									bf_popcount(b->array, b->nbytes));

		intersection = sum - union_estimate > 0.0 ? sum - union_estimate : 0.0;
		jaccard = union_estimate == 0.0 ? 1.0 : intersection / union_estimate;
	}
	return Py_BuildValue("ddd", union_estimate, intersection, jaccard);
}

/* The shape: (m, k, hash_scheme, flags), or for a scalable filter its parameters and stages. */
static PyObject *
Filter_shape(FilterObject *self, PyObject *unused)
{
	if (self->kind == KIND_SCALABLE)
	{
		const bf_scalable_view *v = self->view;
		PyObject   *stages = PyList_New(v->stages);

		if (stages == NULL)
			return NULL;
		for (uint32_t i = 0; i < v->stages; i++)
		{
			PyObject   *stage = Py_BuildValue("{s:K,s:K,s:K,s:I,s:i}",
											  "count", (unsigned long long) v->stage[i].count,
											  "capacity", (unsigned long long) v->stage[i].capacity,
											  "m", (unsigned long long) v->stage[i].m,
											  "k", v->stage[i].k, "hash_scheme", v->stage[i].scheme);

			if (stage == NULL)
			{
				Py_DECREF(stages);
				return NULL;
			}
			PyList_SET_ITEM(stages, i, stage);
		}
		return Py_BuildValue("{s:d,s:K,s:i,s:d,s:i,s:i,s:N}", "false_positive_rate", v->params.p,
							 "initial_capacity", (unsigned long long) v->params.n0,
							 "growth", v->params.growth, "tightening", v->params.r,
							 "flags", v->params.flags, "options", v->params.options,
							 "stages", stages);
	}
	return Py_BuildValue("(KIii)", (unsigned long long) self->header.m, (unsigned) self->header.k,
						 self->header.hash_scheme, self->header.flags);
}

/* The bloom filter of a counting filter's values (the cast to bloom). */
static PyObject *
Filter_to_bloom(FilterObject *self, PyObject *type)
{
	FilterObject *result;

	if (self->kind == KIND_BLOOM)
		return Filter_copy(self, NULL);
	if (!PyType_Check(type) || !PyType_IsSubtype((PyTypeObject *) type, &FilterType))
		return PyErr_Format(PyExc_TypeError, "to_bloom takes the bloom class");
	if (self->kind == KIND_SCALABLE)
	{
		const bf_scalable_view *v = self->view;

		if (v->stages != 1)
			return raise_error("22023", "Only a scalable filter of one stage is a bloom filter.",
							   "cannot cast a scalable filter of %u stages to bloom", v->stages);
		result = filter_new((PyTypeObject *) type, KIND_BLOOM, bloom_payload_bytes(v->stage[0].m));
		if (result == NULL)
			return NULL;
		result->header = (BloomHeader) {BLOOM_FORMAT_VERSION, v->stage[0].scheme,
			(uint8_t) v->stage[0].k, v->params.flags, v->stage[0].m};
		memcpy(result->array, bf_scalable_bits(self->array, v, 0), result->nbytes);
		return (PyObject *) result;
	}
	result = filter_new((PyTypeObject *) type, KIND_BLOOM, bloom_payload_bytes(self->header.m));
	if (result == NULL)
		return NULL;
	result->header = self->header;
	bf_counting_to_bits(self->array, self->header.m, result->array);
	return (PyObject *) result;
}

static PyObject *
Filter_get_kind(FilterObject *self, void *closure)
{
	return PyUnicode_FromString(kind_name(self->kind));
}

static PyObject *
Filter_get_nbytes(FilterObject *self, void *closure)
{
	return PyLong_FromSize_t(self->kind == KIND_SCALABLE ? self->view->length : self->nbytes);
}

static PyMethodDef Filter_methods[] = {
	{"_empty", (PyCFunction) Filter_empty, METH_VARARGS | METH_CLASS, NULL},
	{"_empty_mk", (PyCFunction) Filter_empty_mk, METH_VARARGS | METH_CLASS, NULL},
	{"_scalable_empty", (PyCFunction) Filter_scalable_empty, METH_VARARGS | METH_CLASS, NULL},
	{"_from_text", (PyCFunction) Filter_from_text, METH_O | METH_CLASS, NULL},
	{"_from_binary", (PyCFunction) Filter_from_binary, METH_VARARGS | METH_CLASS, NULL},
	{"to_text", (PyCFunction) Filter_to_text, METH_NOARGS, "The text form (bloom_out)."},
	{"to_binary", (PyCFunction) Filter_to_binary, METH_NOARGS, "The binary form (bloom_send)."},
	{"add", (PyCFunction) Filter_add, METH_O, "Add a value (bloom_add)."},
	{"contains", (PyCFunction) Filter_contains, METH_O, "Whether the value may have been added (bloom_contains)."},
	{"add_many", (PyCFunction) Filter_add_many, METH_O, "Add every value of a sequence, iterable or typed buffer (bloom_add_all)."},
	{"contains_many", (PyCFunction) Filter_contains_many, METH_O, "contains of each value, as a list of bools."},
	{"_union", (PyCFunction) Filter_union, METH_O, NULL},
	{"_intersection", (PyCFunction) Filter_intersection, METH_O, NULL},
	{"_pair_estimates", (PyCFunction) Filter_pair_estimates, METH_O, NULL},
	{"cardinality", (PyCFunction) Filter_cardinality, METH_NOARGS, "Swamidass-Baldi estimate of the distinct values added (bloom_cardinality)."},
	{"false_positive_rate", (PyCFunction) Filter_false_positive_rate, METH_NOARGS, "The current false-positive rate (bloom_info's)."},
	{"bits_set", (PyCFunction) Filter_bits_set, METH_NOARGS, "Bits set (non-zero counters)."},
	{"_shape", (PyCFunction) Filter_shape, METH_NOARGS, NULL},
	{"_to_bloom", (PyCFunction) Filter_to_bloom, METH_O, NULL},
	{"copy", (PyCFunction) Filter_copy, METH_NOARGS, "A copy."},
	{NULL}
};

static PyGetSetDef Filter_getset[] = {
	{"kind", (getter) Filter_get_kind, NULL, "bloom, counting_bloom or scalable_bloom", NULL},
	{"nbytes", (getter) Filter_get_nbytes, NULL, "bytes of the array (scalable: of the body)", NULL},
	{NULL}
};

static PyNumberMethods Filter_as_number = {
	.nb_or = Filter_nb_or,
	.nb_and = Filter_nb_and,
};

static PySequenceMethods Filter_as_sequence = {
	.sq_contains = (objobjproc) Filter_sq_contains,
};

static PyTypeObject FilterType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "bloomfilter._core.Filter",
	.tp_basicsize = sizeof(FilterObject),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "A filter (bloom, counting_bloom or scalable_bloom); use the classes of bloomfilter.",
	.tp_dealloc = (destructor) Filter_dealloc,
	.tp_methods = Filter_methods,
	.tp_getset = Filter_getset,
	.tp_as_number = &Filter_as_number,
	.tp_as_sequence = &Filter_as_sequence,
	.tp_richcompare = Filter_richcompare,
	.tp_hash = PyObject_HashNotImplemented,
};

/* ---- module functions ---- */

static PyObject *
module_optimal(PyObject *module, PyObject *args)
{
	double		p;
	long long	n;
	uint64_t	m;
	uint32_t	k;
	uint8_t		scheme;
	bf_status	status;

	if (!PyArg_ParseTuple(args, "dL", &p, &n))
		return NULL;
	status = bf_default_shape(p, n, &m, &k, &scheme);
	if (status != BF_OK)
		return raise_error(shape_sqlstate(status), bf_status_message(status),
						   "optimal: no filter of that shape");
	return Py_BuildValue("(KIiK)", (unsigned long long) m, k, scheme,
						 (unsigned long long) (BLOOM_BITS_OFFSET + bloom_payload_bytes(m)));
}

static PyObject *
module_expected_fpr(PyObject *module, PyObject *args)
{
	long long	m;
	long long	k;
	long long	n;
	bf_status	status;

	if (!PyArg_ParseTuple(args, "LLL", &m, &k, &n))
		return NULL;
	status = bf_check_shape(m, k);
	if (status != BF_OK)
		return raise_error(shape_sqlstate(status), bf_status_message(status),
						   "expected_fpr: no filter of that shape");
	if (n < 0)
		return raise_error("22023", "The number of values n must be at least 0.",
						   "expected_fpr: n out of range");
	return Py_BuildValue("(dd)", bf_expected_false_positive_rate(m, k, n),
						 bf_goel_gupta_bound(m, k, n));
}

static PyObject *
module_set_encoder(PyObject *module, PyObject *encoder)
{
	Py_XSETREF(slow_encoder, Py_NewRef(encoder));
	Py_RETURN_NONE;
}

/* value(x): the Value of a Python value of a type encoded here. */
static PyObject *
module_hash(PyObject *module, PyObject *value)
{
	bf_hash		hash;
	uint8_t		flags;

	if (hash_value(value, &hash, &flags) < 0)
		return NULL;
	return Py_BuildValue("(KKi)", (unsigned long long) hash.h1, (unsigned long long) hash.h2, flags);
}

static PyMethodDef module_methods[] = {
	{"optimal", module_optimal, METH_VARARGS, "optimal(p, n) -> (m, k, hash_scheme, bytes), as bloom_optimal."},
	{"expected_fpr", module_expected_fpr, METH_VARARGS, "expected_fpr(m, k, n) -> (classic, goel_gupta_bound)."},
	{"hash", module_hash, METH_O, "hash(value) -> (h1, h2, flags), as bloom_value(value)."},
	{"_set_encoder", module_set_encoder, METH_O, NULL},
	{NULL}
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT, "bloomfilter._core", "src/core of bloomfilter, compiled for Python.", -1,
	module_methods
};

PyMODINIT_FUNC
PyInit__core(void)
{
	PyObject   *module;

	if (PyType_Ready(&ValueType) < 0 || PyType_Ready(&FilterType) < 0)
		return NULL;
	module = PyModule_Create(&module_def);
	if (module == NULL)
		return NULL;
	BloomError = PyErr_NewExceptionWithDoc("bloomfilter.BloomError",
										   "A value or a form the server would refuse; .sqlstate and .detail as the server's.",
										   PyExc_ValueError, NULL);
	if (BloomError == NULL ||
		PyModule_AddObjectRef(module, "BloomError", BloomError) < 0 ||
		PyModule_AddObjectRef(module, "Value", (PyObject *) &ValueType) < 0 ||
		PyModule_AddObjectRef(module, "Filter", (PyObject *) &FilterType) < 0 ||
		PyModule_AddIntConstant(module, "FORMAT_VERSION", BLOOM_FORMAT_VERSION) < 0 ||
		PyModule_AddIntConstant(module, "KIND_BLOOM", KIND_BLOOM) < 0 ||
		PyModule_AddIntConstant(module, "KIND_COUNTING", KIND_COUNTING) < 0 ||
		PyModule_AddIntConstant(module, "KIND_SCALABLE", KIND_SCALABLE) < 0 ||
		PyModule_AddIntConstant(module, "FLAG_TEXT_UTF8", BLOOM_FLAG_TEXT_UTF8) < 0)
	{
		Py_DECREF(module);
		return NULL;
	}
	return module;
}
