-- examples/sliding-window.sql: "seen in the last 24 hours" with a counting
-- filter.
--
-- A fraud check asks whether a card was used in the last 24 hours.  A
-- counting filter holds the window: every hour, the hour's new events are
-- added and the events of the hour that just left the window are removed
-- (bloom_add_all, bloom_remove_all).  Only values that were added are ever
-- removed, so removal never takes a counter another value owns: the filter
-- stays exactly the filter of the events in the window.
--
-- What it shows, and checks at the end, over 72 hourly steps of 2,000
-- events (a window of 48,000, the filter sized for 50,000 at 1%):
--   - at every step, no event of the window is missing (no false negative);
--   - at every step, the filter equals counting_bloom_agg of the window's
--     events, counter for counter;
--   - events that left the window test positive only as false positives:
--     at the last step, at most 1.5% of the 48,000 expired events of the
--     previous day (the filter's expected rate is about 1%; 1.5% is over
--     10 standard deviations above it).
--
-- Self-contained and deterministic; temporary tables only.
-- Run: psql -v ON_ERROR_STOP=1 -f examples/sliding-window.sql

\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = notice;
CREATE EXTENSION IF NOT EXISTS bloomfilter;

-- Events: hour h (0 .. 71) has 2,000 card numbers, ids 100000 * h + 1 ..
-- 100000 * h + 2000 scrambled by a hash, so each event is one card use.
CREATE TEMP TABLE event (hour int, card int8);
INSERT INTO event
SELECT h, hashint8extended(100000 * h + i, 11)
FROM generate_series(0, 71) AS h, generate_series(1, 2000) AS i;
CREATE INDEX ON event (hour);

CREATE TEMP TABLE seen_last_day (f counting_bloom NOT NULL, hour int NOT NULL);
INSERT INTO seen_last_day VALUES (counting_bloom_empty(0.01, 50000), -1);

CREATE TEMP TABLE step_check (hour int, missing bigint, equals_rebuilt bool);

DO $$
BEGIN
	FOR h IN 0 .. 71 LOOP
		-- the new hour in, the hour 24 hours back out
		UPDATE seen_last_day
		SET f = bloom_remove_all(
					bloom_add_all(f, (SELECT array_agg(card) FROM event WHERE hour = h)),
					coalesce((SELECT array_agg(card) FROM event WHERE hour = h - 24), '{}')),
			hour = h;
		INSERT INTO step_check
		SELECT h,
			(SELECT count(*) FROM event e WHERE e.hour > h - 24 AND e.hour <= h AND NOT s.f @> e.card),
			s.f = (SELECT counting_bloom_agg(card, 0.01, 50000) FROM event e WHERE e.hour > h - 24 AND e.hour <= h)
		FROM seen_last_day s;
	END LOOP;
END $$;

SELECT min(hour) AS first_hour, max(hour) AS last_hour, sum(missing) AS false_negatives,
	bool_and(equals_rebuilt) AS always_the_window_filter
FROM step_check;

CREATE TEMP TABLE expired AS
SELECT count(*) AS expired_events, count(*) FILTER (WHERE s.f @> e.card) AS still_positive,
	(SELECT false_positive_rate FROM bloom_info(s.f)) AS expected_rate
FROM seen_last_day s JOIN event e ON e.hour BETWEEN 24 AND 47
GROUP BY s.f;
SELECT expired_events, still_positive,
	round(100.0 * still_positive / expired_events, 3) || '%' AS measured,
	round(100 * expected_rate::numeric, 3) || '%' AS expected
FROM expired;

DO $$
DECLARE
	fn bigint := (SELECT sum(missing) FROM step_check);
	differs bigint := (SELECT count(*) FROM step_check WHERE NOT equals_rebuilt);
	rate float8 := (SELECT still_positive::float8 / expired_events FROM expired);
BEGIN
	IF (SELECT count(*) FROM step_check) <> 72 THEN
		RAISE EXCEPTION 'check failed: % steps ran, not 72', (SELECT count(*) FROM step_check);
	END IF;
	IF fn <> 0 THEN
		RAISE EXCEPTION 'check failed: % events of their window were missing', fn;
	END IF;
	IF differs <> 0 THEN
		RAISE EXCEPTION 'check failed: at % steps the filter was not the filter of the window', differs;
	END IF;
	IF rate > 0.015 THEN
		RAISE EXCEPTION 'check failed: % of the expired events still test positive', rate;
	END IF;
	RAISE NOTICE 'checks passed: 72 steps, no false negative, always the window''s filter; expired events positive: %',
		round(100 * rate::numeric, 3) || '%';
END $$;
