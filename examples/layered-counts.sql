-- examples/layered-counts.sql: layered Bloom filters, how often was this seen?
--
-- A layered Bloom filter estimates multiplicities: layer j holds the values
-- seen at least j times.  A new occurrence of a value goes into the first
-- layer that does not hold it yet; the estimate for a value is the number of
-- leading layers that hold it.  Here the layers are a bloom[] and the insert
-- is a small SQL function over bloom_contains and bloom_add.
--
-- What it shows, and checks at the end:
--   - the estimate is never below the true count (capped at the number of
--     layers): after c occurrences a value is in layers 1 .. c, because
--     filters have no false negatives;
--   - it is above only through a false positive of the next layer, so the
--     share of exact estimates is at least 1 minus the largest layer rate
--     (from bloom_info of each layer as built).
--
-- Self-contained and deterministic; temporary tables only.
-- Run: psql -v ON_ERROR_STOP=1 -f examples/layered-counts.sql

\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = notice;
CREATE EXTENSION IF NOT EXISTS bloomfilter;

-- 30,000 events over 5,000 values, skewed: value v occurs about 30000 /
-- (v * H) times (a Zipf-like law), shuffled by a hash.
CREATE TEMP TABLE event AS
SELECT row_number() OVER (ORDER BY hashint8extended(v * 100 + c, 7)) AS event_no, v
FROM generate_series(1::int8, 5000) AS v,
	generate_series(1, greatest(1, round(30000 / (v * 9.09))::int)) AS c;

-- Eight layers, each sized at 1% for the 5,000 distinct values.
CREATE TEMP TABLE layered AS
SELECT array_agg(bloom_empty(0.01, 5000)) AS layers FROM generate_series(1, 8);

-- One occurrence: into the first layer that lacks the value (none when all
-- hold it: the count is past the top layer).
CREATE FUNCTION pg_temp.layered_add(layers bloom[], value int8) RETURNS bloom[]
LANGUAGE plpgsql AS $$
BEGIN
	FOR j IN 1 .. cardinality(layers) LOOP
		IF NOT layers[j] @> value THEN
			layers[j] := bloom_add(layers[j], value);
			EXIT;
		END IF;
	END LOOP;
	RETURN layers;
END $$;

CREATE FUNCTION pg_temp.layered_count(layers bloom[], value int8) RETURNS int
LANGUAGE sql AS $$
	SELECT coalesce(min(j) - 1, cardinality(layers))
	FROM generate_subscripts(layers, 1) AS j WHERE NOT layers[j] @> value
$$;

DO $$
DECLARE
	e record;
	l bloom[] := (SELECT layers FROM layered);
BEGIN
	FOR e IN SELECT v FROM event ORDER BY event_no LOOP
		l := pg_temp.layered_add(l, e.v);
	END LOOP;
	UPDATE layered SET layers = l;
END $$;

CREATE TEMP TABLE estimate AS
SELECT v, least(count(*), 8) AS true_count, pg_temp.layered_count((SELECT layers FROM layered), v) AS estimated
FROM event GROUP BY v;

SELECT true_count, count(*) AS values_, count(*) FILTER (WHERE estimated = true_count) AS exact,
	count(*) FILTER (WHERE estimated > true_count) AS above, count(*) FILTER (WHERE estimated < true_count) AS below
FROM estimate GROUP BY true_count ORDER BY true_count;

SELECT j AS layer, round(i.false_positive_rate::numeric, 5) AS layer_rate
FROM layered, generate_subscripts(layers, 1) AS j, LATERAL bloom_info(layers[j]) AS i ORDER BY j;

DO $$
DECLARE
	worst float8 := (SELECT max((bloom_info(f)).false_positive_rate) FROM layered, unnest(layers) AS f);
	below bigint := (SELECT count(*) FROM estimate WHERE estimated < true_count);
	exact_share float8 := (SELECT avg((estimated = true_count)::int) FROM estimate);
BEGIN
	IF below <> 0 THEN
		RAISE EXCEPTION 'check failed: % values estimated below their true count', below;
	END IF;
	IF exact_share < 1 - worst THEN
		RAISE EXCEPTION 'check failed: exact for % of the values, below 1 - %', exact_share, worst;
	END IF;
	RAISE NOTICE 'checks passed: never below the true count; exact for % of the values (bound %)',
		round(100 * exact_share::numeric, 2) || '%', round(100 * (1 - worst)::numeric, 2) || '%';
END $$;
