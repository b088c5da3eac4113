#!/usr/bin/env bash
# Durability of stored filters: dump and restore, COPY, and a crash.
#
#   test/cluster/durability.sh INSTDIR
#
# 1. pg_dump -Fc of a database holding filters (empty, m = 18, k = 1, k = 64,
#    m = 1, filters of text values, a NULL, 2,000 small filters, and a
#    1,000,000-value filter at p = 0.01, 1.2 MB, stored out of line), then
#    pg_restore into a new database: every filter must be bit-identical (= with
#    a recomputation, and the md5 of its bloom_send output and of its text
#    form the same as in the source) and usable (contains every value it was
#    built from).
# 2. The same through COPY TO / COPY FROM, in text and in binary format.
# 3. A crash: a bulk load of filters (an INSERT of two ~120 kB filters built
#    by bloom_agg and an UPDATE of an earlier row, one transaction each) runs
#    in the background; the server is stopped with pg_ctl -m immediate in the
#    middle of it and restarted.  Every transaction the client saw committed
#    must be there, and every filter intact (equal to a recomputation) and
#    usable.
#
# Prints "durability: N passed, M failed" and exits non-zero on any failure.
source "$(dirname "$0")/common.bash"
cluster_main durability "$@"

started=$SECONDS
work=$(mktemp -d /tmp/bloomfilter-durability.XXXXXX)
loader=
cleanup() {
	[ -n "$loader" ] && kill "$loader" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# check_sql DATABASE DESCRIPTION QUERY: the query returns true.
check_sql() { check "$2" t "$("${PSQL[@]}" -d "$1" -c "$3" 2>&1 || true)"; }

# ---- 1. pg_dump -Fc and pg_restore ----
"${PSQL[@]}" -c "CREATE DATABASE durable_source"
t=$SECONDS
"${PSQL[@]}" -d durable_source -f "$BLOOM_ROOT/test/cluster/durability.sql"
echo "filters built in $((SECONDS - t)) s"
check_sql durable_source "the 1,000,000-value filter takes 1,198,152 bytes and is stored out of line" \
	"SELECT i.bytes = 1198152 AND pg_relation_size(reltoastrelid) > 1198152
		AND pg_relation_size('filters') < 65536
	 FROM filters, bloom_info(f) AS i, pg_class WHERE name = 'million' AND oid = 'filters'::regclass"
"${PSQL[@]}" -d durable_source -c "SELECT * FROM check_copy('filters', 'many', 'source')" >"$work/checks"
check_lines "$work/checks"
"${PSQL[@]}" -d durable_source -c "SELECT * FROM digest ORDER BY name" >"$work/digest.source"

status=0
"$BINDIR/pg_dump" -Fc -d durable_source -f "$work/dump" || status=$?
check "pg_dump -Fc exits 0" 0 "$status"
echo "pg_dump -Fc archive: $(stat -c %s "$work/dump") bytes"
"${PSQL[@]}" -c "CREATE DATABASE durable_restored"
status=0
"$BINDIR/pg_restore" --exit-on-error -d durable_restored "$work/dump" || status=$?
check "pg_restore exits 0" 0 "$status"
"${PSQL[@]}" -d durable_restored -c "SELECT * FROM check_copy('filters', 'many', 'pg_restore')" >"$work/checks"
check_lines "$work/checks"
"${PSQL[@]}" -d durable_restored -c "SELECT * FROM digest ORDER BY name" >"$work/digest.restored"
if cmp -s "$work/digest.source" "$work/digest.restored"; then
	pass "pg_restore: md5 of bloom_send and of the text form identical to the source's ($(wc -l <"$work/digest.source") digests)"
else
	fail "pg_restore: digests differ from the source's"
	diff "$work/digest.source" "$work/digest.restored" | head -n 20
fi

# ---- 2. COPY TO / FROM, text and binary ----
for format in text binary; do
	"${PSQL[@]}" -d durable_source <<EOF
CREATE TABLE filters_$format (LIKE filters);
CREATE TABLE many_$format (LIKE many);
\\copy filters TO '$work/filters.$format' WITH (FORMAT $format)
\\copy many TO '$work/many.$format' WITH (FORMAT $format)
\\copy filters_$format FROM '$work/filters.$format' WITH (FORMAT $format)
\\copy many_$format FROM '$work/many.$format' WITH (FORMAT $format)
EOF
	"${PSQL[@]}" -d durable_source -c "SELECT * FROM check_copy('filters_$format', 'many_$format', 'COPY $format')" >"$work/checks"
	check_lines "$work/checks"
	check_sql durable_source "COPY $format: every filter bit-identical to its original (= and md5 of bloom_send)" \
		"SELECT count(*) = 10 AND bool_and(a.f IS NOT DISTINCT FROM b.f
			AND md5(bloom_send(a.f)) IS NOT DISTINCT FROM md5(bloom_send(b.f)))
		 FROM filters AS a FULL JOIN filters_$format AS b USING (name)"
	check_sql durable_source "COPY $format: 2,000 small filters bit-identical" \
		"SELECT count(*) = 2000 AND bool_and(a.f = b.f AND bloom_send(a.f) = bloom_send(b.f))
		 FROM many AS a FULL JOIN many_$format AS b USING (id)"
done

# ---- 3. a crash in the middle of a bulk load ----
#
# pg_cluster.sh runs the server with fsync=off.  That is enough here:
# pg_ctl -m immediate kills the server processes, but the operating system
# keeps everything they wrote, as it would after a server crash (not after
# a power loss, which fsync=off would not survive).  Recovery replays the
# WAL from the last checkpoint, taken in the middle of the load.
"${PSQL[@]}" -c "CREATE DATABASE durable_crash"
"${PSQL[@]}" -d durable_crash <<'EOF'
CREATE EXTENSION bloomfilter;
-- Row i holds the filters of lo..hi as integers (f) and as text (t).
CREATE TABLE load (id int PRIMARY KEY, lo int NOT NULL, hi int NOT NULL, f bloom NOT NULL, t bloom NOT NULL);
EOF

# Transaction i inserts row i and extends row i - 3 by 500 values.
transaction() {
	local i=$1 lo=$(($1 * 1000)) hi=$(($1 * 1000 + 20000 + $1 % 7 * 1000))
	cat <<EOF
BEGIN;
INSERT INTO load
SELECT $i, $lo, $hi, bloom_agg(g, 0.01, 100000), bloom_agg('v' || g, 0.01, 100000)
FROM generate_series($lo, $hi) AS g;
UPDATE load SET hi = hi + 500,
	f = f | (SELECT bloom_agg(g, 0.01, 100000) FROM generate_series(hi + 1, hi + 500) AS g),
	t = t | (SELECT bloom_agg('v' || g, 0.01, 100000) FROM generate_series(hi + 1, hi + 500) AS g)
WHERE id = $i - 3;
COMMIT;
EOF
}

: >"$work/committed"
(
	for i in $(seq 1 2000); do
		# the id is recorded only once the server has acknowledged the commit
		"${PSQL[@]}" -d durable_crash -c "$(transaction "$i")" >/dev/null 2>>"$work/load.log" || exit 0
		echo "$i" >>"$work/committed"
	done
) &
loader=$!

committed() { wc -l <"$work/committed"; }
deadline=$((SECONDS + 60))
checkpointed=0
while [ "$(committed)" -lt 40 ] && [ $SECONDS -lt $deadline ] && kill -0 "$loader" 2>/dev/null; do
	if [ $checkpointed = 0 ] && [ "$(committed)" -ge 20 ]; then
		"${PSQL[@]}" -c CHECKPOINT
		checkpointed=1
	fi
	sleep 0.05
done
"$BLOOM_PG_CTL" -m immediate stop >/dev/null
stopped_at=$(committed)
wait "$loader" || true
loader=
n_committed=$(committed)
echo "server stopped (immediate) after $stopped_at acknowledged commits; the loader saw $n_committed"
tail -n 3 "$work/load.log" 2>/dev/null | sed 's/^/loader: /'
if [ "$n_committed" -ge 21 ] && [ "$n_committed" -lt 2000 ]; then
	pass "the bulk load was stopped in the middle ($n_committed transactions committed)"
else
	fail "the bulk load was not stopped in the middle ($n_committed transactions committed)"
fi

status=0
"$BLOOM_PG_CTL" start >/dev/null || status=$?
check "the server restarts (pg_ctl start exits 0)" 0 "$status"
if grep -q "database system was interrupted\|not properly shut down" "$BLOOM_PG_LOG" && grep -q "redo done" "$BLOOM_PG_LOG"; then
	pass "crash recovery replayed the WAL"
else
	fail "no crash recovery in the server log"
fi

committed_ids="{$(paste -sd, "$work/committed")}"
# Row i was extended once for each later transaction: those up to the last
# that committed (acknowledged or not, so the highest id present).
check_sql durable_crash "every acknowledged transaction is there" \
	"SELECT count(*) = 0 FROM unnest('$committed_ids'::int[]) AS c(id)
	 WHERE NOT EXISTS (SELECT 1 FROM load WHERE load.id = c.id)"
check_sql durable_crash "nothing else is there but the transaction in flight" \
	"SELECT count(*) = 0 FROM load WHERE id <> ALL ('$committed_ids'::int[]) AND id <> $n_committed + 1"
check_sql durable_crash "every committed UPDATE is there" \
	"SELECT bool_and(hi = id * 1000 + 20000 + id % 7 * 1000
		+ CASE WHEN id + 3 <= (SELECT max(id) FROM load) THEN 500 ELSE 0 END) FROM load"
"${PSQL[@]}" -d durable_crash >"$work/checks" <<'EOF'
SELECT format('CHECK %s crash: %s of %s rows have both filters equal to a recomputation (bit for bit)',
	CASE WHEN count(*) FILTER (WHERE good) = count(*) AND count(*) > 0 THEN 'pass' ELSE 'fail' END,
	count(*) FILTER (WHERE good), count(*))
FROM (SELECT f = (SELECT bloom_agg(g, 0.01, 100000) FROM generate_series(lo, hi) AS g)
		AND bloom_send(t) = bloom_send((SELECT bloom_agg('v' || g, 0.01, 100000) FROM generate_series(lo, hi) AS g))
		AS good
	FROM load) AS s;
SELECT format('CHECK %s crash: every row''s filters work (bloom_info, members contained, text round trip)',
	CASE WHEN bool_and(i.m = 958506 AND i.k = 7 AND i.bits_set > 0
		AND bloom_contains(f, lo) AND bloom_contains(f, hi) AND bloom_contains(f, (lo + hi) / 2)
		AND bloom_contains(t, 'v' || lo) AND bloom_contains(t, 'v' || hi)
		AND f::text::bloom = f AND t::text::bloom = t) THEN 'pass' ELSE 'fail' END)
FROM load, bloom_info(f) AS i;
WITH u AS (UPDATE load SET f = bloom_add(f, -7) RETURNING f)
SELECT format('CHECK %s crash: the table takes writes again (bloom_add, bloom_union_agg)',
	CASE WHEN bloom_contains(bloom_union_agg(f), -7) THEN 'pass' ELSE 'fail' END)
FROM u;
EOF
check_lines "$work/checks"

echo "($((SECONDS - started)) s)"
cluster_done
