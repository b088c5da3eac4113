#!/usr/bin/env bash
# bench/callgrind.sh INSTDIR [PART]: instructions per call of the per-row C
# paths, counted by callgrind in a single-user backend.
#
# Instruction counts do not wobble with the machine's load, so this is the
# figure to compare builds by.  A throwaway cluster gets a 100,000-row int8
# table t; then one single-user backend runs the part's queries under
# callgrind, which counts the instructions spent inside (inclusive) each
# function named below.  Dividing by the calls (or, for the array forms, by
# the values) gives instructions per call.  Prints "name: instructions per
# call" lines; exits non-zero if anything failed.
#
# PART contains (the default, case f of bench.sh): a stored filter of 10,000
# of t's values at p = 0.01 (12 kB, in cache),
#
#     SELECT count(*) FROM t WHERE bloom_contains((SELECT f FROM filters), id)
#     SELECT count(*) FROM t WHERE hashint8(id) <> 0      (the floor)
#
# PART sets (bench/sets.sh): the counting and scalable filters beside bloom,
# all of t's 100,000 values at p = 0.01: bloom and counting_bloom of
# capacity 100,000, scalable_bloom of initial capacity 1,000 (100 times
# over, 7 stages); per row, @> over t, bloom_agg / counting_bloom_agg over
# t, and bloom_add_all / counting_bloom_add_all into an empty filter and
# bloom_remove_all out of the full counting filter, of t's values as one
# array (per value).
#
# PART glue: per row, the value-state twins the Citus rewrite uses
# (bloom_agg(bloom_value(id), p, n) and bloom_agg(bloom_value(id))) and the
# self-sized bloom_agg(id) over t; = and the hash function of bloom and
# counting_bloom over 100,000 small filters.
#
# PART slices: point lookups in stored filters, each a statement of its own
# (a new call site, so read by TOAST slices, src/types/slice.c), 500 per
# filter, half of them present, one function per filter: bloom_contains in
# a bloom filter of scheme 1 (1.2 MB), bloom_contained_by (<@) in one of
# scheme 2 (2.4 MB), and counting_bloom_contains and
# counting_bloom_contained_by in counting filters of the same shapes (4.8
# and 9.6 MB), each holding 100,000 values; and scalable_bloom_contains and
# scalable_bloom_contained_by in scalable filters of initial capacity 1,000
# holding 100,000 values (7 stages, 240 kB) and 1,000,000 (10 stages, 2.1
# MB).  Per call, inclusive of the TOAST reads.
set -euo pipefail

[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 INSTDIR [contains|sets|slices]" >&2; exit 2; }
inst=$(cd "$1" && pwd)
part=${2:-contains}
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed" >&2; exit 1; }
rows=100000

case $part in
contains)
	setup="CREATE TABLE filters AS SELECT bloom_agg(id, 0.01, 10000) AS f FROM (SELECT id FROM t LIMIT 10000) AS s;"
	queries="SELECT count(*) FROM t WHERE bloom_contains((SELECT f FROM filters), id);
SELECT count(*) FROM t WHERE hashint8(id) <> 0;"
	functions="bloom_contains hashint8"
	;;
sets)
	setup="CREATE TABLE filters AS SELECT bloom_agg(id, 0.01, $rows) AS b,
	counting_bloom_agg(id, 0.01, $rows) AS c,
	bloom_add_all(scalable_bloom_empty(0.01, $rows / 100), array_agg(id)) AS s FROM t;
CREATE TABLE arrays AS SELECT array_agg(id) AS a FROM t;"
	queries="SELECT count(*) FROM t WHERE (SELECT b FROM filters) @> id;
SELECT count(*) FROM t WHERE (SELECT c FROM filters) @> id;
SELECT count(*) FROM t WHERE (SELECT s FROM filters) @> id;
SELECT bloom_agg(id, 0.01, $rows) IS NOT NULL FROM t;
SELECT counting_bloom_agg(id, 0.01, $rows) IS NOT NULL FROM t;
SELECT bloom_add_all(bloom_empty(0.01, $rows), a) IS NOT NULL FROM arrays;
SELECT bloom_add_all(counting_bloom_empty(0.01, $rows), a) IS NOT NULL FROM arrays;
SELECT bloom_remove_all(c, a) IS NOT NULL FROM arrays, filters;
SELECT count(*) FROM t WHERE hashint8(id) <> 0;"
	functions="bloom_contains counting_bloom_contains scalable_bloom_contains bloom_agg_transfn counting_bloom_agg_transfn bloom_add_all counting_bloom_add_all counting_bloom_remove_all hashint8"
	;;
glue)
	setup="CREATE TABLE small AS SELECT bloom_add(bloom_empty(0.01, 100), id) AS f,
	bloom_add(counting_bloom_empty(0.01, 100), id) AS c FROM t;"
	queries="SELECT bloom_agg(bloom_value(id), 0.01, $rows) IS NOT NULL FROM t;
SELECT bloom_agg(bloom_value(id)) IS NOT NULL FROM t;
SELECT bloom_agg(id) IS NOT NULL FROM t;
SELECT count(*) FROM small WHERE f = f;
SELECT sum(bloom_hash(f)::int8) FROM small;
SELECT count(*) FROM small WHERE c = c;
SELECT sum(counting_bloom_hash(c)::int8) FROM small;
SELECT count(*) FROM t WHERE hashint8(id) <> 0;"
	functions="bloom_agg_filter_transfn bloom_autoagg_state_transfn bloom_autoagg_transfn bloom_eq bloom_hash counting_bloom_eq counting_bloom_hash hashint8"
	;;
slices)
	setup="CREATE TABLE slice_filters (id int PRIMARY KEY, b bloom, c counting_bloom);
INSERT INTO slice_filters SELECT n / 1000000, bloom_agg(g, 0.01, n), counting_bloom_agg(g, 0.01, n)
FROM generate_series(1::int8, 100000) AS g, (VALUES (1000000), (2000000)) AS s(n) GROUP BY n;
CREATE TABLE slice_scalable (id int PRIMARY KEY, s scalable_bloom);
INSERT INTO slice_scalable SELECT n / 100000, bloom_add_all(scalable_bloom_empty(0.01, 1000), array_agg(g))
FROM (VALUES (100000), (1000000)) AS s(n), LATERAL generate_series(1::int8, n) AS g GROUP BY n;"
	queries=$(for ((i = 1; i <= 500; i++)); do
		echo "SELECT bloom_contains(b, $((i * 400))::int8) FROM slice_filters WHERE id = 1;"
		echo "SELECT $((i * 400))::int8 <@ b FROM slice_filters WHERE id = 2;"
		echo "SELECT bloom_contains(c, $((i * 400))::int8) FROM slice_filters WHERE id = 1;"
		echo "SELECT $((i * 400))::int8 <@ c FROM slice_filters WHERE id = 2;"
		echo "SELECT bloom_contains(s, $((i * 400))::int8) FROM slice_scalable WHERE id = 1;"
		echo "SELECT $((i * 4000))::int8 <@ s FROM slice_scalable WHERE id = 10;"
	done
	echo "SELECT count(*) FROM t WHERE hashint8(id) <> 0;")
	functions="bloom_contains bloom_contained_by counting_bloom_contains counting_bloom_contained_by scalable_bloom_contains scalable_bloom_contained_by"
	calls=500
	;;
*)
	echo "callgrind.sh: unknown part $part (contains, sets, glue or slices)" >&2
	exit 2
	;;
esac

work=$(mktemp -d /tmp/bloomfilter-cg.XXXXXX)
chmod 755 "$work"
as_owner=()
if [ "$(id -u)" = 0 ]; then
	chown postgres: "$work"
	as_owner=(runuser -u postgres --)
fi
trap '"${as_owner[@]}" "$bindir/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
[ -n "${KEEP_CG:-}" ] && trap - EXIT

"${as_owner[@]}" "$bindir/initdb" -D "$work/data" -A trust -U postgres --no-sync \
	-E UTF8 --locale=C.UTF-8 >"$work/initdb.log" 2>&1 || { cat "$work/initdb.log" >&2; exit 1; }
# the settings that load the extension from $inst (scripts/destdir_settings.sh)
load_from=()
while IFS= read -r setting; do load_from+=(-c "$setting"); done \
	< <("$(dirname "${BASH_SOURCE[0]}")/../scripts/destdir_settings.sh" "$inst")
opts="-c listen_addresses='' -c unix_socket_directories=$work -c port=5432 -c fsync=off -c jit=off -c max_parallel_workers_per_gather=0"
for setting in "${load_from[@]}"; do
	[ "$setting" = -c ] || opts+=" -c ${setting%%=*}='${setting#*=}'"
done
"${as_owner[@]}" "$bindir/pg_ctl" -D "$work/data" -l "$work/server.log" -w -o "$opts" start >/dev/null
"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$work" -p 5432 -U postgres -d postgres <<SQL
CREATE EXTENSION bloomfilter;
CREATE TABLE t AS SELECT (hashint8extended(g, 1) & 9223372036854775807) % 100000001 AS id
FROM generate_series(1::int8, $rows) AS g;
$setup
VACUUM (FREEZE, ANALYZE) t;
SQL
"${as_owner[@]}" "$bindir/pg_ctl" -D "$work/data" -w stop >/dev/null

# One backend, every query; callgrind collects only inside the functions.
toggles=()
for fn in $functions; do toggles+=("--toggle-collect=$fn"); done
"${as_owner[@]}" valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
	"${toggles[@]}" \
	"$bindir/postgres" --single -D "$work/data" \
	"${load_from[@]}" -c jit=off -c max_parallel_workers_per_gather=0 \
	postgres >"$work/single.log" 2>"$work/valgrind.log" <<<"$queries"
grep -q "count = \"$rows\"" "$work/single.log" || { echo "callgrind.sh: the hashint8 query did not count $rows rows" >&2; cat "$work/single.log" >&2; exit 1; }
if grep -q ERROR "$work/single.log"; then
	echo "callgrind.sh: a query failed" >&2
	cat "$work/single.log" >&2
	exit 1
fi

# Inclusive instructions of each function: callgrind_annotate's inclusive view.
callgrind_annotate --inclusive=yes --threshold=100 "$work/callgrind.out" 2>/dev/null >"$work/annotate.txt"
status=0
for fn in $functions; do
	ir=$(awk -v fn="$fn" '$0 ~ "[ :]" fn " " || $0 ~ "[ :]" fn "$" { gsub(",", "", $1); print $1; exit }' "$work/annotate.txt")
	if [ -z "$ir" ]; then
		echo "callgrind.sh: no count for $fn" >&2
		status=1
		continue
	fi
	echo "$fn: $(awk -v ir="$ir" -v n="${calls:-$rows}" 'BEGIN { printf "%.1f", ir / n }') instructions per call ($ir over ${calls:-$rows} calls)"
done
exit $status
