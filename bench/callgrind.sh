#!/usr/bin/env bash
# bench/callgrind.sh INSTDIR: instructions per call of bloom_contains (and of
# hashint8, the floor), counted by callgrind in a single-user backend.
#
# Instruction counts do not wobble with the machine's load, so this is the
# figure to compare builds by.  A throwaway cluster gets a 100,000-row int8
# table and a stored filter of 10,000 of its values at p = 0.01 (12 kB,
# in cache); then one single-user backend runs, under callgrind,
#
#     SELECT count(*) FROM t WHERE bloom_contains((SELECT f FROM filters), id)
#     SELECT count(*) FROM t WHERE hashint8(id) <> 0
#
# and callgrind counts the instructions spent inside (inclusive) each
# function.  Dividing by the calls gives instructions per call.  Prints
# "name: instructions per call" lines; exits non-zero if anything failed.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 INSTDIR" >&2; exit 2; }
inst=$(cd "$1" && pwd)
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed" >&2; exit 1; }
rows=100000

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
opts="-c listen_addresses='' -c unix_socket_directories=$work -c port=5432 -c fsync=off -c extension_destdir=$inst -c jit=off -c max_parallel_workers_per_gather=0"
"${as_owner[@]}" "$bindir/pg_ctl" -D "$work/data" -l "$work/server.log" -w -o "$opts" start >/dev/null
"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$work" -p 5432 -U postgres -d postgres <<SQL
CREATE EXTENSION bloomfilter;
CREATE TABLE t AS SELECT (hashint8extended(g, 1) & 9223372036854775807) % 100000001 AS id
FROM generate_series(1::int8, $rows) AS g;
CREATE TABLE filters AS SELECT bloom_agg(id, 0.01, 10000) AS f FROM (SELECT id FROM t LIMIT 10000) AS s;
VACUUM (FREEZE, ANALYZE) t;
SQL
"${as_owner[@]}" "$bindir/pg_ctl" -D "$work/data" -w stop >/dev/null

# One backend, both queries; callgrind collects only inside the two functions.
"${as_owner[@]}" valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
	--toggle-collect=bloom_contains --toggle-collect=hashint8 \
	"$bindir/postgres" --single -D "$work/data" \
	-c extension_destdir="$inst" -c jit=off -c max_parallel_workers_per_gather=0 \
	postgres >"$work/single.log" 2>"$work/valgrind.log" <<SQL
SELECT count(*) FROM t WHERE bloom_contains((SELECT f FROM filters), id);
SELECT count(*) FROM t WHERE hashint8(id) <> 0;
SQL
grep -q "count = \"$rows\"" "$work/single.log" || { echo "callgrind.sh: the hashint8 query did not count $rows rows" >&2; cat "$work/single.log" >&2; exit 1; }

# Inclusive instructions of each function: callgrind_annotate's inclusive view.
callgrind_annotate --inclusive=yes "$work/callgrind.out" 2>/dev/null >"$work/annotate.txt"
status=0
for fn in bloom_contains hashint8; do
	ir=$(awk -v fn="$fn" '$0 ~ "[ :]" fn " " || $0 ~ "[ :]" fn "$" { gsub(",", "", $1); print $1; exit }' "$work/annotate.txt")
	if [ -z "$ir" ]; then
		echo "callgrind.sh: no count for $fn" >&2
		status=1
		continue
	fi
	echo "$fn: $(awk -v ir="$ir" -v n="$rows" 'BEGIN { printf "%.1f", ir / n }') instructions per call ($ir over $rows calls)"
done
exit $status
