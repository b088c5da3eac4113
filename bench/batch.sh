#!/usr/bin/env bash
# bench/batch.sh: adding values to a stored 12 MB filter, against the server
# in PGHOST/PGPORT; bench/bench.sh runs it (make bench).
#
# A stored filter is rewritten whole by every UPDATE (TOAST has no partial
# update), so what counts is values per UPDATE.  One row holds
# bloom_agg(x, 0.01, 1e7) of 10M integers (12 MB, out of line, the type's
# default storage); pgbench (one client) adds new integers to it:
#
#   add        UPDATE ... SET f = bloom_add(f, x)                     one value
#   add_all    UPDATE ... SET f = bloom_add_all(f, ARRAY(<values>))   a batch
#   agg_like   UPDATE ... SET f = f | (SELECT bloom_agg_like(x, f) FROM <values>)
#
# The values are generate_series of a random start, built in the statement.
# Each case runs BATCH_RUNS times (default 5), each run after a VACUUM and a
# CHECKPOINT; a run's figure is the median latency of its UPDATEs, and the
# report gives the median run, with its WAL per UPDATE.  Every UPDATE leaves
# a dead 12 MB copy behind; 40 UPDATEs first, then a VACUUM, make the room
# that the runs' new copies reuse, the steady state of a table that
# autovacuum keeps up with (a table that must grow for every copy is slower:
# BATCH_EXTEND=1 runs each case after a VACUUM FULL instead, and adds the
# growth per UPDATE).
set -euo pipefail

runs=${BATCH_RUNS:-5}
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
psql=(env PGOPTIONS="-c client_min_messages=warning" "$bindir/psql" -X -q -At -v ON_ERROR_STOP=1)
work=$(mktemp -d /tmp/bloomfilter-batch.XXXXXX)
trap 'rm -rf "$work"' EXIT

"${psql[@]}" <<'SQL'
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP TABLE IF EXISTS batch_filters;
CREATE TABLE batch_filters (id int PRIMARY KEY, f bloom) WITH (autovacuum_enabled = off);
INSERT INTO batch_filters
SELECT 1, bloom_agg(i, 0.01, 10000000) FROM generate_series(1, 10000000::int8) AS i;
VACUUM ANALYZE batch_filters;
SQL
echo "filter: $("${psql[@]}" -c "SELECT bytes || ' bytes, m = ' || m || ', k = ' || k
	FROM batch_filters, bloom_info(f)"), storage $("${psql[@]}" -c "SELECT CASE attstorage
	WHEN 'e' THEN 'external' WHEN 'x' THEN 'extended' WHEN 'm' THEN 'main' ELSE 'plain' END
	FROM pg_attribute WHERE attrelid = 'batch_filters'::regclass AND attname = 'f'")"

extend=${BATCH_EXTEND:-0}
vacuum=VACUUM
[ "$extend" = 1 ] && vacuum="VACUUM FULL"
for i in $(seq 40); do
	"${psql[@]}" -c "UPDATE batch_filters SET f = bloom_add(f, -$i) WHERE id = 1"
done

values='generate_series(:start::int8, :start::int8 + :batch - 1)'
declare -A statement=(
	[add]='UPDATE batch_filters SET f = bloom_add(f, :start::int8) WHERE id = 1;'
	[add_all]="UPDATE batch_filters SET f = bloom_add_all(f, ARRAY(SELECT $values)) WHERE id = 1;"
	[agg_like]="UPDATE batch_filters SET f = f | (SELECT bloom_agg_like(x, f) FROM $values AS x) WHERE id = 1;"
)

# case batch transactions
cases='add 1 40
add_all 1000 40
add_all 10000 40
add_all 100000 15
agg_like 1000 40
agg_like 10000 40
agg_like 100000 15'

printf '%-9s %7s %11s %12s %12s %14s\n' form batch "ms/UPDATE" "values/s" "WAL/UPDATE" "growth/UPDATE"
while read -r form batch transactions; do
	printf '\\set start random(100000000, 9000000000)\n%s\n' "${statement[$form]}" >"$work/script.sql"
	: >"$work/runs"
	for run in $(seq "$runs"); do
		"${psql[@]}" -c "$vacuum batch_filters" -c "CHECKPOINT"
		before=$("${psql[@]}" -c "SELECT pg_current_wal_lsn() || ' ' || pg_total_relation_size('batch_filters')")
		rm -f "$work"/log*
		"$bindir/pgbench" -n -M prepared -f "$work/script.sql" -D batch="$batch" \
			-t "$transactions" -l --log-prefix="$work/log" >/dev/null 2>&1
		after=$("${psql[@]}" -c "SELECT pg_current_wal_lsn() || ' ' || pg_total_relation_size('batch_filters')")
		# median latency (microseconds, the log's third field) of the run
		median=$(awk '{ print $3 }' "$work"/log* | sort -n |
			awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
		wal=$("${psql[@]}" -c "SELECT round(pg_wal_lsn_diff('${after% *}', '${before% *}') / $transactions)")
		growth=$(( (${after#* } - ${before#* }) / transactions ))
		echo "$median $wal $growth" >>"$work/runs"
	done
	# the median run by latency, with its WAL and growth
	read -r median wal growth < <(sort -n "$work/runs" | sed -n "$(( (runs + 1) / 2 ))p")
	awk -v form="$form" -v batch="$batch" -v us="$median" -v wal="$wal" -v growth="$growth" 'BEGIN {
		printf "%-9s %7d %11.1f %12.0f %10.1f MB %11.1f MB\n",
			form, batch, us / 1000, batch / (us / 1e6), wal / 1048576, growth / 1048576 }'
done <<<"$cases"
echo "($runs runs a case; each run's median UPDATE, the median run shown)"

"${psql[@]}" -c "DROP TABLE batch_filters"
