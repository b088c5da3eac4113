-- bench/setup.sql: the benchmark data set.  Deterministic: values come from
-- hashes of generate_series, so every run scans the same rows.
--
--   big(id int8)       10,000,000 rows, uniform in [0, 1e8]
--   small(id int8)      1,000,000 rows, uniform in [0, 1e8] (about 1% of big's rows match)
--   filters(id, f)     1: bloom_agg(id, 0.01, 1000000) over small (1.2 MB)
--                      2, 3: bloom_agg(id, 0.01, 10000000) over big, and over
--                      big shifted past its range (12 MB each)
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

CREATE EXTENSION bloomfilter;
CREATE EXTENSION hll;

-- Unlogged: the data is rebuilt on every run and WAL would only slow that.
CREATE UNLOGGED TABLE big AS
SELECT (hashint8extended(g, 1) & 9223372036854775807) % 100000001 AS id
FROM generate_series(1::int8, 10000000) AS g;

CREATE UNLOGGED TABLE small AS
SELECT (hashint8extended(g, 2) & 9223372036854775807) % 100000001 AS id
FROM generate_series(1::int8, 1000000) AS g;

-- Frozen and analyzed, so no run pays for hint bits or guesses its plan blind.
VACUUM (FREEZE, ANALYZE) big;
VACUUM (FREEZE, ANALYZE) small;

CREATE TABLE filters (id int PRIMARY KEY, f bloom);

-- Built in its own statement so that, while bloom_agg is missing, the cases
-- that do not need it can still run.
\set ON_ERROR_STOP 0
INSERT INTO filters SELECT 1, bloom_agg(id, 0.01, 1000000) FROM small;
INSERT INTO filters SELECT 2, bloom_agg(id, 0.01, 10000000) FROM big;
INSERT INTO filters SELECT 3, bloom_agg(id + 100000001, 0.01, 10000000) FROM big;
\set ON_ERROR_STOP 1
VACUUM ANALYZE filters;
