# Distributed semi-joins through postgres_fdw.
#
# Two servers: "remote" holds the big table and the shards, "local" the keys,
# a postgres_fdw server pointing at the remote with OPTIONS (extensions
# 'bloomfilter'), and foreign tables.  Both load the extension.  It checks
# that
#
#   - bloom_contains, @> and <@ are shipped in the Remote SQL, with the filter
#     as a parameter ($1), in the forms people write: a scalar subquery (an
#     InitPlan), a filter built inline by bloom_agg, a prepared statement's
#     parameter (generic plan) or a constant (custom plan), int8 and text keys;
#     and that they are not shipped without the extensions option;
#   - the foreign scan returns exactly the rows the remote's own bloom_contains
#     accepts (the matches plus false positives, within a stated bound), and
#     the prefiltered semi-join gives the same rows as the plain join;
#   - bloom_agg over a foreign table is computed remotely and comes back
#     bit-identical (in text form);
#   - partitionwise aggregation: per-partition bloom_agg combined (Partial /
#     Finalize, or bloom_union_agg over GROUP BY the partition key) equals the
#     single bloom_agg, bit for bit, over local partitions and over foreign
#     partitions on the second server.
use strict;
use warnings;
use BloomTest;
use Test::More;

my $remote = bloom_node('remote');
my $local  = bloom_node('local');

# sql(NODE, SQL): its output; a failed query fails the checks that use its
# output only (its error is shown), and the run goes on.
sub sql
{
	my ($node, $sql) = @_;
	my ($ret, $stdout, $stderr) = $node->psql('postgres', $sql);
	diag($node->name . ": $stderr") if $ret != 0;
	return $stdout;
}
sub local_sql  { return sql($local,  @_); }
sub remote_sql { return sql($remote, @_); }

# check_local(NAME, EXPECTED, QUERY): QUERY, run on the local server,
# returns EXPECTED
sub check_local
{
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($name, $expected, $query) = @_;
	is(local_sql($query), $expected, $name);
	return;
}

# count_of(FIXED-STRING, TEXT): the number of lines of TEXT holding the string
sub count_of
{
	my ($needle, $text) = @_;
	return scalar grep { index($_, $needle) >= 0 } split /\n/, $text;
}

# plan_of(SETUP, QUERY): the plan of QUERY, in a session that runs SETUP first
sub plan_of
{
	my ($setup, $query) = @_;
	$setup =~ s/;$//;
	$setup .= '; ' if length $setup;
	return local_sql("${setup}EXPLAIN (VERBOSE, COSTS OFF) $query");
}

# check_plan(NAME, QUERY, FIXED-STRING): the plan of QUERY contains the string
sub check_plan
{
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($name, $query, $needle) = @_;
	check_has($name, $needle, plan_of('', $query));
	return;
}

# remote_sql_of(PLAN): its (first) Remote SQL line, without the indentation
sub remote_sql_of
{
	my ($plan) = @_;
	my ($line) = grep { index($_, 'Remote SQL:') >= 0 } split /\n/, $plan;
	return '' unless defined $line;
	$line =~ s/^ *//;
	return $line;
}

# ---- the data ----
# Remote: items(id, name, payload), 100,000 rows; shards of a partitioned
# table.  Local: 1,000 keys that match (every 97th id) and 20 that do not.
# A failure to load data ends the run.
$remote->safe_psql('postgres', q{
CREATE EXTENSION bloomfilter;
CREATE TABLE items AS
	SELECT g::int8 AS id, 'item-' || g AS name, md5(g::text) AS payload
	FROM generate_series(1, 100000) g;
CREATE TABLE mixed_1 AS SELECT 1 AS shard, g::int8 AS id FROM generate_series(1, 60000) g WHERE g % 3 = 1;
CREATE TABLE mixed_2 AS SELECT 2 AS shard, g::int8 AS id FROM generate_series(1, 60000) g WHERE g % 3 = 2;
ANALYZE;
CREATE DATABASE noext;
\c noext
CREATE TABLE items AS SELECT g::int8 AS id FROM generate_series(1, 100) g;
});
$local->safe_psql(
	'postgres', q{
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SERVER remote FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host :'rhost', port :'rport', dbname 'postgres', extensions 'bloomfilter');
CREATE USER MAPPING FOR CURRENT_USER SERVER remote OPTIONS (user :'ruser');
-- The same remote table through a server that does not list the extension.
CREATE SERVER remote_plain FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host :'rhost', port :'rport', dbname 'postgres');
CREATE USER MAPPING FOR CURRENT_USER SERVER remote_plain OPTIONS (user :'ruser');

CREATE FOREIGN TABLE items (id int8, name text, payload text)
	SERVER remote OPTIONS (table_name 'items');
CREATE FOREIGN TABLE items_plain (id int8, name text, payload text)
	SERVER remote_plain OPTIONS (table_name 'items');
-- A server that lists the extension but does not have it.
CREATE SERVER remote_noext FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host :'rhost', port :'rport', dbname 'noext', extensions 'bloomfilter');
CREATE USER MAPPING FOR CURRENT_USER SERVER remote_noext OPTIONS (user :'ruser');
CREATE FOREIGN TABLE items_noext (id int8) SERVER remote_noext OPTIONS (table_name 'items');
-- And through a foreign table that asks the remote for estimates.
CREATE FOREIGN TABLE items_est (id int8, name text, payload text)
	SERVER remote OPTIONS (table_name 'items', use_remote_estimate 'true');

CREATE TABLE keys AS
	SELECT (g * 97)::int8 AS id, 'item-' || (g * 97) AS name FROM generate_series(1, 1000) g
	UNION ALL
	SELECT g::int8, 'item-' || g FROM generate_series(200001, 200020) g;
CREATE TABLE local_filters (name text PRIMARY KEY, f bloom NOT NULL);
INSERT INTO local_filters
	SELECT 'ids', bloom_agg(id, 0.01, 1020) FROM keys
	UNION ALL
	SELECT 'names', bloom_agg(name, 0.01, 1020) FROM keys;
ANALYZE keys;
ANALYZE local_filters;

-- Rows the Foreign Scan node of a query returned (EXPLAIN ANALYZE).
CREATE FUNCTION foreign_scan_rows(query text) RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE
	plan jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || query INTO plan;
	RETURN jsonb_path_query_first(plan,
		'$.** ? (@."Node Type" == "Foreign Scan")."Actual Rows"')::int8;
END
$$;
},
	extra_params => [
		'-v', 'rhost=' . $remote->host,
		'-v', 'rport=' . $remote->port,
		'-v', 'ruser=' . $remote->safe_psql('postgres', 'SELECT current_user')
	]);

my $ids_filter   = "(SELECT f FROM local_filters WHERE name = 'ids')";
my $names_filter = "(SELECT f FROM local_filters WHERE name = 'names')";
my $out;

# ---- 1. pushdown of the predicate ----
$out = plan_of('', "SELECT * FROM items r WHERE bloom_contains($ids_filter, r.id)");
check_has(
	'bloom_contains(scalar subquery, id) is in the Remote SQL with the filter as $1',
	'Remote SQL: SELECT id, name, payload FROM public.items WHERE (public.bloom_contains($1::public.bloom, id))',
	$out);
check_has('  ... and the filter comes from an InitPlan evaluated locally',
	$EXPLAIN_INITPLAN_1, $out);

check_plan(
	'filter @> id is in the Remote SQL',
	"SELECT * FROM items r WHERE $ids_filter @> r.id",
	'WHERE (($1::public.bloom OPERATOR(public.@>) id))');
check_plan(
	'id <@ filter is in the Remote SQL',
	"SELECT * FROM items r WHERE r.id <@ $ids_filter",
	'WHERE ((id OPERATOR(public.<@) $1::public.bloom))');

check_plan(
	'a filter built inline by bloom_agg in a scalar subquery is shipped as $1',
	'SELECT * FROM items r WHERE bloom_contains((SELECT bloom_agg(id, 0.01, 1020) FROM keys), r.id)',
	'WHERE (public.bloom_contains($1::public.bloom, id))');

$out = plan_of(
	'SET plan_cache_mode = force_generic_plan; PREPARE q(bloom) AS SELECT * FROM items r WHERE bloom_contains($1, r.id)',
	'EXECUTE q(bloom_empty(0.01, 10))');
check_has(q{a prepared statement's parameter (generic plan) is shipped as $1},
	'WHERE (public.bloom_contains($1::public.bloom, id))', $out);
check_lacks('  ... with no local filter step', 'Filter:', $out);

$out = plan_of(
	'SET plan_cache_mode = force_custom_plan; PREPARE q(bloom) AS SELECT * FROM items r WHERE $1 @> r.id',
	'EXECUTE q(bloom_empty_mk(64, 3))');
check_has(
	q{a prepared statement's parameter (custom plan) is shipped as a constant in text form},
	q{WHERE (('bloom:v1:h1:m64:k3:AAAAAAAAAAA='::public.bloom OPERATOR(public.@>) id))},
	$out);

check_plan(
	'a text key is shipped too',
	"SELECT * FROM items r WHERE bloom_contains($names_filter, r.name)",
	'WHERE (public.bloom_contains($1::public.bloom, name))');

$out = plan_of('', "SELECT * FROM items_plain r WHERE bloom_contains($ids_filter, r.id)");
is( remote_sql_of($out),
	'Remote SQL: SELECT id, name, payload FROM public.items',
	q{without OPTIONS (extensions 'bloomfilter') the remote sends every row});
check_has('  ... and bloom_contains runs locally',
	"Filter: bloom_contains($EXPLAIN_INITPLAN_1_VALUE, r.id)", $out);

# Listing an extension the remote does not have fails cleanly on the remote.
my ($ret, $stdout, $stderr) = $local->psql('postgres',
	"SELECT count(*) FROM items_noext r WHERE bloom_contains($ids_filter, r.id)");
check_has(
	'a server listing the extension without having it: a clean error from the remote',
	'ERROR:  type "public.bloom" does not exist',
	join("\n", grep { length } $stdout, $stderr));
($ret, $stdout, $stderr) =
  $local->psql('postgres', 'SELECT count(*) FROM items_noext');
is(join("\n", grep { length } $stdout, $stderr),
	'100', '  ... while queries without the filter work');

# A filter read from a row of a joined table is a join clause: postgres_fdw
# considers parameterized foreign scans only with use_remote_estimate.
my $join_form =
  "SELECT r.* FROM %s r, local_filters lf WHERE lf.name = 'ids' AND bloom_contains(lf.f, r.id)";
$out = plan_of('', sprintf($join_form, 'items'));
is( remote_sql_of($out),
	'Remote SQL: SELECT id, name, payload FROM public.items',
	'filter from a joined row, without use_remote_estimate: not shipped');
check_has('  ... but applied locally as a join filter',
	'Join Filter: bloom_contains(lf.f, r.id)', $out);
$out = plan_of('', sprintf($join_form, 'items_est'));
check_has(
	'filter from a joined row, with use_remote_estimate: a parameterized scan ships it as $1',
	'WHERE (public.bloom_contains($1::public.bloom, id))', $out);
check_has('  ... under a nested loop', 'Nested Loop', $out);

# ---- 2. the rows that come back, and correctness ----
my $ids_text =
  local_sql("SELECT f::text FROM local_filters WHERE name = 'ids'");
my $names_text =
  local_sql("SELECT f::text FROM local_filters WHERE name = 'names'");
my $remote_pass = remote_sql(
	"SELECT count(*) FROM items WHERE bloom_contains('$ids_text'::bloom, id)");
my $shipped = local_sql(
	"SELECT foreign_scan_rows(\$q\$SELECT r.* FROM items r JOIN keys k ON k.id = r.id WHERE bloom_contains($ids_filter, r.id)\$q\$)"
);
is($shipped, $remote_pass,
	q{the foreign scan returns exactly the rows the remote's bloom_contains accepts});
# 1,000 of the 100,000 ids match; the other 99,000 pass with probability
# about 0.01 each: mean 990, standard deviation 31.  2,000 false positives
# would be 32 standard deviations out.
if ($shipped =~ /^\d+$/ && $shipped >= 1000 && $shipped - 1000 <= 2000)
{
	pass('  ... every match and '
		  . ($shipped - 1000)
		  . ' false positives (bound: 0 to 2,000 for a rate of 0.01 over 99,000)');
}
else
{
	fail('  ... every match and at most 2,000 false positives: '
		  . "the foreign scan returned $shipped rows");
}
check_local(
	'the parameterized scan (filter from a joined row) returns the same rows',
	$remote_pass,
	"SELECT count(*) FROM items_est r, local_filters lf WHERE lf.name = 'ids' AND bloom_contains(lf.f, r.id)"
);
check_local(q{the plain join's foreign scan returns the whole table},
	'100000',
	q{SELECT foreign_scan_rows('SELECT r.* FROM items r JOIN keys k ON k.id = r.id')});

my $digest =
  q{SELECT count(*) || ' ' || md5(string_agg(id || ':' || name || ':' || payload, ',' ORDER BY id)) FROM};
my $plain =
  local_sql("$digest (SELECT r.* FROM items r JOIN keys k ON k.id = r.id) s");
my $pre = local_sql(
	"$digest (SELECT r.* FROM items r JOIN keys k ON k.id = r.id WHERE bloom_contains($ids_filter, r.id)) s"
);
is((split / /, $plain)[0] // '', '1000', 'the join has 1,000 rows');
is($pre, $plain, 'prefiltered int8 semi-join = plain join (same rows)');
check_local('prefilter with @> then IN (exact) = plain join',
	$plain,
	"$digest (SELECT r.* FROM items r WHERE $ids_filter @> r.id AND r.id IN (SELECT id FROM keys)) s"
);
check_local('prefiltered text semi-join = plain join',
	$plain,
	"$digest (SELECT r.* FROM items r JOIN keys k ON k.name = r.name WHERE r.name <@ $names_filter) s"
);
$remote_pass = remote_sql(
	"SELECT count(*) FROM items WHERE bloom_contains('$names_text'::bloom, name)");
check_local(
	'text key: the foreign scan returns exactly the rows the remote accepts',
	$remote_pass,
	"SELECT foreign_scan_rows(\$q\$SELECT r.* FROM items r WHERE r.name <@ $names_filter\$q\$)"
);

# The text form that travels: it reads back equal on the other server.
my $same = remote_sql(
	"SELECT '$ids_text'::bloom = (SELECT bloom_agg(g::int8 * 97, 0.01, 1020) FROM generate_series(1, 1000) g) | (SELECT bloom_agg(g::int8, 0.01, 1020) FROM generate_series(200001, 200020) g)"
);
is($same, 't',
	q{the filter's text form, read on the remote, equals the remote's own filter of the keys});

# ---- 3. the other direction: a filter of the remote side, built there ----
check_plan(
	'bloom_agg over a foreign table is computed on the remote',
	'SELECT bloom_agg(id, 0.01, 100000) FROM items',
	'Remote SQL: SELECT public.bloom_agg(id, 0.01::double precision, 100000::bigint) FROM public.items'
);
my $there =
  remote_sql('SELECT md5(bloom_agg(id, 0.01, 100000)::text) FROM items');
check_local('  ... and comes back bit-identical',
	$there, 'SELECT md5(bloom_agg(id, 0.01, 100000)::text) FROM items');
check_local('  ... equal to the filter of the same values built locally',
	$there,
	'SELECT md5(bloom_agg(g::int8, 0.01, 100000)::text) FROM generate_series(1, 100000) g'
);

# ---- 4. partitionwise aggregation over local partitions ----
$local->safe_psql('postgres', q{
CREATE TABLE events (shard int, id int8) PARTITION BY LIST (shard);
CREATE TABLE events_0 PARTITION OF events FOR VALUES IN (0);
CREATE TABLE events_1 PARTITION OF events FOR VALUES IN (1);
CREATE TABLE events_2 PARTITION OF events FOR VALUES IN (2);
CREATE TABLE events_3 PARTITION OF events FOR VALUES IN (3);
INSERT INTO events SELECT g % 4, g FROM generate_series(1, 80000) g;
CREATE TABLE events_flat AS SELECT * FROM events;
ANALYZE events;
ANALYZE events_flat;
});
my $whole =
  local_sql('SELECT md5(bloom_agg(id, 0.01, 80000)::text) FROM events_flat');
my $pw = 'SET enable_partitionwise_aggregate = on';

$out = plan_of($pw, 'SELECT bloom_agg(id, 0.01, 80000) FROM events');
check_has('partitionwise: a Finalize Aggregate on top',
	'Finalize Aggregate', $out);
is(count_of('Partial Aggregate', $out),
	4, '  ... over one Partial Aggregate per partition');
check_local('  ... gives the single-aggregate filter, bit for bit',
	$whole,
	"$pw; SELECT md5(bloom_agg(id, 0.01, 80000)::text) FROM events");
check_local('  ... as does the plan without partitionwise aggregation',
	$whole,
	'SET enable_partitionwise_aggregate = off; SELECT md5(bloom_agg(id, 0.01, 80000)::text) FROM events'
);

my $per_partition =
  'SELECT bloom_union_agg(f) FROM (SELECT shard, bloom_agg(id, 0.01, 80000) AS f FROM events GROUP BY shard) s';
$out = plan_of($pw, $per_partition);
is(count_of('Group Key: events', $out),
	4,
	'bloom_agg per partition (GROUP BY the partition key): one aggregate per partition'
);
check_lacks('  ... computed under the Append, not above it',
	'Partial Aggregate', $out);
check_local('  ... bloom_union_agg of them = the single bloom_agg, bit for bit',
	$whole, "$pw; SELECT md5(($per_partition)::text)");
check_local('  ... compared with bloom = as well',
	't',
	'SELECT (SELECT bloom_union_agg(f) FROM (SELECT bloom_agg(id, 0.01, 80000) AS f FROM events GROUP BY shard) s) = (SELECT bloom_agg(id, 0.01, 80000) FROM events_flat)'
);

# ---- 5. the same over foreign partitions on the second server ----
$local->safe_psql('postgres', q{
CREATE TABLE mixed (shard int, id int8) PARTITION BY LIST (shard);
CREATE TABLE mixed_0 PARTITION OF mixed FOR VALUES IN (0);
INSERT INTO mixed_0 SELECT 0, g FROM generate_series(1, 60000) g WHERE g % 3 = 0;
CREATE FOREIGN TABLE mixed_1 PARTITION OF mixed FOR VALUES IN (1) SERVER remote;
CREATE FOREIGN TABLE mixed_2 PARTITION OF mixed FOR VALUES IN (2) SERVER remote;
ANALYZE mixed;
});
$whole = local_sql(
	'SELECT md5(bloom_agg(g::int8, 0.01, 60000)::text) FROM generate_series(1, 60000) g'
);
my $per_shard =
  'SELECT bloom_union_agg(f) FROM (SELECT shard, bloom_agg(id, 0.01, 60000) AS f FROM mixed GROUP BY shard) s';
$out = plan_of($pw, $per_shard);
is( count_of(
		'public.bloom_agg(id, 0.01::double precision, 60000::bigint) FROM public.mixed_',
		$out),
	2,
	'foreign partitions: bloom_agg per shard is computed on the remote, for each foreign shard'
);
check_has('  ... the local shard aggregated locally',
	'Seq Scan on public.mixed_0', $out);
check_local(
	q{  ... bloom_union_agg of the shards' filters = bloom_agg of all the values, bit for bit},
	$whole,
	"$pw; SELECT md5(($per_shard)::text)");

$out = plan_of($pw, 'SELECT bloom_agg(id, 0.01, 60000) FROM mixed');
is(count_of('Partial Aggregate', $out),
	3, 'without GROUP BY the partition key: Partial Aggregate per shard, locally');
check_has(
	'  ... over the remote rows (postgres_fdw in PostgreSQL 15 ships no partial aggregate)',
	'Remote SQL: SELECT id FROM public.mixed_1', $out);
check_local('  ... still bit-identical',
	$whole, "$pw; SELECT md5(bloom_agg(id, 0.01, 60000)::text) FROM mixed");

$out = plan_of('', "SELECT * FROM mixed WHERE bloom_contains($ids_filter, id)");
is( count_of('WHERE (public.bloom_contains($1::public.bloom, id))', $out),
	2,
	'a prefilter on the partitioned table is shipped to each foreign shard');
check_local(
	'  ... with every match found (the keys up to 60,000: 618)',
	'618',
	"SELECT count(*) FROM mixed WHERE bloom_contains($ids_filter, id) AND id IN (SELECT id FROM keys)"
);

bloom_done();
