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
)
SELECT c.id AS "case",
	   c.what,
	   to_char(m.num_ms, 'FM9999990.0') AS "numerator ms",
	   to_char(m.den_ms, 'FM9999990.0') AS "denominator ms",
	   to_char(m.num_ms / m.den_ms, 'FM990.000') AS ratio,
	   to_char(p.ratio, 'FM990.000') AS "paired ratio",
	   coalesce('<= ' || c.target_max, '') AS target,
	   CASE WHEN e.case_id IS NOT NULL THEN 'ERROR'
			WHEN c.target_max IS NULL THEN ''
			WHEN m.num_ms / m.den_ms <= c.target_max THEN 'ok'
			ELSE 'MISSED' END AS verdict,
	   coalesce(m.runs, 0) AS runs,
	   to_char(100 * sp.spread, 'FM990') || '%' AS spread
FROM bench_case c
LEFT JOIN med m ON m.case_id = c.id
LEFT JOIN paired p ON p.case_id = c.id
LEFT JOIN spread sp ON sp.case_id = c.id
LEFT JOIN bench_error e ON e.case_id = c.id
ORDER BY c.id;

SELECT count(*) > 0 AS bench_has_errors FROM bench_error \gset
\if :bench_has_errors
\echo 'errors:'
SELECT case_id AS "case", side, message AS error FROM bench_error ORDER BY case_id;
\endif

\echo 'ratio = median numerator / median denominator over the timed rounds, run interleaved;'
\echo 'paired ratio = median over rounds of numerator / denominator of the same round;'
\echo 'spread = (slowest - fastest) / median of the noisier side.'
\echo 'queries:'
SELECT id AS "case", 'numerator' AS side, numerator AS query FROM bench_case
UNION ALL
SELECT id, 'denominator', denominator FROM bench_case
ORDER BY 1, 2 DESC;
