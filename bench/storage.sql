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
