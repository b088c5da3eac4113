# The complete install script: CREATE EXTENSION bloomfilter runs
# sql/bloomfilter--1.4.sql alone, and ALTER EXTENSION UPDATE from 1.0 runs
# 1.0 and the four update scripts.  Both must give the same extension,
# member by member:
#
# (a) the same members (pg_describe_object of every object that depends on
#     the extension with deptype 'e'), and as many as pg_dump lists (array
#     types, members from PostgreSQL 17 on, go with their element types);
# (b) the same definitions: pg_dump --binary-upgrade dumps each member as its
#     own statements (every function's volatility, strictness, parallel
#     safety, cost and support function, every type's I/O, analyze and
#     preference, operators with their estimators, aggregates, operator
#     classes, casts, comments, owners and privileges), and the two dumps,
#     without the OIDs binary upgrade preserves, are the same text;
# (c) the fresh script runs for a user who is not a superuser, as a trusted
#     extension's must, and gives the same members.
use strict;
use warnings;
use BloomTest;
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = bloom_node('install_script');
my $work = PostgreSQL::Test::Utils::tempdir;

$node->safe_psql('postgres', q{
CREATE DATABASE fresh;
CREATE DATABASE updated;
CREATE ROLE owner LOGIN;
CREATE DATABASE owned OWNER owner;
});
$node->safe_psql('fresh', 'CREATE EXTENSION bloomfilter');
$node->safe_psql('updated',
	"CREATE EXTENSION bloomfilter VERSION '1.0'; ALTER EXTENSION bloomfilter UPDATE");
my ($status, $out, $err) =
  $node->psql('owned', 'CREATE EXTENSION bloomfilter', extra_params => [ '-U', 'owner' ]);
is($status, 0, 'a database owner who is not a superuser creates the extension (trusted)')
  or diag($err);

# the control file's default version (pg_available_extensions does not list
# an extension loaded from a DESTDIR tree)
my ($default) = slurp_file(bloom_root() . '/bloomfilter.control') =~ /^default_version = '([^']+)'/m;
ok(defined $default && $default =~ /^\d+\.\d+$/, "the control file's default version, $default");
foreach my $db (qw(fresh updated owned))
{
	is($node->safe_psql($db, "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'"),
		$default, "$db: the extension is at the default version, $default");
}

# (a) the members
my $members_sql = q{
SELECT pg_describe_object(classid, objid, objsubid)
FROM pg_depend
WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
	AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomfilter')
ORDER BY 1};
my %members;
$members{$_} = $node->safe_psql($_, $members_sql) foreach qw(fresh updated owned);
my @listed = split /\n/, $members{updated};
cmp_ok(scalar @listed, '>=', 150, 'the updated extension has its ' . scalar(@listed) . ' members');
is($members{fresh}, $members{updated}, 'the fresh install has the same members as 1.0 updated');
is($members{owned}, $members{updated}, 'so has the install by a user who is not a superuser');

# (b) the definitions, by pg_dump --binary-upgrade
sub member_dump
{
	my ($db) = @_;
	my ($stdout, $stderr) = ('', '');
	IPC::Run::run([ 'pg_dump', '--binary-upgrade', '--schema-only', '-d', $node->connstr($db) ],
		'>', \$stdout, '2>', \$stderr)
	  or die "pg_dump $db failed: $stderr";
	# the OIDs binary upgrade preserves, and the per-dump \restrict key
	my @lines = grep { !/binary_upgrade_set_next_|^\\(un)?restrict / } split /\n/, $stdout;
	my $file = "$work/$db.sql";
	open my $fh, '>', $file or die "$file: $!";
	print $fh join("\n", @lines), "\n";
	close $fh;
	return ($file, scalar grep { /^ALTER EXTENSION bloomfilter ADD / } @lines);
}
my ($fresh_dump, $fresh_added) = member_dump('fresh');
my ($updated_dump, $updated_added) = member_dump('updated');
# from PostgreSQL 17 on, a member type's array type is a member too, which
# pg_dump creates with its element type rather than adding it on its own
my @dumped = grep { !/^type .*\[\]$/ } @listed;
is($updated_added, scalar @dumped,
	"pg_dump lists every member but array types ($updated_added of " . scalar(@listed) . ')');
is($fresh_added, $updated_added, 'and as many for the fresh install');
my $diff = diff_of($updated_dump, $fresh_dump);
is($diff, '', 'the fresh install dumps as 1.0 updated, statement for statement')
  or diag($diff);

bloom_done();
