-- bloom_slices: the index over a column of filters (src/index/index.h).
-- Every query is run through the index and through a sequential scan, and
-- the two must return the same rows: the index never loses one.

CREATE TABLE ix (id int PRIMARY KEY, f bloom);

-- a comparison of the index's rows with a sequential scan's, for a clause:
-- through a bitmap scan and through a plain index scan
CREATE FUNCTION ix_same(clause text, tbl text DEFAULT 'ix') RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	by_bitmap int[];
	by_index int[];
	by_scan int[];
	plan text;
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_indexscan = off;
	SET LOCAL enable_bitmapscan = on;
	EXECUTE 'EXPLAIN (COSTS OFF) SELECT id FROM ' || tbl || ' WHERE ' || clause INTO plan;
	IF plan NOT LIKE 'Bitmap Heap Scan%' THEN
		RAISE EXCEPTION 'no bitmap scan for %: %', clause, plan;
	END IF;
	EXECUTE 'SELECT coalesce(array_agg(id ORDER BY id), ''{}'') FROM ' || tbl || ' WHERE ' || clause INTO by_bitmap;
	SET LOCAL enable_indexscan = on;
	SET LOCAL enable_bitmapscan = off;
	EXECUTE 'EXPLAIN (COSTS OFF) SELECT id FROM ' || tbl || ' WHERE ' || clause INTO plan;
	IF plan NOT LIKE 'Index Scan using ' || tbl || '_f%' THEN
		RAISE EXCEPTION 'no index scan for %: %', clause, plan;
	END IF;
	EXECUTE 'SELECT coalesce(array_agg(id ORDER BY id), ''{}'') FROM ' || tbl || ' WHERE ' || clause INTO by_index;
	SET LOCAL enable_seqscan = on;
	SET LOCAL enable_indexscan = off;
	EXECUTE 'SELECT coalesce(array_agg(id ORDER BY id), ''{}'') FROM ' || tbl || ' WHERE ' || clause INTO by_scan;
	RESET enable_seqscan;
	RESET enable_indexscan;
	RESET enable_bitmapscan;
	IF by_bitmap IS DISTINCT FROM by_scan OR by_index IS DISTINCT FROM by_scan THEN
		RETURN format('DIFFERENT: bitmap %s, index scan %s, scan %s', by_bitmap, by_index, by_scan);
	END IF;
	RETURN format('same %s rows', cardinality(by_scan));
END
$$;

-- a query's plan as EXPLAIN (FORMAT JSON) gives it, run (ANALYZE) or not
CREATE FUNCTION pg_temp.plan_json(query text, run bool DEFAULT false) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
	plan jsonb;
BEGIN
	EXECUTE format('EXPLAIN (ANALYZE %s, FORMAT JSON) ', CASE WHEN run THEN 'true' ELSE 'false' END) || query INTO plan;
	RETURN plan;
END
$$;

-- rows of mixed shapes: 1% at capacity 100 and 1000, the blocked scheme,
-- counting filters cast to bloom, an empty filter and NULL
INSERT INTO ix
SELECT g, CASE g % 5
	WHEN 0 THEN (SELECT bloom_agg(v, 0.01, 100) FROM generate_series(g, g + 20) AS v)
	WHEN 1 THEN (SELECT bloom_agg(v, 0.01, 1000) FROM generate_series(g, g + 50) AS v)
	WHEN 2 THEN (SELECT bloom_agg_shaped(bloom_value(v), 'bloom:v1:h2:m1024:k5:')
				 FROM generate_series(g, g + 30) AS v)
	WHEN 3 THEN (SELECT counting_bloom_agg(v, 0.01, 100)::bloom FROM generate_series(g, g + 10) AS v)
	ELSE CASE WHEN g % 7 = 0 THEN NULL ELSE bloom_empty(0.01, 100) END END
FROM generate_series(1, 3000) AS g;
CREATE INDEX ix_f ON ix USING bloom_slices (f);
SELECT bloom_index_check('ix_f', true);
ANALYZE ix;

-- the three spellings, and two values ANDed
SELECT ix_same('f @> 100');
SELECT ix_same('100 <@ f');
SELECT ix_same('bloom_contains(f, 100)');
SELECT ix_same('f @> 100 AND f @> 110');
SELECT ix_same('f @> bloom_value(2500)');
SELECT ix_same('f @> 100::int8');
SELECT count(*) AS null_value_rows FROM ix WHERE f @> NULL::int;
SELECT count(*) AS differing FROM generate_series(-5, 3100, 7) AS v
WHERE ix_same(format('f @> %s', v)) LIKE 'DIFFERENT%';

-- the planner: the index for a rare value once there are groups to read,
-- the scan on a table of a few rows
CREATE TABLE ix_plan AS
SELECT g AS id, (SELECT bloom_agg(v, 0.01, 100) FROM generate_series(g, g + 20) AS v) AS f
FROM generate_series(1, 6000) AS g;
CREATE INDEX ix_plan_f ON ix_plan USING bloom_slices (f);
ANALYZE ix_plan;
EXPLAIN (COSTS OFF) SELECT id FROM ix_plan WHERE f @> 100;
EXPLAIN (COSTS OFF) SELECT id FROM ix_plan WHERE 100 <@ f AND bloom_contains(f, 101);
-- the hashed form written by hand: estimated as f @> x is, so planned alike
SELECT pg_temp.plan_json('SELECT id FROM ix_plan WHERE f @> bloom_value(100)') #>> '{0,Plan,Plan Rows}' =
	pg_temp.plan_json('SELECT id FROM ix_plan WHERE f @> 100') #>> '{0,Plan,Plan Rows}' AS estimated_alike,
	(pg_temp.plan_json('SELECT id FROM ix_plan WHERE f @> 100') #>> '{0,Plan,Plan Rows}')::float8
		< 0.01 * (SELECT count(*) FROM ix_plan) AS estimate_is_small,
	pg_temp.plan_json('SELECT id FROM ix_plan WHERE f @> bloom_value(100)') #>> '{0,Plan,Node Type}'
		AS hashed_form_plan;
SELECT array_agg(id ORDER BY id) FROM ix_plan WHERE 100 <@ f AND bloom_contains(f, 101);
CREATE TABLE ix_small AS SELECT * FROM ix_plan WHERE id < 4;
CREATE INDEX ON ix_small USING bloom_slices (f);
ANALYZE ix_small;
EXPLAIN (COSTS OFF) SELECT id FROM ix_small WHERE f @> 100;
-- a join: which filters hold each of these values
CREATE TABLE ix_values AS SELECT v FROM generate_series(1, 10) AS v;
ANALYZE ix_values;
EXPLAIN (COSTS OFF) SELECT v, id FROM ix_values JOIN ix_plan ON ix_plan.f @> ix_values.v;
SELECT count(*) AS pairs,
	count(*) = (SELECT count(*) FROM ix_values, ix_plan
				WHERE bloom_contains(ix_plan.f, ix_values.v) OFFSET 0) AS same_as_scan
FROM ix_values JOIN ix_plan ON ix_plan.f @> ix_values.v;

-- values of other types; text and int of one value hash alike only where
-- encoding/encoding.c says so: each is compared with the scan
INSERT INTO ix SELECT 10000 + g, bloom_add_all(bloom_empty(0.01, 100),
	ARRAY['alpha' || g, 'beta' || g]) FROM generate_series(1, 50) AS g;
INSERT INTO ix SELECT 20000 + g, bloom_add(bloom_empty(0.01, 100),
	('00000000-0000-0000-0000-' || lpad(g::text, 12, '0'))::uuid) FROM generate_series(1, 50) AS g;
SELECT ix_same('f @> ''alpha7''::text');
SELECT ix_same('f @> ''beta49''::varchar');
SELECT ix_same('f @> ''00000000-0000-0000-0000-000000000042''::uuid');
SELECT ix_same('f @> 7.0::numeric');

-- inserts wait pending; G rows of one shape make a group (a flush)
INSERT INTO ix SELECT 30000 + g, (SELECT bloom_agg(v, 0.01, 100) FROM generate_series(g, g + 5) AS v)
FROM generate_series(1, 2100) AS g;
SELECT bloom_index_check('ix_f', true);
SELECT ix_same('f @> 1000');
SELECT ix_same('f @> 1004');

-- UPDATE of a filter, DELETE, VACUUM
UPDATE ix SET f = bloom_add(f, 424242) WHERE id IN (5, 31000, 10007);
SELECT ix_same('f @> 424242');
DELETE FROM ix WHERE id % 3 = 0;
SELECT ix_same('f @> 1000');
VACUUM ix;
SELECT bloom_index_check('ix_f', true);
SELECT ix_same('f @> 1000');
SELECT ix_same('f @> 424242');
SELECT count(*) AS differing FROM generate_series(1, 3100, 13) AS v
WHERE ix_same(format('f @> %s', v)) LIKE 'DIFFERENT%';
REINDEX INDEX ix_f;
SELECT bloom_index_check('ix_f', true);
SELECT ix_same('f @> 1000');

-- refused: bad requests and other indexes
CREATE INDEX ON ix USING bloom_slices (f) WITH (fillfactor = 50);
CREATE INDEX ON ix USING bloom_slices (id);
CREATE INDEX ON ix USING bloom_slices (f, f);
SELECT bloom_index_check('ix_pkey');
SELECT bloom_index_check('ix');
SELECT ix_same('f @> bloom_value(1)') AS hashed_form;

-- a counting filter column, through an expression index on its cast
CREATE TABLE ix_counting AS
SELECT g AS id, (SELECT counting_bloom_agg(v, 0.01, 100) FROM generate_series(g, g + 10) AS v) AS c
FROM generate_series(1, 3000) AS g;
CREATE INDEX ix_counting_c ON ix_counting USING bloom_slices ((c::bloom));
ANALYZE ix_counting;
EXPLAIN (COSTS OFF) SELECT id FROM ix_counting WHERE c::bloom @> 500;
SELECT array_agg(id ORDER BY id) = (SELECT array_agg(id ORDER BY id) FROM ix_counting WHERE c @> 500)
	AS same_as_counting FROM ix_counting WHERE c::bloom @> 500;
SELECT bloom_index_check('ix_counting_c', true);
DROP TABLE ix_counting;

-- an unlogged table's index, and a temporary one
CREATE UNLOGGED TABLE ix_unlogged AS SELECT * FROM ix WHERE id < 100;
CREATE INDEX ON ix_unlogged USING bloom_slices (f);
SELECT count(*) FROM ix_unlogged WHERE f @> 50;
CREATE TEMP TABLE ix_temp AS SELECT * FROM ix WHERE id < 100;
CREATE INDEX ON ix_temp USING bloom_slices (f);
SET enable_seqscan = off;
SELECT count(*) FROM ix_temp WHERE f @> 50;
RESET enable_seqscan;

-- groups the build writes full keep their rows' TIDs packed (index.h): at
-- maintenance_work_mem 1MB, groups of 8,128 filters of capacity 100;
-- then VACUUM removes rows from them, and new rows go to open groups
CREATE TABLE ix_packed (id int PRIMARY KEY, f bloom) WITH (autovacuum_enabled = off);
INSERT INTO ix_packed
SELECT g, (SELECT bloom_agg(v, 0.01, 100) FROM generate_series(g, g + 3) AS v)
FROM generate_series(1, 20000) AS g;
SET maintenance_work_mem = '1MB';
CREATE INDEX ix_packed_f ON ix_packed USING bloom_slices (f);
RESET maintenance_work_mem;
ANALYZE ix_packed;
SELECT bloom_index_check('ix_packed_f', true);
SELECT count(*) AS differing FROM generate_series(1, 20010, 37) AS v
WHERE ix_same(format('f @> %s', v), 'ix_packed') LIKE 'DIFFERENT%';
SELECT ix_same('f @> 17001', 'ix_packed');
DELETE FROM ix_packed WHERE id % 5 = 0 OR id BETWEEN 9000 AND 9100;
VACUUM ix_packed;
SELECT bloom_index_check('ix_packed_f', true);
SELECT ix_same('f @> 9050', 'ix_packed'), ix_same('f @> 9102', 'ix_packed');
INSERT INTO ix_packed
SELECT g, (SELECT bloom_agg(v, 0.01, 100) FROM generate_series(g, g + 3) AS v)
FROM generate_series(30001, 30600) AS g;
SELECT count(*) AS differing FROM generate_series(1, 30610, 41) AS v
WHERE ix_same(format('f @> %s', v), 'ix_packed') LIKE 'DIFFERENT%';
SELECT bloom_index_check('ix_packed_f', true);

-- a plain index scan whose rows outgrow work_mem: they move from its array
-- into a bitmap, which goes lossy (as the bitmap scan's, shown by its Heap
-- Blocks), and every row of a lossy page is rechecked
CREATE TABLE ix_lossy (id int, f bloom) WITH (fillfactor = 10);
INSERT INTO ix_lossy
SELECT g, (SELECT bloom_agg(v, 0.01, 10) FROM (VALUES (-1), (g)) AS s(v))
FROM generate_series(1, 20000) AS g;
CREATE INDEX ix_lossy_f ON ix_lossy USING bloom_slices (f);
VACUUM ANALYZE ix_lossy;
SET work_mem = '64kB';
SET enable_seqscan = off;
SET enable_indexscan = off;
SELECT jsonb_path_query_first(pg_temp.plan_json('SELECT count(*) FROM ix_lossy WHERE f @> -1', true),
	'$.** ? (@."Node Type" == "Bitmap Heap Scan")."Lossy Heap Blocks"')::int > 0 AS bitmap_went_lossy;
SET enable_indexscan = on;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ix_lossy WHERE f @> -1;
SELECT count(*) AS all_rows FROM ix_lossy WHERE f @> -1;
SELECT array_agg(id) AS row_17 FROM ix_lossy WHERE f @> 17 AND id < 1000;
RESET work_mem;
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_bitmapscan;

DROP TABLE ix, ix_plan, ix_small, ix_values, ix_unlogged, ix_temp, ix_packed, ix_lossy;
DROP FUNCTION ix_same(text, text);
