/*
 * bloomfilter/value.c: Python values to the canonical bytes the server
 * hashes, and bloomfilter.Value, a value so encoded.  int, float, str,
 * bytes and bool are encoded here (the per-row path); every other type by
 * values.py, which returns a Value.
 */
#include "_core.h"

#include <string.h>

PyObject   *slow_encoder;

/* ---- values ---- */

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

PyTypeObject ValueType = {
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
int
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
