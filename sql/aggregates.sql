--
-- Aggregates.
--
--   bloom_agg(value, false_positive_rate, capacity)   filter of the non-NULL values
--   bloom_union_agg(bloom)                             OR of the non-NULL filters
--   bloom_intersection_agg(bloom)                      AND of the non-NULL filters
--
-- The transition state is a filter filled in place; partial states of a
-- parallel or partitionwise plan are ORed (ANDed) by the combine functions,
-- so every plan gives the same bits.
--

--
-- bloom_agg
--
-- sized like bloom_empty(false_positive_rate, capacity)
SELECT m, k, bits_set > 0 AS has_bits
FROM (SELECT bloom_agg(i, 0.01, 100) AS f FROM generate_series(1, 100) AS i) AS s,
	LATERAL bloom_info(f);
-- the same bits as adding the values one by one, in any order
SELECT bloom_agg(i, 0.01, 100) = bloom_union_agg(bloom_add(bloom_empty(0.01, 100), i)) AS same_as_bloom_add,
	bloom_agg(i, 0.01, 100) = (SELECT bloom_agg(j, 0.01, 100)
							   FROM (SELECT j FROM generate_series(1, 100) AS j ORDER BY j DESC) AS r)
		AS order_independent
FROM generate_series(1, 100) AS i;
SELECT bloom_agg(w, 0.01, 10) =
		bloom_add(bloom_add(bloom_add(bloom_empty(0.01, 10), 'apple'::text), 'pear'::text), 'fig'::text)
		AS text_values
FROM (VALUES ('apple'), ('pear'), ('fig'), ('pear')) AS v(w);
-- no false negatives
SELECT count(*) FILTER (WHERE bloom_contains(f, i)) AS contained
FROM (SELECT bloom_agg(i, 0.01, 1000) AS f FROM generate_series(1, 1000) AS i) AS s,
	generate_series(1, 1000) AS i;

-- NULL values are skipped; only NULLs, or no rows at all, give an empty
-- filter of the requested shape
SELECT bloom_agg(x, 0.01, 100) = bloom_agg(x, 0.01, 100) FILTER (WHERE x IS NOT NULL) AS nulls_skipped,
	bloom_agg(x, 0.01, 100) FILTER (WHERE x IS NULL) = bloom_empty(0.01, 100) AS only_nulls_empty,
	bloom_agg(x, 0.01, 100) FILTER (WHERE false) = bloom_empty(0.01, 100) AS no_rows_empty
FROM (VALUES (1), (NULL), (2), (NULL)) AS v(x);
SELECT m, k, bits_set FROM bloom_info((SELECT bloom_agg(i, 0.001, 5000) FROM generate_series(1, 0) AS i));

-- with no rows the shape comes from the aggregate call, so it must be made of
-- constants; otherwise the result of no rows is NULL
CREATE TABLE agg_request (p float8, n int8);
INSERT INTO agg_request VALUES (0.01, 100);
SELECT bloom_agg(i, p, n) IS NULL AS no_rows_column_request
FROM agg_request, generate_series(1, 0) AS i;
SELECT bloom_agg(i, p, n) = (SELECT bloom_agg(i, 0.01, 100) FROM generate_series(1, 10) AS i)
		AS rows_column_request
FROM agg_request, generate_series(1, 10) AS i;
PREPARE agg_no_rows(float8) AS
SELECT bloom_agg(i, $1, 100) = bloom_empty($1, 100) AS empty_filter, bloom_agg(i, $1, 100) IS NULL AS is_null
FROM generate_series(1, 0) AS i;
SET plan_cache_mode = force_custom_plan;
EXECUTE agg_no_rows(0.01);
SET plan_cache_mode = force_generic_plan;
EXECUTE agg_no_rows(0.01);
RESET plan_cache_mode;
DEALLOCATE agg_no_rows;

-- per group
SELECT i % 3 AS g, m, bits_set > 0 AS has_bits,
	bool_and(bloom_contains(f, i)) AS members_contained
FROM (SELECT i % 3 AS g, bloom_agg(i, 0.01, 50) AS f FROM generate_series(1, 150) AS i GROUP BY 1) AS s
	JOIN generate_series(1, 150) AS i ON i % 3 = s.g,
	LATERAL bloom_info(f)
GROUP BY 1, 2, 3 ORDER BY 1;

-- errors: false_positive_rate and capacity are checked on the first row,
-- even when its value is NULL, and every later row must repeat them
SELECT query, e.*
FROM (VALUES
	('SELECT bloom_agg(x, 0, 100) FROM (VALUES (1)) AS v(x)'),
	('SELECT bloom_agg(x, 1, 100) FROM (VALUES (1)) AS v(x)'),
	('SELECT bloom_agg(x, -1, 100) FROM (VALUES (1)) AS v(x)'),
	('SELECT bloom_agg(x, ''NaN'', 100) FROM (VALUES (1)) AS v(x)'),
	('SELECT bloom_agg(x, ''Infinity'', 100) FROM (VALUES (1)) AS v(x)'),
	('SELECT bloom_agg(x, 0.01, 0) FROM (VALUES (1)) AS v(x)'),
	('SELECT bloom_agg(x, 0.01, -1) FROM (VALUES (1)) AS v(x)'),
	('SELECT bloom_agg(x, 1e-25, 100) FROM (VALUES (1)) AS v(x)'),
	('SELECT bloom_agg(x, 1e-10, 10000000000) FROM (VALUES (1)) AS v(x)'),
	('SELECT bloom_agg(x, 0, 100) FROM (VALUES (NULL::int)) AS v(x)'),
	('SELECT bloom_agg(x, 0, 100) FROM (VALUES (1)) AS v(x) WHERE false'),
	('SELECT bloom_agg(x, NULL, 100) FROM (VALUES (1)) AS v(x)'),
	('SELECT bloom_agg(x, 0.01, NULL) FROM (VALUES (1)) AS v(x)'),
	('SELECT bloom_agg(x, p, 100) FROM (VALUES (1, 0.01), (2, 0.02)) AS v(x, p)'),
	('SELECT bloom_agg(x, 0.01, n) FROM (VALUES (1, 100), (NULL, 101)) AS v(x, n)'),
	-- the same shape (m = 959, k = 7), but not the same request
	('SELECT bloom_agg(x, p, 100) FROM (VALUES (1, 0.01), (2, 0.010000001)) AS v(x, p)')
) AS v(query), LATERAL error_of(query) AS e;
SELECT bloom_agg(x, p, 100) FROM (VALUES (1, 0.01), (2, 0.010000001)) AS v(x, p);

--
-- bloom_union_agg and bloom_intersection_agg
--
CREATE TABLE agg_filters AS
SELECT i / 100 AS g, bloom_agg(i, 0.01, 10000) AS f
FROM generate_series(1, 9999) AS i GROUP BY 1;

-- the union of filters is the filter of all the values
SELECT bloom_union_agg(f) = (SELECT bloom_agg(i, 0.01, 10000) FROM generate_series(1, 9999) AS i)
		AS union_exact,
	bloom_union_agg(f) = bloom_union(VARIADIC array_agg(f)) AS same_as_variadic,
	bloom_intersection_agg(f) = bloom_intersection(VARIADIC array_agg(f)) AS intersection_same_as_variadic,
	bloom_intersection_agg(f) & bloom_union_agg(f) = bloom_intersection_agg(f) AS intersection_within_union
FROM agg_filters;
-- the intersection contains every value common to all inputs
SELECT count(*) FILTER (WHERE bloom_contains(
		(SELECT bloom_intersection_agg(bloom_add(f, 'everywhere'::text)) FROM agg_filters), 'everywhere'::text))
		AS common_value_contained;

-- NULLs are skipped (the first row here is NULL); no non-NULL input gives NULL
SELECT bloom_union_agg(f) = (SELECT bloom_union_agg(f) FROM agg_filters WHERE g % 3 <> 0)
		AS union_nulls_skipped,
	bloom_intersection_agg(f) = (SELECT bloom_intersection_agg(f) FROM agg_filters WHERE g % 3 <> 0)
		AS intersection_nulls_skipped
FROM (SELECT g, CASE WHEN g % 3 <> 0 THEN f END AS f FROM agg_filters ORDER BY g) AS s;
SELECT bloom_union_agg(f) IS NULL AS union_no_rows, bloom_intersection_agg(f) IS NULL AS intersection_no_rows
FROM agg_filters WHERE false;
SELECT bloom_union_agg(NULL::bloom) IS NULL AS union_only_nulls,
	bloom_intersection_agg(NULL::bloom) IS NULL AS intersection_only_nulls
FROM generate_series(1, 3);

-- one shape only
SELECT query, e.*
FROM (VALUES
	('SELECT bloom_union_agg(f) FROM (VALUES (bloom_empty(0.01, 100)), (NULL), (bloom_empty(0.01, 101))) AS v(f)'),
	('SELECT bloom_intersection_agg(f) FROM (VALUES (bloom_empty_mk(64, 3)), (bloom_empty_mk(64, 4))) AS v(f)')
) AS v(query), LATERAL error_of(query) AS e;
SELECT bloom_union_agg(f) FROM (VALUES (bloom_empty(0.01, 100)), (NULL), (bloom_empty(0.01, 101))) AS v(f);

--
-- Window aggregates: the final function leaves the state alone, so each row
-- sees the filter of the rows so far
--
SELECT x, round(bloom_cardinality(f)::numeric, 1) AS cardinality,
	bloom_contains(f, x) AS has_x, bloom_contains(f, 1) AS has_first, bloom_contains(f, 11) AS has_11,
	f = (SELECT bloom_agg(y, 0.01, 100) FROM generate_series(1, x) AS y) AS same_as_plain
FROM (SELECT x, bloom_agg(x, 0.01, 100) OVER (ORDER BY x) AS f FROM generate_series(1, 10) AS x) AS s;

-- a moving frame restarts the aggregate; an empty frame has no rows and no
-- aggregate call to take the shape from, so gives NULL
SELECT x, bloom_contains(f, x) AS has_x, bloom_contains(f, x - 1) AS has_previous,
	bloom_contains(f, x - 2) AS has_second_previous,
	f = (SELECT bloom_agg(y, 0.01, 100) FROM generate_series(greatest(x - 1, 1), x) AS y) AS same_as_frame,
	e IS NULL AS empty_frame_null
FROM (SELECT x,
		bloom_agg(x, 0.01, 100) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS f,
		bloom_agg(x, 0.01, 100) OVER (ORDER BY x ROWS BETWEEN 1 FOLLOWING AND 1 FOLLOWING) AS e
	  FROM generate_series(1, 5) AS x) AS s;

SELECT g, round(bloom_cardinality(u)) AS union_cardinality,
	u = (SELECT bloom_union_agg(f) FROM agg_filters AS a WHERE a.g <= s.g) AS union_same_as_plain,
	i = (SELECT bloom_intersection_agg(f) FROM agg_filters AS a WHERE a.g <= s.g)
		AS intersection_same_as_plain
FROM (SELECT g, bloom_union_agg(f) OVER (ORDER BY g) AS u,
		bloom_intersection_agg(f) OVER (ORDER BY g) AS i
	  FROM agg_filters WHERE g < 5) AS s;

--
-- Parallel aggregation gives the same bits as serial aggregation
--
CREATE TABLE agg_rows AS SELECT i AS x, i % 10 AS g FROM generate_series(1, 200000) AS i;
CREATE TABLE agg_many_filters AS
SELECT i % 4000 AS g, bloom_agg(i, 0.01, 1000) AS f FROM generate_series(1, 200000) AS i GROUP BY 1;
ANALYZE agg_rows, agg_many_filters;

SET max_parallel_workers_per_gather = 0;
CREATE TABLE agg_serial AS SELECT bloom_agg(x, 0.01, 200000) AS f FROM agg_rows;
CREATE TABLE agg_serial_setops AS
SELECT bloom_union_agg(f) AS u, bloom_intersection_agg(f) AS i FROM agg_many_filters;
CREATE TABLE agg_serial_groups AS SELECT g, bloom_agg(x, 0.01, 20000) AS f FROM agg_rows GROUP BY g;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) CREATE TABLE agg_parallel AS SELECT bloom_agg(x, 0.01, 200000) AS f FROM agg_rows;
CREATE TABLE agg_parallel AS SELECT bloom_agg(x, 0.01, 200000) AS f FROM agg_rows;
EXPLAIN (COSTS OFF) CREATE TABLE agg_parallel_setops AS
SELECT bloom_union_agg(f) AS u, bloom_intersection_agg(f) AS i FROM agg_many_filters;
CREATE TABLE agg_parallel_setops AS
SELECT bloom_union_agg(f) AS u, bloom_intersection_agg(f) AS i FROM agg_many_filters;
EXPLAIN (COSTS OFF) CREATE TABLE agg_parallel_groups AS
SELECT g, bloom_agg(x, 0.01, 20000) AS f FROM agg_rows GROUP BY g;
CREATE TABLE agg_parallel_groups AS SELECT g, bloom_agg(x, 0.01, 20000) AS f FROM agg_rows GROUP BY g;

SELECT s.f = p.f AS bloom_agg_same, bloom_cardinality(p.f) > 190000 AS filled
FROM agg_serial AS s, agg_parallel AS p;
SELECT s.u = p.u AS union_same, s.i = p.i AS intersection_same
FROM agg_serial_setops AS s, agg_parallel_setops AS p;
SELECT count(*) AS groups, count(*) FILTER (WHERE s.f = p.f) AS same
FROM agg_serial_groups AS s JOIN agg_parallel_groups AS p USING (g);

-- no rows in any worker: still the empty filter of the requested shape
EXPLAIN (COSTS OFF) SELECT bloom_agg(x, 0.01, 200000) FROM agg_rows WHERE x < 0;
SELECT bloom_agg(x, 0.01, 200000) = bloom_empty(0.01, 200000) AS parallel_no_rows_empty
FROM agg_rows WHERE x < 0;

--
-- Shapes are checked in the combine functions too.  With partitionwise
-- aggregation each partition has its own partial aggregate; below, each
-- partition is of one shape (or one request), so the two only meet in the
-- combine function, which raises the same error as the transition function.
--
CREATE TABLE agg_parts (part int, x int, p float8, f bloom) PARTITION BY LIST (part);
CREATE TABLE agg_parts_1 PARTITION OF agg_parts FOR VALUES IN (1);
CREATE TABLE agg_parts_2 PARTITION OF agg_parts FOR VALUES IN (2);
INSERT INTO agg_parts
SELECT 1, i, 0.01, bloom_add(bloom_empty(0.01, 100), i) FROM generate_series(1, 1000) AS i
UNION ALL
SELECT 2, i, 0.010000001, bloom_add(bloom_empty(0.01, 101), i) FROM generate_series(1001, 2000) AS i;
ANALYZE agg_parts;
CREATE TABLE agg_parts_queries (query text);
INSERT INTO agg_parts_queries VALUES
	('SELECT bloom_union_agg(f) FROM agg_parts'),
	('SELECT bloom_intersection_agg(f) FROM agg_parts'),
	('SELECT bloom_agg(x, p, 100) FROM agg_parts');

SET enable_partitionwise_aggregate = on;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT bloom_union_agg(f) FROM agg_parts;
-- each partition alone is fine
SELECT part, bloom_info(bloom_union_agg(f)) IS NOT NULL AS ok,
	bloom_info(bloom_intersection_agg(f)) IS NOT NULL AS intersection_ok,
	bloom_info(bloom_agg(x, p, 100)) IS NOT NULL AS bloom_agg_ok
FROM agg_parts GROUP BY part ORDER BY part;
SELECT query, e.* FROM agg_parts_queries, LATERAL error_of(query) AS e;

-- the same in parallel, where the partial aggregates run in the workers
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_intersection_agg(f) FROM agg_parts;
SELECT query, e.* FROM agg_parts_queries, LATERAL error_of(query) AS e;

-- and without partitionwise aggregation, the transition function raises them
SET enable_partitionwise_aggregate = off;
SET max_parallel_workers_per_gather = 0;
SELECT query, e.* FROM agg_parts_queries, LATERAL error_of(query) AS e;
RESET enable_partitionwise_aggregate;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

--
-- False-positive rate.  100000 members (1..100000) at p = 0.01 give m =
-- 958506, k = 7; the theoretical rate is p0 = (1 - e^(-kn/m))^k = 0.010035.
-- Over N = 200000 non-members (100001..300000) the number of false positives
-- is binomial: mean N p0 = 2007, standard deviation sqrt(N p0 (1 - p0)) =
-- 44.6.  The check allows 6 standard deviations (1740 to 2275).
--
CREATE TABLE agg_members AS SELECT bloom_agg(i, 0.01, 100000) AS f FROM generate_series(1, 100000) AS i;
SELECT m, k, round(((1 - exp(-k * 100000.0 / m)) ^ k)::numeric, 5) AS theoretical_rate
FROM agg_members, LATERAL bloom_info(f);
SELECT count(*) FILTER (WHERE i <= 100000 AND NOT bloom_contains(f, i)) AS false_negatives,
	abs(count(*) FILTER (WHERE i > 100000 AND bloom_contains(f, i)) - 200000 * p0)
		<= 6 * sqrt(200000 * p0 * (1 - p0)) AS false_positives_within_6_sd
FROM agg_members, LATERAL bloom_info(f) AS info,
	LATERAL (SELECT (1 - exp(-info.k * 100000.0 / info.m)) ^ info.k AS p0) AS theory,
	generate_series(1, 300000) AS i
GROUP BY p0;

DROP TABLE agg_request, agg_filters, agg_rows, agg_many_filters, agg_serial, agg_serial_setops,
	agg_serial_groups, agg_parallel, agg_parallel_setops, agg_parallel_groups, agg_parts, agg_parts_queries, agg_members;
