/*
 * types/bloom/sizing.c: planning a filter before building one.
 *
 *   bloom_optimal(p, n)          the shape bloom_empty(p, n) would build (m, k),
 *                                its size as a value, bits per item and hash
 *                                scheme, from the same core function
 *                                (bf_default_shape)
 *   bloom_expected_fpr(m, k, n)  the false-positive rate of a filter of m bits
 *                                and k probes after n distinct values: the
 *                                classical estimate (1 - e^(-kn/m))^k and Goel
 *                                and Gupta's upper bound
 *                                (1 - e^(-k(n + 0.5)/(m - 1)))^k (core/shape.c)
 *
 * Both refuse what bloom_empty and bloom_empty_mk refuse, with the same
 * SQLSTATEs and messages (bloom_raise_shape_error): a shape outside the
 * limits is not a filter anyone can build, so planning one is an error too.
 */
#include "postgres.h"

#include "types/types.h"

PG_FUNCTION_INFO_V1(bloom_optimal);
Datum
bloom_optimal(PG_FUNCTION_ARGS)
{
	double		p = PG_GETARG_FLOAT8(0);
	int64		n = PG_GETARG_INT64(1);
	uint64_t	m = 0;
	uint32_t	k = 0;
	uint8_t		scheme;
	bf_status	status;
	Datum		values[5];
	bool		nulls[5] = {0};

	status = bf_default_shape(p, n, &m, &k, &scheme);
	if (status != BF_OK)
		bloom_raise_shape_error(status, "bloom_optimal", m, k, p, n);

	values[0] = Int64GetDatum((int64) m);
	values[1] = Int32GetDatum((int32) k);
	/* as bloom_info reports it: the value with a 4-byte header */
	values[2] = Int32GetDatum((int32) (BLOOM_BITS_OFFSET + bloom_payload_bytes(m)));
	values[3] = Float8GetDatum((double) m / (double) n);
	values[4] = Int32GetDatum((int32) scheme);

	PG_RETURN_DATUM(bloom_result_row(fcinfo, "bloom_optimal", values, nulls));
}

PG_FUNCTION_INFO_V1(bloom_expected_fpr);
Datum
bloom_expected_fpr(PG_FUNCTION_ARGS)
{
	int64		m = PG_GETARG_INT64(0);
	int32		k = PG_GETARG_INT32(1);
	int64		n = PG_GETARG_INT64(2);
	bf_status	status;
	Datum		values[2];
	bool		nulls[2] = {0};

	status = bf_check_shape(m, k);
	if (status != BF_OK)
		bloom_raise_shape_error(status, "bloom_expected_fpr", (uint64) m, k, -1, -1);
	if (n < 0)
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("bloom_expected_fpr: n must be at least 0"),
				errdetail("n is " INT64_FORMAT ".", n));

	values[0] = Float8GetDatum(bf_expected_false_positive_rate((uint64) m, (uint32) k,
															   (uint64) n));
	values[1] = Float8GetDatum(bf_goel_gupta_bound((uint64) m, (uint32) k, (uint64) n));

	PG_RETURN_DATUM(bloom_result_row(fcinfo, "bloom_expected_fpr", values, nulls));
}
