-- bench/sets.sql: the data and the cases of the counting and scalable
-- filters (issue 27, item 5), run by bench/sets.sh in a database of their
-- own with bench/measure.sql and bench/report.sql, as bench/cases.sql's.
-- Each case times one of the new types against bloom on the same values,
-- with the same shape (p, n) and through the same SQL path, in the same run.
--
--   sets_values(id int8)   1,000,000 rows, uniform in [0, 1e8]
--   sets_probes(id int8)   2,000,000 rows: sets_values' and as many absent
--                          values (past 2e8), in hash order
--   sets_arrays(a int8[])  sets_values' values as one array
--   sets_filters           'big': bloom_agg and counting_bloom_agg of
--                          sets_values at (0.01, 1e6) (1.2 MB and 4.8 MB);
--                          'small': of its first 10,000 values at
--                          (0.01, 1e4) (12 kB and 48 kB, in cache)
--   scalable_bench         1 to 100,000 in scalable_bloom_empty(0.01, 1000)
--                          (100 times its initial capacity: 7 stages) and
--                          in bloom_empty(0.01, 100000), the single optimal
--                          filter for the same count
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

CREATE EXTENSION bloomfilter;

CREATE UNLOGGED TABLE sets_values AS
SELECT (hashint8extended(g, 3) & 9223372036854775807) % 100000001 AS id
FROM generate_series(1::int8, 1000000) AS g;
CREATE UNLOGGED TABLE sets_probes AS
SELECT id FROM (SELECT id FROM sets_values UNION ALL SELECT id + 200000000 FROM sets_values) AS v
ORDER BY hashint8(id);
CREATE UNLOGGED TABLE sets_arrays AS SELECT array_agg(id) AS a FROM sets_values;
VACUUM (FREEZE, ANALYZE) sets_values;
VACUUM (FREEZE, ANALYZE) sets_probes;

CREATE TABLE sets_filters (id text PRIMARY KEY, b bloom, c counting_bloom);
INSERT INTO sets_filters
SELECT 'big', bloom_agg(id, 0.01, 1000000), counting_bloom_agg(id, 0.01, 1000000) FROM sets_values;
INSERT INTO sets_filters
SELECT 'small', bloom_agg(id, 0.01, 10000), counting_bloom_agg(id, 0.01, 10000)
FROM (SELECT id FROM sets_values LIMIT 10000) AS s;

CREATE TABLE scalable_bench AS
SELECT bloom_add_all(scalable_bloom_empty(0.01, 1000), ARRAY(SELECT generate_series(1, 100000))) AS s,
	bloom_add_all(bloom_empty(0.01, 100000), ARRAY(SELECT generate_series(1, 100000))) AS b;
VACUUM ANALYZE sets_filters;
VACUUM ANALYZE scalable_bench;

\ir case_table.sql

-- Counting filters against bloom, target 1.3: adds through the aggregate
-- and through the array form, contains through @> over a table scan with
-- the stored filter from a subquery (out of line, read once per query).
INSERT INTO bench_case (id, what, numerator, denominator, target_max) VALUES
('k1', 'counting_bloom_agg(id, 0.01, 1e6) / bloom_agg(id, 0.01, 1e6), over 1M rows',
 $$SELECT counting_bloom_agg(id, 0.01, 1000000) IS NOT NULL FROM sets_values$$,
 $$SELECT bloom_agg(id, 0.01, 1000000) IS NOT NULL FROM sets_values$$,
 1.3),
('k2', 'bloom_add_all of 1M values: into counting_bloom_empty(0.01, 1e6) / into bloom_empty(0.01, 1e6)',
 $$SELECT bloom_add_all(counting_bloom_empty(0.01, 1000000), a) IS NOT NULL FROM sets_arrays$$,
 $$SELECT bloom_add_all(bloom_empty(0.01, 1000000), a) IS NOT NULL FROM sets_arrays$$,
 1.3),
('k3', '@> over 2M rows, half present: stored counting filter of 1M values (4.8 MB) / bloom (1.2 MB)',
 $$SELECT count(*) FROM sets_probes WHERE (SELECT c FROM sets_filters WHERE id = 'big') @> id$$,
 $$SELECT count(*) FROM sets_probes WHERE (SELECT b FROM sets_filters WHERE id = 'big') @> id$$,
 1.3),
('k4', '@> over 2M rows: stored counting filter of 10,000 values (48 kB) / bloom (12 kB)',
 $$SELECT count(*) FROM sets_probes WHERE (SELECT c FROM sets_filters WHERE id = 'small') @> id$$,
 $$SELECT count(*) FROM sets_probes WHERE (SELECT b FROM sets_filters WHERE id = 'small') @> id$$,
 1.3);

-- Remove against add, both on the stored counting filter of the same 1M
-- values (each query reads and copies it once): "as fast as add", read as
-- at most 1.1.
INSERT INTO bench_case (id, what, numerator, denominator, target_max) VALUES
('k5', 'counting filter of 1M values: bloom_remove_all of them / bloom_add_all of them again',
 $$SELECT bloom_remove_all(c, a) IS NOT NULL FROM sets_filters, sets_arrays WHERE id = 'big'$$,
 $$SELECT bloom_add_all(c, a) IS NOT NULL FROM sets_filters, sets_arrays WHERE id = 'big'$$,
 1.1);

-- A scalable filter at 100 times its initial capacity against the single
-- optimal filter, 1,000,000 lookups each, target 2: whole queries, as the
-- issue's target is (bench/callgrind.sh sets gives the instructions of the
-- calls alone).
INSERT INTO bench_case (id, what, numerator, denominator, target_max) VALUES
('s1', 'scalable_bloom at 100x n0 (7 stages) / bloom_empty(0.01, 1e5), 1M absent values',
 $$SELECT count(*) FROM generate_series(1000001, 2000000) AS v WHERE (SELECT s FROM scalable_bench) @> v$$,
 $$SELECT count(*) FROM generate_series(1000001, 2000000) AS v WHERE (SELECT b FROM scalable_bench) @> v$$,
 2.0),
('s2', 'scalable_bloom at 100x n0 (7 stages) / bloom_empty(0.01, 1e5), 1M present values',
 $$SELECT count(*) FROM generate_series(1, 1000000) AS v WHERE (SELECT s FROM scalable_bench) @> (v % 100000 + 1)$$,
 $$SELECT count(*) FROM generate_series(1, 1000000) AS v WHERE (SELECT b FROM scalable_bench) @> (v % 100000 + 1)$$,
 2.0);
