-- The recipes, lookups and page readers of t/018_index.pl (bloom_slices).
--
-- A row of a test table holds the filter of the values lo .. lo + n - 1 of
-- its kind (kind_type gives their type), built by recipe(kind, lo, n):
--
--   c100_int4      bloom_empty(0.01, 100): m = 959, k = 7
--   counting_int4  counting_bloom_agg(v, 0.01, 100)::bloom: the same shape
--   empty          bloom_empty(0.01, 100) and nothing in it (n = 0)
--   c100_text      the same shape, text values 'w' || v
--   c1000_int8     bloom_empty(0.01, 1000): m = 9,586; int8 values
--                  v * 4294967311
--   h2_uuid        the second hash scheme, 'bloom:v1:h2:m1024:k5:'; uuid
--                  values md5('u' || v)::uuid
--   c10000_int4    bloom_empty(0.01, 10000): m = 95,851 (12 kB: two pending
--                  chunks)
--   c100000_text   bloom_empty(0.01, 100000): m = 958,506 (120 kB: 15
--                  pending chunks), more than 2^19 bits: always pending
--   null           NULL
--
-- The page readers at the end mirror the layout of src/index/index.h.
CREATE EXTENSION IF NOT EXISTS bloomfilter;
CREATE EXTENSION IF NOT EXISTS pageinspect;

CREATE FUNCTION kind_type(kind text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE kind
		WHEN 'c100_text' THEN 'text' WHEN 'c100000_text' THEN 'text'
		WHEN 'c1000_int8' THEN 'int8' WHEN 'h2_uuid' THEN 'uuid'
		ELSE 'int4' END
$$;

-- the value v of a type, as an SQL literal: what a probe writes
CREATE FUNCTION value_sql(type text, v int) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE type
		WHEN 'int4' THEN format('%s::int4', v)
		WHEN 'int8' THEN format('%s::int8', v::int8 * 4294967311)
		WHEN 'text' THEN format('%L::text', 'w' || v)
		WHEN 'uuid' THEN format('%L::uuid', md5('u' || v)::uuid)
		END
$$;

CREATE FUNCTION recipe(kind text, lo int, n int) RETURNS bloom
LANGUAGE sql AS $$
	SELECT CASE kind
		WHEN 'c100_int4' THEN bloom_add_all(bloom_empty(0.01, 100),
			ARRAY(SELECT generate_series(lo, lo + n - 1)))
		WHEN 'counting_int4' THEN (SELECT counting_bloom_agg(v, 0.01, 100)::bloom
			FROM generate_series(lo, lo + n - 1) AS v)
		WHEN 'empty' THEN bloom_empty(0.01, 100)
		WHEN 'c100_text' THEN bloom_add_all(bloom_empty(0.01, 100),
			ARRAY(SELECT 'w' || v FROM generate_series(lo, lo + n - 1) AS v))
		WHEN 'c1000_int8' THEN bloom_add_all(bloom_empty(0.01, 1000),
			ARRAY(SELECT v::int8 * 4294967311 FROM generate_series(lo, lo + n - 1) AS v))
		WHEN 'h2_uuid' THEN (SELECT bloom_agg_shaped(bloom_value(md5('u' || v)::uuid), 'bloom:v1:h2:m1024:k5:')
			FROM generate_series(lo, lo + n - 1) AS v)
		WHEN 'c10000_int4' THEN bloom_add_all(bloom_empty(0.01, 10000),
			ARRAY(SELECT generate_series(lo, lo + n - 1)))
		WHEN 'c100000_text' THEN bloom_add_all(bloom_empty(0.01, 100000),
			ARRAY(SELECT 'w' || v FROM generate_series(lo, lo + n - 1) AS v))
		END
$$;

-- f with the values v .. v + count - 1 of its kind's type added
CREATE FUNCTION with_values(f bloom, kind text, v int, count int) RETURNS bloom
LANGUAGE sql AS $$
	SELECT CASE kind_type(kind)
		WHEN 'int4' THEN bloom_add_all(f, ARRAY(SELECT generate_series(v, v + count - 1)))
		WHEN 'int8' THEN bloom_add_all(f, ARRAY(SELECT g::int8 * 4294967311
			FROM generate_series(v, v + count - 1) AS g))
		WHEN 'text' THEN bloom_add_all(f, ARRAY(SELECT 'w' || g FROM generate_series(v, v + count - 1) AS g))
		WHEN 'uuid' THEN bloom_add_all(f, ARRAY(SELECT md5('u' || g)::uuid
			FROM generate_series(v, v + count - 1) AS g))
		END
$$;

-- A kind drawn at random: mostly c100_int4, every kind sometimes.
CREATE FUNCTION random_kind() RETURNS text
LANGUAGE sql AS $$
	SELECT CASE WHEN r < 0.55 THEN 'c100_int4' WHEN r < 0.63 THEN 'counting_int4'
		WHEN r < 0.70 THEN 'c100_text' WHEN r < 0.77 THEN 'c1000_int8'
		WHEN r < 0.84 THEN 'h2_uuid' WHEN r < 0.88 THEN 'c10000_int4'
		WHEN r < 0.885 THEN 'c100000_text' WHEN r < 0.93 THEN 'empty' ELSE 'null' END
	FROM (SELECT random() AS r) AS s
$$;

-- add_rows(tbl, first_id, count, kind): count new rows of kind (random_kind()
-- when NULL), values drawn from 0 .. 20,000
CREATE FUNCTION add_rows(tbl regclass, first_id int, count int, fixed_kind text DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format($q$
		INSERT INTO %s (id, kind, lo, n, f)
		SELECT id, kind, lo, n, recipe(kind, lo, n)
		FROM (SELECT id, kind, (random() * 20000)::int AS lo,
				CASE WHEN kind = 'empty' THEN 0 WHEN kind = 'c100000_text' THEN 300
					WHEN kind = 'c10000_int4' THEN 50 + (random() * 150)::int
					ELSE 3 + (random() * 25)::int END AS n
			FROM (SELECT id, coalesce($1, random_kind()) AS kind
				FROM generate_series($2, $2 + $3 - 1) AS id) AS k) AS r$q$, tbl)
	USING fixed_kind, first_id, count;
END
$$;

-- The ids of tbl's rows whose filter holds the value (an SQL expression),
-- found through the bloom_slices index (use_index) or by a sequential scan,
-- in order; the spelling is 'f @> x', 'x <@ f' or 'bloom_contains(f, x)'.
-- Through the index, both a bitmap scan and a plain index scan run, and
-- they must agree.  Anything but the plan asked for is an error.
CREATE FUNCTION probe_ids(tbl regclass, spelling text, value text, use_index bool)
RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
	clause text := replace(spelling, 'x', value);
	ids int[];
	by_plain_scan int[];
BEGIN
	IF NOT use_index THEN
		RETURN probe_ids_by(tbl, clause, 'Seq Scan on ');
	END IF;
	ids := probe_ids_by(tbl, clause, 'Bitmap Index Scan on ');
	by_plain_scan := probe_ids_by(tbl, clause, 'Index Scan using ');
	IF by_plain_scan IS DISTINCT FROM ids THEN
		RAISE EXCEPTION 'for %, the bitmap scan finds % and the plain index scan %',
			clause, ids, by_plain_scan;
	END IF;
	RETURN ids;
END
$$;

-- The ids probe_ids finds with one plan, the only one enabled: plan is how
-- EXPLAIN names its scan node.
CREATE FUNCTION probe_ids_by(tbl regclass, clause text, plan_wanted text)
RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
	line text;
	plan text := '';
	ids int[];
BEGIN
	PERFORM set_config('enable_seqscan', (plan_wanted = 'Seq Scan on ')::text, true);
	PERFORM set_config('enable_bitmapscan', (plan_wanted = 'Bitmap Index Scan on ')::text, true);
	PERFORM set_config('enable_indexscan', (plan_wanted = 'Index Scan using ')::text, true);
	FOR line IN EXECUTE format('EXPLAIN (COSTS OFF) SELECT id FROM %s WHERE %s', tbl, clause) LOOP
		plan := plan || line || E'\n';
	END LOOP;
	IF plan NOT LIKE '%' || plan_wanted || '%'
		OR (plan_wanted = 'Seq Scan on ' AND plan LIKE '%Index%')
		OR (plan_wanted = 'Index Scan using ' AND plan LIKE '%Bitmap%') THEN
		RAISE EXCEPTION 'not the plan wanted (%) for %: %', plan_wanted, clause, plan;
	END IF;
	EXECUTE format('SELECT coalesce(array_agg(id ORDER BY id), ''{}'') FROM %s WHERE %s', tbl, clause)
		INTO ids;
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
	PERFORM set_config('enable_indexscan', 'on', true);
	RETURN ids;
END
$$;

-- count probes: 3/5 present (a value of a random live row, the types taking
-- turns), the others absent (values no recipe makes, every type); each with
-- one of the three spellings.  One line each: spelling, value.
CREATE FUNCTION probes(tbl regclass, count int) RETURNS TABLE (spelling text, value text)
LANGUAGE plpgsql AS $$
DECLARE
	present int := count * 3 / 5;
BEGIN
	RETURN QUERY EXECUTE format($q$
		WITH p AS (
			(SELECT value FROM (
				SELECT value_sql(kind_type(kind), lo + (random() * (n - 1))::int) AS value,
					row_number() OVER (PARTITION BY kind_type(kind) ORDER BY random()) AS r
				FROM %s WHERE f IS NOT NULL AND n > 0) AS v
			 ORDER BY r, value LIMIT $1)
			UNION ALL
			SELECT value_sql(type, 30000 + (random() * 1000000)::int)
			FROM generate_series(1, $2 - $1) AS i,
				LATERAL (SELECT (ARRAY['int4', 'int8', 'text', 'uuid'])[1 + i %% 4] AS type) AS t)
		SELECT (ARRAY['f @> x', 'x <@ f', 'bloom_contains(f, x)'])[1 + (row_number() OVER () %% 3)::int],
			value FROM p$q$, tbl)
	USING present, count;
END
$$;

-- The little-endian unsigned integer of len bytes at offset of a page.
CREATE FUNCTION page_uint(page bytea, "offset" int, len int) RETURNS int8
LANGUAGE sql IMMUTABLE AS $$
	SELECT sum(get_byte(page, "offset" + i)::int8 << (8 * i))::int8 FROM generate_series(0, len - 1) AS i
$$;

-- What a bloom_slices metapage counts (src/index/index.h, BloomIndexMeta,
-- after the 24-byte page header): the groups, the pending pages and rows,
-- the rows in groups, the shapes.
CREATE FUNCTION index_meta(idx regclass,
	OUT groups int8, OUT pending_pages int8, OUT pending_rows int8, OUT grouped_rows int8, OUT shapes int8)
LANGUAGE sql AS $$
	SELECT page_uint(p, 48, 4), page_uint(p, 52, 4), page_uint(p, 56, 8), page_uint(p, 64, 8),
		page_uint(p, 72, 4)
	FROM get_raw_page(idx::text, 0) AS p
$$;

-- The type of each page (BloomIndexOpaque, the last 8 bytes: next, type,
-- page id): 1 meta, 2 pending, 3 group, 4 TIDs, 5 slices.
CREATE FUNCTION index_pages(idx regclass, OUT block int8, OUT type int8, OUT page_id int8)
RETURNS SETOF record LANGUAGE sql AS $$
	SELECT b, page_uint(p, 8188, 2), page_uint(p, 8190, 2)
	FROM generate_series(0, pg_relation_size(idx) / 8192 - 1) AS b,
		LATERAL get_raw_page(idx::text, b::int) AS p
$$;

-- The groups: each GROUP page's block and the m of its shape (the first
-- field of BloomGroupHeader).
CREATE FUNCTION index_groups(idx regclass, OUT block int8, OUT m int8)
RETURNS SETOF record LANGUAGE sql AS $$
	SELECT b.block, page_uint(p, 24, 8)
	FROM index_pages(idx) AS b, LATERAL get_raw_page(idx::text, b.block::int) AS p
	WHERE b.type = 3
$$;
