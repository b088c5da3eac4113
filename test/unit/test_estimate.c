/*
 * test_estimate.c: unit tests of the estimates: cardinality, the current and
 * expected false-positive rates and the Goel-Gupta bound, and statistical
 * checks of both schemes with stated bounds.
 */
#include "harness.h"

static bool
close_to(double actual, double expected, double relative)
{
	return fabs(actual - expected) <= relative * fabs(expected);
}

UNIT_TEST(estimates)
{
	CHECK(bf_estimate_cardinality(958506, 7, BLOOM_HASH_XXH3_EDH, 0) == 0.0);
	CHECK(isinf(bf_estimate_cardinality(958506, 7, BLOOM_HASH_XXH3_EDH, 958506)) &&
		  bf_estimate_cardinality(958506, 7, BLOOM_HASH_XXH3_EDH, 958506) > 0);
	/* half full: n* = (m/k) ln 2 */
	CHECK(close_to(bf_estimate_cardinality(958506, 7, BLOOM_HASH_XXH3_EDH, 479253), 94912.24734997013, 1e-13));
	/* one bit of a billion: log1p keeps the digits that log(1 - X/m) loses */
	CHECK(close_to(bf_estimate_cardinality(1000000000, 1, BLOOM_HASH_XXH3_EDH, 1), 1.0000000005, 1e-14));
	CHECK(close_to(bf_estimate_cardinality(64, 2, BLOOM_HASH_XXH3_EDH, 1), -32.0 * log1p(-1.0 / 64), 1e-15));

	CHECK(bf_current_false_positive_rate(958506, 7, 0) == 0.0);
	CHECK(bf_current_false_positive_rate(958506, 7, 479253) == 0.0078125);
	CHECK(bf_current_false_positive_rate(958506, 7, 958506) == 1.0);
	CHECK(close_to(bf_current_false_positive_rate(1000, 3, 100), 0.001, 1e-13));
}

/*
 * The planned false-positive rate and Goel and Gupta's bound, against values
 * computed independently with python3's decimal module at 40 digits.
 */
UNIT_TEST(expected_false_positive_rate)
{
	static const struct
	{
		uint64_t	m;
		uint32_t	k;
		uint64_t	n;
		double		classic;
		double		goel_gupta;
	}			cases[] = {
		/* the textbook shape, at and past its capacity */
		{958506, 7, 100000, 0.01003920958175812241, 0.01003949790782511546},
		{958506, 7, 200000, 0.1574528522697232936, 0.1574545763177259088},
		{9585059, 7, 1000000, 0.01003921455925386225, 0.01003924339158494118},
		/* k = 1, n = m: 1 - 1/e */
		{1000, 1, 1000, 0.6321205588285576784, 0.6326725158759811597},
		{3, 1, 1, 0.2834686894262107496, 0.5276334472589852929},
		/* tiny kn/m: 1 - e^(-x) would lose most digits, -expm1(-x) does not */
		{1000000000, 1, 1, 9.999999995000000002e-10, 1.500000000375e-9},
		/* nothing added: no false positives, but the bound is above 0 */
		{64, 2, 0, 0.0, 0.0002479901643047109385},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		double		classic = bf_expected_false_positive_rate(cases[i].m, cases[i].k, cases[i].n);
		double		bound = bf_goel_gupta_bound(cases[i].m, cases[i].k, cases[i].n);

		if (!CHECK(close_to(classic, cases[i].classic, 1e-12)))
			fprintf(stderr, "    case %zu: classic %.17g, expected %.17g\n", i, classic, cases[i].classic);
		if (!CHECK(close_to(bound, cases[i].goel_gupta, 1e-12)))
			fprintf(stderr, "    case %zu: bound %.17g, expected %.17g\n", i, bound, cases[i].goel_gupta);
		CHECK(classic <= bound);
	}
	/* m = 1: the bound's m - 1 is 0; every probe hits the one bit */
	CHECK(bf_goel_gupta_bound(1, 3, 5) == 1.0);
	CHECK(bf_expected_false_positive_rate(1, 3, 5) < 1.0);
	/* kn/m = ln 2 (to 3e-7): half the bits set, so 2^-k */
	CHECK(close_to(bf_expected_false_positive_rate(7000000, 7, 693147), 0.0078125, 1e-5));
	/* a saturated plan: both tend to 1 */
	CHECK(close_to(bf_expected_false_positive_rate(64, 3, 100000), 1.0, 1e-12));
	CHECK(close_to(bf_goel_gupta_bound(64, 3, 100000), 1.0, 1e-12));
	CHECK(isnan(bf_expected_false_positive_rate(0, 3, 5)));
	CHECK(isnan(bf_goel_gupta_bound(64, 0, 5)));
}

/*
 * A filter sized for n = 100000 at p = 0.01 (m = 958506, k = 7), filled with
 * 100000 distinct keys and probed with 1,000,000 others.  The false-positive
 * count is binomial around the classical p0 = (1 - e^(-kn/m))^k; its
 * standard deviation is sqrt(p0 (1 - p0) / N).  Goel and Gupta's upper bound
 * is printed alongside: the two are far closer than the sampling noise.
 */
UNIT_TEST(false_positive_rate)
{
	const int64_t n = 100000;
	const int64_t probes = 1000000;
	uint64_t	m;
	uint32_t	k;
	uint8_t    *bits;
	int64_t		false_negatives = 0,
				false_positives = 0;
	double		p0,
				upper,
				sigma,
				measured;

	CHECK_STATUS(bf_optimal_shape(0.01, n, &m, &k), BF_OK);
	bits = xmalloc((size_t) bloom_payload_bytes(m));
	memset(bits, 0, (size_t) bloom_payload_bytes(m));
	for (int64_t key = 0; key < n; key++)
		bf_add_hash(bits, m, k, hash_int64(key));
	for (int64_t key = 0; key < n; key++)
		false_negatives += !bf_contains_hash(bits, m, k, hash_int64(key));
	for (int64_t key = n; key < n + probes; key++)
		false_positives += bf_contains_hash(bits, m, k, hash_int64(key));

	p0 = bf_expected_false_positive_rate(m, k, (uint64_t) n);
	upper = bf_goel_gupta_bound(m, k, (uint64_t) n);
	sigma = sqrt(p0 * (1.0 - p0) / probes);
	measured = (double) false_positives / probes;
	printf("false-positive rate: measured %.6f, expected %.6f (Goel-Gupta bound %.6f), sigma %.6f, %+.2f sigma\n",
		   measured, p0, upper, sigma, (measured - p0) / sigma);
	CHECK(false_negatives == 0);
	CHECK(fabs(measured - p0) <= 6 * sigma);
	CHECK(p0 <= upper);
	free(bits);
}

/*
 * Swamidass-Baldi estimates near half fill.  By the delta method the
 * estimate's standard deviation is sqrt(m (e^t - t - 1)) / k with t = kn/m
 * (about 78 here, 0.08%), so the 2% bound is a loose one; the union and
 * intersection are held to 6 standard deviations of the estimates they are
 * made from.
 */
static double
estimate_sigma(uint64_t m, uint32_t k, double n)
{
	double		t = k * n / (double) m;

	return sqrt((double) m * (exp(t) - t - 1.0)) / k;
}

UNIT_TEST(cardinality_estimate)
{
	const uint64_t m = 958506;
	const uint32_t k = 7;
	size_t		nbytes = (size_t) bloom_payload_bytes(m);
	uint8_t    *a = xmalloc(nbytes);
	uint8_t    *b = xmalloc(nbytes);
	double		estimate_a,
				estimate_b,
				estimate_union,
				estimate_intersection,
				sigma;

	memset(a, 0, nbytes);
	memset(b, 0, nbytes);
	/* A = [0, 95000) (half full), B = [60000, 120000): A u B = 120000, A n B = 35000 */
	for (int64_t key = 0; key < 95000; key++)
		bf_add_hash(a, m, k, hash_int64(key));
	for (int64_t key = 60000; key < 120000; key++)
		bf_add_hash(b, m, k, hash_int64(key));

	estimate_a = bf_estimate_cardinality(m, k, BLOOM_HASH_XXH3_EDH, bf_popcount(a, nbytes));
	estimate_b = bf_estimate_cardinality(m, k, BLOOM_HASH_XXH3_EDH, bf_popcount(b, nbytes));
	estimate_union = bf_estimate_cardinality(m, k, BLOOM_HASH_XXH3_EDH, bf_popcount_or(a, b, nbytes));
	estimate_intersection = estimate_a + estimate_b - estimate_union;
	printf("cardinality estimates: |A| = 95000 ~ %.1f, |B| = 60000 ~ %.1f, |A u B| = 120000 ~ %.1f, |A n B| = 35000 ~ %.1f\n",
		   estimate_a, estimate_b, estimate_union, estimate_intersection);

	CHECK(close_to(estimate_a, 95000, 0.02));
	CHECK(fabs(estimate_a - 95000) <= 6 * estimate_sigma(m, k, 95000));
	CHECK(close_to(estimate_b, 60000, 0.02));
	CHECK(close_to(estimate_union, 120000, 0.02));
	sigma = estimate_sigma(m, k, 95000) + estimate_sigma(m, k, 60000) +
		estimate_sigma(m, k, 120000);
	CHECK(fabs(estimate_intersection - 35000) <= 6 * sigma);

	/*
	 * OR of the two is the filter of the union: the same estimate, to 1e-15
	 * (one of the two may have been kept in an 80-bit x87 register)
	 */
	bf_or_into(a, b, nbytes);
	CHECK(close_to(bf_estimate_cardinality(m, k, BLOOM_HASH_XXH3_EDH, bf_popcount(a, nbytes)),
				   estimate_union, 1e-15));
	free(a);
	free(b);
}

/*
 * Accuracy of scheme 2 at the shapes bf_blocked_shape gives: the measured
 * false-positive rate over 10^6 absent values against the Poisson formula
 * (and so against p) within 5 sigma, bf_filter_false_positive_rate of the
 * built filter against the measurement, and the blocked Swamidass-Baldi
 * estimate within 2% from a tenth of the capacity to all of it.
 */
UNIT_TEST(blocked_accuracy)
{
	const double rates[] = {0.01, 0.001};
	const int64_t probes = 1000000;

	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++)
	{
		const int64_t n = 100000;
		uint64_t	m;
		uint32_t	k;
		size_t		nbytes;
		uint8_t    *bits;
		int64_t		false_negatives = 0,
					false_positives = 0;
		double		expected,
					sigma,
					measured,
					from_bits;
		int64_t		added = 0;
		bool		estimates_ok = true;

		CHECK_STATUS(bf_blocked_shape(rates[r], n, &m, &k), BF_OK);
		nbytes = (size_t) bloom_payload_bytes(m);
		bits = xmalloc(nbytes);
		memset(bits, 0, nbytes);
		for (int64_t target = n / 10; target <= 2 * n; target += n / 10)
		{
			double		estimate;

			for (; added < target; added++)
				bf_add(bits, m, k, BLOOM_HASH_XXH3_BLOCKED, hash_int64(added));
			estimate = bf_estimate_cardinality(m, k, BLOOM_HASH_XXH3_BLOCKED,
											   bf_popcount(bits, nbytes));
			estimates_ok &= fabs(estimate / (double) target - 1.0) < 0.02;
			if (target == n || target == 2 * n)
				printf("blocked p = %g, m = %llu, k = %u: %lld values estimated at %.1f\n",
					   rates[r], (unsigned long long) m, k, (long long) target, estimate);
			if (target == n)
				break;
		}
		CHECK(estimates_ok);

		for (int64_t key = 0; key < n; key++)
			false_negatives += !bf_contains(bits, m, k, BLOOM_HASH_XXH3_BLOCKED, hash_int64(key));
		for (int64_t key = n; key < n + probes; key++)
			false_positives += bf_contains(bits, m, k, BLOOM_HASH_XXH3_BLOCKED, hash_int64(key));
		expected = bf_blocked_false_positive_rate(m, k, (double) n);
		sigma = sqrt(expected * (1.0 - expected) / probes);
		measured = (double) false_positives / probes;
		from_bits = bf_filter_false_positive_rate(bits, m, k, BLOOM_HASH_XXH3_BLOCKED,
												  bf_popcount(bits, nbytes));
		printf("blocked false-positive rate, p = %g: measured %.6f, expected %.6f, from the bits %.6f, sigma %.6f, %+.2f sigma\n",
			   rates[r], measured, expected, from_bits, sigma, (measured - expected) / sigma);
		CHECK(false_negatives == 0);
		CHECK(expected <= rates[r]);
		CHECK(fabs(measured - expected) < 5 * sigma);
		CHECK(fabs(from_bits - measured) < 5 * sigma);
		free(bits);
	}
}
