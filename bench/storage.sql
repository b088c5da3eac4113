-- bench/storage.sql: how the data set and the filter are stored.  The filter
-- must live out of line (TOAST) and uncompressed (STORAGE external): then
-- filters' heap stays tiny and the bits are read as they were written.
\set ON_ERROR_STOP 1
\pset footer off

SELECT relname AS "table",
	   to_char(n, 'FM999,999,999') AS "rows",
	   pg_size_pretty(pg_relation_size(relname::regclass)) AS heap,
	   pg_size_pretty(pg_total_relation_size(relname::regclass)) AS "with toast"
FROM (SELECT 'big' AS relname, count(*) AS n FROM big
	  UNION ALL SELECT 'small', count(*) FROM small
	  UNION ALL SELECT 'filters', count(*) FROM filters) AS t
ORDER BY relname;

SELECT i.m, i.k, i.bytes AS filter_bytes,
	   pg_column_size(f) AS stored_bytes,
	   coalesce(pg_column_compression(f), 'none') AS compression,
	   pg_relation_size('filters') AS heap_bytes,
	   pg_relation_size(t.reltoastrelid) AS toast_bytes,
	   CASE WHEN pg_relation_size(t.reltoastrelid) >= i.bytes
				 AND pg_relation_size('filters') < 8192 * 2
				 AND pg_column_compression(f) IS NULL
			THEN 'yes' ELSE 'NO' END AS "out of line, uncompressed",
	   round(i.estimated_cardinality) AS estimated_n,
	   (SELECT count(DISTINCT id) FROM small) AS true_n,
	   round(i.false_positive_rate::numeric, 5) AS expected_fpr
FROM filters, bloom_info(f) AS i, pg_class t
WHERE filters.id = 1 AND t.oid = 'filters'::regclass;

-- The planner's row estimate for the prefilter (src/planner/support.c; README,
-- "Planner estimates") against the true count: with the filter as a
-- parameter, which the planner sees in a custom plan, and with the filter
-- from a subquery (an InitPlan), which it cannot see.  big.id has the
-- default statistics target, so the first estimate moves from one ANALYZE to
-- the next.
CREATE FUNCTION pg_temp.planned_rows(query text, filter bloom) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan USING filter;
	RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END
$$;
SELECT to_char(e.parameter, 'FM999,999,999') AS "estimated rows, filter as parameter",
	   to_char(a.actual, 'FM999,999,999') AS "actual rows",
	   to_char(e.parameter / a.actual, 'FM990.00') AS ratio,
	   to_char(e.subquery, 'FM999,999,999') AS "estimated rows, filter from subquery"
FROM (SELECT pg_temp.planned_rows('SELECT * FROM big WHERE bloom_contains($1, id)', f) AS parameter,
			 pg_temp.planned_rows('SELECT * FROM big WHERE bloom_contains((SELECT f FROM filters WHERE id = 1), id)', NULL) AS subquery
	  FROM filters WHERE id = 1) AS e,
	 (SELECT count(*)::float8 AS actual FROM big
	  WHERE bloom_contains((SELECT f FROM filters WHERE id = 1), id)) AS a;
