--
-- Element operations: bloom_add, bloom_contains (@>), bloom_contained_by (<@).
--

--
-- Added values are found; with every function and operator spelling
--
CREATE TABLE fruit AS
SELECT bloom_add(bloom_add(bloom_add(bloom_empty(0.001, 100), 'apple'::text), 42), '2024-01-01'::date) AS f;

SELECT f @> 'apple'::text AS "@>", 'apple'::text <@ f AS "<@",
	bloom_contains(f, 'apple'::text) AS contains,
	bloom_contained_by('apple'::text, f) AS contained_by
FROM fruit;

-- values equal to an added one are found whatever their type (see hashing)
SELECT f @> 42 AS int4, f @> 42::int2 AS int2, f @> 42::int8 AS int8,
	f @> 42.000 AS numeric, f @> 'apple'::varchar AS varchar,
	f @> 'apple'::char(8) AS bpchar, f @> '2024-01-01 00:00'::timestamp AS timestamp
FROM fruit;

-- values never added (a filter may answer true for one now and then, at
-- about its false-positive rate; with these values it does not)
SELECT f @> 'pear'::text AS pear, f @> 43 AS "43", f @> 42.5 AS "42.5",
	f @> '2024-01-02'::date AS "2024-01-02", 'apple '::text <@ f AS "apple "
FROM fruit;

-- an empty filter contains nothing
SELECT bloom_empty_mk(1000, 3) @> 1 AS int4, bloom_empty_mk(1000, 3) @> ''::text AS empty_text;

-- the value's type must be known
SELECT bloom_add(bloom_empty_mk(1000, 3), 'apple');

--
-- NULLs
--
-- bloom_add: a NULL filter gives NULL; a NULL value leaves the filter as it is
SELECT bloom_add(NULL::bloom, 1) IS NULL AS null_filter,
	bloom_add(NULL::bloom, NULL::int) IS NULL AS both_null,
	bloom_add(f, NULL::text) = f AS null_value_unchanged
FROM fruit;
-- contains and contained_by are strict
SELECT bloom_contains(NULL::bloom, 1) IS NULL AS null_filter,
	bloom_contains(f, NULL::int) IS NULL AS null_value,
	(NULL::int <@ f) IS NULL AS null_value_operator,
	(1 <@ NULL::bloom) IS NULL AS null_filter_operator
FROM fruit;

-- so adding a column that may be NULL never wipes a stored filter
CREATE TABLE counters (id int, f bloom);
INSERT INTO counters VALUES (1, bloom_add(bloom_empty_mk(1000, 3), 1)), (2, NULL);
CREATE TABLE counters_before AS SELECT * FROM counters;
UPDATE counters SET f = bloom_add(f, NULL::int);
SELECT c.id, c.f IS NOT DISTINCT FROM b.f AS unchanged, c.f @> 1 AS has_1
FROM counters AS c JOIN counters_before AS b USING (id) ORDER BY id;
UPDATE counters SET f = bloom_add(f, 2);
SELECT id, f @> 1 AS has_1, f @> 2 AS has_2 FROM counters ORDER BY id;

--
-- bloom_add returns a new filter and never changes its input
--
SELECT f @> 7 AS before, bloom_add(f, 7) @> 7 AS added, f @> 7 AS after
FROM (SELECT bloom_empty_mk(1000, 3) AS f OFFSET 0) AS s;

DO $$
DECLARE
	original bloom := bloom_empty_mk(1000, 3);
	added bloom;
BEGIN
	added := bloom_add(original, 7);
	ASSERT added @> 7, 'the value was not added';
	ASSERT NOT original @> 7, 'bloom_add changed its input';
	ASSERT original = bloom_empty_mk(1000, 3), 'bloom_add changed its input';
END
$$;

--
-- Filters stored out of line (TOASTed): read through a subquery and a join
--
-- three filters of 1M values each: 1..1000000, 1000001..2000000, the even
-- numbers 2..2000000
CREATE TABLE filters (id int PRIMARY KEY, f bloom);
INSERT INTO filters
SELECT 1, bloom_agg(i, 0.01, 1000000) FROM generate_series(1, 1000000) AS i;
INSERT INTO filters
SELECT 2, bloom_agg(i, 0.01, 1000000) FROM generate_series(1000001, 2000000) AS i;
INSERT INTO filters
SELECT 3, bloom_agg(2 * i, 0.01, 1000000) FROM generate_series(1, 1000000) AS i;

-- each about 1.2 MB, and all of it in the TOAST table, not the heap
SELECT id, pg_column_size(f) AS stored_bytes FROM filters ORDER BY id;
SELECT pg_relation_size('filters') AS heap_bytes,
	pg_relation_size(reltoastrelid) > 3 * 1198152 AS toast_holds_all
FROM pg_class WHERE relname = 'filters';

-- the values to look up: members of some filters, and of none
CREATE TABLE probe AS
SELECT v::int8 FROM generate_series(-99999, 2099999, 997) AS v;

CREATE FUNCTION is_member(id int, v int8) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE id
		WHEN 1 THEN v BETWEEN 1 AND 1000000
		WHEN 2 THEN v BETWEEN 1000001 AND 2000000
		WHEN 3 THEN v BETWEEN 2 AND 2000000 AND v % 2 = 0
	END
$$;

-- The filter as an InitPlan (the semi-join prefilter): fetched once, every
-- member found; false positives at most 3% (the filter is sized for 1%).
SELECT count(*) FILTER (WHERE is_member(1, v)) AS members,
	count(*) FILTER (WHERE is_member(1, v) AND found) AS members_found,
	count(*) FILTER (WHERE NOT is_member(1, v) AND found)
		<= 0.03 * count(*) FILTER (WHERE NOT is_member(1, v)) AS false_positives_within_bound
FROM (SELECT v, bloom_contains((SELECT f FROM filters WHERE id = 1), v) AS found FROM probe) AS s;

SELECT count(*) AS found_by_operator
FROM probe WHERE (SELECT f FROM filters WHERE id = 2) @> v AND is_member(2, v);
SELECT count(*) AS found_by_commutator
FROM probe WHERE v <@ (SELECT f FROM filters WHERE id = 3) AND is_member(3, v);

-- Several stored filters in one query, alternating on every row (sorted
-- by value, then filter), so each call sees a different toast pointer than
-- the last: every member of each filter must still be found.
SELECT id,
	count(*) FILTER (WHERE is_member(id, v)) AS members,
	count(*) FILTER (WHERE is_member(id, v) AND f @> v) AS members_found,
	count(*) FILTER (WHERE is_member(id, v) AND v <@ f) AS members_found_commuted,
	count(*) FILTER (WHERE NOT is_member(id, v) AND f @> v)
		<= 0.03 * count(*) FILTER (WHERE NOT is_member(id, v)) AS false_positives_within_bound
FROM (SELECT id, f, v FROM probe CROSS JOIN filters ORDER BY v, id OFFSET 0) AS s
GROUP BY id ORDER BY id;

-- the same as a join, whichever way the planner runs it
SELECT id, count(*) AS found
FROM probe JOIN filters ON f @> v
WHERE is_member(id, v)
GROUP BY id ORDER BY id;

-- Rows alternating between stored filters detoast each filter once per
-- call site, not on every row: the current filter and up to 8 earlier ones
-- are kept.  The alternating scan below makes 3 times the calls of the
-- one-filter scan; when only the last filter was kept it took 50 to 100
-- times as long per call.  The bound, 10 times per call plus 0.5 s, leaves
-- room for a noisy machine.
CREATE TABLE probe_many AS SELECT v::int8 FROM generate_series(1, 30000) AS v;
DO $$
DECLARE
	t0 timestamptz;
	one float8;
	alternating float8;
	found_one int8;
	found_alternating int8;
BEGIN
	t0 := clock_timestamp();
	SELECT count(*) INTO found_one
	FROM (SELECT f, v FROM probe_many CROSS JOIN filters WHERE id = 1 OFFSET 0) AS s
	WHERE f @> v;
	one := extract(epoch FROM clock_timestamp() - t0);
	t0 := clock_timestamp();
	SELECT count(*) INTO found_alternating
	FROM (SELECT id, f, v FROM probe_many CROSS JOIN filters ORDER BY v, id OFFSET 0) AS s
	WHERE f @> v;
	alternating := extract(epoch FROM clock_timestamp() - t0);
	-- 1..30000 are all in filter 1, none in filter 2, the even ones in filter 3
	IF found_one <> 30000 OR found_alternating NOT BETWEEN 45000 AND 45000 + 0.03 * 45000 THEN
		RAISE EXCEPTION 'members missed: % and %', found_one, found_alternating;
	END IF;
	IF alternating > 10 * 3 * one + 0.5 THEN
		RAISE EXCEPTION 'three alternating filters: % s for 90000 calls, one filter: % s for 30000', alternating, one;
	END IF;
END
$$;

-- more filters alternating than are kept (12 of 6 kB, out of line): every
-- member still found
CREATE TABLE filters_many (id int PRIMARY KEY, f bloom);
INSERT INTO filters_many
SELECT g, (SELECT bloom_agg(i, 0.01, 5000) FROM generate_series(g * 10000, g * 10000 + 4999) AS i)
FROM generate_series(1, 12) AS g;
SELECT count(*) AS stored_out_of_line
FROM filters_many WHERE pg_column_size(f) > 2000 AND pg_relation_size(
	(SELECT reltoastrelid FROM pg_class WHERE relname = 'filters_many')) > 12 * 5000;
SELECT count(*) AS members, count(*) FILTER (WHERE f @> v) AS members_found
FROM (SELECT id, f, v FROM filters_many,
		generate_series(id * 10000, id * 10000 + 4999, 7) AS v ORDER BY v % 13, id OFFSET 0) AS s;

-- adding to a stored filter writes a new value; NULL keeps the stored one
CREATE TABLE filters_before AS SELECT id, f::text AS f FROM filters;
UPDATE filters SET f = bloom_add(f, NULL::int8);
SELECT id, filters.f::text = b.f AS unchanged
FROM filters JOIN filters_before AS b USING (id) ORDER BY id;
UPDATE filters SET f = bloom_add(f, -5) WHERE id = 1;
SELECT id, filters.f @> -5 AS has_minus_5, filters.f::text = b.f AS unchanged
FROM filters JOIN filters_before AS b USING (id) ORDER BY id;

--
-- Domains hash as their base type
--
CREATE DOMAIN element_id AS int8 CHECK (VALUE > 0);
CREATE DOMAIN element_label AS text;
SELECT bloom_add(bloom_empty_mk(1000, 3), 5::element_id) @> 5 AS "domain in, int4 out",
	bloom_add(bloom_empty_mk(1000, 3), 5) @> 5::element_id AS "int4 in, domain out",
	bloom_add(bloom_empty_mk(1000, 3), 'x'::element_label) @> 'x'::text AS "text domain";
CREATE TABLE labelled (id element_id, label element_label);
INSERT INTO labelled VALUES (1, 'one'), (2, 'two');
SELECT bloom_add(bloom_add(bloom_empty_mk(1000, 3), id), label) AS f FROM labelled WHERE id = 1 \gset
SELECT id, :'f'::bloom @> id AS id_found, label <@ :'f'::bloom AS label_found
FROM labelled ORDER BY id;

--
-- Other types hash by their binary send output
--
CREATE TYPE element_pair AS (a int, b text);
CREATE TYPE element_mood AS ENUM ('sad', 'ok', 'happy');
WITH e AS (SELECT bloom_empty_mk(10000, 5) AS f)
SELECT bloom_add(f, ARRAY[1, 2, 3]) @> ARRAY[1, 2, 3] AS int4_array,
	bloom_add(f, ARRAY[1, 2, 3]) @> ARRAY[1, 2] AS other_array,
	bloom_add(f, ARRAY['a', NULL]) @> ARRAY['a', NULL] AS array_with_null,
	bloom_add(f, ROW(1, 'x')::element_pair) @> ROW(1, 'x')::element_pair AS composite,
	bloom_add(f, ROW(1, 'x')::element_pair) @> ROW(1, 'y')::element_pair AS other_composite,
	bloom_add(f, ROW(1, 'x')) @> ROW(1, 'x') AS record,
	bloom_add(f, 'happy'::element_mood) @> 'happy'::element_mood AS enum,
	bloom_add(f, '{"a": 1, "b": [2]}'::jsonb) @> '{"b":[2],"a":1}'::jsonb AS jsonb,
	bloom_add(f, '10.0.0.1'::inet) @> '10.0.0.1'::inet AS inet
FROM e;

-- send output includes the element type, so int4[] and int8[] differ
SELECT bloom_add(bloom_empty_mk(10000, 5), ARRAY[1, 2, 3]) @> ARRAY[1, 2, 3]::int8[] AS int8_array;

-- a type without a send function cannot be hashed
SELECT typname, typsend FROM pg_type WHERE typname = 'aclitem';
SELECT bloom_add(bloom_empty_mk(1000, 3), makeaclitem(10, 10, 'SELECT', false));
SELECT bloom_contains(bloom_empty_mk(1000, 3), makeaclitem(10, 10, 'SELECT', false));
