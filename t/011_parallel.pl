# Parallel aggregation builds the very bytes serial aggregation does.
#
# On 1,000,000 rows, each aggregate runs serially and then with 2 workers
# (and the leader): bloom_agg with a capacity (a scheme 1 filter and a
# blocked one), the self-sized bloom_agg with every partial state in the
# sketch phase, with exact partial states whose union passes into it, and
# all exact, and bloom_union_agg.  EXPLAIN ANALYZE must show the 2 workers
# launched (a plan that fell back to serial would compare serial with
# serial), and the filters must be byte for byte the same: the md5 of
# bloom_send and of the text form.
use strict;
use warnings;
use BloomTest;
use Test::More;

my $node = bloom_node('parallel',
	conf => { jit => 'off', max_worker_processes => 8, max_parallel_workers => 8 });

$node->safe_psql('postgres', q{
CREATE EXTENSION bloomfilter;
-- The merge of the self-sized aggregate's partial states is costed as what
-- it measured (sql/bloomfilter--1.1--1.2.sql), so the planner aggregates 1M
-- rows serially; at COST 1 it splits them, which is what is tested here.
ALTER FUNCTION bloom_autoagg_combinefn(internal, internal) COST 1;
ALTER FUNCTION bloom_autoagg_deserialfn(bytea, internal) COST 1;
ALTER FUNCTION bloom_autoagg_serialfn(internal) COST 1;
CREATE TABLE rows_1m AS
SELECT (hashint8extended(g, 7) & 9223372036854775807) % 10000000 AS x, g % 100 AS g
FROM generate_series(1::int8, 1000000) AS g;
CREATE TABLE filters_1k AS
SELECT g, bloom_agg(x, 0.01, 100000) AS f FROM rows_1m GROUP BY g;
ALTER TABLE rows_1m SET (parallel_workers = 2);
ALTER TABLE filters_1k SET (parallel_workers = 2);
VACUUM ANALYZE rows_1m, filters_1k;
});

my $parallel = 'SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
	SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;';
my $serial = 'SET max_parallel_workers_per_gather = 0;';

my @cases = (
	[ 'bloom_agg(x, 0.01, 1e6)', 'bloom_agg(x, 0.01, 1000000)', 'rows_1m' ],
	[ 'bloom_agg(x, 0.01, 1e7), blocked', 'bloom_agg(x, 0.01, 10000000)', 'rows_1m' ],
	[ 'bloom_agg(x), sketch partial states', 'bloom_agg(x)', 'rows_1m' ],
	[
		'bloom_agg(x, 0.001), exact partial states, sketch union',
		'bloom_agg(x, 0.001)', 'rows_1m WHERE g < 25'
	],
	[ 'bloom_agg(x, 0.1), exact partial states', 'bloom_agg(x, 0.1)', 'rows_1m WHERE g < 5' ],
	[ 'bloom_union_agg(f)', 'bloom_union_agg(f)', 'filters_1k' ]);

foreach my $case (@cases)
{
	my ($name, $aggregate, $from) = @$case;
	my $query = "SELECT $aggregate AS f FROM $from";
	my $plan = $node->safe_psql('postgres',
		"$parallel EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $query");
	ok($plan =~ /Workers Launched: 2/ && $plan =~ /Partial Aggregate/,
		"$name: 2 workers launched, partial aggregates")
	  or diag($plan);
	my $digests = "SELECT md5(bloom_send(f)) || ' ' || md5(f::text) || ' ' || (bloom_info(f)).m "
	  . "FROM ($query) AS s";
	is( $node->safe_psql('postgres', "$parallel $digests"),
		$node->safe_psql('postgres', "$serial $digests"),
		"$name: parallel bytes = serial bytes (md5 of send, text; m)");
}

bloom_done();
