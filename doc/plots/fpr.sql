-- doc/plots/fpr.sql: the false-positive rate of one filter as it fills.
--
-- One filter, bloom_empty(0.01, 10000) (m = 95851, k = 7), gets the values
-- 1, 2, ... in batches; after each batch 100,000 values that were never
-- added (1e9 + 1 ...) are probed and the share that passes is the measured
-- rate.  Beside it: the classic estimate and the Goel-Gupta bound
-- (bloom_expected_fpr) and the filter's own (X/m)^k (bloom_info).
-- Output, tab-separated: n, measured, classic, goel_gupta_bound,
-- current (X/m)^k, binomial standard deviation of the measurement at the
-- classic rate.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;

CREATE TEMP TABLE probes AS
SELECT 1000000000::int8 + g AS v FROM generate_series(1, 100000) AS g;
CREATE TEMP TABLE points (n int8, measured float8, classic float8, bound float8,
						  current float8, sigma float8);

DO $$
DECLARE
	f bloom := bloom_empty(0.01, 10000);
	step int8 := 500;
	passed int8;
	total int8 := (SELECT count(*) FROM probes);
BEGIN
	FOR n IN 0..30000 BY step LOOP
		IF n > 0 THEN
			f := f | (SELECT bloom_agg(g, 0.01, 10000) FROM generate_series(n - step + 1, n) AS g);
		END IF;
		SELECT count(*) INTO passed FROM probes WHERE f @> v;
		INSERT INTO points
		SELECT n, passed::float8 / total, e.classic, e.goel_gupta_bound,
			i.false_positive_rate, sqrt(e.classic * (1 - e.classic) / total)
		FROM bloom_info(f) AS i, LATERAL bloom_expected_fpr(i.m, i.k, n) AS e;
	END LOOP;
END
$$;

\pset format unaligned
\pset fieldsep '\t'
\pset tuples_only on
\pset footer off
SELECT * FROM points ORDER BY n;
