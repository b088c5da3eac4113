-- bench/cases.sql: what "make bench" measures.  One row per comparison:
-- ratio = median(numerator) / median(denominator), both measured in the same
-- run, interleaved.  To add a measurement, add a row (and, if it needs data,
-- a table in setup.sql).  target_max: the ratio should not exceed it.
-- requires: a query that must return true before the case runs (a missing
-- filter would make bloom_contains, being STRICT, return NULL without ever
-- being called, and the case would time nothing).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

CREATE TABLE bench_case (
	id         text PRIMARY KEY,   -- short name; sorts the report
	what       text NOT NULL,      -- one line for the report
	numerator   text NOT NULL,     -- SQL, the thing measured
	denominator text NOT NULL,     -- SQL, what it is measured against
	target_max float8,             -- NULL: no target yet
	requires   text                -- NULL: nothing to check
);

INSERT INTO bench_case VALUES
('a', 'bloom_contains over big / floor: scan calling hashint8',
 $$SELECT count(*) FROM big WHERE bloom_contains((SELECT f FROM filters WHERE id = 1), big.id)$$,
 $$SELECT count(*) FROM big WHERE hashint8(id) <> 0$$,
 1.5,   -- issue 2; 1.15 later
 $$SELECT count(*) = 1 FROM filters WHERE id = 1 AND f IS NOT NULL$$),
('b', 'hash semi-join big IN small / prefilter (a)',
 $$SELECT count(*) FROM big WHERE id IN (SELECT id FROM small)$$,
 $$SELECT count(*) FROM big WHERE bloom_contains((SELECT f FROM filters WHERE id = 1), big.id)$$,
 NULL,
 $$SELECT count(*) = 1 FROM filters WHERE id = 1 AND f IS NOT NULL$$),
('c', 'bloom_agg(id, 0.01, 1e7) over big / hll_add_agg',
 $$SELECT bloom_agg(id, 0.01, 10000000) IS NOT NULL FROM big$$,
 $$SELECT hll_add_agg(hll_hash_bigint(id)) IS NOT NULL FROM big$$,
 NULL,
 NULL),
('d', 'bloom_agg(id) self-sized over big / bloom_agg(id, 0.01, 1e7)',
 $$SELECT bloom_agg(id) IS NOT NULL FROM big$$,
 $$SELECT bloom_agg(id, 0.01, 10000000) IS NOT NULL FROM big$$,
 NULL,
 NULL);
