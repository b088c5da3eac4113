#!/usr/bin/env bash
# Concurrent writers and readers of the same filters (pgbench).
#
#   test/cluster/concurrency.sh INSTDIR
#
# 8 writer clients run, for BLOOM_CONCURRENCY_SECONDS (default 12) seconds,
# one transaction each time: add a random x to the filter in row x % 4 of
# "shared" (12 kB filters, so stored out of line) and log x in "logged".
# 4 reader clients probe the same rows meanwhile, and union them.  Then:
# neither pgbench reports an error or a failed transaction, every committed
# transaction left exactly one logged row, every logged x is in its row's
# filter (no update lost), and no backend crashed (test/pg_cluster.sh).
source "$(dirname "$0")/common.bash"
cluster_main concurrency "$@"

seconds=${BLOOM_CONCURRENCY_SECONDS:-12}
work=$(mktemp -d /tmp/bloomfilter-concurrency.XXXXXX)
trap 'rm -rf "$work"' EXIT

"${PSQL[@]}" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE TABLE shared (id int PRIMARY KEY, f bloom NOT NULL);
INSERT INTO shared SELECT i, bloom_empty(0.01, 10000) FROM generate_series(0, 3) AS i;
CREATE TABLE logged (x int8 NOT NULL);
SQL

cat >"$work/writer.sql" <<'SQL'
\set x random(1, 1000000000000)
BEGIN;
UPDATE shared SET f = bloom_add(f, :x::int8) WHERE id = :x % 4;
INSERT INTO logged VALUES (:x);
COMMIT;
SQL
cat >"$work/reader.sql" <<'SQL'
\set x random(1, 1000000000000)
SELECT bloom_contains(f, :x::int8) FROM shared WHERE id = :x % 4;
SELECT bloom_cardinality(bloom_union_agg(f)) FROM shared;
SQL

pgbench=("$BINDIR/pgbench" --no-vacuum -T "$seconds")
wstatus=0 rstatus=0
"${pgbench[@]}" -c 8 -j 2 -f "$work/writer.sql" >"$work/writers.log" 2>&1 &
wpid=$!
"${pgbench[@]}" -c 4 -j 1 -f "$work/reader.sql" >"$work/readers.log" 2>&1 &
rpid=$!
wait "$wpid" || wstatus=$?
wait "$rpid" || rstatus=$?

# "number of transactions actually processed: N" and, in PostgreSQL 15,
# "number of failed transactions: N (...)".
processed() { sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' "$1"; }
failed_tx() { sed -nE 's/^number of failed transactions: ([0-9]+).*/\1/p' "$1"; }
for role in writers readers; do
	log=$work/$role.log
	status=$([ "$role" = writers ] && echo "$wstatus" || echo "$rstatus")
	n=$(processed "$log")
	echo "$role: exit $status, $n transactions, $(failed_tx "$log") failed; $(grep -E '^tps' "$log" || true)"
	if [ "$status" -ne 0 ] || grep -qiE 'error|abort' "$log"; then
		cat "$log"
	fi
	check "$role: pgbench exits 0" 0 "$status"
	check "$role: no failed transaction" 0 "$(failed_tx "$log")"
	check "$role: no error reported" "" "$(grep -iE 'error|aborted' "$log" || true)"
	if [ "${n:-0}" -gt 100 ]; then
		pass "$role: ran ($n transactions)"
	else
		fail "$role: ran only ${n:-0} transactions"
	fi
done

committed=$(processed "$work/writers.log")
check "every committed writer transaction left one logged row" "$committed" \
	"$("${PSQL[@]}" -c "SELECT count(*) FROM logged")"
check "every logged value is in its row's filter (no update lost)" 0 \
	"$("${PSQL[@]}" -c "SELECT count(*) FROM logged l JOIN shared s ON s.id = l.x % 4 WHERE NOT bloom_contains(s.f, l.x)")"
# The filters hold about as many values as were logged for each row: a
# filter that kept more than the logged values (an uncommitted or doubled
# add) would show up as an estimate far above the count.
check "each filter's estimate is within 5% of its logged values" "t" \
	"$("${PSQL[@]}" -c "SELECT bool_and(abs(bloom_cardinality(s.f) - c.n) <= 0.05 * c.n + 5) FROM shared s JOIN (SELECT x % 4 AS id, count(DISTINCT x) AS n FROM logged GROUP BY 1) c USING (id)")"

cluster_done
