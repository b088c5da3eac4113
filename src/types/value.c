/*
 * types/value.c: what the SQL-callable files share: reading filter values
 * (the per-call-site cache of filter arguments is types/cache.c),
 * allocating filters, the shape errors, and an aggregate's state as a
 * value in memory: the expanded object every kind of state shares, which
 * is read in place where it is a filter.
 */
#include "postgres.h"

#include "types/types.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#ifdef __linux__
#include <sys/mman.h>
#endif


/* The checks of bloom_view_datum on a filter's bytes (header and bit array). */
static bf_status
bloom_view_bytes_status(const uint8_t *body, size_t length, BloomView *view)
{
	return bloom_view_bytes_checked(body, length, view, BF_LENGTH, bf_check_header, bf_check_bits);
}

void
bloom_raise_invalid_value(const char *type_name, bf_status status)
{
	if (status != BF_OK)
		ereport(ERROR,
				errcode(ERRCODE_DATA_CORRUPTED),
				errmsg("invalid %s value", type_name),
				errdetail("%s", bf_status_message(status)));
}

bf_status
bloom_view_datum_status(Datum datum, BloomView *view)
{
	/*
	 * Any form a varlena can take: inline with a 1-byte or 4-byte header
	 * (read in place), compressed, or external (on disk, or an indirect or
	 * expanded pointer in memory, as logical decoding hands to output
	 * functions): those are expanded, in CurrentMemoryContext.  Testing
	 * VARATT_IS_SHORT is not enough to read in place, since every external
	 * pointer has a 1-byte header too.
	 */
	struct varlena *value;

	/* an aggregate's state, read in place (below) */
	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(datum)) && bloom_agg_object_view(datum, view))
		return BF_OK;
	value = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(datum));
	return bloom_view_bytes_status((const uint8_t *) VARDATA_ANY(value),
								   VARSIZE_ANY_EXHDR(value), view);
}

void
bloom_raise_invalid_binary(const char *type_name, const char *problem)
{
	ereport(ERROR,
			errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			errmsg("invalid external binary representation for type %s", type_name),
			errdetail("%s", problem));
}

void
bloom_view_datum(Datum datum, BloomView *view)
{
	bloom_raise_invalid_value("bloom filter", bloom_view_datum_status(datum, view));
}

void
bloom_view_bytes(const uint8 *body, size_t length, BloomView *view)
{
	bloom_raise_invalid_value("bloom filter", bloom_view_bytes_status(body, length, view));
}

void
bloom_view_filter(const BloomFilter *filter, BloomView *view)
{
	view->header.format_version = filter->format_version;
	view->header.hash_scheme = filter->hash_scheme;
	view->header.k = filter->k;
	view->header.flags = filter->flags;
	view->header.m = filter->m;
	view->bits = filter->bits;
	view->nbytes = bloom_payload_bytes(filter->m);
}

/*
 * palloc for a large filter or text form: on Linux, backed by transparent
 * huge pages when it is large enough.  The advice is given before the pages
 * are first touched.  Probes land on random pages: with 4 kB pages a filter
 * of a few MB spans more pages than the TLB holds, and most probes of
 * bloom_agg then pay a page-table walk on top of the cache miss.  A fresh
 * 12 MB result (a union, a text form) also takes 6 page faults instead of
 * 3,000.  Only the 2 MB-aligned interior is advised, so no memory is added;
 * where the advice is not available or is refused, nothing changes but the
 * speed.
 */
void *
bloom_palloc_large(Size size)
{
	void	   *start = palloc(size);

#if defined(MADV_HUGEPAGE)
	if (size >= BLOOM_HUGE_PAGE_MIN_BYTES)
	{
		const uintptr_t huge_page = (uintptr_t) 2 << 20;
		uintptr_t	first = TYPEALIGN(huge_page, (uintptr_t) start);
		uintptr_t	end = TYPEALIGN_DOWN(huge_page, (uintptr_t) start + size);

		if (end > first)
			(void) madvise((void *) first, end - first, MADV_HUGEPAGE);
	}
#endif
	return start;
}

/*
 * A filter with its header set and its bit array not yet written.  The
 * callers below write every byte of the bit array.
 */
static BloomFilter *
bloom_alloc_unfilled_aligned(uint64 m, uint32 k, uint8 hash_scheme, bool align_bits)
{
	uint64		size = BLOOM_BITS_OFFSET + bloom_payload_bytes(m);
	BloomFilter *filter;

	/* every caller's shape is checked: by the core's sizing, or as a filter's header */
	Assert(m >= 1 && m <= BLOOM_M_MAX && k >= BLOOM_K_MIN && k <= BLOOM_K_MAX);

	/* the slack would take a filter near the limit past MaxAllocSize */
	if (align_bits && size + BF_BLOCK_BYTES <= MaxAllocSize)
	{
		char	   *chunk = bloom_palloc_large(size + BF_BLOCK_BYTES);

		filter = (BloomFilter *) (TYPEALIGN(BF_BLOCK_BYTES, chunk + BLOOM_BITS_OFFSET) -
								  BLOOM_BITS_OFFSET);
	}
	else
		filter = (BloomFilter *) bloom_palloc_large(size);
	SET_VARSIZE(filter, size);
	filter->format_version = BLOOM_FORMAT_VERSION;
	filter->hash_scheme = hash_scheme;
	filter->k = (uint8) k;
	filter->flags = bloom_new_filter_flags();
	filter->m = m;
	return filter;
}

/*
 * Zero (src NULL) or copy a bit array a stride at a time, checking for
 * interrupts in between: the first write to a freshly allocated large array
 * takes a page fault every page, and a query cancel should not wait for all
 * of them.
 */
void
bloom_fill_bits(uint8 *dst, const uint8 *src, size_t nbytes)
{
	size_t		offset;

	for (offset = 0; offset < nbytes; offset += BF_INTERRUPT_STRIDE)
	{
		size_t		n = Min(BF_INTERRUPT_STRIDE, nbytes - offset);

		if (offset > 0)
			CHECK_FOR_INTERRUPTS();
		if (src != NULL)
			memcpy(dst + offset, src + offset, n);
		else
			memset(dst + offset, 0, n);
	}
}

static BloomFilter *
bloom_alloc_unfilled(uint64 m, uint32 k, uint8 hash_scheme)
{
	return bloom_alloc_unfilled_aligned(m, k, hash_scheme, false);
}

BloomFilter *
bloom_alloc_state(uint64 m, uint32 k, uint8 hash_scheme)
{
	BloomFilter *filter = bloom_alloc_unfilled_aligned(m, k, hash_scheme, true);

	bloom_fill_bits(filter->bits, NULL, bloom_payload_bytes(m));
	return filter;
}

BloomFilter *
bloom_alloc(uint64 m, uint32 k, uint8 hash_scheme)
{
	BloomFilter *filter = bloom_alloc_unfilled(m, k, hash_scheme);

	bloom_fill_bits(filter->bits, NULL, bloom_payload_bytes(m));
	return filter;
}

BloomFilter *
bloom_alloc_optimal(const char *operation, double p, int64 n, bool for_state)
{
	uint64_t	m = 0;
	uint32_t	k = 0;
	uint8_t		scheme;
	bf_status	status;

	status = bf_default_shape(p, n, &m, &k, &scheme);
	if (status != BF_OK)
		bloom_raise_shape_error(status, operation, m, k, p, n);
	return for_state ? bloom_alloc_state(m, k, scheme) : bloom_alloc(m, k, scheme);
}

BloomFilter *
bloom_alloc_like(const BloomHeader *header)
{
	BloomFilter *filter = bloom_alloc_unfilled(header->m, header->k, header->hash_scheme);

	filter->flags = header->flags;
	return filter;
}

BloomFilter *
bloom_copy_state(const BloomView *view)
{
	BloomFilter *filter = bloom_alloc_unfilled_aligned(view->header.m, view->header.k,
													   view->header.hash_scheme, true);

	filter->flags = view->header.flags;
	bloom_fill_bits(filter->bits, view->bits, view->nbytes);
	return filter;
}

BloomFilter *
bloom_copy(const BloomView *view)
{
	BloomFilter *filter = bloom_alloc_like(&view->header);

	Assert(view->nbytes == bloom_payload_bytes(view->header.m));
	bloom_fill_bits(filter->bits, view->bits, view->nbytes);
	return filter;
}

void
bloom_require_same_shape_of(const char *operation, const char *filters, const char *hint,
							const BloomView *a, const BloomView *b)
{
	if (a->header.m != b->header.m || a->header.k != b->header.k ||
		a->header.hash_scheme != b->header.hash_scheme)
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("%s requires %s of the same shape", operation, filters),
				errdetail("One filter has m = " UINT64_FORMAT ", k = %u, hash scheme %u; the other has m = " UINT64_FORMAT ", k = %u, hash scheme %u.",
						  a->header.m, a->header.k, a->header.hash_scheme,
						  b->header.m, b->header.k, b->header.hash_scheme),
				errhint("%s", hint));
}

void
bloom_require_same_shape(const char *operation, const BloomView *a, const BloomView *b)
{
	bloom_require_same_shape_of(operation, "bloom filters",
								"Combine only filters created with the same false_positive_rate and capacity, or the same m and k; bloom_agg_like and bloom_empty_like build filters in the shape of another.",
								a, b);
}

void
bloom_raise_shape_error(bf_status status, const char *operation,
						uint64 m, int64 k, double p, int64 n)
{
	switch (status)
	{
		case BF_OK:
			return;
		case BF_FALSE_POSITIVE_RATE_RANGE:
			ereport(ERROR,
					errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("%s: false_positive_rate must be greater than 0 and less than 1", operation),
					errdetail("false_positive_rate is %g.", p));
			break;
		case BF_CAPACITY_RANGE:
			ereport(ERROR,
					errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("%s: capacity must be at least 1", operation),
					errdetail("capacity is " INT64_FORMAT ".", n));
			break;
		case BF_M_RANGE:
			ereport(ERROR,
					errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("%s: m must be at least 1", operation),
					errdetail("m is " INT64_FORMAT ".", (int64) m));
			break;
		case BF_K_RANGE:
			if (p >= 0)
				ereport(ERROR,
						errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("%s: false_positive_rate %g needs more than %d hash probes", operation, p, BLOOM_K_MAX),
						errdetail("The optimal number of probes is " INT64_FORMAT ".", k),
						errhint("Use a false_positive_rate of at least 1e-19."));
			else
				ereport(ERROR,
						errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("%s: k must be between %d and %d", operation, BLOOM_K_MIN, BLOOM_K_MAX),
						errdetail("k is " INT64_FORMAT ".", k));
			break;
		case BF_TOO_LARGE:
			ereport(ERROR,
					errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					errmsg("%s: bloom filter would exceed the maximum size", operation),
					errdetail("The filter needs m = " UINT64_FORMAT " bits; the maximum is m = " UINT64_FORMAT " bits (" UINT64_FORMAT " bytes, PostgreSQL's 1 GB value limit).",
							  m, (uint64) BLOOM_M_MAX, (uint64) BLOOM_MAX_VARLENA_BYTES),
					n >= 0 ? errhint("Use a higher false_positive_rate or a lower capacity.") : 0);
			break;
		default:
			elog(ERROR, "%s: unexpected shape status %d", operation, (int) status);
	}
}

Datum
bloom_result_row(FunctionCallInfo fcinfo, const char *operation, Datum *values, bool *nulls)
{
	TupleDesc	tupdesc;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "%s: return type must be a row type", operation);
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls));
}

/* ---- an aggregate's state as a value (types/types.h) ---- */

/* The methods of every BloomAggObject: its kind's. */
static Size
bloom_agg_object_flat_size(ExpandedObjectHeader *header)
{
	BloomAggObject *object = (BloomAggObject *) header;

	return object->kind->flat_size(object);
}

static void
bloom_agg_object_flatten(ExpandedObjectHeader *header, void *result, Size allocated_size)
{
	BloomAggObject *object = (BloomAggObject *) header;

	object->kind->flatten(object, result, allocated_size);
}

static const ExpandedObjectMethods bloom_agg_object_methods = {
	bloom_agg_object_flat_size,
	bloom_agg_object_flatten
};

BloomAggObject *
bloom_agg_object_new(MemoryContext context, const BloomAggObjectKind *kind)
{
	BloomAggObject *object = (BloomAggObject *) MemoryContextAllocZero(context,
																	   sizeof(BloomAggObject));

	EOH_init_header(&object->header, &bloom_agg_object_methods, context);
	object->kind = kind;
	return object;
}

Datum
bloom_agg_object_result(BloomAggObject *object, bool in_aggregate)
{
	Size		size;
	void	   *flat;

	if (in_aggregate)
		return EOHPGetRWDatum(&object->header);
	size = EOH_get_flat_size(&object->header);
	flat = bloom_palloc_large(size);
	EOH_flatten_into(&object->header, flat, size);
	DeleteExpandedObject(EOHPGetRWDatum(&object->header));
	return PointerGetDatum(flat);
}

BloomAggObject *
bloom_agg_object_of(Datum datum, const BloomAggObjectKind *kind)
{
	ExpandedObjectHeader *header;

	if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(datum)))
		return NULL;
	header = DatumGetEOHP(datum);
	if (header->eoh_methods != &bloom_agg_object_methods ||
		((BloomAggObject *) header)->kind != kind)
		return NULL;
	return (BloomAggObject *) header;
}

bool
bloom_agg_object_view(Datum datum, BloomView *view)
{
	ExpandedObjectHeader *header = DatumGetEOHP(datum);
	BloomAggObject *object = (BloomAggObject *) header;

	if (header->eoh_methods != &bloom_agg_object_methods || object->kind->view == NULL)
		return false;
	return object->kind->view(object, view);
}
