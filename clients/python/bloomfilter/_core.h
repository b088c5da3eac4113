/*
 * bloomfilter/_core.h: what the files of the extension share.
 *
 * The extension is the server's src/core compiled for CPython (setup.py)
 * with this glue: _core.c (the module and its error), value.c (Python
 * values to their canonical bytes and hashes), filter.c (the filter object,
 * add and contains, batches), filter_forms.c (construction, the text and
 * binary forms), filter_ops.c (union, intersection, =, the estimates).
 */
#ifndef BLOOMFILTER_PY_CORE_H
#define BLOOMFILTER_PY_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core/core.h"
#include "core/counting.h"
#include "core/scalable.h"

/* ---- the library's error (_core.c) ---- */

extern PyObject *BloomError;	/* bloomfilter.BloomError */

/* Raise BloomError("message: detail") with .sqlstate and .detail, as the server's. */
extern PyObject *raise_error(const char *sqlstate, const char *detail, const char *format, ...);
extern const char *shape_sqlstate(bf_status status);

/* ---- values (value.c) ---- */

extern PyTypeObject ValueType;	/* bloomfilter.Value */
extern PyObject *slow_encoder;	/* values.py's encoder of the types value.c leaves to it */

/* The hash of a Python value, and the header flags adding it sets. */
extern int hash_value(PyObject *value, bf_hash *hash, uint8_t *flags);

/* The canonical int8 and float forms, hashed (8 bytes little-endian). */
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

/* ---- filters (filter.c, filter_forms.c, filter_ops.c) ---- */

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

extern PyTypeObject FilterType;

/* filter.c: a new object of type with a zeroed array; the type's SQL name; a scalable filter's next stage */
extern FilterObject *filter_new(PyTypeObject *type, int kind, size_t nbytes);
extern const char *kind_name(int kind);
extern int scalable_open_stage(FilterObject *self);

/* filter_forms.c: the methods that make filters and write their forms */
extern PyObject *Filter_empty(PyTypeObject *type, PyObject *args);
extern PyObject *Filter_empty_mk(PyTypeObject *type, PyObject *args);
extern PyObject *Filter_scalable_empty(PyTypeObject *type, PyObject *args);
extern PyObject *Filter_from_text(PyTypeObject *type, PyObject *arg);
extern PyObject *Filter_from_binary(PyTypeObject *type, PyObject *args);
extern PyObject *Filter_to_text(FilterObject *self, PyObject *unused);
extern PyObject *Filter_to_binary(FilterObject *self, PyObject *unused);

/* filter_ops.c: the methods that combine, compare and estimate */
extern PyObject *Filter_union(FilterObject *self, PyObject *other);
extern PyObject *Filter_intersection(FilterObject *self, PyObject *other);
extern PyObject *Filter_pair_estimates(FilterObject *self, PyObject *other);
extern PyObject *Filter_cardinality(FilterObject *self, PyObject *unused);
extern PyObject *Filter_false_positive_rate(FilterObject *self, PyObject *unused);
extern PyObject *Filter_bits_set(FilterObject *self, PyObject *unused);
extern PyObject *Filter_shape(FilterObject *self, PyObject *unused);
extern PyObject *Filter_to_bloom(FilterObject *self, PyObject *type);
extern PyObject *Filter_copy(FilterObject *self, PyObject *unused);
extern PyObject *Filter_nb_or(PyObject *a, PyObject *b);
extern PyObject *Filter_nb_and(PyObject *a, PyObject *b);
extern PyObject *Filter_richcompare(PyObject *a, PyObject *b, int op);

#endif							/* BLOOMFILTER_PY_CORE_H */
