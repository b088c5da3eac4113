# Resources: query cancel on huge filters, no memory growth per call, and the
# memory of grouped aggregates.
#
# (a) A union, an intersection, a popcount (bloom_cardinality) and a text
#     output of near-1 GB filters stop within a second of pg_cancel_backend.
#     Each row of the statement builds its inputs and runs the operation on
#     them (m depends on the row number, 0 * g, so the planner cannot fold
#     the inputs into constants, which it would copy uninterruptibly); the
#     cancel is sent 0.5 s after the backend holds the first row's inputs
#     (its resident memory says so), and the delay is measured from the
#     server's clock at pg_cancel_backend to the error in its log.
# (b) A million calls of each function in one statement use no more memory
#     than 100,000 calls: the backend's peak resident memory (VmHWM), each in
#     a fresh backend, grows by less than 4 MB (4 bytes per extra call).
# (c) bloom_agg and bloom_union_agg over 100,000 groups: the peak memory per
#     group, in memory (hashed, work_mem large) and with the default work_mem,
#     against the bound README.md states ("Resources").
#
# The parts run one at a time: (a) needs up to 3 GB at once, and is skipped
# (with a message) when less than 4 GB of memory is available.
use strict;
use warnings;
use BloomTest;
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = bloom_node('resources',
	conf => { max_parallel_workers_per_gather => 0, jit => 'off' });
my $work = PostgreSQL::Test::Utils::tempdir;

$node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');

# The resident memory of process PID in kB, 0 once it is gone.
sub rss_kb
{
	my ($pid) = @_;
	open my $status, '<', "/proc/$pid/status" or return 0;
	while (<$status>)
	{
		return $1 if /^VmRSS:\s*(\d+)/;
	}
	return 0;
}

# A number psql printed, or 0 for nothing (as the shell's arithmetic reads
# an empty string).
sub number
{
	my ($text) = @_;
	return defined $text && $text =~ /^-?\d+$/ ? $text : 0;
}

# ---- (a) cancel ----

# cancel_case(NAME, INPUT_MB, EXPRESSION(g))
# Runs SELECT count(*) FROM generate_series(1, 1000) g WHERE EXPRESSION IS
# NOT NULL, waits for the backend to hold INPUT_MB of inputs and 0.5 s more,
# cancels it and measures the time to the statement's end.
sub cancel_case
{
	my ($name, $input_mb, $expr) = @_;
	my $app     = "bloom_cancel_$name";
	my $out     = '';
	my $timeout = IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default);
	my $client;
	{
		local $ENV{PGAPPNAME} = $app;
		$client = IPC::Run::start(
			[
				'psql', '-X', '-At', '-d', $node->connstr('postgres'), '-c',
				"SELECT count(*) FROM generate_series(1, 1000) AS g WHERE ($expr) IS NOT NULL"
			],
			'>&', \$out, $timeout);
	}
	my $pid = '';
	for (1 .. 200)
	{
		$pid = $node->safe_psql('postgres',
			"SELECT pid FROM pg_stat_activity WHERE application_name = '$app'");
		last if $pid ne '';
		usleep(50_000);
	}
	# Planning builds the inputs; wait until they are all resident.
	my ($rss, $waited) = (0, 0);
	while ($client->pumpable)
	{
		$client->pump_nb;
		$rss = rss_kb($pid);
		last if $rss >= $input_mb * 1024;
		usleep(50_000);
		$waited++;
		last if $waited >= 1200;
	}
	usleep(500_000);
	# The server's clock at the cancel, and the time it logged the error.
	my $t0 = $node->safe_psql('postgres',
		"SELECT (extract(epoch FROM clock_timestamp()) * 1000)::int8 FROM (SELECT pg_cancel_backend($pid)) AS c"
	);
	# The statement ends, cancelled or not (a statement the cancel did not
	# stop is ended after the framework's timeout, and reported below).
	$timeout->start;
	eval { $client->finish; 1 } or $client->kill_kill;
	my $t1 = 0;
	# The line starts with the time (%m, three words), then "[PID]" (up to
	# 18's log_line_prefix) or "client backend[PID]" (19's, with %b).
	if (slurp_file($node->logfile) =~
		/^(\S+ \S+ \S+) [^\[\n]*\[$pid\] (?:.* )?ERROR:  canceling statement due to user request/m)
	{
		$t1 = $node->safe_psql('postgres',
			"SELECT (extract(epoch FROM '$1'::timestamptz) * 1000)::int8");
	}
	my $delay = $t1 - $t0;
	note("$name: inputs resident ("
		  . int($rss / 1024)
		  . " MB); cancelled 0.5 s later; the error came $delay ms after the cancel");
	if ($out !~ /canceling statement due to user request/ || $t1 == 0)
	{
		note($out);
		fail("$name: the statement was not cancelled (did it finish first?)");
	}
	elsif ($delay < 1000)
	{
		pass("$name: cancel took effect in $delay ms");
	}
	else
	{
		fail("$name: cancel took $delay ms");
	}
	return;
}

# m = 8,589,934,400 is the largest filter (1 GB); 6,000,000,000 bits (750 MB)
# still has a text form (1,000,000,027 characters).
# bloom_out is called directly: the cast to text would add PostgreSQL's own
# copy of the 1 GB string.
my $big = 'bloom_empty_mk(8589934400 + 0 * g, 1)';
my ($available_kb) = slurp_file('/proc/meminfo') =~ /^MemAvailable:\s*(\d+)/m
  or die "no MemAvailable line in /proc/meminfo: cannot tell whether 4 GB are available";
my $available_mb = int($available_kb / 1024);
if ($available_mb < 4096)
{
	diag("SKIPPED (a): only $available_mb MB of memory available; the cancel tests need 4 GB");
}
else
{
	cancel_case('union',        2000, "$big | $big");
	cancel_case('intersection', 2000, "$big & $big");
	cancel_case('popcount',     1000, "bloom_cardinality($big)");
	cancel_case('text_output',  700,
		'bloom_out(bloom_empty_mk(6000000000 + 0 * g, 1))');
}

# ---- (b) no memory growth per call ----

# Small filters as constants (folded when planned) and stored filters that
# are toasted (12 kB, STORAGE external), so the detoast cache is exercised.
$node->safe_psql('postgres', q{
CREATE TABLE stored AS
SELECT i AS id, bloom_agg(j, 0.01, 10000) AS f
FROM generate_series(1, 100) AS i, generate_series(1, 50) AS j GROUP BY i;
});
my $f = 'bloom_add(bloom_empty(0.01, 1000), 1)';
# The same value, but computed per row.
my $fr = "(CASE WHEN g > 0 THEN $f END)";

my $vmhwm =
  q{SELECT substring(pg_read_file('/proc/self/status') from 'VmHWM:\s*(\d+)')};

# last_number(OUTPUT): the last line of psql's OUTPUT if it is a number,
# otherwise '' (a measure that failed: its check fails).
sub last_number
{
	my ($output) = @_;
	my $last = (split /\n/, $output, -1)[-1] // '';
	return $last if $last =~ /^\d+$/;
	diag("no number on the last line of psql's output:\n$output");
	return '';
}

# peak_kb(N, QUERY-TEMPLATE with @N@): VmHWM in kB of a fresh backend after
# it, or '' (see last_number).  An error ends the test (safe_psql).
sub peak_kb
{
	my ($n, $template) = @_;
	(my $sql = $template) =~ s/\@N\@/$n/g;
	return last_number($node->safe_psql('postgres', "$sql;\n$vmhwm;"));
}

sub growth_case
{
	my ($name, $template) = @_;
	my $small = peak_kb(100000,  $template);
	my $large = peak_kb(1000000, $template);
	note("$name: peak $small kB after 100,000 calls, $large kB after 1,000,000");
	if ($small eq '' || $large eq '')
	{
		fail("$name: could not measure");
	}
	elsif (number($large) - number($small) < 4096)
	{
		pass("$name: no growth with the number of calls ("
			  . (number($large) - number($small))
			  . ' kB)');
	}
	else
	{
		fail("$name: grew by "
			  . (number($large) - number($small))
			  . ' kB from 100,000 to 1,000,000 calls');
	}
	return;
}

# Each query calls the function N times; the row source, a generate_series in
# the target list, is not materialized.
sub per_row
{
	my ($expr) = @_;
	return "SELECT count(*) FROM (SELECT generate_series(1, \@N\@) AS g) AS s WHERE ($expr) IS NOT NULL";
}

growth_case('bloom_contains', per_row("bloom_contains($f, g)"));
growth_case('bloom_contains_stored',
	'SELECT count(*) FROM stored, (SELECT generate_series(1, @N@ / 100) AS g) AS s WHERE bloom_contains(stored.f, g)'
);
growth_case('bloom_add',             per_row("bloom_add($f, g)"));
growth_case('bloom_union',           per_row("bloom_union($f, $fr)"));
growth_case('union_operator',        per_row("$f | $fr"));
growth_case('intersection_operator', per_row("$f & $fr"));
growth_case('bloom_cardinality',     per_row("bloom_cardinality($fr)"));
growth_case('bloom_info',            per_row("(bloom_info($fr)).fill_ratio"));
growth_case('text_output',           per_row("${fr}::text"));
growth_case('text_input',  per_row("(CASE WHEN g > 0 THEN ${f}::text END)::bloom"));
growth_case('bloom_send',  per_row("bloom_send($fr)"));
growth_case('equality',    per_row("$f = $fr"));
growth_case('bloom_union_cardinality', per_row("bloom_union_cardinality($f, $fr)"));
growth_case('bloom_intersection_cardinality',
	per_row("bloom_intersection_cardinality($f, $fr)"));
growth_case('bloom_jaccard', per_row("bloom_jaccard($f, $fr)"));
growth_case('bloom_empty',   per_row('bloom_empty(0.01, 1000 + g % 2)'));
growth_case('bloom_add_all', per_row("bloom_add_all($f, ARRAY[g, NULL, g + 1])"));

# bloom_add_all over one array of 1,000,000 composite values (hashed by
# their send function, which allocates for each): the call holds the array
# and the filter, and frees what each element's hash allocated before the
# next, so its peak is within 16 MB of building the same array alone
# (about 150 MB).
$node->safe_psql('postgres', 'CREATE TYPE resources_pair AS (a int, b text)');
my $array_sql =
  q{ARRAY(SELECT ROW(g, 'value ' || g)::resources_pair FROM generate_series(1, 1000000) AS g)};
my $array_alone = peak_kb(0, "SELECT cardinality($array_sql)");
my $array_added =
  peak_kb(0, "SELECT bloom_add_all(bloom_empty(0.01, 1000), $array_sql) IS NOT NULL");
note("bloom_add_all of 1,000,000 composites: peak $array_added kB; the array alone $array_alone kB");
if ($array_alone eq '' || $array_added eq '')
{
	fail('bloom_add_all over a large array: could not measure');
}
elsif (number($array_added) - number($array_alone) < 16384)
{
	pass('bloom_add_all over a large array: no growth with its elements ('
		  . (number($array_added) - number($array_alone))
		  . ' kB over the array alone)');
}
else
{
	fail('bloom_add_all over a large array: '
		  . (number($array_added) - number($array_alone))
		  . ' kB more than the array alone');
}

# bloom_recv: COPY FROM a binary file (rows parsed, then dropped by WHERE false).
$node->safe_psql('postgres', qq{
CREATE TABLE recv_target (f bloom);
COPY (SELECT $f FROM generate_series(1, 100000)) TO '$work/recv-100000.bin' (FORMAT binary);
COPY (SELECT $f FROM generate_series(1, 1000000)) TO '$work/recv-1000000.bin' (FORMAT binary);
});
growth_case('bloom_recv',
	"COPY recv_target FROM '$work/recv-\@N\@.bin' (FORMAT binary) WHERE false");

# ---- (c) grouped aggregates: memory per group ----

# 1,000,000 rows in 100,000 groups, hashed.  The cost per group is the peak
# above the same GROUP BY with count(*), divided by the number of groups;
# README.md ("Resources") states at most 2 * (filter bytes) + 128 bytes per
# group in memory, and that with a small work_mem the hash aggregate spills
# instead of growing.
sub group_query
{
	my ($aggregate) = @_;
	return "SELECT count(*) FROM (SELECT g % 100000 AS grp, $aggregate AS f FROM (SELECT generate_series(1, 1000000) AS g) AS s GROUP BY 1) AS t WHERE f IS NOT NULL";
}

# agg_peak(WORK_MEM, AGGREGATE): VmHWM in kB after the grouped query, or ''
# (see last_number).  An error ends the test (safe_psql).
sub agg_peak
{
	my ($work_mem, $aggregate) = @_;
	return last_number(
		$node->safe_psql(
			'postgres',
			"SET work_mem = '$work_mem';\nSET enable_sort = off;\n"
			  . group_query($aggregate)
			  . ";\n$vmhwm;"));
}

# agg_case(NAME, AGGREGATE, CAPACITY)
sub agg_case
{
	my ($name, $agg, $capacity) = @_;
	my $filter_bytes = number(
		$node->safe_psql('postgres',
			"SELECT bytes FROM bloom_info(bloom_empty(0.01, $capacity))"));
	my $base      = agg_peak('1GB', 'count(*)');
	my $peak      = agg_peak('1GB', $agg);
	my $per_group = int((number($peak) - number($base)) * 1024 / 100000);
	my $bound     = 2 * $filter_bytes + 128;
	note("$name: 100,000 groups of $filter_bytes-byte filters in memory: peak $peak kB, $base kB with count(*): $per_group bytes per group (bound $bound)");
	if ($base eq '' || $peak eq '')
	{
		fail("$name: could not measure the memory per group in memory");
	}
	elsif ($per_group <= $bound && $per_group >= $filter_bytes)
	{
		pass("$name: $per_group bytes per group in memory, within 2 * $filter_bytes + 128");
	}
	else
	{
		fail("$name: $per_group bytes per group in memory, outside [$filter_bytes, $bound]");
	}
	my $base4 = agg_peak('4MB', 'count(*)');
	my $peak4 = agg_peak('4MB', $agg);
	note("$name: with work_mem = 4MB: peak $peak4 kB, $base4 kB with count(*)");
	if ($base4 eq '' || $peak4 eq '')
	{
		fail("$name: with work_mem = 4MB: could not measure");
	}
	elsif ($peak4 - $base4 < 16384)
	{
		pass("$name: with work_mem = 4MB the aggregate spills ("
			  . ($peak4 - $base4)
			  . ' kB above count(*))');
	}
	else
	{
		fail("$name: with work_mem = 4MB it took "
			  . ($peak4 - $base4)
			  . ' kB above count(*)');
	}
	return;
}
agg_case('bloom_agg_100',  'bloom_agg(g, 0.01, 100)',  100);
agg_case('bloom_agg_1000', 'bloom_agg(g, 0.01, 1000)', 1000);
agg_case('bloom_union_agg_100',
	'bloom_union_agg(bloom_add(bloom_empty(0.01, 100), g))', 100);

bloom_done();
