#!/usr/bin/env bash
# bench/scalable_lookup.sh: point lookups in stored scalable filters, which
# a lookup reads by TOAST slices (src/types/slice.c), with pgbench, against
# the server in PGHOST/PGPORT (run alone: test/pg_cluster.sh DESTDIR
# bench/scalable_lookup.sh):
#
#   SELECT bloom_contains(f, :x) FROM scalable_lookup WHERE id = :id
#
# on stored filters of scalable_bloom_empty(0.01, 1000), half the values
# looked up present:
#
#   1  100,000 values (100x the initial capacity): 7 stages, 240 kB;
#   2  1,000,000 values (1000x): 10 stages, 2.1 MB;
#
# all stages of scheme 1 (a header scan, then per stage one scan per chunk
# its probes touch until one is clear).
#
# Each run of this build is paired with one of the baseline library, the
# build of BENCH_SCALABLE_BASELINE (default 7b607a1, the last commit whose
# scalable lookups detoast the whole filter), loaded by the same server for
# that connection (bench/baseline.sh); BENCH_SCALABLE_BASELINE="" skips it.
# One client, -M prepared (each execution is a new call site, so each
# lookup is a first one), BENCH_SCALABLE_SECONDS (default 8) a run,
# BENCH_SCALABLE_RUNS (default 3) pairs per filter; prints each run's
# average latency, then the medians and their ratio.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
seconds=${BENCH_SCALABLE_SECONDS:-8}
runs=${BENCH_SCALABLE_RUNS:-3}
baseline_rev=${BENCH_SCALABLE_BASELINE-7b607a1}
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
work=$(mktemp -d /tmp/bloomfilter-scalable-lookup.XXXXXX)
chmod 755 "$work"				# the server reads the baseline library from here
trap 'rm -rf "$work"' EXIT

# shellcheck source=bench/baseline.sh
. "$here/baseline.sh"
bench_baseline "$baseline_rev" "$work"

"$bindir/psql" -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP TABLE IF EXISTS scalable_lookup;
CREATE TABLE scalable_lookup (id int PRIMARY KEY, f scalable_bloom);
INSERT INTO scalable_lookup
SELECT 1, bloom_add_all(scalable_bloom_empty(0.01, 1000), array_agg(g)) FROM generate_series(1::int8, 100000) AS g;
INSERT INTO scalable_lookup
SELECT 2, bloom_add_all(scalable_bloom_empty(0.01, 1000), array_agg(g)) FROM generate_series(1::int8, 1000000) AS g;
VACUUM ANALYZE scalable_lookup;
SQL

cat >"$work/scalable.sql" <<'Q'
\set x random(1, 2 * :n)
SELECT bloom_contains(f, :x::int8) FROM scalable_lookup WHERE id = :id;
Q

specs=("scalable 1 100000 100k values (100x), 7 stages, 240 kB"
	"scalable 2 1000000 1M values (1000x), 10 stages, 2.1 MB")
bench_pgbench_pairs "$work" "$seconds" "$runs" "$baseline_rev" "${specs[@]}"
"$bindir/psql" -X -q -c 'DROP TABLE scalable_lookup'
