-- examples/semi-join.sql: a Bloom filter as a semi-join prefilter.
--
-- The classic distributed-database use (Bloomjoin, Mackert and Lohman 1986):
-- to find the rows of a large table whose key appears in a small one that
-- lives elsewhere, send a filter of the small side's keys instead of the keys
-- themselves, drop most non-matching rows where the large table is, and run
-- the exact join only on what passes.  The filter never drops a matching row
-- (no false negatives), so prefilter + exact join = exact join.
--
-- Self-contained and deterministic (data from hashes of generate_series, not
-- random()); temporary tables only.
-- Run: psql -v ON_ERROR_STOP=1 -f examples/semi-join.sql
-- The checks at the end raise an exception if a stated property fails.

\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = notice;
CREATE EXTENSION IF NOT EXISTS bloomfilter;

-- 300,000 orders from 100,000 customers; 2,000 of the customers are flagged
-- for review (on another server, say).
CREATE TEMP TABLE orders AS
SELECT g AS order_id,
	1 + (hashint8extended(g, 1) & 9223372036854775807) % 100000 AS customer_id,
	(hashint8extended(g, 2) & 65535) / 100.0 AS amount
FROM generate_series(1::int8, 300000) AS g;

CREATE TEMP TABLE flagged_customers AS
SELECT id AS customer_id FROM generate_series(1::int8, 100000) AS id
ORDER BY hashint8extended(id, 3)
LIMIT 2000;

-- The side that is shipped: one value, sized for 2,000 keys at 1%.
CREATE TEMP TABLE flagged_filter AS
SELECT bloom_agg(customer_id, 0.01, 2000) AS f FROM flagged_customers;

\echo 'What travels: the filter, against the list of keys it replaces'
SELECT octet_length(f::text) AS filter_text_bytes,
	(SELECT sum(octet_length(customer_id::text) + 1) FROM flagged_customers) AS key_list_text_bytes
FROM flagged_filter;

\echo 'Orders that pass the prefilter, and how many of them truly match:'
CREATE TEMP TABLE prefiltered AS
SELECT o.* FROM orders o
WHERE o.customer_id <@ (SELECT f FROM flagged_filter);

SELECT (SELECT count(*) FROM orders) AS orders,
	(SELECT count(*) FROM prefiltered) AS passed_prefilter,
	(SELECT count(*) FROM prefiltered p
	 WHERE p.customer_id IN (SELECT customer_id FROM flagged_customers)) AS true_matches;

-- Checks.
DO $$
DECLARE
	exact_ids int8[];
	via_filter_ids int8[];
	non_matching int8;
	passed_non_matching int8;
	rate float8;
	-- planned 0.01; about 294,000 non-matching orders come from 98,000
	-- customers, and a customer's orders pass or fail together, so the
	-- binomial counts customers: its standard deviation is about 0.0003,
	-- and 0.013 is 10 of them above the target
	bound float8 := 0.013;
BEGIN
	-- prefilter + exact join gives exactly the exact join
	SELECT array_agg(order_id ORDER BY order_id) INTO exact_ids
	FROM orders WHERE customer_id IN (SELECT customer_id FROM flagged_customers);
	SELECT array_agg(order_id ORDER BY order_id) INTO via_filter_ids
	FROM prefiltered WHERE customer_id IN (SELECT customer_id FROM flagged_customers);
	IF exact_ids IS DISTINCT FROM via_filter_ids THEN
		RAISE EXCEPTION 'semi-join: the prefiltered join differs from the exact join (% against % rows)',
			cardinality(via_filter_ids), cardinality(exact_ids);
	END IF;

	-- the prefilter lets through about 1% of the rows that do not match
	SELECT count(*) FILTER (WHERE customer_id NOT IN (SELECT customer_id FROM flagged_customers))
	INTO non_matching FROM orders;
	SELECT count(*) INTO passed_non_matching FROM prefiltered
	WHERE customer_id NOT IN (SELECT customer_id FROM flagged_customers);
	rate := passed_non_matching::float8 / non_matching;
	RAISE NOTICE 'exact join: % orders; non-matching orders let through: % of % (%), planned 0.01, bound %',
		cardinality(exact_ids), passed_non_matching, non_matching, round(rate::numeric, 5), bound;
	IF rate > bound THEN
		RAISE EXCEPTION 'semi-join: false-positive rate % above %', rate, bound;
	END IF;
	RAISE NOTICE 'semi-join: all checks passed';
END
$$;
