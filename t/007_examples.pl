# Every examples/*.sql runs, each in a fresh database of one server, through
# psql -v ON_ERROR_STOP=1.  An example fails if psql fails: a statement
# errors, or one of the example's closing checks raises an exception.
use strict;
use warnings;
use BloomTest;
use File::Basename;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = bloom_node('examples');

my $passed = 0;
foreach my $example (sort glob(bloom_root() . '/examples/*.sql'))
{
	my $name = basename($example, '.sql');
	(my $db = "example_$name") =~ s/-/_/g;
	my $start = time;
	# (psql as a person would run it: tables with headers, in the log)
	my ($ret, $stdout, $stderr) = (undef, '', '');
	if ($node->run_log([ 'createdb', $db ]))
	{
		($ret, $stdout, $stderr) = $node->psql(
			$db, '',
			extra_params => [
				'-P', 'format=aligned', '-P', 'tuples_only=off',
				'-f', $example
			]);
	}
	my $seconds = time - $start;
	if (ok(defined $ret && $ret == 0, "$name (${seconds}s)"))
	{
		$passed++;
	}
	else
	{
		diag("its output:\n" . join("\n", grep { $_ ne '' } $stdout, $stderr));
	}
	note($stdout);
	$node->run_log([ 'dropdb', '--if-exists', $db ]);
}
fail('no example ran') unless $passed > 0;

bloom_done();
