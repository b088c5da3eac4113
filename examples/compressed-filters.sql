-- examples/compressed-filters.sql: do compressed Bloom filters pay here?
--
-- Mitzenmacher (2002, "Compressed Bloom filters") observed that a filter
-- sent over a network can be made larger and sparser (fewer probes, more
-- bits) and then compressed: at the same false-positive rate it travels in
-- fewer bytes than the optimal filter, whose bits look random and do not
-- compress.  That needs an entropy coder (arithmetic coding in the paper).
-- PostgreSQL stores values with pglz or lz4, which find repeated byte
-- strings: they do not come near the entropy of a sparse random bit array.
-- This example measures both on a table column (the bloom type stores
-- filters uncompressed, STORAGE external; a column can ask for compression
-- with ALTER TABLE ... SET STORAGE extended).
--
-- What it shows, and checks at the end, for 10,000 values:
--   - the optimal filter at 1% (m = 95,851 bits, k = 7, half its bits set)
--     does not shrink under pglz or lz4;
--   - a sparse filter of the same rate (k = 1, m = 1,000,000 bits) shrinks,
--     but under either compressor stays larger than the optimal filter
--     uncompressed: so a compressed variant would not pay with the
--     compressors PostgreSQL has, and the extension does not offer one
--     (an entropy coder would get the sparse one below the optimal one:
--     entropy_bytes, m H(X/m) / 8, says by how much).
--
-- Self-contained and deterministic; temporary tables only.
-- Run: psql -v ON_ERROR_STOP=1 -f examples/compressed-filters.sql

\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = notice;
CREATE EXTENSION IF NOT EXISTS bloomfilter;

CREATE TEMP TABLE variant (name text, method text, f bloom);
ALTER TABLE variant ALTER COLUMN f SET STORAGE extended;

-- The two filters of 10,000 values.
CREATE TEMP TABLE built AS
SELECT 'optimal (k = 7)' AS name, bloom_agg(g, 0.01, 10000) AS f FROM generate_series(1, 10000) AS g
UNION ALL
SELECT 'sparse (k = 1)', bloom_add_all(bloom_empty_mk(1000000, 1), array_agg(g)) FROM generate_series(1, 10000) AS g;

-- Each stored under each compressor (SET default_toast_compression).
SET default_toast_compression = pglz;
INSERT INTO variant SELECT name, 'pglz', f FROM built;
SET default_toast_compression = lz4;
INSERT INTO variant SELECT name, 'lz4', f FROM built;
RESET default_toast_compression;

CREATE TEMP TABLE measured AS
SELECT v.name, v.method, pg_column_size(b.f) AS raw_bytes,
	pg_column_size(v.f) AS stored_bytes,
	pg_column_compression(v.f) AS compressed_with,
	round((bloom_info(v.f)).false_positive_rate::numeric, 4) AS rate,
	-- what an entropy coder could reach: m H(X/m) bits
	(SELECT ceil(i.m * -(q * log(2, q) + (1 - q) * log(2, 1 - q)) / 8)
	 FROM bloom_info(v.f) AS i, LATERAL (SELECT i.fill_ratio::numeric AS q) AS x) AS entropy_bytes
FROM variant v JOIN built b USING (name);
SELECT * FROM measured ORDER BY name DESC, method;

DO $$
DECLARE
	optimal_raw int := (SELECT min(raw_bytes) FROM measured WHERE name LIKE 'optimal%');
	optimal_stored int := (SELECT min(stored_bytes) FROM measured WHERE name LIKE 'optimal%');
	sparse_best int := (SELECT min(stored_bytes) FROM measured WHERE name LIKE 'sparse%');
	sparse_raw int := (SELECT min(raw_bytes) FROM measured WHERE name LIKE 'sparse%');
	rate_gap float8 := (SELECT max(rate) - min(rate) FROM measured);
BEGIN
	IF rate_gap > 0.005 THEN
		RAISE EXCEPTION 'check failed: the two filters do not have about the same rate (gap %)', rate_gap;
	END IF;
	IF optimal_stored < 0.95 * optimal_raw THEN
		RAISE EXCEPTION 'check failed: the optimal filter shrank to % of % bytes', optimal_stored, optimal_raw;
	END IF;
	IF sparse_best >= sparse_raw THEN
		RAISE EXCEPTION 'check failed: the sparse filter did not shrink (% bytes)', sparse_best;
	END IF;
	IF sparse_best <= optimal_raw THEN
		RAISE EXCEPTION 'check failed: the compressed sparse filter (% bytes) beats the optimal one (% bytes): compressed filters would pay',
			sparse_best, optimal_raw;
	END IF;
	RAISE NOTICE 'checks passed: optimal % bytes stored as %; sparse % bytes compressed to % at best',
		optimal_raw, optimal_stored, sparse_raw, sparse_best;
END $$;
