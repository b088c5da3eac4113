# Install-script security and the trusted-extension set-up.
#
# 1. The install and upgrade scripts (sql/bloomfilter--*.sql), comments and
#    string literals removed: no CREATE OR REPLACE, no SQL or PL function
#    bodies, and no unqualified name of one of PostgreSQL's own types or
#    functions that the scripts use.
# 2. CREATE EXTENSION (1.0 then ALTER EXTENSION UPDATE, and the default
#    version directly) into a schema full of look-alikes of those types and
#    functions, with more look-alikes in pg_temp: sql/security.sql must
#    give expected/security.out there (no member refers to anything but members
#    and pg_catalog), and a planted reference must be caught by it.
# 3. The extension is trusted: a non-superuser who owns a database can create,
#    update, use and drop it; one who does not cannot create it.
use strict;
use warnings;
use BloomTest;
use File::Basename;
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;

my $root = bloom_root();
my $tmp  = PostgreSQL::Test::Utils::tempdir;

# ---- 1. the scripts themselves ----

# Built-in names that must appear only as pg_catalog.<name>.
my $builtin =
	'cstring|internal|anyelement|anyarray|anycompatible|anynonarray|bytea|bool|boolean'
  . '|float4|float8|int2|int4|int8|integer|bigint|smallint|text|oid|regclass|regtype|void'
  . '|record|numeric|double precision|eqsel|eqjoinsel|neqsel|neqjoinsel|scalarltsel'
  . '|scalargtsel|areasel|contsel';

# The lines of CODE that match PATTERN, as "grep -n" gives them.
sub numbered_hits
{
	my ($code, $pattern) = @_;
	my @lines = split /\n/, $code, -1;
	return map { ($_ + 1) . ":$lines[$_]" } grep { $lines[$_] =~ $pattern } 0 .. $#lines;
}

foreach my $script (sort glob("$root/sql/bloomfilter--*.sql"))
{
	my $name = basename($script);
	# Drop /* */ comments, -- comments, string literals and the psql guard.
	my $code = slurp_file($script);
	$code =~ s{/\*.*?\*/}{}gs;
	$code =~ s{--[^\n]*}{}g;
	$code =~ s{'(?:[^']|'')*'}{''}g;
	$code =~ s{^\\echo[^\n]*}{}mg;

	# An update script may replace an aggregate of the extension in place
	# (CREATE OR REPLACE AGGREGATE, which keeps the views that use it);
	# PostgreSQL refuses to let an extension script replace an object that
	# is not already a member of the extension.
	my @hits = numbered_hits($code, qr/or[[:space:]]+replace/i);
	@hits =
	  grep { !/^[0-9]+:create[[:space:]]+or[[:space:]]+replace[[:space:]]+aggregate[[:space:]]/i }
	  @hits
	  if $name =~ /--.*--/;
	is(join("\n", @hits), '',
		"$name: no CREATE OR REPLACE (but of an aggregate in an update script)");
	@hits = numbered_hits($code,
		qr/language[[:space:]]+(sql|plpgsql|plperl|plpython3?u|pltcl)/i);
	is(join("\n", @hits), '', "$name: no SQL or PL function bodies");
	@hits = numbered_hits($code,
		qr/(^|[^[:alnum:]_."])($builtin)([^[:alnum:]_]|$)/i);
	is(join("\n", @hits), '',
		"$name: PostgreSQL's own types and functions are pg_catalog-qualified");
}

# ---- 2. installing under a hostile search_path ----

my $node = bloom_node('security');
$node->safe_psql('postgres', 'CREATE DATABASE hostile_db');

# sql/security.sql run as pg_regress runs a test: psql -X -a -q -d DB, its
# standard output and error in one stream.
sub security_sql_output
{
	my ($db) = @_;
	my $out = '';
	IPC::Run::run([ 'psql', '-X', '-a', '-q', '-d', $node->connstr($db) ],
		'<', "$root/sql/security.sql", '>&', \$out);
	return $out;
}

# sql/security.sql in DB must give expected/security.out, byte for byte.
sub run_security_sql
{
	my ($db, $how) = @_;
	my $out    = security_sql_output($db);
	my $result = "$tmp/security.out";
	open my $fh, '>', $result or die "could not write $result: $!";
	print $fh $out;
	close $fh;
	my $expected = "$root/expected/security.out";
	ok(slurp_file($expected) eq $out,
		"$how: sql/security.sql gives expected/security.out")
	  or diag("sql/security.sql differs from expected/security.out:\n"
		  . diff_of($expected, $result));
	return;
}

# Look-alikes of everything the scripts use from pg_catalog, in the schema
# the extension goes into and in pg_temp.  One session, so that the temporary
# ones exist while the extension is created.
sub install_hostile
{
	my ($create) = @_;
	$node->safe_psql('hostile_db', qq{
DROP SCHEMA IF EXISTS hostile CASCADE;
CREATE SCHEMA hostile;
CREATE DOMAIN hostile.int8 AS pg_catalog.int2;
CREATE DOMAIN hostile.int4 AS pg_catalog.int2;
CREATE DOMAIN hostile.float8 AS pg_catalog.float4;
CREATE DOMAIN hostile.bool AS pg_catalog.int2;
CREATE DOMAIN hostile.bytea AS pg_catalog.text;
CREATE TYPE hostile.cstring;
CREATE TYPE hostile.internal;
CREATE TYPE hostile.anyelement;
-- Estimator look-alikes with the exact signatures (but the opposite
-- estimate: only C and internal functions can take internal).
CREATE FUNCTION hostile.eqsel(pg_catalog.internal, pg_catalog.oid, pg_catalog.internal, pg_catalog.int4)
	RETURNS pg_catalog.float8 LANGUAGE internal STABLE AS 'neqsel';
CREATE FUNCTION hostile.eqjoinsel(pg_catalog.internal, pg_catalog.oid, pg_catalog.internal, pg_catalog.int2, pg_catalog.internal)
	RETURNS pg_catalog.float8 LANGUAGE internal STABLE AS 'neqjoinsel';
CREATE FUNCTION hostile.neqsel(pg_catalog.internal, pg_catalog.oid, pg_catalog.internal, pg_catalog.int4)
	RETURNS pg_catalog.float8 LANGUAGE internal STABLE AS 'eqsel';
CREATE FUNCTION hostile.neqjoinsel(pg_catalog.internal, pg_catalog.oid, pg_catalog.internal, pg_catalog.int2, pg_catalog.internal)
	RETURNS pg_catalog.float8 LANGUAGE internal STABLE AS 'eqjoinsel';
CREATE DOMAIN pg_temp.int8 AS pg_catalog.int2;
CREATE DOMAIN pg_temp.float8 AS pg_catalog.float4;
CREATE DOMAIN pg_temp.bytea AS pg_catalog.text;
SET search_path = hostile, public;
$create
});
	return;
}

foreach my $how ('1.0 then update', 'default version')
{
	$node->safe_psql('hostile_db', 'DROP EXTENSION IF EXISTS bloomfilter');
	if ($how eq '1.0 then update')
	{
		install_hostile(
			"CREATE EXTENSION bloomfilter VERSION '1.0'; ALTER EXTENSION bloomfilter UPDATE;");
	}
	else
	{
		install_hostile('CREATE EXTENSION bloomfilter;');
	}
	is( $node->safe_psql(
			'hostile_db',
			"SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'bloomfilter'"
		),
		'hostile',
		"$how: installed into the hostile schema");
	run_security_sql('hostile_db', $how);
	# The operators work under the hostile path, and use the real estimators.
	my $got = $node->safe_psql('hostile_db', q{
SET search_path = hostile, public;
CREATE TEMP TABLE t AS SELECT bloom_add(bloom_empty_mk(64, 2), i % 3) AS f FROM generate_series(1, 100) AS i;
ANALYZE t;
SELECT count(*) FROM t a JOIN t b ON a.f = b.f WHERE a.f <> bloom_empty_mk(64, 2);
SELECT count(*), bool_and(r.pronamespace = 'pg_catalog'::regnamespace AND j.pronamespace = 'pg_catalog'::regnamespace)
FROM pg_operator o JOIN pg_proc r ON r.oid = o.oprrest JOIN pg_proc j ON j.oid = o.oprjoin
WHERE o.oprname IN ('=', '<>') AND o.oprleft = 'bloom'::regtype;
-- dropped here: a backend drops its temporary tables after the client has
-- gone, and the next DROP EXTENSION must not race it
DROP TABLE t;
});
	is($got, "3334\n2|t", "$how: filters work, with PostgreSQL's estimators");
}

# The check in sql/security.sql catches a planted reference to a look-alike.
$node->safe_psql('hostile_db', q{
CREATE FUNCTION hostile.planted(hostile.int8) RETURNS pg_catalog.int4
	LANGUAGE internal IMMUTABLE AS 'int4abs';
ALTER EXTENSION bloomfilter ADD FUNCTION hostile.planted(hostile.int8);
});
my $out = security_sql_output('hostile_db');
ok($out =~ /\Qfunction hostile.planted(hostile.int8) | type hostile.int8\E/,
	'sql/security.sql reports a member that refers to a look-alike type')
  or diag("sql/security.sql missed a planted reference to hostile.int8:\n$out");

# ---- 3. trusted: a database owner who is not a superuser ----

$node->safe_psql('postgres', q{
CREATE ROLE regress_bloom_owner LOGIN;
CREATE ROLE regress_bloom_other LOGIN;
CREATE DATABASE owned_db OWNER regress_bloom_owner;
});
is( $node->safe_psql(
		'postgres', "SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_bloom_owner'"),
	'f',
	'the database owner is not a superuser');

# psql -c, so that the error has no "psql:<stdin>:N:" prefix
my $got = '';
IPC::Run::run(
	[
		'psql', '-X', '-q', '-At',
		'-d', $node->connstr('owned_db') . ' user=regress_bloom_other',
		'-c', '\set VERBOSITY sqlstate',
		'-c', 'CREATE EXTENSION bloomfilter'
	],
	'>&', \$got);
chomp $got;
is($got, 'ERROR:  42501', 'a role without CREATE on the database cannot create it');

my $err;
$node->psql(
	'owned_db', q{
CREATE EXTENSION bloomfilter VERSION '1.0';
ALTER EXTENSION bloomfilter UPDATE;
CREATE TABLE visits (day int, visitor int8);
INSERT INTO visits SELECT i % 7, i FROM generate_series(1, 70000) AS i;
CREATE TABLE daily AS SELECT day, bloom_agg(visitor, 0.01, 10000) AS f FROM visits GROUP BY day;
SELECT count(*) FROM visits v JOIN daily d USING (day) WHERE NOT bloom_contains(d.f, v.visitor);
SELECT bloom_contains(bloom_union_agg(f), 69999::int8) FROM daily;
SELECT (SELECT f FROM daily WHERE day = 1)::text::bloom = (SELECT f FROM daily WHERE day = 1);
SELECT abs(bloom_cardinality(f) - 10000) < 300 FROM daily WHERE day = 3;
SELECT extversion = (SELECT default_version FROM pg_available_extensions WHERE name = 'bloomfilter')
	OR NOT EXISTS (SELECT FROM pg_available_extensions WHERE name = 'bloomfilter')
FROM pg_extension WHERE extname = 'bloomfilter';
SELECT r.rolname FROM pg_extension e JOIN pg_roles r ON r.oid = e.extowner WHERE e.extname = 'bloomfilter';
SELECT DISTINCT r.rolname FROM pg_proc p JOIN pg_roles r ON r.oid = p.proowner WHERE p.proname LIKE 'bloom\_%';
DROP TABLE daily;
DROP EXTENSION bloomfilter;
CREATE EXTENSION bloomfilter;
SELECT bloom_contains(bloom_add(bloom_empty(0.01, 100), 'x'::text), 'x'::text);
},
	stdout       => \$got,
	stderr       => \$err,
	extra_params => [ '-U', 'regress_bloom_owner' ]);
diag($err) if $err ne '';
# The functions belong to the bootstrap superuser (the extension is
# trusted): the framework's initdb names it after the OS user.
my $bootstrap_superuser =
  $node->safe_psql('postgres', 'SELECT rolname FROM pg_roles WHERE oid = 10');
is( $got,
	join("\n", 0, qw(t t t t regress_bloom_owner), $bootstrap_superuser, 't'),
	'the owner (not a superuser) creates, updates, uses, drops and recreates it');

bloom_done();
