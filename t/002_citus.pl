# Citus: a coordinator and two workers, each a server listening on
# 127.0.0.1, with the extension created on the coordinator.
#
# Runs only where Citus is installed for the server pg_config names (Citus
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
#   bloom_intersection_agg; the same for the other filter types' aggregates
#   with real state types: counting_bloom_agg(bloom_value(x), p, n) (both
#   hash schemes) and counting_bloom_union_agg, whose states are
#   counting_bloom, and scalable_bloom_agg(bloom_value(x), p), whose state
#   is a bloom_agg_state.  A case named "scheme N" also checks that its
#   filter has hash scheme N.  The polymorphic forms (bloom_agg(x, ...),
#   bloom_agg_like, counting_bloom_agg(x, p, n), scalable_bloom_agg(x, p)),
#   which keep internal states and which Citus cannot split, gather their
#   rows as before and give the same filters.
# - GROUP BY a column other than the distribution column is split the same
#   way (bloom_agg, counting_bloom_agg and scalable_bloom_agg); GROUP BY the
#   distribution column runs the whole aggregate on the workers; both equal
#   the local results group by group.
# - With no rows, every aggregate with constant arguments gives what a
#   local table gives (the request's empty filter): the polymorphic forms,
#   rewritten, and the bloom_value(x) forms written by hand, each split and
#   wrapped in bloom_agg_or_empty.
# - The set-up: with bloomfilter preloaded after citus, CREATE EXTENSION
#   warns of nothing and bloom_setup_check() is NULL.  On a server that
#   preloads citus (and pg_stat_statements) but not bloomfilter, CREATE
#   EXTENSION bloomfilter, by a superuser and by a database owner who is
#   not one, and ALTER EXTENSION bloomfilter UPDATE from 1.3 warn, giving
#   the setting built from the current one; bloom_setup_check() gives it
#   to a role that may read the setting, and only the advice to one that
#   may not; in a database without Citus nothing warns.
# - bloom_contains and <@ with a filter from a reference table (a scalar
#   subquery and a join) and from a sub-select over the distributed table
#   count what the local table counts.
# - The bytes that reach the coordinator: a split bloom_agg or
#   counting_bloom_agg sends a partial state per shard, the filter's text
#   form, whatever the number of rows; gathering (the polymorphic form)
#   sends every row.
use strict;
use warnings;
use BloomTest;
use Test::More;

my $sharedir  = `pg_config --sharedir`;
my $pkglibdir = `pg_config --pkglibdir`;
chomp($sharedir, $pkglibdir);
if (!-f "$sharedir/extension/citus.control" || !-f "$pkglibdir/citus.so")
{
	bloom_skip_all("Citus is not installed for PostgreSQL $PG_MAJOR "
		  . "($pkglibdir/citus.so); the Citus test did not run");
}

# Which Citus: its version, as its control file's default_version and its
# library's citus_version() say.
my ($citus_control) = grep { /^default_version/ }
  split /\n/, `cat $sharedir/extension/citus.control`;
my ($citus_default) = ($citus_control // '') =~ /'([0-9.]+)/;
my ($citus_major) = ($citus_default // '0') =~ /^([0-9]+)/;

# What makes Citus gather the polymorphic aggregates' rows: the rewrite
# off and, from Citus 15, Citus's own split of internal states off (else
# it fails).
my $gather_setup = 'SET bloomfilter.split_aggregates = off;'
  . ($citus_major >= 15
	? ' SET citus.allow_aggregate_worker_combine_on_internal_types = off;'
	: '');

# Three servers on 127.0.0.1, each on the port the framework gave it (their
# Unix sockets stay where the framework puts them).  bloomfilter is preloaded
# after citus, so that its planner hook runs before Citus's
# (doc/distributed.md); from a DESTDIR tree, by its path.
my $bloom_library =
  $ENV{BLOOM_INST} ? "$ENV{BLOOM_INST}$pkglibdir/bloomfilter.so" : 'bloomfilter';
my %citus_conf = (
	shared_preload_libraries => "'citus,$bloom_library'",
	listen_addresses => "'127.0.0.1'",
	'citus.enable_statistics_collection' => 'off',
	max_connections => 100,
	shared_buffers => '256MB',
	max_worker_processes => 16);
my $coordinator = bloom_node('coordinator', conf => {%citus_conf});
my @workers = map { bloom_node("worker$_", conf => {%citus_conf}) } (1, 2);

foreach my $node ($coordinator, @workers)
{
	$node->safe_psql('postgres', 'CREATE EXTENSION citus');
}
my $citus_version = $coordinator->safe_psql('postgres', 'SELECT citus_version()');
($citus_version) = $citus_version =~ /^Citus ([^ ]+)/;
note("Citus $citus_version (extension $citus_default), PostgreSQL $PG_MAJOR");
ok($citus_version ne '', "the test runs on Citus $citus_version, PostgreSQL $PG_MAJOR");
$coordinator->safe_psql('postgres', sprintf(q{
SELECT citus_set_coordinator_host('127.0.0.1', %d);
SELECT citus_add_node('127.0.0.1', %d);
SELECT citus_add_node('127.0.0.1', %d);
}, $coordinator->port, $workers[0]->port, $workers[1]->port));
{
	my ($ret, $stdout, $stderr) = $coordinator->psql('postgres',
		'CREATE EXTENSION bloomfilter; SELECT bloom_setup_check() IS NULL');
	is("$ret $stdout $stderr", '0 t ',
		'with bloomfilter preloaded after citus, CREATE EXTENSION bloomfilter warns of nothing, and bloom_setup_check() is NULL'
	);
}
my $version_query =
  "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'";
my $default_version = $coordinator->safe_psql('postgres', $version_query);
foreach my $worker (@workers)
{
	is($worker->safe_psql('postgres', $version_query),
		$default_version,
		'CREATE EXTENSION bloomfilter on the coordinator reaches the worker on port '
		  . $worker->port);
}

# ev, distributed by id over 16 shards; ev_by_g the same rows distributed by
# g; ev_local the same rows in a local table.  tmpl: a reference table of
# filters; filt: per-g filters (f bloom, cf counting_bloom), distributed by
# g, and filt_local.
$coordinator->safe_psql('postgres', q{
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
INSERT INTO tmpl VALUES (3, NULL);
CREATE VIEW ev_view AS SELECT g, bloom_agg(id, 0.01, 10000) AS f FROM ev GROUP BY g;
CREATE VIEW ev_local_view AS SELECT g, bloom_agg(id, 0.01, 10000) AS f FROM ev_local GROUP BY g;
CREATE TABLE filt_local AS
	SELECT g, bloom_agg(id, 0.01, 50000) AS f, counting_bloom_agg(id, 0.01, 50000) AS cf
	FROM ev_local GROUP BY g;
CREATE TABLE filt (g int, f bloom, cf counting_bloom);
SELECT create_distributed_table('filt', 'g');
INSERT INTO filt SELECT g, f, cf FROM filt_local;
ANALYZE;
});

# [name, query over {t} (the table; {filt} the table of filters) with
# columns k (group) and f (filter), what its plan must show, the reference
# over the local tables, in the classic form where the query hashes with
# bloom_value()].  split: worker_partial_agg on the workers; pushdown: the
# whole aggregate on the workers; gather: the rows to the coordinator (a
# polymorphic aggregate, which Citus cannot split, as 1.2 did).
my @cases = (
	[
		'bloom_agg(bloom_value(id), p, n), scheme 1',
		'SELECT 0 AS k, bloom_agg(bloom_value(id), 0.01, 400000) AS f FROM {t}',
		'split',
		'SELECT 0 AS k, bloom_agg(id, 0.01, 400000) AS f FROM {t}'
	],
	[
		'bloom_agg(bloom_value(id), p, n), scheme 2',
		'SELECT 0 AS k, bloom_agg(bloom_value(id), 0.01, 4000000) AS f FROM {t}',
		'split',
		'SELECT 0 AS k, bloom_agg(id, 0.01, 4000000) AS f FROM {t}'
	],
	[
		'bloom_agg(bloom_value(id))',
		'SELECT 0 AS k, bloom_agg(bloom_value(id)) AS f FROM {t}',
		'split',
		'SELECT 0 AS k, bloom_agg(id) AS f FROM {t}'
	],
	[
		'bloom_agg(bloom_value(t), p)',
		'SELECT 0 AS k, bloom_agg(bloom_value(t), 0.02) AS f FROM {t}',
		'split',
		'SELECT 0 AS k, bloom_agg(t, 0.02) AS f FROM {t}'
	],
	[
		'bloom_agg_shaped(bloom_value(id), shape)',
		'SELECT 0 AS k, bloom_agg_shaped(bloom_value(id), (SELECT bloom_shape(f) FROM tmpl WHERE id = 1)) AS f FROM {t}',
		'split',
		'SELECT 0 AS k, bloom_agg_like(id, (SELECT f FROM tmpl WHERE id = 1)) AS f FROM {t}'
	],
	[
		'bloom_union_agg(f)',
		'SELECT 0 AS k, bloom_union_agg(f) AS f FROM {filt}',
		'split',
		'SELECT 0 AS k, bloom_union_agg(f) AS f FROM {filt}'
	],
	[
		'bloom_intersection_agg(f)',
		'SELECT 0 AS k, bloom_intersection_agg(f) AS f FROM {filt}',
		'split',
		'SELECT 0 AS k, bloom_intersection_agg(f) AS f FROM {filt}'
	],
	[
		'counting_bloom_agg(bloom_value(id), p, n), scheme 1',
		'SELECT 0 AS k, counting_bloom_agg(bloom_value(id), 0.01, 400000) AS f FROM {t}',
		'split',
		'SELECT 0 AS k, counting_bloom_agg(id, 0.01, 400000) AS f FROM {t}'
	],
	[
		'counting_bloom_agg(bloom_value(id), p, n), scheme 2',
		'SELECT 0 AS k, counting_bloom_agg(bloom_value(id), 0.01, 2000000) AS f FROM {t}',
		'split',
		'SELECT 0 AS k, counting_bloom_agg(id, 0.01, 2000000) AS f FROM {t}'
	],
	[
		'counting_bloom_union_agg(f)',
		'SELECT 0 AS k, counting_bloom_union_agg(cf) AS f FROM {filt}',
		'split',
		'SELECT 0 AS k, counting_bloom_union_agg(cf) AS f FROM {filt}'
	],
	[
		'scalable_bloom_agg(bloom_value(id), p)',
		'SELECT 0 AS k, scalable_bloom_agg(bloom_value(id), 0.01) AS f FROM {t}',
		'split',
		'SELECT 0 AS k, scalable_bloom_agg(id, 0.01) AS f FROM {t}'
	],
	[
		'scalable_bloom_agg(bloom_value(t), p)',
		'SELECT 0 AS k, scalable_bloom_agg(bloom_value(t), 0.02) AS f FROM {t}',
		'split',
		'SELECT 0 AS k, scalable_bloom_agg(t, 0.02) AS f FROM {t}'
	],
	[
		'GROUP BY g, bloom_agg(bloom_value(id), p, n)',
		'SELECT g AS k, bloom_agg(bloom_value(id), 0.01, 10000) AS f FROM {t} GROUP BY g',
		'split',
		'SELECT g AS k, bloom_agg(id, 0.01, 10000) AS f FROM {t} GROUP BY g'
	],
	[
		'GROUP BY g, bloom_agg(bloom_value(id))',
		'SELECT g AS k, bloom_agg(bloom_value(id)) AS f FROM {t} GROUP BY g',
		'split',
		'SELECT g AS k, bloom_agg(id) AS f FROM {t} GROUP BY g'
	],
	[
		'GROUP BY g, counting_bloom_agg(bloom_value(id), p, n)',
		'SELECT g AS k, counting_bloom_agg(bloom_value(id), 0.01, 5000) AS f FROM {t} GROUP BY g',
		'split',
		'SELECT g AS k, counting_bloom_agg(id, 0.01, 5000) AS f FROM {t} GROUP BY g'
	],
	[
		'GROUP BY g, scalable_bloom_agg(bloom_value(id), p)',
		'SELECT g AS k, scalable_bloom_agg(bloom_value(id), 0.01) AS f FROM {t} GROUP BY g',
		'split',
		'SELECT g AS k, scalable_bloom_agg(id, 0.01) AS f FROM {t} GROUP BY g'
	],
	[
		'GROUP BY the distribution column g, bloom_agg(id, p, n)',
		'SELECT g AS k, bloom_agg(id, 0.01, 10000) AS f FROM {t} GROUP BY g',
		'pushdown',
		'SELECT g AS k, bloom_agg(id, 0.01, 10000) AS f FROM {t} GROUP BY g'
	],
	[
		'bloom_agg(id, p, n)',
		'SELECT 0 AS k, bloom_agg(id, 0.01, 400000) AS f FROM {t}',
		'split',
		'SELECT 0 AS k, bloom_agg(id, 0.01, 400000) AS f FROM {t}'
	],
	[
		'bloom_agg(id, p, n), scheme 2',
		'SELECT 0 AS k, bloom_agg(id, 0.01, 4000000) AS f FROM {t}',
		'split',
		'SELECT 0 AS k, bloom_agg(id, 0.01, 4000000) AS f FROM {t}'
	],
	[
		'bloom_agg(id)',
		'SELECT 0 AS k, bloom_agg(id) AS f FROM {t}',
		'split',
		'SELECT 0 AS k, bloom_agg(id) AS f FROM {t}'
	],
	[
		'bloom_agg(t, p)',
		'SELECT 0 AS k, bloom_agg(t, 0.02) AS f FROM {t}',
		'split',
		'SELECT 0 AS k, bloom_agg(t, 0.02) AS f FROM {t}'
	],
	[
		'bloom_agg_like(id, template) with a scalar subquery template',
		'SELECT 0 AS k, bloom_agg_like(id, (SELECT f FROM tmpl WHERE id = 2)) AS f FROM {t}',
		'split',
		'SELECT 0 AS k, bloom_agg_like(id, (SELECT f FROM tmpl WHERE id = 2)) AS f FROM {t}'
	],
	[
		'bloom_agg_like(id, template) with a NULL template',
		'SELECT 0 AS k, bloom_agg_like(id, (SELECT f FROM tmpl WHERE id = 3)) AS f FROM {t}',
		'split',
		'SELECT 0 AS k, bloom_agg_like(id, (SELECT f FROM tmpl WHERE id = 3)) AS f FROM {t}'
	],
	[
		'counting_bloom_agg(id, p, n)',
		'SELECT 0 AS k, counting_bloom_agg(id, 0.01, 400000) AS f FROM {t}',
		'split',
		'SELECT 0 AS k, counting_bloom_agg(id, 0.01, 400000) AS f FROM {t}'
	],
	[
		'scalable_bloom_agg(id, p)',
		'SELECT 0 AS k, scalable_bloom_agg(id, 0.01) AS f FROM {t}',
		'split',
		'SELECT 0 AS k, scalable_bloom_agg(id, 0.01) AS f FROM {t}'
	],
	[
		'bloom_agg(id, p, n) beside count(*)',
		'SELECT count(*) AS k, bloom_agg(id, 0.01, 400000) AS f FROM {t}',
		'split',
		'SELECT count(*) AS k, bloom_agg(id, 0.01, 400000) AS f FROM {t}'
	],
	[
		'bloom_agg(t, p, n) filtered, beside sum(id)',
		'SELECT sum(id) AS k, bloom_agg(t, 0.01, 100000) AS f FROM {t} WHERE g < 20',
		'split',
		'SELECT sum(id) AS k, bloom_agg(t, 0.01, 100000) AS f FROM {t} WHERE g < 20'
	],
	[
		'GROUP BY g, bloom_agg(id, p, n)',
		'SELECT g AS k, bloom_agg(id, 0.01, 10000) AS f FROM {t} GROUP BY g',
		'split',
		'SELECT g AS k, bloom_agg(id, 0.01, 10000) AS f FROM {t} GROUP BY g'
	],
	[
		'GROUP BY g, bloom_agg(id)',
		'SELECT g AS k, bloom_agg(id) AS f FROM {t} GROUP BY g',
		'split',
		'SELECT g AS k, bloom_agg(id) AS f FROM {t} GROUP BY g'
	],
	[
		'GROUP BY g, counting_bloom_agg(id, p, n)',
		'SELECT g AS k, counting_bloom_agg(id, 0.01, 5000) AS f FROM {t} GROUP BY g',
		'split',
		'SELECT g AS k, counting_bloom_agg(id, 0.01, 5000) AS f FROM {t} GROUP BY g'
	],
	[
		'GROUP BY g, scalable_bloom_agg(id, p)',
		'SELECT g AS k, scalable_bloom_agg(id, 0.01) AS f FROM {t} GROUP BY g',
		'split',
		'SELECT g AS k, scalable_bloom_agg(id, 0.01) AS f FROM {t} GROUP BY g'
	],
	[
		'a view of GROUP BY g, bloom_agg(id, p, n)',
		'SELECT g AS k, f FROM {t}_view',
		'split',
		'SELECT g AS k, f FROM {t}_view'
	],
	[
		'a CTE of bloom_agg(id, p, n)',
		'WITH c AS (SELECT bloom_agg(id, 0.01, 400000) AS f FROM {t}) SELECT 0 AS k, f FROM c',
		'split',
		'WITH c AS (SELECT bloom_agg(id, 0.01, 400000) AS f FROM {t}) SELECT 0 AS k, f FROM c'
	],
	[
		'a materialized CTE of bloom_agg(id), joined',
		'WITH c AS MATERIALIZED (SELECT g, bloom_agg(id) AS f FROM {t} GROUP BY g) SELECT c.g AS k, c.f FROM c JOIN (VALUES (1), (2)) AS v(g) ON v.g = c.g',
		'split',
		'WITH c AS MATERIALIZED (SELECT g, bloom_agg(id) AS f FROM {t} GROUP BY g) SELECT c.g AS k, c.f FROM c JOIN (VALUES (1), (2)) AS v(g) ON v.g = c.g'
	],
	[
		'a subquery in FROM of scalable_bloom_agg(id, p)',
		'SELECT 0 AS k, s.f FROM (SELECT scalable_bloom_agg(id, 0.01) AS f FROM {t} WHERE g > 50) AS s',
		'split',
		'SELECT 0 AS k, s.f FROM (SELECT scalable_bloom_agg(id, 0.01) AS f FROM {t} WHERE g > 50) AS s'
	],
	[
		'GROUP BY the distribution column g, bloom_agg(id, p, n)',
		'SELECT g AS k, bloom_agg(id, 0.01, 10000) AS f FROM {t} GROUP BY g',
		'pushdown',
		'SELECT g AS k, bloom_agg(id, 0.01, 10000) AS f FROM {t} GROUP BY g'
	],
	[
		'one shard (distribution column = constant), bloom_agg(id, p, n)',
		'SELECT 0 AS k, bloom_agg(id, 0.01, 10000) AS f FROM {t} WHERE g = 7',
		'pushdown',
		'SELECT 0 AS k, bloom_agg(id, 0.01, 10000) AS f FROM {t} WHERE g = 7'
	],
	[
		'bloom_agg(id, p, n) with the rewrite off',
		'/*off*/ SELECT 0 AS k, bloom_agg(id, 0.01, 400000) AS f FROM {t}',
		'gather',
		'SELECT 0 AS k, bloom_agg(id, 0.01, 400000) AS f FROM {t}'
	]);

# The md5 of a query's groups and filters, in the order of k, after the
# settings in $setup.
sub digest_of
{
	my ($query, $setup) = @_;
	$setup //= '';
	return $coordinator->safe_psql('postgres',
		"$setup SELECT md5(string_agg(k::text || ':' || coalesce(f::text, 'NULL'), ',' ORDER BY k)) FROM ($query) AS q"
	);
}

foreach my $case (@cases)
{
	my ($name, $template, $expect, $reference) = @$case;
	my $table = $expect eq 'pushdown' ? 'ev_by_g' : 'ev';
	(my $query = $template) =~ s/\{t\}/$table/g;
	$query =~ s/\{filt\}/filt/g;
	(my $local_query = $reference) =~ s/\{t\}/ev_local/g;
	$local_query =~ s/\{filt\}/filt_local/g;
	my $setup =
	  $query =~ s{^/\*off\*/ }{} ? 'SET bloomfilter.split_aggregates = off;' : '';
	if ($setup ne '' && $citus_major >= 15)
	{
		# Citus 15 splits the polymorphic aggregates itself, and fails
		# (doc/distributed.md: preload bloomfilter)
		my ($ret, $stdout, $stderr) = $coordinator->psql('postgres', "$setup $query");
		like($stderr, qr/could not confirm type correctness/,
			"$name: Citus $citus_version fails in its own type check, as documented");
		next;
	}

	# (an error is part of the plan shown, as the checks below read it)
	my ($ret, $stdout, $stderr) =
	  $coordinator->psql('postgres', "$setup EXPLAIN (VERBOSE, COSTS OFF) $query");
	my $plan = join("\n", grep { $_ ne '' } $stdout, $stderr);
	my ($task) = $plan =~ /^ *Query: (.*)$/m;
	$task //= '';
	note("$name: a worker task: " . substr($task, 0, 300));
	if ($expect eq 'split')
	{
		ok($task =~ /worker_(binary_)?partial_agg/ && $plan =~ /coord_(binary_)?combine_agg/,
			"$name is split: worker_(binary_)partial_agg on the workers, coord_(binary_)combine_agg on the coordinator"
		) or diag($plan);
	}
	elsif ($expect eq 'pushdown')
	{
		ok($plan !~ /worker_(binary_)?partial_agg/ && $task =~ /bloom_agg\(/ && $task !~ /bloom_value/,
			"$name runs whole on the workers, not rewritten")
		  or diag($plan);
	}
	else
	{
		ok( $task ne ''
			  && $plan !~ /worker_(binary_)?partial_agg/
			  && $task !~ /bloom_agg/,
			"$name gathers the rows to the coordinator (not split, and no error)"
		) or diag($plan);
	}
	is(digest_of($query, $setup), digest_of($local_query),
		"$name over the distributed table equals the local table's, bit for bit");
	if (my ($scheme) = $name =~ /scheme ([0-9]+)$/)
	{
		is( $coordinator->safe_psql('postgres',
				"SELECT substring(f::text FROM ':h([0-9]+):') FROM ($local_query) AS q"),
			$scheme,
			"$name: the filter has hash scheme $scheme");
	}
}

# Prepared statements (custom and generic plans), PL/pgSQL and a
# materialized view: the rewrite happens wherever the planner plans.
# Prepared statements: custom plans (what plan_cache_mode auto chooses for
# Citus's distributed queries) are split; a forced generic plan has
# parameters for arguments, which Citus cannot plan for several shards
# ("could not create distributed plan", Citus 13.2.2, with or without the
# rewrite): the rewrite must give what the query gives without it.
sub prepared
{
	my ($mode, $setup) = @_;
	return $coordinator->psql('postgres', qq{
$setup
SET plan_cache_mode = $mode;
PREPARE agg(float8, int8) AS SELECT bloom_agg(id, \$1, \$2) FROM ev;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE agg(0.01, 400000);
CREATE TEMP TABLE prepared_result AS EXECUTE agg(0.01, 400000);
SELECT 'same: ' || (f = (SELECT bloom_agg(id, 0.01, 400000) FROM ev_local)) FROM prepared_result AS r(f);
});
}
foreach my $mode ('auto', 'force_custom_plan', 'force_generic_plan')
{
	my ($ret, $out, $err) = prepared($mode, '');
	if ($mode ne 'force_generic_plan')
	{
		ok($ret == 0 && $out =~ /worker_(binary_)?partial_agg/ && $out =~ /same: true/,
			"a prepared bloom_agg(id, \$1, \$2), plan_cache_mode $mode, is split and equals the local table's"
		) or diag($out, $err);
		next;
	}
	my ($off_ret, $off_out, $off_err) = prepared($mode, $gather_setup);
	my ($message) = $err =~ /ERROR:\s+(.*)/;
	my ($off_message) = $off_err =~ /ERROR:\s+(.*)/;
	note("plan_cache_mode $mode: with the rewrite "
		  . ($ret == 0 ? 'planned' : "ERROR $message")
		  . "; without it " . ($off_ret == 0 ? 'planned' : "ERROR $off_message"));
	ok( ($ret == 0 && $out =~ /same: true/ && $off_ret == 0)
		  || ($ret != 0 && $off_ret != 0 && $message eq $off_message),
		"a prepared bloom_agg(id, \$1, \$2), plan_cache_mode $mode, gives what it gives without the rewrite"
	) or diag($out, $err, $off_out, $off_err);
}
$coordinator->safe_psql('postgres', q{
CREATE FUNCTION ev_filter(p float8, n int8) RETURNS bloom LANGUAGE plpgsql AS $$
BEGIN
	RETURN (SELECT bloom_agg(id, p, n) FROM ev);
END
$$;
CREATE MATERIALIZED VIEW ev_daily AS SELECT g, bloom_agg(id) AS f FROM ev GROUP BY g;
});
is( $coordinator->safe_psql('postgres',
		'SELECT ev_filter(0.01, 400000) = (SELECT bloom_agg(id, 0.01, 400000) FROM ev_local)'),
	't',
	'bloom_agg(id, p, n) in PL/pgSQL equals the local table\'s');
$coordinator->safe_psql('postgres', 'REFRESH MATERIALIZED VIEW ev_daily');
is( $coordinator->safe_psql('postgres', q{
SELECT count(*) FROM ev_daily AS d
	JOIN (SELECT g, bloom_agg(id) AS f FROM ev_local GROUP BY g) AS l USING (g)
WHERE d.f = l.f
}),
	'100',
	'a materialized view of GROUP BY g, bloom_agg(id), refreshed, equals the local table\'s, group by group');

# No rows: what one server gives, split or not.  Split, Citus's coordinator
# calls the final function without the aggregate's arguments, so the hook
# wraps a call with constant arguments in bloom_agg_or_empty, the
# polymorphic forms it rewrites and the bloom_value() forms written by hand
# alike.  [aggregate over id, what one server gives]
my @no_rows = (
	[ 'bloom_agg(id, 0.01, 1000)', 'bloom_empty(0.01, 1000)' ],
	[ 'bloom_agg(id)', '(SELECT bloom_agg(id) FROM ev_local WHERE id < 0)' ],
	[ 'bloom_agg(id, 0.05)', '(SELECT bloom_agg(id, 0.05) FROM ev_local WHERE id < 0)' ],
	[ 'counting_bloom_agg(id, 0.01, 1000)', 'counting_bloom_empty(0.01, 1000)' ],
	[ 'scalable_bloom_agg(id, 0.01)', 'scalable_bloom_empty(0.01, 1)' ],
	[ 'bloom_agg(bloom_value(id), 0.01, 1000)', 'bloom_empty(0.01, 1000)' ],
	[ 'bloom_agg(bloom_value(id))', '(SELECT bloom_agg(id) FROM ev_local WHERE id < 0)' ],
	[ 'bloom_agg(bloom_value(id), 0.05)', '(SELECT bloom_agg(id, 0.05) FROM ev_local WHERE id < 0)' ],
	[ 'counting_bloom_agg(bloom_value(id), 0.01, 1000)', 'counting_bloom_empty(0.01, 1000)' ],
	[ 'scalable_bloom_agg(bloom_value(id), 0.01)', 'scalable_bloom_empty(0.01, 1)' ]);
foreach my $case (@no_rows)
{
	my ($aggregate, $empty) = @$case;
	my $plan = $coordinator->safe_psql('postgres',
		"EXPLAIN (VERBOSE, COSTS OFF) SELECT $aggregate FROM ev WHERE id < 0");
	is( $coordinator->safe_psql('postgres', qq{
SELECT (SELECT ${aggregate}::text FROM ev WHERE id < 0) = ${empty}::text,
	(SELECT ${aggregate}::text FROM ev_local WHERE id < 0) = ${empty}::text
}),
		't|t',
		"with no rows, $aggregate split (" . ($plan =~ /(worker_(binary_)?partial_agg)/ ? $1 : 'NOT split')
		  . ") gives what one server gives");
}

# Membership tests next to the rows.
my @membership = (
	[
		'bloom_contains with a reference table\'s filter (scalar subquery)',
		'SELECT count(*) FROM {t} WHERE bloom_contains((SELECT f FROM tmpl WHERE id = 2), id)'
	],
	[
		'<@ joined to a reference table',
		'SELECT count(*) FROM {t} AS e JOIN tmpl ON tmpl.id = 2 AND e.id <@ tmpl.f'
	],
	[
		'<@ with a sub-select filter over the same table',
		'SELECT count(*) FROM {t} WHERE id <@ (SELECT bloom_agg(bloom_value(id), 0.01, 5000) FROM {t} WHERE g = 3)'
	]);
foreach my $case (@membership)
{
	my ($name, $template) = @$case;
	(my $distributed = $template) =~ s/\{t\}/ev/g;
	(my $local = $template) =~ s/\{t\}/ev_local/g;
	is( $coordinator->safe_psql('postgres', $distributed),
		$coordinator->safe_psql('postgres', $local),
		"$name counts what the local table counts");
}

# Bytes that reach the coordinator: EXPLAIN ANALYZE's "Tuple data received
# from nodes" (from Citus 14; in 13, EXPLAIN ANALYZE of a split custom
# aggregate fails with "column field_0 has pseudo-type cstring", and the
# split bytes are each shard's worker_partial_agg result as Citus calls it).
# Gathered: the polymorphic form with the rewrite off (and, from Citus 15,
# Citus's own split of internal states off, which would fail).
my %unit = (bytes => 1, kB => 1024, MB => 1048576, GB => 1073741824);

sub received
{
	my ($query, $setup) = @_;
	$setup //= '';
	my $plan = $coordinator->safe_psql('postgres',
		"$setup EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) $query");
	my ($n, $unit) =
	  $plan =~ /^ *Tuple data received from nodes: ([0-9.]+) (bytes|kB|MB|GB)$/m
	  or return '';
	return int($n * $unit{$unit});
}


# The bytes of the partial states of AGGREGATE(bloom_value(id), p, 400000)
# over the rows with id <= ROWS, each shard's worker_partial_agg (text) as
# Citus 13 calls it, or what EXPLAIN ANALYZE reports from Citus 14 on.
sub partial_states
{
	my ($aggregate, $rows) = @_;
	return received("SELECT $aggregate(id, 0.01, 400000) FROM ev WHERE id <= $rows")
	  if $citus_major >= 14;
	return $coordinator->safe_psql('postgres', qq{
SELECT sum(result::bigint) FROM run_command_on_shards('ev', \$\$
	SELECT octet_length(pg_catalog.worker_partial_agg('$aggregate(bloom_hashed, float8, int8)'::regprocedure,
		ROW(bloom_value(id), 0.01::float8, 400000::int8))::text) FROM %s WHERE id <= $rows\$\$)
});
}

foreach my $aggregate ('bloom_agg', 'counting_bloom_agg')
{
	my $split_bytes = partial_states($aggregate, 400000);
	my $gather_bytes =
	  received("SELECT $aggregate(id, 0.01, 400000) FROM ev", $gather_setup);
	my $raw_bytes = $coordinator->safe_psql('postgres',
		"SELECT 16 * octet_length(" . ($aggregate =~ s/_agg$/_send/r)
		  . "($aggregate(id, 0.01, 400000))) FROM ev_local");
	note(
		"$aggregate over 400,000 rows in 16 shards, false_positive_rate 0.01, capacity 400,000: "
		  . "split, $split_bytes bytes reach the coordinator; gathered, $gather_bytes bytes "
		  . "of rows; 16 raw filters are $raw_bytes bytes");
	ok($split_bytes ne '' && $split_bytes > 0,
		"$aggregate split: the coordinator receives partial states ($split_bytes bytes; 16 raw filters $raw_bytes)");
	my $small_split = partial_states($aggregate, 4000);
	my $small_gather = received(
		"SELECT $aggregate(id, 0.01, 400000) FROM ev WHERE id <= 4000", $gather_setup);
	note("the same over 4,000 rows: split $small_split bytes, gathered $small_gather bytes");
	ok( $small_split ne ''
		  && $small_split <= $split_bytes
		  && $gather_bytes ne ''
		  && $small_gather ne ''
		  && $small_gather < int($gather_bytes / 50),
		"$aggregate: the bytes a split aggregate sends do not grow with the rows; those of gathered rows do"
	  )
	  or diag("split bytes for 4,000 rows: $small_split; for 400,000: $split_bytes; "
		  . "gathered: $small_gather and $gather_bytes");
}

# The set-up mistake, caught where it is made: a server that preloads citus
# (and pg_stat_statements) but not bloomfilter.
my $unloaded = bloom_node(
	'citus_only',
	conf => {
		shared_preload_libraries => "'citus,pg_stat_statements'",
		'citus.enable_statistics_collection' => 'off'
	});
my $setting = q{shared_preload_libraries = 'citus,pg_stat_statements,bloomfilter'};
$unloaded->safe_psql('postgres', q{
CREATE DATABASE created;
CREATE DATABASE updated;
CREATE DATABASE no_citus;
CREATE ROLE app_owner LOGIN;
CREATE DATABASE owned OWNER app_owner;
CREATE ROLE plain LOGIN;
});
$unloaded->safe_psql($_, 'CREATE EXTENSION citus') foreach qw(created updated owned);

# What psql printed on standard error for SQL in database DB (as ROLE).
sub stderr_of
{
	my ($db, $sql, $role) = @_;
	my ($ret, $stdout, $stderr) = $unloaded->psql($db, $sql,
		defined $role ? (extra_params => [ '-U', $role ]) : ());
	return "exit $ret: $stderr";
}
# Whether STDERR holds the warning, its reason and the setting to make.
sub warns_with_setting
{
	my ($stderr, $line) = @_;
	return $stderr =~ /^exit 0: /
	  && $stderr =~ /WARNING:  bloomfilter is not loaded after citus in shared_preload_libraries\n/
	  && $stderr =~ /DETAIL:  Citus splits bloom_agg\(x, \.\.\.\) .*"could not confirm type correctness"/s
	  && index($stderr, "HINT:  $line") >= 0;
}
my $hint = "Set $setting in postgresql.conf and restart the server.";
my $stderr = stderr_of('created', 'CREATE EXTENSION bloomfilter');
ok(warns_with_setting($stderr, $hint),
	"CREATE EXTENSION bloomfilter where citus is preloaded without it warns, giving $setting and why")
  or diag($stderr);
$stderr = stderr_of('owned', 'CREATE EXTENSION bloomfilter', 'app_owner');
ok(warns_with_setting($stderr, $hint),
	'so does CREATE EXTENSION by a database owner who is not a superuser (trusted)')
  or diag($stderr);
$stderr = stderr_of('updated', q{
CREATE EXTENSION bloomfilter VERSION '1.3';
ALTER EXTENSION bloomfilter UPDATE});
ok(warns_with_setting($stderr, $hint) && (() = $stderr =~ /WARNING:/g) == 1,
	'ALTER EXTENSION bloomfilter UPDATE from 1.3 warns the same')
  or diag($stderr);
is($unloaded->safe_psql('created', 'SELECT bloom_setup_check()'),
	$hint, 'bloom_setup_check() gives a superuser the setting, built from the current one');
is( $unloaded->safe_psql('created', 'SELECT bloom_setup_check()', extra_params => [ '-U', 'plain' ]),
	'Add bloomfilter after citus to shared_preload_libraries in postgresql.conf and restart the server.',
	'and a role that may not read the setting only the advice');
is( stderr_of('no_citus', 'CREATE EXTENSION bloomfilter; SELECT bloom_setup_check()'),
	'exit 0: ',
	'in a database without Citus, CREATE EXTENSION warns of nothing');

bloom_done();
