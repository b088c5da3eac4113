-- examples/which-filters.sql: "which stored filters may contain x?", the
-- inverse query, through the index bloom_slices.
--
-- A site keeps one filter of visitors per hour and one filter of seen
-- items per user.  The questions people ask next are the inverse ones:
--   - which hours did visitor 42 come?
--   - which users have already seen item X?
-- Each is "which of these stored filters contain this value", a
-- sequential scan of every filter without an index.  CREATE INDEX ... USING
-- bloom_slices (f) answers it by reading, for each group of filters, only
-- the k bit positions the value probes (doc/reference.md, "The index").
--
-- What it shows, and checks at the end:
--   - the planner uses the index for f @> x, x <@ f and bloom_contains(f, x);
--   - the index finds every day a visitor came and every user who saw an
--     item (no false negative), and returns exactly the rows a sequential
--     scan returns;
--   - the hours found for 200 visitors are at least the true hours, and the
--     extra ones (false positives) are few: at most 3% of the 600,000
--     (visitor, hour) pairs looked up, for filters built at 1%;
--   - after inserts, an UPDATE that adds to a filter, a DELETE and VACUUM,
--     the same holds, and bloom_index_check finds the index sound.
--
-- Self-contained and deterministic; temporary tables only.
-- Run: psql -v ON_ERROR_STOP=1 -f examples/which-filters.sql

\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = notice;
CREATE EXTENSION IF NOT EXISTS bloomfilter;

-- the plan of a query, as one line
CREATE FUNCTION pg_temp.plan_of(query text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	plan text := '';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		plan := plan || line || ' ';
	END LOOP;
	RETURN plan;
END
$$;

-- 3,000 hours of visits, 200 a hour by 50,000 visitors (hour h's visitors
-- are picked by a hash of h).  "day" below is an hour: the table keeps the
-- name of the usual daily rollup.
CREATE TEMP TABLE visit AS
SELECT DISTINCT h AS day, (hashint8extended(h * 1000 + i, 7) % 50000 + 50000) % 50000 + 1 AS visitor
FROM generate_series(1, 3000) AS h, generate_series(1, 200) AS i;

-- one filter per hour, sized for 300 visitors at 1%
CREATE TEMP TABLE daily_visitors AS
SELECT day, bloom_agg(visitor::int8, 0.01, 300) AS f FROM visit GROUP BY day;
CREATE INDEX daily_visitors_f ON daily_visitors USING bloom_slices (f);
ANALYZE daily_visitors;

-- Which hours did visitor 42 come?
EXPLAIN (COSTS OFF) SELECT day FROM daily_visitors WHERE f @> 42::int8;
SELECT array_agg(day ORDER BY day) AS hours_of_visitor_42 FROM daily_visitors WHERE f @> 42::int8;

-- Users and the items they have seen: 200 of 10,000 items each, picked by
-- a hash of the user.
CREATE TEMP TABLE seen AS
SELECT DISTINCT u AS user_id, (hashint8extended(u * 1000 + j, 3) % 10000 + 10000) % 10000 + 1 AS item
FROM generate_series(1, 3000) AS u, generate_series(1, 200) AS j;
CREATE TEMP TABLE user_seen AS
SELECT user_id, bloom_agg(item, 0.01, 1000) AS f FROM seen GROUP BY user_id;
CREATE INDEX user_seen_f ON user_seen USING bloom_slices (f);
ANALYZE user_seen;

-- Which users have already seen item 4711?  (the same question three ways)
EXPLAIN (COSTS OFF) SELECT user_id FROM user_seen WHERE 4711 <@ f;
SELECT count(*) AS users_who_saw_4711 FROM user_seen WHERE bloom_contains(f, 4711);

-- Changes: a new day, visitors added to today's filter, a day deleted
INSERT INTO visit SELECT DISTINCT 3001, (hashint8extended(3001000 + i, 7) % 50000 + 50000) % 50000 + 1
FROM generate_series(1, 200) AS i;
INSERT INTO daily_visitors SELECT 3001, bloom_agg(visitor::int8, 0.01, 300) FROM visit WHERE day = 3001;
INSERT INTO visit SELECT 3001, v FROM (VALUES (42), (43)) AS x(v)
WHERE NOT EXISTS (SELECT 1 FROM visit WHERE day = 3001 AND visitor = v);
UPDATE daily_visitors SET f = bloom_add_all(f, ARRAY[42, 43]::int8[]) WHERE day = 3001;
DELETE FROM visit WHERE day = 7;
DELETE FROM daily_visitors WHERE day = 7;
VACUUM daily_visitors;

-- The checks.
DO $$
DECLARE
	missing bigint;
	differing bigint;
	found_rows bigint;
	true_rows bigint;
	plan text;
BEGIN
	-- the planner uses the index for each spelling
	FOR plan IN
		SELECT p FROM (VALUES ('SELECT day FROM daily_visitors WHERE f @> 42::int8'),
				('SELECT day FROM daily_visitors WHERE 42::int8 <@ f'),
				('SELECT day FROM daily_visitors WHERE bloom_contains(f, 42::int8)'),
				('SELECT user_id FROM user_seen WHERE f @> 4711')) AS q(p)
	LOOP
		IF pg_temp.plan_of(plan) NOT LIKE '%Index Scan%' THEN
			RAISE EXCEPTION 'the planner does not use the index for: %', plan;
		END IF;
	END LOOP;

	-- every (visitor, day) of 200 visitors is found: no false negative
	SELECT count(*) INTO missing
	FROM visit AS v
	WHERE v.visitor <= 200
		AND NOT EXISTS (SELECT 1 FROM daily_visitors AS d
						WHERE d.f @> v.visitor::int8 AND d.day = v.day);
	IF missing > 0 THEN
		RAISE EXCEPTION '% visits of the first 200 visitors were not found through the index', missing;
	END IF;

	-- the index returns what a sequential scan returns, value by value
	SET LOCAL enable_bitmapscan = off;
	SET LOCAL enable_indexscan = off;
	CREATE TEMP TABLE by_scan AS
	SELECT v, array_agg(day ORDER BY day) AS days
	FROM generate_series(1, 200) AS v JOIN daily_visitors ON f @> v::int8 GROUP BY v;
	SET LOCAL enable_bitmapscan = on;
	SET LOCAL enable_indexscan = on;
	SET LOCAL enable_seqscan = off;
	SELECT count(*) INTO differing
	FROM (SELECT v, array_agg(day ORDER BY day) AS days
		  FROM generate_series(1, 200) AS v JOIN daily_visitors ON f @> v::int8 GROUP BY v) AS by_index
	FULL JOIN by_scan USING (v)
	WHERE by_index.days IS DISTINCT FROM by_scan.days;
	IF differing > 0 THEN
		RAISE EXCEPTION 'the index and the scan differ for % visitors', differing;
	END IF;

	-- false positives are few: found days against true days
	SELECT count(*) INTO found_rows
	FROM generate_series(1, 200) AS v JOIN daily_visitors ON f @> v::int8;
	SELECT count(*) INTO true_rows FROM visit WHERE visitor <= 200;
	IF found_rows < true_rows OR found_rows > true_rows + 0.03 * 200 * 3000 THEN
		RAISE EXCEPTION 'found % (visitor, day) rows for % true ones', found_rows, true_rows;
	END IF;
	RESET enable_seqscan;

	-- every user who saw item 4711 is found
	SELECT count(*) INTO missing FROM seen AS s
	WHERE s.item = 4711 AND NOT EXISTS (SELECT 1 FROM user_seen AS u
										WHERE u.user_id = s.user_id AND u.f @> 4711);
	IF missing > 0 THEN
		RAISE EXCEPTION '% users who saw item 4711 were not found', missing;
	END IF;

	PERFORM bloom_index_check('daily_visitors_f', true);
	PERFORM bloom_index_check('user_seen_f', true);
	RAISE NOTICE 'which-filters: % true (visitor, hour) rows of 200 visitors, % found through the index; no visit missed',
		true_rows, found_rows;
END
$$;
