#!/usr/bin/env bash
# test/cluster/standby.sh INSTDIR: filters on a physical streaming standby.
#
# Two throwaway clusters (test/pg_cluster.sh, nested): the outer one is the
# primary; the inner one a hot standby made from it by pg_basebackup -R,
# streaming its WAL.  Filters are stored as they come (STORAGE EXTENDED): a
# 1,000,000-value filter (1.2 MB) and 12 kB ones out of line, sparse ones
# (one of them a 2.4 MB scheme 2 filter) compressed, small ones inline.  It
# checks that
#
#   - what the base backup copied and what was streamed after it read on the
#     standby exactly as on the primary: the md5 of each filter's text form
#     and of its bloom_send output, and = with a recomputation from the
#     row's recipe, run on the standby;
#   - the semi-join prefilter (bloom_contains of a stored filter over a
#     300,000-row table) counts the same rows on both;
#   - the standby stopped (immediate) and started again while the primary
#     writes filters loses nothing: every transaction the primary
#     acknowledged is on the standby, bit-identical, once it has caught up.
#
# No ERROR may appear in either server log.
# Prints "standby: N passed, M failed" last; exits non-zero on any failure.
source "$(dirname "$0")/common.bash"
# The primary, then the standby inside it.
cluster_main standby "$@"
if [ -z "${BLOOM_CLUSTER_NESTED:-}" ]; then
	# On the primary, once, before the base backup copies it.  Each filter
	# is bloom_agg(g, p, capacity) over generate_series(lo, hi, step), plus
	# the value added (if any), so any copy can be checked against a
	# recomputation.
	"${PSQL[@]}" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE TABLE filters (id int PRIMARY KEY, lo int, hi int, step int, p float8, capacity int8,
	added int, f bloom);
ALTER TABLE filters ALTER f SET STORAGE EXTENDED, ALTER f SET COMPRESSION pglz;
CREATE FUNCTION recipe_filter(r filters) RETURNS bloom LANGUAGE sql STABLE AS $$
	SELECT bloom_add(bloom_agg(g, r.p, r.capacity), r.added) FROM generate_series(r.lo, r.hi, r.step) AS g
$$;
INSERT INTO filters (id, lo, hi, step, p, capacity) VALUES
	(1, 2, 2000000, 2, 0.01, 1000000),	-- 1.2 MB, out of line
	(2, 1, 10000, 1, 0.01, 10000),		-- 12 kB, out of line
	(3, 1, 20, 1, 0.01, 50),			-- 80 bytes, inline
	(4, 1, 1000, 1, 0.01, 100000),		-- 120 kB, compressed to ~17 kB, out of line
	(5, 1, 2000, 1, 0.01, 2000000);		-- 2.4 MB, scheme 2, compressed, out of line
UPDATE filters SET f = recipe_filter(filters);
CREATE TABLE big AS SELECT id FROM generate_series(1, 300000) AS id;
SQL
fi
BLOOM_BASEBACKUP_FROM="host=$PGHOST port=$PGPORT user=postgres" \
	cluster_nested PRIMARY "$@" -o hot_standby=on

started=$SECONDS
work=$(mktemp -d /tmp/bloomfilter-standby.XXXXXX)
writer=
cleanup() {
	[ -n "$writer" ] && kill "$writer" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

primary_sql() { PGHOST=$PRIMARY_HOST PGPORT=$PRIMARY_PORT "${PSQL[@]}" "$@"; }
standby_sql() { "${PSQL[@]}" "$@"; }

check "the standby is in recovery, the primary is not" "t f" \
	"$(standby_sql -c "SELECT pg_is_in_recovery()") $(primary_sql -c "SELECT pg_is_in_recovery()")"
# From here on a failed step fails its checks only, and the run goes on.
set +e

# wait_for_replay LABEL: the standby has replayed the primary's current WAL
replayed() { standby_sql -c "SELECT pg_last_wal_replay_lsn() >= '$1'"; }
wait_for_replay() {
	local lsn deadline=$((SECONDS + 120))
	lsn=$(primary_sql -c "SELECT pg_current_wal_lsn()")
	while [ $SECONDS -lt $deadline ]; do
		if [ "$(replayed "$lsn" 2>/dev/null)" = t ]; then
			pass "$1: the standby has replayed the primary's WAL up to $lsn"
			return
		fi
		sleep 0.2
	done
	fail "$1: the standby did not replay up to $lsn in 120 s"
}

# compare LABEL: every filter as on the primary, and = its recomputation
digest="SELECT id || ' ' || md5(f::text) || ' ' || md5(bloom_send(f)) FROM filters ORDER BY id"
compare() {
	local expected got
	expected=$(primary_sql -c "$digest")
	got=$(standby_sql -c "$digest")
	if [ -n "$got" ] && [ "$got" = "$expected" ]; then
		pass "$1: md5 of the text form and of bloom_send of every filter as on the primary ($(grep -c . <<<"$got") filters)"
	else
		fail "$1: the standby's filters differ from the primary's (id, md5 of text, md5 of bloom_send):"$'\n'"$(diff <(echo "$expected") <(echo "$got") | head -n 10)"
	fi
	check "$1: every filter on the standby = its recomputation there" "0" \
		"$(standby_sql -c "SELECT count(*) FROM filters WHERE f IS DISTINCT FROM recipe_filter(filters)")"
}

wait_for_replay "base backup"
# For a value not compressed, pg_column_size less the send length is its
# length word: 0 out of line, 1 for a 1-byte header (see sql/forms.sql).
check "the forms on the standby: 1, 2 out of line; 3 inline, 1-byte header; 4, 5 compressed" \
	"1 0|2 0|3 1|4 pglz|5 pglz" \
	"$(standby_sql -c "SELECT string_agg(id || ' ' || coalesce(pg_column_compression(f),
		(pg_column_size(f) - octet_length(bloom_send(f)))::text), '|' ORDER BY id) FROM filters")"
compare "base backup"

# ---- changes streamed to the running standby ----
primary_sql <<'SQL'
INSERT INTO filters (id, lo, hi, step, p, capacity)
SELECT id, id * 10000, id * 10000 + 9999, 1, 0.01, 10000 FROM generate_series(11, 15) AS id;
UPDATE filters SET f = recipe_filter(filters) WHERE f IS NULL;
-- a new value for stored filters: 1.2 MB, 12 kB, compressed, 2.4 MB
UPDATE filters SET added = 424242, f = bloom_add(f, 424242) WHERE id IN (1, 2, 4, 5, 11);
DELETE FROM filters WHERE id = 12;
SQL
wait_for_replay "streamed changes"
compare "streamed changes"

prefilter="SELECT count(*) FROM big WHERE bloom_contains((SELECT f FROM filters WHERE id = 1), id)"
on_primary=$(primary_sql -c "$prefilter")
on_standby=$(standby_sql -c "$prefilter")
check "the prefilter counts the same rows on the standby as on the primary" "$on_primary" "$on_standby"
# 150,000 members (the even ids); the other 150,000 pass with probability
# about 0.01 each (mean 1,500, standard deviation 39): 3,000 is 38 of them.
if [ "${on_standby:-0}" -ge 150000 ] && [ "$on_standby" -le 153000 ]; then
	pass "  ... $on_standby rows: every member and $((on_standby - 150000)) false positives (bound: 0 to 3,000)"
else
	fail "  ... $on_standby rows, not between 150,000 and 153,000"
fi

# ---- the standby restarted while the primary writes ----
# Transaction i inserts filter 1000 + i (12 kB, out of line) and adds a value
# to filter 1000 + i - 1.  An id is recorded once the primary acknowledged it.
: >"$work/committed"
(
	for i in $(seq 1 300); do
		primary_sql -c "BEGIN;
INSERT INTO filters (id, lo, hi, step, p, capacity, f)
SELECT 1000 + $i, $i * 100, $i * 100 + 9999, 1, 0.01, 10000, bloom_agg(g, 0.01, 10000)
FROM generate_series($i * 100, $i * 100 + 9999) AS g;
UPDATE filters SET added = $i, f = bloom_add(f, $i) WHERE id = 1000 + $i - 1;
COMMIT;" >/dev/null 2>>"$work/writer.log" || exit 1
		echo "$i" >>"$work/committed"
	done
) &
writer=$!
committed() { wc -l <"$work/committed"; }
deadline=$((SECONDS + 60))
while [ "$(committed)" -lt 30 ] && [ $SECONDS -lt $deadline ]; do sleep 0.05; done
"$BLOOM_PG_CTL" -m immediate stop >/dev/null
at_stop=$(committed)
sleep 0.5
"$BLOOM_PG_CTL" start >/dev/null
at_start=$(committed)
status=0
wait "$writer" || status=$?
writer=
check "the primary's writer ran through (300 transactions, exit 0)" "300 0" "$(committed) $status"
[ "$status" = 0 ] || tail -n 5 "$work/writer.log"
if [ "$at_stop" -ge 30 ] && [ "$at_start" -gt "$at_stop" ] && [ "$at_start" -lt 300 ]; then
	pass "the standby was stopped (immediate) after $at_stop commits and started again after $at_start, with the primary still writing"
else
	fail "the standby's restart was not in the middle of the writes (stopped after $at_stop commits, started after $at_start)"
fi
wait_for_replay "after the restart"
compare "after the restart"
check "every acknowledged transaction is on the standby" "300 299" \
	"$(standby_sql -c "SELECT count(*) || ' ' || count(added) FROM filters WHERE id > 1000")"

# ---- the logs ----
for name in primary standby; do
	log=$BLOOM_PG_LOG
	[ $name = primary ] && log=$PRIMARY_PG_LOG
	errors=$(grep -E '(ERROR|PANIC):' "$log" || true)
	if [ -z "$errors" ]; then
		pass "no ERROR in the $name's log"
	else
		fail "ERRORs in the $name's log:"$'\n'"$(head -n 10 <<<"$errors")"
	fi
done

echo "($((SECONDS - started)) s)"
cluster_done
