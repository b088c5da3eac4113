/*
 * agg/no_rows.c: what the aggregates give over no rows, and
 * bloom_agg_or_empty, which gives it where Citus cannot.
 *
 * On one server, bloom_agg(x, p, n) over no rows is bloom_empty(p, n): its
 * final function reads the constant p and n from the aggregate call.  Split
 * by Citus, the final function runs under the coordinator's
 * coord_combine_agg, whose call holds neither, and the result would be
 * NULL.  bloomfilter.split_aggregates (distributed/split.c) therefore wraps
 * a split call with constant arguments in bloom_agg_or_empty(call,
 * arguments...), which passes a filter through untouched and turns NULL
 * into the filter of no rows.
 */
#include "postgres.h"

#include "agg/agg.h"
#include "types/counting_bloom/counting_bloom.h"
#include "types/scalable_bloom/scalable_bloom.h"

BloomFilter *
bloom_agg_no_rows(double p, int64 n)
{
	return bloom_alloc_optimal("bloom_agg", p, n, false);
}

struct varlena *
counting_agg_no_rows(double p, int64 n)
{
	BloomHeader shape;

	counting_shape("counting_bloom_agg", p, n, &shape);
	return (struct varlena *) counting_alloc(&shape, NULL);
}

/* scalable_bloom_empty(p, 1), with the defaults of scalable_bloom_agg. */
struct varlena *
scalable_agg_no_rows(double p)
{
	bf_scalable_params params;

	params.p = p;
	params.r = BF_SCALABLE_DEFAULT_TIGHTENING;
	params.growth = BF_SCALABLE_DEFAULT_GROWTH;
	params.flags = bloom_new_filter_flags();
	params.options = 0;
	params.n0 = 1;
	return (struct varlena *) scalable_new("scalable_bloom_agg", &params);
}

/*
 * Whether the filter in argument 0 is there (to be returned as it is), and
 * otherwise whether arguments 1 .. nargs - 1, the aggregate's, are all
 * known.
 */
static bool
or_empty_needs_result(FunctionCallInfo fcinfo)
{
	if (!PG_ARGISNULL(0))
		return false;
	for (int i = 1; i < PG_NARGS(); i++)
		if (PG_ARGISNULL(i))
			return false;
	return true;
}

static Datum
or_empty_unchanged(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/* bloom_agg_or_empty(bloom, p, n) */
PG_FUNCTION_INFO_V1(bloom_agg_or_empty);
Datum
bloom_agg_or_empty(PG_FUNCTION_ARGS)
{
	if (!or_empty_needs_result(fcinfo))
		return or_empty_unchanged(fcinfo);
	PG_RETURN_POINTER(bloom_agg_no_rows(PG_GETARG_FLOAT8(1), PG_GETARG_INT64(2)));
}

/* bloom_agg_or_empty(bloom) and bloom_agg_or_empty(bloom, p), of the self-sized bloom_agg */
PG_FUNCTION_INFO_V1(bloom_agg_or_empty_self_sized);
Datum
bloom_agg_or_empty_self_sized(PG_FUNCTION_ARGS)
{
	if (!or_empty_needs_result(fcinfo))
		return or_empty_unchanged(fcinfo);
	PG_RETURN_POINTER(bloom_autoagg_no_rows(PG_NARGS() > 1 ? PG_GETARG_FLOAT8(1) :
											BF_DEFAULT_FALSE_POSITIVE_RATE));
}

/* bloom_agg_or_empty(counting_bloom, p, n) */
PG_FUNCTION_INFO_V1(counting_bloom_agg_or_empty);
Datum
counting_bloom_agg_or_empty(PG_FUNCTION_ARGS)
{
	if (!or_empty_needs_result(fcinfo))
		return or_empty_unchanged(fcinfo);
	PG_RETURN_POINTER(counting_agg_no_rows(PG_GETARG_FLOAT8(1), PG_GETARG_INT64(2)));
}

/* bloom_agg_or_empty(scalable_bloom, p) */
PG_FUNCTION_INFO_V1(scalable_bloom_agg_or_empty);
Datum
scalable_bloom_agg_or_empty(PG_FUNCTION_ARGS)
{
	if (!or_empty_needs_result(fcinfo))
		return or_empty_unchanged(fcinfo);
	PG_RETURN_POINTER(scalable_agg_no_rows(PG_GETARG_FLOAT8(1)));
}
