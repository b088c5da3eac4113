--
-- Planner estimates (src/planner/support.c).  bloom_contains, bloom_contained_by,
-- @> and <@ get their selectivity from the filter, when the planner can see
-- it, and from the column's statistics:
--
--     P(pass) = member + (1 - member) * (X/m)^k
--
-- with the most-common values probed exactly, member estimated from the
-- histogram bounds that pass, and bounded by n* / ndistinct.  Each call is
-- costed by the filter's size.
--
-- The data is bench/setup.sql scaled down tenfold: big has 1,000,000 ids and
-- small 100,000, both pseudo-random in [0, 1e7], and the filter holds small's
-- ids at 1%.  About 1% of big's rows are members and 1% of the others pass
-- as false positives.
--
-- ANALYZE samples 300 rows per unit of statistics target.  At the default
-- target (100) big.id's histogram has 101 values, of which about 2 pass a 2%
-- filter: too few to promise a factor of 2 (README, "Planner estimates").  At
-- 10000 the sample is the whole table, so the statistics, and every estimate
-- below, are the same on every run; the histogram then has 10001 values.
--
SET client_min_messages = warning;
-- plans without Gather nodes, the same on every machine
SET max_parallel_workers_per_gather = 0;

CREATE TABLE planner_big WITH (autovacuum_enabled = false) AS
SELECT (hashint8extended(g, 1) & 9223372036854775807) % 10000001 AS id
FROM generate_series(1::int8, 1000000) AS g;
CREATE TABLE planner_small WITH (autovacuum_enabled = false) AS
SELECT (hashint8extended(g, 2) & 9223372036854775807) % 10000001 AS id
FROM generate_series(1::int8, 100000) AS g;
-- the same rows, never analyzed
CREATE TABLE planner_big_no_stats WITH (autovacuum_enabled = false) AS
SELECT * FROM planner_big;
ALTER TABLE planner_big ALTER id SET STATISTICS 10000;
ANALYZE planner_big;

CREATE TABLE planner_filters (id int PRIMARY KEY, f bloom);
INSERT INTO planner_filters
SELECT 1, bloom_agg(id, 0.01, 100000) FROM planner_small;

-- The planner's row estimate for a query (its top plan node).  $1, if the
-- query uses it, is filter, passed as a parameter of a custom plan.
CREATE FUNCTION planned_rows(query text, filter bloom DEFAULT NULL) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan USING filter;
	RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END
$$;

-- The same for the total cost.
CREATE FUNCTION planned_cost(query text, filter bloom DEFAULT NULL) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan USING filter;
	RETURN (plan -> 0 -> 'Plan' ->> 'Total Cost')::float8;
END
$$;

-- The filter, for a query that wants it from a stable function.
CREATE FUNCTION planner_filter() RETURNS bloom
LANGUAGE sql STABLE AS $$ SELECT f FROM planner_filters WHERE id = 1 $$;

CREATE TABLE planner_actual AS
SELECT count(*)::float8 AS actual
FROM planner_big
WHERE bloom_contains((SELECT f FROM planner_filters WHERE id = 1), id);
-- the true count is about 2% of the rows
SELECT actual BETWEEN 0.015 * 1000000 AND 0.025 * 1000000 AS about_2_percent
FROM planner_actual;

--
-- The estimate is within a factor of 2 of the true count, in every form that
-- lets the planner see the filter: an InitPlan's (SELECT f FROM t WHERE key =
-- constant) on a small table is read by the planner as the executor will
-- read it (planner_estimates.sql has the InitPlans it cannot read).
--
CREATE TABLE planner_estimates (form text, estimate float8);
INSERT INTO planner_estimates
SELECT 'bloom_contains(literal, id)',
	   planned_rows(format('SELECT * FROM planner_big WHERE bloom_contains(%L::bloom, id)', f::text))
FROM planner_filters WHERE id = 1
UNION ALL
SELECT 'bloom_contains($1, id)',
	   planned_rows('SELECT * FROM planner_big WHERE bloom_contains($1, id)', f)
FROM planner_filters WHERE id = 1
UNION ALL
SELECT '$1 @> id',
	   planned_rows('SELECT * FROM planner_big WHERE $1 @> id', f)
FROM planner_filters WHERE id = 1
UNION ALL
SELECT 'id <@ $1',
	   planned_rows('SELECT * FROM planner_big WHERE id <@ $1', f)
FROM planner_filters WHERE id = 1
UNION ALL
SELECT 'bloom_contained_by(id, $1)',
	   planned_rows('SELECT * FROM planner_big WHERE bloom_contained_by(id, $1)', f)
FROM planner_filters WHERE id = 1
UNION ALL
SELECT 'bloom_contains((SELECT f ...), id)',
	   planned_rows('SELECT * FROM planner_big
		WHERE bloom_contains((SELECT f FROM planner_filters WHERE id = 1), id)')
UNION ALL
SELECT '(SELECT f ...) @> id',
	   planned_rows('SELECT * FROM planner_big WHERE (SELECT f FROM planner_filters WHERE id = 1) @> id')
UNION ALL
SELECT 'id <@ (SELECT f ...)',
	   planned_rows('SELECT * FROM planner_big WHERE id <@ (SELECT f FROM planner_filters WHERE id = 1)')
UNION ALL
SELECT 'bloom_contains(stable function, id)',
	   planned_rows('SELECT * FROM planner_big WHERE bloom_contains(planner_filter(), id)')
UNION ALL
SELECT 'stable function @> id',
	   planned_rows('SELECT * FROM planner_big WHERE planner_filter() @> id')
UNION ALL
SELECT 'id <@ stable function',
	   planned_rows('SELECT * FROM planner_big WHERE id <@ planner_filter()');

-- a prepared statement: EXECUTE's arguments are computed before planning
PREPARE planner_prepared(bloom) AS SELECT * FROM planner_big WHERE $1 @> id;
INSERT INTO planner_estimates
SELECT 'prepared statement',
	   planned_rows(format('EXECUTE planner_prepared(%L::bloom)', f::text))
FROM planner_filters WHERE id = 1;
DEALLOCATE planner_prepared;

-- a PL/pgSQL variable: a parameter of the statement's custom plans
CREATE FUNCTION planner_variable_rows() RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	filter bloom := (SELECT f FROM planner_filters WHERE id = 1);
	r record;
	plan json;
BEGIN
	FOR r IN EXPLAIN (FORMAT JSON) SELECT * FROM planner_big WHERE bloom_contains(filter, id) LOOP
		plan := r."QUERY PLAN";
	END LOOP;
	RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END
$$;
INSERT INTO planner_estimates SELECT 'PL/pgSQL variable', planner_variable_rows();

SELECT form, estimate / actual BETWEEN 0.5 AND 2 AS within_2x
FROM planner_estimates, planner_actual
ORDER BY form;

-- and every form gives the same estimate
SELECT count(DISTINCT estimate) AS distinct_estimates FROM planner_estimates;

--
-- No statistics on the column: the filter's rate (X/m)^k for the non-members,
-- and as members n* of the table's rows (as if every value were distinct and
-- every filter value present).  Here that is an overestimate: the filter's
-- values are mostly not in the table.
--
SELECT abs(e.estimate - (i.false_positive_rate * n.rows
						 + (1 - i.false_positive_rate) * i.estimated_cardinality))
		   < 0.001 * e.estimate AS false_positives_plus_n,
	   e.estimate >= a.actual AS at_least_actual
FROM (SELECT planned_rows('SELECT * FROM planner_big_no_stats WHERE bloom_contains($1, id)', f)
		  AS estimate FROM planner_filters WHERE id = 1) AS e,
	 (SELECT planned_rows('SELECT * FROM planner_big_no_stats') AS rows) AS n,
	 (SELECT * FROM bloom_info((SELECT f FROM planner_filters WHERE id = 1))) AS i,
	 planner_actual AS a;

--
-- An empty filter lets nothing through: the planner's minimum of one row.  A
-- saturated one (every bit set) lets everything through.
--
SELECT planned_rows('SELECT * FROM planner_big WHERE bloom_contains($1, id)',
					bloom_empty(0.01, 1000)) AS empty_filter_rows;
SELECT fill_ratio FROM bloom_info((SELECT bloom_agg(g, 0.5, 1) FROM generate_series(1, 100) AS g));
SELECT planned_rows('SELECT * FROM planner_big WHERE bloom_contains($1, id)',
					(SELECT bloom_agg(g, 0.5, 1) FROM generate_series(1, 100) AS g))
	   = planned_rows('SELECT * FROM planner_big') AS saturated_filter_all_rows;
-- a NULL filter: the strict function is folded to NULL, and no row passes
SELECT planned_rows('SELECT * FROM planner_big WHERE bloom_contains($1, id)', NULL) AS null_filter_rows;

--
-- Most-common values, NULLs and types: an int4 column, skewed, with NULLs,
-- against a filter of int8 values (equal integers hash alike, so the
-- statistics are probed as the executor will probe the rows).  10 values
-- make half the rows, 50,000 others appear once each, and 10,000 rows are
-- NULL; the filter holds 5 of the common values and 5,000 of the others.
-- The common values are probed exactly, so the estimate is close.
--
CREATE TABLE planner_skewed (v int4) WITH (autovacuum_enabled = false);
INSERT INTO planner_skewed SELECT g % 10 FROM generate_series(1, 50000) AS g;
INSERT INTO planner_skewed SELECT g FROM generate_series(1000, 50999) AS g;
INSERT INTO planner_skewed SELECT NULL FROM generate_series(1, 10000);
ALTER TABLE planner_skewed ALTER v SET STATISTICS 10000;
ANALYZE planner_skewed;
INSERT INTO planner_filters
SELECT 2, bloom_agg(x, 0.01, 10000)
FROM (SELECT generate_series(0, 4)::int8 UNION ALL SELECT generate_series(1000, 5999)::int8) AS s(x);

SELECT pg_typeof(v) AS column_type, count(*) AS actual,
	   count(*) >= 30000 AS common_values_pass
FROM planner_skewed WHERE bloom_contains((SELECT f FROM planner_filters WHERE id = 2), v)
GROUP BY 1;
SELECT e.estimate / a.actual BETWEEN 0.9 AND 1.1 AS within_10_percent
FROM (SELECT planned_rows('SELECT * FROM planner_skewed WHERE $1 @> v', f) AS estimate
	  FROM planner_filters WHERE id = 2) AS e,
	 (SELECT count(*)::float8 AS actual FROM planner_skewed
	  WHERE bloom_contains((SELECT f FROM planner_filters WHERE id = 2), v)) AS a;
-- NULLs never pass: a filter holding every non-NULL value selects 100,000 of
-- the 110,000 rows
SELECT round(planned_rows('SELECT * FROM planner_skewed WHERE bloom_contains($1, v)',
						  (SELECT bloom_agg(v, 0.01, 100000) FROM planner_skewed))::numeric, -3)
	   AS every_value_rows;

--
-- Cost.  Per call, in cpu_operator_cost units (1 = a trivial function such as
-- int8ne): 3 for a filter that fits a 1 MB cache, plus 40 times the share of
-- the filter outside it, 1 - 1 MB / size.  A filter not known at plan time
-- is costed as the bench's 1.2 MB one.  Measured on a table of exactly 1000
-- rows against the same scan with id <> 0.
--
CREATE TABLE planner_cost (id int8) WITH (autovacuum_enabled = false);
INSERT INTO planner_cost SELECT generate_series(1, 1000);
VACUUM ANALYZE planner_cost;
CREATE FUNCTION planner_call_cost(query text, filter bloom DEFAULT NULL) RETURNS numeric
LANGUAGE sql AS $$
	SELECT round(((planned_cost(query, filter)
					- planned_cost('SELECT * FROM planner_cost WHERE id <> 0'))
				   / 1000 / current_setting('cpu_operator_cost')::float8 + 1)::numeric, 1)
$$;
SELECT planner_call_cost(format('SELECT * FROM planner_cost WHERE bloom_contains(%L::bloom, id)',
								bloom_empty(0.01, 10000)::text)) AS "12 kB literal",
	   planner_call_cost('SELECT * FROM planner_cost WHERE $1 @> id',
						 bloom_empty(0.01, 10000000)) AS "12 MB parameter";
-- a generic plan, where the filter is an unknown parameter
SET plan_cache_mode = force_generic_plan;
PREPARE planner_generic(bloom) AS SELECT * FROM planner_cost WHERE bloom_contains($1, id);
SELECT planner_call_cost('EXECUTE planner_generic(NULL)') AS "unknown filter";
DEALLOCATE planner_generic;
RESET plan_cache_mode;

DROP FUNCTION planner_call_cost(text, bloom);
DROP FUNCTION planner_variable_rows();
DROP FUNCTION planner_filter();
DROP FUNCTION planned_cost(text, bloom);
DROP FUNCTION planned_rows(text, bloom);
DROP TABLE planner_big, planner_small, planner_big_no_stats, planner_filters,
	planner_actual, planner_estimates, planner_skewed, planner_cost;
