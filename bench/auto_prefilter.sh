#!/usr/bin/env bash
# bench/auto_prefilter.sh INSTDIR: bloomfilter.auto_prefilter's costs.
#
# 1. When an automatic prefilter pays, against the ratio of remote rows to
#    local keys (bloomfilter.auto_prefilter_min_ratio).
#
# One throwaway cluster, listening on 127.0.0.1, with a loopback postgres_fdw
# server (extensions 'bloomfilter').  Local keys: 10,000 ids.  For each remote
# size R it builds two remote tables:
#   all-match  every remote row matches a key (ids cycle over the keys): the
#              filter cannot drop anything, so this is its pure overhead;
#   1%-match   remote ids 1..R, keys every 100th id: a 100th of the rows match.
# and times (EXPLAIN ANALYZE, TIMING OFF, median of BENCH_ROUNDS, default 5,
# interleaved) the plain join with the setting off and on, with
# auto_prefilter_min_ratio = 0 so the prefilter is added at every R.
# Prints off / on per (R, kind): above 1 the prefilter pays.
#
# 2. What the setting costs the planner: pgbench -M simple (parse, plan, no
#    plan cache) of EXPLAIN (COSTS OFF) of queries the setting must leave
#    alone, and of eligible ones, BENCH_PLAN_ROUNDS (default 7) rounds of
#    BENCH_PLAN_SECONDS (default 3) each, off and on interleaved; the median
#    transactions per second, off / on (1.05 = planning 5% slower with it on).
#
# 3. What the rule for foreign tables nobody analyzed
#    (bloomfilter.auto_prefilter_unanalyzed_max_keys) costs where it turns
#    on without need: K local keys (K from 1,000 to 30,000) against a
#    never-analyzed foreign table of K rows that all match (the filter
#    drops nothing) and of 100 rows (a tiny remote: the filter's building
#    and shipping is all there is), and what it saves against K * 30 rows
#    of which one in 30 matches.  Median ms off and on, and the difference.
#
# BENCH_PARTS (default "1 2 3") chooses the parts.
set -euo pipefail
inst=${1:?usage: $0 INSTDIR}
inst=$(cd "$inst" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
if [ "${2:-}" != --run ]; then
	port=25532
	while ss -Htln "sport = :$port" | grep -q .; do port=$((port + 1)); done
	exec "$root/test/pg_cluster.sh" -o listen_addresses=127.0.0.1 -o port="$port" \
		-o shared_buffers=512MB -o max_parallel_workers_per_gather=0 -o jit=off \
		"$inst" env RATIO_PORT="$port" "$0" "$inst" --run
fi
rounds=${BENCH_ROUNDS:-5}
parts=" ${BENCH_PARTS:-1 2 3} "
export PGPORT=$RATIO_PORT  # pg_cluster.sh announces 5432
psql=("$("$PG_CONFIG" --bindir)/psql" -X -q -v ON_ERROR_STOP=1 -P pager=off)
"${psql[@]}" -v rport="$RATIO_PORT" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SERVER loop FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '127.0.0.1', port :'rport', dbname 'postgres', extensions 'bloomfilter');
CREATE USER MAPPING FOR CURRENT_USER SERVER loop OPTIONS (user 'postgres');
CREATE TABLE keys AS SELECT (g * 100)::int8 AS id FROM generate_series(1, 10000) g;
ANALYZE keys;
CREATE TABLE runs (r int, kind text, setting text, round int, ms float8, rows int8);
CREATE FUNCTION timed(query text, OUT ms float8, OUT rows int8) LANGUAGE plpgsql AS $$
DECLARE plan jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || query INTO plan;
	ms := (plan -> 0 ->> 'Execution Time')::float8;
	rows := jsonb_path_query_first(plan, '$.** ? (@."Node Type" == "Foreign Scan")."Actual Rows"')::int8;
END $$;
SQL
# timed_run TABLE SIZE KIND SETTING ROUND SETTINGS_SQL QUERY: one timed run
# of QUERY in a fresh session, the setting on or off after SETTINGS_SQL,
# recorded in TABLE (size, kind, setting, round, ms, rows).
timed_run() {
	local table=$1 size=$2 kind=$3 setting=$4 round=$5 settings=$6 query=$7
	"${psql[@]}" -v query="$query" <<SQL
SELECT bloom_empty() IS NULL \\g /dev/null
SET bloomfilter.auto_prefilter = $setting;
$settings
INSERT INTO $table SELECT $size, '$kind', '$setting', $round, t.ms, t.rows FROM timed(:'query') t;
SQL
}

if [[ $parts == *" 1 "* ]]; then
for r in 10000 20000 50000 100000 300000; do
	"${psql[@]}" <<SQL
CREATE TABLE all_$r AS SELECT ((g % 10000) + 1) * 100::int8 AS id, md5(g::text) AS payload
	FROM generate_series(1, $r) g;
CREATE TABLE one_$r AS SELECT g::int8 AS id, md5(g::text) AS payload FROM generate_series(1, $r) g;
ANALYZE all_$r, one_$r;
CREATE FOREIGN TABLE f_all_$r (id int8, payload text) SERVER loop OPTIONS (table_name 'all_$r');
CREATE FOREIGN TABLE f_one_$r (id int8, payload text) SERVER loop OPTIONS (table_name 'one_$r');
ANALYZE f_all_$r, f_one_$r;
SQL
done
for round in 0 $(seq 1 "$rounds"); do
	for r in 10000 20000 50000 100000 300000; do
		for kind in all one; do
			for setting in off on; do
				timed_run runs "$r" "$kind" "$setting" "$round" \
					'SET bloomfilter.auto_prefilter_min_ratio = 0;' \
					"SELECT f.id, f.payload FROM f_${kind}_$r f JOIN keys k ON k.id = f.id"
			done
		done
	done
done
"${psql[@]}" <<'SQL'
\echo 'When it pays (bench/auto_prefilter.sh part 1)'
\echo 'The plain join of 10,000 local keys with R remote rows, the setting off and on (median ms)'
WITH m AS (SELECT r, kind, setting, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms, min(rows) AS rows
	FROM runs WHERE round > 0 GROUP BY r, kind, setting)
SELECT a.r AS "remote rows R", round(a.r / 10000.0, 1) AS "R / keys",
	CASE a.kind WHEN 'all' THEN 'all match' ELSE '1% match' END AS "rows",
	round(a.ms::numeric, 1) AS "off ms", round(b.ms::numeric, 1) AS "on ms",
	a.rows AS "fetched off", b.rows AS "fetched on",
	round((a.ms / b.ms)::numeric, 2) AS "off / on"
FROM m a JOIN m b ON b.r = a.r AND b.kind = a.kind AND b.setting = 'on'
WHERE a.setting = 'off' ORDER BY a.kind, a.r;
SQL
fi

# ---- 2. planning time ----
if [[ $parts == *" 2 "* ]]; then
"${psql[@]}" <<'SQL'
CREATE TABLE IF NOT EXISTS one_100000 AS SELECT g::int8 AS id, md5(g::text) AS payload FROM generate_series(1, 100000) g;
CREATE TABLE IF NOT EXISTS one_300000 AS SELECT g::int8 AS id, md5(g::text) AS payload FROM generate_series(1, 300000) g;
CREATE FOREIGN TABLE IF NOT EXISTS f_one_100000 (id int8, payload text) SERVER loop OPTIONS (table_name 'one_100000');
CREATE FOREIGN TABLE IF NOT EXISTS f_one_300000 (id int8, payload text) SERVER loop OPTIONS (table_name 'one_300000');
ANALYZE one_100000, one_300000, f_one_100000, f_one_300000;
SQL
"${psql[@]}" <<'SQL'
CREATE TABLE big AS SELECT g::int8 AS id FROM generate_series(1, 200000) g;
ANALYZE big;
CREATE TABLE plan_runs (kind text, setting text, round int, tps float8);
SQL
pgbench=("$("$PG_CONFIG" --bindir)/pgbench" -n -M simple -T "${BENCH_PLAN_SECONDS:-3}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/ineligible.sql" <<'SQL'
EXPLAIN (COSTS OFF) SELECT f.id FROM big b JOIN f_one_100000 f ON f.id = b.id;
EXPLAIN (COSTS OFF) SELECT f.id FROM f_one_100000 f LEFT JOIN keys k ON k.id = f.id;
EXPLAIN (COSTS OFF) SELECT f.id FROM f_one_100000 f WHERE NOT EXISTS (SELECT 1 FROM keys k WHERE k.id = f.id);
EXPLAIN (COSTS OFF) SELECT f.id FROM keys k FULL JOIN f_one_100000 f ON f.id = k.id;
EXPLAIN (COSTS OFF) SELECT k.id FROM keys k JOIN big b ON b.id = k.id;
SQL
cat >"$work/eligible.sql" <<'SQL'
EXPLAIN (COSTS OFF) SELECT f.id FROM keys k JOIN f_one_300000 f ON f.id = k.id;
EXPLAIN (COSTS OFF) SELECT f.id FROM f_one_300000 f WHERE f.id IN (SELECT id FROM keys);
SQL
for round in 0 $(seq 1 "${BENCH_PLAN_ROUNDS:-7}"); do
	for kind in ineligible eligible; do
		for setting in off on; do
			tps=$(PGOPTIONS="-c session_preload_libraries=\$libdir/bloomfilter -c bloomfilter.auto_prefilter=$setting" \
				"${pgbench[@]}" -f "$work/$kind.sql" postgres 2>/dev/null | sed -nE 's/^tps = ([0-9.]+).*/\1/p')
			"${psql[@]}" -c "INSERT INTO plan_runs VALUES ('$kind', '$setting', $round, $tps)"
		done
	done
done
"${psql[@]}" <<'SQL'
\echo 'What it costs the planner (bench/auto_prefilter.sh part 2): pgbench -M simple of EXPLAIN,'
\echo 'median transactions per second (5 or 2 EXPLAINs each) with the setting off and on'
WITH m AS (SELECT kind, setting, percentile_cont(0.5) WITHIN GROUP (ORDER BY tps) AS tps
	FROM plan_runs WHERE round > 0 GROUP BY kind, setting)
SELECT a.kind AS "queries", round(a.tps::numeric, 0) AS "tps off", round(b.tps::numeric, 0) AS "tps on",
	round((a.tps / b.tps)::numeric, 3) AS "off / on (time on / time off)"
FROM m a JOIN m b ON b.kind = a.kind AND b.setting = 'on' WHERE a.setting = 'off' ORDER BY a.kind DESC;
SQL
fi

# ---- 3. the rule for foreign tables nobody analyzed ----
if [[ $parts == *" 3 "* ]]; then
sizes=(1000 3000 10000 30000)
for k in "${sizes[@]}"; do
	"${psql[@]}" <<SQL
CREATE TABLE keys_$k AS SELECT (g * 100)::int8 AS id FROM generate_series(1, $k) g;
CREATE TABLE match_$k AS SELECT (g * 100)::int8 AS id, md5(g::text) AS payload FROM generate_series(1, $k) g;
CREATE TABLE wide_$k AS SELECT g::int8 AS id, md5(g::text) AS payload FROM generate_series(1, $k * 30) g;
ANALYZE keys_$k, match_$k, wide_$k;
CREATE FOREIGN TABLE n_match_$k (id int8, payload text) SERVER loop OPTIONS (table_name 'match_$k');
CREATE FOREIGN TABLE n_tiny_$k (id int8, payload text) SERVER loop OPTIONS (table_name 'match_$k');
CREATE FOREIGN TABLE n_wide_$k (id int8, payload text) SERVER loop OPTIONS (table_name 'wide_$k');
SQL
done
"${psql[@]}" -c 'CREATE TABLE unanalyzed_runs (k int, kind text, setting text, round int, ms float8, rows int8)'
for round in 0 $(seq 1 "$rounds"); do
	for k in "${sizes[@]}"; do
		for kind in match tiny wide; do
			filter=
			[ "$kind" = tiny ] && filter='WHERE f.id <= 10000'
			for setting in off on; do
				timed_run unanalyzed_runs "$k" "$kind" "$setting" "$round" \
					'SET bloomfilter.auto_prefilter_unanalyzed_max_keys = 1000000;' \
					"SELECT f.id, f.payload FROM n_${kind}_$k f JOIN keys_$k k ON k.id = f.id $filter"
			done
		done
	done
done
"${psql[@]}" <<'SQL'
\echo 'The rule for foreign tables nobody analyzed (bench/auto_prefilter.sh part 3)'
\echo 'K local keys against a never-analyzed foreign table: K rows all matching, 100 rows'
\echo '(tiny), K * 30 rows of which one in 30 matches (wide); median ms off and on'
WITH m AS (SELECT k, kind, setting, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms, min(rows) AS rows
	FROM unanalyzed_runs WHERE round > 0 GROUP BY k, kind, setting)
SELECT a.k AS "local keys K", a.kind AS "remote",
	round(a.ms::numeric, 1) AS "off ms", round(b.ms::numeric, 1) AS "on ms",
	round((b.ms - a.ms)::numeric, 1) AS "on - off ms",
	a.rows AS "fetched off", b.rows AS "fetched on",
	round((a.ms / b.ms)::numeric, 2) AS "off / on"
FROM m a JOIN m b ON b.k = a.k AND b.kind = a.kind AND b.setting = 'on'
WHERE a.setting = 'off' ORDER BY a.kind, a.k;
SQL
fi
