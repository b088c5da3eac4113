--
-- scalable_bloom: a filter that grows in stages (src/core/scalable.c).
-- The rate at 10x, 100x and 1,000x its initial capacity is
-- sql/scalable_rate.sql; the aggregates are sql/scalable_agg.sql.
--

-- golden vectors: the text forms of small filters, the same on every machine
SELECT scalable_bloom_empty(0.01, 2);
SELECT bloom_add_all(scalable_bloom_empty(0.01, 2), ARRAY[1, 2, 3, 4, 5]);
SELECT bloom_add_all(scalable_bloom_empty(0.05, 3, 4, 0.9), ARRAY['a', 'b', 'c', 'd', 'e']);

-- an empty filter's rates print as 0, not -0
SELECT i.expected_false_positive_rate::text AS rate, s.expected_false_positive_rate::text AS stage_rate
FROM bloom_info(scalable_bloom_empty(0.01, 1000)) AS i, scalable_bloom_stages(scalable_bloom_empty(0.01, 1000)) AS s;

-- stage 0 is the filter bloom_empty(p (1 - r), n0) builds, and one stage casts to it
SELECT bloom(bloom_add_all(scalable_bloom_empty(0.01, 1000), ARRAY(SELECT generate_series(1, 1000))))
	= bloom_add_all(bloom_empty(0.002, 1000), ARRAY(SELECT generate_series(1, 1000))) AS stage_0_is_bloom;
SELECT bloom_add(scalable_bloom_empty(0.01, 10), 'x'::text)::bloom
	= bloom_add(bloom_empty(0.002, 10), 'x'::text) AS cast_is_bloom;

-- growing: 10,000 values into n0 = 100, every one found, stages full but the last
CREATE TABLE scalable_t AS
SELECT bloom_add_all(scalable_bloom_empty(0.01, 100), ARRAY(SELECT generate_series(1, 10000))) AS f;
SELECT stages, growth, tightening, initial_capacity, values_added BETWEEN 9900 AND 10000 AS counted,
	round(estimated_cardinality::numeric, -2) AS cardinality_to_100,
	expected_false_positive_rate < 0.01 AS rate_held, self_sized
FROM scalable_t, bloom_info(f);
SELECT stage, capacity, values_added = capacity AS full, m, k, hash_scheme,
	round(target_false_positive_rate::numeric, 8) AS target,
	expected_false_positive_rate <= target_false_positive_rate * 1.5 AS near_target
FROM scalable_t, scalable_bloom_stages(f);
SELECT count(*) FILTER (WHERE NOT bloom_contains(f, i)) AS false_negatives,
	count(*) FILTER (WHERE f @> i) AS found, count(*) FILTER (WHERE i <@ f) AS found_swapped
FROM scalable_t, generate_series(1, 10000) AS i;
-- a chain of bloom_add gives the same value as bloom_add_all
SELECT (SELECT f FROM scalable_t) = (
	WITH RECURSIVE chain(i, f) AS (
		SELECT 0, scalable_bloom_empty(0.01, 100)
		UNION ALL
		SELECT i + 1, bloom_add(f, i + 1) FROM chain WHERE i < 10000)
	SELECT f FROM chain WHERE i = 10000) AS chain_equals_batch;
-- duplicates use no capacity
SELECT f = bloom_add_all(f, ARRAY(SELECT generate_series(1, 10000, 3))) AS duplicates_change_nothing
FROM scalable_t;
SELECT bloom_cardinality(f) BETWEEN 9500 AND 10500 AS cardinality FROM scalable_t;
-- more than one stage has no plain-filter form
SELECT * FROM error_detail_of('SELECT f::bloom FROM scalable_t');

-- text and binary round trips, byte for byte; the hash operator class
SELECT f::text::scalable_bloom = f AS text_round_trip FROM scalable_t;
SELECT length(scalable_bloom_send(f)) = (bloom_info(f)).bytes - 4 AS binary_is_stored_body
FROM scalable_t;
SET enable_sort = off;
SELECT count(*) AS groups FROM (SELECT f FROM (SELECT bloom_add(scalable_bloom_empty(0.01, 10), i % 3) AS f
	FROM generate_series(1, 30) AS i) AS s GROUP BY f) AS g;
RESET enable_sort;
SELECT scalable_bloom_hash(f) = scalable_bloom_hash(f::text::scalable_bloom) AS hash_stable,
	scalable_bloom_hash_extended(f, 7) <> scalable_bloom_hash_extended(f, 8) AS seeded
FROM scalable_t;

-- every stored form reads alike: inline with a 1-byte header (unaligned),
-- out of line, compressed in line, compressed out of line
CREATE TABLE scalable_forms (form text, f scalable_bloom);
CREATE TABLE scalable_forms_main (form text, f scalable_bloom);
ALTER TABLE scalable_forms_main ALTER COLUMN f SET STORAGE main;
CREATE TABLE scalable_forms_extended (form text, f scalable_bloom);
ALTER TABLE scalable_forms_extended ALTER COLUMN f SET STORAGE extended;
INSERT INTO scalable_forms VALUES
	('short header', bloom_add(scalable_bloom_empty(0.01, 2), 1)),
	('out of line', (SELECT f FROM scalable_t));
INSERT INTO scalable_forms_main VALUES ('compressed in line', scalable_bloom_empty(0.01, 10000));
INSERT INTO scalable_forms_extended VALUES ('compressed out of line', scalable_bloom_empty(0.01, 2000000));
CREATE TABLE scalable_forms_reference AS
SELECT form, f::text::scalable_bloom AS p FROM scalable_forms
UNION ALL SELECT form, f::text::scalable_bloom FROM scalable_forms_main
UNION ALL SELECT form, f::text::scalable_bloom FROM scalable_forms_extended;
SELECT s.form, pg_column_size(s.f) < (bloom_info(r.p)).bytes AS smaller_than_value,
	s.f = r.p AND r.p = s.f AS equal, s.f::text = r.p::text AS same_text,
	scalable_bloom_send(s.f) = scalable_bloom_send(r.p) AS same_binary,
	scalable_bloom_hash(s.f) = scalable_bloom_hash(r.p) AS same_hash,
	bloom_info(s.f)::text = bloom_info(r.p)::text AS same_info,
	(SELECT count(*) FROM generate_series(1, 3000) AS v WHERE s.f @> v AND v <@ s.f AND bloom_contains(s.f, v))
		= (SELECT count(*) FROM generate_series(1, 3000) AS v WHERE r.p @> v) AS same_contains,
	bloom_add(s.f, -7) = bloom_add(r.p, -7) AS same_add,
	bloom_add_all(s.f, ARRAY[-7, -8]) = bloom_add_all(r.p, ARRAY[-7, -8]) AS same_add_all,
	(s.f | r.p) = (r.p | r.p) AS same_union
FROM (SELECT * FROM scalable_forms UNION ALL SELECT * FROM scalable_forms_main
	UNION ALL SELECT * FROM scalable_forms_extended) AS s
	JOIN scalable_forms_reference AS r USING (form)
ORDER BY s.form;
DROP TABLE scalable_forms, scalable_forms_main, scalable_forms_extended, scalable_forms_reference;

-- union: stage by stage, holding both
-- (a stage of the union may hold more than its capacity: its count stops
-- there, and the rate from the bits says what the union lets through)
SELECT u.stages, u.values_added, round(u.estimated_cardinality) AS cardinality,
	round(u.expected_false_positive_rate::numeric, 3) AS expected_rate,
	(SELECT count(*) FROM generate_series(1, 300) AS i WHERE NOT (a | b) @> i) AS false_negatives
FROM (SELECT bloom_add_all(scalable_bloom_empty(0.01, 50), ARRAY(SELECT generate_series(1, 200))) AS a,
	bloom_add_all(scalable_bloom_empty(0.01, 50), ARRAY(SELECT generate_series(201, 300))) AS b) AS s,
	bloom_info(a | b) AS u;
-- a union commutes; adding values a filter holds changes nothing (counts, though,
-- add up in a union, which cannot tell shared values apart)
SELECT (a | b) = (b | a) AS commutes, a = bloom_add_all(a, ARRAY(SELECT generate_series(1, 200))) AS readding_changes_nothing
FROM (SELECT bloom_add_all(scalable_bloom_empty(0.01, 50), ARRAY(SELECT generate_series(1, 200))) AS a,
	bloom_add_all(scalable_bloom_empty(0.01, 50), ARRAY(SELECT generate_series(201, 300))) AS b) AS s;
SELECT * FROM error_detail_of($$SELECT scalable_bloom_empty(0.01, 50) | scalable_bloom_empty(0.01, 51)$$);
SELECT * FROM error_detail_of($$SELECT scalable_bloom_empty(0.01, 50) | scalable_bloom_empty(0.01, 50, 4)$$);

-- NULL rules, as bloom's
SELECT bloom_add(NULL::scalable_bloom, 1) IS NULL AS null_filter,
	bloom_add(scalable_bloom_empty(0.01, 10), NULL::int) = scalable_bloom_empty(0.01, 10) AS null_value,
	bloom_add_all(scalable_bloom_empty(0.01, 10), NULL::int[]) = scalable_bloom_empty(0.01, 10) AS null_array,
	bloom_add_all(scalable_bloom_empty(0.01, 10), ARRAY[NULL, 1]) = bloom_add(scalable_bloom_empty(0.01, 10), 1) AS null_elements,
	bloom_contains(NULL::scalable_bloom, 1) IS NULL AS contains_null_filter,
	bloom_contains(scalable_bloom_empty(0.01, 10), NULL::int) IS NULL AS contains_null_value,
	scalable_bloom_empty(NULL, 10) IS NULL AS empty_null,
	(scalable_bloom_empty(0.01, 10) | NULL) IS NULL AS union_null;
-- an untyped filter argument still means bloom (bloom is its category's preferred type)
SELECT bloom_add(NULL, 1) IS NULL AS add_null, bloom_cardinality(NULL) IS NULL AS cardinality_null,
	bloom_contains('bloom:v1:h1:m18:k3:AAAAAAAAAAA=', 1) AS contains_literal;

-- bad parameters: 22023, or 54000 past the 1 GB limit
SELECT q AS query, e.error_code, e.error_message
FROM (VALUES
	('SELECT scalable_bloom_empty(0, 10)'),
	('SELECT scalable_bloom_empty(1, 10)'),
	('SELECT scalable_bloom_empty(''NaN'', 10)'),
	('SELECT scalable_bloom_empty(0.01, 0)'),
	('SELECT scalable_bloom_empty(0.01, -5)'),
	('SELECT scalable_bloom_empty(0.01, 10, 3)'),
	('SELECT scalable_bloom_empty(0.01, 10, 1)'),
	('SELECT scalable_bloom_empty(0.01, 10, 2, 0)'),
	('SELECT scalable_bloom_empty(0.01, 10, 2, 1)'),
	('SELECT scalable_bloom_empty(0.01, 10, 2, ''NaN'')'),
	('SELECT scalable_bloom_empty(0.01, 1, 2, 0.1)'),
	('SELECT scalable_bloom_empty(1e-30, 10)'),
	('SELECT scalable_bloom_empty(0.01, 1000000000000)')
	) AS t(q), error_of(q) AS e;
SELECT * FROM error_detail_of('SELECT scalable_bloom_empty(0.01, 1, 2, 0.1)');

-- bad input: 22P02 for text, 22P03 for binary, every rule of the validator
SELECT t AS input, e.error_code, d.error_detail
FROM (VALUES
	('scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA='),
	('scalable_bloom:v2:p0.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA='),
	('scalable_bloom:v1:p0.010:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA='),
	('scalable_bloom:v1:p0.01:n2:s3:r0.8:c0:h1:m26:k9:AAAAAAAAAAA='),
	('scalable_bloom:v1:p2:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA='),
	('scalable_bloom:v1:p0.01:n0:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA='),
	('scalable_bloom:v1:p0.01:n2:s2:r1:c0:h1:m26:k9:AAAAAAAAAAA='),
	('scalable_bloom:v1:p0.01:n1:s2:r0.1:c0:h1:m13:k9:AAAAAAAAAAA='),
	('scalable_bloom:v1:p0.01:n2:s2:r0.8:c3:h1:m26:k9:AAAAAAAAAAA='),
	('scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m27:k9:AAAAAAAAAAA='),
	('scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h3:m26:k9:AAAAAAAAAAA='),
	('scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m26:k65:AAAAAAAAAAA='),
	('scalable_bloom:v1:p0.01:n2:s2:r0.8:f2:c0:h1:m26:k9:AAAAAAAAAAA='),
	('scalable_bloom:v1:p0.01:n2:s2:r0.8:o2:c0:h1:m26:k9:AAAAAAAAAAA='),
	('scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAE='),
	('scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAA*='),
	('scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAA'),
	('scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA=;c0:h1:m54:k9:AAAAAAAAAAA='),
	('scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m99999999999:k9:AAAAAAAAAAA='),
	('bloom:v1:h1:m18:k3:AAAAAAAAAAA=')
	) AS v(t),
	error_of(format('SELECT %L::scalable_bloom', t)) AS e,
	error_detail_of(format('SELECT %L::scalable_bloom', t)) AS d;
-- binary: the stored bytes (core/scalable.h), through binary COPY into a
-- scalable_bloom column, each field broken in turn: 22P03
SELECT scalable_bloom_send('scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA=');
CREATE TABLE scalable_recv_source (b bytea);
CREATE TABLE scalable_recv_target (f scalable_bloom);
CREATE FUNCTION scalable_recv_error(bytes bytea, OUT error_code text, OUT error_detail text)
LANGUAGE plpgsql AS $$
DECLARE
	path text := '/tmp/bloomfilter_scalable_' || pg_backend_pid() || '.copy';
BEGIN
	DELETE FROM scalable_recv_source;
	INSERT INTO scalable_recv_source VALUES (bytes);
	EXECUTE format('COPY scalable_recv_source TO %L (FORMAT binary)', path);
	BEGIN
		EXECUTE format('COPY scalable_recv_target FROM %L (FORMAT binary)', path);
		error_code := 'accepted';
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS error_code = RETURNED_SQLSTATE, error_detail = PG_EXCEPTION_DETAIL;
	END;
	EXECUTE format('COPY (SELECT WHERE false) TO PROGRAM %L', 'rm -f ' || path);
END
$$;
SELECT description, e.*
FROM (SELECT scalable_bloom_send('scalable_bloom:v1:p0.01:n2:s2:r0.8:c0:h1:m26:k9:AAAAAAAAAAA=') AS b) AS good,
	LATERAL (VALUES
		('valid', b),
		('empty', '\x'::bytea),
		('header cut short', substr(b, 1, 30)),
		('bits cut short', substr(b, 1, length(b) - 1)),
		('a byte too many', b || '\x00'::bytea),
		('format version 2', set_byte(b, 0, 2)),
		('unknown flag 2', set_byte(b, 1, 2)),
		('growth 3', set_byte(b, 2, 3)),
		('unknown option 2', set_byte(b, 3, 2)),
		('no stages', set_byte(b, 4, 0)),
		('two stages claimed', set_byte(b, 4, 2)),
		('p above 1', set_byte(b, 15, 64)),
		('r NaN', set_byte(set_byte(b, 23, 127), 22, 255)),
		('n0 0', set_byte(b, 24, 0)),
		('reserved header byte', set_byte(b, 32, 1)),
		('count above capacity', set_byte(b, 36, 3)),
		('m not the parameters''', set_byte(b, 44, 27)),
		('k 65', set_byte(b, 52, 65)),
		('hash scheme 3', set_byte(b, 53, 3)),
		('reserved stage byte', set_byte(b, 54, 1)),
		('padding bit set', set_byte(b, 63, 128))
	) AS t(description, bytes), LATERAL scalable_recv_error(bytes) AS e;
SELECT f FROM scalable_recv_target;
DROP FUNCTION scalable_recv_error(bytea);
DROP TABLE scalable_recv_source, scalable_recv_target;

DROP TABLE scalable_t;
