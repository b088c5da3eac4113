--
-- scalable_bloom holds its false-positive rate however many values arrive
-- (issue 27): n0 = 1,000 and p = 0.01, filled to 10x, 100x and 1,000x n0
-- (1,000,000 values), each tested with 1,000,000 values never added.
--
-- The bound asserted: at most p * 1,000,000 = 10,000 of them pass.  The
-- stages' bits expect 5,100 to 9,000 (expected_rate below); the count is
-- binomial, so its standard deviation is under 95, and the bound is more
-- than 10 of them away at 1,000x (50 at 10x).  Hashing is the same on
-- every machine, so the counts are exact and pinned.
--
-- Memory: the stored size against bloom_empty(0.01, n), one filter sized
-- optimally for the same count (core/scalable.c says why it exceeds 2x
-- between stage boundaries).
--

CREATE TABLE scalable_rate (times int, f scalable_bloom);
INSERT INTO scalable_rate
SELECT 10, bloom_add_all(scalable_bloom_empty(0.01, 1000), ARRAY(SELECT generate_series(1, 10000)));
INSERT INTO scalable_rate
SELECT 100, bloom_add_all(f, ARRAY(SELECT generate_series(10001, 100000))) FROM scalable_rate WHERE times = 10;
INSERT INTO scalable_rate
SELECT 1000, bloom_add_all(f, ARRAY(SELECT generate_series(100001, 1000000))) FROM scalable_rate WHERE times = 100;

SELECT times, i.stages, i.values_added, absent.passed, absent.passed <= 10000 AS rate_held,
	round(i.expected_false_positive_rate::numeric, 5) AS expected_rate,
	pg_column_size(f) AS bytes, pg_column_size(bloom_empty(0.01, times * 1000)) AS optimal_bytes,
	round(pg_column_size(f)::numeric / pg_column_size(bloom_empty(0.01, times * 1000)), 2) AS memory_ratio
FROM scalable_rate, bloom_info(f) AS i,
	LATERAL (SELECT count(*) FILTER (WHERE f @> v) AS passed
		FROM generate_series(1000000001, 1001000000) AS v) AS absent
ORDER BY times;

-- no false negatives at 1,000x
SELECT count(*) FILTER (WHERE NOT f @> v) AS false_negatives
FROM scalable_rate, generate_series(1, 1000000) AS v
WHERE times = 1000;

DROP TABLE scalable_rate;
