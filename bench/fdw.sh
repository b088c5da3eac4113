#!/usr/bin/env bash
# bench/fdw.sh INSTDIR: what a Bloom filter prefilter saves a postgres_fdw join.
#
#   make test                   # builds and installs into build/inst
#   bench/fdw.sh build/inst     # needs ss (iproute2) for the byte counts
#
# Starts two throwaway clusters (test/pg_cluster.sh) loading the extension from
# INSTDIR: a "remote" one listening on 127.0.0.1 (TCP, so the kernel counts
# the bytes of the connection), holding remote_big, 1,000,000 rows of
# (id int8, payload text: 32 hex digits); and a "local" one with 10,000 keys
# (every 100th id: all of them match) and a postgres_fdw server with
# OPTIONS (extensions 'bloomfilter').  It times, interleaved, BENCH_ROUNDS runs
# (default 5) of
#
#   plain        SELECT r.id, r.payload FROM remote_big r JOIN keys k ON k.id = r.id
#   stored p=... the same WHERE bloom_contains((SELECT f FROM local_filters ...), r.id)
#   inline 0.01  the same with the filter built in the query:
#                bloom_contains((SELECT bloom_agg(id, 0.01, 10000) FROM keys), r.id)
#   auto         the plain join with bloomfilter.auto_prefilter on (the planner
#                adds the prefilter), against the foreign table ANALYZEd, and
#                against a second one on the same remote table that nobody
#                analyzed (the rule of auto_prefilter_unanalyzed_max_keys)
#
# and reports for each the median execution time (EXPLAIN (ANALYZE, TIMING OFF)
# on the local server: the foreign scan, the remote's work and the join, no
# output to the client), the rows the Foreign Scan returned, and the bytes
# that crossed the connection in each direction, read from the kernel's TCP
# counters (ss -ti: bytes_sent, bytes_received of the local backend's socket)
# just before and after the query.  Then the text form of the filters (what
# postgres_fdw sends as the parameter) and the time of its output and input.
#
# Environment: BENCH_ROUNDS, BENCH_FDW_PORT (default: a free port >= 25432).
set -euo pipefail

inst=${1:?usage: $0 INSTDIR}
inst=$(cd "$inst" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
self=$here/fdw.sh
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
settings=(-o shared_buffers=512MB -o max_parallel_workers_per_gather=0 -o jit=off -o work_mem=256MB)

command -v ss >/dev/null || { echo "$0: needs ss, for the byte counts (apt-get install iproute2)" >&2; exit 1; }

case ${2:-} in
"")
	port=${BENCH_FDW_PORT:-}
	if [ -z "$port" ]; then
		port=25432
		while ss -Htln "sport = :$port" | grep -q .; do port=$((port + 1)); done
	fi
	exec "$root/test/pg_cluster.sh" "${settings[@]}" -o listen_addresses=127.0.0.1 -o port="$port" \
		"$inst" env FDW_REMOTE_PORT="$port" "$self" "$inst" --remote-started
	;;
--remote-started)
	# pg_cluster.sh announces port 5432; this one listens on FDW_REMOTE_PORT.
	export FDW_REMOTE_SOCKET=$PGHOST
	exec "$root/test/pg_cluster.sh" "${settings[@]}" "$inst" "$self" "$inst" --run
	;;
--run) ;;
*)
	echo "usage: $0 INSTDIR" >&2
	exit 2
	;;
esac

rounds=${BENCH_ROUNDS:-5}
bindir=$("$PG_CONFIG" --bindir)
psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1 -P pager=off)
remote_psql() { PGHOST=$FDW_REMOTE_SOCKET PGPORT=$FDW_REMOTE_PORT "${psql[@]}"; }
work=$(mktemp -d /tmp/bloomfilter-fdwbench.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"

echo "bloomfilter postgres_fdw semi-join benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "commit:  $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "server:  $("${psql[@]}" -Atc 'SELECT version()')"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at the start"
echo "remote:  127.0.0.1:$FDW_REMOTE_PORT (TCP), local: unix socket; rounds: $rounds"
echo

t=$SECONDS
remote_psql <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE TABLE remote_big AS
	SELECT g::int8 AS id, md5(g::text) AS payload FROM generate_series(1, 1000000) g;
ALTER TABLE remote_big SET (autovacuum_enabled = off);
VACUUM ANALYZE remote_big;
SQL
"${psql[@]}" -v rport="$FDW_REMOTE_PORT" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SERVER remote FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '127.0.0.1', port :'rport', dbname 'postgres', extensions 'bloomfilter');
CREATE USER MAPPING FOR CURRENT_USER SERVER remote OPTIONS (user 'postgres');
CREATE FOREIGN TABLE remote_big (id int8, payload text) SERVER remote;
CREATE FOREIGN TABLE remote_big_unanalyzed (id int8, payload text) SERVER remote
	OPTIONS (table_name 'remote_big');
CREATE TABLE keys AS SELECT (g * 100)::int8 AS id FROM generate_series(1, 10000) g;
CREATE TABLE local_filters (name text PRIMARY KEY, f bloom NOT NULL);
INSERT INTO local_filters VALUES
	('p=0.01', (SELECT bloom_agg(id, 0.01, 10000) FROM keys)),
	('p=0.001', (SELECT bloom_agg(id, 0.001, 10000) FROM keys)),
	('p=0.0001', (SELECT bloom_agg(id, 0.0001, 10000) FROM keys));
ANALYZE keys;
ANALYZE local_filters;

CREATE TABLE bench_case (name text PRIMARY KEY, ord int, query text, setting text DEFAULT 'off');
INSERT INTO bench_case (name, ord, query) VALUES
	('plain join', 1,
	 'SELECT r.id, r.payload FROM remote_big r JOIN keys k ON k.id = r.id'),
	('prefilter, stored p=0.01', 2,
	 $$SELECT r.id, r.payload FROM remote_big r JOIN keys k ON k.id = r.id
	   WHERE bloom_contains((SELECT f FROM local_filters WHERE name = 'p=0.01'), r.id)$$),
	('prefilter, stored p=0.001', 3,
	 $$SELECT r.id, r.payload FROM remote_big r JOIN keys k ON k.id = r.id
	   WHERE bloom_contains((SELECT f FROM local_filters WHERE name = 'p=0.001'), r.id)$$),
	('prefilter, stored p=0.0001', 4,
	 $$SELECT r.id, r.payload FROM remote_big r JOIN keys k ON k.id = r.id
	   WHERE bloom_contains((SELECT f FROM local_filters WHERE name = 'p=0.0001'), r.id)$$),
	('prefilter, built inline p=0.01', 5,
	 $$SELECT r.id, r.payload FROM remote_big r JOIN keys k ON k.id = r.id
	   WHERE bloom_contains((SELECT bloom_agg(id, 0.01, 10000) FROM keys), r.id)$$);
INSERT INTO bench_case VALUES
	('plain join, auto_prefilter on', 6,
	 'SELECT r.id, r.payload FROM remote_big r JOIN keys k ON k.id = r.id', 'on'),
	('plain join, never analyzed', 7,
	 'SELECT r.id, r.payload FROM remote_big_unanalyzed r JOIN keys k ON k.id = r.id', 'off'),
	('plain join, never analyzed, auto_prefilter on', 8,
	 'SELECT r.id, r.payload FROM remote_big_unanalyzed r JOIN keys k ON k.id = r.id', 'on');
ANALYZE remote_big;

-- Microseconds per text output and per text input of a filter.
CREATE FUNCTION text_io_us(filter bloom, n int, OUT out_us float8, OUT in_us float8)
LANGUAGE plpgsql AS $$
DECLARE
	t timestamptz;
	s text;
	b bloom;
BEGIN
	t := clock_timestamp();
	FOR i IN 1..n LOOP
		s := filter::text;
	END LOOP;
	out_us := extract(epoch FROM clock_timestamp() - t) * 1e6 / n;
	t := clock_timestamp();
	FOR i IN 1..n LOOP
		b := s::bloom;
	END LOOP;
	in_us := extract(epoch FROM clock_timestamp() - t) * 1e6 / n;
END
$$;

CREATE TABLE bench_run (name text, round int, ms float8, rows int8, result_rows int8,
	bytes_in int8, bytes_out int8);

-- Execution time, the Foreign Scan's rows and the join's rows of one run.
CREATE FUNCTION bench_explain(query text, OUT ms float8, OUT rows int8, OUT result_rows int8)
LANGUAGE plpgsql AS $$
DECLARE
	plan jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || query INTO plan;
	ms := (plan -> 0 ->> 'Execution Time')::float8;
	rows := jsonb_path_query_first(plan, '$.** ? (@."Node Type" == "Foreign Scan")."Actual Rows"')::int8;
	result_rows := (plan -> 0 -> 'Plan' ->> 'Actual Rows')::int8;
END
$$;
SQL
echo "data set created in $((SECONDS - t))s"

# One run of one case, in a fresh session: open the connection to the remote,
# read the counters, run the query, read them again.
run_case() {
	local name=$1 round=$2
	{
		echo "SELECT 1 FROM remote_big LIMIT 1 \\g /dev/null"
		# loads the library, which defines bloomfilter.auto_prefilter
		echo "SELECT bloom_empty() IS NULL \\g /dev/null"
		echo "SELECT set_config('bloomfilter.auto_prefilter', setting, false) FROM bench_case WHERE name = '$name' \\g /dev/null"
		echo "\\! ss -Htin 'dport = :$FDW_REMOTE_PORT' > $work/before"
		echo "SELECT ms, rows, result_rows FROM bench_explain((SELECT query FROM bench_case WHERE name = '$name')) \\g $work/result"
		echo "\\! ss -Htin 'dport = :$FDW_REMOTE_PORT' > $work/after"
	} | "${psql[@]}" -At -F ' '
	local before after
	before=$(tcp_bytes <"$work/before")
	after=$(tcp_bytes <"$work/after")
	read -r s0 r0 <<<"$before"
	read -r s1 r1 <<<"$after"
	read -r ms rows result_rows <"$work/result"
	"${psql[@]}" -c "INSERT INTO bench_run VALUES ('$name', $round, $ms, $rows, $result_rows, $((r1 - r0)), $((s1 - s0)))"
}
# Sum "sent received" bytes over the lines of ss -ti output (one connection).
tcp_bytes() {
	awk '{ for (i = 1; i <= NF; i++) {
		if ($i ~ /^bytes_sent:/) { split($i, a, ":"); s += a[2] }
		if ($i ~ /^bytes_received:/) { split($i, a, ":"); r += a[2] } } }
		END { print s + 0, r + 0 }'
}

mapfile -t cases < <("${psql[@]}" -Atc 'SELECT name FROM bench_case ORDER BY ord')
# One untimed run of each to warm the caches of both servers.
for c in "${cases[@]}"; do run_case "$c" 0; done
for ((round = 1; round <= rounds; round++)); do
	for c in "${cases[@]}"; do run_case "$c" "$round"; done
done

echo
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at the end"
"${psql[@]}" <<'SQL'
\pset footer off
\echo 'Per case: median of the timed rounds (EXPLAIN ANALYZE, TIMING OFF, on the local server);'
\echo 'rows = the Foreign Scan''s rows; bytes = TCP payload of the postgres_fdw connection'
\echo '(remote -> local, local -> remote), the same in every round.'
SELECT c.name AS "case",
	round(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.ms)::numeric, 1) AS "median ms",
	round(min(r.ms)::numeric, 1) AS "min ms",
	round(max(r.ms)::numeric, 1) AS "max ms",
	min(r.rows) AS "rows fetched",
	min(r.result_rows) AS "join rows",
	min(r.bytes_in) AS "bytes remote->local",
	min(r.bytes_out) AS "bytes local->remote",
	max(r.bytes_in) - min(r.bytes_in) AS "spread in"
FROM bench_run r JOIN bench_case c USING (name)
WHERE r.round > 0
GROUP BY c.name, c.ord ORDER BY c.ord;

\echo 'bloomfilter.auto_prefilter (issue 16 targets): the plain join with the setting on against'
\echo 'it off, the foreign table analyzed and never analyzed: rows fetched at most the 10,000'
\echo 'matches + 1.5% of the 990,000 others (24,850); time and bytes remote->local at least 5 times lower.'
WITH m AS (
	SELECT name, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms,
		min(rows) AS rows, min(bytes_in) AS bytes
	FROM bench_run WHERE round > 0 GROUP BY name)
SELECT t.foreign_table AS "foreign table",
	a.rows AS "rows fetched", a.rows <= 10000 + 0.015 * 990000 AS "rows ok",
	round((p.ms / a.ms)::numeric, 1) AS "time off / on", p.ms / a.ms >= 5 AS "time ok",
	round((p.bytes::numeric / a.bytes), 1) AS "bytes off / on", p.bytes >= 5 * a.bytes AS "bytes ok"
FROM (VALUES ('analyzed', 'plain join', 'plain join, auto_prefilter on'),
		('never analyzed', 'plain join, never analyzed', 'plain join, never analyzed, auto_prefilter on'))
		AS t (foreign_table, off_case, on_case),
	m a, m p WHERE a.name = t.on_case AND p.name = t.off_case;

\echo 'The filters (10,000 keys): stored size, and the text form postgres_fdw sends as $1'
SELECT name, (bloom_info(f)).m, (bloom_info(f)).k,
	pg_column_size(f) AS "stored bytes",
	octet_length(f::text) AS "text bytes",
	round(io.out_us::numeric, 1) AS "text output us",
	round(io.in_us::numeric, 1) AS "text input us"
FROM local_filters, text_io_us(f, 20000) io ORDER BY octet_length(f::text);
SQL
