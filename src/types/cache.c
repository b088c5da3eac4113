/*
 * types/cache.c: the per-call-site cache in flinfo->fn_extra (BloomCallCache,
 * types/types.h).  A stored filter argument (bloom or counting_bloom, by its
 * BloomLayout, or scalable_bloom) is detoasted once and kept, keyed by its
 * toast pointer, or read by slices (types/slice.c) while that is cheaper;
 * the filters a call site saw before are kept aside as spares.  The encoder
 * of the value argument is kept there too.  The fast paths are inline in
 * types/types.h and types/counting_bloom/counting_bloom.h (bloom_getarg, bloom_getarg_lookup,
 * counting_getarg, counting_getarg_lookup, bloom_call_encoder) and in
 * types/scalable_bloom/scalable_bloom.c; these are their slow paths.
 */
#include "postgres.h"

#include "types/types.h"
#include "types/scalable_bloom/scalable_bloom.h"

#include "access/detoast.h"
#include "utils/memutils.h"

BloomCallCache *
bloom_call_cache(FunctionCallInfo fcinfo)
{
	if (fcinfo->flinfo->fn_extra == NULL)
		fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(BloomCallCache));
	return (BloomCallCache *) fcinfo->flinfo->fn_extra;
}

static bool
bloom_cache_matches(const BloomArgCache *entry, const struct varatt_external *toast_pointer)
{
	return (entry->valid || entry->sliced) &&
		memcmp(entry->toast_pointer, toast_pointer, sizeof(entry->toast_pointer)) == 0;
}

/* Free an entry's detoasted copy, if it has one. */
void
bloom_cache_release(BloomArgCache *entry)
{
	if (entry->allocation != NULL)
		pfree(entry->allocation);
	if (entry->scalable != NULL)
		pfree(entry->scalable);
	entry->allocation = NULL;
	entry->value = NULL;
	entry->scalable = NULL;
}

/* Memory an entry holds: none while its filter is read by slices. */
static Size
bloom_cache_bytes(const BloomArgCache *entry)
{
	return entry->value != NULL ? VARSIZE(entry->value) : 0;
}

/* The spare slot holding the filter of this toast pointer, or -1. */
static int
bloom_cache_find_spare(const BloomCallCache *cache, const struct varatt_external *toast_pointer)
{
	for (int i = 0; i < BLOOM_CACHE_SPARES; i++)
		if (bloom_cache_matches(&cache->spares[i], toast_pointer))
			return i;
	return -1;
}

static void
bloom_cache_drop(BloomCallCache *cache, int spare)
{
	BloomArgCache *slot = &cache->spares[spare];

	if (slot->valid || slot->sliced)
	{
		cache->spare_bytes -= bloom_cache_bytes(slot);
		bloom_cache_release(slot);
	}
	slot->valid = false;
	slot->sliced = false;
	slot->value = NULL;
	slot->allocation = NULL;
}

/*
 * Move an argument's current filter (if any) aside before it is replaced,
 * into a free spare slot or the next one round robin; the entry is left
 * empty.  Then drop spares round robin until they fit
 * BLOOM_CACHE_SPARE_BYTES (a filter larger than that is not kept at all).
 */
static void
bloom_cache_put_aside(BloomCallCache *cache, BloomArgCache *entry)
{
	int			slot = -1;

	if (!entry->valid && !entry->sliced)
	{
		bloom_cache_release(entry);
		return;
	}
	for (int i = 0; i < BLOOM_CACHE_SPARES && slot < 0; i++)
		if (!cache->spares[i].valid && !cache->spares[i].sliced)
			slot = i;
	if (slot < 0)
	{
		slot = cache->next_victim;
		cache->next_victim = (cache->next_victim + 1) % BLOOM_CACHE_SPARES;
		bloom_cache_drop(cache, slot);
	}
	cache->spares[slot] = *entry;
	cache->spare_bytes += bloom_cache_bytes(entry);
	entry->valid = false;
	entry->sliced = false;
	entry->value = NULL;
	entry->allocation = NULL;
	entry->scalable = NULL;
	for (int i = 0; i < BLOOM_CACHE_SPARES && cache->spare_bytes > BLOOM_CACHE_SPARE_BYTES; i++)
		bloom_cache_drop(cache, (cache->next_victim + i) % BLOOM_CACHE_SPARES);
}

/*
 * The cache entry of argument argno, made the one of this toast pointer:
 * as it was, taken back from the spares, or, after the current one is put
 * aside, a new one that is neither valid nor sliced yet.
 *
 * A toast pointer names an immutable stored value (an update writes a new
 * value under a new OID), and the cache lives no longer than the query that
 * holds a snapshot of it, so equal pointers mean equal values.
 */
static BloomArgCache *
bloom_cache_current(FunctionCallInfo fcinfo, int argno,
					const struct varatt_external *toast_pointer)
{
	BloomCallCache *cache = bloom_call_cache(fcinfo);
	BloomArgCache *entry = &cache->args[argno];
	int			spare;
	BloomArgCache found = {0};

	StaticAssertStmt(sizeof(*toast_pointer) == sizeof(entry->toast_pointer),
					 "toast pointer size");
	if (bloom_cache_matches(entry, toast_pointer))
		return entry;

	/* seen before: taken back to become current again */
	spare = bloom_cache_find_spare(cache, toast_pointer);
	if (spare >= 0)
	{
		found = cache->spares[spare];
		cache->spare_bytes -= bloom_cache_bytes(&found);
		cache->spares[spare].valid = false;
		cache->spares[spare].sliced = false;
		cache->spares[spare].value = NULL;
		cache->spares[spare].allocation = NULL;
		cache->spares[spare].scalable = NULL;
	}
	bloom_cache_put_aside(cache, entry);
	if (spare >= 0)
		*entry = found;
	else
	{
		memcpy(entry->toast_pointer, toast_pointer, sizeof(entry->toast_pointer));
		entry->slice_scans = 0;
		entry->counting_bits = false;
		entry->counting_lookups = 0;
	}
	return entry;
}

/*
 * A filter too large for the caches is probed at one cache miss per value at
 * best: the entry keeps it so that its bits start on a 64-byte line (a scheme
 * 2 block is one line instead of two) and on huge pages (bloom_palloc_large),
 * where a probe's page-table walk mostly hits.  The entry's memory for a
 * value of size bytes, to be filled by the caller; NULL when the value is too
 * small to gain from it, or too large to be given the slack.
 */
static uint8 *
bloom_cache_aligned(BloomArgCache *entry, Size size)
{
	char	   *chunk;

	if (size < BLOOM_HUGE_PAGE_MIN_BYTES || size + BF_BLOCK_BYTES > MaxAllocSize)
		return NULL;
	chunk = bloom_palloc_large(size + BF_BLOCK_BYTES);
	entry->allocation = chunk;
	entry->value = (struct varlena *) (TYPEALIGN(BF_BLOCK_BYTES, chunk + BLOOM_BITS_OFFSET) -
									   BLOOM_BITS_OFFSET);
	return (uint8 *) entry->value;
}

/*
 * Detoast the entry's stored value whole, into fn_mcxt, and check it as the
 * layout's type; the entry is not valid until the check has passed.  A
 * stored, uncompressed filter is read by slices straight into its aligned
 * memory; another is detoasted first and, if large, copied: a second pass,
 * once per call site.
 */
static void
bloom_cache_detoast(FunctionCallInfo fcinfo, BloomArgCache *entry, struct varlena *value,
					const BloomLayout *layout)
{
	MemoryContext old_context;
	uint8	   *aligned;

	entry->valid = false;
	entry->sliced = false;
	entry->counting_bits = false;
	entry->counting_lookups = 0;
	bloom_cache_release(entry);
	old_context = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	aligned = bloom_cache_aligned(entry, bloom_slice_raw_size(value));
	if (aligned != NULL)
		bloom_slice_read_whole(value, layout, aligned);
	else
	{
		struct varlena *detoasted = pg_detoast_datum(value);

		aligned = VARATT_IS_SHORT(detoasted) ? NULL :
			bloom_cache_aligned(entry, VARSIZE(detoasted));
		if (aligned != NULL)
		{
			bloom_fill_bits(aligned, (const uint8 *) detoasted, VARSIZE(detoasted));
			pfree(detoasted);
		}
		else
		{
			entry->value = detoasted;
			entry->allocation = detoasted;
		}
	}
	MemoryContextSwitchTo(old_context);
	layout->view_datum(PointerGetDatum(entry->value), &entry->view);
	entry->valid = true;
}

/*
 * bloom_cache_fetch (lookup false) and bloom_cache_lookup (lookup true).
 * A stored value is read by slices while its call site's scans of it stay
 * within bloom_slice_budget, when it affords the header and one probe.
 */
static BloomArgCache *
bloom_cache_get(FunctionCallInfo fcinfo, int argno, const BloomLayout *layout, bool lookup,
				BloomView *view)
{
	struct varlena *value = (struct varlena *) PG_GETARG_POINTER(argno);
	struct varatt_external toast_pointer;
	BloomArgCache *entry;
	uint32		budget = 0;

	/* not a stored value of an argument the cache keeps: nothing worth caching */
	if (!VARATT_IS_EXTERNAL_ONDISK(value) || argno >= lengthof(((BloomCallCache *) NULL)->args))
	{
		layout->view_datum(PointerGetDatum(value), view);
		return NULL;
	}

	VARATT_EXTERNAL_GET_POINTER(toast_pointer, value);
	entry = bloom_cache_current(fcinfo, argno, &toast_pointer);
	/* slices of a compressed value would need all of it decompressed */
	if (lookup && !VARATT_EXTERNAL_IS_COMPRESSED(toast_pointer))
		budget = bloom_slice_budget(&toast_pointer);

	/* a new value: by slices if it affords the header and one probe */
	if (!entry->valid && !entry->sliced && budget >= 2)
	{
		bloom_slice_view(value, layout, &entry->view);
		entry->slice_scans = 1;
		entry->sliced = true;
	}
	if (!entry->valid && !(entry->sliced && entry->slice_scans < budget))
		bloom_cache_detoast(fcinfo, entry, value, layout);
	*view = entry->view;
	return entry;
}

BloomArgCache *
bloom_cache_fetch(FunctionCallInfo fcinfo, int argno, const BloomLayout *layout,
				  BloomView *view)
{
	return bloom_cache_get(fcinfo, argno, layout, false, view);
}

BloomArgCache *
bloom_cache_lookup(FunctionCallInfo fcinfo, int argno, const BloomLayout *layout,
				   BloomView *view)
{
	return bloom_cache_get(fcinfo, argno, layout, true, view);
}

/*
 * The same choice as bloom_cache_lookup's for a scalable filter, whose
 * whole reads are scalable_getarg's: the header is read and the stages'
 * shapes kept in entry->scalable.
 */
BloomArgCache *
bloom_cache_lookup_scalable(FunctionCallInfo fcinfo, int argno)
{
	struct varlena *value = (struct varlena *) PG_GETARG_POINTER(argno);
	struct varatt_external toast_pointer;
	BloomArgCache *entry;
	uint32		budget;

	if (!VARATT_IS_EXTERNAL_ONDISK(value) || argno >= lengthof(((BloomCallCache *) NULL)->args))
		return NULL;
	VARATT_EXTERNAL_GET_POINTER(toast_pointer, value);
	/* slices of a compressed value would need all of it decompressed */
	if (VARATT_EXTERNAL_IS_COMPRESSED(toast_pointer))
		return NULL;
	budget = bloom_slice_budget(&toast_pointer);
	entry = bloom_cache_current(fcinfo, argno, &toast_pointer);
	if (entry->valid)
		return NULL;

	/* a new value: by slices if it affords the header and one probe */
	if (!entry->sliced && budget >= 2)
	{
		bf_scalable_view view;

		bloom_slice_scalable_view(value, &view);
		entry->scalable = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(view));
		*entry->scalable = view;
		entry->slice_scans = 1;
		entry->sliced = true;
	}
	return entry->sliced && entry->slice_scans < budget ? entry : NULL;
}

static struct varlena *
bloom_copy_value(const BloomView *view)
{
	return (struct varlena *) bloom_copy(view);
}

const BloomLayout bloom_layout = {
	.type_name = "bloom filter",
	.position_bits = 1,
	.length_error = BF_LENGTH,
	.check_header = bf_check_header,
	.payload_bytes = bloom_payload_bytes,
	.block_contains = bf_block_test,
	.view_datum = bloom_view_datum,
	.flags_in_identity = false,
	.sql_name = "bloom",
	.too_large = BF_TOO_LARGE,
	.binary_decode = bf_binary_decode,
	.copy = bloom_copy_value,
};

void
bloom_getarg_fetch(FunctionCallInfo fcinfo, int argno, BloomView *view)
{
	bloom_cache_fetch(fcinfo, argno, &bloom_layout, view);
}

bool
bloom_getarg_lookup_fetch(FunctionCallInfo fcinfo, int argno, BloomView *view)
{
	BloomArgCache *entry = bloom_cache_lookup(fcinfo, argno, &bloom_layout, view);

	return entry == NULL || entry->valid;
}

bool
bloom_lookup_slices(FunctionCallInfo fcinfo, int argno, const BloomLayout *layout,
					const BloomView *view, bf_hash hash)
{
	BloomCallCache *cache = (BloomCallCache *) fcinfo->flinfo->fn_extra;

	Assert(cache != NULL && cache->args[argno].sliced);
	return bloom_slice_contains((struct varlena *) PG_GETARG_POINTER(argno), layout, view, hash,
								&cache->args[argno].slice_scans);
}

BloomEncoder *
bloom_call_encoder_resolve(FunctionCallInfo fcinfo, int argno)
{
	BloomCallCache *cache = bloom_call_cache(fcinfo);
	Oid			typid;

	if (cache->encoder != NULL && cache->encoder_argno == argno)
		return cache->encoder;

	typid = get_fn_expr_argtype(fcinfo->flinfo, argno);
	if (!OidIsValid(typid))
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("could not determine the data type of the value to hash"));
	return bloom_call_encoder_of_type(fcinfo, argno, typid);
}

BloomEncoder *
bloom_call_encoder_of_type(FunctionCallInfo fcinfo, int argno, Oid typid)
{
	BloomCallCache *cache = bloom_call_cache(fcinfo);

	if (cache->encoder == NULL || cache->encoder_typid != typid ||
		cache->encoder_argno != argno)
	{
		cache->encoder = bloom_encoder_create(typid, fcinfo->flinfo->fn_mcxt);
		cache->encoder_typid = typid;
		cache->encoder_argno = argno;
	}
	return cache->encoder;
}
