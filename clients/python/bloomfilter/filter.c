/*
 * bloomfilter/filter.c: the filter object (bloom, counting_bloom or
 * scalable_bloom, told apart by its kind), add and contains of one value
 * and of batches, and the type with its methods.
 */
#include "_core.h"

#include <string.h>
/* ---- filters ---- */

FilterObject *
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

const char *
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
int
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
						/* only numeric holds it: hashed as a Python int is */
						PyObject   *integer = PyLong_FromUnsignedLongLong(v);
						uint8_t		flags;

						if (integer == NULL || hash_value(integer, &hash, &flags) < 0)
							status = -1;
						Py_XDECREF(integer);
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
		if (status < 0)
			break;
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

PyTypeObject FilterType = {
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

