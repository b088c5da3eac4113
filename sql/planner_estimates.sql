--
-- Row estimates for the filters the planner cannot take as a constant
-- (src/planner/support.c, src/planner/analyze.c):
--
--   - an InitPlan, bloom_contains((SELECT f FROM t WHERE ...), x) and its
--     operator spellings: the planner reads the filter itself when the
--     subquery is SELECT column FROM table [WHERE column = constant ...] on
--     a table of at most 8 pages, and otherwise takes the median filter of
--     the column's statistics;
--   - a join to a table of filters, bloom_contains(s.f, b.x): the mean
--     filter of the column's statistics.
--
-- From the statistics, P(pass) = member + (1 - member) * fpr with member =
-- min(1, n* / D), D the probed column's distinct values.  Each estimate is
-- checked against the true count: within a factor of 3, the goal (a factor
-- of 2 where the planner reads the filter, as for a constant: planner.sql).
--
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

-- The numbers of a bloom column's statistics slot (kind 17707, types/types.h),
-- whichever slot ANALYZE put it in; NULL when there is none.
CREATE FUNCTION bloom_statistics(rel regclass, col name) RETURNS float4[]
LANGUAGE sql AS $$
	SELECT CASE 17707 WHEN s.stakind1 THEN s.stanumbers1 WHEN s.stakind2 THEN s.stanumbers2
		   WHEN s.stakind3 THEN s.stanumbers3 WHEN s.stakind4 THEN s.stanumbers4
		   WHEN s.stakind5 THEN s.stanumbers5 END
	FROM pg_statistic AS s JOIN pg_attribute AS a
		 ON a.attrelid = s.starelid AND a.attnum = s.staattnum
	WHERE s.starelid = rel AND a.attname = col
$$;

-- A number of the top plan node of a query's plan: 'Plan Rows', the
-- planner's row estimate, or 'Total Cost'.
CREATE FUNCTION planned(query text, field text) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
	RETURN (plan -> 0 -> 'Plan' ->> field)::float8;
END
$$;
CREATE FUNCTION planned_rows(query text) RETURNS float8
LANGUAGE sql AS $$ SELECT planned(query, 'Plan Rows') $$;

-- The planner's row estimate over the true row count of a query.
CREATE FUNCTION estimate_ratio(query text) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	actual float8;
BEGIN
	EXECUTE 'SELECT count(*) FROM (' || query || ') AS q' INTO actual;
	RETURN planned_rows(query) / actual;
END
$$;

--
-- The README's semi-join prefilter: 200,000 orders of 20,000 customers, of
-- which 2,000 are VIPs, their ids in a one-row table (read by the planner).
--
CREATE TABLE estimates_orders WITH (autovacuum_enabled = false) AS
SELECT g AS order_id, (hashint8extended(g, 3) & 9223372036854775807) % 20000 AS customer_id
FROM generate_series(1::int8, 200000) AS g;
CREATE TABLE estimates_vip_filter AS
SELECT bloom_agg(id, 0.01, 2000) AS f FROM generate_series(0::int8, 1999) AS id;
ALTER TABLE estimates_orders ALTER customer_id SET STATISTICS 1000;
ANALYZE estimates_orders, estimates_vip_filter;

SELECT form, estimate_ratio(query) BETWEEN 0.5 AND 2 AS within_2x
FROM (VALUES
	('bloom_contains((SELECT f FROM vip_filter), customer_id)',
	 'SELECT * FROM estimates_orders
	  WHERE bloom_contains((SELECT f FROM estimates_vip_filter), customer_id)'),
	('(SELECT f FROM vip_filter) @> customer_id',
	 'SELECT * FROM estimates_orders WHERE (SELECT f FROM estimates_vip_filter) @> customer_id'),
	('customer_id <@ (SELECT f FROM vip_filter)',
	 'SELECT * FROM estimates_orders WHERE customer_id <@ (SELECT f FROM estimates_vip_filter)')
) AS t(form, query);

--
-- The bench's prefilter (bench/cases.sql), scaled down: 200,000 ids and
-- 20,000 others, uniform in [0, 2e6], the filter of the second set in a
-- table that also holds one of the first; about 1% of the rows are members
-- and 1% of the others pass.  The column's statistics could not tell the
-- two filters apart: the planner reads the one the subquery selects.
--
CREATE TABLE estimates_big WITH (autovacuum_enabled = false) AS
SELECT (hashint8extended(g, 1) & 9223372036854775807) % 2000001 AS id
FROM generate_series(1::int8, 200000) AS g;
CREATE TABLE estimates_filters (id int PRIMARY KEY, f bloom);
INSERT INTO estimates_filters
SELECT 1, bloom_agg((hashint8extended(g, 2) & 9223372036854775807) % 2000001, 0.01, 20000)
FROM generate_series(1::int8, 20000) AS g;
INSERT INTO estimates_filters SELECT 2, bloom_agg(id, 0.01, 200000) FROM estimates_big;
INSERT INTO estimates_filters VALUES (3, NULL);
ALTER TABLE estimates_big ALTER id SET STATISTICS 1000;
ANALYZE estimates_big, estimates_filters;

SELECT estimate_ratio('SELECT * FROM estimates_big
	WHERE bloom_contains((SELECT f FROM estimates_filters WHERE id = 1), id)')
	BETWEEN 0.5 AND 2 AS bench_within_2x;
-- a NULL filter, and no row: the InitPlan returns NULL, and no row passes
-- (the planner's minimum is one row)
SELECT planned_rows('SELECT * FROM estimates_big
	WHERE bloom_contains((SELECT f FROM estimates_filters WHERE id = 3), id)') AS null_filter,
	   planned_rows('SELECT * FROM estimates_big
	WHERE bloom_contains((SELECT f FROM estimates_filters WHERE id = 4), id)') AS no_row;

--
-- Per-group filters: 50,000 orders of 10,000 customers, 50 groups of 200
-- customers, a filter of each group's customers (at 1%).  A join of the
-- orders to the filters passes every order once for its own group, and 1%
-- of the other 49 groups' filters again: about 1.5 rows per order.
--
CREATE TABLE estimates_group_orders WITH (autovacuum_enabled = false) AS
SELECT g AS order_id, (hashint8extended(g, 4) & 9223372036854775807) % 10000 AS customer_id
FROM generate_series(1::int8, 50000) AS g;
CREATE TABLE estimates_group_filters WITH (autovacuum_enabled = false) AS
SELECT c % 50 AS grp, bloom_agg(c, 0.01, 200) AS f
FROM generate_series(0::int8, 9999) AS c GROUP BY 1;
-- a bigger table of the same filters, too large for the planner to read
CREATE TABLE estimates_many_filters WITH (autovacuum_enabled = false) AS
SELECT grp + 50 * copy AS grp, f FROM estimates_group_filters, generate_series(0, 9) AS copy;
ANALYZE estimates_group_orders, estimates_group_filters, estimates_many_filters;

SELECT form, estimate_ratio(query) BETWEEN 1.0 / 3 AND 3 AS within_3x
FROM (VALUES
	('JOIN ON bloom_contains(s.f, o.customer_id)',
	 'SELECT * FROM estimates_group_orders o
	  JOIN estimates_group_filters s ON bloom_contains(s.f, o.customer_id)'),
	('JOIN ON s.f @> o.customer_id',
	 'SELECT * FROM estimates_group_orders o
	  JOIN estimates_group_filters s ON s.f @> o.customer_id'),
	('JOIN ON o.customer_id <@ s.f',
	 'SELECT * FROM estimates_group_orders o
	  JOIN estimates_group_filters s ON o.customer_id <@ s.f'),
	('LEFT JOIN ON bloom_contains(s.f, o.customer_id)',
	 'SELECT * FROM estimates_group_filters s
	  LEFT JOIN estimates_group_orders o ON bloom_contains(s.f, o.customer_id)'),
	-- an InitPlan the planner does not read: the column's median filter
	('(SELECT f FROM many_filters WHERE grp = 7) @> customer_id',
	 'SELECT * FROM estimates_group_orders
	  WHERE (SELECT f FROM estimates_many_filters WHERE grp = 7) @> customer_id'),
	('bloom_contains((SELECT f ... ORDER BY grp LIMIT 1), customer_id)',
	 'SELECT * FROM estimates_group_orders
	  WHERE bloom_contains((SELECT f FROM estimates_group_filters ORDER BY grp LIMIT 1),
						   customer_id)')
) AS t(form, query);

-- the statistics ANALYZE keeps: mean and median n*, mean false-positive
-- rate, fill and k, and how many filters it read
SELECT round(s[1]) AS mean_n, round(s[2]) AS median_n, round(s[3]::numeric, 3) AS mean_fpr,
	   round(s[4]::numeric, 2) AS mean_fill, s[5] AS mean_k, s[6] AS filters
FROM bloom_statistics('estimates_group_filters', 'f') AS s;

--
-- ANALYZE on unusual columns: only NULLs (no slot), empty filters, large
-- filters (12 MB each, read one at a time), and damaged values (skipped,
-- and counted as NULL by the standard statistics).  A damaged value is made
-- by editing the column's bytes as bytea.
--
CREATE TABLE estimates_odd (id int, f bloom) WITH (autovacuum_enabled = false);
INSERT INTO estimates_odd VALUES (1, NULL), (2, NULL);
ANALYZE estimates_odd;
SELECT bloom_statistics('estimates_odd', 'f') AS only_nulls,
	   (SELECT stanullfrac FROM pg_statistic
		WHERE starelid = 'estimates_odd'::regclass AND staattnum = 2) AS null_fraction;
INSERT INTO estimates_odd VALUES (3, bloom_empty(0.01, 1000)), (4, bloom_empty(0.01, 1000));
ANALYZE estimates_odd;
SELECT s[1] AS mean_n, s[3] AS mean_fpr, s[6] AS filters
FROM bloom_statistics('estimates_odd', 'f') AS s;
INSERT INTO estimates_odd
SELECT 5 + g, bloom_empty(0.01, 10000000) FROM generate_series(0, 1) AS g;
INSERT INTO estimates_odd
SELECT 7 + g, bloom_agg(x, 0.01, 1000) FROM generate_series(0, 3) AS g, generate_series(1, 1000) AS x
GROUP BY g;
UPDATE pg_attribute SET atttypid = 'bytea'::regtype
WHERE attrelid = 'estimates_odd'::regclass AND attname = 'f';
UPDATE estimates_odd SET f = substr(f, 1, 20) WHERE id = 7;
UPDATE estimates_odd SET f = '\x01'::bytea WHERE id = 8;
UPDATE estimates_odd SET f = set_byte(f, 1, 77) WHERE id = 9;
UPDATE pg_attribute SET atttypid = 'bloom'::regtype
WHERE attrelid = 'estimates_odd'::regclass AND attname = 'f';
SELECT * FROM error_of('SELECT bloom_info(f) FROM estimates_odd WHERE id = 9');
ANALYZE estimates_odd;
-- read: the two empty, the two large and the one valid filter of 1,000
SELECT round(s[1]) AS mean_n, s[6] AS filters,
	   (SELECT round(stanullfrac::numeric, 2) FROM pg_statistic
		WHERE starelid = 'estimates_odd'::regclass AND staattnum = 2) AS null_fraction
FROM bloom_statistics('estimates_odd', 'f') AS s;
DELETE FROM estimates_odd WHERE id IN (7, 8, 9);

--
-- counting_bloom and scalable_bloom (1.3): the same estimates
-- (src/planner/stored_filter.c).  A counting filter is estimated as its cast
-- to bloom, the filter of its non-zero counters, which tests exactly as it
-- does; a scalable filter passes a value when a stage holds it, with the
-- compound rate over its stages.  Without planner support both would get
-- PostgreSQL's default of one third of the rows (66,667 here, 3.4 times
-- the VIP semi-join's 19,728).
--
CREATE TABLE estimates_variant_filters AS
SELECT 1 AS id, bloom(counting_bloom_agg(id, 0.01, 2000)) AS b,
	   counting_bloom_agg(id, 0.01, 2000) AS c,
	   -- five stages: 100, 200, 400, 800 and 500 of 1,600 values
	   bloom_add_all(scalable_bloom_empty(0.01, 100), array_agg(id)) AS s,
	   scalable_bloom_agg(id, 0.01) AS s_agg
FROM generate_series(0::int8, 1999) AS id;
-- the same counting filter with the VIPs 1000..1999 removed
INSERT INTO estimates_variant_filters (id, c)
SELECT 2, bloom_remove_all(c, (SELECT array_agg(id) FROM generate_series(1000::int8, 1999) AS id))
FROM estimates_variant_filters;
ANALYZE estimates_variant_filters;
SELECT count(*) AS stages
FROM estimates_variant_filters, scalable_bloom_stages(s) WHERE id = 1;

-- a constant filter (psql variables give the literals), an InitPlan the
-- planner reads, and each operator spelling
SELECT b AS vip_bloom, c AS vip_counting, s AS vip_scalable, s_agg AS vip_scalable_agg
FROM estimates_variant_filters WHERE id = 1 \gset
SELECT c AS vip_counting_half FROM estimates_variant_filters WHERE id = 2 \gset
SELECT filter, spelling,
	   estimate_ratio(format('SELECT * FROM estimates_orders WHERE ' || spelling, expression))
	   BETWEEN 0.5 AND 2 AS within_2x
FROM (VALUES
	(1, 'counting constant', quote_literal(:'vip_counting') || '::counting_bloom'),
	(2, 'counting constant, half removed', quote_literal(:'vip_counting_half') || '::counting_bloom'),
	(3, 'counting InitPlan', '(SELECT c FROM estimates_variant_filters WHERE id = 1)'),
	(4, 'scalable constant', quote_literal(:'vip_scalable') || '::scalable_bloom'),
	(5, 'scalable_bloom_agg constant', quote_literal(:'vip_scalable_agg') || '::scalable_bloom'),
	(6, 'scalable InitPlan', '(SELECT s FROM estimates_variant_filters WHERE id = 1)')
) AS f(n, filter, expression),
	(VALUES (1, 'bloom_contains(%s, customer_id)'), (2, '%s @> customer_id'),
			(3, 'customer_id <@ %s')) AS t(n, spelling)
ORDER BY f.n, t.n;

-- a counting filter is estimated exactly as its cast to bloom (column b),
-- as a constant and as an InitPlan's filter
SELECT planned_rows($$SELECT * FROM estimates_orders
		WHERE bloom_contains('$$ || :'vip_counting' || $$'::counting_bloom, customer_id)$$) =
	   planned_rows($$SELECT * FROM estimates_orders
		WHERE bloom_contains(bloom('$$ || :'vip_counting' || $$'::counting_bloom), customer_id)$$)
		AS constant_as_cast,
	   planned_rows('SELECT * FROM estimates_orders
		WHERE bloom_contains((SELECT c FROM estimates_variant_filters WHERE id = 1), customer_id)') =
	   planned_rows('SELECT * FROM estimates_orders
		WHERE bloom_contains((SELECT b FROM estimates_variant_filters WHERE id = 1), customer_id)')
		AS initplan_as_bloom;
-- empty filters pass nothing (the planner's minimum is one row)
SELECT planned_rows('SELECT * FROM estimates_orders
		WHERE bloom_contains(counting_bloom_empty(0.01, 1000), customer_id)') AS counting_empty,
	   planned_rows('SELECT * FROM estimates_orders
		WHERE bloom_contains(scalable_bloom_empty(0.01, 1000), customer_id)') AS scalable_empty;
-- a call is costed by the filter's size, as bloom's: a 4.8 MB counting
-- filter (1,000,000 values at 1%) costs more per row than one of 1,000
SELECT planned('SELECT * FROM estimates_orders
		WHERE bloom_contains(counting_bloom_empty(0.01, 1000000), customer_id)', 'Total Cost') >
	   planned('SELECT * FROM estimates_orders
		WHERE bloom_contains(counting_bloom_empty(0.01, 1000), customer_id)', 'Total Cost')
		AS larger_costs_more;

-- A join to per-group counting and scalable filters, and an InitPlan the
-- planner does not read: the statistics ANALYZE keeps of their columns,
-- those of a counting column being those of the cast filters.
CREATE TABLE estimates_variant_groups WITH (autovacuum_enabled = false) AS
SELECT c % 50 AS grp, counting_bloom_agg(c, 0.01, 200) AS c,
	   bloom_add_all(scalable_bloom_empty(0.01, 50), array_agg(c)) AS s,
	   bloom(counting_bloom_agg(c, 0.01, 200)) AS b
FROM generate_series(0::int8, 9999) AS c GROUP BY 1;
CREATE TABLE estimates_variant_many WITH (autovacuum_enabled = false) AS
SELECT grp + 50 * copy AS grp, c, s FROM estimates_variant_groups, generate_series(0, 9) AS copy;
ANALYZE estimates_variant_groups, estimates_variant_many;
SELECT form, estimate_ratio(query) BETWEEN 1.0 / 3 AND 3 AS within_3x
FROM (VALUES
	('JOIN ON bloom_contains(counting s.c, o.customer_id)',
	 'SELECT * FROM estimates_group_orders o
	  JOIN estimates_variant_groups s ON bloom_contains(s.c, o.customer_id)'),
	('JOIN ON o.customer_id <@ counting s.c',
	 'SELECT * FROM estimates_group_orders o
	  JOIN estimates_variant_groups s ON o.customer_id <@ s.c'),
	('JOIN ON scalable s.s @> o.customer_id',
	 'SELECT * FROM estimates_group_orders o
	  JOIN estimates_variant_groups s ON s.s @> o.customer_id'),
	('(SELECT c FROM many WHERE grp = 7) @> customer_id',
	 'SELECT * FROM estimates_group_orders
	  WHERE (SELECT c FROM estimates_variant_many WHERE grp = 7) @> customer_id'),
	('(SELECT s FROM many WHERE grp = 7) @> customer_id',
	 'SELECT * FROM estimates_group_orders
	  WHERE (SELECT s FROM estimates_variant_many WHERE grp = 7) @> customer_id')
) AS t(form, query);
SELECT bloom_statistics('estimates_variant_groups', 'c') =
	   bloom_statistics('estimates_variant_groups', 'b') AS counting_as_cast;
SELECT round(s[1]) AS mean_n, round(s[3]::numeric, 3) AS mean_fpr, s[6] AS filters
FROM bloom_statistics('estimates_variant_groups', 's') AS s;

DROP FUNCTION estimate_ratio(text);
DROP FUNCTION planned_rows(text);
DROP FUNCTION planned(text, text);
DROP FUNCTION bloom_statistics(regclass, name);
DROP TABLE estimates_orders, estimates_vip_filter, estimates_big, estimates_filters,
	estimates_group_orders, estimates_group_filters, estimates_many_filters, estimates_odd,
	estimates_variant_filters, estimates_variant_groups, estimates_variant_many;
