--
-- Estimates (Swamidass and Baldi 2007).  A filter with X of its m bits set
-- after k probes per value holds about
--
--     n* = -(m/k) ln(1 - X/m)
--
-- distinct values.  From that:
--     bloom_cardinality(A)                 n*(A); Infinity when saturated (X = m)
--     bloom_union_cardinality(A, B)        n*(A | B), from popcount(A | B)
--     bloom_intersection_cardinality(A, B) n*(A) + n*(B) - n*(A | B), at least 0;
--                                          NaN when the union is saturated
--     bloom_jaccard(A, B)                  intersection / union; 1 for two
--                                          empty filters; NaN when saturated
--     bloom_info(A)                        m, k, bytes, X, X/m, n*, (X/m)^k
--
-- The statistical checks use fixed inputs, so they give the same answer on
-- every run; each states its tolerance against the estimator's standard error.
--

--
-- bloom_info
--
SELECT * FROM bloom_info(bloom_empty_mk(18, 3));
-- (printed rounded: the last digit of a logarithm may differ between libms)
SELECT m, k, bytes, bits_set, fill_ratio, round(estimated_cardinality::numeric, 9) AS estimated_cardinality,
	false_positive_rate
FROM bloom_info(bloom_add(bloom_add(bloom_empty_mk(1000, 3), 1), 2));
-- bytes is the size of the filter as a value: header and whole 64-bit words
SELECT m, k, bytes, bytes = 16 + 8 * ceil(m / 64.0) AS header_and_words,
	bytes = pg_column_size(bloom_empty(0.01, 100000)) AS column_size
FROM bloom_info(bloom_empty(0.01, 100000));

-- every column agrees with its formula, computed here from m, k and X
SELECT count(*) AS filters,
	count(*) FILTER (WHERE fill_ratio = bits_set::float8 / m) AS fill_ratio_ok,
	count(*) FILTER (WHERE abs(estimated_cardinality - (-(m::float8 / k) * ln(1 - bits_set::float8 / m)))
						 <= 1e-9 * estimated_cardinality) AS cardinality_ok,
	count(*) FILTER (WHERE abs(false_positive_rate - (bits_set::float8 / m) ^ k)
						 <= 1e-12 * false_positive_rate) AS false_positive_rate_ok,
	count(*) FILTER (WHERE estimated_cardinality = bloom_cardinality(f)) AS same_as_bloom_cardinality
FROM (SELECT bloom_agg(i, 0.01, 1000) AS f FROM generate_series(1, 2000) AS i GROUP BY i % 7
	  UNION ALL
	  SELECT bloom_agg(i, 0.1, 100) FROM generate_series(1, 300) AS i GROUP BY i % 3) AS s,
	LATERAL bloom_info(f);

--
-- Empty and saturated filters
--
SELECT bloom_cardinality(bloom_empty(0.01, 100)) AS empty_cardinality,
	bloom_union_cardinality(bloom_empty(0.01, 100), bloom_empty(0.01, 100)) AS empty_union,
	bloom_intersection_cardinality(bloom_empty(0.01, 100), bloom_empty(0.01, 100)) AS empty_intersection,
	-- two empty sets are equal sets
	bloom_jaccard(bloom_empty(0.01, 100), bloom_empty(0.01, 100)) AS empty_jaccard;

-- a saturated filter (every bit set) says nothing about how many values went
-- in: its cardinality is Infinity, and any intersection with it is unknowable
CREATE TABLE estimates_saturated AS
SELECT (SELECT bloom_agg(i, 0.5, 1) FROM generate_series(1, 100) AS i) AS full_filter,
	bloom_add(bloom_empty(0.5, 1), 1) AS half_filter;
SELECT (bloom_info(full_filter)).*, bloom_cardinality(full_filter) FROM estimates_saturated;
SELECT bloom_union_cardinality(full_filter, half_filter) AS union_,
	bloom_intersection_cardinality(full_filter, half_filter) AS intersection,
	bloom_intersection_cardinality(half_filter, full_filter) AS intersection_swapped,
	bloom_jaccard(full_filter, half_filter) AS jaccard,
	bloom_jaccard(full_filter, full_filter) AS jaccard_self
FROM estimates_saturated;
-- the union can be saturated when neither side is
SELECT round(bloom_cardinality(a)::numeric, 9) AS a, round(bloom_cardinality(b)::numeric, 9) AS b,
	bloom_union_cardinality(a, b) AS union_,
	bloom_intersection_cardinality(a, b) AS intersection,
	bloom_jaccard(a, b) AS jaccard
FROM (SELECT 'bloom:v1:h1:m2:k1:AQAAAAAAAAA='::bloom AS a,	-- bit 0
			 'bloom:v1:h1:m2:k1:AgAAAAAAAAA='::bloom AS b	-- bit 1
	 ) AS s;

--
-- Shape mismatch and NULLs
--
SELECT query, e.*
FROM (VALUES
	('SELECT bloom_union_cardinality(bloom_empty_mk(18, 3), bloom_empty_mk(19, 3))'),
	('SELECT bloom_intersection_cardinality(bloom_empty_mk(18, 3), bloom_empty_mk(18, 4))'),
	('SELECT bloom_jaccard(bloom_empty(0.01, 100), bloom_empty(0.01, 1000))')
) AS v(query), LATERAL error_of(query) AS e;
SELECT bloom_jaccard(bloom_empty(0.01, 100), bloom_empty(0.01, 1000));
SELECT bloom_cardinality(NULL) IS NULL AS cardinality,
	bloom_union_cardinality(NULL, bloom_empty(0.01, 100)) IS NULL AS union_,
	bloom_intersection_cardinality(bloom_empty(0.01, 100), NULL) IS NULL AS intersection,
	bloom_jaccard(NULL, NULL) IS NULL AS jaccard,
	bloom_info(NULL) IS NULL AS info;

--
-- Statistical checks
--
-- Swamidass-Baldi at half fill: with k probes, n = m ln 2 / k values set half
-- of the bits.  bloom_empty(0.01, 100000) has m = 958506, k = 7, so n = 94909.
-- There the standard error of n* is sqrt(m (e^-λ - (1 + λ) e^-2λ)) / (k e^-λ)
-- with λ = kn/m = ln 2, about 78 values or 0.08%; the bound of 2% is 25
-- standard errors.
CREATE TABLE estimates_half AS
SELECT bloom_agg(i, 0.01, 100000) AS f FROM generate_series(1, 94909) AS i;
SELECT m, k, round(fill_ratio::numeric, 2) AS fill_ratio,
	abs(estimated_cardinality / 94909 - 1) < 0.02 AS within_2_percent
FROM estimates_half, LATERAL bloom_info(f);

-- Overlapping sets at the same shape: A = 1..60000, B = 40001..100000, so
-- |A u B| = 100000, |A n B| = 20000 and J = 0.2.  Standard errors (by the
-- delta method, and as measured over 30 shifted copies of these ranges):
-- union 86 (0.09%), intersection 57 (0.3%), Jaccard 0.0007.  The bounds
-- below are at least 7 standard errors: missing one means a wrong formula,
-- not bad luck.
CREATE TABLE estimates_overlap AS
SELECT (SELECT bloom_agg(i, 0.01, 100000) FROM generate_series(1, 60000) AS i) AS a,
	(SELECT bloom_agg(i, 0.01, 100000) FROM generate_series(40001, 100000) AS i) AS b;
SELECT abs(bloom_cardinality(a) / 60000 - 1) < 0.01 AS a_within_1_percent,
	abs(bloom_cardinality(b) / 60000 - 1) < 0.01 AS b_within_1_percent,
	abs(bloom_union_cardinality(a, b) / 100000 - 1) < 0.01 AS union_within_1_percent,
	abs(bloom_intersection_cardinality(a, b) / 20000 - 1) < 0.03 AS intersection_within_3_percent,
	abs(bloom_jaccard(a, b) - 0.2) < 0.005 AS jaccard_within_0_005,
	-- the union estimate is the estimate of the union filter
	bloom_union_cardinality(a, b) = bloom_cardinality(a | b) AS union_is_or_filter,
	-- the AND filter keeps bits set by different values on each side, so its
	-- own estimate overcounts the intersection badly (about 29000 here)
	bloom_cardinality(a & b) > 1.2 * bloom_intersection_cardinality(a, b) AS and_filter_overcounts
FROM estimates_overlap;
SELECT bloom_jaccard(a, a) AS self, bloom_jaccard(a, b) = bloom_jaccard(b, a) AS symmetric,
	bloom_jaccard(a, bloom_empty(0.01, 100000)) AS with_empty,
	bloom_intersection_cardinality(a, bloom_empty(0.01, 100000)) AS intersection_with_empty
FROM estimates_overlap;

-- Disjoint sets: the raw difference n*(A) + n*(B) - n*(A u B) is noise
-- around 0 and often negative; the estimate is clamped at 0
SELECT count(*) AS pairs,
	count(*) FILTER (WHERE bloom_cardinality(a) + bloom_cardinality(b) <
						 bloom_union_cardinality(a, b)) AS raw_negative,
	min(bloom_intersection_cardinality(a, b)) AS min_intersection,
	max(bloom_intersection_cardinality(a, b)) < 50 AS max_intersection_below_50,
	max(bloom_jaccard(a, b)) < 0.01 AS max_jaccard_below_0_01
FROM (SELECT bloom_agg(i, 0.01, 10000) FILTER (WHERE i % 2 = 0) AS a,
			 bloom_agg(i, 0.01, 10000) FILTER (WHERE i % 2 = 1) AS b
	  FROM generate_series(1, 200000) AS i
	  GROUP BY i / 10000) AS s;

DROP TABLE estimates_saturated, estimates_half, estimates_overlap;
