#!/usr/bin/env bash
# Filters written on PostgreSQL 15 read bit-identically on every other major.
#
#   test/cross/majors.sh        (run by "make test-all", after the majors'
#                               own tests; needs root and scripts/chroot.sh)
#
# A 15 server on the host (wal_level = logical) stores filters of every kind:
# inline, out of line, scheme 1 and scheme 2 (12 MB), self-sized, empty,
# NULL; and counting and scalable filters (columns c and s): inline, out of
# line, both hash schemes, values removed, several stages, self-sized,
# non-ASCII text.  Then, for each major in $BLOOM_MAJORS, a server of that major in its
# chroot, sharing /tmp (and so the 15 server's socket directory), gets them
# by every path a DBA uses between majors:
#
#   (a) pg_dump of the 15 database, plain and custom format, restored with
#       the major's psql and pg_restore;
#   (b) logical replication from the 15 publisher, text and binary
#       subscriptions: the initial copy, then an INSERT, an UPDATE with
#       bloom_add of an out-of-line filter (of each type; bloom_remove of an
#       out-of-line counting filter) and a DELETE, streamed;
#   (c) one COPY ... (FORMAT binary) file written on 15, loaded on the major.
#
# Each copy is compared with the 15 server's filters as md5 of the text form
# and with = (against the 15 text forms parsed on the major).
#
# Environment (from scripts/run.sh test-all): BLOOM_ROOT, BLOOM_BUILD,
# BLOOM_INST_15 (the 15 install tree), BLOOM_MAJORS ("17 18 19"), PG_CONFIG
# (15's); each major's install tree is $BLOOM_BUILD/pgN/inst.
set -euo pipefail

BLOOM_ROOT=${BLOOM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
self=$BLOOM_ROOT/test/cross/majors.sh
role=${1:-main}

# ---- main: the shared directory, then the 15 server with the rest inside ----
if [ "$role" = main ]; then
	: "${BLOOM_BUILD:?}" "${BLOOM_INST_15:?}" "${BLOOM_MAJORS:?}"
	work=$(mktemp -d /tmp/bloomfilter-cross.XXXXXX)
	chmod 777 "$work"
	trap 'rm -rf "$work"' EXIT
	# Install trees in /tmp, readable by every chroot's postgres user.
	cp -a "$BLOOM_INST_15" "$work/inst15"
	for major in $BLOOM_MAJORS; do
		cp -a "$BLOOM_BUILD/pg$major/inst" "$work/inst$major"
	done
	chmod -R a+rX "$work"
	echo "0 0" >"$work/counts"
	chmod 666 "$work/counts"
	status=0
	BLOOM_CROSS_WORK=$work "$BLOOM_ROOT/test/pg_cluster.sh" \
		-o wal_level=logical -o max_wal_senders=20 -o max_replication_slots=20 \
		"$work/inst15" "$self" publisher || status=$?
	read -r p f <"$work/counts"
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL: the run stopped early or a server crashed (exit $status)"
		f=1
	fi
	echo "majors: $p passed, $f failed"
	[ "$f" -eq 0 ]
	exit
fi

source "$BLOOM_ROOT/test/checks.bash"
work=${BLOOM_CROSS_WORK:?}
# Checks add up in $work/counts across the servers' phases.
add_counts() {
	local p f
	read -r p f <"$work/counts"
	echo "$((p + passed)) $((f + failed))" >"$work/counts"
	passed=0 failed=0
}

# The table every copy is compared on: id, and md5 of the text forms.
digest_query="SELECT string_agg(id || ':' || coalesce(md5(f::text), 'NULL') || ':' || coalesce(md5(c::text), 'NULL')
	|| ':' || coalesce(md5(s::text), 'NULL'), ' ' ORDER BY id) FROM f"
# Rows 8 to 11: counting (c) and scalable (s) filters.
sets_rows="
	-- inline
	(8, NULL, bloom_add_all(counting_bloom_empty(0.01, 50), ARRAY[1, 2, 3]),
		bloom_add_all(scalable_bloom_empty(0.01, 5), ARRAY(SELECT generate_series(1, 20)))),
	-- 96 kB, out of line, 1,000 values removed; 4 stages
	(9, NULL, bloom_remove_all((SELECT counting_bloom_agg(g, 0.01, 20000) FROM generate_series(1, 20000) g),
			ARRAY(SELECT generate_series(1, 1000))),
		bloom_add_all(scalable_bloom_empty(0.01, 2000), ARRAY(SELECT generate_series(1, 20000)))),
	-- scheme 2: 512 kB (given by its text form), 3.4 MB
	(10, NULL, bloom_add_all(('counting_bloom:v1:h2:m1048576:k7:' || repeat('A', 699051) || '=')::counting_bloom,
			ARRAY(SELECT generate_series(1, 20000))),
		bloom_add_all(scalable_bloom_empty(0.01, 2000000), ARRAY(SELECT generate_series(1, 1000)))),
	-- non-ASCII text; self-sized
	(11, NULL, (SELECT counting_bloom_agg(x, 0.001, 1000) FROM unnest(ARRAY['café', 'あ', 'x']) x),
		(SELECT scalable_bloom_agg(x, 0.001) FROM unnest(ARRAY['café', 'あ', 'x']) x))"

# ---- publisher: the 15 server ----
if [ "$role" = publisher ]; then
	echo "PostgreSQL 15 publisher on $PGHOST"
	"${PSQL[@]}" -c "CREATE DATABASE src"
	"${PSQL[@]}" -d src <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE TABLE f (id int PRIMARY KEY, f bloom, c counting_bloom, s scalable_bloom);
INSERT INTO f VALUES
	(1, bloom_add(bloom_empty_mk(64, 1), 1)),                                  -- inline, short header
	(2, (SELECT bloom_agg(g, 0.01, 100000) FROM generate_series(1, 50000) g)), -- 120 kB, out of line, scheme 1
	(3, (SELECT bloom_agg(g, 0.01, 10000000) FROM generate_series(1, 200000) g)), -- 12 MB, scheme 2
	(4, (SELECT bloom_agg(g::text) FROM generate_series(1, 300000) g)),        -- self-sized
	(5, bloom_empty(0.01, 1000)),
	(6, NULL),
	(7, (SELECT bloom_agg(x, 0.001, 1000) FROM unnest(ARRAY['café', 'あ', 'x']) x));
CREATE PUBLICATION pub FOR TABLE f;
SQL
	"${PSQL[@]}" -d src -c "INSERT INTO f VALUES $sets_rows"
	"${PSQL[@]}" -d src -c "$digest_query" >"$work/digest15"
	"${PSQL[@]}" -d src -c "COPY f TO STDOUT" >"$work/f.text"
	"${PSQL[@]}" -d src -c "COPY f TO STDOUT (FORMAT binary)" >"$work/f.copy"
	"$BINDIR/pg_dump" -d src -f "$work/dump.sql"
	"$BINDIR/pg_dump" -d src -Fc -f "$work/dump.custom"
	chmod a+r "$work"/*
	check "the 15 database holds 11 rows of filters" 11 "$(wc -l <"$work/f.text")"
	add_counts

	for major in $BLOOM_MAJORS; do
		echo
		echo "---- PostgreSQL $major ----"
		"$BLOOM_ROOT/scripts/chroot.sh" run "$major" env \
			PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config" BLOOM_ROOT="$BLOOM_ROOT" \
			BLOOM_CROSS_WORK="$work" BLOOM_PUB_HOST="$PGHOST" BLOOM_PUB_PORT="$PGPORT" \
			"$BLOOM_ROOT/test/pg_cluster.sh" "$work/inst$major" "$self" subscriber "$major" \
			|| fail "PostgreSQL $major: the run stopped early or its server crashed"
		add_counts
		# the publisher again as 15 left it (the subscriber's changes undone)
		"${PSQL[@]}" -d src <<'SQL'
DELETE FROM f WHERE id >= 100;
UPDATE f SET f = (SELECT bloom_agg(g, 0.01, 100000) FROM generate_series(1, 50000) g) WHERE id = 2;
INSERT INTO f VALUES (6, NULL) ON CONFLICT DO NOTHING;
DELETE FROM f WHERE id BETWEEN 8 AND 11;
SQL
		"${PSQL[@]}" -d src -c "INSERT INTO f VALUES $sets_rows"
		check "PostgreSQL $major: the publisher is back as it was" \
			"$(cat "$work/digest15")" "$("${PSQL[@]}" -d src -c "$digest_query")"
	done
	add_counts
	exit 0
fi

# ---- subscriber: a server of another major, in its chroot ----
major=$2
expected=$(cat "$work/digest15")
echo "PostgreSQL $major on $PGHOST ($("${PSQL[@]}" -c 'SHOW server_version'))"

# Every filter of database db equals 15's: md5 of the text forms, and =
# against the 15 text forms parsed here.
compare() {
	local what=$1 db=$2
	check "PostgreSQL $major, $what: md5 of every filter's text form" \
		"$expected" "$("${PSQL[@]}" -d "$db" -c "$digest_query")"
	"${PSQL[@]}" -d "$db" -c "CREATE TEMP TABLE from15 (id int, f text, c text, s text)" \
		-c "\\copy from15 FROM '$work/f.text'" \
		-c "SELECT count(*) FILTER (WHERE (f.f = from15.f::bloom OR (f.f IS NULL AND from15.f IS NULL))
			AND (f.c = from15.c::counting_bloom OR (f.c IS NULL AND from15.c IS NULL))
			AND (f.s = from15.s::scalable_bloom OR (f.s IS NULL AND from15.s IS NULL))) || '/' || count(*)
		    FROM f JOIN from15 USING (id)" >"$work/eq.$major" 2>&1 || true
	check "PostgreSQL $major, $what: every filter (of 11 rows) = the 15 text form" "11/11" "$(tail -n 1 "$work/eq.$major")"
}

# (a) pg_dump, plain and custom, restored by this major's tools
"${PSQL[@]}" -c "CREATE DATABASE plain" -c "CREATE DATABASE custom"
"${PSQL[@]}" -d plain -f "$work/dump.sql" >"$work/restore-plain.$major" 2>&1 \
	|| { fail "PostgreSQL $major: psql -f of the 15 plain dump"; cat "$work/restore-plain.$major"; }
compare "plain pg_dump" plain
"$BINDIR/pg_restore" -d custom --exit-on-error "$work/dump.custom" \
	|| fail "PostgreSQL $major: pg_restore of the 15 custom dump"
compare "custom pg_dump" custom

# (c) one binary COPY file
"${PSQL[@]}" -c "CREATE DATABASE copied"
"${PSQL[@]}" -d copied -c "CREATE EXTENSION bloomfilter" \
	-c "CREATE TABLE f (id int PRIMARY KEY, f bloom, c counting_bloom, s scalable_bloom)" \
	-c "\\copy f FROM '$work/f.copy' (FORMAT binary)"
compare "COPY (FORMAT binary) file" copied

# (b) logical replication from the 15 publisher, text and binary
pub="host=$BLOOM_PUB_HOST port=$BLOOM_PUB_PORT dbname=src user=postgres"
for binary in false true; do
	db=sub_$binary
	"${PSQL[@]}" -c "CREATE DATABASE $db"
	"${PSQL[@]}" -d "$db" -c "CREATE EXTENSION bloomfilter" \
		-c "CREATE TABLE f (id int PRIMARY KEY, f bloom, c counting_bloom, s scalable_bloom)" \
		-c "CREATE SUBSCRIPTION s_${major}_$binary CONNECTION '$pub' PUBLICATION pub WITH (binary = $binary)"
done

# Wait until both subscriptions have copied the tables and applied every
# change the publisher had when called.
catch_up() {
	local lsn deadline=$((SECONDS + 120)) binary done
	lsn=$("${PSQL[@]}" -h "$BLOOM_PUB_HOST" -p "$BLOOM_PUB_PORT" -d src -c "SELECT pg_current_wal_lsn()")
	while [ $SECONDS -lt $deadline ]; do
		done=0
		for binary in false true; do
			[ "$("${PSQL[@]}" -h "$BLOOM_PUB_HOST" -p "$BLOOM_PUB_PORT" -d src -c \
				"SELECT count(*) FROM pg_replication_slots
				 WHERE slot_name = 's_${major}_$binary' AND confirmed_flush_lsn >= '$lsn'")" = 1 ] \
				&& [ "$("${PSQL[@]}" -d "sub_$binary" -c \
					"SELECT count(*) FROM pg_subscription_rel WHERE srsubstate <> 'r'")" = 0 ] \
				&& done=$((done + 1))
		done
		[ "$done" = 2 ] && return 0
		sleep 0.3
	done
	return 1
}
if catch_up; then pass "PostgreSQL $major: both subscriptions caught up"; else fail "PostgreSQL $major: the subscriptions did not catch up in 120 s"; fi
for binary in false true; do
	compare "logical replication initial copy (binary = $binary)" "sub_$binary"
done

# Streamed changes: an INSERT, an UPDATE of an out-of-line filter (bloom_add:
# the change logical decoding hands over as an indirect pointer), a DELETE.
"${PSQL[@]}" -h "$BLOOM_PUB_HOST" -p "$BLOOM_PUB_PORT" -d src <<'SQL'
INSERT INTO f SELECT 100, bloom_agg(g, 0.01, 100000) FROM generate_series(1, 1000) g;
UPDATE f SET f = bloom_add(f, 424242) WHERE id = 2;
DELETE FROM f WHERE id = 6;
INSERT INTO f VALUES (101, NULL, counting_bloom_empty(0.001, 5000), scalable_bloom_empty(0.001, 5000));
UPDATE f SET c = bloom_add(c, 424242), s = bloom_add(s, 424242) WHERE id IN (9, 10);
UPDATE f SET c = bloom_remove_all(c, ARRAY(SELECT generate_series(1, 500))) WHERE id = 10;
SQL
expected=$("${PSQL[@]}" -h "$BLOOM_PUB_HOST" -p "$BLOOM_PUB_PORT" -d src -c "$digest_query")
if catch_up; then pass "PostgreSQL $major: both subscriptions applied the changes"; else fail "PostgreSQL $major: the changes were not applied in 120 s"; fi
for binary in false true; do
	check "PostgreSQL $major, streamed INSERT, UPDATE (bloom_add out of line), DELETE (binary = $binary): md5 of every filter" \
		"$expected" "$("${PSQL[@]}" -d "sub_$binary" -c "$digest_query")"
	check "PostgreSQL $major, streamed changes (binary = $binary): bloom_add's value is in the replica" \
		t "$("${PSQL[@]}" -d "sub_$binary" -c "SELECT bloom_contains(f, 424242) FROM f WHERE id = 2")"
	check "PostgreSQL $major, streamed changes (binary = $binary): the counting and scalable filters' new values, and the counts after bloom_remove_all" \
		"true 19001 19501" "$("${PSQL[@]}" -d "sub_$binary" -c "SELECT bool_and(c @> 424242 AND s @> 424242)
			|| ' ' || string_agg((bloom_info(c)).values::text, ' ' ORDER BY id) FROM f WHERE id IN (9, 10)")"
done
# no error on the subscriber's side (the publisher's log is checked by its
# own pg_cluster.sh for crashes; an output-plugin error stops the apply
# worker, which the checks above would see)
check "PostgreSQL $major: no ERROR in the subscriber's log" 0 \
	"$(grep -c 'ERROR' "$BLOOM_PG_LOG" || true)"

for binary in false true; do
	"${PSQL[@]}" -d "sub_$binary" -c "DROP SUBSCRIPTION s_${major}_$binary"
done
cluster_done_counts() {
	local p f
	read -r p f <"$work/counts"
	echo "$((p + passed)) $((f + failed))" >"$work/counts"
}
cluster_done_counts
[ "$failed" -eq 0 ]
