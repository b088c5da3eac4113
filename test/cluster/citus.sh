#!/usr/bin/env bash
# Citus: a coordinator and two workers, each a throwaway cluster listening
# on 127.0.0.1, with the extension created on the coordinator.
#
#   test/cluster/citus.sh INSTDIR
#
# Runs only where Citus is installed for the server PG_CONFIG names (Citus
# is in no Debian suite; build it from its source for your own runs, see
# doc/distributed.md).  Elsewhere it prints that it skipped, and counts no
# check as passed.
#
# - CREATE EXTENSION on the coordinator reaches both workers.
# - The aggregates over a distributed table of 16 shards that Citus can
#   split are split: the workers run worker_partial_agg, the coordinator
#   coord_combine_agg (EXPLAIN VERBOSE), and the result is bit for bit the
#   one over a local copy of the table: bloom_agg(bloom_value(x), ...) with
#   a capacity (both hash schemes) and self-sizing (with and without a
#   rate), bloom_agg_shaped(bloom_value(x), shape), bloom_union_agg and
#   bloom_intersection_agg.  The polymorphic forms (bloom_agg(x, ...),
#   bloom_agg_like), which Citus cannot split, gather their rows as before
#   and give the same filters.
# - GROUP BY a column other than the distribution column is split the same
#   way; GROUP BY the distribution column runs the whole aggregate on the
#   workers; both equal the local results group by group.
# - bloom_contains and <@ with a filter from a reference table (a scalar
#   subquery and a join) and from a sub-select over the distributed table
#   count what the local table counts.
# - The bytes that reach the coordinator: a split bloom_agg sends a partial
#   state per shard, the filter's text form, whatever the number of rows;
#   gathering (the polymorphic form) sends every row.
source "$(dirname "$0")/common.bash"

instdir=$1
if [ ! -f "$("$PG_CONFIG" --sharedir)/extension/citus.control" ] ||
	[ ! -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ]; then
	echo "SKIPPED: Citus is not installed for PostgreSQL $PG_MAJOR ($("$PG_CONFIG" --pkglibdir)/citus.so); the Citus test did not run"
	echo "citus: 0 passed, 0 failed, 1 skipped"
	exit 0
fi

# Three servers on 127.0.0.1, on ports of their own (their Unix sockets stay
# where test/pg_cluster.sh puts them).
export BLOOM_CITUS_PORT=${BLOOM_CITUS_PORT:-$((20000 + RANDOM % 10000 * 3))}
citus_opts=(-o shared_preload_libraries=citus -o listen_addresses=127.0.0.1
	-o citus.enable_statistics_collection=off -o max_connections=100
	-o shared_buffers=256MB -o max_worker_processes=16)
cluster_main citus "$instdir" "${citus_opts[@]}" -o port="$BLOOM_CITUS_PORT"
cluster_nested CITUS_COORDINATOR "$instdir" "${citus_opts[@]}" -o port=$((BLOOM_CITUS_PORT + 1))
cluster_nested CITUS_WORKER1 "$instdir" "${citus_opts[@]}" -o port=$((BLOOM_CITUS_PORT + 2))

coordinator=$BLOOM_CITUS_PORT
workers=($((BLOOM_CITUS_PORT + 1)) $((BLOOM_CITUS_PORT + 2)))
on() {
	local port=$1
	shift
	"${PSQL[@]}" -h 127.0.0.1 -p "$port" -U postgres -d postgres "$@"
}

for port in "$coordinator" "${workers[@]}"; do
	on "$port" -c "CREATE EXTENSION citus"
done
on "$coordinator" <<SQL >/dev/null
SELECT citus_set_coordinator_host('127.0.0.1', $coordinator);
SELECT citus_add_node('127.0.0.1', ${workers[0]});
SELECT citus_add_node('127.0.0.1', ${workers[1]});
CREATE EXTENSION bloomfilter;
SQL
default_version=$(on "$coordinator" -c "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'")
for port in "${workers[@]}"; do
	check "CREATE EXTENSION bloomfilter on the coordinator reaches the worker on port $port" \
		"$default_version" "$(on "$port" -c "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'")"
done

# ev, distributed by id over 16 shards; ev_by_g the same rows distributed by
# g; ev_local the same rows in a local table.  tmpl: a reference table of
# filters; filt: per-g filters, distributed by g, and filt_local.
on "$coordinator" <<'SQL' >/dev/null
SET citus.shard_count = 16;
CREATE TABLE ev (id bigint, g int, t text);
SELECT create_distributed_table('ev', 'id');
CREATE TABLE ev_by_g (id bigint, g int, t text);
SELECT create_distributed_table('ev_by_g', 'g', colocate_with => 'none');
CREATE TABLE ev_local (id bigint, g int, t text);
INSERT INTO ev_local SELECT x, x % 100, md5(x::text) FROM generate_series(1, 400000) AS x;
INSERT INTO ev SELECT x, x % 100, md5(x::text) FROM generate_series(1, 400000) AS x;
INSERT INTO ev_by_g SELECT x, x % 100, md5(x::text) FROM generate_series(1, 400000) AS x;
CREATE TABLE tmpl (id int PRIMARY KEY, f bloom);
SELECT create_reference_table('tmpl');
INSERT INTO tmpl VALUES (1, bloom_empty(0.01, 100000));
INSERT INTO tmpl SELECT 2, bloom_agg(x, 0.01, 1000) FROM generate_series(1, 150000, 150) AS x;
CREATE TABLE filt_local AS SELECT g, bloom_agg(id, 0.01, 50000) AS f FROM ev_local GROUP BY g;
CREATE TABLE filt (g int, f bloom);
SELECT create_distributed_table('filt', 'g');
INSERT INTO filt SELECT g, bloom_agg(id, 0.01, 50000) FROM ev_local GROUP BY g;
ANALYZE;
SQL

# name | query over {t} (the table; {filt} the table of filters) with
# columns k (group) and f (filter) | what its plan must show | the reference
# over the local tables, in the classic form where the query hashes with
# bloom_value().  split: worker_partial_agg on the workers; pushdown: the
# whole aggregate on the workers; gather: the rows to the coordinator (a
# polymorphic aggregate, which Citus cannot split, as 1.2 did).
cases=$(cat <<'EOF'
bloom_agg(bloom_value(id), p, n), scheme 1|SELECT 0 AS k, bloom_agg(bloom_value(id), 0.01, 400000) AS f FROM {t}|split|SELECT 0 AS k, bloom_agg(id, 0.01, 400000) AS f FROM {t}
bloom_agg(bloom_value(id), p, n), scheme 2|SELECT 0 AS k, bloom_agg(bloom_value(id), 0.01, 4000000) AS f FROM {t}|split|SELECT 0 AS k, bloom_agg(id, 0.01, 4000000) AS f FROM {t}
bloom_agg(bloom_value(id))|SELECT 0 AS k, bloom_agg(bloom_value(id)) AS f FROM {t}|split|SELECT 0 AS k, bloom_agg(id) AS f FROM {t}
bloom_agg(bloom_value(t), p)|SELECT 0 AS k, bloom_agg(bloom_value(t), 0.02) AS f FROM {t}|split|SELECT 0 AS k, bloom_agg(t, 0.02) AS f FROM {t}
bloom_agg_shaped(bloom_value(id), shape)|SELECT 0 AS k, bloom_agg_shaped(bloom_value(id), (SELECT bloom_shape(f) FROM tmpl WHERE id = 1)) AS f FROM {t}|split|SELECT 0 AS k, bloom_agg_like(id, (SELECT f FROM tmpl WHERE id = 1)) AS f FROM {t}
bloom_union_agg(f)|SELECT 0 AS k, bloom_union_agg(f) AS f FROM {filt}|split|SELECT 0 AS k, bloom_union_agg(f) AS f FROM {filt}
bloom_intersection_agg(f)|SELECT 0 AS k, bloom_intersection_agg(f) AS f FROM {filt}|split|SELECT 0 AS k, bloom_intersection_agg(f) AS f FROM {filt}
GROUP BY g, bloom_agg(bloom_value(id), p, n)|SELECT g AS k, bloom_agg(bloom_value(id), 0.01, 10000) AS f FROM {t} GROUP BY g|split|SELECT g AS k, bloom_agg(id, 0.01, 10000) AS f FROM {t} GROUP BY g
GROUP BY g, bloom_agg(bloom_value(id))|SELECT g AS k, bloom_agg(bloom_value(id)) AS f FROM {t} GROUP BY g|split|SELECT g AS k, bloom_agg(id) AS f FROM {t} GROUP BY g
GROUP BY the distribution column g, bloom_agg(id, p, n)|SELECT g AS k, bloom_agg(id, 0.01, 10000) AS f FROM {t} GROUP BY g|pushdown|SELECT g AS k, bloom_agg(id, 0.01, 10000) AS f FROM {t} GROUP BY g
bloom_agg(id, p, n), polymorphic|SELECT 0 AS k, bloom_agg(id, 0.01, 400000) AS f FROM {t}|gather|SELECT 0 AS k, bloom_agg(id, 0.01, 400000) AS f FROM {t}
bloom_agg(id), polymorphic|SELECT 0 AS k, bloom_agg(id) AS f FROM {t}|gather|SELECT 0 AS k, bloom_agg(id) AS f FROM {t}
bloom_agg_like(id, template), polymorphic (a 1.2 kB template: it travels with every row)|SELECT 0 AS k, bloom_agg_like(id, (SELECT f FROM tmpl WHERE id = 2)) AS f FROM {t} WHERE id <= 40000|gather|SELECT 0 AS k, bloom_agg_like(id, (SELECT f FROM tmpl WHERE id = 2)) AS f FROM {t} WHERE id <= 40000
EOF
)
digest_of() {
	on "$coordinator" -c "SELECT md5(string_agg(k::text || ':' || coalesce(f::text, 'NULL'), ',' ORDER BY k)) FROM ($1) AS q"
}
while IFS='|' read -r name template expect reference; do
	table=ev
	[ "$expect" = pushdown ] && table=ev_by_g
	query=${template//\{t\}/$table}
	query=${query//\{filt\}/filt}
	local_query=${reference//\{t\}/ev_local}
	local_query=${local_query//\{filt\}/filt_local}
	plan=$(on "$coordinator" -c "EXPLAIN (VERBOSE, COSTS OFF) $query" 2>&1) || true
	task=$(grep -m1 -E '^ *Query: ' <<<"$plan" | sed -E 's/^ *Query: //')
	echo "$name: a worker task: ${task:0:300}"
	case $expect in
	split)
		if grep -q 'worker_partial_agg' <<<"$task" && grep -q 'coord_combine_agg' <<<"$plan"; then
			pass "$name is split: worker_partial_agg on the workers, coord_combine_agg on the coordinator"
		else
			fail "$name is not split: $plan"
		fi ;;
	pushdown)
		if ! grep -q 'worker_partial_agg' <<<"$plan" && grep -q 'bloom_agg(' <<<"$task"; then
			pass "$name runs whole on the workers"
		else
			fail "$name does not run whole on the workers: $plan"
		fi ;;
	gather)
		if [ -n "$task" ] && ! grep -q 'worker_partial_agg' <<<"$plan" && ! grep -q 'bloom_agg' <<<"$task"; then
			pass "$name gathers the rows to the coordinator (not split, and no error)"
		else
			fail "$name does not gather its rows: $plan"
		fi ;;
	esac
	check "$name over the distributed table equals the local table's, bit for bit" \
		"$(digest_of "$local_query")" "$(digest_of "$query")"
done <<<"$cases"

# No rows: the split bloom_agg's final function runs under Citus's
# coord_combine_agg, whose call does not hold the request, so the result is
# NULL where a local table gives the request's empty filter (a documented
# limit: doc/distributed.md).
check "with no rows, the split bloom_agg(bloom_value(id), p, n) is NULL on Citus, the empty filter locally" \
	"t|t" "$(on "$coordinator" -c "SELECT (SELECT bloom_agg(bloom_value(id), 0.01, 1000) IS NULL FROM ev WHERE id < 0),
	(SELECT bloom_agg(bloom_value(id), 0.01, 1000) = bloom_empty(0.01, 1000) FROM ev_local WHERE id < 0)")"

# Membership tests next to the rows.
while IFS='|' read -r name query; do
	check "$name counts what the local table counts" \
		"$(on "$coordinator" -c "${query//\{t\}/ev_local}")" "$(on "$coordinator" -c "${query//\{t\}/ev}")"
done <<'EOF'
bloom_contains with a reference table's filter (scalar subquery)|SELECT count(*) FROM {t} WHERE bloom_contains((SELECT f FROM tmpl WHERE id = 2), id)
<@ joined to a reference table|SELECT count(*) FROM {t} AS e JOIN tmpl ON tmpl.id = 2 AND e.id <@ tmpl.f
<@ with a sub-select filter over the same table|SELECT count(*) FROM {t} WHERE id <@ (SELECT bloom_agg(bloom_value(id), 0.01, 5000) FROM {t} WHERE g = 3)
EOF

# Bytes that reach the coordinator.  Gathered rows: Citus's EXPLAIN ANALYZE
# ("Tuple data received from nodes").  Split: the partial states themselves,
# each shard's worker_partial_agg result as Citus calls it (EXPLAIN ANALYZE
# of a split custom aggregate fails in Citus 13: "column field_0 has
# pseudo-type cstring").
received() {
	on "$coordinator" -c "EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) $1" |
		sed -nE 's/^ *Tuple data received from nodes: ([0-9]+) (bytes|kB|MB|GB)$/\1 \2/p' | head -n 1 |
		awk '{ m = ($2 == "kB") ? 1024 : ($2 == "MB") ? 1048576 : ($2 == "GB") ? 1073741824 : 1; print $1 * m }'
}
partial_states() {
	on "$coordinator" -c "SELECT sum(result::bigint) FROM run_command_on_shards('ev', \$\$
		SELECT octet_length(pg_catalog.worker_partial_agg('bloom_agg(bloom_hashed, float8, int8)'::regprocedure,
			ROW(bloom_value(id), 0.01::float8, 400000::int8))::text) FROM %s WHERE id <= $1\$\$)"
}
split_bytes=$(partial_states 400000)
gather_bytes=$(received "SELECT bloom_agg(id, 0.01, 400000) FROM ev")
text_bytes=$(on "$coordinator" -c "SELECT 16 * octet_length(bloom_agg(id, 0.01, 400000)::text) FROM ev_local")
echo "bloom_agg over 400,000 rows in 16 shards, false_positive_rate 0.01, capacity 400,000: split, $split_bytes bytes of partial states reach the coordinator; gathered (the polymorphic form), $gather_bytes bytes of rows; 16 filters in text form are $text_bytes bytes"
if [ -n "$split_bytes" ] && [ "$split_bytes" = "$text_bytes" ]; then
	pass "split, the coordinator receives a partial state per shard: 16 filters' text forms"
else
	fail "split, the coordinator receives $split_bytes bytes; 16 filters' text forms are $text_bytes bytes"
fi
small_split=$(partial_states 4000)
small_gather=$(received "SELECT bloom_agg(id, 0.01, 400000) FROM ev WHERE id <= 4000")
echo "the same over 4,000 rows: split $small_split bytes, gathered $small_gather bytes"
if [ -n "$small_split" ] && [ "$small_split" = "$split_bytes" ] && [ -n "$gather_bytes" ] &&
	[ -n "$small_gather" ] && [ "$small_gather" -lt $((gather_bytes / 50)) ]; then
	pass "the bytes a split aggregate sends do not grow with the rows; those of gathered rows do"
else
	fail "split bytes for 4,000 rows: $small_split; for 400,000: $split_bytes; gathered: $small_gather and $gather_bytes"
fi

cluster_done
