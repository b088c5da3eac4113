-- Contains cost of a scalable filter at 100x its initial capacity against a
-- single optimal filter for the same values (issue 27: at most 2x), at the
-- SQL level, in one run: n0 = 1,000, p = 0.01, 100,000 values (7 stages);
-- the single filter is bloom_empty(0.01, 100000).  Each round times
-- 1,000,000 lookups of absent values and of present ones on each filter,
-- in alternation, the filters read from a table (detoasted once per query);
-- the medians of 7 rounds and their ratios are printed.
--
--   test/pg_cluster.sh DESTDIR psql -X -f bench/scalable_contains.sql
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP TABLE IF EXISTS scalable_bench, scalable_bench_times;
CREATE TABLE scalable_bench AS
SELECT bloom_add_all(scalable_bloom_empty(0.01, 1000), ARRAY(SELECT generate_series(1, 100000))) AS s,
	bloom_add_all(bloom_empty(0.01, 100000), ARRAY(SELECT generate_series(1, 100000))) AS b;
CREATE TABLE scalable_bench_times (round int, filter text, probes text, ms float8);
SELECT (bloom_info(s)).stages, pg_column_size(s) AS scalable_bytes, pg_column_size(b) AS bloom_bytes
FROM scalable_bench;

DO $$
DECLARE
	t0 timestamptz;
	n bigint;
	q record;
BEGIN
	FOR r IN 1..7 LOOP
		FOR q IN SELECT * FROM (VALUES
			('scalable', 'absent', 'SELECT count(*) FROM generate_series(1000001, 2000000) AS v WHERE (SELECT s FROM scalable_bench) @> v'),
			('bloom', 'absent', 'SELECT count(*) FROM generate_series(1000001, 2000000) AS v WHERE (SELECT b FROM scalable_bench) @> v'),
			('scalable', 'present', 'SELECT count(*) FROM generate_series(1, 1000000) AS v WHERE (SELECT s FROM scalable_bench) @> (v % 100000 + 1)'),
			('bloom', 'present', 'SELECT count(*) FROM generate_series(1, 1000000) AS v WHERE (SELECT b FROM scalable_bench) @> (v % 100000 + 1)'),
			('none', 'absent', 'SELECT count(*) FROM generate_series(1000001, 2000000) AS v WHERE v > 0'),
			('none', 'present', 'SELECT count(*) FROM generate_series(1, 1000000) AS v WHERE (v % 100000 + 1) > 0')
			) AS t(filter, probes, query) LOOP
			t0 := clock_timestamp();
			EXECUTE q.query INTO n;
			INSERT INTO scalable_bench_times VALUES
				(r, q.filter, q.probes, extract(epoch FROM clock_timestamp() - t0) * 1000);
		END LOOP;
	END LOOP;
END
$$;

-- medians; "net" takes away the same query without a lookup
WITH m AS (
	SELECT filter, probes, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms
	FROM scalable_bench_times GROUP BY filter, probes)
SELECT probes, round(s.ms::numeric, 1) AS scalable_ms, round(b.ms::numeric, 1) AS bloom_ms,
	round(n.ms::numeric, 1) AS no_lookup_ms,
	round((s.ms / b.ms)::numeric, 2) AS ratio,
	round(((s.ms - n.ms) / (b.ms - n.ms))::numeric, 2) AS net_ratio
FROM m AS s JOIN m AS b USING (probes) JOIN m AS n USING (probes)
WHERE s.filter = 'scalable' AND b.filter = 'bloom' AND n.filter = 'none'
ORDER BY probes;
DROP TABLE scalable_bench, scalable_bench_times;
