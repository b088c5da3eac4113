--
-- Lookups in stored filters by TOAST slices (src/types/slice.c).
--
-- bloom_contains, @> and <@ read a stored, uncompressed bloom or
-- counting_bloom filter (STORAGE external, the types' default) by its header
-- and the chunks holding the probed bits or counters, until a call site's
-- index scans have cost about a whole detoast; then they detoast it and keep
-- it, as every other function does.  Every answer, before and after that
-- switch, must be the whole filter's: the reference here is the same filter
-- as an inline value (a text round trip), which never goes through TOAST.
--

-- The shared buffers a query's execution touches.
CREATE FUNCTION slice_blocks(query text) RETURNS int8
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || query
		INTO plan;
	RETURN (plan -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::int8 +
		(plan -> 0 -> 'Plan' ->> 'Shared Read Blocks')::int8;
END
$$;

-- 1: scheme 1, 240 kB (120 chunks); 2: scheme 2, 2.4 MB (1,200 chunks);
-- 3: 120 bytes, inline.  Each holds 1 .. 20,000 (3: 1 .. 100).
CREATE TABLE slice_filters (id int PRIMARY KEY, f bloom);
INSERT INTO slice_filters SELECT 1, bloom_agg(i, 0.01, 200000) FROM generate_series(1, 20000) AS i;
INSERT INTO slice_filters SELECT 2, bloom_agg(i, 0.01, 2000000) FROM generate_series(1, 20000) AS i;
INSERT INTO slice_filters SELECT 3, bloom_agg(i, 0.01, 100) FROM generate_series(1, 100) AS i;
SELECT id, substr(f::text, 1, 11) AS text_prefix, (bloom_info(f)).bytes,
	pg_column_compression(f) AS compression
FROM slice_filters ORDER BY id;

--
-- Which path, by the shared buffers a query touches: one lookup reads a
-- few blocks (filter 2 has about 300); after the switch, more lookups from
-- the same call site read no more (slices alone would read 3 or more each).
--
SELECT id,
	slice_blocks(format('SELECT bloom_contains(f, 7) FROM slice_filters WHERE id = %s', id)) < 40
		AS one_lookup_reads_few_blocks,
	slice_blocks(format('SELECT count(*) FROM slice_filters, generate_series(1, 10000) AS v
		WHERE id = %s AND bloom_contains(f, v)', id))
	<= slice_blocks(format('SELECT count(*) FROM slice_filters, generate_series(1, 3000) AS v
		WHERE id = %s AND bloom_contains(f, v)', id)) + 5
		AS switched_before_3000_lookups
FROM slice_filters WHERE id IN (1, 2) ORDER BY id;

--
-- The answers: 20,000 present and 20,000 absent values against each
-- filter, from one call site per operator, across the switch.
--
WITH reference AS MATERIALIZED (SELECT id, f::text::bloom AS g FROM slice_filters)
SELECT s.id, count(*) AS lookups,
	count(*) FILTER (WHERE bloom_contains(s.f, v)) AS maybe_present,
	count(*) FILTER (WHERE bloom_contains(s.f, v) IS DISTINCT FROM bloom_contains(r.g, v)
		OR (s.f @> v) IS DISTINCT FROM bloom_contains(r.g, v)
		OR (v <@ s.f) IS DISTINCT FROM bloom_contains(r.g, v)) AS differ
FROM slice_filters AS s JOIN reference AS r USING (id), generate_series(1, 40000) AS v
GROUP BY s.id ORDER BY s.id;

-- The first lookups only, each from a new call site (by slices).
WITH reference AS MATERIALIZED (SELECT id, f::text::bloom AS g FROM slice_filters)
SELECT r.id, count(*) AS lookups,
	count(*) FILTER (WHERE (SELECT bloom_contains(f, v) FROM slice_filters WHERE id = r.id)
		IS DISTINCT FROM bloom_contains(r.g, v)) AS differ
FROM reference AS r, generate_series(19900, 20100) AS v
GROUP BY r.id ORDER BY r.id;

-- Rows alternating between the stored filters: each keeps its own count.
WITH reference AS MATERIALIZED (SELECT id, f::text::bloom AS g FROM slice_filters)
SELECT count(*) AS lookups,
	count(*) FILTER (WHERE bloom_contains(s.f, v) IS DISTINCT FROM bloom_contains(r.g, v)) AS differ
FROM generate_series(1, 40000) AS v,
	LATERAL (SELECT f FROM slice_filters WHERE id = 1 + v % 3) AS s,
	LATERAL (SELECT g FROM reference WHERE id = 1 + v % 3) AS r;

--
-- Compressed values are detoasted whole, as before: a nearly empty large
-- filter compresses, out of line (extended) and inline (main).
--
CREATE TABLE slice_compressed (id int PRIMARY KEY, f bloom);
ALTER TABLE slice_compressed ALTER COLUMN f SET STORAGE extended;
INSERT INTO slice_compressed SELECT 1, bloom_agg(i, 0.01, 1000000) FROM generate_series(1, 100) AS i;
ALTER TABLE slice_compressed ALTER COLUMN f SET STORAGE main;
INSERT INTO slice_compressed SELECT 2, bloom_agg(i, 0.01, 100000) FROM generate_series(1, 10) AS i;
SELECT id, pg_column_compression(f) IS NOT NULL AS compressed,
	pg_column_size(f) < (bloom_info(f)).bytes / 10 AS smaller
FROM slice_compressed ORDER BY id;
WITH reference AS MATERIALIZED (SELECT id, f::text::bloom AS g FROM slice_compressed)
SELECT s.id, count(*) FILTER (WHERE bloom_contains(s.f, v)) AS maybe_present,
	count(*) FILTER (WHERE bloom_contains(s.f, v) IS DISTINCT FROM bloom_contains(r.g, v)
		OR (v <@ s.f) IS DISTINCT FROM bloom_contains(r.g, v)) AS differ
FROM slice_compressed AS s JOIN reference AS r USING (id), generate_series(1, 2000) AS v
GROUP BY s.id ORDER BY s.id;

--
-- A filter of 4 MB or more that a call site keeps is copied so that its
-- bits start on a cache line (types/cache.c): a stored, uncompressed one is
-- read straight into that copy by slices of 1 MB, a compressed one is
-- detoasted first.  Filter 1 here (4.8 MB, 2,400 chunks, not a whole number
-- of 1 MB slices) is kept uncompressed, filter 2 is the same filter
-- compressed.  The reference is the filter fresh from the aggregate, which
-- never goes through TOAST; equality reads every byte of the kept copy, and
-- 40,000 lookups from one call site pass the slice budget.
--
CREATE TABLE slice_large (id int PRIMARY KEY, f bloom);
INSERT INTO slice_large SELECT 1, bloom_agg(i, 0.01, 4000000) FROM generate_series(1, 20000) AS i;
ALTER TABLE slice_large ALTER COLUMN f SET STORAGE extended;
INSERT INTO slice_large SELECT 2, f FROM slice_large WHERE id = 1;
SELECT id, (bloom_info(f)).bytes >= 4 * 1024 * 1024 AS at_least_4_mb,
	(bloom_info(f)).bytes % (1024 * 1024) <> 0 AS partial_last_slice,
	pg_column_compression(f) IS NOT NULL AS compressed
FROM slice_large ORDER BY id;
SELECT id, f = (SELECT bloom_agg(i, 0.01, 4000000) FROM generate_series(1, 20000) AS i) AS same_filter
FROM slice_large ORDER BY id;
CREATE TABLE slice_large_answers AS
SELECT v, bloom_contains(r.g, v) AS expected
FROM (SELECT bloom_agg(i, 0.01, 4000000) AS g FROM generate_series(1, 20000) AS i) AS r,
	generate_series(1, 40000) AS v;
SELECT s.id, count(*) FILTER (WHERE bloom_contains(s.f, a.v)) AS maybe_present,
	count(*) FILTER (WHERE bloom_contains(s.f, a.v) IS DISTINCT FROM a.expected
		OR (s.f @> a.v) IS DISTINCT FROM a.expected) AS differ
FROM slice_large AS s, slice_large_answers AS a
GROUP BY s.id ORDER BY s.id;
DROP TABLE slice_large_answers;
DROP TABLE slice_large;

--
-- A damaged stored value is an ERROR XX001, by slices as when read whole,
-- never a read past its end.  The values are filter 1's bytes with one
-- header field or the length broken, stored out of line uncompressed.
--
-- byteasend returns a copy of its argument: here, raw bytes between the two types.
CREATE FUNCTION slice_bytes_of(bloom) RETURNS bytea LANGUAGE internal STRICT AS 'byteasend';
CREATE FUNCTION slice_unchecked(bytea) RETURNS bloom LANGUAGE internal STRICT AS 'byteasend';
CREATE TABLE slice_damaged (what text, f bloom);
INSERT INTO slice_damaged
SELECT d.what, slice_unchecked(d.bytes)
FROM (SELECT slice_bytes_of(f) AS b FROM slice_filters WHERE id = 1) AS s,
	LATERAL (VALUES
		('format version 9', set_byte(s.b, 0, 9)),
		('hash scheme 3', set_byte(s.b, 1, 3)),
		('k = 0', set_byte(s.b, 2, 0)),
		('unknown flag', set_byte(s.b, 3, 128)),
		('m = 0', overlay(s.b PLACING '\x0000000000000000'::bytea FROM 5 FOR 8)),
		('8 bytes short', substr(s.b, 1, length(s.b) - 8)),
		('8 bytes past the end', s.b || '\x0000000000000000'::bytea),
		('undamaged', s.b)) AS d(what, bytes);
SELECT what, pg_column_compression(f) AS compression, e.*,
	(SELECT row(w.*) FROM error_detail_of(format(
		'SELECT bloom_info(f) FROM slice_damaged WHERE what = %L', what)) AS w)
	= row(e.*) AS same_as_whole
FROM slice_damaged,
	LATERAL error_detail_of(format(
		'SELECT bloom_contains(f, 7) FROM slice_damaged WHERE what = %L', what)) AS e
ORDER BY what;

DROP TABLE slice_damaged;
DROP FUNCTION slice_unchecked(bytea);
DROP FUNCTION slice_bytes_of(bloom);
DROP TABLE slice_compressed;
DROP TABLE slice_filters;

--
-- counting_bloom: the same, on its counters (4 bits each, counter i in
-- byte i / 2; a scheme 2 block is 256 bytes, often across two chunks).
-- 1: scheme 1, 960 kB (480 chunks); 2: scheme 2, 1.2 MB (616 chunks), made
-- from its text form (counting_bloom_empty takes scheme 2 only from 2 MiB of
-- bits, 8 MB of counters); 3: inline.  Each has had 1 .. 20,000 added (3:
-- 1 .. 100), 1 .. 5,000 added twice, and 15,001 .. 16,000 removed, so its
-- counters are 0, 1, 2 and more, and the removed values are absent again.
--
CREATE TABLE counting_slice_filters (id int PRIMARY KEY, f counting_bloom);
INSERT INTO counting_slice_filters
SELECT 1, counting_bloom_agg(i, 0.01, 200000)
FROM (SELECT generate_series(1, 20000) UNION ALL SELECT generate_series(1, 5000)) AS v(i);
INSERT INTO counting_slice_filters
SELECT 2, bloom_add_all(bloom_add_all(('counting_bloom:v1:h2:m2457600:k7:' ||
		repeat('A', 1638400))::counting_bloom, ARRAY(SELECT generate_series(1, 20000))),
	ARRAY(SELECT generate_series(1, 5000)));
INSERT INTO counting_slice_filters
SELECT 3, counting_bloom_agg(i, 0.01, 100) FROM generate_series(1, 100) AS i;
UPDATE counting_slice_filters
SET f = bloom_remove_all(f, ARRAY(SELECT generate_series(15001, 16000))) WHERE id IN (1, 2);
SELECT id, substr(f::text, 1, 20) AS text_prefix, (bloom_info(f)).bytes,
	(bloom_info(f)).hash_scheme, pg_column_compression(f) AS compression
FROM counting_slice_filters ORDER BY id;

--
-- Which path, by the shared buffers a query touches: reading a filter whole
-- (bloom_cardinality) touches more than 100 blocks, one lookup fewer than
-- 40; after the switch, more lookups from the same call site read no more.
--
SELECT id,
	slice_blocks(format('SELECT bloom_cardinality(f) FROM counting_slice_filters WHERE id = %s', id))
		> 100 AS whole_read_reads_many_blocks,
	slice_blocks(format('SELECT bloom_contains(f, 7) FROM counting_slice_filters WHERE id = %s', id))
		< 40 AS one_lookup_reads_few_blocks,
	slice_blocks(format('SELECT bloom_contains(f, 15500) FROM counting_slice_filters WHERE id = %s', id))
		< 40 AS one_absent_lookup_reads_few_blocks,
	slice_blocks(format('SELECT count(*) FROM counting_slice_filters, generate_series(1, 10000) AS v
		WHERE id = %s AND bloom_contains(f, v)', id))
	<= slice_blocks(format('SELECT count(*) FROM counting_slice_filters, generate_series(1, 3000) AS v
		WHERE id = %s AND bloom_contains(f, v)', id)) + 5
		AS switched_before_3000_lookups
FROM counting_slice_filters WHERE id IN (1, 2) ORDER BY id;

--
-- The answers: 40,000 values (present, twice present, removed, never
-- added) against each filter, from one call site per operator, across the
-- switch; the reference is the same filter as an inline value.
--
WITH reference AS MATERIALIZED (SELECT id, f::text::counting_bloom AS g FROM counting_slice_filters)
SELECT s.id, count(*) AS lookups,
	count(*) FILTER (WHERE bloom_contains(s.f, v)) AS maybe_present,
	count(*) FILTER (WHERE v BETWEEN 15001 AND 16000 AND bloom_contains(s.f, v)) AS removed_maybe_present,
	count(*) FILTER (WHERE bloom_contains(s.f, v) IS DISTINCT FROM bloom_contains(r.g, v)
		OR (s.f @> v) IS DISTINCT FROM bloom_contains(r.g, v)
		OR (v <@ s.f) IS DISTINCT FROM bloom_contains(r.g, v)) AS differ
FROM counting_slice_filters AS s JOIN reference AS r USING (id), generate_series(1, 40000) AS v
GROUP BY s.id ORDER BY s.id;

-- Lookups each in a query of its own, so each the first of its call site:
-- all by slices.
CREATE FUNCTION counting_slice_lookup(filter_id int, v int) RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
	answer bool;
BEGIN
	EXECUTE 'SELECT bloom_contains(f, $1) FROM counting_slice_filters WHERE id = $2'
		INTO answer USING v, filter_id;
	RETURN answer;
END
$$;
WITH reference AS MATERIALIZED (SELECT id, f::text::counting_bloom AS g FROM counting_slice_filters),
answers AS (
	SELECT r.id, v, counting_slice_lookup(r.id, v) AS sliced, bloom_contains(r.g, v) AS whole
	FROM reference AS r,
		(SELECT generate_series(4901, 5100) UNION ALL SELECT generate_series(15901, 16100)) AS s(v))
SELECT id, count(*) AS lookups, count(*) FILTER (WHERE sliced) AS maybe_present,
	count(*) FILTER (WHERE sliced IS DISTINCT FROM whole) AS differ
FROM answers GROUP BY id ORDER BY id;
DROP FUNCTION counting_slice_lookup(int, int);

-- Rows alternating between the stored filters: each keeps its own count.
WITH reference AS MATERIALIZED (SELECT id, f::text::counting_bloom AS g FROM counting_slice_filters)
SELECT count(*) AS lookups,
	count(*) FILTER (WHERE bloom_contains(s.f, v) IS DISTINCT FROM bloom_contains(r.g, v)) AS differ
FROM generate_series(1, 40000) AS v,
	LATERAL (SELECT f FROM counting_slice_filters WHERE id = 1 + v % 3) AS s,
	LATERAL (SELECT g FROM reference WHERE id = 1 + v % 3) AS r;

-- Compressed values are detoasted whole: out of line (extended) and inline (main).
CREATE TABLE counting_slice_compressed (id int PRIMARY KEY, f counting_bloom);
ALTER TABLE counting_slice_compressed ALTER COLUMN f SET STORAGE extended;
INSERT INTO counting_slice_compressed
SELECT 1, counting_bloom_agg(i, 0.01, 250000) FROM generate_series(1, 100) AS i;
ALTER TABLE counting_slice_compressed ALTER COLUMN f SET STORAGE main;
INSERT INTO counting_slice_compressed
SELECT 2, counting_bloom_agg(i, 0.01, 25000) FROM generate_series(1, 10) AS i;
SELECT id, pg_column_compression(f) IS NOT NULL AS compressed,
	pg_column_size(f) < (bloom_info(f)).bytes / 10 AS smaller
FROM counting_slice_compressed ORDER BY id;
WITH reference AS MATERIALIZED (SELECT id, f::text::counting_bloom AS g FROM counting_slice_compressed)
SELECT s.id, count(*) FILTER (WHERE bloom_contains(s.f, v)) AS maybe_present,
	count(*) FILTER (WHERE bloom_contains(s.f, v) IS DISTINCT FROM bloom_contains(r.g, v)
		OR (v <@ s.f) IS DISTINCT FROM bloom_contains(r.g, v)) AS differ
FROM counting_slice_compressed AS s JOIN reference AS r USING (id), generate_series(1, 2000) AS v
GROUP BY s.id ORDER BY s.id;
DROP TABLE counting_slice_compressed;

--
-- A damaged stored counting filter is an ERROR XX001, by slices as when
-- read whole (bloom_cardinality), never a read past its end: filter 1's
-- bytes with a header field or the length broken, stored out of line
-- uncompressed.  A counter set in the padding past counter m is the one
-- damage a lookup does not see: no probe reads it (a whole read rejects it).
--
CREATE FUNCTION counting_slice_bytes_of(counting_bloom) RETURNS bytea
LANGUAGE internal STRICT AS 'byteasend';
CREATE FUNCTION counting_slice_unchecked(bytea) RETURNS counting_bloom
LANGUAGE internal STRICT AS 'byteasend';
CREATE TABLE counting_slice_damaged (what text, f counting_bloom);
INSERT INTO counting_slice_damaged
SELECT d.what, counting_slice_unchecked(d.bytes)
FROM (SELECT counting_slice_bytes_of(f) AS b FROM counting_slice_filters WHERE id = 1) AS s,
	LATERAL (VALUES
		('format version 9', set_byte(s.b, 0, 9)),
		('hash scheme 3', set_byte(s.b, 1, 3)),
		('hash scheme 2, m not whole blocks', set_byte(s.b, 1, 2)),
		('k = 0', set_byte(s.b, 2, 0)),
		('unknown flag', set_byte(s.b, 3, 128)),
		('m = 0', overlay(s.b PLACING '\x0000000000000000'::bytea FROM 5 FOR 8)),
		('m too large for counters', overlay(s.b PLACING '\xffffffffffffffff'::bytea FROM 5 FOR 8)),
		('8 bytes short', substr(s.b, 1, length(s.b) - 8)),
		('8 bytes past the end', s.b || '\x0000000000000000'::bytea),
		('a counter in the padding', set_byte(s.b, length(s.b) - 1, 1)),
		('undamaged', s.b)) AS d(what, bytes);
SELECT what, pg_column_compression(f) AS compression, e.*,
	(SELECT row(w.*) FROM error_detail_of(format(
		'SELECT bloom_cardinality(f) FROM counting_slice_damaged WHERE what = %L', what)) AS w)
	= row(e.*) AS same_as_whole
FROM counting_slice_damaged,
	LATERAL error_detail_of(format(
		'SELECT bloom_contains(f, 7) FROM counting_slice_damaged WHERE what = %L', what)) AS e
ORDER BY what;

DROP TABLE counting_slice_damaged;
DROP FUNCTION counting_slice_unchecked(bytea);
DROP FUNCTION counting_slice_bytes_of(counting_bloom);
DROP TABLE counting_slice_filters;

--
-- scalable_bloom: the header (36 bytes) and stage 0's (24) in one slice,
-- every later stage's shape from the parameters, then each stage's probes,
-- the newest stage first.  1: 8 stages of scheme 1, 480 kB (240 chunks);
-- 2: growth 4, a stage of scheme 1 and one of scheme 2, 4.2 MB; 3: 4
-- stages, inline; 4: self-sized by scalable_bloom_agg (stage 0's shape is
-- not the parameters', so it is read from its header); 5: stored, 6 kB,
-- too small for slices (read whole at once).  1 holds 1 .. 200,000, 2
-- 1 .. 520,000, 3 1 .. 100, 4 1 .. 100,000, 5 1 .. 5,000.
--
CREATE TABLE scalable_slice_filters (id int PRIMARY KEY, f scalable_bloom);
INSERT INTO scalable_slice_filters
SELECT 1, bloom_add_all(scalable_bloom_empty(0.01, 1000), array_agg(i)) FROM generate_series(1, 200000) AS i;
INSERT INTO scalable_slice_filters
SELECT 2, bloom_add_all(scalable_bloom_empty(0.01, 500000, 4), array_agg(i)) FROM generate_series(1, 520000) AS i;
INSERT INTO scalable_slice_filters
SELECT 3, bloom_add_all(scalable_bloom_empty(0.01, 10), array_agg(i)) FROM generate_series(1, 100) AS i;
INSERT INTO scalable_slice_filters
SELECT 4, bloom_add_all(scalable_bloom_agg(i, 0.01), ARRAY(SELECT generate_series(50001, 100000)))
FROM generate_series(1, 50000) AS i;
INSERT INTO scalable_slice_filters
SELECT 5, bloom_add_all(scalable_bloom_empty(0.01, 5000), array_agg(i)) FROM generate_series(1, 5000) AS i;
SELECT id, (bloom_info(f)).stages, (bloom_info(f)).bytes, (bloom_info(f)).self_sized,
	pg_column_compression(f) AS compression,
	(SELECT array_agg(hash_scheme ORDER BY stage) FROM scalable_bloom_stages(f)) AS schemes
FROM scalable_slice_filters ORDER BY id;

--
-- Which path, by the shared buffers a query touches: one lookup, present
-- (in the newest stage or the oldest) or absent, touches fewer blocks than
-- reading the filter whole (bloom_cardinality); after the switch, more
-- lookups from the same call site read no more.
--
SELECT id, blocks.whole > 50 AS whole_read_reads_many_blocks,
	blocks.newest < blocks.whole AS one_lookup_newest_reads_fewer,
	blocks.oldest < blocks.whole AS one_lookup_oldest_reads_fewer,
	blocks.absent < blocks.whole AS one_absent_lookup_reads_fewer,
	blocks.lookups_10000 <= blocks.lookups_3000 + 5 AS switched_before_3000_lookups
FROM scalable_slice_filters,
	LATERAL (SELECT
		slice_blocks(format('SELECT bloom_cardinality(f) FROM scalable_slice_filters WHERE id = %s', id)),
		slice_blocks(format('SELECT bloom_contains(f, 199999) FROM scalable_slice_filters WHERE id = %s', id)),
		slice_blocks(format('SELECT bloom_contains(f, 7) FROM scalable_slice_filters WHERE id = %s', id)),
		slice_blocks(format('SELECT bloom_contains(f, -7) FROM scalable_slice_filters WHERE id = %s', id)),
		slice_blocks(format('SELECT count(*) FROM scalable_slice_filters, generate_series(1, 10000) AS v
			WHERE id = %s AND bloom_contains(f, v)', id)),
		slice_blocks(format('SELECT count(*) FROM scalable_slice_filters, generate_series(1, 3000) AS v
			WHERE id = %s AND bloom_contains(f, v)', id)))
		AS blocks(whole, newest, oldest, absent, lookups_10000, lookups_3000)
WHERE id IN (1, 2) ORDER BY id;

--
-- The answers: 600,000 values against each filter, from one call site per
-- operator, across the switch; the reference is the same filter as an
-- inline value (in memory: a CTE's tuples past work_mem are reread from a
-- file on every row).
--
SET work_mem = '64MB';
WITH reference AS MATERIALIZED (SELECT id, f::text::scalable_bloom AS g FROM scalable_slice_filters)
SELECT s.id, count(*) AS lookups,
	count(*) FILTER (WHERE bloom_contains(s.f, v)) AS maybe_present,
	count(*) FILTER (WHERE bloom_contains(s.f, v) IS DISTINCT FROM bloom_contains(r.g, v)
		OR (s.f @> v) IS DISTINCT FROM bloom_contains(r.g, v)
		OR (v <@ s.f) IS DISTINCT FROM bloom_contains(r.g, v)) AS differ
FROM scalable_slice_filters AS s JOIN reference AS r USING (id), generate_series(1, 600000) AS v
GROUP BY s.id ORDER BY s.id;

-- Lookups each in a query of its own, so each the first of its call site:
-- all by slices.  Present values of every stage of filter 1, and absent ones.
CREATE FUNCTION scalable_slice_lookup(filter_id int, v int) RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
	answer bool;
BEGIN
	EXECUTE 'SELECT bloom_contains(f, $1) FROM scalable_slice_filters WHERE id = $2'
		INTO answer USING v, filter_id;
	RETURN answer;
END
$$;
WITH reference AS MATERIALIZED (SELECT id, f::text::scalable_bloom AS g FROM scalable_slice_filters),
answers AS (
	SELECT r.id, v, scalable_slice_lookup(r.id, v) AS sliced, bloom_contains(r.g, v) AS whole
	FROM reference AS r,
		(SELECT generate_series(1, 520000, 1000) UNION ALL SELECT generate_series(-520000, -1, 1000)
		 UNION ALL VALUES (520000)) AS s(v))
SELECT id, count(*) AS lookups, count(*) FILTER (WHERE sliced) AS maybe_present,
	count(*) FILTER (WHERE v BETWEEN 1 AND added AND NOT sliced) AS false_negatives,
	count(*) FILTER (WHERE sliced IS DISTINCT FROM whole) AS differ
FROM answers JOIN (VALUES (1, 200000), (2, 520000), (3, 100), (4, 100000), (5, 5000)) AS n(id, added) USING (id)
GROUP BY id ORDER BY id;
DROP FUNCTION scalable_slice_lookup(int, int);

-- Rows alternating between the stored filters: each keeps its own count.
WITH reference AS MATERIALIZED (SELECT id, f::text::scalable_bloom AS g FROM scalable_slice_filters)
SELECT count(*) AS lookups,
	count(*) FILTER (WHERE bloom_contains(s.f, v) IS DISTINCT FROM bloom_contains(r.g, v)) AS differ
FROM generate_series(1, 40000) AS v,
	LATERAL (SELECT f FROM scalable_slice_filters WHERE id = 1 + v % 5) AS s,
	LATERAL (SELECT g FROM reference WHERE id = 1 + v % 5) AS r;
RESET work_mem;

-- Compressed values are detoasted whole: out of line (extended) and inline (main).
CREATE TABLE scalable_slice_compressed (id int PRIMARY KEY, f scalable_bloom);
ALTER TABLE scalable_slice_compressed ALTER COLUMN f SET STORAGE extended;
INSERT INTO scalable_slice_compressed
SELECT 1, bloom_add_all(scalable_bloom_empty(0.01, 1000000), ARRAY(SELECT generate_series(1, 100)));
ALTER TABLE scalable_slice_compressed ALTER COLUMN f SET STORAGE main;
INSERT INTO scalable_slice_compressed
SELECT 2, bloom_add_all(scalable_bloom_empty(0.01, 100000), ARRAY(SELECT generate_series(1, 10)));
SELECT id, pg_column_compression(f) IS NOT NULL AS compressed,
	pg_column_size(f) < (bloom_info(f)).bytes / 10 AS smaller
FROM scalable_slice_compressed ORDER BY id;
WITH reference AS MATERIALIZED (SELECT id, f::text::scalable_bloom AS g FROM scalable_slice_compressed)
SELECT s.id, count(*) FILTER (WHERE bloom_contains(s.f, v)) AS maybe_present,
	count(*) FILTER (WHERE bloom_contains(s.f, v) IS DISTINCT FROM bloom_contains(r.g, v)
		OR (v <@ s.f) IS DISTINCT FROM bloom_contains(r.g, v)) AS differ
FROM scalable_slice_compressed AS s JOIN reference AS r USING (id), generate_series(1, 2000) AS v
GROUP BY s.id ORDER BY s.id;
DROP TABLE scalable_slice_compressed;

--
-- A damaged stored scalable filter is an ERROR XX001, by slices as when
-- read whole (bloom_cardinality), never a read past its end: filter 1's
-- bytes with a field of the header or of stage 0's header, or the length,
-- broken, stored out of line uncompressed.  The detail is the whole read's
-- but where the slices see the damage as a length that does not match the
-- stages the parameters give (the whole read sees a stage's count or
-- header first).  The slices read no count and no stage header but stage
-- 0's: a damaged count or later stage header is the damage a lookup does
-- not see (no probe depends on it; a whole read rejects it).
--
CREATE FUNCTION scalable_slice_bytes_of(scalable_bloom) RETURNS bytea
LANGUAGE internal STRICT AS 'byteasend';
CREATE FUNCTION scalable_slice_unchecked(bytea) RETURNS scalable_bloom
LANGUAGE internal STRICT AS 'byteasend';
CREATE TABLE scalable_slice_damaged (what text, f scalable_bloom);
ALTER TABLE scalable_slice_damaged ALTER COLUMN f SET STORAGE external;
INSERT INTO scalable_slice_damaged
SELECT d.what, scalable_slice_unchecked(d.bytes)
FROM (SELECT scalable_slice_bytes_of(f) AS b FROM scalable_slice_filters WHERE id = 1) AS s,
	LATERAL (VALUES
		('format version 9', set_byte(s.b, 0, 9)),
		('unknown flag', set_byte(s.b, 1, 128)),
		('growth 3', set_byte(s.b, 2, 3)),
		('growth 4', set_byte(s.b, 2, 4)),
		('unknown option', set_byte(s.b, 3, 2)),
		('0 stages', set_byte(s.b, 4, 0)),
		('9 stages', set_byte(s.b, 4, 9)),
		('7 stages', set_byte(s.b, 4, 7)),
		('65 stages', set_byte(s.b, 4, 65)),
		('p = 0', overlay(s.b PLACING '\x0000000000000000'::bytea FROM 9 FOR 8)),
		('n0 = 0', overlay(s.b PLACING '\x0000000000000000'::bytea FROM 25 FOR 8)),
		('n0 = 1001', set_byte(s.b, 24, 233)),
		('reserved not zero', set_byte(s.b, 32, 1)),
		('stage 0: k = 0', set_byte(s.b, 36 + 16, 0)),
		('stage 0: hash scheme 3', set_byte(s.b, 36 + 17, 3)),
		('stage 0: reserved not zero', set_byte(s.b, 36 + 18, 1)),
		('stage 0: m + 64', set_byte(s.b, 36 + 8, get_byte(s.b, 36 + 8) + 64)),
		('header only', substr(s.b, 1, 36)),
		('30 bytes', substr(s.b, 1, 30)),
		('8 bytes short', substr(s.b, 1, length(s.b) - 8)),
		('8 bytes past the end', s.b || '\x0000000000000000'::bytea),
		('stage 0: count too large', set_byte(s.b, 36 + 1, 255)),
		('stage 1: k = 0', set_byte(s.b, 36 + 24 + 16 +
			((SELECT m FROM scalable_bloom_stages(scalable_slice_unchecked(s.b)) WHERE stage = 0)::int + 63) / 64 * 8, 0)),
		('undamaged', s.b)) AS d(what, bytes);
SELECT what, pg_column_compression(f) AS compression, e.*,
	(SELECT w.error_code FROM error_detail_of(format(
		'SELECT bloom_cardinality(f) FROM scalable_slice_damaged WHERE what = %L', what)) AS w)
		AS whole_error_code,
	(SELECT row(w.*) FROM error_detail_of(format(
		'SELECT bloom_cardinality(f) FROM scalable_slice_damaged WHERE what = %L', what)) AS w)
	= row(e.*) AS same_as_whole
FROM scalable_slice_damaged,
	LATERAL error_detail_of(format(
		'SELECT bloom_contains(f, 7) FROM scalable_slice_damaged WHERE what = %L', what)) AS e
ORDER BY what;

DROP TABLE scalable_slice_damaged;
DROP FUNCTION scalable_slice_unchecked(bytea);
DROP FUNCTION scalable_slice_bytes_of(scalable_bloom);
DROP TABLE scalable_slice_filters;
DROP FUNCTION slice_blocks(text);
