#!/usr/bin/env bash
# bench/scale.sh: the scale curve, per-row cost against filter size, against
# the server in PGHOST/PGPORT (bench.sh runs it after setup.sql; alone, it
# creates big if it is missing).
#
# For filters of N = 1M, 10M, 50M and 100M items at p = 0.01 (BENCH_SCALE_SIZES,
# in millions), it times over big's 10,000,000 rows, interleaved, median of
# BENCH_SCALE_ROUNDS (default 5) rounds:
#
#   floor     SELECT count(*) FROM big WHERE hashint8(id) <> 0
#   contains  SELECT count(*) FROM big WHERE bloom_contains((SELECT f FROM scale_filters WHERE items = N), id)
#   bloom_agg SELECT bloom_agg(id, 0.01, N) IS NOT NULL FROM big
#
# and, beside each size, the memory limit: the latency of one dependent
# random load in a buffer of the filter's size (bench/micro.c chase, built
# here with cc), which is what one probe costs when rows are evaluated one at
# a time.  Target (issue 15): contains per row <= floor + 1.3 x that load.
# Writes doc/plots/scale.tsv and, with gnuplot, doc/plots/scale.png.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
rounds=${BENCH_SCALE_ROUNDS:-5}
sizes=${BENCH_SCALE_SIZES:-1 10 50 100}
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1 -P pager=off)
work=$(mktemp -d /tmp/bloomfilter-scale.XXXXXX)
trap 'rm -rf "$work"' EXIT

"${psql[@]}" <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
CREATE UNLOGGED TABLE IF NOT EXISTS big AS
SELECT (hashint8extended(g, 1) & 9223372036854775807) % 100000001 AS id
FROM generate_series(1::int8, 10000000) AS g;
VACUUM (FREEZE, ANALYZE) big;
DROP TABLE IF EXISTS scale_filters, scale_run;
CREATE TABLE scale_filters (items int8 PRIMARY KEY, f bloom NOT NULL);
CREATE TABLE scale_run (what text, items int8, round int, ms float8);
SQL
# Each filter holds its N items: ids 0..N-1 in big's range [0, 1e8].
for millions in $sizes; do
	"${psql[@]}" -c "INSERT INTO scale_filters SELECT $millions * 1000000,
		bloom_agg(g, 0.01, $millions * 1000000) FROM generate_series(0::int8, $millions * 1000000 - 1) g"
done
"${psql[@]}" -c "VACUUM ANALYZE scale_filters"

# The memory limit: micro.c's pointer chase in buffers of each filter's size.
cc -O2 -I "$root/src" "$root/bench/micro.c" "$root"/src/core/*.c -lxxhash -lm -o "$work/micro"
mapfile -t filter_bytes < <("${psql[@]}" -Atc "SELECT items || ' ' || ((bloom_info(f)).m / 8) FROM scale_filters ORDER BY items")

for ((round = 0; round <= rounds; round++)); do
	"${psql[@]}" -At >/dev/null <<SQL
CREATE FUNCTION pg_temp.timed(query text) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t timestamptz := clock_timestamp();
BEGIN
	EXECUTE query;
	RETURN extract(epoch FROM clock_timestamp() - t) * 1000;
END \$\$;
INSERT INTO scale_run SELECT 'floor', 0, $round,
	pg_temp.timed('SELECT count(*) FROM big WHERE hashint8(id) <> 0');
INSERT INTO scale_run SELECT 'contains', items, $round,
	pg_temp.timed(format('SELECT count(*) FROM big WHERE bloom_contains((SELECT f FROM scale_filters WHERE items = %s), id)', items))
	FROM scale_filters ORDER BY items;
INSERT INTO scale_run SELECT 'bloom_agg', items, $round,
	pg_temp.timed(format('SELECT bloom_agg(id, 0.01, %s) IS NOT NULL FROM big', items))
	FROM scale_filters ORDER BY items;
SQL
	for entry in "${filter_bytes[@]}"; do
		read -r items bytes <<<"$entry"
		"$work/micro" chase "$bytes" | awk -v items="$items" -v round="$round" '{ print items, round, $3 }'
	done >>"$work/chase"
done
"${psql[@]}" -c "CREATE TABLE scale_chase (items int8, round int, ns float8)"
"${psql[@]}" -c "\\copy scale_chase FROM '$work/chase' (FORMAT text, DELIMITER ' ')"

"${psql[@]}" <<'SQL'
\pset footer off
CREATE TEMP VIEW scale AS
WITH med AS (
	SELECT what, items, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) * 1e6 / 10000000 AS ns
	FROM scale_run WHERE round > 0 GROUP BY what, items),
chase AS (
	SELECT items, percentile_cont(0.5) WITHIN GROUP (ORDER BY ns) AS ns
	FROM scale_chase WHERE round > 0 GROUP BY items)
SELECT s.items, ((bloom_info(s.f)).m / 8) / 1e6 AS mb, fl.ns AS floor_ns, c.ns AS contains_ns,
	ch.ns AS load_ns, fl.ns + 1.3 * ch.ns AS target_ns, a.ns AS agg_ns
FROM scale_filters s
	JOIN med c ON c.what = 'contains' AND c.items = s.items
	JOIN med a ON a.what = 'bloom_agg' AND a.items = s.items
	JOIN chase ch ON ch.items = s.items,
	med fl WHERE fl.what = 'floor';
\echo 'Scale curve (bench/scale.sh): ns per row over big''s 10M rows, median of the rounds;'
\echo 'load = one dependent random load in a buffer of the filter''s size (micro.c chase);'
\echo 'target: contains <= floor + 1.3 x load.'
SELECT items / 1000000 || 'M' AS "filter of", round(mb::numeric, 1) AS "filter MB",
	round(floor_ns::numeric, 1) AS "floor ns", round(contains_ns::numeric, 1) AS "contains ns",
	round((contains_ns - floor_ns)::numeric, 1) AS "contains - floor",
	round(load_ns::numeric, 1) AS "load ns", round(target_ns::numeric, 1) AS "target ns",
	CASE WHEN contains_ns <= target_ns THEN 'met' ELSE 'missed' END AS "target",
	round(agg_ns::numeric, 1) AS "bloom_agg ns"
FROM scale ORDER BY items;
\pset format unaligned
\pset tuples_only on
\pset fieldsep '\t'
\o doc-plots-scale.tsv
SELECT items, round(mb::numeric, 2), round(floor_ns::numeric, 2), round(contains_ns::numeric, 2),
	round(load_ns::numeric, 2), round(target_ns::numeric, 2), round(agg_ns::numeric, 2)
FROM scale ORDER BY items;
\o
SQL
mv doc-plots-scale.tsv "$root/doc/plots/scale.tsv"
echo "written to doc/plots/scale.tsv"
if command -v gnuplot >/dev/null; then
	(cd "$root/doc/plots" && gnuplot scale.gp) && echo "written to doc/plots/scale.png"
fi
