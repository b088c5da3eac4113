#!/usr/bin/env bash
# Aggregate states of the largest filters under partial aggregation.
#
#   test/cluster/large-states.sh INSTDIR
#
# bloom_agg(x, 0.5, 5954088800) sizes a filter of m = 8,589,934,385 bits,
# 1,073,741,800 bytes of bits: it fits in a value (1 GB), but its serialized
# partial state, 32 bytes more, does not.  In a parallel plan the partial
# aggregate must then stop with a clean 54000 that says what to do, not an
# internal error (XX000 "invalid memory alloc request size") from palloc;
# the same aggregate without parallelism must still work.  About 2 GB of
# memory at once; skipped (with a message) when less than 4 GB is available.
source "$(dirname "$0")/common.bash"
cluster_main large-states "$@" -o jit=off

"${PSQL[@]}" -c "CREATE EXTENSION bloomfilter" -c "CREATE TABLE one_row AS SELECT 1 AS x"

available_mb=$(($(sed -nE 's/^MemAvailable:[[:space:]]*([0-9]+).*/\1/p' /proc/meminfo) / 1024))
if [ "$available_mb" -lt 4096 ]; then
	echo "SKIPPED: only $available_mb MB of memory available; the test needs 4 GB"
else
	parallel="SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
		SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;"
	query="SELECT bloom_cardinality(bloom_agg(x, 0.5, 5954088800)) FROM one_row"

	plan=$("${PSQL[@]}" -c "$parallel" -c "EXPLAIN (COSTS OFF) $query")
	if grep -q "Partial Aggregate" <<<"$plan"; then
		pass "the plan aggregates partially"
	else
		fail "the plan aggregates partially: $plan"
	fi
	state=$("${PSQL[@]}" -v VERBOSITY=sqlstate -c "$parallel" -c "$query" 2>&1 >/dev/null || true)
	check "parallel: a partial state over 1 GB is ERROR 54000" "ERROR:  54000" "$state"
	check "serial: the same aggregate works" "1" \
		"$("${PSQL[@]}" -c "SET max_parallel_workers_per_gather = 0" -c "SELECT round(($query)::numeric)")"
fi

cluster_done
