# Concurrent writers and readers of the same filters (pgbench).
#
# 8 writer clients run, for BLOOM_CONCURRENCY_SECONDS (default 12) seconds,
# one transaction each time: add a random x to the filter in row x % 4 of
# "shared" (12 kB filters, so stored out of line) and log x in "logged".
# 4 reader clients probe the same rows meanwhile, and union them.  Then:
# neither pgbench reports an error or a failed transaction, every committed
# transaction left exactly one logged row, every logged x is in its row's
# filter (no update lost), and no backend crashed.
use strict;
use warnings;
use BloomTest;
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;

my $seconds = $ENV{BLOOM_CONCURRENCY_SECONDS} // 12;
my $work = PostgreSQL::Test::Utils::tempdir('concurrency');

# (the statements of some hundred thousand transactions stay out of the
# log, as on a server with initdb's defaults)
my $node = bloom_node('concurrency', conf => { log_statement => 'none' });
$node->safe_psql('postgres', q{
CREATE EXTENSION bloomfilter;
CREATE TABLE shared (id int PRIMARY KEY, f bloom NOT NULL);
INSERT INTO shared SELECT i, bloom_empty(0.01, 10000) FROM generate_series(0, 3) AS i;
CREATE TABLE logged (x int8 NOT NULL);
});

append_to_file("$work/writer.sql", q{\set x random(1, 1000000000000)
BEGIN;
UPDATE shared SET f = bloom_add(f, :x::int8) WHERE id = :x % 4;
INSERT INTO logged VALUES (:x);
COMMIT;
});
append_to_file("$work/reader.sql", q{\set x random(1, 1000000000000)
SELECT bloom_contains(f, :x::int8) FROM shared WHERE id = :x % 4;
SELECT bloom_cardinality(bloom_union_agg(f)) FROM shared;
});

# Both pgbench runs at once, each with its output (stdout and stderr) in a
# log of its own.
my @pgbench = (
	'pgbench', '--no-vacuum', '-T', $seconds,
	'-h', $node->host, '-p', $node->port, '-d', 'postgres');
my %run = (
	writers => IPC::Run::start(
		[ @pgbench, '-c', 8, '-j', 2, '-f', "$work/writer.sql" ],
		'>&', "$work/writers.log"),
	readers => IPC::Run::start(
		[ @pgbench, '-c', 4, '-j', 1, '-f', "$work/reader.sql" ],
		'>&', "$work/readers.log"));
my %status;
foreach my $role (qw(writers readers))
{
	$run{$role}->finish;
	my $raw = $run{$role}->full_result(0);
	# as the shell reports it: the exit code, or 128 + the signal
	$status{$role} = shell_status($raw);
}

# "number of transactions actually processed: N" and, from PostgreSQL 15,
# "number of failed transactions: N (...)".
sub processed
{
	my ($log) = @_;
	my ($n) = $log =~ /^number of transactions actually processed: ([0-9]+)/m;
	return $n;
}

sub failed_transactions
{
	my ($log) = @_;
	my ($n) = $log =~ /^number of failed transactions: ([0-9]+)/m;
	return $n;
}

foreach my $role (qw(writers readers))
{
	my $log    = slurp_file("$work/$role.log");
	my $status = $status{$role};
	my $n      = processed($log);
	my @tps    = $log =~ /^(tps.*)$/mg;
	note("$role: exit $status, "
		  . ($n // '') . ' transactions, '
		  . (failed_transactions($log) // '')
		  . " failed; @tps");
	diag($log) if $status != 0 || $log =~ /error|abort/i;
	is($status, 0, "$role: pgbench exits 0");
	is(failed_transactions($log), 0, "$role: no failed transaction");
	is(join("\n", $log =~ /^(.*(?:error|aborted).*)$/mgi),
		'', "$role: no error reported");
	ok(($n // 0) > 100, "$role: ran (" . ($n // 0) . ' transactions)');
}

my $committed = processed(slurp_file("$work/writers.log"));
is($node->safe_psql('postgres', 'SELECT count(*) FROM logged'),
	$committed, 'every committed writer transaction left one logged row');
is( $node->safe_psql(
		'postgres',
		'SELECT count(*) FROM logged l JOIN shared s ON s.id = l.x % 4 WHERE NOT bloom_contains(s.f, l.x)'
	),
	0,
	'every logged value is in its row\'s filter (no update lost)');
# The filters hold about as many values as were logged for each row: a
# filter that kept more than the logged values (an uncommitted or doubled
# add) would show up as an estimate far above the count.
is( $node->safe_psql(
		'postgres',
		'SELECT bool_and(abs(bloom_cardinality(s.f) - c.n) <= 0.05 * c.n + 5) FROM shared s '
		  . 'JOIN (SELECT x % 4 AS id, count(DISTINCT x) AS n FROM logged GROUP BY 1) c USING (id)'
	),
	't',
	'each filter\'s estimate is within 5% of its logged values');

bloom_done();
