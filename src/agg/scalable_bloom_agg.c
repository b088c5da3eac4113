/*
 * agg/scalable_bloom_agg.c: scalable_bloom_agg(value, false_positive_rate) and
 * scalable_bloom_agg(bloom_hashed, false_positive_rate).
 *
 * The states, transition, combine, serialize and deserialize functions are
 * those of the self-sizing bloom_agg(value, p) (agg/self_sizing.c): the
 * values' hashes, then a sketch, with the parallel and Citus-splittable
 * forms and their checks as they are there.  Only the final functions are
 * here: the result is a scalable filter whose first stage is the
 * self-sized filter of the distinct values seen, at the first stage's rate
 * p (1 - r), holding them (so it is full), with the default growth and
 * tightening; later bloom_add calls open stages as for any scalable filter.
 * Sizing the first stage for the values seen keeps the filter small and
 * its rate at p whether a group has ten values or ten million, where a
 * scalable filter grown row by row from a guessed initial capacity would
 * carry every stage, and where combining partial scalable filters stage by
 * stage would overfill their stages (a union's rate can exceed p).
 *
 * Past the exact phase (2^17 distinct values) the sketch has the k of p,
 * not of p (1 - r): folded to the first stage's rate it takes about 3% more
 * bits than a filter with the best k would (core/scalable.c accepts that k
 * for a self-sized stage).  With no rows the result is NULL, or, when the
 * rate is a constant, scalable_bloom_empty(p, 1).
 */
#include "postgres.h"

#include "agg/agg.h"
#include "types/scalable_bloom/scalable_bloom.h"

#include "catalog/pg_type.h"

static Datum
scalable_bloom_agg_final(FunctionCallInfo fcinfo, bool value_state)
{
	bf_scalable_params params;
	double		p = 0.0;
	void	   *state = bloom_autoagg_final_state(fcinfo, value_state, &p);
	BloomFilter *stage;
	ScalableFilter *result;
	bf_scalable_view view;
	uint64		distinct;
	uint64		body_length;
	bf_status	status;

	params.r = BF_SCALABLE_DEFAULT_TIGHTENING;
	params.growth = BF_SCALABLE_DEFAULT_GROWTH;
	params.flags = bloom_new_filter_flags();
	params.options = 0;
	params.n0 = 1;
	if (state == NULL)
	{
		Datum		rate;

		if (!bloom_agg_call_constant(bloom_agg_call(fcinfo), 1, FLOAT8OID, &rate))
			PG_RETURN_NULL();
		PG_RETURN_POINTER(scalable_agg_no_rows(DatumGetFloat8(rate)));
	}

	params.p = p;
	/* the parameters, checked before the first stage is built for their rate */
	status = bf_scalable_check_params(&params);
	if (status != BF_OK)
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("scalable_bloom_agg: invalid false_positive_rate %g", p),
				errdetail("%s", bf_status_message(status)));
	stage = bloom_autoagg_filter(state, bf_scalable_stage_rate(&params, 0), &distinct);
	params.n0 = Max(distinct, 1);
	params.flags = stage->flags;
	params.options = BF_SCALABLE_SELF_SIZED;

	body_length = BF_SCALABLE_HEADER_BYTES + bf_scalable_stage_bytes(stage->m);
	result = (ScalableFilter *) bloom_palloc_large(VARHDRSZ + body_length);
	SET_VARSIZE(result, VARHDRSZ + body_length);
	bf_scalable_start(result->body, &params, &view);
	bf_scalable_append_stage(result->body, &view, stage->m, stage->k, stage->hash_scheme);
	bloom_fill_bits(result->body + view.stage[0].offset + BF_SCALABLE_STAGE_HEADER_BYTES,
					stage->bits, bloom_payload_bytes(stage->m));
	bf_scalable_set_count(result->body, &view, 0, distinct);
	pfree(stage);
	PG_RETURN_POINTER(result);
}

/* scalable_bloom_agg(value, p): the internal state of bloom_agg(value, p). */
PG_FUNCTION_INFO_V1(scalable_bloom_autoagg_finalfn);
Datum
scalable_bloom_autoagg_finalfn(PG_FUNCTION_ARGS)
{
	return scalable_bloom_agg_final(fcinfo, false);
}

/* scalable_bloom_agg(bloom_hashed, p): the bloom_agg_state of bloom_agg(bloom_hashed, p). */
PG_FUNCTION_INFO_V1(scalable_bloom_autoagg_state_finalfn);
Datum
scalable_bloom_autoagg_state_finalfn(PG_FUNCTION_ARGS)
{
	return scalable_bloom_agg_final(fcinfo, true);
}
