-- examples/cache-admission.sql: one-hit-wonder cache admission.
--
-- Most objects a web cache sees are requested once and never again
-- ("one-hit wonders"); caching them on first sight only evicts objects that
-- will be asked for again.  Akamai's answer (Maggs and Sitaraman 2015,
-- "Algorithmic nuggets in content delivery") is to cache an object on its
-- second request: a Bloom filter remembers what was requested once, and an
-- object is admitted when a request finds it already in the filter.  The
-- filter has no false negatives, so every object requested twice is admitted
-- at its second request; a one-hit wonder is admitted only through a false
-- positive.
--
-- Self-contained and deterministic (the requests come from hashes of
-- generate_series, not random()); it uses temporary tables only and leaves
-- nothing behind.  Run: psql -v ON_ERROR_STOP=1 -f examples/cache-admission.sql
-- The checks at the end raise an exception if a stated property fails.

\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = notice;
CREATE EXTENSION IF NOT EXISTS bloomfilter;

-- 20,000 requests: 2,000 popular objects (ids 1..2000), each requested 5
-- times, and 10,000 one-hit wonders (ids 1000001..1010000), shuffled by a hash.
CREATE TEMP TABLE requests AS
SELECT row_number() OVER (ORDER BY hashint8extended(object_id * 8 + copy, 42)) AS request_no,
	object_id
FROM (SELECT object_id, copy
	  FROM generate_series(1::int8, 2000) AS object_id, generate_series(1, 5) AS copy
	  UNION ALL
	  SELECT object_id, 1
	  FROM generate_series(1000001::int8, 1010000) AS object_id) AS r;

-- The admission policy.  "seen" holds one filter, sized for the 12,000
-- distinct objects at 1% false positives; the cache records when each object
-- was admitted.  (A real cache would also evict, and reset the filter now and
-- then; neither changes the admission rule.)
CREATE TEMP TABLE seen AS SELECT bloom_empty(0.01, 12000) AS f;
CREATE TEMP TABLE cache (object_id int8 PRIMARY KEY, admitted_at int8 NOT NULL);

DO $$
DECLARE
	r record;
	filter bloom := (SELECT f FROM seen);
BEGIN
	FOR r IN SELECT request_no, object_id FROM requests ORDER BY request_no LOOP
		IF EXISTS (SELECT 1 FROM cache WHERE object_id = r.object_id) THEN
			CONTINUE;					-- a cache hit
		ELSIF filter @> r.object_id THEN
			-- requested before (or a false positive): admit
			INSERT INTO cache VALUES (r.object_id, r.request_no);
		ELSE
			-- first sight: remember it, do not cache it
			filter := bloom_add(filter, r.object_id);
		END IF;
	END LOOP;
	UPDATE seen SET f = filter;
END
$$;

\echo 'The filter after 20,000 requests:'
SELECT m, k, bytes, round(fill_ratio::numeric, 3) AS fill_ratio,
	round(estimated_cardinality) AS estimated_distinct,
	round(false_positive_rate::numeric, 5) AS false_positive_rate
FROM seen, LATERAL bloom_info(f);

\echo 'What was cached, against caching every object on first sight:'
SELECT count(*) FILTER (WHERE object_id <= 2000) AS popular_cached,
	count(*) FILTER (WHERE object_id > 1000000) AS one_hit_wonders_cached,
	count(*) AS cache_entries,
	(SELECT count(DISTINCT object_id) FROM requests) AS cache_entries_without_filter
FROM cache;

-- Checks.
DO $$
DECLARE
	popular_missing int8;
	admitted_late int8;
	wonders_cached int8;
	wonders int8 := 10000;
	-- each one-hit wonder is admitted with probability at most the filter's
	-- false-positive rate at that moment, at most 1.004% (bloom_expected_fpr
	-- at the 12,000 distinct objects it never exceeds); 2% is 10 standard
	-- deviations above 100 expected admissions
	bound float8 := 0.02;
BEGIN
	-- no false negatives: every popular object is cached ...
	SELECT count(*) INTO popular_missing
	FROM generate_series(1::int8, 2000) AS popular(object_id)
	WHERE NOT EXISTS (SELECT 1 FROM cache c WHERE c.object_id = popular.object_id);
	IF popular_missing <> 0 THEN
		RAISE EXCEPTION 'cache admission: % popular objects were never cached', popular_missing;
	END IF;

	-- ... no later than its second request (earlier only by a false positive)
	SELECT count(*) INTO admitted_late
	FROM cache c
	JOIN (SELECT object_id, request_no AS second_request
		  FROM (SELECT object_id, request_no,
					row_number() OVER (PARTITION BY object_id ORDER BY request_no) AS nth
				FROM requests) AS numbered
		  WHERE nth = 2) AS s USING (object_id)
	WHERE c.admitted_at > s.second_request;
	IF admitted_late <> 0 THEN
		RAISE EXCEPTION 'cache admission: % objects were admitted after their second request', admitted_late;
	END IF;

	SELECT count(*) INTO wonders_cached FROM cache WHERE object_id > 1000000;
	RAISE NOTICE 'one-hit wonders cached: % of % (%), bound %',
		wonders_cached, wonders, round(wonders_cached::numeric / wonders, 4), bound;
	IF wonders_cached > bound * wonders THEN
		RAISE EXCEPTION 'cache admission: % one-hit wonders cached, more than % of %',
			wonders_cached, bound, wonders;
	END IF;
	RAISE NOTICE 'cache admission: all checks passed';
END
$$;
