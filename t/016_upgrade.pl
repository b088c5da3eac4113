# Upgrades: CREATE EXTENSION bloomfilter VERSION '1.0' (or '1.1'), then
# ALTER EXTENSION bloomfilter UPDATE to the default version, must give what a
# fresh install of the default version gives.
#
# - A filter stored under 1.0 reads back the same after the update.
# - Every earlier version updates to the default version, by the scripts in
#   order (1.0 -> 1.1 -> 1.2 -> 1.3 -> 1.4).
# - The extension updated from 1.0, and the one updated from 1.1, have the
#   objects of a fresh install: every member with its definition (signature,
#   result, volatility, strictness, parallel safety, support function, C
#   symbol, operator and type properties, aggregate support functions,
#   operator class members), its dependencies and its comment.
# - The whole pg_regress suite (every sql/*.sql but bloomfilter--*, setup first) passes
#   against the database updated from 1.0.
# - bloomfilter.so exports every C function that an install or update
#   script names (pg_upgrade --check loads them all; the released versions
#   1.0, 1.1 and 1.2 keep functions that 1.3 dropped).
# - Stored rollups survive the upgrade: a daily filter that the 1.0 library
#   built with bloom_agg(x, 0.01, 10000000) (scheme 1, the classic m and k),
#   and the next day's, built after the update with bloom_agg_like in its
#   shape, union, and the union holds every value of both days.  The 1.0
#   library is built from this repository's history (the commit before the
#   1.0 -> 1.1 script was added) when it can be; otherwise the 1.0 filter is
#   built as 1.0 built it, with explicit m and k, by today's library.
use strict;
use warnings;
use BloomTest;
use File::Basename;
use File::Path qw(make_path);
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;

my $root = bloom_root();
my $work = PostgreSQL::Test::Utils::tempdir;
my $node = bloom_node('upgrade');

my $control =
	($ENV{BLOOM_INST} // '')
  . $node->config_data('--sharedir')
  . '/extension/bloomfilter.control';
my ($default_version) =
  slurp_file($control) =~ /^default_version[[:space:]]*=[[:space:]]*'([^']*)'/m
  or die "no default_version in $control";
note("default version: $default_version");

# ---- The C symbols of every version's SQL ----
#
# pg_upgrade --check LOADs, in the new cluster, the library of every C
# function of the old one, and a database left at 1.0, 1.1 or 1.2 keeps the
# functions of that version (1.3 drops some of them, not their symbols):
# every symbol that an install or update script names must stay exported by
# bloomfilter.so, with the pg_finfo_ function that PG_FUNCTION_INFO_V1 adds.
# One test per script; the released versions' scripts are 1.0, 1.0--1.1 and
# 1.1--1.2.
my $library =
	($ENV{BLOOM_INST} // '')
  . $node->config_data('--pkglibdir')
  . '/bloomfilter.so';
my ($nm_out, $nm_err) = ('', '');
my $nm_ran = eval {
	IPC::Run::run([ 'nm', '-D', '--defined-only', $library ],
		'>', \$nm_out, '2>', \$nm_err);
};
chomp(my $nm_failed = $nm_ran ? '' : $@ || $nm_err);
if ($nm_failed =~ /Command 'nm' not found/)
{
	# (not counted: a check that cannot run passes nothing)
	diag("SKIPPED: the C symbols of the install and update scripts: no nm (binutils) here");
}
elsif (!$nm_ran)
{
	fail("nm -D --defined-only $library");
	diag($nm_failed);
}
else
{
	my %exported = map { (split ' ')[2] => 1 } grep { /^\S+ T \S+$/ } split /\n/, $nm_out;
	note(scalar(keys %exported) . " functions exported by $library");
	foreach my $script (sort glob("$root/sql/bloomfilter--*.sql"))
	{
		my %named = map { $_ => 1 }
		  slurp_file($script) =~ /AS\s+'MODULE_PATHNAME',\s*'(\w+)'/g;
		my @missing = grep { !$exported{$_} || !$exported{"pg_finfo_$_"} } sort keys %named;
		my $n = keys %named;
		ok($n > 0 && !@missing,
			'bloomfilter.so exports every C function (and its pg_finfo_) that '
			  . basename($script) . " names ($n)")
		  or diag("not exported: @missing");
	}
}

# What psql printed on its standard output, as "$(psql ...) || true" keeps
# it: the output up to an error (which goes to the log).
sub output_of
{
	my ($db, $sql, @params) = @_;
	my ($out, $err);
	my $ret = $node->psql($db, $sql, stdout => \$out, stderr => \$err, @params);
	if ($ret != 0)
	{
		diag("psql exited with $ret:\n$err");
	}
	elsif ($err ne '')
	{
		note($err);
	}
	return $out;
}

# What psql printed on either stream, as "$(psql ... 2>&1)" keeps it.
sub all_output_of
{
	my ($db, $sql, @params) = @_;
	my ($out, $err);
	$node->psql($db, $sql, stdout => \$out, stderr => \$err, @params);
	return join("\n", grep { $_ ne '' } $out, $err);
}

sub write_file
{
	my ($path, $contents) = @_;
	open my $fh, '>', $path or die "could not write $path: $!";
	print $fh $contents;
	close $fh or die "could not write $path: $!";
	return;
}

# The settings pg_regress gives a database it creates itself.
foreach my $db (qw(fresh upgraded from11))
{
	$node->safe_psql('postgres', "CREATE DATABASE $db TEMPLATE template0");
	$node->safe_psql($db, qq{
ALTER DATABASE $db SET lc_messages TO 'C';
ALTER DATABASE $db SET lc_monetary TO 'C';
ALTER DATABASE $db SET lc_numeric TO 'C';
ALTER DATABASE $db SET lc_time TO 'C';
ALTER DATABASE $db SET bytea_output TO 'hex';
ALTER DATABASE $db SET timezone_abbreviations TO 'Default';
});
}

$node->safe_psql('fresh', 'CREATE EXTENSION bloomfilter');
my $got = output_of('upgraded', q{
CREATE EXTENSION bloomfilter VERSION '1.0';
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
CREATE TABLE kept AS
SELECT bloom_agg(i, 0.01, 1000) AS f, bloom_agg(i, 0.01, 1000)::text AS t
FROM generate_series(1, 1000) AS i;
ALTER EXTENSION bloomfilter UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
SELECT f::text = t, t::bloom = f, bloom_contains(f, 1000), bloom_contains(f, 1000::numeric)
FROM kept;
DROP TABLE kept;
});
is($got, "1.0\n$default_version\nt|t|t|t",
	"1.0 installs, updates to $default_version, and a filter stored under 1.0 reads back the same"
);

$got = output_of('from11', q{
CREATE EXTENSION bloomfilter VERSION '1.1';
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
ALTER EXTENSION bloomfilter UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
});
is($got, "1.1\n$default_version", "1.1 installs and updates to $default_version");

$got = output_of('fresh',
	"SELECT source || ': ' || path FROM pg_extension_update_paths('bloomfilter')
	WHERE target = '$default_version' AND path IS NOT NULL ORDER BY source");
is( $got,
	"1.0: 1.0--1.1--1.2--1.3--1.4\n1.1: 1.1--1.2--1.3--1.4\n1.2: 1.2--1.3--1.4\n1.3: 1.3--1.4",
	"every earlier version updates to $default_version through each script in turn");

# One line per member, and per dependency and comment of a member: a
# description that names every property an install script sets.
my $describe_members = q{
WITH members AS (
	SELECT d.classid, d.objid
	FROM pg_depend d JOIN pg_extension e ON d.refobjid = e.oid
	WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
		AND e.extname = 'bloomfilter'
)
SELECT pg_describe_object(m.classid, m.objid, 0) || ' :: ' || coalesce(
	(SELECT format('kind=%s result=%s args=(%s) lang=%s volatile=%s strict=%s parallel=%s leakproof=%s secdef=%s cost=%s rows=%s support=%s src=%s bin=%s variadic=%s config=%s',
		p.prokind, pg_get_function_result(p.oid), pg_get_function_arguments(p.oid),
		l.lanname, p.provolatile, p.proisstrict, p.proparallel, p.proleakproof,
		p.prosecdef, p.procost, p.prorows, p.prosupport::regprocedure, p.prosrc, p.probin,
		p.provariadic::regtype, p.proconfig)
	 FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
	 WHERE m.classid = 'pg_proc'::regclass AND p.oid = m.objid),
	(SELECT format('left=%s right=%s result=%s code=%s commutator=%s negator=%s restrict=%s join=%s hashes=%s merges=%s',
		o.oprleft::regtype, o.oprright::regtype, o.oprresult::regtype,
		o.oprcode::regprocedure, o.oprcom::regoperator, o.oprnegate::regoperator,
		o.oprrest::regprocedure, o.oprjoin::regprocedure, o.oprcanhash, o.oprcanmerge)
	 FROM pg_operator o WHERE m.classid = 'pg_operator'::regclass AND o.oid = m.objid),
	(SELECT format('type=%s len=%s byval=%s category=%s input=%s output=%s receive=%s send=%s typmodin=%s typmodout=%s analyze=%s subscript=%s align=%s storage=%s array=%s elem=%s collation=%s default=%s',
		t.typtype, t.typlen, t.typbyval, t.typcategory, t.typinput::regprocedure,
		t.typoutput::regprocedure, t.typreceive::regprocedure, t.typsend::regprocedure,
		t.typmodin::regprocedure, t.typmodout::regprocedure, t.typanalyze::regprocedure,
		t.typsubscript::regprocedure, t.typalign, t.typstorage, t.typarray::regtype,
		t.typelem::regtype, t.typcollation, t.typdefault)
	 FROM pg_type t WHERE m.classid = 'pg_type'::regclass AND t.oid = m.objid),
	(SELECT format('opclass method=%s default=%s input=%s family=%s',
		am.amname, c.opcdefault, c.opcintype::regtype,
		pg_describe_object('pg_opfamily'::regclass, c.opcfamily, 0))
	 FROM pg_opclass c JOIN pg_am am ON am.oid = c.opcmethod
	 WHERE m.classid = 'pg_opclass'::regclass AND c.oid = m.objid),
	(SELECT 'cast ' || format('source=%s target=%s func=%s context=%s method=%s',
		c.castsource::regtype, c.casttarget::regtype, c.castfunc::regprocedure,
		c.castcontext, c.castmethod)
	 FROM pg_cast c WHERE m.classid = 'pg_cast'::regclass AND c.oid = m.objid),
	'') AS line
FROM members m
UNION ALL
SELECT 'aggregate ' || a.aggfnoid::regprocedure || format(' :: transfn=%s finalfn=%s combinefn=%s serialfn=%s deserialfn=%s mtransfn=%s finalextra=%s finalmodify=%s sortop=%s stype=%s sspace=%s initval=%s parallel=%s',
		a.aggtransfn::regprocedure, a.aggfinalfn::regprocedure,
		a.aggcombinefn::regprocedure, a.aggserialfn::regprocedure,
		a.aggdeserialfn::regprocedure, a.aggmtransfn::regprocedure,
		a.aggfinalextra, a.aggfinalmodify, a.aggsortop::regoperator,
		a.aggtranstype::regtype, a.aggtransspace, a.agginitval, p.proparallel)
FROM members m JOIN pg_aggregate a ON m.classid = 'pg_proc'::regclass AND a.aggfnoid = m.objid
JOIN pg_proc p ON p.oid = a.aggfnoid
UNION ALL
SELECT pg_describe_object(m.classid, m.objid, 0) || ' depends (' || d.deptype::text || ') on '
	|| pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid)
FROM members m JOIN pg_depend d ON d.classid = m.classid AND d.objid = m.objid
WHERE d.deptype <> 'e'
UNION ALL
SELECT pg_describe_object(m.classid, m.objid, 0) || ' comment: ' || coalesce(
	(SELECT description FROM pg_description c
	 WHERE c.classoid = m.classid AND c.objoid = m.objid AND c.objsubid = 0), '(none)')
FROM members m
UNION ALL
SELECT 'access method member: ' || pg_describe_object('pg_amop'::regclass, ao.oid, 0)
FROM members m JOIN pg_amop ao ON m.classid = 'pg_opfamily'::regclass AND ao.amopfamily = m.objid
UNION ALL
SELECT 'access method member: ' || pg_describe_object('pg_amproc'::regclass, ap.oid, 0)
FROM members m JOIN pg_amproc ap ON m.classid = 'pg_opfamily'::regclass AND ap.amprocfamily = m.objid
UNION ALL
SELECT 'extension: relocatable=' || extrelocatable || ' version=' || extversion
	|| ' schema=' || extnamespace::regnamespace
FROM pg_extension WHERE extname = 'bloomfilter'
ORDER BY 1;
};

my $fresh = $node->safe_psql('fresh', $describe_members) . "\n";
write_file("$work/fresh.txt", $fresh);
# (lines, as grep -c counts them)
my $members = grep { / :: / } split /\n/, $fresh;
my $lines   = () = $fresh =~ /\n/g;
note("fresh install: $members members, $lines description lines");
foreach my $db (qw(upgraded from11))
{
	my $described = $node->safe_psql($db, $describe_members) . "\n";
	write_file("$work/$db.txt", $described);
	ok($members > 40 && $described eq $fresh,
		"the extension updated in database $db has the objects of a fresh install of $default_version"
	  )
	  or diag("it differs from a fresh install of $default_version ($members members):\n"
		  . diff_of("$work/fresh.txt", "$work/$db.txt"));
}

# The pg_regress suite, as "make installcheck" runs it (setup, which defines
# the helpers the others use, then the rest), on the upgraded database: one
# check per test.
my @tests = (
	'setup',
	sort grep { $_ ne 'setup' && !/^bloomfilter--/ }
	  map { basename($_, '.sql') } glob("$root/sql/*.sql"));
my $regress_log = '';
IPC::Run::run(
	[
		$ENV{PG_REGRESS},
		"--inputdir=$root",
		"--outputdir=$work",
		'--bindir=' . $node->config_data('--bindir'),
		'--host=' . $node->host,
		'--port=' . $node->port,
		'--use-existing',
		'--dbname=upgraded',
		@tests
	],
	'>&', \$regress_log);
my $regress_status = shell_status($?);
note($regress_log);
# A test's line: "test NAME ... ok" up to 15, "ok N - NAME" (TAP) from 16.
my %regress_result;
foreach my $line (split /\n/, $regress_log)
{
	if ($line =~ /^test ([a-z_0-9]+) +\.\.\. (ok|FAILED)/
		|| $line =~ /^ *([a-z_0-9]+) +\.\.\. (ok|FAILED)/)
	{
		$regress_result{$1} = $2 eq 'ok' ? 'ok' : 'failed';
	}
	elsif ($line =~ /^(ok|not ok) +\d+ +[-+] +([a-z_0-9]+)/)
	{
		$regress_result{$2} = $1 eq 'ok' ? 'ok' : 'failed';
	}
}
my $regress_failed = 0;
foreach my $test (@tests)
{
	my $result = $regress_result{$test} // 'not run';
	$regress_failed++ if $result ne 'ok';
	is($result, 'ok', "pg_regress on the upgraded database: $test");
}
my $ntests = @tests;
if ($regress_failed == 0
	&& ($regress_status != 0 || $regress_log !~ /All $ntests tests passed/))
{
	fail("pg_regress on the upgraded database (exit $regress_status)");
}
if ($regress_failed && -s "$work/regression.diffs")
{
	my @diffs = split /\n/, slurp_file("$work/regression.diffs");
	$#diffs = 199 if @diffs > 200;
	diag(join("\n", @diffs));
}

# ---- Users' objects across the update ----
#
# 1.3 replaces bloom_union_agg and bloom_intersection_agg (their transition
# state becomes a value, so that Citus can split them) and adds overloads of
# bloom_agg; 1.4 adds bloom_setup_check and a check of the set-up.  A
# database owner who is not a superuser (the extension is trusted) installs
# 1.0, 1.1, 1.2 or 1.3, builds views, a materialized view and SQL functions
# on the aggregates of that version, and updates without
# CASCADE: the update must succeed, every object answer bit for bit as
# before (for the set operations, the old internal-state path before and
# the new one after), REFRESH give the same, and pg_dump / pg_restore of
# the database keep it all.
$node->safe_psql('postgres', 'CREATE ROLE app_owner LOGIN');
my @as_owner = (extra_params => [ '-U', 'app_owner' ]);

sub objects_sql
{
	my ($version) = @_;
	my $sql = q{
CREATE TABLE ev AS SELECT x, x % 5 AS g, 'k' || x AS t FROM generate_series(1, 20000) AS x;
CREATE TABLE fs AS SELECT g, bloom_agg(x, 0.01, 10000) AS f FROM ev GROUP BY g;
CREATE VIEW v_fixed AS SELECT g, bloom_agg(x, 0.01, 10000) AS f FROM ev GROUP BY g;
CREATE VIEW v_fixed_text AS SELECT 0 AS g, bloom_agg(t, 0.001, 3000000) AS f FROM ev;
CREATE VIEW v_union AS SELECT 0 AS g, bloom_union_agg(f) AS f FROM fs;
CREATE VIEW v_intersection AS SELECT 0 AS g, bloom_intersection_agg(f) AS f FROM fs;
CREATE VIEW v_window AS
	SELECT x AS g, bloom_agg(x, 0.01, 100) OVER (ORDER BY x) AS f FROM ev WHERE x <= 20;
CREATE MATERIALIZED VIEW mv_fixed AS SELECT g, bloom_agg(x, 0.01, 10000) AS f FROM ev GROUP BY g;
CREATE FUNCTION fn_fixed(lo int) RETURNS bloom LANGUAGE sql STABLE
	BEGIN ATOMIC SELECT bloom_agg(x, 0.01, 10000) FROM ev WHERE x >= lo; END;
CREATE FUNCTION fn_union() RETURNS bloom LANGUAGE sql STABLE
	RETURN (SELECT bloom_union_agg(f) FROM fs);
CREATE VIEW v_fn AS SELECT 0 AS g, fn_fixed(100) AS f UNION ALL SELECT 1, fn_union();
};
	$sql .= q{
CREATE VIEW v_auto AS SELECT g, bloom_agg(x) AS f FROM ev GROUP BY g;
CREATE VIEW v_auto_rate AS SELECT 0 AS g, bloom_agg(t, 0.02) AS f FROM ev;
CREATE MATERIALIZED VIEW mv_auto AS SELECT g, bloom_agg(x, 0.05) AS f FROM ev GROUP BY g;
CREATE FUNCTION fn_auto() RETURNS bloom LANGUAGE sql STABLE
	BEGIN ATOMIC SELECT bloom_agg(x) FROM ev; END;
CREATE VIEW v_fn_auto AS SELECT 0 AS g, fn_auto() AS f;
} if $version ne '1.0';
	$sql .= q{
CREATE VIEW v_like AS SELECT 0 AS g, bloom_agg_like(x, (SELECT f FROM fs WHERE g = 0)) AS f FROM ev;
} if $version ne '1.0' && $version ne '1.1';
	$sql .= q{
CREATE VIEW v_hashed AS SELECT g, bloom_agg(bloom_value(x), 0.01, 10000) AS f FROM ev GROUP BY g;
CREATE VIEW v_hashed_empty AS SELECT 0 AS g, bloom_agg(bloom_value(x), 0.01, 1000) AS f FROM ev WHERE x < 0;
CREATE MATERIALIZED VIEW mv_hashed_auto AS SELECT 0 AS g, bloom_agg(bloom_value(t)) AS f FROM ev;
CREATE FUNCTION fn_shaped() RETURNS bloom LANGUAGE sql STABLE
	BEGIN ATOMIC SELECT bloom_agg_shaped(bloom_value(x), (SELECT bloom_shape(f) FROM fs WHERE g = 0)) FROM ev; END;
CREATE VIEW v_fn_shaped AS SELECT 0 AS g, fn_shaped() AS f;
} if $version eq '1.3';
	return $sql;
}

# One line per view and materialized view of database DB: its name and the
# md5 of its filters' text forms, in the order of g.
sub snapshot
{
	my ($db) = @_;
	my @lines;
	foreach my $rel (
		split /\n/,
		$node->safe_psql(
			$db, "SELECT relname FROM pg_class
		WHERE relnamespace = 'public'::regnamespace AND relkind IN ('v', 'm') ORDER BY 1",
			@as_owner))
	{
		push @lines,
		  "$rel "
		  . all_output_of($db,
			"SELECT md5(string_agg(f::text, ',' ORDER BY g)) FROM $rel", @as_owner);
	}
	return join("\n", @lines);
}

my %expected_objects = ('1.0' => 7, '1.1' => 11, '1.2' => 12, '1.3' => 16);
foreach my $version ('1.0', '1.1', '1.2', '1.3')
{
	(my $db = "objects_$version") =~ s/\./_/;
	$node->safe_psql('postgres', "CREATE DATABASE $db OWNER app_owner TEMPLATE template0");
	$node->safe_psql($db, 'ALTER SCHEMA public OWNER TO app_owner');
	my $created = all_output_of(
		$db, qq{
SELECT rolsuper FROM pg_roles WHERE rolname = current_user;
CREATE EXTENSION bloomfilter VERSION '$version';
} . objects_sql($version), @as_owner);
	is($created, 'f',
		"a database owner who is not a superuser creates the extension at $version and objects on its aggregates"
	);
	my $before   = snapshot($db);
	my $nobjects = () = $before =~ /^[a-z_]+ [0-9a-f]{32}$/mg;
	note("${version}'s objects before the update:\n$before");
	is($nobjects, $expected_objects{$version},
		"$version: every view and materialized view answers");
	my ($update_out, $update_err);
	my $updated =
	  $node->psql(
		$db, 'ALTER EXTENSION bloomfilter UPDATE',
		stdout => \$update_out,
		stderr => \$update_err,
		@as_owner) == 0
	  ? 'ok'
	  : join("\n", grep { $_ ne '' } $update_out, $update_err);
	is($updated, 'ok', "the owner updates the extension from $version without CASCADE");
	is(snapshot($db), $before,
		"the $nobjects views and materialized views on ${version}'s aggregates answer the same after ALTER EXTENSION UPDATE"
	);
	# (both streams: the REFRESH, last, prints nothing but its error)
	$got = all_output_of(
		$db, q{
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
SELECT string_agg(a.aggfnoid::regprocedure || ' ' || a.aggtranstype::regtype, ', '
	ORDER BY a.aggfnoid::regprocedure::text)
FROM pg_aggregate AS a
WHERE a.aggfnoid IN ('bloom_union_agg(bloom)'::regprocedure, 'bloom_intersection_agg(bloom)'::regprocedure);
REFRESH MATERIALIZED VIEW mv_fixed;
}, @as_owner);
	is( $got,
		"$default_version\nbloom_intersection_agg(bloom) bloom, bloom_union_agg(bloom) bloom",
		"the database updated from $version is at $default_version, bloom_union_agg and bloom_intersection_agg (which its views use) have states of type bloom, and REFRESH works"
	);
	is(snapshot($db), $before,
		"after REFRESH MATERIALIZED VIEW the objects from $version answer the same");
	run_log(
		[
			'pg_dump', '-h', $node->host, '-p', $node->port,
			'-Fc',     '-f', "$work/$db.dump", $db
		])
	  or die "pg_dump of $db failed";
	$node->safe_psql('postgres',
		"CREATE DATABASE ${db}_restored OWNER app_owner TEMPLATE template0");
	my $restore_log = '';
	my $restored =
	  IPC::Run::run(
		[
			'pg_restore', '-h', $node->host, '-p', $node->port,
			'-d', "${db}_restored", '--exit-on-error', "$work/$db.dump"
		],
		'>&', \$restore_log) ? 'ok' : "failed: $restore_log";
	is($restored, 'ok',
		"pg_dump / pg_restore of the database updated from $version succeeds");
	is(snapshot("${db}_restored"), $before,
		"after pg_restore the objects from $version answer the same");
}

# ---- Stored rollups across the upgrade ----
#
# Day 1 (visitors 1..100000) is built by the 1.0 library with
# bloom_agg(x, 0.01, 10000000), as is the filter 1.0 would give both days
# (visitors 1..150000).  Then the library is replaced by this one and the
# extension updated: the same call now gives a blocked filter (scheme 2),
# which does not combine with day 1; bloom_agg_like(x, day 1) gives day 2
# (visitors 50001..150000) in day 1's shape, and the rollup is the filter 1.0
# would have built.
$node->safe_psql('postgres', 'CREATE DATABASE rollup TEMPLATE template0');

# The 1.0 library: the parent of the commit that added the 1.0 -> 1.1 script.
my $old_inst = '';
my $old_why  = '';
my @git      = ('git', '-c', 'safe.directory=*', '-C', $root);
my ($git_out, $git_err) = ('', '');
# (git missing, or failing, leads to the fallback, as does the commit missing)
my $logged = eval {
	IPC::Run::run(
		[
			@git, 'log', '--diff-filter=A', '--format=%H', '--',
			'sql/bloomfilter--1.0--1.1.sql'
		],
		'>', \$git_out, '2>', \$git_err);
};
chomp(my $git_failed = $logged ? '' : $@ || $git_err);
# (IPC::Run's "Command 'git' not found in" names every directory of PATH)
$git_failed =~ s/ not found in .*/ not found/s;
my @added = $logged ? split(/\n/, $git_out) : ();
my $added = @added ? $added[-1] : '';
if ($added eq ''
	|| !eval { IPC::Run::run([ @git, 'cat-file', '-e', "$added^" ], '2>', \$git_err) })
{
	$old_why = "the repository's history is not here";
	$old_why .= " (git: $git_failed)" if $git_failed ne '';
}
else
{
	make_path("$work/old/src", "$work/old/build");
	# The build is make's own, not the one of the make that runs this test.
	local %ENV = %ENV;
	delete @ENV{qw(MAKEFLAGS MAKELEVEL MFLAGS MAKEOVERRIDES)};
	my @mk_old = (
		'make', '-C', "$work/old/build", '-f', "$work/old/src/Makefile",
		"VPATH=$work/old/src",
		'PG_CONFIG=' . $node->config_data('--bindir') . '/pg_config');
	my ($build_log, $install_log) = ('', '');
	my $built = eval {
		IPC::Run::run([ @git, 'archive', "$added^" ],
			'|', [ 'tar', '-x', '-C', "$work/old/src" ])
		  && IPC::Run::run([ @mk_old, '-j2' ], '>&', \$build_log)
		  && IPC::Run::run([ @mk_old, 'install', "DESTDIR=$work/old/inst" ],
			'>&', \$install_log);
	};
	$build_log .= $install_log . ($@ // '');
	if ($built)
	{
		$old_inst = "$work/old/inst";
		my $commit = '';
		IPC::Run::run([ @git, 'rev-parse', '--short', "$added^" ], '>', \$commit);
		chomp $commit;
		note("1.0 library: built from commit $commit");
	}
	else
	{
		my @tail = split /\n/, $build_log;
		splice(@tail, 0, @tail - 20) if @tail > 20;
		note(join("\n", @tail));
		$old_why = 'the 1.0 sources of commit '
		  . substr($added, 0, 7)
		  . '^ do not build here';
	}
}

my $day1_sql = q{
CREATE EXTENSION bloomfilter VERSION '1.0';
CREATE TABLE daily (day date PRIMARY KEY, f bloom NOT NULL);
CREATE TABLE expected (f bloom NOT NULL);
};
my $how;
if ($old_inst ne '')
{
	# The server loads the 1.0 library for day 1, then this one again.
	my $conf_file = $node->data_dir . '/postgresql.conf';
	my $conf      = slurp_file($conf_file);
	$node->append_conf('postgresql.conf',
		join("\n", BloomTest::load_from_conf($old_inst)));
	$node->restart;
	$got = output_of('rollup', $day1_sql . q{
INSERT INTO daily SELECT '2026-01-01', bloom_agg(i, 0.01, 10000000) FROM generate_series(1, 100000) AS i;
INSERT INTO expected SELECT bloom_agg(i, 0.01, 10000000) FROM generate_series(1, 150000) AS i;
SELECT extversion, (bloom_info(f)).m, (bloom_info(f)).k, substr(f::text, 1, 12)
FROM daily, pg_extension WHERE extname = 'bloomfilter';
});
	write_file($conf_file, $conf);
	$node->restart;
	$how = 'the 1.0 library';
}
else
{
	note("$old_why; day 1 is built as 1.0 built it (explicit m and k) by today's library");
	$got = output_of('rollup', $day1_sql . q{
CREATE FUNCTION added(f bloom, lo int, hi int) RETURNS bloom LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN lo..hi LOOP
		f := bloom_add(f, i);
	END LOOP;
	RETURN f;
END
$$;
INSERT INTO daily SELECT '2026-01-01', added(bloom_empty_mk(95850584, 7), 1, 300);
INSERT INTO expected SELECT added(bloom_empty_mk(95850584, 7), 1, 450);
SELECT extversion, (bloom_info(f)).m, (bloom_info(f)).k, substr(f::text, 1, 12)
FROM daily, pg_extension WHERE extname = 'bloomfilter';
});
	$how = "today's library with explicit m and k";
}
is($got, '1.0|95850584|7|bloom:v1:h1:',
	"1.0's daily filter of bloom_agg(x, 0.01, 10000000), built by $how, is scheme 1 with the classic m and k"
);
# the fallback's days are smaller: 1..300 and 151..450
my ($last, $overlap) = $old_inst ne '' ? (150000, 50001) : (450, 151);

$got = output_of('rollup', qq{
ALTER EXTENSION bloomfilter UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
-- the same call now builds a blocked filter, which does not combine with day 1
CREATE TABLE plain AS SELECT bloom_agg(i, 0.01, 10000000) AS f FROM generate_series($overlap, $last) AS i;
SELECT (bloom_info(f)).m, (bloom_info(f)).k, substr(f::text, 1, 12) FROM plain;
CREATE FUNCTION sqlstate_of(query text) RETURNS text LANGUAGE plpgsql AS \$\$
BEGIN
	EXECUTE query;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END
\$\$;
SELECT sqlstate_of('SELECT (SELECT f FROM daily) | (SELECT f FROM plain)');
});
is( $got,
	"$default_version\n98959360|6|bloom:v1:h2:\n22023",
	'after the update the same call builds a blocked filter, which does not combine with day 1');

$got = output_of('rollup', qq{
INSERT INTO daily
SELECT '2026-01-02', bloom_agg_like(i, (SELECT f FROM daily WHERE day = '2026-01-01'))
FROM generate_series($overlap, $last) AS i;
CREATE TABLE rollup AS SELECT bloom_union_agg(f) AS f FROM daily;
SELECT count(*) AS days,
	bool_and((bloom_info(f)).m = 95850584 AND (bloom_info(f)).k = 7 AND f::text LIKE 'bloom:v1:h1:%')
FROM daily;
SELECT (SELECT count(*) FROM generate_series(1, $last) AS i WHERE NOT f @> i) AS false_negatives,
	f = (SELECT f FROM expected) AS what_one_filter_of_both_days_is,
	f = (SELECT a.f | b.f FROM daily AS a, daily AS b WHERE a.day = '2026-01-01' AND b.day = '2026-01-02')
		AS same_as_operator
FROM rollup;
-- and a filter kept up to date with bloom_add starts from bloom_empty_like
SELECT bloom_union(f, bloom_add(bloom_empty_like(f), $last + 1)) @> ($last + 1) FROM rollup;
});
is( $got,
	"2|t\n0|t|t\nt",
	"day 2, built after the update by bloom_agg_like in day 1's shape, unions with day 1 into the filter 1.0 would build of both days, with every value"
);

bloom_done();
