# bloomfilter.auto_prefilter, the prefilters the planner adds by itself to
# joins with postgres_fdw tables.
#
# Two servers (as t/008_fdw.pl): a "remote" one holding the big tables, and a
# "local" one with small tables, foreign tables on a postgres_fdw server
# listing bloomfilter in its extensions option, and a partitioned table whose
# partitions are foreign tables.  It checks
#
#   - plans: with the setting on, the eligible forms (inner join, implicit
#     join, LEFT JOIN with the foreign table nullable, IN, = ANY, EXISTS,
#     foreign partitions, a view) get bloom_contains($n, key) in the Remote
#     SQL and an InitPlan bloom_auto_prefilter(bloom_agg(...)); the setting
#     off, and the ineligible forms (anti-joins, the foreign table on the
#     preserved side, FULL joins, nondeterministic collations, mismatched
#     types, a big local side, a server without the option), give EXPLAIN
#     output identical with the setting on and off;
#   - foreign tables nobody analyzed: the six forms of issue 28 (inner join,
#     IN, EXISTS, LEFT JOIN with the foreign table nullable, text and uuid
#     keys) get a prefilter when the local side is small; a big local side
#     gets none, and the DEBUG1 line says why (as for the other reasons of
#     the "does it pay" rule);
#   - a randomized differential test (t/auto_prefilter.sql):
#     AUTO_PREFILTER_QUERIES (default 1,000) generated queries, each run with
#     the setting off and on and compared as multisets (row count and the md5
#     of the sorted rows), covering join kinds, NULL keys,
#     int2/int4/int8/numeric mixes, text in C, ICU deterministic and
#     nondeterministic collations, uuid, composite keys, LIMIT, subqueries,
#     CTEs, and prepared statements under generic and custom plans.  It runs
#     four times, the same queries against four foreign tables with the same
#     columns: f (analyzed), f_unanalyzed (never analyzed), f_stale (analyzed,
#     then most of its remote rows deleted, changed or added) and fpa (a
#     partitioned table of foreign partitions, one of them never analyzed),
#     in four sessions at once.  The seed (AUTO_PREFILTER_SEED, default
#     random) is printed, and every failure names it, the table and the
#     query.
use strict;
use warnings;
use BloomTest;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

# As bash's ${NAME:-default}: unset or empty takes the default.
my $seed =
  length($ENV{AUTO_PREFILTER_SEED} // '')
  ? $ENV{AUTO_PREFILTER_SEED}
  : int(rand(2**30));
my $queries =
  length($ENV{AUTO_PREFILTER_QUERIES} // '')
  ? $ENV{AUTO_PREFILTER_QUERIES}
  : 1000;
die "AUTO_PREFILTER_SEED must be a number from 0 to 2147483647, not \"$seed\""
  unless $seed =~ /^\d{1,10}$/ && $seed <= 2147483647;
die "AUTO_PREFILTER_QUERIES must be a positive number, not \"$queries\""
  unless $queries =~ /^\d{1,9}$/ && $queries > 0;

my $remote = bloom_node('remote');
my $local  = bloom_node('local');

# local_sql(SQL): its output; a failed query fails the checks that use its
# output only (its error is shown), and the run goes on.  Undefined when the
# query failed.
sub local_sql
{
	my ($sql) = @_;
	my ($ret, $stdout, $stderr) = $local->psql('postgres', $sql);
	if ($ret != 0)
	{
		diag("local: $stderr");
		return undef;
	}
	return $stdout;
}

# explain_with(on|off, QUERY): EXPLAIN (VERBOSE, COSTS OFF) with the setting
sub explain_with
{
	my ($setting, $query) = @_;
	return local_sql("SET bloomfilter.auto_prefilter = $setting;\n"
		  . "EXPLAIN (VERBOSE, COSTS OFF) $query");
}

# remote_sql_lines(PLAN): its Remote SQL lines
sub remote_sql_lines
{
	my ($plan) = @_;
	return grep { index($_, 'Remote SQL') >= 0 } split /\n/, $plan // '';
}

# ---- the data ----
# Remote: r (20,000 rows, keys of several types, some NULL), shards for a
# partitioned table.  Keys are multiples of 3 and 7 so that a local side of
# multiples of 7 matches a seventh of them.  A failure to load data ends the
# run.
$remote->safe_psql('postgres', q{
CREATE EXTENSION bloomfilter;
CREATE TABLE r AS
	SELECT g AS id,
		CASE WHEN g % 50 = 0 THEN NULL ELSE g END::int8 AS k8,
		CASE WHEN g % 50 = 0 THEN NULL ELSE g END::int4 AS k4,
		(g % 30000)::int2 AS k2,
		CASE WHEN g % 40 = 0 THEN NULL ELSE g END::numeric AS kn,
		CASE WHEN g % 45 = 0 THEN NULL ELSE 'key-' || g END AS kt,
		CASE WHEN g % 3 = 0 THEN 'KEY-' || g ELSE 'key-' || g END AS ktc,
		md5(g::text)::uuid AS ku,
		g % 10 AS grp,
		md5('p' || g) AS payload
	FROM generate_series(1, 20000) g;
CREATE TABLE shard_1 AS SELECT id, k8, grp FROM r WHERE grp < 5;
CREATE TABLE shard_2 AS SELECT id, k8, grp FROM r WHERE grp >= 5;
CREATE TABLE r_1 AS SELECT * FROM r WHERE grp < 5;
CREATE TABLE r_2 AS SELECT * FROM r WHERE grp >= 5;
CREATE TABLE r_stale AS SELECT * FROM r;
ANALYZE;
});
# How a session preloads the library from $BLOOM_INST (BloomTest.pm): up to
# 17 Debian's extension_destdir applies to $libdir paths; from 18 on the
# library is found on dynamic_library_path.
my $library = $PG_MAJOR >= 18 ? 'bloomfilter' : '$libdir/bloomfilter';
$local->safe_psql(
	'postgres', q{
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SERVER remote FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host :'rhost', port :'rport', dbname 'postgres', extensions 'bloomfilter');
CREATE USER MAPPING FOR CURRENT_USER SERVER remote OPTIONS (user :'ruser');
CREATE SERVER remote_plain FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host :'rhost', port :'rport', dbname 'postgres');
CREATE USER MAPPING FOR CURRENT_USER SERVER remote_plain OPTIONS (user :'ruser');

CREATE COLLATION icu_det (provider = icu, locale = 'und');
CREATE COLLATION icu_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);

CREATE FOREIGN TABLE f (id int4, k8 int8, k4 int4, k2 int2, kn numeric, kt text,
		ktc text COLLATE "C", ku uuid, grp int4, payload text)
	SERVER remote OPTIONS (table_name 'r');
-- f's columns, for the runs of the randomized test (r_stale changes after
-- f_stale is analyzed, below)
CREATE FOREIGN TABLE f_unanalyzed (id int4, k8 int8, k4 int4, k2 int2, kn numeric, kt text,
		ktc text COLLATE "C", ku uuid, grp int4, payload text)
	SERVER remote OPTIONS (table_name 'r');
CREATE FOREIGN TABLE f_stale (id int4, k8 int8, k4 int4, k2 int2, kn numeric, kt text,
		ktc text COLLATE "C", ku uuid, grp int4, payload text)
	SERVER remote OPTIONS (table_name 'r_stale');
CREATE TABLE fpa (id int4, k8 int8, k4 int4, k2 int2, kn numeric, kt text,
		ktc text COLLATE "C", ku uuid, grp int4, payload text) PARTITION BY RANGE (grp);
CREATE FOREIGN TABLE fpa_1 PARTITION OF fpa FOR VALUES FROM (0) TO (5)
	SERVER remote OPTIONS (table_name 'r_1');
CREATE FOREIGN TABLE fpa_2 PARTITION OF fpa FOR VALUES FROM (5) TO (10)
	SERVER remote OPTIONS (table_name 'r_2');
CREATE FOREIGN TABLE f_plain (id int4, k8 int8) SERVER remote_plain OPTIONS (table_name 'r');
CREATE FOREIGN TABLE f_bpchar (id int4, kt bpchar) SERVER remote OPTIONS (table_name 'r');
CREATE TABLE fp (id int4, k8 int8, grp int4) PARTITION BY RANGE (grp);
CREATE FOREIGN TABLE fp_1 PARTITION OF fp FOR VALUES FROM (0) TO (5)
	SERVER remote OPTIONS (table_name 'shard_1');
CREATE FOREIGN TABLE fp_2 PARTITION OF fp FOR VALUES FROM (5) TO (10)
	SERVER remote OPTIONS (table_name 'shard_2');

-- Local: l (300 rows: multiples of 7, a few NULLs and misses), big (30,000).
CREATE TABLE l AS
	SELECT g AS id,
		CASE WHEN g % 25 = 0 THEN NULL ELSE g * 7 END::int4 AS k4,
		CASE WHEN g % 25 = 0 THEN NULL ELSE g * 7 END::int8 AS k8,
		(g * 7)::int2 AS k2,
		(g * 7)::numeric AS kn,
		CASE WHEN g % 30 = 0 THEN NULL ELSE 'key-' || (g * 7) END AS kt,
		('key-' || (g * 7))::varchar(20) AS kv,
		md5((g * 7)::text)::uuid AS ku,
		g % 4 AS grp
	FROM generate_series(1, 300) g;
CREATE TABLE big AS SELECT g AS id, g::int8 AS k8 FROM generate_series(1, 30000) g;
CREATE VIEW joined AS SELECT l.id AS lid, f.id AS fid, f.payload FROM l JOIN f ON f.k8 = l.k8;
ANALYZE l;
ANALYZE big;
ANALYZE f;
ANALYZE f_plain;
ANALYZE f_bpchar;
ANALYZE fp;
ANALYZE f_stale;
ANALYZE fpa_1;
-- The setting exists once the library is loaded: here, in every session.
ALTER DATABASE postgres SET session_preload_libraries = :'library';
},
	extra_params => [
		'-v', 'rhost=' . $remote->host,
		'-v', 'rport=' . $remote->port,
		'-v', 'ruser=' . $remote->safe_psql('postgres', 'SELECT current_user'),
		'-v', "library=$library"
	]);

# Stale statistics: f_stale was analyzed with r_stale's 20,000 rows; now
# three in four are gone, most keys of the rest moved, and 30,000 rows added
# with keys the statistics never saw.
$remote->safe_psql('postgres', q{
DELETE FROM r_stale WHERE id % 4 <> 0;
UPDATE r_stale SET k8 = k8 + 7, k4 = k4 + 1, kt = kt || 'x', ku = md5(ku::text)::uuid WHERE id % 8 <> 0;
INSERT INTO r_stale
	SELECT g, CASE WHEN g % 50 = 0 THEN NULL ELSE g END, CASE WHEN g % 50 = 0 THEN NULL ELSE g END,
		(g % 30000)::int2, g, 'key-' || (g % 3000), 'KEY-' || g, md5(g::text)::uuid, g % 10, md5('p' || g)
	FROM generate_series(20001, 50000) g;
});

# ---- 1. plans ----
# prefiltered(NAME, QUERY): the setting on adds a prefilter, off does not
sub prefiltered
{
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($name, $query) = @_;
	my $on  = explain_with('on',  $query);
	my $off = explain_with('off', $query);
	check_has("$name: bloom_contains in the Remote SQL",
		'public.bloom_contains(', join("\n", remote_sql_lines($on)));
	check_has("$name: the InitPlan is named",
		'bloom_auto_prefilter(bloom_agg(', $on);
	check_lacks("$name: nothing with the setting off", 'bloom_', $off);
	return;
}

# left_alone(NAME, QUERY): the plan is the same with the setting on and off
sub left_alone
{
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($name, $query) = @_;
	my $on  = explain_with('on',  $query);
	my $off = explain_with('off', $query);
	ok(defined $on && defined $off && $on eq $off,
		"$name: EXPLAIN identical on and off")
	  or diag("EXPLAIN differs:\n--- off\n"
		  . ($off // '(error)')
		  . "\n--- on\n"
		  . ($on // '(error)'));
	return;
}

prefiltered('inner join', 'SELECT f.id FROM l JOIN f ON f.k8 = l.k8');
prefiltered('implicit join, local quals',
	'SELECT f.id FROM l, f WHERE f.k8 = l.k8 AND l.grp = 1');
prefiltered('int4 = int8', 'SELECT f.id FROM l JOIN f ON f.k8 = l.k4');
prefiltered('numeric = int2', 'SELECT f.id FROM l JOIN f ON f.kn = l.k2');
prefiltered('varchar = text', 'SELECT f.id FROM l JOIN f ON f.kt = l.kv');
prefiltered('uuid', 'SELECT f.id FROM l JOIN f ON f.ku = l.ku');
prefiltered('text, ICU deterministic',
	'SELECT f.id FROM l JOIN f ON f.kt = l.kt COLLATE icu_det');
prefiltered('LEFT JOIN, foreign nullable',
	'SELECT l.id, f.id FROM l LEFT JOIN f ON f.k8 = l.k8');
prefiltered('RIGHT JOIN, foreign nullable',
	'SELECT l.id, f.id FROM f RIGHT JOIN l ON f.k8 = l.k8');
prefiltered('IN', 'SELECT id FROM f WHERE k8 IN (SELECT k8 FROM l WHERE grp = 2)');
prefiltered('= ANY', 'SELECT id FROM f WHERE k4 = ANY (SELECT k4 FROM l)');
prefiltered('EXISTS',
	'SELECT id FROM f WHERE EXISTS (SELECT 1 FROM l WHERE l.k8 = f.k8 AND l.grp = 3)');
prefiltered('foreign partitions', 'SELECT fp.id FROM l JOIN fp ON fp.k8 = l.k8');
prefiltered('a view', 'SELECT * FROM joined');
prefiltered('a subquery in FROM',
	'SELECT * FROM (SELECT f.id FROM l JOIN f ON f.k8 = l.k8) s');
check_lacks(
	'a view created with the setting on stores no prefilter',
	'bloom',
	local_sql(
		"SET bloomfilter.auto_prefilter = on;\n"
		  . "CREATE VIEW joined_on AS SELECT f.id FROM l JOIN f ON f.k8 = l.k8;\n"
		  . "SELECT pg_get_viewdef('joined_on')"));
my $on = explain_with('on', 'SELECT fp.id FROM l JOIN fp ON fp.k8 = l.k8');
is( scalar(grep { index($_, 'public.bloom_contains(') >= 0 }
		  remote_sql_lines($on)),
	2,
	q{foreign partitions: each partition's Remote SQL has the filter});
$on = explain_with('on',
	'SELECT f.id FROM l JOIN f ON f.k8 = l.k8 AND f.kt = l.kt');
is( scalar(map { /\Qpublic.bloom_contains(\E/g } remote_sql_lines($on)),
	2, 'composite key: a filter per column');

left_alone('anti-join, NOT EXISTS',
	'SELECT id FROM f WHERE NOT EXISTS (SELECT 1 FROM l WHERE l.k8 = f.k8)');
# GROUP BY () returns a row even when no row of l matches: EXISTS is true
# for every row of f, which a filter of l's keys would drop.
left_alone('EXISTS over GROUP BY ()',
	'SELECT id FROM f WHERE EXISTS (SELECT 1 FROM l WHERE l.k8 = f.k8 GROUP BY ())');
left_alone('anti-join, NOT IN',
	'SELECT id FROM f WHERE k8 NOT IN (SELECT k8 FROM l)');
left_alone('LEFT JOIN, foreign preserved',
	'SELECT f.id, l.id FROM f LEFT JOIN l ON f.k8 = l.k8');
left_alone('FULL JOIN', 'SELECT f.id, l.id FROM f FULL JOIN l ON f.k8 = l.k8');
left_alone('nondeterministic collation',
	'SELECT f.id FROM l JOIN f ON f.kt = l.kt COLLATE icu_ci');
left_alone('foreign side an expression',
	'SELECT f.id FROM l JOIN f ON lower(f.kt) = l.kt');
left_alone('float8 = int8 (different hashing)',
	'SELECT f.id FROM l JOIN f ON f.k8::float8 = l.k8::float8');
# varchar = bpchar compares as bpchar, trailing spaces ignored ('ab ' = 'ab'),
# but a filter of varchar values hashes them with their spaces.
left_alone('varchar = bpchar (bpchar ignores trailing spaces)',
	'SELECT f_bpchar.id FROM l JOIN f_bpchar ON f_bpchar.kt = l.kv');
left_alone('big local side', 'SELECT f.id FROM big JOIN f ON f.k8 = big.k8');
left_alone('server without the option',
	'SELECT f_plain.id FROM l JOIN f_plain ON f_plain.k8 = l.k8');
left_alone('volatile local key',
	'SELECT f.id FROM l JOIN f ON f.k8 = l.k8 + (random() * 0)::int');
left_alone('no foreign table', 'SELECT l.id FROM l JOIN big ON big.k8 = l.k8');
left_alone('OR of joins',
	'SELECT f.id FROM l, f WHERE f.k8 = l.k8 OR f.k4 = l.k4');
# A foreign table nobody analyzed: l's 300 keys are few enough for the rule
# of bloomfilter.auto_prefilter_unanalyzed_max_keys, big's 30,000 are not.
prefiltered('never analyzed: inner join',
	'SELECT f.id FROM l JOIN f_unanalyzed f ON f.k8 = l.k8');
prefiltered('never analyzed: IN',
	'SELECT id FROM f_unanalyzed f WHERE k8 IN (SELECT k8 FROM l)');
prefiltered('never analyzed: EXISTS',
	'SELECT id FROM f_unanalyzed f WHERE EXISTS (SELECT 1 FROM l WHERE l.k8 = f.k8)');
prefiltered('never analyzed: LEFT JOIN, foreign nullable',
	'SELECT l.id, f.id FROM l LEFT JOIN f_unanalyzed f ON f.k8 = l.k8');
prefiltered('never analyzed: text keys',
	'SELECT f.id FROM l JOIN f_unanalyzed f ON f.kt = l.kt');
prefiltered('never analyzed: uuid keys',
	'SELECT f.id FROM l JOIN f_unanalyzed f ON f.ku = l.ku');
prefiltered('foreign partitions, one never analyzed',
	'SELECT f.id FROM l JOIN fpa f ON f.k8 = l.k8');
left_alone('never analyzed, big local side',
	'SELECT f.id FROM big JOIN f_unanalyzed f ON f.k8 = big.k8');

# debug1_of(QUERY, [SETTINGS]): the DEBUG1 and HINT lines of EXPLAIN QUERY
# with the setting on (and SETTINGS, SQL run before)
sub debug1_of
{
	my ($query, $settings) = @_;
	my ($ret, $stdout, $stderr) = $local->psql('postgres',
		"SET bloomfilter.auto_prefilter = on;\n"
		  . ($settings // '')
		  . "SET client_min_messages = debug1;\n"
		  . "EXPLAIN (COSTS OFF) $query");
	return join("\n", grep { /DEBUG|HINT/ } split /\n/, $stderr);
}
check_has(
	'DEBUG1 says why not: never analyzed, too many local keys',
	'no automatic prefilter for foreign table "f_unanalyzed": it has no statistics and 30000 local keys estimated are more than bloomfilter.auto_prefilter_unanalyzed_max_keys (10000)',
	debug1_of('SELECT f.id FROM big JOIN f_unanalyzed f ON f.k8 = big.k8'));
check_has(
	'DEBUG1 says why not: too few remote rows',
	'no automatic prefilter for foreign table "f": 20000 rows estimated, fewer than bloomfilter.auto_prefilter_min_ratio (10) times the 30000 local keys estimated',
	debug1_of('SELECT f.id FROM big JOIN f ON f.k8 = big.k8'));
check_has(
	'DEBUG1 says why not: too many local keys',
	'no automatic prefilter for foreign table "f": 30000 local keys estimated, more than bloomfilter.auto_prefilter_max_keys (1000)',
	debug1_of('SELECT f.id FROM big JOIN f ON f.k8 = big.k8',
		'SET bloomfilter.auto_prefilter_max_keys = 1000;'));
check_has(
	'DEBUG1 says why not: the server does not ship the filter',
	'no automatic prefilter for foreign table "f_plain": its server does not list bloomfilter in its extensions option',
	debug1_of('SELECT f_plain.id FROM l JOIN f_plain ON f_plain.k8 = l.k8'));
check_lacks('no DEBUG1 line when the prefilter is added',
	'no automatic prefilter',
	debug1_of('SELECT f.id FROM l JOIN f_unanalyzed f ON f.k8 = l.k8'));

left_alone('LIMIT in IN',
	'SELECT id FROM f WHERE k8 IN (SELECT k8 FROM l LIMIT 5)');
left_alone('correlated IN',
	'SELECT id FROM f WHERE k8 IN (SELECT k8 FROM l WHERE l.grp = f.grp)');

# ---- 2. the randomized differential test ----
# The same queries against each foreign table, in a session each, all at once.
my @tables = qw(f f_unanalyzed f_stale fpa);
diag("randomized differential test: seed $seed "
	  . "(AUTO_PREFILTER_SEED=$seed reproduces it), $queries queries "
	  . "against each of @tables");
local_sql(slurp_file(bloom_root() . '/t/auto_prefilter.sql'));
my %runs;
foreach my $table (@tables)
{
	my ($stdout, $stderr) = ('', '');
	my $run = IPC::Run::start(
		[
			'psql', '-X', '-A', '-t', '-d', $local->connstr('postgres'),
			'-c', "SELECT apf_run($seed, $queries, '$table')"
		],
		'>', \$stdout, '2>', \$stderr);
	$runs{$table} = [ $run, \$stdout, \$stderr ];
}
# A line now and then while the runs go on: prove -j waits on a test that
# is silent for minutes, and a test beside it that ends meanwhile is not
# seen to end (its slot stays idle) until this one prints again.
my $next_note = time + 10;
while (grep { $_->[0]->pumpable } values %runs)
{
	$_->[0]->pump_nb for grep { $_->[0]->pumpable } values %runs;
	if (time >= $next_note)
	{
		note('randomized runs still going: '
			  . join(' ', grep { $runs{$_}[0]->pumpable } @tables));
		$next_note = time + 10;
	}
	select(undef, undef, undef, 0.2);
}
foreach my $table (@tables)
{
	my ($run, $stdout, $stderr) = @{ $runs{$table} };
	$run->finish;
	check_lines($$stdout);
	diag("$table: $$stderr") if length $$stderr;
	is(scalar(grep { /^CHECK / } split /\n/, $$stdout),
		$queries + 2, "$table: the run checked every query");
}

bloom_done();
