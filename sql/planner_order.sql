--
-- With the call costed by the filter's size (planner.sql), PostgreSQL runs a
-- scan's cheaper conditions first: id % 7 = 3 (two operators) goes before
-- bloom_contains.
--
-- Apart from planner.sql because EXPLAIN names an InitPlan's value
-- differently on each major: "$0" up to 16 (planner_order.out),
-- "(InitPlan 1).col1" on 17 and 18 (planner_order_1.out),
-- "(InitPlan expr_1).col1" from 19 on (planner_order_2.out).
--
SET max_parallel_workers_per_gather = 0;
CREATE TABLE planner_order_rows WITH (autovacuum_enabled = false) AS
SELECT g::int8 AS id FROM generate_series(1, 100000) AS g;
CREATE TABLE planner_order_filters (id int PRIMARY KEY, f bloom);
INSERT INTO planner_order_filters
SELECT 1, bloom_agg(id, 0.01, 1000000) FROM planner_order_rows WHERE id % 3 = 0;
ANALYZE planner_order_rows, planner_order_filters;

EXPLAIN (COSTS OFF)
SELECT * FROM planner_order_rows
WHERE bloom_contains((SELECT f FROM planner_order_filters WHERE id = 1), id) AND id % 7 = 3;
-- the same order, whichever is written first
EXPLAIN (COSTS OFF)
SELECT * FROM planner_order_rows
WHERE id % 7 = 3 AND bloom_contains((SELECT f FROM planner_order_filters WHERE id = 1), id);

DROP TABLE planner_order_rows, planner_order_filters;
