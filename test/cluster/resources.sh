#!/usr/bin/env bash
# Resources: query cancel on huge filters, no memory growth per call, and the
# memory of grouped aggregates.
#
#   test/cluster/resources.sh INSTDIR
#
# (a) A union, an intersection, a popcount (bloom_cardinality) and a text
#     output of near-1 GB filters stop within a second of pg_cancel_backend.
#     Each row of the statement builds its inputs and runs the operation on
#     them (m depends on the row number, 0 * g, so the planner cannot fold
#     the inputs into constants, which it would copy uninterruptibly); the
#     cancel is sent 0.5 s after the backend holds the first row's inputs
#     (its resident memory says so), and the delay is measured from the
#     server's clock at pg_cancel_backend to the error in its log.
# (b) A million calls of each function in one statement use no more memory
#     than 100,000 calls: the backend's peak resident memory (VmHWM), each in
#     a fresh backend, grows by less than 4 MB (4 bytes per extra call).
# (c) bloom_agg and bloom_union_agg over 100,000 groups: the peak memory per
#     group, in memory (hashed, work_mem large) and with the default work_mem,
#     against the bound README.md states ("Resources").
#
# The parts run one at a time: (a) needs up to 3 GB at once, and is skipped
# (with a message) when less than 4 GB of memory is available.
source "$(dirname "$0")/common.bash"
cluster_main resources "$@" -o max_parallel_workers_per_gather=0 -o jit=off
work=$(mktemp -d /tmp/bloomfilter-resources.XXXXXX)
chmod 777 "$work"
trap 'rm -rf "$work"' EXIT

"${PSQL[@]}" -c "CREATE EXTENSION bloomfilter"

rss_kb() { sed -nE 's/^VmRSS:[[:space:]]*([0-9]+).*/\1/p' "/proc/$1/status" 2>/dev/null || echo 0; }

# ---- (a) cancel ----

# cancel_case NAME INPUT_MB EXPRESSION(g)
# Runs SELECT count(*) FROM generate_series(1, 1000) g WHERE EXPRESSION IS
# NOT NULL, waits for the backend to hold INPUT_MB of inputs and 0.5 s more,
# cancels it and measures the time to the statement's end.
cancel_case() {
	local name=$1 input_mb=$2 expr=$3 app=bloom_cancel_$1 pid="" client t0 t1 rss=0 waited=0
	PGAPPNAME=$app "$BINDIR/psql" -X -At \
		-c "SELECT count(*) FROM generate_series(1, 1000) AS g WHERE ($expr) IS NOT NULL" \
		>"$work/$name.out" 2>&1 &
	client=$!
	for _ in $(seq 200); do
		pid=$("${PSQL[@]}" -c "SELECT pid FROM pg_stat_activity WHERE application_name = '$app'")
		[ -n "$pid" ] && break
		sleep 0.05
	done
	# Planning builds the inputs; wait until they are all resident.
	while kill -0 "$client" 2>/dev/null; do
		rss=$(rss_kb "$pid")
		[ "$rss" -ge $((input_mb * 1024)) ] && break
		sleep 0.05
		waited=$((waited + 1))
		[ "$waited" -lt 1200 ] || break
	done
	sleep 0.5
	# The server's clock at the cancel, and the time it logged the error.
	t0=$("${PSQL[@]}" -c "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::int8 FROM (SELECT pg_cancel_backend($pid)) AS c")
	wait "$client" || true
	t1=$(grep -E "\[$pid\] ERROR:  canceling statement due to user request" "$BLOOM_PG_LOG" | head -n 1 | cut -d' ' -f1-3)
	t1=$([ -n "$t1" ] && date -d "$t1" +%s%3N || echo 0)
	echo "$name: inputs resident ($((rss / 1024)) MB); cancelled 0.5 s later; the error came $((t1 - t0)) ms after the cancel"
	if ! grep -q "canceling statement due to user request" "$work/$name.out" || [ "$t1" -eq 0 ]; then
		cat "$work/$name.out"
		fail "$name: the statement was not cancelled (did it finish first?)"
	elif [ $((t1 - t0)) -lt 1000 ]; then
		pass "$name: cancel took effect in $((t1 - t0)) ms"
	else
		fail "$name: cancel took $((t1 - t0)) ms"
	fi
}

# m = 8,589,934,400 is the largest filter (1 GB); 6,000,000,000 bits (750 MB)
# still has a text form (1,000,000,027 characters).
# bloom_out is called directly: the cast to text would add PostgreSQL's own
# copy of the 1 GB string.
big="bloom_empty_mk(8589934400 + 0 * g, 1)"
available_mb=$(($(sed -nE 's/^MemAvailable:[[:space:]]*([0-9]+).*/\1/p' /proc/meminfo) / 1024))
if [ "$available_mb" -lt 4096 ]; then
	echo "SKIPPED (a): only $available_mb MB of memory available; the cancel tests need 4 GB"
else
	cancel_case union 2000 "$big | $big"
	cancel_case intersection 2000 "$big & $big"
	cancel_case popcount 1000 "bloom_cardinality($big)"
	cancel_case text_output 700 "bloom_out(bloom_empty_mk(6000000000 + 0 * g, 1))"
fi

# ---- (b) no memory growth per call ----

# Small filters as constants (folded when planned) and stored filters that
# are toasted (12 kB, STORAGE external), so the detoast cache is exercised.
"${PSQL[@]}" <<'SQL'
CREATE TABLE stored AS
SELECT i AS id, bloom_agg(j, 0.01, 10000) AS f
FROM generate_series(1, 100) AS i, generate_series(1, 50) AS j GROUP BY i;
SQL
f="bloom_add(bloom_empty(0.01, 1000), 1)"
# The same value, but computed per row.
fr="(CASE WHEN g > 0 THEN $f END)"

# peak_kb N QUERY-TEMPLATE (with @N@): VmHWM in kB of a fresh backend after it.
peak_kb() {
	local sql=${2//@N@/$1}
	"${PSQL[@]}" -c "$sql" -c "SELECT substring(pg_read_file('/proc/self/status') from 'VmHWM:\s*(\d+)')" | tail -n 1
}
growth_case() {
	local name=$1 template=$2 small large
	small=$(peak_kb 100000 "$template")
	large=$(peak_kb 1000000 "$template")
	echo "$name: peak $small kB after 100,000 calls, $large kB after 1,000,000"
	if [ -z "$small" ] || [ -z "$large" ]; then
		fail "$name: could not measure"
	elif [ $((large - small)) -lt 4096 ]; then
		pass "$name: no growth with the number of calls ($((large - small)) kB)"
	else
		fail "$name: grew by $((large - small)) kB from 100,000 to 1,000,000 calls"
	fi
}
# Each query calls the function N times; the row source, a generate_series in
# the target list, is not materialized.
per_row() { echo "SELECT count(*) FROM (SELECT generate_series(1, @N@) AS g) AS s WHERE ($1) IS NOT NULL"; }

growth_case bloom_contains "$(per_row "bloom_contains($f, g)")"
growth_case bloom_contains_stored \
	"SELECT count(*) FROM stored, (SELECT generate_series(1, @N@ / 100) AS g) AS s WHERE bloom_contains(stored.f, g)"
growth_case bloom_add "$(per_row "bloom_add($f, g)")"
growth_case bloom_union "$(per_row "bloom_union($f, $fr)")"
growth_case union_operator "$(per_row "$f | $fr")"
growth_case intersection_operator "$(per_row "$f & $fr")"
growth_case bloom_cardinality "$(per_row "bloom_cardinality($fr)")"
growth_case bloom_info "$(per_row "(bloom_info($fr)).fill_ratio")"
growth_case text_output "$(per_row "$fr::text")"
growth_case text_input "$(per_row "(CASE WHEN g > 0 THEN $f::text END)::bloom")"
growth_case bloom_send "$(per_row "bloom_send($fr)")"
growth_case equality "$(per_row "$f = $fr")"
growth_case bloom_union_cardinality "$(per_row "bloom_union_cardinality($f, $fr)")"
growth_case bloom_intersection_cardinality "$(per_row "bloom_intersection_cardinality($f, $fr)")"
growth_case bloom_jaccard "$(per_row "bloom_jaccard($f, $fr)")"
growth_case bloom_empty "$(per_row "bloom_empty(0.01, 1000 + g % 2)")"
growth_case bloom_add_all "$(per_row "bloom_add_all($f, ARRAY[g, NULL, g + 1])")"

# bloom_add_all over one array of 1,000,000 composite values (hashed by
# their send function, which allocates for each): the call holds the array
# and the filter, and frees what each element's hash allocated before the
# next, so its peak is within 16 MB of building the same array alone
# (about 150 MB).
"${PSQL[@]}" -c "CREATE TYPE resources_pair AS (a int, b text)"
array_sql="ARRAY(SELECT ROW(g, 'value ' || g)::resources_pair FROM generate_series(1, 1000000) AS g)"
array_alone=$(peak_kb 0 "SELECT cardinality($array_sql)")
array_added=$(peak_kb 0 "SELECT bloom_add_all(bloom_empty(0.01, 1000), $array_sql) IS NOT NULL")
echo "bloom_add_all of 1,000,000 composites: peak $array_added kB; the array alone $array_alone kB"
if [ -z "$array_alone" ] || [ -z "$array_added" ]; then
	fail "bloom_add_all over a large array: could not measure"
elif [ $((array_added - array_alone)) -lt 16384 ]; then
	pass "bloom_add_all over a large array: no growth with its elements ($((array_added - array_alone)) kB over the array alone)"
else
	fail "bloom_add_all over a large array: $((array_added - array_alone)) kB more than the array alone"
fi

# bloom_recv: COPY FROM a binary file (rows parsed, then dropped by WHERE false).
"${PSQL[@]}" <<SQL
CREATE TABLE recv_target (f bloom);
COPY (SELECT $f FROM generate_series(1, 100000)) TO '$work/recv-100000.bin' (FORMAT binary);
COPY (SELECT $f FROM generate_series(1, 1000000)) TO '$work/recv-1000000.bin' (FORMAT binary);
SQL
growth_case bloom_recv "COPY recv_target FROM '$work/recv-@N@.bin' (FORMAT binary) WHERE false"

# ---- (c) grouped aggregates: memory per group ----

# 1,000,000 rows in 100,000 groups, hashed.  The cost per group is the peak
# above the same GROUP BY with count(*), divided by the number of groups;
# README.md ("Resources") states at most 2 * (filter bytes) + 128 bytes per
# group in memory, and that with a small work_mem the hash aggregate spills
# instead of growing.
group_query() {
	echo "SELECT count(*) FROM (SELECT g % 100000 AS grp, $1 AS f FROM (SELECT generate_series(1, 1000000) AS g) AS s GROUP BY 1) AS t WHERE f IS NOT NULL"
}
agg_peak() { # agg_peak WORK_MEM AGGREGATE
	"${PSQL[@]}" -c "SET work_mem = '$1'" -c "SET enable_sort = off" -c "$(group_query "$2")" \
		-c "SELECT substring(pg_read_file('/proc/self/status') from 'VmHWM:\s*(\d+)')" | tail -n 1
}
agg_case() { # agg_case NAME AGGREGATE CAPACITY
	local name=$1 agg=$2 capacity=$3 filter_bytes base peak per_group bound base4 peak4
	filter_bytes=$("${PSQL[@]}" -c "SELECT bytes FROM bloom_info(bloom_empty(0.01, $capacity))")
	base=$(agg_peak 1GB "count(*)")
	peak=$(agg_peak 1GB "$agg")
	per_group=$(((peak - base) * 1024 / 100000))
	bound=$((2 * filter_bytes + 128))
	echo "$name: 100,000 groups of $filter_bytes-byte filters in memory: peak $peak kB, $base kB with count(*): $per_group bytes per group (bound $bound)"
	if [ "$per_group" -le "$bound" ] && [ "$per_group" -ge "$filter_bytes" ]; then
		pass "$name: $per_group bytes per group in memory, within 2 * $filter_bytes + 128"
	else
		fail "$name: $per_group bytes per group in memory, outside [$filter_bytes, $bound]"
	fi
	base4=$(agg_peak 4MB "count(*)")
	peak4=$(agg_peak 4MB "$agg")
	echo "$name: with work_mem = 4MB: peak $peak4 kB, $base4 kB with count(*)"
	if [ $((peak4 - base4)) -lt 16384 ]; then
		pass "$name: with work_mem = 4MB the aggregate spills ($((peak4 - base4)) kB above count(*))"
	else
		fail "$name: with work_mem = 4MB it took $((peak4 - base4)) kB above count(*)"
	fi
}
agg_case bloom_agg_100 "bloom_agg(g, 0.01, 100)" 100
agg_case bloom_agg_1000 "bloom_agg(g, 0.01, 1000)" 1000
agg_case bloom_union_agg_100 "bloom_union_agg(bloom_add(bloom_empty(0.01, 100), g))" 100

cluster_done
