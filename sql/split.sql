--
-- Split aggregation: the aggregates Citus can run in two phases.  Citus
-- splits an aggregate only when it has a combine function, its transition
-- state is of a real type (not internal), and its declared argument types
-- are those of its arguments (it fails on a polymorphic one); then each
-- worker runs the transition function over its shards' rows
-- (worker_partial_agg), sends the state in its text form (the type's
-- output function), and the coordinator reads it back (the input
-- function), folds the states with the combine function and applies the
-- final function (coord_combine_agg).
--
-- This file does exactly that with helper aggregates built from each
-- aggregate's own support functions, over 16 "shards" of a table, and
-- checks the result against the one-phase aggregate, bit for bit: both
-- hash schemes, a shape, the self-sizing aggregate in its exact phase and
-- (with two shards of 150,000 values) in its sketch phase.
--

-- Every aggregate without a polymorphic argument has a real state type and
-- a combine function; the polymorphic ones keep internal states, so that
-- Citus gathers their rows (as before 1.3) instead of failing.
SELECT a.aggfnoid::regprocedure AS aggregate, a.aggtranstype::regtype AS state_type,
	a.aggcombinefn <> 0 AS combines,
	'anyelement'::regtype = ANY (p.proargtypes) AS polymorphic
FROM pg_aggregate AS a JOIN pg_proc AS p ON p.oid = a.aggfnoid
JOIN pg_depend AS d ON d.classid = 'pg_proc'::regclass AND d.objid = a.aggfnoid
	AND d.refclassid = 'pg_extension'::regclass
	AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomfilter')
ORDER BY a.aggfnoid::regprocedure::text COLLATE "C";
SELECT count(*) AS splittable_but_pseudo_type_or_no_combine
FROM pg_aggregate AS a JOIN pg_proc AS p ON p.oid = a.aggfnoid
JOIN pg_type AS t ON t.oid = a.aggtranstype
JOIN pg_depend AS d ON d.classid = 'pg_proc'::regclass AND d.objid = a.aggfnoid
	AND d.refclassid = 'pg_extension'::regclass
	AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomfilter')
WHERE NOT EXISTS (SELECT FROM unnest(p.proargtypes) AS arg JOIN pg_type AS at ON at.oid = arg
				  WHERE at.typtype = 'p')
	AND (t.typtype = 'p' OR a.aggcombinefn = 0);

-- bloom_value(x) is the hash bloom_add takes: bloom_agg(bloom_value(x), ...)
-- is the filter bloom_agg(x, ...) builds, for values of every kind.
CREATE TABLE split_kinds AS
SELECT 'int4' AS kind, (SELECT bloom_agg(x, 0.01, 1000) = bloom_agg(bloom_value(x), 0.01, 1000) FROM generate_series(1, 500) AS x) AS same
UNION ALL SELECT 'int2, NULLs', (SELECT bloom_agg(x, 0.01, 1000) = bloom_agg(bloom_value(x), 0.01, 1000)
	FROM (SELECT CASE WHEN i % 5 <> 0 THEN i::int2 END AS x FROM generate_series(1, 500) AS i) AS q)
UNION ALL SELECT 'numeric', (SELECT bloom_agg(x / 7.0, 0.01, 1000) = bloom_agg(bloom_value(x / 7.0), 0.01, 1000) FROM generate_series(1, 500) AS x)
UNION ALL SELECT 'text, non-ASCII', (SELECT bloom_agg('ü' || x, 0.01, 1000) = bloom_agg(bloom_value('ü' || x), 0.01, 1000) FROM generate_series(1, 500) AS x)
UNION ALL SELECT 'uuid', (SELECT bloom_agg(md5(x::text)::uuid, 0.01, 1000) = bloom_agg(bloom_value(md5(x::text)::uuid), 0.01, 1000) FROM generate_series(1, 500) AS x)
UNION ALL SELECT 'date', (SELECT bloom_agg(date '2026-01-01' + x, 0.01, 1000) = bloom_agg(bloom_value(date '2026-01-01' + x), 0.01, 1000) FROM generate_series(1, 500) AS x)
UNION ALL SELECT 'int8[] (send form)', (SELECT bloom_agg(ARRAY[x, -x], 0.01, 1000) = bloom_agg(bloom_value(ARRAY[x, -x]), 0.01, 1000) FROM generate_series(1, 500) AS x)
UNION ALL SELECT 'self-sized', (SELECT bloom_agg(x) = bloom_agg(bloom_value(x)) FROM generate_series(1, 5000) AS x)
UNION ALL SELECT 'self-sized, rate', (SELECT bloom_agg(x::text, 0.001) = bloom_agg(bloom_value(x::text), 0.001) FROM generate_series(1, 5000) AS x)
UNION ALL SELECT 'no rows', (SELECT bloom_agg(x, 0.01, 1000) = bloom_agg(bloom_value(x), 0.01, 1000) FROM generate_series(1, 0) AS x)
UNION ALL SELECT 'shaped, as bloom_agg_like', (SELECT bloom_agg_like(x, bloom_empty(0.02, 700)) = bloom_agg_shaped(bloom_value(x), bloom_shape(bloom_empty(0.02, 700))) FROM generate_series(1, 500) AS x);
SELECT * FROM split_kinds;
-- golden vectors: the hash is bloom_add's (sql/hashing.sql pins it)
SELECT bloom_value(42)::text AS int_42, bloom_value(42::numeric)::text = bloom_value(42)::text AS numeric_like_int,
	bloom_value('abc'::text)::text AS text_abc, bloom_value(NULL::int) IS NULL AS null_is_null;
SELECT q.query, e.error_code, e.error_message, e.error_detail
FROM (VALUES
	('SELECT ''bloom_hashed:''::bloom_hashed'),
	('SELECT ''bloom_hashed:010001''::bloom_hashed'),
	('SELECT ''bloom_hashed:020000''::bloom_hashed'),
	('SELECT ''bloom_hashed:0100002a000000000000002a0000000000000''::bloom_hashed'),
	('SELECT ''bloom_hashed:0102002a000000000000002a00000000000000''::bloom_hashed'),
	('SELECT ''bloom_hashed:0200002a000000000000002a00000000000000''::bloom_hashed'),
	('SELECT ''bloom_hashed:0100002A000000000000002a00000000000000''::bloom_hashed'),
	('SELECT ''bloom_hashed:0101002a000000000000002a00000000000000''::bloom_hashed'),
	('SELECT ''bloom_hashed:0100002a000000000000002a00000000000000''::bloom_hashed'),
	-- shapes: empty, the whole text form of a filter, a bad k, and a value with no shape
	('SELECT bloom_agg_shaped(bloom_value(1), '''')'),
	('SELECT bloom_agg_shaped(bloom_value(1), ''bloom:v1:h1:m18:k3:AAAAAAAAAAA='')'),
	('SELECT bloom_agg_shaped(bloom_value(1), ''bloom:v1:h1:m18:k99:'')'),
	('SELECT bloom_agg_shaped(bloom_value(1), NULL)'),
	('SELECT bloom_agg_shaped(bloom_value(x), CASE WHEN x = 1 THEN ''bloom:v1:h1:m18:k3:'' ELSE ''bloom:v1:h1:m18:k4:'' END) FROM generate_series(1, 2) AS x')
) AS q(query), LATERAL error_detail_of(q.query) AS e;

-- The worker's half: the transition function alone (no final function).
CREATE AGGREGATE split_partial(bloom_hashed, float8, int8) (
	SFUNC = bloom_agg_filter_transfn, STYPE = bloom);
CREATE AGGREGATE split_partial(bloom_hashed) (
	SFUNC = bloom_autoagg_state_transfn, STYPE = bloom_agg_state);
CREATE AGGREGATE split_partial(bloom_hashed, float8) (
	SFUNC = bloom_autoagg_state_transfn, STYPE = bloom_agg_state);
CREATE AGGREGATE split_partial_shaped(bloom_hashed, text) (
	SFUNC = bloom_agg_shaped_transfn, STYPE = bloom);
CREATE AGGREGATE split_partial_union(bloom) (
	SFUNC = bloom_union_agg_fold, STYPE = bloom);
CREATE AGGREGATE split_partial_intersection(bloom) (
	SFUNC = bloom_intersection_agg_fold, STYPE = bloom);

-- The coordinator's half: the combine function as a transition function,
-- then the final function.
CREATE AGGREGATE split_combine_union(bloom) (
	SFUNC = bloom_union_agg_fold, STYPE = bloom, FINALFUNC = bloom_agg_filter_finalfn);
CREATE AGGREGATE split_combine_intersection(bloom) (
	SFUNC = bloom_intersection_agg_fold, STYPE = bloom,
	FINALFUNC = bloom_agg_filter_finalfn);
CREATE AGGREGATE split_combine_auto(bloom_agg_state) (
	SFUNC = bloom_autoagg_state_combinefn, STYPE = bloom_agg_state,
	FINALFUNC = bloom_autoagg_state_finalfn);

-- (no autovacuum: an ANALYZE racing the EXPLAINs below would change their
-- plans, as it did under qemu)
CREATE TABLE split_rows WITH (autovacuum_enabled = off) AS
SELECT x, x % 16 AS shard, x % 2 AS half, x % 10 AS g,
	CASE WHEN x % 7 = 0 THEN NULL ELSE 'v' || x END AS t
FROM generate_series(1, 300000) AS x;
CREATE TABLE split_template AS SELECT bloom_empty(0.02, 5000) AS f;

-- Each case: the one-phase aggregate, and the two-phase one whose partial
-- states pass through their text form as Citus moves them.
CREATE TABLE split_cases (name text, one_phase text, two_phase text);
INSERT INTO split_cases VALUES
	('bloom_agg(x, p, n), scheme 1',
	 'SELECT bloom_agg(x, 0.01, 100000) FROM split_rows',
	 'SELECT split_combine_union(s::text::bloom) FROM (SELECT split_partial(bloom_value(x), 0.01, 100000) AS s FROM split_rows GROUP BY shard) AS w'),
	('bloom_agg(x, p, n), scheme 2',
	 'SELECT bloom_agg(x, 0.01, 2000000) FROM split_rows',
	 'SELECT split_combine_union(s::text::bloom) FROM (SELECT split_partial(bloom_value(x), 0.01, 2000000) AS s FROM split_rows GROUP BY shard) AS w'),
	('bloom_agg(t, p, n), text with NULLs',
	 'SELECT bloom_agg(t, 0.001, 300000) FROM split_rows',
	 'SELECT split_combine_union(s::text::bloom) FROM (SELECT split_partial(bloom_value(t), 0.001, 300000) AS s FROM split_rows GROUP BY shard) AS w'),
	('bloom_agg(x), exact phase',
	 'SELECT bloom_agg(x) FROM split_rows WHERE x <= 50000',
	 'SELECT split_combine_auto(s::text::bloom_agg_state) FROM (SELECT split_partial(bloom_value(x)) AS s FROM split_rows WHERE x <= 50000 GROUP BY shard) AS w'),
	('bloom_agg(x, p), sketch phase on the coordinator',
	 'SELECT bloom_agg(x, 0.01) FROM split_rows',
	 'SELECT split_combine_auto(s::text::bloom_agg_state) FROM (SELECT split_partial(bloom_value(x), 0.01) AS s FROM split_rows GROUP BY shard) AS w'),
	('bloom_agg(x, p), sketch phase on the workers',
	 'SELECT bloom_agg(x, 0.01) FROM split_rows',
	 'SELECT split_combine_auto(s::text::bloom_agg_state) FROM (SELECT split_partial(bloom_value(x), 0.01) AS s FROM split_rows GROUP BY half) AS w'),
	('bloom_agg_shaped(x, shape)',
	 'SELECT bloom_agg_like(x, (SELECT f FROM split_template)) FROM split_rows',
	 'SELECT split_combine_union(s::text::bloom) FROM (SELECT split_partial_shaped(bloom_value(x), (SELECT bloom_shape(f) FROM split_template)) AS s FROM split_rows GROUP BY shard) AS w'),
	('bloom_union_agg(f)',
	 'SELECT bloom_union_agg(f) FROM (SELECT bloom_agg(x, 0.01, 50000) AS f FROM split_rows GROUP BY g) AS q',
	 'SELECT split_combine_union(s::text::bloom) FROM (SELECT split_partial_union(f) AS s FROM (SELECT g, bloom_agg(x, 0.01, 50000) AS f FROM split_rows GROUP BY g) AS q GROUP BY g % 3) AS w'),
	('bloom_intersection_agg(f)',
	 'SELECT bloom_intersection_agg(f) FROM (SELECT bloom_agg(x % 1000, 0.01, 50000) AS f FROM split_rows GROUP BY x % 7) AS q',
	 'SELECT split_combine_intersection(s::text::bloom) FROM (SELECT split_partial_intersection(f) AS s FROM (SELECT x % 7 AS h, bloom_agg(x % 1000, 0.01, 50000) AS f FROM split_rows GROUP BY x % 7) AS q GROUP BY h % 3) AS w');

-- and the one-phase bloom_value form, whose state is a value in a
-- parallel plan too (moved between processes without serialize functions)
ALTER TABLE split_cases ADD value_phase text;
UPDATE split_cases SET value_phase =
	regexp_replace(one_phase, 'bloom_agg\(([a-z]+)([,)])', 'bloom_agg(bloom_value(\1)\2', 'g');
UPDATE split_cases SET value_phase =
	'SELECT bloom_agg_shaped(bloom_value(x), (SELECT bloom_shape(f) FROM split_template)) FROM split_rows'
WHERE name = 'bloom_agg_shaped(x, shape)';
SELECT name, value_phase FROM split_cases ORDER BY name;

CREATE FUNCTION split_result(query text) RETURNS bloom
LANGUAGE plpgsql AS $$
DECLARE
	f bloom;
BEGIN
	EXECUTE query INTO STRICT f;
	RETURN f;
END
$$;

-- Serial plans, then parallel ones (the helper aggregates are not parallel
-- safe, so only the one-phase side runs in workers): the same bits.
SET max_parallel_workers_per_gather = 0;
CREATE TABLE split_serial AS
SELECT name, split_result(one_phase) AS one, split_result(two_phase) AS two,
	split_result(value_phase) AS value FROM split_cases;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
ALTER FUNCTION bloom_autoagg_state_combinefn(bloom_agg_state, bloom_agg_state) COST 1;
EXPLAIN (COSTS OFF) SELECT bloom_agg(bloom_value(x), 0.01) FROM split_rows;
EXPLAIN (COSTS OFF) SELECT bloom_agg(bloom_value(x), 0.01, 2000000) FROM split_rows;
EXPLAIN (COSTS OFF) SELECT bloom_union_agg(f) FROM (SELECT bloom_agg(x, 0.01, 1000) AS f FROM split_rows GROUP BY x % 1000) AS q;
CREATE TABLE split_parallel AS SELECT name, split_result(one_phase) AS one,
	split_result(value_phase) AS value FROM split_cases;
ALTER FUNCTION bloom_autoagg_state_combinefn(bloom_agg_state, bloom_agg_state) COST 39000000;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

SELECT s.name, (bloom_info(s.one)).m, (bloom_info(s.one)).bits_set,
	s.one = s.two AS two_phase_same, s.one = s.value AS value_form_same,
	s.one = p.one AND s.one = p.value AS parallel_same
FROM split_serial AS s JOIN split_parallel AS p USING (name) ORDER BY s.name;

-- The results hold every value.
SELECT count(*) FILTER (WHERE NOT bloom_contains(one, x)) AS false_negatives
FROM split_serial, generate_series(1, 300000) AS x
WHERE name IN ('bloom_agg(x, p, n), scheme 1', 'bloom_agg(x, p, n), scheme 2', 'bloom_agg(x, p), sketch phase on the workers');

--
-- The state type: text and binary forms, and what they refuse.
--
CREATE TABLE split_states AS
SELECT phase, s, md5(s::text) AS digest
FROM (SELECT 'exact' AS phase, split_partial(bloom_value(x)) AS s FROM split_rows WHERE x <= 1000
	  UNION ALL
	  SELECT 'sketch', split_partial(bloom_value(x)) FROM split_rows WHERE x <= 150000) AS q;
-- the text form is "bloom_agg_state:" and the base64 of the binary form
SELECT phase, left(s::text, 16) AS prefix,
	decode(substr(s::text, 17), 'base64') = substr(bloom_agg_state_send(s), 1) AS text_is_binary,
	s::text::bloom_agg_state::text = s::text AS round_trip,
	length(bloom_agg_state_send(s)) AS bytes
FROM split_states ORDER BY phase;
-- golden vector: the state of the values 1, 2 and 3 (the hashes of
-- bloom_add's, in slot order) at the default rate
SELECT split_partial(bloom_value(x))::text FROM generate_series(1, 3) AS x;
-- the hash set keeps no order: a state of the same values added in another
-- order finalizes to the same filter
SELECT split_combine_auto(s) = (SELECT bloom_agg(x) FROM generate_series(1, 5000) AS x) AS any_order
FROM (SELECT split_partial(bloom_value(x) ORDER BY x DESC) AS s FROM generate_series(1, 5000) AS x) AS q;

SELECT q.query, e.error_code, e.error_message, e.error_detail
FROM (VALUES
	('SELECT ''bloom_agg_state:''::bloom_agg_state'),
	('SELECT ''bloom:v1:h1:m18:k3:AAAAAAAAAAA=''::bloom_agg_state'),
	('SELECT ''bloom_agg_state:AQ==''::bloom_agg_state'),
	('SELECT ''bloom_agg_state:AgAAB3sUrkfheoQ/AAAAAAAAAAA=''::bloom_agg_state'),
	('SELECT ''bloom_agg_state:AQAAB3sUrkfheoQ/AAAAAAAAAAA=''::bloom_agg_state'),
	('SELECT ''bloom_agg_state:AQAABnsUrkfheoQ/AAAAAAAAAAA=''::bloom_agg_state'),
	('SELECT ''bloom_agg_state:AQAIB3sUrkfheoQ/AAAAAAAAAAA=''::bloom_agg_state'),
	('SELECT ''bloom_agg_state:AQcAB3sUrkfheoQ/AAAAAAAAAAA=''::bloom_agg_state'),
	('SELECT ''bloom_agg_state:AQAAB3sUrkfheoQ/AQAAAAAAAAA=''::bloom_agg_state'),
	('SELECT ''bloom_agg_state:AQAAB3sUrkfheoQ/AQAAAAAAAAA!''::bloom_agg_state')
) AS q(query), LATERAL error_detail_of(q.query) AS e;

-- Called from SQL, the transition and combine functions return a new state
-- and leave their arguments as they were.
SELECT phase,
	bloom_autoagg_state_finalfn(bloom_autoagg_state_transfn(s, bloom_value(123456789))) @> 123456789 AS transfn_added,
	bloom_autoagg_state_finalfn(bloom_autoagg_state_combinefn(s, s)) = bloom_autoagg_state_finalfn(s)
		AS union_with_itself,
	bloom_autoagg_state_finalfn(bloom_autoagg_state_combinefn(NULL, s)) = bloom_autoagg_state_finalfn(s)
		AS null_is_identity
FROM split_states ORDER BY phase;
SELECT phase, md5(s::text) = digest AS stored_unchanged FROM split_states ORDER BY phase;

DROP TABLE split_kinds, split_rows, split_template, split_cases, split_serial, split_parallel, split_states;
DROP FUNCTION split_result(text);
DROP AGGREGATE split_partial(bloom_hashed, float8, int8), split_partial(bloom_hashed),
	split_partial(bloom_hashed, float8), split_partial_shaped(bloom_hashed, text), split_partial_union(bloom),
	split_partial_intersection(bloom), split_combine_union(bloom),
	split_combine_intersection(bloom), split_combine_auto(bloom_agg_state);
