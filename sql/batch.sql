--
-- Adding many values at once: bloom_add_all(bloom, anyarray) is bloom_add
-- of each element in turn, bit for bit and flag for flag, in one copy of the
-- filter.
--

-- The reference: bloom_add of each element, one call (and one copy) each.
CREATE FUNCTION batch_add_each(f bloom, vals anyarray) RETURNS bloom
LANGUAGE plpgsql AS $$
DECLARE
	r record;
BEGIN
	-- unnest gives the elements in storage order, whatever the dimensions
	FOR r IN SELECT u FROM unnest(vals) AS u LOOP
		f := bloom_add(f, r.u);
	END LOOP;
	RETURN f;
END
$$;

-- Filters of both hash schemes, already holding some values: a small
-- scheme 1 one, and one of each scheme past the 2 MiB from which the adder
-- prefetches (core/probe.h).
CREATE TABLE batch_start AS
SELECT 'small h1' AS name, bloom_agg(i, 0.01, 1000) AS f FROM generate_series(1, 300) AS i
UNION ALL
SELECT 'large h1', bloom_add_all(bloom_empty_mk(20000000, 7), ARRAY[-1, -2, -3])
UNION ALL
SELECT 'large h2', bloom_add_all(bloom_empty(0.01, 2000000), ARRAY[-1, -2, -3]);
SELECT name, (bloom_info(f)).m, (bloom_info(f)).k, (bloom_info(f)).bytes,
	substr(f::text, 1, 11) AS scheme
FROM batch_start ORDER BY name;

--
-- The same filter as bloom_add of each element (both schemes, several types)
--
CREATE TYPE batch_pair AS (a int, b text);
CREATE TABLE batch_values (what text, vals text);
INSERT INTO batch_values VALUES
	('int8', $$ARRAY[0, 1, -1, 9223372036854775807, -9223372036854775808, 42]::int8[]$$),
	('int4', $$ARRAY[42, 7, -7]::int4[]$$),
	('text, ASCII', $$ARRAY['apple', '', 'pear', 'apple ']::text[]$$),
	('text, not ASCII', $$ARRAY['café', 'naïve', 'Ω', '日本語', 'plain']::text[]$$),
	('varchar', $$ARRAY['x', 'é']::varchar[]$$),
	('uuid', $$ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '00000000-0000-0000-0000-000000000000']::uuid[]$$),
	('numeric', $$ARRAY[42.000, 0.1, -1e30, 'NaN', 3.14159265358979323846]::numeric[]$$),
	('float8', $$ARRAY[0.5, -0.0, 'Infinity']::float8[]$$),
	('date', $$ARRAY['2024-01-01', 'infinity']::date[]$$),
	('bool', $$ARRAY[true, false]$$),
	('composite', $$ARRAY[ROW(1, 'a'), ROW(2, 'é')]::batch_pair[]$$),
	('200 int8', $$ARRAY(SELECT i * 7919 FROM generate_series(1, 200) AS i)::int8[]$$);

-- bloom_add_all(f, vals) and bloom_add of each element of vals, as text
CREATE FUNCTION batch_both(f bloom, vals text, OUT batch text, OUT each text)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SELECT bloom_add_all($1, %s)::text, batch_add_each($1, %s)::text', vals, vals)
		INTO batch, each USING f;
END
$$;

-- every filter with every list of values (expected: all, and none differ)
SELECT count(*) AS checked,
	count(*) FILTER (WHERE b.batch = b.each AND b.batch <> s.f::text) AS same_and_added,
	string_agg(s.name || ', ' || v.what, '; ') FILTER (WHERE b.batch IS DISTINCT FROM b.each) AS differing
FROM batch_start AS s CROSS JOIN batch_values AS v
CROSS JOIN LATERAL batch_both(s.f, v.vals) AS b;

-- non-ASCII text sets the flag as bloom_add does (f1: in a UTF8 database;
-- elsewhere every new filter has it), ASCII text and integers leave it
SELECT (position(':f1:' IN bloom_add_all(bloom_empty(0.01, 10), ARRAY['café'])::text) > 0)
		= (position(':f1:' IN bloom_add(bloom_empty(0.01, 10), 'café'::text)::text) > 0) AS utf8_flag,
	bloom_add_all(bloom_empty(0.01, 10), ARRAY['cafe', 'tea'])::text
		= bloom_add(bloom_add(bloom_empty(0.01, 10), 'cafe'::text), 'tea'::text)::text AS ascii;

-- every element of a multi-dimensional array, in any bounds
SELECT bloom_add_all(bloom_empty(0.01, 100), ARRAY[[1, 2, 3], [4, 5, 6]])
		= bloom_add_all(bloom_empty(0.01, 100), ARRAY[1, 2, 3, 4, 5, 6]) AS two_dimensions,
	bloom_add_all(bloom_empty(0.01, 100), '[-3:-2][5:6][0:0]={{{1},{2}},{{3},{4}}}'::int[])
		= bloom_add_all(bloom_empty(0.01, 100), ARRAY[1, 2, 3, 4]) AS three_dimensions_and_bounds,
	bloom_add_all(bloom_empty(0.01, 100), ARRAY[[1, 2], [3, 4]]) @> 4 AS has_4;

-- equal values of different types hit the same bits, as with bloom_add
SELECT bloom_add_all(bloom_empty(0.01, 100), ARRAY[1, 2]::int2[])
		= bloom_add_all(bloom_empty(0.01, 100), ARRAY[1.0, 2.00]::numeric[]) AS int2_numeric,
	bloom_add_all(bloom_empty(0.01, 100), ARRAY['2024-01-01']::date[])
		= bloom_add(bloom_empty(0.01, 100), '2024-01-01 00:00'::timestamp) AS date_timestamp;

-- an array is a list of values here, where bloom_add hashes it as one value
SELECT bloom_add_all(bloom_empty(0.01, 100), ARRAY[1, 2]) @> 1 AS all_has_1,
	bloom_add(bloom_empty(0.01, 100), ARRAY[1, 2]) @> 1 AS add_has_1,
	bloom_add(bloom_empty(0.01, 100), ARRAY[1, 2]) @> ARRAY[1, 2] AS add_has_array;

-- a domain over an element type, and an array of a domain: the base type's hash
CREATE DOMAIN batch_positive AS int8 CHECK (VALUE > 0);
CREATE DOMAIN batch_list AS int8[];
SELECT bloom_add_all(bloom_empty(0.01, 100), ARRAY[1, 2]::batch_positive[])
		= bloom_add_all(bloom_empty(0.01, 100), ARRAY[1, 2]::int8[]) AS array_of_domain,
	bloom_add_all(bloom_empty(0.01, 100), ARRAY[1, 2]::batch_list)
		= bloom_add_all(bloom_empty(0.01, 100), ARRAY[1, 2]::int8[]) AS domain_over_array;

--
-- NULLs: a NULL filter gives NULL; a NULL array, an empty one and NULL
-- elements add nothing (the filter comes back as it is)
--
SELECT bloom_add_all(NULL::bloom, ARRAY[1]) IS NULL AS null_filter,
	bloom_add_all(NULL, ARRAY[1]) IS NULL AS untyped_null_filter,
	bloom_add_all(NULL::bloom, NULL::int[]) IS NULL AS both_null,
	bloom_add_all(NULL::bloom, ARRAY[]::int[]) IS NULL AS null_filter_empty_array;
SELECT name,
	bloom_add_all(f, NULL::int8[])::text = f::text AS null_array,
	bloom_add_all(f, ARRAY[]::int8[])::text = f::text AS empty_array,
	bloom_add_all(f, ARRAY[NULL, NULL]::text[])::text = f::text AS only_nulls,
	bloom_add_all(f, array_fill(NULL::int, ARRAY[2, 3]))::text = f::text AS only_nulls_two_dimensions,
	bloom_add_all(f, ARRAY[NULL, 5, NULL]) = bloom_add(f, 5) AS nulls_skipped
FROM batch_start ORDER BY name;

-- so a batch that may be NULL or empty never wipes a stored filter
CREATE TABLE batch_stored (id int, f bloom);
INSERT INTO batch_stored VALUES (1, bloom_add(bloom_empty_mk(1000, 3), 1)), (2, NULL);
UPDATE batch_stored SET f = bloom_add_all(f, NULL::int[]);
UPDATE batch_stored SET f = bloom_add_all(f, ARRAY[]::int[]);
SELECT id, f = bloom_add(bloom_empty_mk(1000, 3), 1) AS unchanged, f IS NULL AS is_null
FROM batch_stored ORDER BY id;
UPDATE batch_stored SET f = bloom_add_all(f, ARRAY[2, 3]);
SELECT id, f @> 1 AS has_1, f @> 2 AS has_2, f @> 3 AS has_3 FROM batch_stored ORDER BY id;

-- the input is never changed
DO $$
DECLARE
	original bloom := bloom_empty_mk(1000, 3);
	added bloom;
BEGIN
	added := bloom_add_all(original, ARRAY[7, 8]);
	ASSERT added @> 7 AND added @> 8, 'the values were not added';
	ASSERT original = bloom_empty_mk(1000, 3), 'bloom_add_all changed its input';
END
$$;

--
-- Large batches, stored filters and arrays
--
-- 100,000 values into the large filters: what bloom_agg_like builds from
-- the same values in the same shape, every value found
CREATE TABLE batch_large AS
SELECT array_agg(i::int8 * 104729) AS vals FROM generate_series(1, 100000) AS i;
CREATE TABLE batch_large_added AS
SELECT s.name, s.f AS before, bloom_add_all(s.f, b.vals) AS added,
	bloom_add_all(bloom_empty_like(s.f), b.vals) AS from_empty,
	(SELECT bloom_agg_like(u, s.f) FROM unnest(b.vals) AS u) AS agg_like
FROM batch_start AS s, batch_large AS b
WHERE s.name LIKE 'large%';
SELECT name, from_empty = agg_like AS same_as_agg_like,
	added = from_empty | before AS same_as_union,
	(SELECT bool_and(added @> u) FROM unnest(b.vals) AS u) AS every_value_found
FROM batch_large_added, batch_large AS b ORDER BY name;

-- a stored filter (out of line) updated in batches from a stored array
-- (compressed or out of line): the same as one aggregate of every value
CREATE TABLE batch_filters (id int, f bloom);
INSERT INTO batch_filters SELECT 1, bloom_empty(0.01, 2000000);
UPDATE batch_filters SET f = bloom_add_all(f, (SELECT vals[1:50000] FROM batch_large));
UPDATE batch_filters SET f = bloom_add_all(f, (SELECT vals[50001:] FROM batch_large));
UPDATE batch_filters SET f = bloom_add_all(f, (SELECT vals FROM batch_large));
SELECT f = (SELECT bloom_agg(i::int8 * 104729, 0.01, 2000000) FROM generate_series(1, 100000) AS i)
	AS same_as_agg
FROM batch_filters;

--
-- Errors
--
-- the second argument must be an array, the first a filter; an untyped NULL
-- or literal array has no element type
SELECT * FROM error_of($$SELECT bloom_add_all(bloom_empty(), 1)$$);
SELECT * FROM error_of($$SELECT bloom_add_all('not a filter'::text, ARRAY[1])$$);
SELECT * FROM error_of($$SELECT bloom_add_all(bloom_empty(), NULL)$$);
SELECT * FROM error_of($$SELECT bloom_add_all(bloom_empty(), '{1,2}')$$);
SELECT * FROM error_of($$SELECT bloom_add_all(ARRAY[1], bloom_empty())$$);
-- a damaged filter, elements without a binary send function: as bloom_add
SELECT * FROM error_of($$SELECT bloom_add_all('bloom:v1:h1:m18:k3:AAAA'::bloom, ARRAY[1])$$);
SELECT * FROM error_of($$SELECT bloom_add_all(bloom_empty(), ARRAY[makeaclitem(10, 10, 'SELECT', false)])$$);
-- an element type that cannot be hashed is not looked at when no element is added
SELECT bloom_add_all(bloom_empty_mk(64, 1), ARRAY[NULL::aclitem])::text AS only_null_aclitem;

DROP TABLE batch_start, batch_values, batch_stored, batch_large, batch_large_added, batch_filters;
DROP FUNCTION batch_add_each(bloom, anyarray), batch_both(bloom, text);
DROP DOMAIN batch_positive, batch_list;
DROP TYPE batch_pair;
