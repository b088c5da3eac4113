#!/usr/bin/env bash
# test/cluster/replication.sh INSTDIR: logical replication of filters.
#
# Two throwaway clusters (test/pg_cluster.sh, nested): the outer one is the
# publisher (wal_level = logical, logical_decoding_work_mem = 64kB), the
# inner one the subscriber, with two subscriptions to one publication, in two
# databases: binary = false (values travel in text form, through bloom_out
# and bloom_in) and binary = true (bloom_send and bloom_recv), both with
# streaming = on.  Logical decoding hands the output functions a stored
# filter as an external indirect pointer: the form no SQL query can make.
#
# After each step every table must be bit-identical on both subscribers: the
# same md5 of every row's text form as on the publisher, and every filter =
# to the publisher's value, carried over by COPY (FORMAT binary).
#
#   1. the initial copy: small inline filters, a NULL, 12 kB filters stored
#      out of line, compressed filters stored out of line (STORAGE EXTENDED);
#   2. streamed changes: INSERT, UPDATE f = bloom_add(f, 424242) of filters
#      stored out of line (the statement that broke the walsender before
#      4d21db6), an UPDATE that leaves the filters as they are, DELETE; a
#      12 MB filter (scheme 2) inserted and then updated by bloom_add;
#   3. a transaction of ~5 MB of changes (300 filters of 12 kB stored out
#      of line, half of them then updated by bloom_add): with
#      streaming = on it must be streamed while still in progress
#      (pg_stat_replication_slots), and not be visible on the subscribers
#      before it commits;
#   4. test_decoding's output of an updated stored filter is its text form;
#   5. a subscription stopped by the old library: the publisher runs the
#      library of f97c54e (built from git, and copied over the library of
#      the publisher's own install tree), the walsender fails on the same
#      UPDATE; with the new library installed and the publisher restarted,
#      both subscriptions catch up with no resync (rows copied before keep
#      their xmin on the subscriber).  Skipped (not counted) without git or
#      that commit, or on a PostgreSQL other than 15, which it does not
#      build against.
#
# No ERROR may appear in either server log but those step 5 provokes.
# Prints "replication: N passed, M failed" last; exits non-zero on any failure.
source "$(dirname "$0")/common.bash"
# The publisher runs on a copy of INSTDIR of its own, whose library step 5
# replaces; the subscriber on INSTDIR.  (Run once, before any cluster.)
if [ -z "${BLOOM_CLUSTER_COUNTS:-}" ]; then
	[ -n "${1:-}" ] || { echo "usage: $0 INSTDIR" >&2; exit 2; }
	BLOOM_SUBSCRIBER_INST=$(cd "$1" && pwd)
	BLOOM_PUBLISHER_INST=$(mktemp -d /tmp/bloomfilter-publisher-inst.XXXXXX)
	export BLOOM_SUBSCRIBER_INST BLOOM_PUBLISHER_INST
	trap 'rm -rf "$BLOOM_PUBLISHER_INST"' EXIT
	chmod 755 "$BLOOM_PUBLISHER_INST"
	cp -a "$BLOOM_SUBSCRIBER_INST/." "$BLOOM_PUBLISHER_INST/"
	set -- "$BLOOM_PUBLISHER_INST"
fi
# The publisher, then the subscriber inside it.
cluster_main replication "$@" -o wal_level=logical -o logical_decoding_work_mem=64kB \
	-o max_wal_senders=10 -o max_replication_slots=10
cluster_nested PUB "$BLOOM_SUBSCRIBER_INST" -o max_logical_replication_workers=8 \
	-o max_worker_processes=16 -o wal_retrieve_retry_interval=500ms

started=$SECONDS
work=$(mktemp -d /tmp/bloomfilter-replication.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

subscriptions=(s_text s_binary)
pub_sql() { PGHOST=$PUB_HOST PGPORT=$PUB_PORT "${PSQL[@]}" -d pub "$@"; }
# sub_sql SUBSCRIPTION ARGS...: psql in that subscription's database
sub_sql() { local db=$1; shift; "${PSQL[@]}" -d "$db" "$@"; }

# The tables, with the columns that hold filters.
declare -A filter_columns=([filters]="f c" [big]="f" [stream]="f")
tables=(filters big stream)

schema='
CREATE EXTENSION bloomfilter;
-- f: STORAGE external, as the type says; c: STORAGE extended, compressed (pglz)
CREATE TABLE filters (id int PRIMARY KEY, note text, f bloom, c bloom);
ALTER TABLE filters ALTER c SET STORAGE EXTENDED, ALTER c SET COMPRESSION pglz;
CREATE TABLE big (id int PRIMARY KEY, f bloom);
CREATE TABLE stream (id int PRIMARY KEY, f bloom);'

# ---- the publisher's data and the subscriptions ----
PGHOST=$PUB_HOST PGPORT=$PUB_PORT "${PSQL[@]}" -c "CREATE DATABASE pub"
pub_sql <<SQL
$schema
CREATE PUBLICATION p FOR TABLE filters, big, stream;
-- 1..3: small, inline; 4: NULL; 11..16: 12 kB, out of line, with a
-- compressible 120 kB filter in c that compresses to ~17 kB, out of line too
INSERT INTO filters
SELECT id, 'small', (SELECT bloom_agg(g, 0.01, 50) FROM generate_series(id * 100, id * 100 + 40) AS g), NULL
FROM generate_series(1, 3) AS id;
INSERT INTO filters VALUES (4, 'null', NULL, NULL);
INSERT INTO filters
SELECT id, 'stored',
	(SELECT bloom_agg(g, 0.01, 10000) FROM generate_series(id * 10000, id * 10000 + 9999) AS g),
	(SELECT bloom_agg(g, 0.01, 100000) FROM generate_series(id * 10000, id * 10000 + 999) AS g)
FROM generate_series(11, 16) AS id;
SQL
check "publisher: 12 kB filters stored out of line, compressed ones compressed (pglz)" "t" \
	"$(pub_sql -c "SELECT bool_and(pg_column_size(f) = octet_length(bloom_send(f))
			AND pg_column_compression(c) = 'pglz' AND pg_column_size(c) < octet_length(bloom_send(c)) / 4)
		AND pg_relation_size((SELECT reltoastrelid FROM pg_class WHERE relname = 'filters')) > 6 * (12000 + 10000)
		FROM filters WHERE note = 'stored'")"

for s in "${subscriptions[@]}"; do
	"${PSQL[@]}" -c "CREATE DATABASE $s"
	binary=false
	[ "$s" = s_binary ] && binary=true
	sub_sql "$s" <<SQL
$schema
-- the publisher's values, carried over by COPY (FORMAT binary)
CREATE TABLE pub_filters (LIKE filters);
CREATE TABLE pub_big (LIKE big);
CREATE TABLE pub_stream (LIKE stream);
CREATE SUBSCRIPTION $s CONNECTION 'host=$PUB_HOST port=$PUB_PORT dbname=pub user=postgres'
	PUBLICATION p WITH (binary = $binary, streaming = on);
SQL
done
# A failure to set up ends the run (set -e so far); from here on a failed
# step fails its checks only, and the run goes on.
set +e

# ---- helpers ----

# wait_for SECONDS QUERY-FUNCTION ARGS...: until the command prints "t"
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	while [ $SECONDS -lt $deadline ]; do
		[ "$("$@" 2>/dev/null)" = t ] && return 0
		sleep 0.2
	done
	return 1
}
# Every table of both subscriptions synchronized, then caught up with the
# publisher's current WAL position (as PostgreSQL's own tests wait).
synced() {
	local s n=0
	for s in "${subscriptions[@]}"; do
		n=$((n + $(sub_sql "$s" -c "SELECT count(*) FROM pg_subscription_rel WHERE srsubstate NOT IN ('r', 's')")))
	done
	[ "$n" = 0 ] && echo t
}
caught_up() {
	pub_sql -c "SELECT count(*) = ${#subscriptions[@]} FROM pg_stat_replication
		WHERE application_name IN ('s_text', 's_binary') AND state = 'streaming' AND replay_lsn >= '$1'"
}
wait_for_catchup() {
	local lsn
	lsn=$(pub_sql -c "SELECT pg_current_wal_lsn()")
	if wait_for 120 caught_up "$lsn"; then
		pass "$1: both subscriptions caught up"
	else
		fail "$1: the subscriptions did not catch up with $lsn in 120 s"
		pub_sql -c "SELECT application_name, state, replay_lsn FROM pg_stat_replication" | sed 's/^/    /'
	fi
}

# compare LABEL: every table bit-identical on both subscribers
compare() {
	local label=$1 s table column differ expected got
	for table in "${tables[@]}"; do
		expected=$(pub_sql -c "SELECT id || ' ' || md5(t::text) FROM $table AS t ORDER BY id")
		for s in "${subscriptions[@]}"; do
			got=$(sub_sql "$s" -c "SELECT id || ' ' || md5(t::text) FROM $table AS t ORDER BY id")
			if [ "$got" = "$expected" ]; then
				pass "$label, $s: $table, the md5 of each row's text form as on the publisher ($(printf '%s' "$got" | grep -c .) rows)"
			else
				fail "$label, $s: $table differs from the publisher (id, md5 of the row's text form):"$'\n'"$(diff <(echo "$expected") <(echo "$got") | head -n 10)"
			fi
			pub_sql -c "\\copy $table TO STDOUT (FORMAT binary)" |
				sub_sql "$s" -c "TRUNCATE pub_$table" -c "\\copy pub_$table FROM pstdin (FORMAT binary)"
			differ="false"
			for column in ${filter_columns[$table]}; do
				differ="$differ OR s.$column IS DISTINCT FROM p.$column"
			done
			check "$label, $s: $table, every filter = the publisher's (carried over by binary COPY)" "0" \
				"$(sub_sql "$s" -c "SELECT count(*) FROM $table AS s FULL JOIN pub_$table AS p USING (id)
					WHERE s.id IS NULL OR p.id IS NULL OR $differ")"
		done
	done
}

# ERROR lines of a server log from line FROM on
errors_since() { tail -n "+$2" "$1" | grep -E '(ERROR|FATAL|PANIC):' || true; }
log_lines() { wc -l <"$1"; }
check_no_errors() {
	local label=$1 name log from errors
	for name in publisher subscriber; do
		if [ $name = publisher ]; then log=$PUB_PG_LOG from=$2; else log=$BLOOM_PG_LOG from=$3; fi
		errors=$(errors_since "$log" "$from")
		if [ -z "$errors" ]; then
			pass "$label: no ERROR in the $name's log"
		else
			fail "$label: ERRORs in the $name's log:"$'\n'"$(head -n 10 <<<"$errors")"
		fi
	done
}

# ---- 1. the initial copy ----
if wait_for 120 synced; then
	pass "initial copy: every table of both subscriptions synchronized"
else
	fail "initial copy: not synchronized in 120 s"
fi
wait_for_catchup "initial copy"
compare "initial copy"

# ---- 2. streamed changes ----
pub_sql <<'SQL'
INSERT INTO filters
SELECT id, 'inserted',
	(SELECT bloom_agg(g, 0.01, 10000) FROM generate_series(id * 10000, id * 10000 + 9999) AS g),
	(SELECT bloom_agg(g, 0.01, 100000) FROM generate_series(id * 10000, id * 10000 + 999) AS g)
FROM generate_series(21, 24) AS id;
-- the statement that broke the walsender: a new value of a stored filter
UPDATE filters SET f = bloom_add(f, 424242) WHERE id IN (11, 12, 21);
UPDATE filters SET c = bloom_add(c, 424242), f = bloom_add(f, 's'::text) WHERE id IN (13, 22);
UPDATE filters SET f = f | bloom_add(f & f, -1) WHERE id = 1;
-- the filters unchanged (sent as "unchanged TOAST" or as they are)
UPDATE filters SET note = 'touched' WHERE id IN (14, 23);
DELETE FROM filters WHERE id IN (15, 24, 2);
-- 12 MB: scheme 2, stored out of line, then replaced by bloom_add
INSERT INTO big SELECT 1, bloom_agg(g, 0.01, 10000000) FROM generate_series(1, 200000) AS g;
UPDATE big SET f = bloom_add(f, 424242);
SQL
check "the 12 MB filter is scheme 2, stored out of line" "t" \
	"$(pub_sql -c "SELECT i.bytes > 12000000 AND pg_column_size(f) = octet_length(bloom_send(f))
		AND bloom_send(f) = bloom_send(bloom_add((SELECT bloom_agg(g, 0.01, 10000000) FROM generate_series(1, 200000) AS g), 424242))
		FROM big, bloom_info(f) AS i")"
wait_for_catchup "streamed changes"
compare "streamed changes"
check "the updated filters contain 424242 on the subscriber (binary = false)" "t" \
	"$(sub_sql s_text -c "SELECT bool_and(f @> 424242) FROM filters WHERE id IN (11, 12, 21)")"

# ---- 3. a large transaction, streamed while in progress ----
# One session (psql reading a FIFO) opens the transaction and makes its
# changes, then waits; the transaction must show up in both slots'
# stream_txns before COMMIT is sent, with nothing visible on the
# subscribers yet.
stream_stats() {
	pub_sql -c "SELECT string_agg(slot_name || ' ' || stream_txns || ' ' || stream_bytes, ' ' ORDER BY slot_name)
		FROM pg_stat_replication_slots WHERE slot_name IN ('s_binary', 's_text')"
}
# streamed_since BINARY_TXNS TEXT_TXNS: both slots streamed more transactions
streamed_since() {
	local binary_txns text_txns
	read -r _ binary_txns _ _ text_txns _ <<<"$(stream_stats)"
	[ "$binary_txns" -gt "$1" ] && [ "$text_txns" -gt "$2" ] && echo t
}
read -r _ binary_txns_before _ _ text_txns_before _ <<<"$(stream_stats)"
mkfifo "$work/transaction"
pub_sql <"$work/transaction" >"$work/transaction.out" 2>&1 &
transaction_pid=$!
exec 7>"$work/transaction"
cat >&7 <<'SQL'
BEGIN;
INSERT INTO stream
SELECT id, (SELECT bloom_agg(g, 0.01, 10000) FROM generate_series(id * 10000, id * 10000 + 4999) AS g)
FROM generate_series(1, 300) AS id;
UPDATE stream SET f = bloom_add(f, 424242) WHERE id % 2 = 0;
SQL
if wait_for 60 streamed_since "$binary_txns_before" "$text_txns_before"; then
	pass "the open transaction was streamed to both subscriptions before its COMMIT (so far $(stream_stats |
		awk '{ printf "%s: %s transactions, %s bytes streamed; %s: %s, %s bytes", $1, $2, $3, $4, $5, $6 }'))"
else
	fail "the open transaction was not streamed in 60 s: $(stream_stats)"
fi
for s in "${subscriptions[@]}"; do
	check "$s: none of the streamed rows is visible before the COMMIT" "0" \
		"$(sub_sql "$s" -c "SELECT count(*) FROM stream")"
done
echo "COMMIT;" >&7
exec 7>&-
status=0
wait "$transaction_pid" || status=$?
check "the large transaction commits" "0" "$status"
[ "$status" = 0 ] || cat "$work/transaction.out"
wait_for_catchup "large streamed transaction"
compare "large streamed transaction"
check "the streamed rows are there (300) on the subscriber (binary = true)" "300" \
	"$(sub_sql s_binary -c "SELECT count(*) FROM stream WHERE f @> (id * 10000) AND (id % 2 = 1 OR f @> 424242)")"

# ---- 4. test_decoding ----
pub_sql -c "SELECT 'created' FROM pg_create_logical_replication_slot('decoding', 'test_decoding')" >/dev/null
pub_sql -c "UPDATE filters SET f = bloom_add(f, 777) WHERE id = 16"
check "test_decoding prints an updated stored filter as its text form" "t" \
	"$(pub_sql <<'SQL'
SELECT count(*) = 1 AND bool_and(substring(data FROM 'f\[bloom\]:''([^'']*)''')
		= (SELECT f::text FROM filters WHERE id = 16))
FROM pg_logical_slot_get_changes('decoding', NULL, NULL)
WHERE data LIKE 'table public.filters: UPDATE: id[integer]:16 %';
SQL
)"
pub_sql -c "SELECT pg_drop_replication_slot('decoding')" >/dev/null
wait_for_catchup "test_decoding's UPDATE"
compare "test_decoding's UPDATE"
check_no_errors "steps 1 to 4" 1 1

# ---- 5. a subscription stopped by the old library catches up with the new ----
old_commit=f97c54e
if ! command -v git >/dev/null || ! git -C "$BLOOM_ROOT" cat-file -e "$old_commit^{commit}" 2>/dev/null; then
	echo "skipped: the old library (git commit $old_commit is not available here)"
	echo "($((SECONDS - started)) s)"
	cluster_done
	exit
fi
old=$work/old
mkdir -p "$old/src" "$old/build"
t=$SECONDS
if git -C "$BLOOM_ROOT" archive "$old_commit" | tar -x -C "$old/src" &&
	make -C "$old/build" -f "$old/src/Makefile" VPATH="$old/src" PG_CONFIG="$PG_CONFIG" with_llvm=no -j2 \
		>"$old/build.log" 2>&1 &&
	make -C "$old/build" -f "$old/src/Makefile" VPATH="$old/src" PG_CONFIG="$PG_CONFIG" with_llvm=no \
		install DESTDIR="$old/inst" >>"$old/build.log" 2>&1; then
	pass "the library of $old_commit builds from git ($((SECONDS - t)) s)"
else
	# That commit was written for PostgreSQL 15 only.
	major=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
	if [ "$major" = 15 ]; then
		fail "the library of $old_commit does not build:"$'\n'"$(tail -n 20 "$old/build.log")"
	else
		echo "skipped: the old library (commit $old_commit does not build against PostgreSQL $major)"
	fi
	echo "($((SECONDS - started)) s)"
	cluster_done
	exit
fi

# What must not change on the subscribers: rows copied before keep their
# xmin (no resync), every table stays ready.
kept_rows() {
	sub_sql "$1" -c "SELECT string_agg(id || ':' || xmin, ',' ORDER BY id) FROM filters WHERE id IN (1, 3, 4, 14)"
}
declare -A kept
for s in "${subscriptions[@]}"; do kept[$s]=$(kept_rows "$s"); done

# Log lines from here on.  A restart makes its own errors (connections
# refused while the server shuts down, the subscribers' connections cut),
# so each window starts once the server is up.
# (An apply worker started again while its predecessor still holds the
# replication origin fails with "already active" and is retried: the
# restart churn of a failing walsender, not an error of ours.)
subscriber_errors_but_lost_connections() {
	errors_since "$BLOOM_PG_LOG" "$1" | grep -v -e 'could not receive data from WAL stream' \
		-e 'could not send end-of-streaming message' -e 'could not connect to the publisher' \
		-e 'replication origin with ID [0-9]* is already active for PID' || true
}
sub_from=$(($(log_lines "$BLOOM_PG_LOG") + 1))
# install_library FILE: FILE becomes the publisher's bloomfilter.so
library=$("$PG_CONFIG" --pkglibdir)/bloomfilter.so
cp "$BLOOM_PUBLISHER_INST$library" "$work/new.so"
install_library() {
	cp "$1" "$BLOOM_PUBLISHER_INST$library.new" && mv -f "$BLOOM_PUBLISHER_INST$library.new" "$BLOOM_PUBLISHER_INST$library"
}
# runs_library FILE: the publisher loads the extension from its own install
# tree (whatever setting names it), whose library is FILE
runs_library() {
	[ "$(pub_sql -c "SELECT count(*) > 0 FROM pg_settings WHERE setting LIKE '%$BLOOM_PUBLISHER_INST%'")" = t ] &&
		cmp -s "$1" "$BLOOM_PUBLISHER_INST$library" && echo t
}
install_library "$old/inst$library"
"$PUB_PG_CTL" restart >/dev/null
pub_from=$(($(log_lines "$PUB_PG_LOG") + 1))
check "the publisher restarted on the library of $old_commit" "t" "$(runs_library "$old/inst$library")"
pub_sql -c "UPDATE filters SET f = bloom_add(f, 424242) WHERE id = 13"
pub_sql -c "INSERT INTO filters VALUES (31, 'after', bloom_add(bloom_empty(0.01, 50), 31), NULL)"
walsender_failed() {
	errors_since "$PUB_PG_LOG" "$pub_from" | grep -q 'invalid bloom filter value' && echo t
}
if wait_for 60 walsender_failed; then
	pass "old library: the walsender fails on the UPDATE ($(errors_since "$PUB_PG_LOG" "$pub_from" | grep -m1 -o 'ERROR: .*'))"
else
	fail "old library: no walsender error in 60 s"
fi
sleep 2
for s in "${subscriptions[@]}"; do
	check "old library, $s: the subscription has stopped before the UPDATE (row 13 as before, row 31 missing)" "f|0" \
		"$(sub_sql "$s" -c "SELECT bool_or(f @> 424242), count(*) FILTER (WHERE id = 31) FROM filters WHERE id IN (13, 31)")"
done
# (a walsender may also see its subscriber leave: "connection to client lost")
other=$(errors_since "$PUB_PG_LOG" "$pub_from" | grep -v -e 'invalid bloom filter value' \
	-e 'FATAL:  connection to client lost' || true)
if [ -z "$other" ]; then
	pass "old library: the publisher's only ERRORs are the walsender's (invalid bloom filter value)"
else
	fail "old library: other ERRORs in the publisher's log:"$'\n'"$(head -n 10 <<<"$other")"
fi
other=$(subscriber_errors_but_lost_connections "$sub_from")
if [ -z "$other" ]; then
	pass "old library: the subscriber's only ERRORs are the walsender's, relayed, and lost connections"
else
	fail "old library: other ERRORs in the subscriber's log:"$'\n'"$(head -n 10 <<<"$other")"
fi

install_library "$work/new.so"
"$PUB_PG_CTL" restart >/dev/null
pub_from=$(($(log_lines "$PUB_PG_LOG") + 1))
sub_from=$(($(log_lines "$BLOOM_PG_LOG") + 1))
check "the publisher restarted on the new library" "t" "$(runs_library "$BLOOM_SUBSCRIBER_INST$library")"
wait_for_catchup "new library"
compare "new library"
for s in "${subscriptions[@]}"; do
	check "new library, $s: no resync (rows copied before keep their xmin, every table ready)" \
		"${kept[$s]} 0" \
		"$(kept_rows "$s") $(sub_sql "$s" -c "SELECT count(*) FROM pg_subscription_rel WHERE srsubstate <> 'r'")"
done
errors=$(errors_since "$PUB_PG_LOG" "$pub_from")
if [ -z "$errors" ]; then
	pass "new library: no ERROR in the publisher's log since it restarted"
else
	fail "new library: ERRORs in the publisher's log:"$'\n'"$(head -n 10 <<<"$errors")"
fi
other=$(subscriber_errors_but_lost_connections "$sub_from")
if [ -z "$other" ] && ! errors_since "$BLOOM_PG_LOG" "$sub_from" | grep -q 'invalid bloom filter value'; then
	pass "new library: no ERROR in the subscriber's log since the publisher restarted (but lost connections)"
else
	fail "new library: ERRORs in the subscriber's log:"$'\n'"$(errors_since "$BLOOM_PG_LOG" "$sub_from" | head -n 10)"
fi

echo "($((SECONDS - started)) s)"
cluster_done
