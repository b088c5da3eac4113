--
-- Hash scheme 2: blocked filters.
--
-- A new filter of 2 MiB or more (bloom_empty(p, n), bloom_agg(x, p, n)) puts
-- all k probes of a value in one 512-bit block, one cache line, when that
-- costs at most 10% more bits than scheme 1; it is sized so that its own
-- false-positive rate meets p.  Everything else keeps scheme 1.
--

--
-- Which filters are blocked, and their shapes
--
SELECT p, n, o.m, o.k, o.bytes, o.hash_scheme,
	substr(bloom_empty(p, n)::text, 1, 11) AS text_prefix,
	(bloom_info(bloom_empty(p, n))).m = o.m AS built_as_planned
FROM (VALUES (0.01, 100000), (0.01, 1700000), (0.01, 2000000), (0.01, 10000000),
		(0.001, 10000000), (0.0001, 10000000), (0.5, 100000000)) AS v(p, n),
	LATERAL bloom_optimal(p, n) AS o
ORDER BY p DESC, n;

-- bloom_empty_mk and the self-sizing aggregate keep scheme 1
SELECT substr(bloom_empty_mk(19791872, 6)::text, 1, 11) AS mk,
	substr(bloom_agg(i)::text, 1, 11) AS self_sized
FROM generate_series(1, 1000) AS i;

--
-- A blocked filter of 2,000,000 values at p = 0.01
--
CREATE TABLE blocked_filter AS
SELECT bloom_agg(i, 0.01, 2000000) AS f FROM generate_series(1, 2000000) AS i;

SELECT m, k, bytes, bits_set, round(fill_ratio::numeric, 2) AS fill_ratio,
	abs(estimated_cardinality / 2000000 - 1) < 0.02 AS cardinality_within_2_percent,
	abs(false_positive_rate - 0.01) < 0.0005 AS expected_rate_near_target
FROM blocked_filter, bloom_info(f);

-- no false negatives
SELECT count(*) AS false_negatives
FROM blocked_filter, generate_series(1, 2000000) AS i
WHERE NOT bloom_contains(f, i);

-- the same bytes on every machine (md5 of the binary form, as on x86-64)
SELECT md5(bloom_send(f)) AS binary_md5 FROM blocked_filter;

-- the false-positive rate over 200,000 absent values is within 6 sigma of
-- the target (sigma = sqrt(p (1 - p) / 200000) = 0.000222), as is
-- bloom_info's expected rate of this filter
SELECT abs(measured - 0.01) < 6 * 0.000222 AS measured_within_6_sigma,
	abs(measured - expected) < 6 * 0.000222 AS expected_within_6_sigma
FROM (SELECT count(*) FILTER (WHERE bloom_contains(f, i))::float8 / 200000 AS measured
	  FROM blocked_filter, generate_series(2000001, 2200000) AS i) AS s,
	(SELECT (bloom_info(f)).false_positive_rate AS expected FROM blocked_filter) AS e;

-- the same filter built value by value with bloom_add, and by @> / <@
SELECT (SELECT bloom_agg(i, 0.01, 2000000) FROM generate_series(1, 1000) AS i) =
	(SELECT bloom_add(bloom_add(bloom_agg(i, 0.01, 2000000), 999), 1000)
	 FROM generate_series(1, 998) AS i) AS add_equals_agg;
SELECT f @> 17 AS contains_17, 17 <@ f AS contained_17, f @> (-17) AS contains_minus_17
FROM blocked_filter;

-- text and binary forms round-trip
SELECT f::text::bloom = f AS text_round_trip,
	length(f::text) AS text_length,
	length(bloom_send(f)) = 12 + (bloom_info(f)).bytes - 16 AS binary_length
FROM blocked_filter;

--
-- Set operations and estimates between blocked filters
--
CREATE TABLE blocked_pair AS
SELECT (SELECT bloom_agg(i, 0.01, 2000000) FROM generate_series(1, 1000000) AS i) AS a,
	(SELECT bloom_agg(i, 0.01, 2000000) FROM generate_series(500001, 1500000) AS i) AS b;
SELECT abs(bloom_cardinality(a) / 1000000 - 1) < 0.02 AS a_within_2_percent,
	abs(bloom_union_cardinality(a, b) / 1500000 - 1) < 0.02 AS union_within_2_percent,
	abs(bloom_intersection_cardinality(a, b) / 500000 - 1) < 0.05 AS intersection_within_5_percent,
	abs(bloom_jaccard(a, b) / (1.0 / 3) - 1) < 0.05 AS jaccard_within_5_percent,
	bloom_cardinality(a | b) = bloom_union_cardinality(a, b) AS union_filter_agrees,
	(a | b) = (SELECT bloom_agg(i, 0.01, 2000000) FROM generate_series(1, 1500000) AS i) AS union_is_filter_of_union,
	(a & b) @> 750000 AS intersection_keeps_common
FROM blocked_pair;

-- a blocked filter and a scheme 1 filter of the same m and k do not combine
SELECT error_code, error_message, error_detail
FROM blocked_pair, error_detail_of(format('SELECT %L::bloom | bloom_empty_mk(19791872, 6)', a::text));
SELECT error_code, error_message
FROM blocked_pair, error_detail_of(format('SELECT bloom_union_cardinality(%L::bloom, bloom_empty_mk(19791872, 6))', a::text));

--
-- Golden vectors: the bits scheme 2 sets, computed apart from the code
-- (test/unit/test_probe.c says how), in a one-block and a two-block filter
--
SELECT array_agg(i ORDER BY i) AS positions_of_int8_42
FROM generate_series(0, 1023) AS i
WHERE get_bit(bloom_send(bloom_add(('bloom:v1:h2:m1024:k9:' || repeat('A', 171) || '=')::bloom, 42::int8)), 96 + i) = 1;
-- expected: {110,134,136,255,345,376,457,482,490}
SELECT array_agg(i ORDER BY i) AS positions_of_hello_world
FROM generate_series(0, 1023) AS i
WHERE get_bit(bloom_send(bloom_add(('bloom:v1:h2:m1024:k9:' || repeat('A', 171) || '=')::bloom, 'hello world'::text)), 96 + i) = 1;
-- expected: {616,670,768,775,807,894,920,932,993}

--
-- Input: scheme 2 needs m to be a multiple of 512
--
SELECT error_code, error_message, error_detail
FROM error_detail_of($$SELECT 'bloom:v1:h2:m1000:k3:$$ || repeat('A', 171) || $$='::bloom$$);
SELECT error_code, error_message, error_detail
FROM error_detail_of($$SELECT 'bloom:v1:h3:m1024:k3:$$ || repeat('A', 171) || $$='::bloom$$);
SELECT bloom_info(('bloom:v1:h2:m512:k1:' || repeat('A', 86) || '==')::bloom) AS smallest_blocked;

--
-- Serial and parallel aggregation give the same blocked filter
--
CREATE TABLE blocked_rows AS SELECT i AS x FROM generate_series(1, 300000) AS i;
ANALYZE blocked_rows;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE blocked_serial AS SELECT bloom_agg(x, 0.01, 3000000) AS f FROM blocked_rows;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_agg(x, 0.01, 3000000) AS f FROM blocked_rows;
CREATE TABLE blocked_parallel AS SELECT bloom_agg(x, 0.01, 3000000) AS f FROM blocked_rows;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT s.f = p.f AS serial_equals_parallel, substr(p.f::text, 1, 11) AS text_prefix
FROM blocked_serial AS s, blocked_parallel AS p;

-- as a window aggregate, each frame gets its own filter
SELECT x, bloom_cardinality(f)::int AS estimated, f @> x AS has_own_row
FROM (SELECT x, bloom_agg(x, 0.01, 2000000) OVER (ORDER BY x ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS f
	  FROM generate_series(1, 4) AS x) AS w;
