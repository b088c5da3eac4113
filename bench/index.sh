#!/usr/bin/env bash
# bench/index.sh: bloom_slices, the index over a column of filters, against
# the sequential scan it replaces, on the server in PGHOST/PGPORT (bench.sh
# runs it as its part "index"; it can also run alone).
#
# For each size in BENCH_INDEX_ROWS (default "100000 1000000"): that many
# filters at capacity 1,000 and p = 0.01 (m = 9,586, 1.2 kB), of 200 to
# 1,000 values each, built with bloom_agg (timed: the build of the index is
# compared with it), every hundredth holding the value -1 as well.  Then the
# index is built, and
#
#   - its size against the filters' bytes (sum of pg_column_size);
#   - a lookup of a value in no filter (about 0.2% of the filters hold it
#     falsely), and of -1 (1% of the rows), each timed through the index
#     and through a sequential scan, interleaved, BENCH_INDEX_RUNS (default
#     7) times: the medians and their ratio.  The index is timed repeated
#     (the same lookup twice in a row: its pages and the rows it finds are
#     in the CPU's caches), right after a scan (which flushes them), and for
#     a value no run asked before (whose rows may not be in shared buffers);
#   - single-row inserts into the indexed table (pgbench, one client,
#     BENCH_INDEX_SECONDS, default 10): rows a second, pending rows and
#     flushes into groups included.
#
# Then the same lookups over 10,000 filters of 12 kB (capacity 10,000).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sizes=${BENCH_INDEX_ROWS:-100000 1000000}
runs=${BENCH_INDEX_RUNS:-7}
seconds=${BENCH_INDEX_SECONDS:-10}
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1 -P pager=off)
work=$(mktemp -d /tmp/bloomfilter-index.XXXXXX)
trap 'rm -rf "$work"' EXIT

"${psql[@]}" <<'EOF'
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
-- the median of runs timings (ms) of query (a format with one %s for a
-- value), through the index and through a sequential scan, interleaved, and
-- which plan the planner chooses.  Each run times the index three times,
-- through the plan the planner prefers: with value right after a scan (the
-- scan has flushed the CPU's caches, not shared buffers), with value at once
-- again (the lookup repeated), and with a value no run asked before (fresh +
-- r: its rows are other heap pages, which may not be in shared buffers).  It
-- also times the bitmap scan the same way, right after a scan and repeated,
-- and every other run does so first, so that neither gains from the other.
DROP FUNCTION IF EXISTS bench_index_pair(text, int8, int8, int);
CREATE FUNCTION bench_index_pair(query text, value int8, fresh int8, runs int,
	OUT index_ms float8, OUT after_scan_ms float8, OUT fresh_ms float8,
	OUT bitmap_ms float8, OUT bitmap_after_scan_ms float8, OUT scan_ms float8,
	OUT index_rows bigint, OUT scan_rows bigint, OUT planner_chose text)
LANGUAGE plpgsql AS $$
DECLARE
	t timestamptz;
	by_index float8[] := '{}';
	after_scan float8[] := '{}';
	by_fresh float8[] := '{}';
	by_bitmap float8[] := '{}';
	bitmap_after_scan float8[] := '{}';
	by_scan float8[] := '{}';
	plan text := '';
	line text;
	rows bigint;
	fresh_rows bigint;
	bitmap boolean;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || format(query, value) LOOP
		plan := plan || line || ' ';
	END LOOP;
	planner_chose := CASE WHEN plan LIKE '%Bitmap Index Scan%' THEN 'bitmap index scan'
		WHEN plan LIKE '%Index Scan%' THEN 'index scan' ELSE 'sequential scan' END;
	FOR r IN 1 .. runs * 2 LOOP
		bitmap := r % 4 IN (0, 1);
		PERFORM set_config('enable_indexscan', 'off', true);
		PERFORM set_config('enable_bitmapscan', 'off', true);
		PERFORM set_config('enable_seqscan', 'on', true);
		t := clock_timestamp();
		EXECUTE format(query, value) INTO scan_rows;
		by_scan := by_scan || extract(epoch FROM clock_timestamp() - t) * 1000;
		PERFORM set_config('enable_indexscan', (NOT bitmap)::text, true);
		PERFORM set_config('enable_bitmapscan', 'on', true);
		PERFORM set_config('enable_seqscan', 'off', true);
		t := clock_timestamp();
		EXECUTE format(query, value) INTO rows;
		IF bitmap THEN
			bitmap_after_scan := bitmap_after_scan || extract(epoch FROM clock_timestamp() - t) * 1000;
		ELSE
			after_scan := after_scan || extract(epoch FROM clock_timestamp() - t) * 1000;
		END IF;
		t := clock_timestamp();
		EXECUTE format(query, value) INTO rows;
		IF bitmap THEN
			by_bitmap := by_bitmap || extract(epoch FROM clock_timestamp() - t) * 1000;
		ELSE
			index_rows := rows;
			by_index := by_index || extract(epoch FROM clock_timestamp() - t) * 1000;
			PERFORM set_config('enable_indexscan', 'on', true);
			t := clock_timestamp();
			EXECUTE format(query, fresh + r) INTO fresh_rows;
			by_fresh := by_fresh || extract(epoch FROM clock_timestamp() - t) * 1000;
		END IF;
		IF rows <> scan_rows THEN
			RAISE EXCEPTION 'index and scan differ for %: % and % rows', format(query, value), rows, scan_rows;
		END IF;
	END LOOP;
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
	PERFORM set_config('enable_seqscan', 'on', true);
	SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) INTO index_ms FROM unnest(by_index) AS x;
	SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) INTO after_scan_ms FROM unnest(after_scan) AS x;
	SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) INTO fresh_ms FROM unnest(by_fresh) AS x;
	SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) INTO bitmap_ms FROM unnest(by_bitmap) AS x;
	SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) INTO bitmap_after_scan_ms
		FROM unnest(bitmap_after_scan) AS x;
	SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) INTO scan_ms FROM unnest(by_scan) AS x;
END
$$;
-- The rows a lookup of value returns, fetched alone by their TIDs (a TID
-- scan, which reads one page after another: the plain index scan prefetches
-- them), repeated and right after a sequential scan of table, medians of runs.
DROP FUNCTION IF EXISTS bench_rows_alone(regclass, int8, int);
CREATE FUNCTION bench_rows_alone(tbl regclass, value int8, runs int,
	OUT rows_ms float8, OUT rows_after_scan_ms float8, OUT row_count bigint)
LANGUAGE plpgsql AS $$
DECLARE
	t timestamptz;
	repeated float8[] := '{}';
	after_scan float8[] := '{}';
	scan_rows bigint;
	tids tid[];
	fetch_rows text := format('SELECT count(*) FROM %s WHERE ctid = ANY($1)', tbl);
BEGIN
	EXECUTE format('SELECT array_agg(ctid) FROM %s WHERE f @> $1', tbl) INTO tids USING value;
	FOR r IN 1 .. runs LOOP
		PERFORM set_config('enable_indexscan', 'off', true);
		PERFORM set_config('enable_bitmapscan', 'off', true);
		EXECUTE format('SELECT count(*) FROM %s WHERE f @> $1', tbl) INTO scan_rows USING value;
		t := clock_timestamp();
		EXECUTE fetch_rows INTO row_count USING tids;
		after_scan := after_scan || extract(epoch FROM clock_timestamp() - t) * 1000;
		t := clock_timestamp();
		EXECUTE fetch_rows INTO row_count USING tids;
		repeated := repeated || extract(epoch FROM clock_timestamp() - t) * 1000;
	END LOOP;
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
	IF row_count <> scan_rows THEN
		RAISE EXCEPTION 'a TID scan fetched % rows of %', row_count, scan_rows;
	END IF;
	SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) INTO rows_ms FROM unnest(repeated) AS x;
	SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) INTO rows_after_scan_ms FROM unnest(after_scan) AS x;
END
$$;
EOF

ms() { date +%s%3N; }

lookups() {
	local table=$1 label=$2
	"${psql[@]}" -v table="$table" -v label="$label" -v runs="$runs" <<'EOF'
SELECT format(E'%s index %s ms, scan %s ms: 1/%s (%s rows; the planner chooses the %s)\n%s right after a scan %s ms: 1/%s; a value not asked before %s ms: 1/%s\n%s the bitmap scan: %s ms (1/%s), right after a scan %s ms (1/%s)',
	rpad(:'label' || ', a value in no filter:', 40), round(index_ms::numeric, 2), round(scan_ms::numeric, 2),
	round((scan_ms / index_ms)::numeric), index_rows, planner_chose,
	rpad('', 40), round(after_scan_ms::numeric, 2), round((scan_ms / after_scan_ms)::numeric),
	round(fresh_ms::numeric, 2), round((scan_ms / fresh_ms)::numeric),
	rpad('', 40), round(bitmap_ms::numeric, 2), round((scan_ms / bitmap_ms)::numeric),
	round(bitmap_after_scan_ms::numeric, 2), round((scan_ms / bitmap_after_scan_ms)::numeric)) AS format, scan_ms
FROM bench_index_pair(format('SELECT count(*) FROM %I WHERE f @> %%s::int8', :'table'), 424242, 525252, :runs) \gset p_
\echo :p_format
SELECT format(E'%s the %s rows alone, by a TID scan (no prefetching): %s ms (1/%s), right after a scan %s ms (1/%s)',
	rpad('', 40), row_count, round(rows_ms::numeric, 2), round((:p_scan_ms / rows_ms)::numeric),
	round(rows_after_scan_ms::numeric, 2), round((:p_scan_ms / rows_after_scan_ms)::numeric))
FROM bench_rows_alone(:'table', 424242, :runs) \gset r_
\echo :r_format
SELECT format(E'%s index %s ms, scan %s ms: 1/%s (%s rows; the planner chooses the %s)\n%s right after a scan %s ms: 1/%s; the bitmap scan %s ms (1/%s)',
	rpad(:'label' || ', 1% of rows:', 40), round(index_ms::numeric, 2), round(scan_ms::numeric, 2),
	round((scan_ms / index_ms)::numeric, 1), index_rows, planner_chose,
	rpad('', 40), round(after_scan_ms::numeric, 2), round((scan_ms / after_scan_ms)::numeric, 1),
	round(bitmap_ms::numeric, 2), round((scan_ms / bitmap_ms)::numeric, 1))
FROM bench_index_pair(format('SELECT count(*) FROM %I WHERE f @> %%s::int8', :'table'), -1, -1000, :runs) \gset p_
\echo :p_format
EOF
}

for n in $sizes; do
	echo
	echo "bloom_slices over $n filters (capacity 1,000, p = 0.01, 200 to 1,000 values each):"
	"${psql[@]}" -v n="$n" <<'EOF'
DROP TABLE IF EXISTS bench_seen;
CREATE TABLE bench_seen (id int, f bloom);
EOF
	t=$(ms)
	"${psql[@]}" -v n="$n" <<'EOF'
INSERT INTO bench_seen
SELECT g, (SELECT bloom_agg(v, 0.01, 1000)
		   FROM (SELECT g::int8 * 100000 + i AS v FROM generate_series(1, 200 + (g::int8 * 7919) % 801) AS i
				 UNION ALL SELECT -1 WHERE g % 100 = 0) AS s)
FROM generate_series(1, :n) AS g;
EOF
	filters_ms=$(($(ms) - t))
	"${psql[@]}" -c "VACUUM ANALYZE bench_seen"
	t=$(ms)
	"${psql[@]}" -c "CREATE INDEX bench_seen_f ON bench_seen USING bloom_slices (f)"
	index_ms=$(($(ms) - t))
	# the build's pages written out now, not under the lookups' timings
	"${psql[@]}" -c "CHECKPOINT"
	"${psql[@]}" -At -v filters_ms="$filters_ms" -v index_ms="$index_ms" <<'EOF'
SELECT format('  filters built by bloom_agg in %s ms; the index in %s ms (%s of it)',
	:filters_ms, :index_ms, round(:index_ms::numeric / :filters_ms, 2));
SELECT format('  index %s bytes, filters %s bytes: %s times',
	pg_relation_size('bench_seen_f'), sum(pg_column_size(f)),
	round(pg_relation_size('bench_seen_f')::numeric / sum(pg_column_size(f)), 3))
FROM bench_seen;
EOF
	lookups bench_seen "  $n filters"

	# single-row inserts: filters copied from the table, one per statement
	"${psql[@]}" -c "CREATE TABLE bench_seen_source AS SELECT id, f FROM bench_seen WHERE id <= 20000; ALTER TABLE bench_seen_source ADD PRIMARY KEY (id)"
	printf '\\set id random(1, 20000)\nINSERT INTO bench_seen SELECT -id, f FROM bench_seen_source WHERE id = :id;\n' \
		>"$work/insert.sql"
	tps=$("$bindir/pgbench" -n -M prepared -c 1 -T "$seconds" -f "$work/insert.sql" 2>/dev/null |
		awk '/^tps/ { printf "%.0f", $3 }')
	echo "  single-row inserts into the indexed table: $tps rows a second (pgbench, 1 client, ${seconds} s)"
	"${psql[@]}" -c "SELECT bloom_index_check('bench_seen_f')"
	"${psql[@]}" -c "DROP TABLE bench_seen, bench_seen_source"
done

echo
echo "bloom_slices over 10,000 filters of 12 kB (capacity 10,000, p = 0.01, 2,000 to 10,000 values):"
"${psql[@]}" <<'EOF'
DROP TABLE IF EXISTS bench_large;
CREATE TABLE bench_large (id int, f bloom);
INSERT INTO bench_large
SELECT g, (SELECT bloom_agg(v, 0.01, 10000)
		   FROM (SELECT g::int8 * 100000 + i AS v FROM generate_series(1, 2000 + (g::int8 * 7919) % 8001) AS i
				 UNION ALL SELECT -1 WHERE g % 100 = 0) AS s)
FROM generate_series(1, 10000) AS g;
VACUUM ANALYZE bench_large;
EOF
t=$(ms)
"${psql[@]}" -c "CREATE INDEX bench_large_f ON bench_large USING bloom_slices (f)"
index_ms=$(($(ms) - t))
"${psql[@]}" -c "CHECKPOINT"
"${psql[@]}" -At -v index_ms="$index_ms" <<'EOF'
SELECT format('  index built in %s ms; %s bytes, filters %s bytes: %s times', :index_ms,
	pg_relation_size('bench_large_f'), sum(pg_column_size(f)),
	round(pg_relation_size('bench_large_f')::numeric / sum(pg_column_size(f)), 3))
FROM bench_large;
EOF
lookups bench_large "  10,000 filters of 12 kB"
"${psql[@]}" -c "DROP TABLE bench_large"
