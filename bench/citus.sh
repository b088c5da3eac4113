#!/usr/bin/env bash
# bench/citus.sh: the natural aggregates on Citus, split against gathered.
#
#   PG_CONFIG=... bench/citus.sh [ROWS] [ROUNDS]
#
# Needs Citus and the extension installed for the server PG_CONFIG names
# (Citus is in no Debian suite: build it from its source for your own runs,
# doc/distributed.md).  Run as root (the servers run as postgres) or as the
# servers' owner.  Starts a coordinator and two workers on 127.0.0.1 in a
# temporary directory, with shared_preload_libraries = 'citus,bloomfilter',
# and a table ev of ROWS rows (default 4,000,000) of int8 ids in 16 shards,
# with a local copy ev_local.  Then, interleaved, ROUNDS times (default 5):
#
#   fixed split       SELECT bloom_agg(id, 0.01, ROWS) FROM ev
#   fixed gathered    the same with bloomfilter.split_aggregates = off (and,
#                     on Citus 15, citus.allow_aggregate_worker_combine_on_
#                     internal_types = off, without which Citus fails)
#   self-sized split / gathered   bloom_agg(id), the same way
#   fixed local       bloom_agg(id, 0.01, ROWS) FROM ev_local (one server)
#
# each as octet_length(bloom_send(...)), so that the client receives a
# number, timed by psql (\timing: planning, the workers, the transfer and the
# coordinator's combine).  Then the bytes that reach the coordinator
# (EXPLAIN ANALYZE's "Tuple data received from nodes", Citus 14 on), and the
# workers' cost per row: on a local table of ROWS / 16 rows (one shard's),
# worker_binary_partial_agg (worker_partial_agg on Citus 13) of
# bloom_agg(bloom_hashed, p, n) over ROW(bloom_value(id), p, n), as a worker
# runs it, against bloom_agg(bloom_value(id), p, n), medians of 5 x ROUNDS.
set -euo pipefail

rows=${1:-4000000}
rounds=${2:-5}
pg_config=${PG_CONFIG:-pg_config}
bindir=$("$pg_config" --bindir)
[ -f "$("$pg_config" --pkglibdir)/citus.so" ] || { echo "citus.sh: Citus is not installed for $("$pg_config" --version)" >&2; exit 1; }

work=$(mktemp -d /tmp/bloomfilter-citus.XXXXXX)
chmod 755 "$work"
as_owner=()
if [ "$(id -u)" = 0 ]; then
	chown postgres: "$work"
	as_owner=(runuser -u postgres --)
fi
ports=(55731 55732 55733)
cleanup() {
	for i in 0 1 2; do
		"${as_owner[@]}" "$bindir/pg_ctl" -D "$work/n$i" -m immediate stop >/dev/null 2>&1 || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

for i in 0 1 2; do
	"${as_owner[@]}" "$bindir/initdb" -D "$work/n$i" -A trust -U postgres --no-sync \
		-E UTF8 --locale=C.UTF-8 >"$work/initdb$i.log" 2>&1
	cat >>"$work/n$i/postgresql.conf" <<EOF
shared_preload_libraries = 'citus,bloomfilter'
listen_addresses = '127.0.0.1'
unix_socket_directories = '$work'
port = ${ports[$i]}
fsync = off
shared_buffers = '512MB'
work_mem = '256MB'
max_worker_processes = 16
citus.enable_statistics_collection = off
EOF
	"${as_owner[@]}" "$bindir/pg_ctl" -D "$work/n$i" -l "$work/n$i.log" -w start >/dev/null
done

psql_on() {
	local port=$1
	shift
	"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres "$@"
}
coordinator() { psql_on "${ports[0]}" "$@"; }

for i in 0 1 2; do psql_on "${ports[$i]}" -c 'CREATE EXTENSION citus' >/dev/null; done
coordinator >/dev/null <<EOF
SELECT citus_set_coordinator_host('127.0.0.1', ${ports[0]});
SELECT citus_add_node('127.0.0.1', ${ports[1]});
SELECT citus_add_node('127.0.0.1', ${ports[2]});
CREATE EXTENSION bloomfilter;
SET citus.shard_count = 16;
CREATE TABLE ev (id int8);
SELECT create_distributed_table('ev', 'id');
INSERT INTO ev SELECT x FROM generate_series(1, $rows) AS x;
CREATE TABLE ev_local AS SELECT id FROM ev;
CREATE TABLE shard_like AS SELECT id FROM ev_local WHERE id <= $rows / 16;
VACUUM ANALYZE;
EOF
version=$(coordinator -At -c 'SELECT citus_version()' | awk '{print $2}')
citus_major=${version%%.*}
pg_version=$("$pg_config" --version)
gather="SET bloomfilter.split_aggregates = off;"
[ "$citus_major" -ge 15 ] && gather="$gather SET citus.allow_aggregate_worker_combine_on_internal_types = off;"
partial=worker_binary_partial_agg
[ "$citus_major" -lt 14 ] && partial=worker_partial_agg

names=("fixed split" "fixed gathered" "self-sized split" "self-sized gathered" "fixed local"
	"worker rows: bloom_agg(bloom_value(id))" "worker rows: $partial")
queries=(
	"SELECT octet_length(bloom_send(bloom_agg(id, 0.01, $rows))) FROM ev"
	"$gather SELECT octet_length(bloom_send(bloom_agg(id, 0.01, $rows))) FROM ev"
	"SELECT octet_length(bloom_send(bloom_agg(id))) FROM ev"
	"$gather SELECT octet_length(bloom_send(bloom_agg(id))) FROM ev"
	"SELECT octet_length(bloom_send(bloom_agg(id, 0.01, $rows))) FROM ev_local"
	"SELECT octet_length(bloom_send(bloom_agg(bloom_value(id), 0.01, $rows))) FROM shard_like"
	"SELECT octet_length($partial('bloom_agg(bloom_hashed,float8,int8)'::regprocedure, ROW(bloom_value(id), 0.01::float8, $rows::int8))::text) FROM shard_like"
)

# The time of one run of a query (ms), by psql's \timing in a new session.
time_of() {
	coordinator -c '\timing on' -c "$1" | awk '/^Time:/ {t = $2} END {print t}'
}
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# (the two short queries of a worker's rows, five times as often: they
# take a few tens of milliseconds, where the machine's noise is larger)
declare -A times
for q in "${!queries[@]}"; do time_of "${queries[$q]}" >/dev/null; done
for round in $(seq "$rounds"); do
	for q in "${!queries[@]}"; do
		repeat=1
		[ "$q" -ge 5 ] && repeat=5
		for _ in $(seq "$repeat"); do
			times[$q]+="$(time_of "${queries[$q]}") "
		done
	done
done

received() {
	coordinator -At -c "$1 EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${2}" 2>/dev/null \
		| sed -n 's/^ *Tuple data received from nodes: //p' | head -n 1
}
raw=$(coordinator -At -c "SELECT 16 * octet_length(bloom_send(bloom_agg(id, 0.01, $rows))) FROM ev_local")

echo "Citus $version, $pg_version: $rows rows in 16 shards, medians of $rounds runs (ms; a worker's rows: of $((5 * rounds)))"
for q in "${!queries[@]}"; do
	printf '  %-48s %10s   (%s)\n' "${names[$q]}" "$(echo "${times[$q]}" | tr ' ' '\n' | grep . | median)" "${times[$q]% }"
done
m() { echo "${times[$1]}" | tr ' ' '\n' | grep . | median; }
awk -v fs="$(m 0)" -v fg="$(m 1)" -v ss="$(m 2)" -v sg="$(m 3)" -v wl="$(m 5)" -v wp="$(m 6)" 'BEGIN {
	printf "  split / gathered: fixed %.2f, self-sized %.2f\n", fs / fg, ss / sg
	printf "  a worker'\''s rows: %s / local bloom_agg(bloom_value(id)) %.2f\n", "'"$partial"'", wp / wl }'
if [ "$citus_major" -ge 14 ]; then
	echo "  bytes reaching the coordinator (16 raw filters: $raw bytes):"
	echo "    fixed split       $(received '' "SELECT bloom_agg(id, 0.01, $rows) FROM ev")"
	echo "    fixed gathered    $(received "$gather" "SELECT bloom_agg(id, 0.01, $rows) FROM ev")"
	echo "    self-sized split  $(received '' "SELECT bloom_agg(id) FROM ev")"
	echo "    self-sized gathered $(received "$gather" "SELECT bloom_agg(id) FROM ev")"
fi
