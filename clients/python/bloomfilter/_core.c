/*
 * bloomfilter/_core.c: the server's src/core as a CPython extension: the
 * module, its functions and the library's error.
 *
 * Shapes, sizing, hashing, probes, estimates and the text and binary forms
 * are src/core's own functions, compiled in (setup.py); the files here are
 * the glue (_core.h lists them).  A Python value's canonical bytes are those
 * the server hashes for the SQL type it maps to (doc/clients.md).
 */
#include "_core.h"

#include <stdarg.h>

PyObject   *BloomError;

/* ---- errors ---- */

/* Raise BloomError(message: detail) with .sqlstate and .detail, as the server's. */
PyObject *
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
const char *
shape_sqlstate(bf_status status)
{
	return (status == BF_TOO_LARGE || status == BF_COUNTING_TOO_LARGE) ? "54000" : "22023";
}

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
