-- bench/cases.sql: what "make bench" measures.
--
-- Ratio cases (unit 'ratio'): numerator and denominator are SQL, both
-- measured in the same run, interleaved; ratio = median(numerator) /
-- median(denominator).  Absolute cases (unit 'ms' or 'MB/s') have no SQL
-- here: bench/absolute.sql times them on filters held in memory, and
-- megabytes turns a time into a throughput.  target_max / target_min: the
-- figure should not exceed / fall below it (NULL: no target).  requires: a
-- query that must return true before the case runs (a missing filter would
-- make bloom_contains, being STRICT, return NULL without ever being called,
-- and the case would time nothing).  numerator_settings: settings the
-- numerator runs with, 'name=value' pairs separated by spaces (the server's
-- own otherwise: make bench runs it with max_parallel_workers_per_gather = 0,
-- scripts/run.sh), so a parallel plan can be timed against a serial one.
-- To add a measurement, add a row (and, if it needs data, a table in
-- setup.sql).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

\ir case_table.sql

INSERT INTO bench_case (id, what, numerator, denominator, target_max, requires) VALUES
('a', 'bloom_contains, stored 1M-item filter, over big / floor: scan calling hashint8',
 $$SELECT count(*) FROM big WHERE bloom_contains((SELECT f FROM filters WHERE id = 1), big.id)$$,
 $$SELECT count(*) FROM big WHERE hashint8(id) <> 0$$,
 1.15,
 $$SELECT count(*) = 1 FROM filters WHERE id = 1 AND f IS NOT NULL$$),
('c', 'bloom_agg(id, 0.01, 1e7) over big / hll_add_agg(hll_hash_bigint(id))',
 $$SELECT bloom_agg(id, 0.01, 10000000) IS NOT NULL FROM big$$,
 $$SELECT hll_add_agg(hll_hash_bigint(id)) IS NOT NULL FROM big$$,
 1.0,
 NULL);

INSERT INTO bench_case (id, what, numerator, denominator, target_min, requires) VALUES
('b', 'hash semi-join big IN small / prefilter (a)',
 $$SELECT count(*) FROM big WHERE id IN (SELECT id FROM small)$$,
 $$SELECT count(*) FROM big WHERE bloom_contains((SELECT f FROM filters WHERE id = 1), big.id)$$,
 3.0,
 $$SELECT count(*) = 1 FROM filters WHERE id = 1 AND f IS NOT NULL$$);

-- Absolute cases on the two 10M-item filters (ids 2 and 3, 12 MB each),
-- held detoasted in PL/pgSQL variables so that reading TOAST is not timed.
INSERT INTO bench_case (id, what, unit, target_max, target_min, megabytes, requires) VALUES
('d1', 'bloom_union (|) of two 10M-item filters (12 MB each)', 'ms', 10, NULL, NULL,
 $$SELECT count(*) = 2 FROM filters WHERE id IN (2, 3)$$),
('d2', 'bloom_union_cardinality of the same two filters', 'ms', 10, NULL, NULL,
 $$SELECT count(*) = 2 FROM filters WHERE id IN (2, 3)$$),
('e1', 'text output (bloom_out) of a 10M-item filter, MB of filter per second', 'MB/s', NULL, 200,
 NULL, $$SELECT count(*) = 1 FROM filters WHERE id = 2$$),
('e2', 'text input (bloom_in) of the same filter, MB of filter per second', 'MB/s', NULL, 200,
 NULL, $$SELECT count(*) = 1 FROM filters WHERE id = 2$$);

-- The self-sized aggregate against the one told its capacity.
INSERT INTO bench_case (id, what, numerator, denominator, target_max) VALUES
('g', 'bloom_agg(id) self-sized over big / bloom_agg(id, 0.01, 1e7)',
 $$SELECT bloom_agg(id) IS NOT NULL FROM big$$,
 $$SELECT bloom_agg(id, 0.01, 10000000) IS NOT NULL FROM big$$,
 1.3);

-- Parallel scaling: each aggregate with 2 workers (and the leader) over the
-- same aggregate serial.  Targets: 1.7 times faster for the fixed capacity,
-- as hll_add_agg (h3) is; 1.5 times for the self-sized one (h2).  The
-- self-sized aggregate's merge is costed (sql/bloomfilter--1.1--1.2.sql), so
-- over big's 10M rows the planner keeps it serial even with 2 workers
-- allowed (sql/autosize.sql checks such a choice): h2 makes every
-- operator nearly free for its numerator so that the planner takes the
-- 2-worker plan anyway, which is what h2 times.
INSERT INTO bench_case (id, what, numerator, denominator, target_max, numerator_settings) VALUES
('h1', 'bloom_agg(id, 0.01, 1e7) over big, 2 workers / serial',
 $$SELECT bloom_agg(id, 0.01, 10000000) IS NOT NULL FROM big$$,
 $$SELECT bloom_agg(id, 0.01, 10000000) IS NOT NULL FROM big$$,
 0.59, 'max_parallel_workers_per_gather=2'),
('h2', 'bloom_agg(id) self-sized over big, 2 workers (forced) / serial',
 $$SELECT bloom_agg(id) IS NOT NULL FROM big$$,
 $$SELECT bloom_agg(id) IS NOT NULL FROM big$$,
 0.67, 'max_parallel_workers_per_gather=2 cpu_operator_cost=0.0000001'),
('h3', 'hll_add_agg(hll_hash_bigint(id)) over big, 2 workers / serial (no target: the reference)',
 $$SELECT hll_add_agg(hll_hash_bigint(id)) IS NOT NULL FROM big$$,
 $$SELECT hll_add_agg(hll_hash_bigint(id)) IS NOT NULL FROM big$$,
 NULL, 'max_parallel_workers_per_gather=2');

-- The forms Citus splits (1.3), whose states are values: the workers' partial
-- states reach the leader as filters (or bloom_agg_state values) through the
-- tuple queue, with no serialize or deserialize function.  h4 and h5 are h1
-- and h2 for them; v1 and v2 what hashing with bloom_value() costs against
-- the plain aggregate, serially.
INSERT INTO bench_case (id, what, numerator, denominator, target_max, numerator_settings) VALUES
('h4', 'bloom_agg(bloom_value(id), 0.01, 1e7) over big, 2 workers / serial',
 $$SELECT bloom_agg(bloom_value(id), 0.01, 10000000) IS NOT NULL FROM big$$,
 $$SELECT bloom_agg(bloom_value(id), 0.01, 10000000) IS NOT NULL FROM big$$,
 NULL, 'max_parallel_workers_per_gather=2'),
('h5', 'bloom_agg(bloom_value(id)) self-sized over big, 2 workers (forced) / serial',
 $$SELECT bloom_agg(bloom_value(id)) IS NOT NULL FROM big$$,
 $$SELECT bloom_agg(bloom_value(id)) IS NOT NULL FROM big$$,
 NULL, 'max_parallel_workers_per_gather=2 cpu_operator_cost=0.0000001');
INSERT INTO bench_case (id, what, numerator, denominator, target_max) VALUES
('v1', 'bloom_agg(bloom_value(id), 0.01, 1e7) / bloom_agg(id, 0.01, 1e7) over big, serial',
 $$SELECT bloom_agg(bloom_value(id), 0.01, 10000000) IS NOT NULL FROM big$$,
 $$SELECT bloom_agg(id, 0.01, 10000000) IS NOT NULL FROM big$$,
 NULL),
('v2', 'bloom_agg(bloom_value(id)) / bloom_agg(id) self-sized over big, serial',
 $$SELECT bloom_agg(bloom_value(id)) IS NOT NULL FROM big$$,
 $$SELECT bloom_agg(id) IS NOT NULL FROM big$$,
 NULL);
