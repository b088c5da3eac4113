#!/usr/bin/env bash
# bench/counting_lookup.sh: would reading a stored counting filter by TOAST
# slices pay?  Point lookups, with pgbench, against the server in
# PGHOST/PGPORT (run alone: test/pg_cluster.sh DESTDIR bench/counting_lookup.sh):
#
#   counting  SELECT bloom_contains(f, :x) FROM t WHERE id = 1, a stored
#             4.8 MB counting filter (1,000,000 values at 1%, m = 9,585,059,
#             k = 7), which a lookup detoasts whole;
#   bloom     the same on a stored 4.9 MB bloom filter, which a lookup reads
#             by slices (src/bloom_slice.c);
#   slices    what a sliced lookup in the counting filter would read: its
#             16-byte header and k = 7 single bytes at random offsets, each
#             one TOAST slice, of the same 4.8 MB stored as an external bytea.
#
# One client, BENCH_COUNTING_SECONDS (default 8) a run, BENCH_COUNTING_RUNS
# (default 3) rounds; prints each run's average latency.
set -euo pipefail

seconds=${BENCH_COUNTING_SECONDS:-8}
runs=${BENCH_COUNTING_RUNS:-3}
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
work=$(mktemp -d /tmp/bloomfilter-counting-lookup.XXXXXX)
trap 'rm -rf "$work"' EXIT

"$bindir/psql" -X -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP TABLE IF EXISTS counting_lookup_c, counting_lookup_b, counting_lookup_raw;
CREATE TABLE counting_lookup_c (id int PRIMARY KEY, f counting_bloom);
INSERT INTO counting_lookup_c
SELECT 1, counting_bloom_agg(g, 0.01, 1000000) FROM generate_series(1::int8, 1000000) AS g;
CREATE TABLE counting_lookup_b (id int PRIMARY KEY, f bloom);
INSERT INTO counting_lookup_b
SELECT 1, bloom_agg(g, 0.01, 4000000) FROM generate_series(1::int8, 4000000) AS g;
CREATE TABLE counting_lookup_raw (id int PRIMARY KEY, b bytea);
ALTER TABLE counting_lookup_raw ALTER b SET STORAGE EXTERNAL;
INSERT INTO counting_lookup_raw SELECT 1, counting_bloom_send(f) FROM counting_lookup_c;
VACUUM ANALYZE counting_lookup_c, counting_lookup_b, counting_lookup_raw;
SQL

cat >"$work/counting.sql" <<'Q'
\set x random(1, 2000000)
SELECT bloom_contains(f, :x::int8) FROM counting_lookup_c WHERE id = 1;
Q
cat >"$work/bloom.sql" <<'Q'
\set x random(1, 8000000)
SELECT bloom_contains(f, :x::int8) FROM counting_lookup_b WHERE id = 1;
Q
{
	for i in 1 2 3 4 5 6 7; do echo "\\set o$i random(17, 4792548)"; done
	echo -n "SELECT substring(b from 1 for 16)"
	for i in 1 2 3 4 5 6 7; do echo -n ", substring(b from :o$i for 1)"; done
	echo " FROM counting_lookup_raw WHERE id = 1;"
} >"$work/slices.sql"

for round in $(seq "$runs"); do
	for script in counting bloom slices; do
		latency=$("$bindir/pgbench" -n -T "$seconds" -f "$work/$script.sql" 2>&1 |
			sed -n 's/^latency average = //p')
		echo "round $round $script: $latency"
	done
done
"$bindir/psql" -X -q -c 'DROP TABLE counting_lookup_c, counting_lookup_b, counting_lookup_raw'
