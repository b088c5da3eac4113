#!/usr/bin/env bash
# bench/counting_lookup.sh: point lookups in stored counting filters, which
# a lookup reads by TOAST slices (src/types/slice.c), with pgbench, against
# the server in PGHOST/PGPORT (run alone: test/pg_cluster.sh DESTDIR
# bench/counting_lookup.sh):
#
#   SELECT bloom_contains(f, :x) FROM counting_lookup WHERE id = :id
#
# on three stored filters at p = 0.01, half the values looked up present:
#
#   1  counting_bloom of 1,000,000 values: 4.8 MB, m = 9,585,059, k = 7,
#      scheme 1 (k single counters, up to k + 1 slices);
#   2  counting_bloom of 2,000,000 values: 9.6 MB, scheme 2 (one 256-byte
#      block, 2 slices);
#   3  bloom of 4,000,000 values: 4.8 MB, scheme 2 (one 64-byte block);
#   4  bloom of 1,000,000 values: 1.2 MB, scheme 1 (k = 7 single bits);
#
# the bloom filters for scale, and to show that bloom's slices cost what
# they did.
#
# Each run of this build is paired with one of the baseline library, the
# build of BENCH_COUNTING_BASELINE (default bf59d90, the last commit whose
# counting lookups detoast the whole filter), loaded by the same server for
# that connection (bench/baseline.sh); BENCH_COUNTING_BASELINE="" skips it.
# One client, -M prepared (each execution is a new call site, so each
# lookup is a first one), BENCH_COUNTING_SECONDS (default 8) a run,
# BENCH_COUNTING_RUNS (default 3) pairs per filter; prints each run's
# average latency, then the medians and their ratio.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
seconds=${BENCH_COUNTING_SECONDS:-8}
runs=${BENCH_COUNTING_RUNS:-3}
baseline_rev=${BENCH_COUNTING_BASELINE-bf59d90}
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
work=$(mktemp -d /tmp/bloomfilter-counting-lookup.XXXXXX)
chmod 755 "$work"				# the server reads the baseline library from here
trap 'rm -rf "$work"' EXIT

# shellcheck source=bench/baseline.sh
. "$here/baseline.sh"
bench_baseline "$baseline_rev" "$work"

"$bindir/psql" -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP TABLE IF EXISTS counting_lookup_c, counting_lookup_b;
CREATE TABLE counting_lookup_c (id int PRIMARY KEY, f counting_bloom);
INSERT INTO counting_lookup_c
SELECT 1, counting_bloom_agg(g, 0.01, 1000000) FROM generate_series(1::int8, 1000000) AS g;
INSERT INTO counting_lookup_c
SELECT 2, counting_bloom_agg(g, 0.01, 2000000) FROM generate_series(1::int8, 2000000) AS g;
CREATE TABLE counting_lookup_b (id int PRIMARY KEY, f bloom);
INSERT INTO counting_lookup_b
SELECT 3, bloom_agg(g, 0.01, 4000000) FROM generate_series(1::int8, 4000000) AS g;
INSERT INTO counting_lookup_b
SELECT 4, bloom_agg(g, 0.01, 1000000) FROM generate_series(1::int8, 1000000) AS g;
VACUUM ANALYZE counting_lookup_c, counting_lookup_b;
SQL

cat >"$work/counting.sql" <<'Q'
\set x random(1, 2 * :n)
SELECT bloom_contains(f, :x::int8) FROM counting_lookup_c WHERE id = :id;
Q
cat >"$work/bloom.sql" <<'Q'
\set x random(1, 2 * :n)
SELECT bloom_contains(f, :x::int8) FROM counting_lookup_b WHERE id = :id;
Q

specs=("counting 1 1000000 counting 1M values, 4.8 MB, scheme 1"
	"counting 2 2000000 counting 2M values, 9.6 MB, scheme 2"
	"bloom 3 4000000 bloom 4M values, 4.8 MB, scheme 2"
	"bloom 4 1000000 bloom 1M values, 1.2 MB, scheme 1")
bench_pgbench_pairs "$work" "$seconds" "$runs" "$baseline_rev" "${specs[@]}"
"$bindir/psql" -X -q -c 'DROP TABLE counting_lookup_c, counting_lookup_b'
