-- doc/plots/cardinality.sql: the Swamidass-Baldi estimate against the true
-- number of distinct values, across the whole fill range of one filter.
--
-- One filter, bloom_empty(0.01, 10000) (m = 95851, k = 7), gets the values
-- 1, 2, ... in batches until it is almost saturated; after each batch
-- bloom_cardinality is compared with the true count.  Output, tab-separated:
-- n, estimate, fill ratio X/m, and the delta-method standard deviation of
-- the estimate, sqrt(m (e^t - t - 1)) / k with t = kn/m.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;

CREATE TEMP TABLE points (n int8, estimate float8, fill_ratio float8, sigma float8);

DO $$
DECLARE
	f bloom := bloom_empty(0.01, 10000);
	step int8 := 1000;
BEGIN
	FOR n IN step..80000 BY step LOOP
		f := f | (SELECT bloom_agg(g, 0.01, 10000) FROM generate_series(n - step + 1, n) AS g);
		INSERT INTO points
		SELECT n, bloom_cardinality(f), i.fill_ratio,
			sqrt(i.m * (exp(i.k * n::float8 / i.m) - i.k * n::float8 / i.m - 1)) / i.k
		FROM bloom_info(f) AS i;
	END LOOP;
END
$$;

\pset format unaligned
\pset fieldsep '\t'
\pset tuples_only on
\pset footer off
SELECT * FROM points ORDER BY n;
