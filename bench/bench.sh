#!/usr/bin/env bash
# bench/bench.sh: the benchmark, against the server in PGHOST/PGPORT.
#
# "make bench" runs it on a throwaway cluster with shared_buffers=2GB,
# max_parallel_workers_per_gather=0 and jit=off (scripts/run.sh).  It creates
# the data (setup.sql), shows how it is stored (storage.sql), times the cases
# of cases.sql (measure.sql) and prints medians and ratios (report.sql), then
# times UPDATEs of a stored filter by one value and by batches (batch.sh),
# point lookups (lookup.sh), the scale curve (scale.sh), postgres_fdw
# prefilters, written by hand and added by bloomfilter.auto_prefilter
# (fdw.sh), the counting and scalable filters against bloom, in a database
# of their own (sets.sh), and last the index bloom_slices against the
# sequential scan (index.sh), and the client libraries (clients.sh: the
# Python client per value beside set, the parameter case, the local
# probe).  Everything printed is also written to
# bench/results/latest.txt.
#
# Environment: BENCH_PARTS, the parts to run, of "cases callgrind batch
# lookup scale fdw sets index clients" (default: all; "make bench BENCH_PARTS=sets" runs
# the counting and scalable part alone, in about a minute); BENCH_ROUNDS
# (timed rounds per query, default 7); BLOOM_INST, the install tree
# (scripts/run.sh sets it), for the callgrind counts and fdw.sh;
# BENCH_LOOKUP=0 skips the point lookups of lookup.sh (BENCH_LOOKUP_* there);
# BENCH_FDW=0 skips the postgres_fdw prefilters of fdw.sh; BENCH_SCALE=0 the
# scale curve of scale.sh (BENCH_SCALE_* there).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rounds=${BENCH_ROUNDS:-7}
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1 -P pager=off -v rounds="$rounds")
mkdir -p "$here/results"
out=$(mktemp "$here/results/.run.XXXXXX")
trap 'rm -f "$out"' EXIT

{
	echo "bloomfilter benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit:   $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$here" diff --quiet HEAD -- 2>/dev/null || echo ' (with uncommitted changes)')"
	echo "server:   $("${psql[@]}" -Atc 'SELECT version()')"
	echo "settings: $("${psql[@]}" -Atc "SELECT string_agg(name || '=' || setting || coalesce(unit, ''), ' ' ORDER BY name) FROM pg_settings WHERE name IN ('shared_buffers', 'max_parallel_workers_per_gather', 'jit', 'work_mem')")"
	echo "machine:  $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
} | tee "$out"

parts=" ${BENCH_PARTS:-cases callgrind batch lookup scale fdw sets index clients} "
part() { case $parts in *" $1 "*) return 0 ;; esac; return 1; }

if part cases; then
	t=$SECONDS
	echo
	echo "creating the data set ..."
	"${psql[@]}" -f "$here/setup.sql" 2>&1 | tee -a "$out"
	echo "data set created in $((SECONDS - t))s" | tee -a "$out"
	echo | tee -a "$out"
	"${psql[@]}" -f "$here/storage.sql" 2>&1 | tee -a "$out" || true

	t=$SECONDS
	"${psql[@]}" -f "$here/cases.sql"
	# Progress notices go to the terminal only; the report goes to both.
	"${psql[@]}" -f "$here/measure.sql"
	echo "timed in $((SECONDS - t))s" | tee -a "$out"
	echo | tee -a "$out"
	"${psql[@]}" -f "$here/report.sql" | tee -a "$out"
fi

# (f): instructions per call, which do not wobble with the machine's load.
if part callgrind && [ -n "${BLOOM_INST:-}" ]; then
	echo | tee -a "$out"
	echo "callgrind (bench/callgrind.sh): in-cache filter of 10,000 values at p = 0.01 (12 kB), 100,000 calls" | tee -a "$out"
	"$here/callgrind.sh" "$BLOOM_INST" 2>&1 | tee -a "$out"
fi

# Adding to a stored 12 MB filter: one UPDATE per value against batches.
if part batch; then
	echo | tee -a "$out"
	echo "batch adds (bench/batch.sh): UPDATEs of a stored 12 MB filter, one pgbench client" | tee -a "$out"
	"$here/batch.sh" 2>&1 | tee -a "$out"
fi

# Point lookups and scans of stored filters against the whole-detoast
# baseline (bench/lookup.sh); BENCH_LOOKUP=0 skips them.
if part lookup && [ "${BENCH_LOOKUP:-1}" != 0 ]; then
	echo | tee -a "$out"
	"$here/lookup.sh" 2>&1 | tee -a "$out"
fi

# The scale curve: per-row cost against filter size, beside the hashint8
# floor and one dependent load (bench/scale.sh); BENCH_SCALE=0 skips it.
if part scale && [ "${BENCH_SCALE:-1}" != 0 ]; then
	echo | tee -a "$out"
	"$here/scale.sh" 2>&1 | tee -a "$out"
fi

# postgres_fdw: the hand-written prefilters and bloomfilter.auto_prefilter on
# the plain join (bench/fdw.sh, its own two clusters); BENCH_FDW=0 skips it.
if part fdw && [ "${BENCH_FDW:-1}" != 0 ] && [ -n "${BLOOM_INST:-}" ] && command -v ss >/dev/null; then
	echo | tee -a "$out"
	"$here/fdw.sh" "$BLOOM_INST" 2>&1 | tee -a "$out"
fi

# The counting and scalable filters against bloom (bench/sets.sh, its own
# database); its exit status is kept for the end.
sets_status=0
if part sets; then
	echo | tee -a "$out"
	"$here/sets.sh" 2>&1 | tee -a "$out" || sets_status=$?
fi

index_status=0
if part index; then
	"$here/index.sh" 2>&1 | tee -a "$out" || index_status=$?
fi

clients_status=0
if part clients; then
	echo | tee -a "$out"
	"$here/clients.sh" 2>&1 | tee -a "$out" || clients_status=$?
fi

mv "$out" "$here/results/latest.txt"
trap - EXIT
echo "written to $here/results/latest.txt"
# Fail when a case could not run, so a broken function does not pass unseen.
if part cases; then
	[ "$("${psql[@]}" -Atc 'SELECT count(*) FROM bench_error')" = 0 ]
fi
[ "$sets_status" = 0 ] || exit "$sets_status"
[ "$clients_status" = 0 ] || exit "$clients_status"
exit "$index_status"
