--
-- Adversarial input: every bad call is a clean ERROR with its SQLSTATE, never
-- a crash or a silent clamp; no function writes into its input; a NULL never
-- wipes a stored filter.  (The SQLSTATEs are the specification here, so
-- errors show only their code.)
--
\set VERBOSITY sqlstate
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

--
-- The planner estimator and support function read the filter argument only
-- when it is a bloom.  A superuser can attach them to an operator or a
-- function of other argument types; an int4 constant where the filter goes
-- was read as a pointer and crashed the backend.
--
CREATE TABLE adv_rows WITH (autovacuum_enabled = false) AS
SELECT g AS x FROM generate_series(1, 1000) AS g;
ANALYZE adv_rows;
CREATE FUNCTION adv_not_a_filter(int, anyelement) RETURNS bool
	LANGUAGE plpgsql AS 'BEGIN RETURN $1 = $2; END';
CREATE OPERATOR @@@ (LEFTARG = int, RIGHTARG = anyelement,
	FUNCTION = adv_not_a_filter, RESTRICT = bloom_contains_selectivity);
-- the estimated rows of the plan's top node
CREATE FUNCTION adv_estimate(query text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN ' || query LOOP
		RETURN (regexp_match(line, 'rows=(\d+)'))[1]::int;
	END LOOP;
END $$;
-- PostgreSQL's default for a function it knows nothing about: a third
SELECT adv_estimate('SELECT * FROM adv_rows WHERE 5 @@@ x') AS operator_estimate;
SELECT count(*) FROM adv_rows WHERE 5 @@@ x;
CREATE FUNCTION adv_not_a_filter_supported(text, anyelement) RETURNS bool
	LANGUAGE plpgsql SUPPORT bloom_contains_support AS 'BEGIN RETURN $1 = $2::text; END';
SELECT adv_estimate($$SELECT * FROM adv_rows WHERE adv_not_a_filter_supported('5', x)$$)
	AS function_estimate;
DROP OPERATOR @@@ (int, anyelement);
DROP FUNCTION adv_not_a_filter_supported(text, anyelement);
DROP FUNCTION adv_not_a_filter(int, anyelement);
-- a domain over bloom is a filter, and is estimated as one
CREATE DOMAIN adv_bloom AS bloom;
CREATE DOMAIN adv_positive AS int8 CHECK (VALUE > 0);
SELECT adv_estimate($$SELECT * FROM adv_rows
	WHERE bloom_contains(bloom_add(bloom_empty(0.01, 10), 3)::adv_bloom, x)$$) AS domain_estimate;
-- filters and values of unusual shapes in the planner: NULL filters, whole
-- rows, system columns, expressions
SELECT adv_estimate('SELECT * FROM adv_rows WHERE bloom_contains(NULL, x)') AS null_filter,
	adv_estimate('SELECT * FROM adv_rows WHERE bloom_contains(NULL::bloom, x)') AS null_bloom,
	adv_estimate('SELECT * FROM adv_rows WHERE bloom_contains(bloom_empty(0.01, 10), 3)') AS constant_value,
	adv_estimate('SELECT * FROM adv_rows WHERE bloom_contains(bloom_empty(0.01, 10), NULL::int)') AS null_value;
SELECT adv_estimate('SELECT * FROM adv_rows AS r WHERE bloom_contains(bloom_add(bloom_empty(0.01, 10), 3), r)') AS whole_row,
	adv_estimate('SELECT * FROM adv_rows WHERE bloom_contains(bloom_add(bloom_empty(0.01, 10), 3), ctid)') AS ctid,
	adv_estimate('SELECT * FROM adv_rows WHERE bloom_contains(bloom_add(bloom_empty(0.01, 10), 3), x + 1)') AS expression,
	adv_estimate('SELECT * FROM adv_rows WHERE bloom_add(bloom_empty(0.01, 10), 3) @> x::adv_positive') AS domain_int8;

-- A row type whose field has no send function has MCVs that cannot be
-- hashed: the estimate leaves them alone (hashing them raised 42883 while
-- planning, even for LIMIT 0), and a row type that can be hashed is probed:
-- a filter without any of its three values passes about 1 row in 1000.
CREATE TYPE adv_acl_pair AS (a aclitem, b int);
CREATE TYPE adv_int_pair AS (a int, b int);
CREATE TABLE adv_rows_of_rows WITH (autovacuum_enabled = false) AS
SELECT ROW(makeaclitem(10, 10, 'SELECT', false), g % 3)::adv_acl_pair AS acl,
	ROW(g % 3, g % 3)::adv_int_pair AS pair, ARRAY[ROW(g % 3, 0)::adv_int_pair] AS pairs
FROM generate_series(1, 1000) AS g;
ANALYZE adv_rows_of_rows;
SELECT attname, most_common_vals IS NOT NULL AS has_mcv FROM pg_stats
WHERE tablename = 'adv_rows_of_rows' ORDER BY attname;
SELECT * FROM adv_rows_of_rows WHERE bloom_contains(bloom_add(bloom_empty(0.01, 10), 1), acl) LIMIT 0;
SELECT adv_estimate('SELECT * FROM adv_rows_of_rows
		WHERE bloom_contains(bloom_add(bloom_empty(0.01, 10), ROW(7, 7)::adv_int_pair), acl)') AS acl_default,
	adv_estimate('SELECT * FROM adv_rows_of_rows
		WHERE bloom_contains(bloom_add(bloom_empty(0.01, 10), ROW(7, 7)::adv_int_pair), pair)') AS pair_probed,
	adv_estimate('SELECT * FROM adv_rows_of_rows
		WHERE bloom_contains(bloom_add(bloom_empty(0.01, 10), ROW(7, 7)::adv_int_pair), pairs)') AS pairs_probed;

--
-- NULL never wipes a filter; a NULL filter stays NULL
--
CREATE TABLE adv_stored (id int, f bloom);
INSERT INTO adv_stored VALUES (1, bloom_add(bloom_empty(0.01, 100000), 42)), (2, NULL);
UPDATE adv_stored SET f = bloom_add(f, NULL::int);
-- an untyped NULL has no type: 42804, and the rows stay as they are
UPDATE adv_stored SET f = bloom_add(f, NULL);
SELECT id, f IS NULL AS is_null, bloom_contains(f, 42) AS has_42 FROM adv_stored ORDER BY id;
SELECT bloom_add(NULL, 1) IS NULL AS null_filter, bloom_add(NULL, NULL::int) IS NULL AS both_null;

--
-- No function writes into its argument: the stored value (detoasted once
-- and cached per call site) is the same before and after
--
CREATE TABLE adv_before AS SELECT id, f FROM adv_stored WHERE id = 1;
SELECT bloom_contains(bloom_add(f, 7), 7) AS added, bloom_contains(f, 7) AS source_unchanged
FROM adv_stored WHERE id = 1;
SELECT bloom_contains(bloom_union_agg(f), 7) AS union_agg,
	bloom_contains(bloom_intersection_agg(f), 7) AS intersection_agg
FROM (SELECT f FROM adv_stored WHERE id = 1
	UNION ALL SELECT bloom_add(f, 7) FROM adv_stored WHERE id = 1) AS two;
SELECT bloom_contains(f | bloom_add(f, 7), 7) AS "or", bloom_contains(f & f, 42) AS "and",
	bloom_contains(bloom_union(f, bloom_add(f, 7)), 7) AS "union"
FROM adv_stored WHERE id = 1;
SELECT s.f = b.f AS stored_unchanged FROM adv_stored s JOIN adv_before b USING (id);
-- a window's final function leaves the state alone: each frame's filter
-- equals the plain aggregate over the same rows
SELECT bool_and(w = p) AS windows_match
FROM (SELECT x,
		bloom_agg(x, 0.01, 10) OVER (ORDER BY x ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS w,
		(SELECT bloom_agg(y, 0.01, 10) FROM generate_series(greatest(x - 2, 1), x) AS y) AS p
	FROM generate_series(1, 8) AS x) AS s;
SELECT bool_and(w = p) AS windows_match
FROM (SELECT x,
		bloom_agg(x) OVER (ORDER BY x ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS w,
		(SELECT bloom_agg(y) FROM generate_series(greatest(x - 2, 1), x) AS y) AS p
	FROM generate_series(1, 8) AS x) AS s;

--
-- Values of every kind of type: hashed through their send function, or a
-- clean ERROR when they have none
--
CREATE TYPE adv_enum AS ENUM ('a', 'b');
CREATE TYPE adv_pair AS (a int, b text);
CREATE DOMAIN adv_range AS int4range;
CREATE DOMAIN adv_pair_domain AS adv_pair;
SELECT bloom_contains(bloom_add(bloom_empty(), ARRAY[1, 2]), ARRAY[1, 2]) AS "array",
	bloom_contains(bloom_add(bloom_empty(), ARRAY[1, 2]), ARRAY[2, 1]) AS array_reordered,
	bloom_contains(bloom_add(bloom_empty(), ROW(1, 'a'::text)), ROW(1, 'a'::text)) AS record,
	bloom_contains(bloom_add(bloom_empty(), int4range(1, 5)), int4range(1, 5)) AS range,
	bloom_contains(bloom_add(bloom_empty(), 'a'::adv_enum), 'a'::adv_enum) AS enum,
	bloom_contains(bloom_add(bloom_empty(), 'a'::adv_enum), 'b'::adv_enum) AS other_enum;
SELECT bloom_contains(bloom_add(bloom_empty(), 5::adv_positive), 5::int2) AS domain_int8,
	bloom_contains(bloom_add(bloom_empty(), int4range(1, 3)::adv_range), int4range(1, 3)) AS domain_range,
	bloom_contains(bloom_add(bloom_empty(), ROW(1, 'x')::adv_pair_domain), ROW(1, 'x')::adv_pair) AS domain_composite,
	bloom_contains(bloom_add(bloom_empty(), '{}'::int[]), '{}'::int[]) AS empty_array,
	bloom_contains(bloom_add(bloom_empty(), bloom_empty()), bloom_empty()) AS filter_in_filter;
SELECT bloom_agg(x) = bloom_agg(x::adv_pair_domain) AS agg_domain_composite
FROM (VALUES (ROW(1, 'a')::adv_pair), (ROW(2, 'b')::adv_pair)) AS v(x);
-- no binary send function: 42883, also inside an array or a record
SELECT bloom_add(bloom_empty(), makeaclitem(10, 10, 'SELECT', false));
SELECT bloom_add(bloom_empty(), ARRAY[makeaclitem(10, 10, 'SELECT', false)]);
SELECT bloom_add(bloom_empty(), ROW(makeaclitem(10, 10, 'SELECT', false)));
SELECT bloom_agg(makeaclitem(10, 10, 'SELECT', false));
SELECT bloom_contains(bloom_empty(), makeaclitem(10, 10, 'SELECT', false));
-- an untyped literal has no type to hash by: 42804
SELECT bloom_contains(bloom_empty(), 'abc');
SELECT bloom_add(bloom_empty(), NULL);
SELECT bloom_agg('abc');

--
-- Bad arguments: one line each, with the SQLSTATE
--
SELECT bloom_empty('NaN', 10);
SELECT bloom_empty('Infinity', 10);
SELECT bloom_empty(0.01, 0);
SELECT bloom_empty(0.01, 9223372036854775807);
SELECT bloom_empty(1e-300, 10);
SELECT bloom_empty_mk(0, 1);
SELECT bloom_empty_mk(9223372036854775807, 1);
SELECT bloom_empty_mk(100, 65);
SELECT bloom_empty_mk(100, -2147483648);
SELECT bloom_optimal('NaN', 1);
SELECT bloom_expected_fpr(100, 7, -1);
SELECT bloom_agg(x, NULL, 10) FROM generate_series(1, 3) AS x;
SELECT bloom_agg(x, 0.01, NULL) FROM generate_series(1, 3) AS x;
SELECT bloom_agg(x, NULL) FROM generate_series(1, 3) AS x;
SELECT bloom_agg(x, 'NaN', 10) FROM generate_series(1, 3) AS x;
SELECT bloom_agg(x, 'NaN') FROM generate_series(1, 3) AS x;
SELECT bloom_agg(x, 5e-324) FROM generate_series(1, 3) AS x;
SELECT bloom_agg(x, 0.01, 9223372036854775807) FROM generate_series(1, 3) AS x;
SELECT bloom_agg(x, x / 10.0) FROM generate_series(1, 3) AS x;
SELECT bloom_agg(x, 0.01, x) FROM generate_series(1, 3) AS x;
SELECT bloom_agg(NULL::int, NULL, 10);
SELECT bloom_union(bloom_empty(), bloom_empty(0.5, 10));
SELECT bloom_empty() | bloom_empty(0.5, 10);
SELECT bloom_jaccard(bloom_empty(), bloom_empty(0.5, 10));
SELECT bloom_union_agg(f) FROM (VALUES (bloom_empty()), (bloom_empty(0.5, 10))) AS v(f);
SELECT bloom_intersection_agg(f) FROM (VALUES (bloom_empty()), (NULL), (bloom_empty(0.5, 10))) AS v(f);

-- A rate no self-sized filter can meet fails the same way however many
-- values come: past 2^17 of them it was "too many distinct values" after a
-- 500 MB sketch had been allocated.
\set VERBOSITY terse
SELECT bloom_agg(x, 1e-19) FROM generate_series(1, 10) AS x;
SELECT bloom_agg(x, 1e-19) FROM generate_series(1, 140000) AS x;
\set VERBOSITY sqlstate

--
-- Degenerate but valid: NULLs skipped, no rows.  With no rows bloom_agg
-- returns the empty filter of the requested shape whenever the shape is
-- constant, with or without an ORDER BY in the call (bloom_agg(x, 0.05
-- ORDER BY -x) returned NULL while bloom_agg(x, 0.05) did not).
--
SELECT bloom_union(NULL::bloom, NULL::bloom) IS NULL AS all_null,
	bloom_union(VARIADIC '{}'::bloom[]) IS NULL AS empty_array,
	bloom_union(VARIADIC ARRAY[[bloom_empty()], [NULL::bloom]]) = bloom_empty() AS two_dimensional;
SELECT bloom_agg(x, 0.01, 10) = bloom_empty(0.01, 10) AS no_rows,
	bloom_agg(x, 0.01, 10 ORDER BY -x) = bloom_empty(0.01, 10) AS no_rows_ordered,
	bloom_agg(NULL::int, 0.01, 10) = bloom_empty(0.01, 10) AS null_row,
	bloom_agg(x) IS NOT NULL AS self_sized,
	bloom_agg(x, 0.05) IS NOT NULL AS self_sized_rate,
	bloom_agg(x, 0.05 ORDER BY -x) IS NOT NULL AS self_sized_rate_ordered,
	bloom_union_agg(NULL::bloom) IS NULL AS union_no_filters
FROM generate_series(1, 3) AS x WHERE x < 0;

DROP TABLE adv_rows, adv_rows_of_rows, adv_stored, adv_before;
DROP FUNCTION adv_estimate(text);
DROP DOMAIN adv_bloom, adv_positive, adv_range, adv_pair_domain;
DROP TYPE adv_enum, adv_pair, adv_acl_pair, adv_int_pair;
