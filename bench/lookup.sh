#!/usr/bin/env bash
# bench/lookup.sh: point lookups in stored filters, with pgbench, against the
# server in PGHOST/PGPORT (bench.sh runs it; it can also run alone).
#
#   SELECT bloom_contains(f, :x) FROM lookup_filters WHERE id = :id
#
# and a scan of 1,000,000 values with one filter (as bench case a), with
# one client, -M prepared, BENCH_LOOKUP_SECONDS (default 10) per run, on
# three stored filters at p = 0.01: 1M values (1.2 MB, scheme 1), 10M (12 MB)
# and 50M (62 MB, both scheme 2).  Each run of this build is paired with one
# of the baseline library, the build of BENCH_LOOKUP_BASELINE (default
# 4866c7a, the last commit whose lookups detoast the whole filter), loaded
# by the same server for that connection, so both see the same machine at
# the same time; BENCH_LOOKUP_RUNS (default 5) pairs per filter, and the
# medians and their ratio are printed.  BENCH_LOOKUP_BASELINE="" skips the
# baseline (it needs git and this repository's history).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
seconds=${BENCH_LOOKUP_SECONDS:-10}
runs=${BENCH_LOOKUP_RUNS:-5}
baseline_rev=${BENCH_LOOKUP_BASELINE-4866c7a}
pg_config=${PG_CONFIG:-pg_config}
bindir=$("$pg_config" --bindir)
psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1 -P pager=off)
work=$(mktemp -d /tmp/bloomfilter-lookup.XXXXXX)
chmod 755 "$work"				# the server reads the baseline library from here
trap 'rm -rf "$work"' EXIT

# The baseline library, built from git into an install tree of its own.
# shellcheck source=bench/baseline.sh
. "$here/baseline.sh"
bench_baseline "$baseline_rev" "$work"

"${psql[@]}" <<'EOF'
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
CREATE TABLE IF NOT EXISTS lookup_filters (id int PRIMARY KEY, f bloom);
INSERT INTO lookup_filters SELECT 1, bloom_agg(g, 0.01, 1000000) FROM generate_series(1::int8, 1000000) AS g
	ON CONFLICT DO NOTHING;
INSERT INTO lookup_filters SELECT 2, bloom_agg(g, 0.01, 10000000) FROM generate_series(1::int8, 10000000) AS g
	ON CONFLICT DO NOTHING;
INSERT INTO lookup_filters SELECT 3, bloom_agg(g, 0.01, 50000000) FROM generate_series(1::int8, 50000000) AS g
	ON CONFLICT DO NOTHING;
VACUUM ANALYZE lookup_filters;
EOF

# Half the values looked up are present (1 .. 2n), as in a prefilter.
cat >"$work/lookup.sql" <<'EOF2'
\set x random(1, 2 * :n)
SELECT bloom_contains(f, :x::int8) FROM lookup_filters WHERE id = :id;
EOF2
# The scan: one call site, 1,000,000 values, the filter from an InitPlan.
cat >"$work/scan.sql" <<'EOF2'
SELECT count(*) FROM generate_series(1::int8, 1000000) AS g
WHERE bloom_contains((SELECT f FROM lookup_filters WHERE id = :id), g * (2 * :n / 1000000));
EOF2

# latency average in ms of one pgbench run: script, filter id, n
latency() {
	local limit=(-T "$seconds")

	[ "$1" = scan ] && limit=(-t 5)
	"$bindir/pgbench" -n -M prepared -c 1 "${limit[@]}" -f "$work/$1.sql" \
		-D id="$2" -D n="$3" >"$work/pgbench.out" 2>&1 ||
		{ echo "lookup: pgbench failed:" >&2; cat "$work/pgbench.out" >&2; exit 1; }
	awk '/latency average/ { print $4 }' "$work/pgbench.out"
}

echo "pgbench -M prepared, 1 client, median of $runs runs$([ -n "$baseline" ] && echo ", each paired with one of $baseline_rev"):"
echo "point lookups (${seconds}s a run) and scans of 1,000,000 values (5 a run)"
printf '%-42s %12s %14s %8s\n' "" "latency ms" "baseline ms" "ratio"
for script in lookup scan; do
	for spec in "1 1000000 1M values, 1.2 MB, scheme 1" "2 10000000 10M values, 12 MB, scheme 2" \
		"3 50000000 50M values, 62 MB, scheme 2"; do
		read -r id n what <<<"$spec"
		: >"$work/this"
		: >"$work/base"
		for ((r = 0; r < runs; r++)); do
			latency "$script" "$id" "$n" >>"$work/this"
			if [ -n "$baseline" ]; then
				PGOPTIONS="$baseline_options" latency "$script" "$id" "$n" >>"$work/base"
			fi
		done
		bench_pair_row "$script, $what" "$work/this" "$work/base"
	done
done
