/*
 * planner/stored_filter.c: a filter of any of the three types (bloom,
 * counting_bloom, scalable_bloom) as the planner's estimates
 * (planner/selectivity.c, planner/initplan.c, planner/support.c) and ANALYZE
 * (planner/analyze.c) read it: which values it passes, its current
 * false-positive rate and its estimated cardinality n*.
 *
 * The three share one estimate, the one planner/selectivity.c describes; only
 * these numbers differ:
 *
 *   - bloom: its bits, (X/m)^k (bf_filter_false_positive_rate) and
 *     Swamidass-Baldi's n*;
 *   - counting_bloom: the counters that are not zero are the bits of the
 *     bloom filter of the values present (its cast to bloom, which tests
 *     exactly as it does), and the numbers are that filter's; n* counts
 *     distinct values, as the estimate needs, where bloom_cardinality's
 *     sum / k counts a value added twice twice;
 *   - scalable_bloom: a value passes when a stage holds it; the rate is the
 *     compound rate over the stages, 1 - prod(1 - rate_i), and n* the sum
 *     of the stages' (bf_scalable_current_rate, bf_scalable_cardinality:
 *     what bloom_info and bloom_cardinality report).
 */
#include "postgres.h"

#include "types/counting_bloom/counting_bloom.h"
#include "types/scalable_bloom/scalable_bloom.h"
#include "planner/planner.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

/*
 * Which filter type typid is, or a domain over it, recognized by its input
 * function (the types' OIDs and schema vary).  A superuser can attach the
 * estimators or the support function to a function of any argument types,
 * and a datum of another type must not be read as a filter: a
 * pass-by-value int4 read as a pointer is no address at all.
 */
BloomFilterKind
bloom_filter_kind(Oid typid)
{
	HeapTuple	tuple = SearchSysCache1(TYPEOID, ObjectIdGetDatum(getBaseType(typid)));
	Oid			input_function;
	FmgrInfo	input;

	if (!HeapTupleIsValid(tuple))
		return BLOOM_KIND_NONE;
	input_function = ((Form_pg_type) GETSTRUCT(tuple))->typinput;
	ReleaseSysCache(tuple);
	if (!OidIsValid(input_function))
		return BLOOM_KIND_NONE;
	fmgr_info(input_function, &input);
	if (input.fn_addr == bloom_in)
		return BLOOM_KIND_BLOOM;
	if (input.fn_addr == counting_bloom_in)
		return BLOOM_KIND_COUNTING;
	if (input.fn_addr == scalable_bloom_in)
		return BLOOM_KIND_SCALABLE;
	return BLOOM_KIND_NONE;
}

bf_status
bloom_planner_filter_read(Datum datum, BloomFilterKind kind, BloomPlannerFilter *filter)
{
	bf_status	status;
	const BloomHeader *header;
	uint64		bits_set;

	memset(filter, 0, sizeof(*filter));
	filter->kind = kind;
	if (kind == BLOOM_KIND_SCALABLE)
	{
		uint64		total_set = 0;
		uint64		total_m = 0;
		double		sum_k = 0.0;

		filter->scalable = palloc(sizeof(ScalableArg));
		status = scalable_view_datum_status(datum, filter->scalable);
		if (status != BF_OK)
			return status;
		filter->flags = filter->scalable->view->params.flags;
		for (uint32 i = 0; i < filter->scalable->view->stages; i++)
		{
			const bf_scalable_stage *stage = &filter->scalable->view->stage[i];

			total_set += bf_popcount(bf_scalable_bits(filter->scalable->body,
													  filter->scalable->view, i),
									 bloom_payload_bytes(stage->m));
			total_m += stage->m;
			sum_k += stage->k;
		}
		filter->false_positive_rate = bf_scalable_current_rate(filter->scalable->body,
															   filter->scalable->view);
		filter->cardinality = total_set == 0 ? 0.0 :
			bf_scalable_cardinality(filter->scalable->body, filter->scalable->view);
		filter->m = (double) total_m;
		filter->fill = total_m == 0 ? 0.0 : (double) total_set / (double) total_m;
		filter->k = filter->scalable->view->stages == 0 ? 0.0 :
			sum_k / filter->scalable->view->stages;
		return BF_OK;
	}

	if (kind == BLOOM_KIND_COUNTING)
	{
		BloomView	counters;
		BloomFilter *bits;

		status = counting_view_datum_status(datum, &counters);
		if (status != BF_OK)
			return status;
		bits = bloom_alloc_like(&counters.header);
		bf_counting_to_bits(counters.bits, counters.header.m, bits->bits);
		bloom_view_filter(bits, &filter->bloom);
	}
	else
	{
		status = bloom_view_datum_status(datum, &filter->bloom);
		if (status != BF_OK)
			return status;
	}
	header = &filter->bloom.header;
	bits_set = bf_popcount(filter->bloom.bits, filter->bloom.nbytes);
	filter->flags = header->flags;
	if (bits_set > 0)
	{
		filter->false_positive_rate =
			bf_filter_false_positive_rate(filter->bloom.bits, header->m, header->k,
										  header->hash_scheme, bits_set);
		filter->cardinality = bf_estimate_cardinality(header->m, header->k,
													  header->hash_scheme, bits_set);
	}
	filter->m = (double) header->m;
	filter->fill = (double) bits_set / (double) header->m;
	filter->k = header->k;
	return BF_OK;
}

void
bloom_planner_filter_open(Datum datum, BloomFilterKind kind, BloomPlannerFilter *filter)
{
	bf_status	status = bloom_planner_filter_read(datum, kind, filter);

	/* the messages of the types' own readers */
	if (status != BF_OK)
		ereport(ERROR,
				errcode(ERRCODE_DATA_CORRUPTED),
				errmsg("invalid %s value",
					   kind == BLOOM_KIND_COUNTING ? "counting_bloom" :
					   kind == BLOOM_KIND_SCALABLE ? "scalable_bloom" : "bloom filter"),
				errdetail("%s", bf_status_message(status)));
}

bool
bloom_planner_filter_contains(const BloomPlannerFilter *filter, bf_hash hash)
{
	if (filter->kind == BLOOM_KIND_SCALABLE)
		return bf_scalable_contains(filter->scalable->body, filter->scalable->view, hash);
	return bf_contains(filter->bloom.bits, filter->bloom.header.m, filter->bloom.header.k,
					   filter->bloom.header.hash_scheme, hash);
}
