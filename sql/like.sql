--
-- Filters in the shape of another (1.2).
--
--   bloom_empty_like(template)         empty filter with the template's m, k and hash scheme
--   bloom_agg_like(value, template)    filter of the non-NULL values, in the template's shape
--
-- Filters combine only when they have one shape, and bloom_agg(x, p, n) does
-- not give the same shape in every release: 1.0 built
-- bloom_agg(x, 0.01, 10000000) as a scheme 1 filter of the classic m and k,
-- 1.1 builds it blocked (scheme 2).  These two build new filters in the
-- shape of a stored one, with the bits bloom_agg and bloom_add set, so that
-- they combine with it.  Only the template's shape is read, never its bits.
--

-- The hash scheme of a filter: byte 1 of its binary form.
CREATE FUNCTION like_scheme(f bloom) RETURNS int
LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT get_byte(bloom_send(f), 1) $$;

-- f with the integers lo..hi added by bloom_add, one call each.
CREATE FUNCTION like_added(f bloom, lo int, hi int) RETURNS bloom
LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN lo..hi LOOP
		f := bloom_add(f, i);
	END LOOP;
	RETURN f;
END
$$;

-- Whether a query's plan has partial aggregates (Partial Aggregate, Partial
-- HashAggregate, ...) and a node named node (Gather, Append) to collect
-- them, so that the checks of parallel and partitionwise plans below check
-- what they say.
CREATE FUNCTION like_partial_plan(query text, node text) RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	partial bool := false;
	collected bool := false;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		partial := partial OR line LIKE '%Partial %Aggregate%';
		collected := collected OR line LIKE '%' || node || '%';
	END LOOP;
	RETURN partial AND collected;
END
$$;

--
-- Yesterday's filters, of values 1..20, in three shapes.  The classic one
-- has the m and k 1.0's bloom_agg(x, 0.01, 10000000) had, from
-- m = ceil(-n ln p / (ln 2)^2) and k = round((m / n) ln 2), and hash
-- scheme 1; explicit m and k still give that shape (bloom_empty_mk).
--
SELECT ceil(-10000000 * ln(0.01) / ln(2) ^ 2) AS classic_m,
	round(ceil(-10000000 * ln(0.01) / ln(2) ^ 2) / 10000000 * ln(2)) AS classic_k;

CREATE TABLE like_yesterday (name text PRIMARY KEY, f bloom NOT NULL);
INSERT INTO like_yesterday VALUES
	('1 classic: 1.0''s bloom_agg(x, 0.01, 1e7)', like_added(bloom_empty_mk(95850584, 7), 1, 20)),
	('2 small: bloom_agg(x, 0.01, 1000)', (SELECT bloom_agg(i, 0.01, 1000) FROM generate_series(1, 20) AS i)),
	('3 blocked: bloom_agg(x, 0.01, 1e7)', (SELECT bloom_agg(i, 0.01, 10000000) FROM generate_series(1, 20) AS i));

-- the problem: today's bloom_agg(x, 0.01, 1e7) does not combine with the classic filter
SELECT e.* FROM error_detail_of($$
	SELECT (SELECT bloom_agg(i, 0.01, 10000000) FROM generate_series(21, 30) AS i) | f
	FROM like_yesterday WHERE name LIKE '1 %'$$) AS e;

--
-- bloom_empty_like: the template's m, k and hash scheme, no bits set
--
SELECT name, ti.m, ti.k, like_scheme(f) AS scheme,
	ei.m = ti.m AND ei.k = ti.k AND like_scheme(e) = like_scheme(f) AS same_shape,
	ei.bits_set, ti.bits_set > 0 AS template_has_bits
FROM like_yesterday, LATERAL bloom_empty_like(f) AS e, LATERAL bloom_info(f) AS ti,
	LATERAL bloom_info(e) AS ei
ORDER BY name;
SELECT bloom_empty_like(bloom_empty_mk(95850584, 7)) = bloom_empty_mk(95850584, 7) AS classic,
	bloom_empty_like(bloom_empty(0.01, 10000000)) = bloom_empty(0.01, 10000000) AS blocked,
	bloom_empty_like(bloom_add(bloom_empty(0.01, 1000), 1)) = bloom_empty(0.01, 1000) AS small,
	bloom_empty_like(NULL) IS NULL AS null_template;

--
-- bloom_agg_like: today's filter (values 21..100000) in yesterday's shape
--
CREATE TABLE like_today AS
SELECT name, (SELECT bloom_agg_like(i, y.f) FROM generate_series(21, 100000) AS i) AS f
FROM like_yesterday AS y;

WITH days AS MATERIALIZED (
	SELECT name, y.f AS yesterday, t.f AS today, y.f | t.f AS both_days
	FROM like_yesterday AS y JOIN like_today AS t USING (name)
)
SELECT name, ti.m = yi.m AND ti.k = yi.k AND like_scheme(today) = like_scheme(yesterday) AS same_shape,
	(SELECT count(*) FROM generate_series(21, 100000) AS i WHERE NOT today @> i) AS false_negatives,
	(SELECT count(*) FROM generate_series(1, 100000) AS i WHERE NOT both_days @> i)
		AS union_false_negatives,
	both_days = (SELECT bloom_agg_like(i, yesterday) FROM generate_series(1, 100000) AS i) AS union_exact,
	both_days = (SELECT bloom_union_agg(f) FROM (VALUES (yesterday), (today)) AS v(f)) AS union_agg
FROM days, LATERAL bloom_info(yesterday) AS yi, LATERAL bloom_info(today) AS ti
ORDER BY name;

-- the bits bloom_agg sets, for the shapes bloom_agg gives
SELECT t.f = (SELECT bloom_agg(i, 0.01, 1000) FROM generate_series(21, 100000) AS i) AS small_same_as_bloom_agg
FROM like_today AS t WHERE name LIKE '2 %';
SELECT t.f = (SELECT bloom_agg(i, 0.01, 10000000) FROM generate_series(21, 100000) AS i)
		AS blocked_same_as_bloom_agg
FROM like_today AS t WHERE name LIKE '3 %';

-- and those bloom_add sets, one value after another, whatever the type; NULLs skipped
SELECT name,
	(SELECT bloom_agg_like(w, y.f) FROM (VALUES ('apple'), (NULL), ('pear'), ('fig'), ('pear')) AS v(w)) =
		bloom_add(bloom_add(bloom_add(bloom_empty_like(y.f), 'apple'::text), 'pear'::text), 'fig'::text)
		AS text_same_as_bloom_add,
	(SELECT bloom_agg_like(x, y.f) FROM (VALUES (42.000::numeric), (-7), (NULL)) AS v(x)) =
		bloom_add(bloom_add(bloom_empty_like(y.f), 42::int8), -7::int2) AS numeric_same_as_integers,
	(SELECT bloom_agg_like(i, y.f) FROM generate_series(1, 20) AS i) = y.f AS rebuilds_yesterday
FROM like_yesterday AS y
ORDER BY name;

-- only NULL values: the empty filter of the template's shape; no rows: NULL
-- (the shape of no template is known); a NULL template in every row: NULL,
-- as bloom_empty_like(NULL) is
SELECT name,
	(SELECT bloom_agg_like(x, y.f) FROM (VALUES (NULL::int), (NULL)) AS v(x)) = bloom_empty_like(y.f)
		AS only_nulls_empty,
	(SELECT bloom_agg_like(i, y.f) FROM generate_series(1, 0) AS i) IS NULL AS no_rows_null
FROM like_yesterday AS y
ORDER BY name;
SELECT bloom_agg_like(i, NULL) IS NULL AS null_templates_null,
	bloom_agg_like(NULL::int, NULL) IS NULL AS null_values_and_templates_null
FROM generate_series(1, 10) AS i;

-- templates of one shape with other bits: the same filter, in any order
SELECT bloom_agg_like(i, CASE WHEN i % 2 = 0 THEN bloom_empty(0.01, 1000)
						   ELSE bloom_add(bloom_empty(0.01, 1000), i) END) =
		bloom_agg(i, 0.01, 1000) AS bits_of_templates_ignored
FROM generate_series(1, 100) AS i;

-- per group, with the template a column of every row (a stored filter)
SELECT name, count(*) AS groups, bool_and(members) AS members_contained,
	bool_and(s.f | bloom_empty_like(y.f) = s.f) AS template_shape
FROM (SELECT y.name, i % 3 AS g, bloom_agg_like(i, y.f) AS f
	  FROM like_yesterday AS y, generate_series(1, 300) AS i
	  GROUP BY 1, 2) AS s
	JOIN like_yesterday AS y USING (name),
	LATERAL (SELECT bool_and(s.f @> i) FROM generate_series(1, 300) AS i WHERE i % 3 = s.g) AS c(members)
GROUP BY name ORDER BY name;

-- as a window aggregate, each row sees the filter of the rows so far
SELECT x, f = (SELECT bloom_agg(y, 0.01, 100) FROM generate_series(1, x) AS y) AS same_as_plain
FROM (SELECT x, bloom_agg_like(x, bloom_empty(0.01, 100)) OVER (ORDER BY x) AS f
	  FROM generate_series(1, 5) AS x) AS s;

--
-- Errors.  The template is read in every row, also when the value is NULL:
-- every row's must have the shape of the others, or all must be NULL (a
-- value with a NULL template among rows with one has no shape to be added
-- in, and dropping it would be a false negative).
--
SELECT query, e.*
FROM (VALUES
	('SELECT bloom_agg_like(x, t) FROM (VALUES (1, bloom_empty(0.01, 100)), (2, bloom_empty(0.01, 101))) AS v(x, t)'),
	('SELECT bloom_agg_like(x, t) FROM (VALUES (1, bloom_empty(0.01, 100)), (NULL, bloom_empty(0.01, 101))) AS v(x, t)'),
	('SELECT bloom_agg_like(x, t) FROM (VALUES (1, bloom_empty_mk(64, 3)), (2, bloom_empty_mk(64, 4))) AS v(x, t)'),
	-- the same m and k, another hash scheme
	('SELECT bloom_agg_like(x, t) FROM (VALUES (1, bloom_empty_mk(1024, 6)), (2, replace(bloom_empty_mk(1024, 6)::text, '':h1:'', '':h2:'')::bloom)) AS v(x, t)'),
	('SELECT bloom_agg_like(x, t) FROM (VALUES (1, bloom_empty(0.01, 100)), (2, NULL)) AS v(x, t)'),
	('SELECT bloom_agg_like(x, t) FROM (VALUES (1, NULL), (2, bloom_empty(0.01, 100))) AS v(x, t)'),
	('SELECT bloom_agg_like(x, t) FROM (VALUES (NULL, NULL), (2, bloom_empty(0.01, 100))) AS v(x, t)'),
	('SELECT bloom_agg_like(x, t) FROM (VALUES (1, bloom_empty(0.01, 100)), (NULL, NULL)) AS v(x, t)'),
	-- a value that cannot be hashed, as for bloom_agg and bloom_add
	('SELECT bloom_agg_like(makeaclitem(10, 10, ''SELECT'', false), bloom_empty())'),
	-- the template is a filter, nothing else
	('SELECT bloom_agg_like(1, ''bloom:v1:h1:m18:k3:AAAAAAAAAAA'')')
) AS v(query), LATERAL error_detail_of(query) AS e;

--
-- Parallel aggregation gives the same bits as serial aggregation, for
-- templates of every shape, from a subquery or a column of every row.
--
CREATE TABLE like_rows AS SELECT i AS x, i % 10 AS g FROM generate_series(1, 200000) AS i;
-- one template a group, each of one shape with bits of its own
CREATE TABLE like_group_templates AS
SELECT g, bloom_add(bloom_empty(0.01, 1000), g) AS t FROM generate_series(0, 9) AS g;
ANALYZE like_rows, like_group_templates;
CREATE TABLE like_queries (name text, query text);
INSERT INTO like_queries
SELECT name, format('SELECT 0 AS g, bloom_agg_like(x, (SELECT f FROM like_yesterday WHERE name = %L)) AS f FROM like_rows',
					name)
FROM like_yesterday
UNION ALL
SELECT 'template column', 'SELECT 0 AS g, bloom_agg_like(x, t) AS f FROM like_rows JOIN like_group_templates USING (g)'
UNION ALL
SELECT 'template column, per group', 'SELECT g, bloom_agg_like(x, t) AS f FROM like_rows JOIN like_group_templates USING (g) GROUP BY g'
UNION ALL
SELECT 'NULL templates', 'SELECT 0 AS g, bloom_agg_like(x, NULL::bloom) AS f FROM like_rows';

-- The filters a query returns, in the order of its column g, as SHA-256
-- digests of their bytes (NULL for NULL).
CREATE FUNCTION like_result(query text) RETURNS bytea[]
LANGUAGE plpgsql AS $$
DECLARE
	result bytea[];
BEGIN
	EXECUTE format('SELECT array_agg(sha256(bloom_send(f)) ORDER BY g) FROM (%s) AS q', query)
		INTO result;
	RETURN result;
END
$$;

SET max_parallel_workers_per_gather = 0;
CREATE TABLE like_serial AS SELECT name, like_partial_plan(query, 'Gather') AS parallel, like_result(query) AS r
FROM like_queries;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TABLE like_parallel AS SELECT name, like_partial_plan(query, 'Gather') AS parallel, like_result(query) AS r
FROM like_queries;

SELECT name, s.parallel AS serial_plan_parallel, p.parallel AS parallel_plan_parallel,
	cardinality(p.r) AS results, p.r IS NOT DISTINCT FROM s.r AS same_bits,
	(SELECT bool_and(digest IS NULL) FROM unnest(p.r) AS digest) AS null_result
FROM like_serial AS s JOIN like_parallel AS p USING (name)
ORDER BY name;

--
-- Partial states meet in the combine function, which raises the errors the
-- transition function raises.  With partitionwise aggregation each partition
-- has its own partial state; below, each partition is of one template, so
-- the templates only meet in the combine function.
--
CREATE TABLE like_parts (part int, x int, t bloom) PARTITION BY LIST (part);
CREATE TABLE like_parts_1 PARTITION OF like_parts FOR VALUES IN (1);
CREATE TABLE like_parts_2 PARTITION OF like_parts FOR VALUES IN (2);
CREATE TABLE like_parts_3 PARTITION OF like_parts FOR VALUES IN (3);
CREATE TABLE like_parts_4 PARTITION OF like_parts FOR VALUES IN (4);
INSERT INTO like_parts
SELECT 1, i, bloom_empty(0.01, 1000) FROM generate_series(1, 1000) AS i
UNION ALL SELECT 2, i, bloom_add(bloom_empty(0.01, 1000), i) FROM generate_series(1001, 2000) AS i
UNION ALL SELECT 3, i, bloom_empty(0.01, 1001) FROM generate_series(2001, 3000) AS i
UNION ALL SELECT 4, i, NULL FROM generate_series(3001, 4000) AS i;
ANALYZE like_parts;
CREATE TABLE like_parts_queries (query text);
INSERT INTO like_parts_queries VALUES
	('SELECT bloom_agg_like(x, t) FROM like_parts WHERE part IN (1, 2)'),
	('SELECT bloom_agg_like(x, t) FROM like_parts WHERE part IN (1, 3)'),
	('SELECT bloom_agg_like(x, t) FROM like_parts WHERE part IN (1, 4)'),
	('SELECT bloom_agg_like(x, t) FROM like_parts WHERE part IN (4, 2)'),
	('SELECT bloom_agg_like(x, t) IS NULL FROM like_parts WHERE part = 4');

SET enable_partitionwise_aggregate = on;
SET max_parallel_workers_per_gather = 0;
SELECT like_partial_plan('SELECT bloom_agg_like(x, t) FROM like_parts', 'Append') AS partitionwise,
	like_partial_plan('SELECT bloom_agg_like(x, t) FROM like_parts', 'Gather') AS parallel,
	(SELECT bloom_agg_like(x, t) FROM like_parts WHERE part IN (1, 2)) =
		(SELECT bloom_agg(i, 0.01, 1000) FROM generate_series(1, 2000) AS i) AS partitionwise_same;
SELECT query, e.* FROM like_parts_queries, LATERAL error_detail_of(query) AS e;

-- the same in parallel, where the partial states come from the workers
SET max_parallel_workers_per_gather = 2;
SELECT like_partial_plan('SELECT bloom_agg_like(x, t) FROM like_parts', 'Append') AS partitionwise,
	like_partial_plan('SELECT bloom_agg_like(x, t) FROM like_parts', 'Gather') AS parallel,
	(SELECT bloom_agg_like(x, t) FROM like_parts WHERE part IN (1, 2)) =
		(SELECT bloom_agg(i, 0.01, 1000) FROM generate_series(1, 2000) AS i) AS partitionwise_same;
SELECT query, e.* FROM like_parts_queries, LATERAL error_detail_of(query) AS e;
RESET enable_partitionwise_aggregate;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

DROP TABLE like_yesterday, like_today, like_rows, like_group_templates, like_queries, like_serial,
	like_parallel, like_parts, like_parts_queries;
DROP FUNCTION like_scheme(bloom), like_added(bloom, int, int),
	like_partial_plan(text, text), like_result(text);
