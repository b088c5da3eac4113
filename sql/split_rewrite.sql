--
-- split_rewrite: bloomfilter.split_aggregates, the planner hook that
-- rewrites the polymorphic aggregates into their bloom_value() forms, which
-- Citus splits (src/distributed/split.c, doc/distributed.md).  Without
-- Citus, "auto" leaves every query alone; "always" rewrites every plain call,
-- which shows the rewrite on plan trees here.  Every query below gives the
-- same rows, bit for bit, with the rewrite on and off.
--

CREATE TABLE split_t (id int8, g int, t text, f bloom);
INSERT INTO split_t
	SELECT i, i % 7, md5(i::text), CASE WHEN i % 2 = 0 THEN bloom_empty(0.01, 100) END
	FROM generate_series(1, 3000) AS i;
-- group 100 holds only NULL values
INSERT INTO split_t SELECT NULL, 100, NULL, NULL FROM generate_series(1, 3);
-- (the setting is there once the library is loaded, as here by bloom_empty)
SHOW bloomfilter.split_aggregates;
CREATE VIEW split_v AS SELECT g, bloom_agg(id, 0.01, 5000) AS f FROM split_t GROUP BY g;

-- query's rows with the rewrite off and on (always): whether they are the
-- same, bit for bit, and whether the plan with it on hashes with
-- bloom_value() (the rewrite took place).
CREATE FUNCTION split_check(query text, OUT same boolean, OUT rewritten boolean)
LANGUAGE plpgsql AS $$
DECLARE
	off_rows text;
	on_rows text;
	line text;
	plan text := '';
	digest text := 'SELECT count(*)::text || '':'' || coalesce(md5(string_agg(q::text, '','' ORDER BY q::text)), '''') FROM (%s) AS q';
BEGIN
	PERFORM set_config('bloomfilter.split_aggregates', 'off', true);
	EXECUTE format(digest, query) INTO off_rows;
	PERFORM set_config('bloomfilter.split_aggregates', 'always', true);
	EXECUTE format(digest, query) INTO on_rows;
	FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query LOOP
		plan := plan || line || E'\n';
	END LOOP;
	same := off_rows = on_rows AND off_rows IS NOT NULL;
	rewritten := plan LIKE '%bloom_value(%';
END
$$;

-- "auto" without Citus: the plan is the query's own.
EXPLAIN (VERBOSE, COSTS OFF) SELECT bloom_agg(id, 0.01, 5000) FROM split_t;

-- "always": the twin over bloom_value(), and with constant arguments
-- bloom_agg_or_empty around it, for what one server gives over no rows.
SET bloomfilter.split_aggregates = always;
EXPLAIN (VERBOSE, COSTS OFF) SELECT bloom_agg(id, 0.01, 5000) FROM split_t;
EXPLAIN (VERBOSE, COSTS OFF) SELECT bloom_agg(id), bloom_agg(t, 0.02) FROM split_t;
EXPLAIN (VERBOSE, COSTS OFF) SELECT counting_bloom_agg(id, 0.01, 5000),
	scalable_bloom_agg(id, 0.01) FROM split_t;
EXPLAIN (VERBOSE, COSTS OFF) SELECT bloom_agg_like(id, bloom_empty(0.01, 100)) FROM split_t;
-- the twins written by hand get bloom_agg_or_empty too, once
EXPLAIN (VERBOSE, COSTS OFF) SELECT bloom_agg(bloom_value(id), 0.01, 5000),
	scalable_bloom_agg(bloom_value(id), 0.01) FROM split_t;
EXPLAIN (VERBOSE, COSTS OFF)
	SELECT bloom_agg_or_empty(bloom_agg(bloom_value(id), 0.01, 5000), 0.01, 5000) FROM split_t;
RESET bloomfilter.split_aggregates;

-- The same rows with the rewrite on and off.
SELECT query, (split_check(query)).* FROM (VALUES
	('SELECT bloom_agg(id, 0.01, 5000) FROM split_t'),
	('SELECT bloom_agg(id, 0.001, 500000) FROM split_t'),
	('SELECT bloom_agg(id) FROM split_t'),
	('SELECT bloom_agg(t, 0.02) FROM split_t'),
	('SELECT bloom_agg_like(id, bloom_empty(0.01, 100)) FROM split_t'),
	('SELECT bloom_agg_like(id, (SELECT bloom_empty(0.01, 100))) FROM split_t'),
	('SELECT bloom_agg_like(id, (SELECT NULL::bloom)) FROM split_t'),
	('SELECT counting_bloom_agg(id, 0.01, 5000) FROM split_t'),
	('SELECT scalable_bloom_agg(id, 0.01) FROM split_t'),
	('SELECT g, bloom_agg(id, 0.01, 5000) FROM split_t GROUP BY g'),
	('SELECT g, bloom_agg(id) FROM split_t GROUP BY g'),
	('SELECT g, bloom_agg(t, 0.05) FROM split_t GROUP BY g'),
	('SELECT g, counting_bloom_agg(id, 0.01, 5000) FROM split_t GROUP BY g'),
	('SELECT g, scalable_bloom_agg(id, 0.01) FROM split_t GROUP BY g'),
	('SELECT bloom_agg(id, 0.01, 5000) FROM split_t WHERE false'),
	('SELECT bloom_agg(id) FROM split_t WHERE false'),
	('SELECT bloom_agg(id, 0.05) FROM split_t WHERE false'),
	('SELECT counting_bloom_agg(id, 0.01, 5000) FROM split_t WHERE false'),
	('SELECT scalable_bloom_agg(id, 0.01) FROM split_t WHERE false'),
	('SELECT bloom_agg_like(id, bloom_empty(0.01, 100)) FROM split_t WHERE false'),
	('SELECT count(*), bloom_agg(id, 0.01, 5000), sum(id) FROM split_t'),
	('SELECT bloom_agg(id, 0.01, 5000) FILTER (WHERE g > 2) FROM split_t'),
	('SELECT g FROM split_t GROUP BY g HAVING bloom_agg(id, 0.01, 5000) @> 7::int8'),
	('WITH c AS (SELECT g, bloom_agg(id) AS f FROM split_t GROUP BY g) SELECT * FROM c'),
	('SELECT s.f FROM (SELECT bloom_agg(id, 0.01, 5000) AS f FROM split_t) AS s'),
	('SELECT g, (SELECT bloom_agg(id, 0.01, 50) FROM split_t AS i WHERE i.g = o.g) FROM split_t AS o GROUP BY g'),
	('SELECT * FROM split_v'),
	-- the twins written by hand, wrapped
	('SELECT bloom_agg(bloom_value(id), 0.01, 5000) FROM split_t'),
	('SELECT g, bloom_agg(bloom_value(id), 0.01, 5000) FROM split_t GROUP BY g'),
	('SELECT bloom_agg(bloom_value(id), 0.01, 5000) FROM split_t WHERE false'),
	('SELECT bloom_agg(bloom_value(id)) FROM split_t WHERE false'),
	('SELECT bloom_agg(bloom_value(t), 0.05) FROM split_t WHERE false'),
	('SELECT counting_bloom_agg(bloom_value(id), 0.01, 5000) FROM split_t WHERE false'),
	('SELECT scalable_bloom_agg(bloom_value(id), 0.01) FROM split_t WHERE false'),
	-- not rewritten: DISTINCT, ORDER BY, a template that may change from row to row
	('SELECT bloom_agg(DISTINCT id, 0.01, 5000) FROM split_t'),
	('SELECT bloom_agg(id, 0.01, 5000 ORDER BY id) FROM split_t'),
	('SELECT bloom_agg_like(id, f) FROM split_t WHERE f IS NOT NULL')
) AS q(query);

-- Prepared statements, generic and custom plans (a generic plan's
-- parameters are no constants: no bloom_agg_or_empty, and NULL over no
-- rows, as on one server), and PL/pgSQL.
SET bloomfilter.split_aggregates = always;
PREPARE split_p(float8, int8) AS SELECT bloom_agg(id, $1, $2) AS f FROM split_t;
PREPARE split_none(float8, int8) AS SELECT bloom_agg(id, $1, $2) AS f FROM split_t WHERE false;
CREATE FUNCTION split_plpgsql() RETURNS bloom LANGUAGE plpgsql AS $$
BEGIN
	RETURN (SELECT bloom_agg(id, 0.01, 5000) FROM split_t);
END
$$;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE split_p(0.01, 5000);
CREATE TEMP TABLE split_generic AS EXECUTE split_p(0.01, 5000);
CREATE TEMP TABLE split_generic_none AS EXECUTE split_none(0.01, 5000);
SET plan_cache_mode = force_custom_plan;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE split_p(0.01, 5000);
CREATE TEMP TABLE split_custom AS EXECUTE split_p(0.01, 5000);
CREATE TEMP TABLE split_custom_none AS EXECUTE split_none(0.01, 5000);
RESET plan_cache_mode;
CREATE TEMP TABLE split_plpgsql AS SELECT split_plpgsql() AS f;
DEALLOCATE split_p;
DEALLOCATE split_none;
SET bloomfilter.split_aggregates = off;
PREPARE split_none(float8, int8) AS SELECT bloom_agg(id, $1, $2) AS f FROM split_t WHERE false;
SET plan_cache_mode = force_generic_plan;
CREATE TEMP TABLE local_generic_none AS EXECUTE split_none(0.01, 5000);
RESET plan_cache_mode;
SELECT (SELECT f FROM split_generic) = l.f AS generic_same,
	(SELECT f FROM split_custom) = l.f AS custom_same,
	(SELECT f FROM split_plpgsql) = l.f AS plpgsql_same,
	(SELECT f FROM split_custom_none) = bloom_empty(0.01, 5000) AS custom_no_rows_empty,
	(SELECT f IS NULL FROM split_generic_none) AS generic_no_rows_null,
	(SELECT f IS NULL FROM local_generic_none) AS local_generic_no_rows_null
FROM (SELECT bloom_agg(id, 0.01, 5000) AS f FROM split_t) AS l;
DEALLOCATE split_none;
RESET bloomfilter.split_aggregates;

-- bloom_agg_or_empty: the filter untouched, or what the aggregate gives
-- over no rows; NULL where an argument is.
SELECT bloom_agg_or_empty(NULL::bloom, 0.01, 5000) = bloom_empty(0.01, 5000) AS fixed,
	bloom_agg_or_empty(NULL::bloom) = (SELECT bloom_agg(id) FROM split_t WHERE false) AS self_sized,
	bloom_agg_or_empty(NULL::bloom, 0.05) = (SELECT bloom_agg(id, 0.05) FROM split_t WHERE false) AS self_sized_rate,
	bloom_agg_or_empty(NULL::counting_bloom, 0.01, 5000)::text = counting_bloom_empty(0.01, 5000)::text AS counting,
	bloom_agg_or_empty(NULL::scalable_bloom, 0.01)::text = scalable_bloom_empty(0.01, 1)::text AS scalable,
	bloom_agg_or_empty(NULL::bloom, NULL, 5000) IS NULL AS unknown_rate,
	bloom_agg_or_empty(bloom_empty(0.02, 10), 0.01, 5000) = bloom_empty(0.02, 10) AS passes_through;
SELECT * FROM error_of('SELECT bloom_agg_or_empty(NULL::bloom, 2.0, 5000)');
SELECT * FROM error_of($$SELECT bloom_agg_or_empty(NULL::bloom, 'NaN', 5000)$$);

-- The sparse forms a partial state travels in: bloom_send and bloom_out
-- under an aggregate (as Citus calls them on a worker: an aggregate whose
-- final function is the send function shows it) write the sparse form when
-- it is shorter; bloom_recv and bloom_in read it back.  Everywhere else they
-- write the stored forms.
CREATE AGGREGATE split_send_agg(bloom) (
	SFUNC = bloom_union_agg_fold, STYPE = bloom, FINALFUNC = bloom_send);
CREATE TEMP TABLE split_sparse AS
	SELECT f, (SELECT split_send_agg(v.x) FROM (VALUES (f)) AS v(x)) AS sent
	FROM (SELECT bloom_agg(i, 0.01, 100000) AS f FROM generate_series(1, 1000) AS i) AS s;
SELECT get_byte(sent, 0) AS marker, octet_length(sent) AS sparse_bytes,
	octet_length(bloom_send(f)) AS binary_bytes, get_byte(bloom_send(f), 0) AS binary_version,
	('bloom:sparse:' || translate(encode(sent, 'base64'), E'\n', ''))::bloom = f AS text_reads_back
FROM split_sparse;
-- the same for counting_bloom, whose counters are 4 bits each
CREATE AGGREGATE split_counting_send_agg(counting_bloom) (
	SFUNC = counting_bloom_union_agg_fold, STYPE = counting_bloom, FINALFUNC = counting_bloom_send);
SELECT get_byte(sent, 0) AS marker, octet_length(sent) AS sparse_bytes,
	octet_length(counting_bloom_send(f)) AS binary_bytes,
	('counting_bloom:sparse:' || translate(encode(sent, 'base64'), E'\n', ''))::counting_bloom::text = f::text
		AS text_reads_back
FROM (SELECT f, (SELECT split_counting_send_agg(v.x) FROM (VALUES (f)) AS v(x)) AS sent
	FROM (SELECT counting_bloom_agg(i, 0.01, 100000) AS f FROM generate_series(1, 1000) AS i) AS s) AS c;
DROP AGGREGATE split_counting_send_agg(counting_bloom);
-- a dense filter keeps its binary form
SELECT get_byte(split_send_agg(f), 0) AS marker
FROM (SELECT bloom_agg(i, 0.01, 100) AS f FROM generate_series(1, 1000) AS i) AS s;
-- malformed sparse text: bad base64, a wrong marker, a truncated form
SELECT * FROM error_of($$SELECT 'bloom:sparse:!!!!'::bloom$$);
SELECT e.* FROM split_sparse, LATERAL error_of(format('SELECT %L::bloom',
	'bloom:sparse:' || translate(encode(set_byte(sent, 0, 1), 'base64'), E'\n', ''))) AS e;
SELECT e.* FROM split_sparse, LATERAL error_of(format('SELECT %L::bloom',
	'bloom:sparse:' || translate(encode(substring(sent FROM 1 FOR octet_length(sent) - 1), 'base64'), E'\n', ''))) AS e;
DROP AGGREGATE split_send_agg(bloom);

DROP FUNCTION split_plpgsql();
DROP FUNCTION split_check(text);
DROP VIEW split_v;
DROP TABLE split_t;
