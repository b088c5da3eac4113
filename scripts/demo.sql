-- scripts/demo.sql: what a Bloom filter in PostgreSQL is good for, on generated data.
-- Run by "make demo" on a throwaway cluster (psql -f, ON_ERROR_STOP).  Everything
-- is deterministic: the data comes from hashes of generate_series, not random().

\pset footer off
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

CREATE EXTENSION bloomfilter;

\echo
\echo '=== The data ==='
\echo 'customers:     1,000,000 ids'
\echo 'orders:        2,000,000 rows, customer_id spread over the customers, ordered_on in 2024'
\echo 'vip_customers: 10,000 of the customers'

CREATE TABLE orders AS
SELECT g AS order_id,
       1 + (hashint8extended(g, 1) & 9223372036854775807) % 1000000 AS customer_id,
       date '2024-01-01' + ((hashint8extended(g, 2) & 2147483647) % 366)::int AS ordered_on
FROM generate_series(1, 2000000) AS g;

CREATE TABLE vip_customers AS
SELECT id FROM generate_series(1::int8, 1000000) AS id
ORDER BY hashint8extended(id, 3)
LIMIT 10000;

ANALYZE orders;
ANALYZE vip_customers;

\echo
\echo '=== 1. A semi-join prefilter ==='
\echo 'The VIP list becomes one small value that can travel anywhere (another query,'
\echo 'another server, an application cache), sized for 10,000 ids at 1% false positives:'
\echo
\echo '    CREATE TABLE vip_filter AS'
\echo '    SELECT bloom_agg(id, 0.01, 10000) AS f FROM vip_customers;'

CREATE TABLE vip_filter AS
SELECT bloom_agg(id, 0.01, 10000) AS f FROM vip_customers;

\echo
\echo 'bloom_info of the filter:'
\x on
SELECT * FROM bloom_info((SELECT f FROM vip_filter));
\x off

\echo 'Its text form starts like this (bloom:v1:h<hash scheme>:m<bits>:k<probes>:<base64>):'
SELECT left(f::text, 60) || '...' AS text_form, octet_length(f::text) AS text_length
FROM vip_filter;

\echo 'Orders whose customer passes the filter, against the exact semi-join:'
\echo
\echo '    SELECT count(*) FROM orders'
\echo '    WHERE bloom_contains((SELECT f FROM vip_filter), customer_id);'
\echo
WITH counts AS (
	SELECT
		(SELECT count(*) FROM orders
		 WHERE bloom_contains((SELECT f FROM vip_filter), customer_id)) AS passed_filter,
		(SELECT count(*) FROM orders
		 WHERE customer_id IN (SELECT id FROM vip_customers)) AS true_semi_join,
		(SELECT count(*) FROM orders
		 WHERE customer_id IN (SELECT id FROM vip_customers)
		   AND NOT bloom_contains((SELECT f FROM vip_filter), customer_id)) AS false_negatives
)
SELECT passed_filter,
       true_semi_join,
       passed_filter - true_semi_join AS false_positive_rows,
       false_negatives AS "false_negatives (always 0)",
       round(100.0 * passed_filter / 2000000, 2) AS "% of orders kept"
FROM counts;

\echo 'The false-positive rate proper: of the 990,000 customers NOT on the VIP list,'
\echo 'how many does the filter let through?  Target 0.01.'
WITH s AS (
	SELECT count(*) FILTER (WHERE bloom_contains((SELECT f FROM vip_filter), c.id)) AS let_through,
	       count(*) AS non_vip_customers
	FROM generate_series(1::int8, 1000000) AS c(id)
	WHERE c.id NOT IN (SELECT id FROM vip_customers)
)
SELECT let_through,
       non_vip_customers,
       round(let_through::numeric / non_vip_customers, 5) AS measured_false_positive_rate,
       0.01 AS target,
       (SELECT round((bloom_info(f)).false_positive_rate::numeric, 5) FROM vip_filter)
           AS "expected from the fill, (X/m)^k"
FROM s;

\echo
\echo '=== 2. Cardinality estimates (Swamidass-Baldi: n = -(m/k) ln(1 - X/m)) ==='
\echo 'Distinct VIP ids, from the 10,000-capacity filter:'
SELECT round(bloom_cardinality(f)) AS estimated, (SELECT count(DISTINCT id) FROM vip_customers) AS true_count
FROM vip_filter;

\echo 'Distinct customers per half-year, one filter each (capacity 1,000,000, p = 0.01):'
CREATE TABLE half_year AS
SELECT extract(month FROM ordered_on) <= 6 AS first_half,
       bloom_agg(customer_id, 0.01, 1000000) AS f
FROM orders
GROUP BY 1;

SELECT CASE WHEN h.first_half THEN 'Jan-Jun' ELSE 'Jul-Dec' END AS half,
       round(bloom_cardinality(h.f)) AS estimated,
       t.true_count
FROM half_year h
JOIN (SELECT extract(month FROM ordered_on) <= 6 AS first_half, count(DISTINCT customer_id) AS true_count
      FROM orders GROUP BY 1) t USING (first_half)
ORDER BY half;

\echo 'Customers who ordered in both halves, and in either:'
SELECT round(bloom_intersection_cardinality(a.f, b.f)) AS "both: bloom_intersection_cardinality",
       round(bloom_cardinality(a.f & b.f)) AS "both: cardinality of a & b (biased)",
       (SELECT count(*) FROM (SELECT customer_id FROM orders GROUP BY 1
                              HAVING bool_or(ordered_on < '2024-07-01')
                                 AND bool_or(ordered_on >= '2024-07-01')) s) AS "both: true",
       round(bloom_union_cardinality(a.f, b.f)) AS "either: estimated",
       (SELECT count(DISTINCT customer_id) FROM orders) AS "either: true",
       round(bloom_jaccard(a.f, b.f)::numeric, 4) AS jaccard
FROM half_year a, half_year b
WHERE a.first_half AND NOT b.first_half;

\echo 'Estimating an intersection from the AND of two filters counts the bits the two'
\echo 'sets share by chance as members; bloom_intersection_cardinality (n(A) + n(B) - n(A|B))'
\echo 'does not.'
