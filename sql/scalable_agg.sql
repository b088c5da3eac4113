--
-- scalable_bloom_agg (src/agg/scalable_bloom_agg.c): the self-sizing
-- bloom_agg's states, finished as a scalable filter whose first stage is
-- sized for the distinct values seen.
--

CREATE TABLE scalable_agg_rows AS
SELECT i AS x, i % 4 AS g FROM generate_series(1, 200000) AS i;
ANALYZE scalable_agg_rows;

-- a small group: one full, self-sized stage, which bloom_add then grows
CREATE TABLE scalable_agg_t AS
SELECT scalable_bloom_agg(x, 0.01) AS f FROM scalable_agg_rows WHERE x <= 1000;
SELECT i.stages, i.initial_capacity, i.values_added, i.self_sized, s.m, s.k, s.hash_scheme,
	s.expected_false_positive_rate <= 0.002 AS stage_rate_held
FROM scalable_agg_t, bloom_info(f) AS i, scalable_bloom_stages(f) AS s;
SELECT count(*) FILTER (WHERE NOT f @> x) AS false_negatives
FROM scalable_agg_t, scalable_agg_rows WHERE x <= 1000;
-- its text form reads back (the validator knows a self-sized first stage)
SELECT f::text::scalable_bloom = f AS text_round_trip FROM scalable_agg_t;
-- the polymorphic and the bloom_hashed forms build the same filter
SELECT f = (SELECT scalable_bloom_agg(bloom_value(x), 0.01) FROM scalable_agg_rows WHERE x <= 1000)
	AS hashed_form_same
FROM scalable_agg_t;
-- grown past its first stage by 9,000 more values: every one found, rate held
UPDATE scalable_agg_t SET f = bloom_add_all(f, ARRAY(SELECT generate_series(1001, 10000)));
SELECT i.stages, i.expected_false_positive_rate < 0.01 AS rate_held,
	(SELECT count(*) FROM generate_series(1, 10000) AS v WHERE NOT f @> v) AS false_negatives,
	(SELECT count(*) FROM generate_series(1000001, 1100000) AS v WHERE f @> v) AS absent_passed
FROM scalable_agg_t, bloom_info(f) AS i;
SELECT stage, capacity, values_added, m, k FROM scalable_agg_t, scalable_bloom_stages(f);
-- one stage casts to the bloom filter it is
SELECT bloom((SELECT scalable_bloom_agg(x, 0.01) FROM scalable_agg_rows WHERE x <= 1000))
	@> 500 AS cast_holds_values;

-- past the exact phase (2^17 distinct values): folded from the sketch
SELECT i.stages, i.self_sized, abs(i.initial_capacity - 200000) < 2000 AS capacity_near_count,
	s.k, i.expected_false_positive_rate <= 0.002 AS stage_rate_held,
	(SELECT count(*) FROM generate_series(1, 200000) AS v WHERE NOT f @> v) AS false_negatives,
	(SELECT count(*) FROM generate_series(1000001, 1200000) AS v WHERE f @> v) < 400 AS absent_rate_held
FROM (SELECT scalable_bloom_agg(x, 0.01) AS f FROM scalable_agg_rows) AS a,
	bloom_info(f) AS i, scalable_bloom_stages(f) AS s;

-- no rows: an empty filter when the rate is a constant, else NULL; bad rates
SELECT scalable_bloom_agg(x, 0.01) = scalable_bloom_empty(0.01, 1) AS no_rows_constant,
	scalable_bloom_agg(x, 0.01 + g) IS NULL AS no_rows_variable
FROM scalable_agg_rows WHERE false;
SELECT * FROM error_of('SELECT scalable_bloom_agg(x, 0) FROM scalable_agg_rows');
SELECT * FROM error_of('SELECT scalable_bloom_agg(x, 1e-30) FROM scalable_agg_rows WHERE x < 10');
SELECT * FROM error_of('SELECT scalable_bloom_agg(x, 0.01 + (x % 2) * 0.01) FROM scalable_agg_rows');

-- parallel: the partial states' merge is costed as bloom_agg's, so it is
-- made cheap here to get a parallel plan; it builds what the serial one does
CREATE TABLE scalable_agg_serial AS
SELECT g, scalable_bloom_agg(x, 0.01) AS f, scalable_bloom_agg(bloom_value(x), 0.01) AS h
FROM scalable_agg_rows GROUP BY g;
ALTER FUNCTION bloom_autoagg_combinefn(internal, internal) COST 1;
ALTER FUNCTION bloom_autoagg_deserialfn(bytea, internal) COST 1;
ALTER FUNCTION bloom_autoagg_serialfn(internal) COST 1;
ALTER FUNCTION bloom_autoagg_state_combinefn(bloom_agg_state, bloom_agg_state) COST 1;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE FUNCTION scalable_agg_partial_plan(query text) RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	partial bool := false;
	gathered bool := false;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		partial := partial OR line LIKE '%Partial %Aggregate%';
		gathered := gathered OR line LIKE '%Gather%';
	END LOOP;
	RETURN partial AND gathered;
END
$$;
SELECT scalable_agg_partial_plan($$SELECT g, scalable_bloom_agg(x, 0.01),
	scalable_bloom_agg(bloom_value(x), 0.01) FROM scalable_agg_rows GROUP BY g$$) AS parallel_plan;
CREATE TABLE scalable_agg_parallel AS
SELECT g, scalable_bloom_agg(x, 0.01) AS f, scalable_bloom_agg(bloom_value(x), 0.01) AS h
FROM scalable_agg_rows GROUP BY g;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
ALTER FUNCTION bloom_autoagg_combinefn(internal, internal) COST 24000000;
ALTER FUNCTION bloom_autoagg_deserialfn(bytea, internal) COST 6000000;
ALTER FUNCTION bloom_autoagg_serialfn(internal) COST 9000000;
ALTER FUNCTION bloom_autoagg_state_combinefn(bloom_agg_state, bloom_agg_state) COST 39000000;
SELECT count(*) AS groups, count(*) FILTER (WHERE s.f = p.f AND s.h = p.h AND s.f = s.h) AS same
FROM scalable_agg_serial AS s JOIN scalable_agg_parallel AS p USING (g);

DROP FUNCTION scalable_agg_partial_plan(text);
DROP TABLE scalable_agg_rows, scalable_agg_t, scalable_agg_serial, scalable_agg_parallel;
