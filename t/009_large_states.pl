# Aggregate states of the largest filters under partial aggregation.
#
# bloom_agg(x, 0.5, 5954088800) sizes a filter of m = 8,589,934,385 bits,
# 1,073,741,800 bytes of bits: it fits in a value (1 GB), but its serialized
# partial state, 32 bytes more, does not.  In a parallel plan the partial
# aggregate must then stop with a clean 54000 that says what to do, not an
# internal error (XX000 "invalid memory alloc request size") from palloc;
# the same aggregate without parallelism must still work.  About 2 GB of
# memory at once; skipped (with a message) when less than 4 GB is available.
use strict;
use warnings;
use BloomTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = bloom_node('large_states', conf => { jit => 'off' });
$node->safe_psql('postgres',
	'CREATE EXTENSION bloomfilter; CREATE TABLE one_row AS SELECT 1 AS x');

my ($available_kb) =
  slurp_file('/proc/meminfo') =~ /^MemAvailable:\s*([0-9]+)/m
  or die "no MemAvailable line in /proc/meminfo: cannot tell whether 4 GB are available";
my $available_mb = int($available_kb / 1024);
if ($available_mb < 4096)
{
	diag("SKIPPED: only $available_mb MB of memory available; the test needs 4 GB");
}
else
{
	my $parallel = 'SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
		SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;';
	my $query =
	  'SELECT bloom_cardinality(bloom_agg(x, 0.5, 5954088800)) FROM one_row';

	my $plan =
	  $node->safe_psql('postgres', "$parallel EXPLAIN (COSTS OFF) $query");
	like($plan, qr/Partial Aggregate/, 'the plan aggregates partially');
	# (-c, not a script: psql's error then has no "psql:<stdin>:N:" prefix)
	my ($ret, $stdout, $state) = $node->psql(
		'postgres', '',
		extra_params => [ '-v', 'VERBOSITY=sqlstate', '-c', $parallel, '-c', $query ]);
	is($state, 'ERROR:  54000', 'parallel: a partial state over 1 GB is ERROR 54000');
	is( $node->safe_psql(
			'postgres',
			"SET max_parallel_workers_per_gather = 0; SELECT round(($query)::numeric)"),
		'1',
		'serial: the same aggregate works');
}

bloom_done();
