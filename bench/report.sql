-- bench/report.sql: the table of medians and ratios from bench_time.
\set ON_ERROR_STOP 1
\pset footer off

WITH med AS (
	SELECT case_id,
		   percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE side = 'numerator') AS num_ms,
		   percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE side = 'denominator') AS den_ms,
		   count(*) FILTER (WHERE side = 'numerator') AS runs
	FROM bench_time GROUP BY case_id
),
-- the median of the per-round ratios: both sides of a round ran back to
-- back, so this one is robust to load that comes and goes between rounds
paired AS (
	SELECT n.case_id, percentile_cont(0.5) WITHIN GROUP (ORDER BY n.ms / d.ms) AS ratio
	FROM bench_time n
	JOIN bench_time d ON d.case_id = n.case_id AND d.round = n.round AND d.side = 'denominator'
	WHERE n.side = 'numerator'
	GROUP BY n.case_id
),
-- (max - min) / median of the noisier side: how far apart the runs were
spread AS (
	SELECT case_id, max((hi - lo) / mid) AS spread
	FROM (SELECT case_id, side, max(ms) AS hi, min(ms) AS lo,
				 percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS mid
		  FROM bench_time GROUP BY case_id, side) AS per_side
	GROUP BY case_id
),
figures AS (
	SELECT c.*, m.num_ms, m.den_ms, m.runs, p.ratio AS paired, sp.spread,
		   e.case_id IS NOT NULL AS failed,
		   CASE c.unit
				WHEN 'ratio' THEN m.num_ms / m.den_ms
				WHEN 'ms' THEN m.num_ms
				WHEN 'MB/s' THEN c.megabytes / (m.num_ms / 1000)
		   END AS figure
	FROM bench_case c
	LEFT JOIN med m ON m.case_id = c.id
	LEFT JOIN paired p ON p.case_id = c.id
	LEFT JOIN spread sp ON sp.case_id = c.id
	LEFT JOIN bench_error e ON e.case_id = c.id
)
SELECT id AS "case",
	   what,
	   to_char(num_ms, 'FM9999990.00') AS "numerator ms",
	   coalesce(to_char(den_ms, 'FM9999990.00'), '') AS "denominator ms",
	   to_char(figure, 'FM9999990.000') AS figure,
	   unit,
	   coalesce(to_char(paired, 'FM990.000'), '') AS "paired ratio",
	   coalesce('<= ' || target_max, '>= ' || target_min, '') AS target,
	   CASE WHEN failed THEN 'ERROR'
			WHEN figure IS NULL THEN 'NO DATA'
			WHEN target_max IS NULL AND target_min IS NULL THEN ''
			WHEN (target_max IS NULL OR figure <= target_max)
				 AND (target_min IS NULL OR figure >= target_min) THEN 'ok'
			ELSE 'MISSED' END AS verdict,
	   coalesce(runs, 0) AS runs,
	   to_char(100 * spread, 'FM990') || '%' AS spread
FROM figures
ORDER BY id;

SELECT count(*) > 0 AS bench_has_errors FROM bench_error \gset
\if :bench_has_errors
\echo 'errors:'
SELECT case_id AS "case", side, message AS error FROM bench_error ORDER BY case_id;
\endif

\echo 'figure: ratio = median numerator / median denominator over the timed rounds, run interleaved;'
\echo '        ms = median time; MB/s = filter megabytes / median time (absolute.sql, filters in memory);'
\echo 'paired ratio = median over rounds of numerator / denominator of the same round;'
\echo 'spread = (slowest - fastest) / median of the noisier side.'
\echo 'queries:'
SELECT id AS "case", 'numerator' AS side,
	   numerator || coalesce(' -- with ' || numerator_settings, '') AS query
FROM bench_case WHERE unit = 'ratio'
UNION ALL
SELECT id, 'denominator', denominator FROM bench_case WHERE unit = 'ratio'
ORDER BY 1, 2 DESC;
