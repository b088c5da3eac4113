#!/usr/bin/env bash
# bench/sets.sh: the counting and scalable filters against bloom (issue 27,
# item 5), against the server in PGHOST/PGPORT; "make bench" runs it last
# (BENCH_PARTS=sets alone).
#
# In a database of its own, bench_sets (made afresh), it creates the data
# and the cases of bench/sets.sql, times them with bench/measure.sql (one
# warm-up round, then BENCH_ROUNDS rounds, default 7, numerator and
# denominator back to back) and prints medians and ratios with
# bench/report.sql; then, with BLOOM_INST set, the instructions per call of
# the same C paths (bench/callgrind.sh sets), which do not wobble with the
# machine's load.  Exits non-zero if a case could not run.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rounds=${BENCH_ROUNDS:-7}
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1 -P pager=off -v rounds="$rounds")
t=$SECONDS

echo "counting and scalable filters (bench/sets.sh): each against bloom, same values, same (p, n), same SQL path"
"${psql[@]}" -d postgres -c 'SET client_min_messages = warning' -c 'DROP DATABASE IF EXISTS bench_sets' -c 'CREATE DATABASE bench_sets'
export PGDATABASE=bench_sets
"${psql[@]}" -f "$here/sets.sql"
"${psql[@]}" -Atc "SELECT 'filters: ' || string_agg(format('%s bloom %s B, counting_bloom %s B', id, pg_column_size(b), pg_column_size(c)), '; ' ORDER BY id) FROM sets_filters"
"${psql[@]}" -Atc "SELECT format('scalable_bench: %s stages, %s B; the optimal bloom %s B', (bloom_info(s)).stages, pg_column_size(s), pg_column_size(b)) FROM scalable_bench"
# Progress notices are kept aside, and shown if the timing fails.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"${psql[@]}" -f "$here/measure.sql" 2>"$log" || { cat "$log" >&2; exit 1; }
echo
"${psql[@]}" -f "$here/report.sql"
echo "timed in $((SECONDS - t))s"

if [ -n "${BLOOM_INST:-}" ]; then
	echo
	echo "callgrind (bench/callgrind.sh sets): instructions per row, 100,000 rows; filters of those 100,000 values at p = 0.01"
	"$here/callgrind.sh" "$BLOOM_INST" sets
fi
[ "$("${psql[@]}" -Atc 'SELECT count(*) FROM bench_error')" = 0 ]
