/*
 * bloomfilter/filter_ops.c: union, intersection and equality of filters,
 * and their estimates, as the server's functions compute them.
 */
#include "_core.h"

#include <math.h>
#include <string.h>
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

PyObject *
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

PyObject *
Filter_intersection(FilterObject *self, PyObject *other)
{
	return filter_combine(self, other, false);
}

PyObject *
Filter_nb_or(PyObject *a, PyObject *b)
{
	if (!PyObject_TypeCheck(a, &FilterType) || !PyObject_TypeCheck(b, &FilterType))
		Py_RETURN_NOTIMPLEMENTED;
	return Filter_union((FilterObject *) a, b);
}

PyObject *
Filter_nb_and(PyObject *a, PyObject *b)
{
	if (!PyObject_TypeCheck(a, &FilterType) || !PyObject_TypeCheck(b, &FilterType))
		Py_RETURN_NOTIMPLEMENTED;
	return Filter_intersection((FilterObject *) a, b);
}

/* = as the server's: same shape and array; counting filters' flags count too. */
PyObject *
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

PyObject *
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

PyObject *
Filter_cardinality(FilterObject *self, PyObject *unused)
{
	if (self->kind == KIND_SCALABLE)
		return PyFloat_FromDouble(bf_scalable_cardinality(self->array, self->view));
	return PyFloat_FromDouble(bf_estimate_cardinality(self->header.m, self->header.k,
													  self->header.hash_scheme,
													  filter_bits_set(self)));
}

PyObject *
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

PyObject *
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
PyObject *
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
PyObject *
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
PyObject *
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
