--
-- Self-sizing aggregation: bloom_agg(value) (false-positive rate 0.01) and
-- bloom_agg(value, false_positive_rate), which need no capacity, and
-- bloom_empty() with its defaults.
--
-- k = round(log2(1/p)) (7 at 0.01); m is chosen at the end for the number n
-- of distinct values aggregated: the smallest candidate whose filter has
-- (X/m)^k <= (1 - delta) p, delta = min(0.1, 3 sqrt((1 - p) / (100000 p)))
-- (0.0944 at p = 0.01, 0.1 at 0.001, 0.0285 at 0.1).  Up to 2^17 = 131072
-- distinct values the state holds their hashes (candidates m + m/64 apart);
-- past that, a sketch of 15 * 2^J bits folded to a divisor at the end.
--

-- bloom_empty(): 0.01 and 10000 values
SELECT bloom_empty() = bloom_empty(0.01, 10000) AS defaults, m, k, bytes
FROM bloom_info(bloom_empty());

--
-- The false-positive rate and the size at several n.  Members are 1..n;
-- the rate is measured over the 200000 non-members n+1 .. n+200000 (at p =
-- 0.001 over 1000000).  The bound for the filter's own rate (X/m)^k is
-- 0.00906 at p = 0.01, so a measured count above 2000 of 200000 is 4
-- standard deviations away; m_opt is the formula's m, ceil(-n ln p / (ln 2)^2)
-- (what bloom_empty(p, n) gives below 2 MiB; a self-sized filter has hash
-- scheme 1 at any size), and m / m_opt must be at most 1.5.
--
CREATE TABLE autosize_cases (n int8, p float8, trials int8);
INSERT INTO autosize_cases VALUES
	(10, 0.01, 200000), (1000, 0.01, 200000), (100000, 0.01, 200000),
	(2000000, 0.01, 200000), (1000, 0.1, 200000), (100000, 0.001, 1000000);
CREATE TABLE autosize_filters AS
SELECT n, p, trials,
	CASE WHEN p = 0.01 THEN (SELECT bloom_agg(i) FROM generate_series(1, n) AS i)
		ELSE (SELECT bloom_agg(i, p) FROM generate_series(1, n) AS i) END AS f
FROM autosize_cases;

SELECT n, p, info.m, info.k, opt.m AS m_opt, round(info.m::numeric / opt.m, 3) AS m_ratio,
	info.m <= 1.5 * opt.m AS within_1_5,
	round(info.false_positive_rate::numeric, 5) AS own_rate,
	false_positives, trials, round(false_positives::numeric / trials, 5) AS measured_rate,
	false_positives <= p * trials AS target_held
FROM autosize_filters,
	LATERAL bloom_info(f) AS info,
	LATERAL (SELECT ceil(-n * ln(p) / (ln(2) * ln(2)))::int8 AS m) AS opt,
	LATERAL (SELECT count(*) FILTER (WHERE bloom_contains(f, i)) AS false_positives
			 FROM generate_series(n + 1, n + trials) AS i) AS measured
ORDER BY p DESC, n;

-- Tiny sets: double hashing's probes coincide often in a few dozen bits,
-- so the target takes more than 1.5 times the formula's m (whose own filter
-- of 1 value, 10 bits, lets about 9% through); the target still holds
SELECT n, info.m, opt.m AS m_opt,
	count(*) FILTER (WHERE bloom_contains(f, i)) AS false_positives,
	count(*) FILTER (WHERE bloom_contains(f, i)) <= 0.01 * 200000 AS target_held
FROM generate_series(1, 4) AS n,
	LATERAL (SELECT bloom_agg(j) AS f FROM generate_series(1, n) AS j) AS s,
	LATERAL bloom_info(f) AS info,
	LATERAL bloom_info(bloom_empty(0.01, n)) AS opt,
	generate_series(1000001, 1200000) AS i
GROUP BY n, info.m, opt.m ORDER BY n;

-- no false negatives, among all members (2,000,000 of them in the sketch
-- phase, where the fold picks the size)
SELECT n, p, (SELECT count(*) FILTER (WHERE NOT bloom_contains(f, i))
			  FROM generate_series(1, n) AS i)
		AS false_negatives
FROM autosize_filters ORDER BY p DESC, n;

-- the same bytes on every machine, little- or big-endian, whatever its
-- floating point: the binary form's md5, as computed on x86-64
SELECT n, p, md5(bloom_send(f)) AS binary_md5 FROM autosize_filters ORDER BY p DESC, n;

--
-- The result is an ordinary filter: the bits bloom_add sets at its m and k,
-- in any order, and it works with every function and operator
--
SELECT f = (SELECT bloom_union_agg(bloom_add(bloom_empty_mk(info.m, info.k), i))
			FROM generate_series(1, 1000) AS i) AS same_as_bloom_add,
	f = (SELECT bloom_agg(i) FROM (SELECT i FROM generate_series(1, 1000) AS i ORDER BY i DESC) AS r)
		AS order_independent,
	f @> 500 AS contains_op, 500 <@ f AS contained_op, bloom_contains(f, 500::numeric) AS numeric_500,
	round(bloom_cardinality(f)) AS cardinality,
	f = f::text::bloom AS text_round_trip
FROM autosize_filters, LATERAL bloom_info(f) AS info
WHERE n = 1000 AND p = 0.01;
SELECT bloom_agg(w) = bloom_add(bloom_add(bloom_empty_mk(info.m, info.k), 'apple'::text), 'pear'::text)
		AS text_values
FROM (VALUES ('apple'), ('pear'), ('apple')) AS v(w),
	LATERAL bloom_info((SELECT bloom_agg(w) FROM (VALUES ('apple'), ('pear')) AS v(w))) AS info
GROUP BY info.m, info.k;

--
-- Duplicates count once: in the exact phase and in the sketch
--
SELECT (SELECT bloom_agg(i % 1000) FROM generate_series(1, 100000) AS i) =
		(SELECT bloom_agg(i) FROM generate_series(0, 999) AS i) AS exact_duplicates,
	(SELECT bloom_agg(i % 150000) FROM generate_series(1, 450000) AS i) =
		(SELECT bloom_agg(i) FROM generate_series(0, 149999) AS i) AS sketch_duplicates;

--
-- NULLs are skipped; only NULLs, or no rows, give the empty filter of the
-- optimal size for one value (at a constant rate; NULL for a column rate)
--
SELECT bloom_agg(x) = bloom_agg(x) FILTER (WHERE x IS NOT NULL) AS nulls_skipped,
	bloom_agg(x) FILTER (WHERE x IS NULL) = bloom_empty(0.01, 1) AS only_nulls_empty,
	bloom_agg(x) FILTER (WHERE false) = bloom_empty(0.01, 1) AS no_rows_empty,
	bloom_agg(x, 0.1) FILTER (WHERE false) = bloom_empty(0.1, 1) AS no_rows_rate_empty
FROM (VALUES (1), (NULL), (2), (NULL)) AS v(x);
SELECT m, k, bits_set FROM bloom_info((SELECT bloom_agg(i) FROM generate_series(1, 0) AS i));
CREATE TABLE autosize_rate (p float8);
INSERT INTO autosize_rate VALUES (0.01);
SELECT bloom_agg(i, p) IS NULL AS no_rows_column_rate
FROM autosize_rate, generate_series(1, 0) AS i;
SELECT bloom_agg(i, p) = (SELECT bloom_agg(i) FROM generate_series(1, 10) AS i) AS rows_column_rate
FROM autosize_rate, generate_series(1, 10) AS i;

--
-- Errors: the rate is checked on the first row, even when its value is
-- NULL, and every later row must repeat it
--
SELECT query, e.*
FROM (VALUES
	('SELECT bloom_agg(x, 0) FROM (VALUES (1)) AS v(x)'),
	('SELECT bloom_agg(x, 1) FROM (VALUES (1)) AS v(x)'),
	('SELECT bloom_agg(x, -0.5) FROM (VALUES (NULL::int)) AS v(x)'),
	('SELECT bloom_agg(x, ''NaN'') FROM (VALUES (1)) AS v(x)'),
	('SELECT bloom_agg(x, 1e-25) FROM (VALUES (1)) AS v(x)'),
	('SELECT bloom_agg(x, NULL) FROM (VALUES (1)) AS v(x)'),
	('SELECT bloom_agg(x, p) FROM (VALUES (1, 0.01), (2, 0.02)) AS v(x, p)'),
	('SELECT bloom_agg(x, 0) FROM (VALUES (1)) AS v(x) WHERE false'),
	-- double hashing's floor: even one value would need more than M bits
	('SELECT bloom_agg(x, 1e-19) FROM (VALUES (1)) AS v(x)')
) AS v(query), LATERAL error_of(query) AS e;

--
-- Two self-sized filters of the same shape combine like any others: 1001..2000
-- and 2001..3000 both get m = 9987; their union is the filter of 1001..3000
-- at that shape, and two sketch-phase filters of 200000 values each (m =
-- 1966080) union to a filter that contains all 400000
--
SELECT a.m = b.m AND a.k = b.k AS same_shape, a.m,
	(SELECT bloom_agg(i) FROM generate_series(1001, 2000) AS i) |
		(SELECT bloom_agg(i) FROM generate_series(2001, 3000) AS i) =
		(SELECT bloom_union_agg(bloom_add(bloom_empty_mk(a.m, a.k), i)) FROM generate_series(1001, 3000) AS i)
		AS union_exact
FROM bloom_info((SELECT bloom_agg(i) FROM generate_series(1001, 2000) AS i)) AS a,
	bloom_info((SELECT bloom_agg(i) FROM generate_series(2001, 3000) AS i)) AS b;
CREATE TABLE autosize_halves AS
SELECT a, b, a | b AS u
FROM (SELECT (SELECT bloom_agg(i) FROM generate_series(1, 200000) AS i) AS a,
		(SELECT bloom_agg(i) FROM generate_series(200001, 400000) AS i) AS b) AS s;
SELECT (bloom_info(a)).m AS a_m, (bloom_info(b)).m AS b_m,
	(SELECT count(*) FILTER (WHERE bloom_contains(u, i)) FROM generate_series(1, 400000) AS i)
		AS union_contains,
	abs(bloom_union_cardinality(a, b) - 400000) < 4000 AS union_cardinality_within_1pct
FROM autosize_halves;
SELECT md5(bloom_send(u)) AS union_binary_md5 FROM autosize_halves;

--
-- Window aggregates: the final function leaves the state alone
--
SELECT x, f = (SELECT bloom_agg(y) FROM generate_series(1, x) AS y) AS same_as_plain,
	bloom_contains(f, x) AS has_x, bloom_contains(f, 1) AS has_first
FROM (SELECT x, bloom_agg(x) OVER (ORDER BY x) AS f FROM generate_series(1, 8) AS x) AS s;
SELECT x, f = (SELECT bloom_agg(y, 0.1) FROM generate_series(greatest(x - 1, 1), x) AS y) AS same_as_frame,
	e IS NULL AS empty_frame_null
FROM (SELECT x,
		bloom_agg(x, 0.1) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS f,
		bloom_agg(x, 0.1) OVER (ORDER BY x ROWS BETWEEN 1 FOLLOWING AND 1 FOLLOWING) AS e
	  FROM generate_series(1, 4) AS x) AS s;
-- a sketch-phase state in a window: one frame, the whole partition
SELECT count(*) AS rows_compared,
	bool_and(f = (SELECT bloom_agg(i) FROM generate_series(1, 140000) AS i)) AS same_as_plain
FROM (SELECT i, bloom_agg(i) OVER () AS f FROM generate_series(1, 140000) AS i) AS s
WHERE i % 20000 = 0;

--
-- Parallel aggregation gives the same bits as serial aggregation: all
-- partial states exact (100000 rows), exact partial states whose union
-- passes 2^17 in the combine function (200000), sketch partial states
-- (600000), and groups in either phase
--
CREATE TABLE autosize_rows AS
SELECT i AS x, i % 7 AS g, i % 2 AS h FROM generate_series(1, 600000) AS i;
ANALYZE autosize_rows;
CREATE TABLE autosize_queries (name text, query text);
INSERT INTO autosize_queries VALUES
	('exact', 'SELECT 0 AS g, bloom_agg(x) AS f FROM autosize_rows WHERE x <= 100000'),
	('crossing', 'SELECT 0 AS g, bloom_agg(x) AS f FROM autosize_rows WHERE x <= 200000'),
	('sketch', 'SELECT 0 AS g, bloom_agg(x, 0.05) AS f FROM autosize_rows'),
	('exact groups', 'SELECT g, bloom_agg(x) AS f FROM autosize_rows WHERE x <= 200000 GROUP BY g'),
	('sketch groups', 'SELECT h AS g, bloom_agg(x, 0.05) AS f FROM autosize_rows GROUP BY h'),
	('no rows', 'SELECT 0 AS g, bloom_agg(x) AS f FROM autosize_rows WHERE x < 0'),
	('no rows, rate', 'SELECT 0 AS g, bloom_agg(x, 0.05) AS f FROM autosize_rows WHERE x < 0');
CREATE TABLE autosize_results (name text, plan text, g int8, f bloom);
CREATE FUNCTION autosize_run(plan text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	q record;
BEGIN
	FOR q IN SELECT * FROM autosize_queries LOOP
		EXECUTE format('INSERT INTO autosize_results SELECT %L, %L, g, f FROM (%s) AS s',
					   q.name, plan, q.query);
	END LOOP;
END
$$;

SET max_parallel_workers_per_gather = 0;
SELECT autosize_run('serial');
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
-- The merge of partial states is costed (sql/bloomfilter--1.1--1.2.sql):
-- even with workers free, a table this small is aggregated in one process,
-- while bloom_agg with a capacity, whose states are cheap to merge, is split.
EXPLAIN (COSTS OFF) SELECT bloom_agg(x) FROM autosize_rows WHERE x <= 200000;
EXPLAIN (COSTS OFF) SELECT bloom_agg(x, 0.01, 1000) FROM autosize_rows WHERE x <= 200000;
SELECT p.proname, p.procost > 1 AS costed
FROM pg_proc AS p JOIN pg_aggregate AS a ON p.oid IN (a.aggcombinefn, a.aggserialfn, a.aggdeserialfn)
WHERE a.aggfnoid = 'bloom_agg(anyelement)'::regprocedure
ORDER BY 1;
-- With the merge costed as before 1.2, partial aggregation: serial and
-- parallel must agree below.
ALTER FUNCTION bloom_autoagg_combinefn(internal, internal) COST 1;
ALTER FUNCTION bloom_autoagg_deserialfn(bytea, internal) COST 1;
ALTER FUNCTION bloom_autoagg_serialfn(internal) COST 1;
EXPLAIN (COSTS OFF) SELECT bloom_agg(x) FROM autosize_rows WHERE x <= 200000;
EXPLAIN (COSTS OFF) SELECT g, bloom_agg(x) AS f FROM autosize_rows WHERE x <= 200000 GROUP BY g;
SELECT autosize_run('parallel');
ALTER FUNCTION bloom_autoagg_combinefn(internal, internal) COST 24000000;
ALTER FUNCTION bloom_autoagg_deserialfn(bytea, internal) COST 6000000;
ALTER FUNCTION bloom_autoagg_serialfn(internal) COST 9000000;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

SELECT s.name, count(*) AS groups, count(*) FILTER (WHERE s.f = p.f) AS same,
	min((bloom_info(s.f)).m) AS min_m, max((bloom_info(s.f)).m) AS max_m
FROM autosize_results AS s JOIN autosize_results AS p USING (name, g)
WHERE s.plan = 'serial' AND p.plan = 'parallel'
GROUP BY s.name ORDER BY s.name;

DROP TABLE autosize_cases, autosize_filters, autosize_rate, autosize_halves, autosize_rows, autosize_queries,
	autosize_results;
DROP FUNCTION autosize_run(text);
