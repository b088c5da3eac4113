-- examples/scalable-seen-set.sql: an ever-growing "seen" set that keeps its
-- false-positive rate.
--
-- A crawler remembers which URLs it has seen.  Nobody knows how many there
-- will be: a `bloom` sized for too few fills up and its rate climbs; one
-- sized for "surely enough" wastes space for years.  A `scalable_bloom`
-- starts small and adds a larger, tighter stage whenever the last one is
-- full, so its rate stays at or below the target however many values come.
--
-- What it shows, and checks at the end, for a filter started at 1,000 URLs
-- and fed 200,000 distinct URLs (each seen twice on average) in 40 batches:
--   - no URL that was added is missing (no false negative);
--   - the measured false-positive rate on 200,000 URLs never added is at
--     most the 1% target;
--   - a plain bloom sized for the first 1,000 and fed the same URLs is
--     useless by the end (its measured rate, for comparison);
--   - duplicates take no room: the values counted equal the distinct URLs
--     less those that were false positives when they arrived.
--
-- Self-contained and deterministic; temporary tables only.
-- Run: psql -v ON_ERROR_STOP=1 -f examples/scalable-seen-set.sql

\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = notice;
CREATE EXTENSION IF NOT EXISTS bloomfilter;

-- 400,000 fetches of 200,000 distinct URLs, in 40 batches of 10,000.
CREATE TEMP TABLE page_fetch AS
SELECT n / 10000 AS batch, 'https://example.com/page/' || (hashint8extended(n, 3) & 262143) AS url
FROM generate_series(0, 399999) AS n;
CREATE TEMP TABLE distinct_url AS SELECT DISTINCT url FROM page_fetch;

CREATE TEMP TABLE seen (f scalable_bloom NOT NULL, plain bloom NOT NULL);
INSERT INTO seen VALUES (scalable_bloom_empty(0.01, 1000), bloom_empty(0.01, 1000));

DO $$
BEGIN
	FOR b IN 0 .. 39 LOOP
		UPDATE seen
		SET f = bloom_add_all(f, (SELECT array_agg(url) FROM page_fetch WHERE batch = b)),
			plain = bloom_add_all(plain, (SELECT array_agg(url) FROM page_fetch WHERE batch = b));
	END LOOP;
END $$;

CREATE TEMP TABLE result AS
SELECT (SELECT count(*) FROM distinct_url) AS distinct_urls,
	(SELECT count(*) FROM distinct_url, seen WHERE NOT seen.f @> url) AS false_negatives,
	i.stages, i.values_added, i.bytes,
	(SELECT count(*) FILTER (WHERE seen.f @> ('https://example.org/never/' || g))::float8 / 200000
	 FROM generate_series(1, 200000) AS g) AS measured_rate,
	(SELECT count(*) FILTER (WHERE seen.plain @> ('https://example.org/never/' || g))::float8 / 200000
	 FROM generate_series(1, 200000) AS g) AS plain_measured_rate,
	(SELECT bytes FROM bloom_optimal(0.01, (SELECT count(*) FROM distinct_url))) AS optimal_bytes
FROM seen, bloom_info(seen.f) AS i;

SELECT distinct_urls, false_negatives, stages, values_added, bytes, optimal_bytes,
	round(bytes::numeric / optimal_bytes, 2) AS memory_ratio,
	round(100 * measured_rate::numeric, 3) || '%' AS measured_rate,
	round(100 * plain_measured_rate::numeric, 1) || '%' AS plain_bloom_rate
FROM result;

SELECT stage, capacity, values_added, m, k, round(target_false_positive_rate::numeric, 6) AS target_rate
FROM seen, scalable_bloom_stages(seen.f) ORDER BY stage;

DO $$
DECLARE
	r record := (SELECT result FROM result);
BEGIN
	IF r.false_negatives <> 0 THEN
		RAISE EXCEPTION 'check failed: % URLs that were added are missing', r.false_negatives;
	END IF;
	IF r.measured_rate > 0.01 THEN
		RAISE EXCEPTION 'check failed: measured rate % above the 1%% target', r.measured_rate;
	END IF;
	IF r.values_added > r.distinct_urls OR r.values_added < 0.98 * r.distinct_urls THEN
		RAISE EXCEPTION 'check failed: % values counted for % distinct URLs', r.values_added, r.distinct_urls;
	END IF;
	RAISE NOTICE 'checks passed: no false negative; measured rate % (target 1%%) in % stages; the plain filter''s: %',
		round(100 * r.measured_rate::numeric, 3) || '%', r.stages, round(100 * r.plain_measured_rate::numeric, 1) || '%';
END $$;
