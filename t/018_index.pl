# bloom_slices, the index over a column of filters (src/index/index.h):
# whatever happens to the table and the server, a lookup through the index
# finds exactly the rows a sequential scan finds, and bloom_index_check
# finds the index whole.
#
# Tables hold filters of mixed shapes (t/index.sql has their recipes):
# capacity 100 and 1,000 at 1%, the second hash scheme, counting filters
# cast to bloom, empty filters, NULLs, 12 kB filters (two pending chunks
# each) and 120 kB ones (15 chunks, too large for a group: always pending),
# of int4, int8, text and uuid values.  A lookup is f @> x, x <@ f or bloom_contains(f, x), through
# the bitmap index scan (forced, and seen in EXPLAIN) and through a
# sequential scan; a probe is a value some row holds or one no row holds.
#
# 1. A randomized differential test: its seed is printed, and
#    BLOOM_INDEX_SEED repeats a run.  CREATE INDEX over 4,504 rows makes
#    groups of the shapes with hundreds and thousands of rows, none of the
#    120 kB filters, and leaves the rest pending (the metapage and the group
#    pages are read with pageinspect).  Then 8 rounds of random operations
#    (single-row and batch INSERTs that flush pending rows into groups,
#    UPDATEs adding values, filters set to NULL and back, DELETEs, VACUUM);
#    after each round 50 probes find the same rows through the index as
#    through a scan, and bloom_index_check(index, true) passes.
# 2. A streaming standby made after step 1: more rows (a flush), an UPDATE,
#    a DELETE and VACUUM on the primary; once replayed, the standby's index
#    finds what the primary's finds, and its own scan finds, and
#    bloom_index_check passes there.
# 3. pg_dump -Fc and pg_restore into a new database: the index is there,
#    used, finds the same rows, and passes bloom_index_check.
# 4. Concurrency: pgbench writers insert filters (both sizes that make
#    groups) and look each one up through the index at once, while a client
#    deletes and vacuums; meanwhile CREATE INDEX CONCURRENTLY builds a second
#    index and REINDEX INDEX CONCURRENTLY rebuilds the first.  No error, no
#    row a writer cannot find; afterwards both indexes pass
#    bloom_index_check(index, true) and each alone finds what a scan finds.
# 5. A crash: a psql in the background inserts rows one transaction at a
#    time (flushes happening among them), the server is stopped with
#    pg_ctl -m immediate in the middle and restarted (wal_level = replica,
#    WAL replayed from a checkpoint taken during the load).  Every row psql
#    saw committed is there, the index passes bloom_index_check(index, true)
#    and finds what a scan finds, before and after a new flush; the standby
#    agrees.
# 6. Damaged pages (the cluster has no data checksums, so our own checks are
#    what fires), each in an index of its own, written while the server is
#    stopped: the special space of the metapage, of a pending page and of a
#    slice page; a group header; a TID page's TIDs; the metapage's link to
#    the pending chain, pointing past the end; a pending row's heap TID,
#    past the table's end.  A lookup through each index
#    is ERROR XX002 naming the index and the damage ("corrupted", "past its
#    end", "invalid heap TID"), and bloom_index_check(index, true)
#    is ERROR XX002; nothing crashes; REINDEX repairs each.
# 7. Autovacuum (a naptime of a second, thresholds of 50 rows) vacuums a
#    table with deleted rows: they leave the pending chain, and the index
#    finds what a scan finds and passes bloom_index_check.  A logical
#    replica (a publisher and a subscriber of their own) whose table has its
#    own index, filled by the initial copy and by replicated INSERTs,
#    UPDATEs and DELETEs: it finds what its scan finds and what the
#    publisher's index finds, and passes bloom_index_check.
#
# No backend of either server may crash (bloom_done reads the logs).
use strict;
use warnings;
use BloomTest;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $started = time;
my $work    = PostgreSQL::Test::Utils::tempdir('index');

my $seed = $ENV{BLOOM_INDEX_SEED} // ((time() ^ ($$ << 11)) % 1000000007);
die "BLOOM_INDEX_SEED must be a number, not \"$seed\"" unless $seed =~ /^\d+$/;
diag("seed $seed (BLOOM_INDEX_SEED=$seed repeats this run)");
srand($seed);

# SET seed for SQL's random() in step STEP: from the run's seed, in [0, 1)
sub sql_seed
{
	my ($step) = @_;
	return sprintf('%.6f', (($seed + 7919 * $step) % 1000000) / 1000000);
}

# wal_level = replica (allows_streaming): what crash recovery and the
# standby replay.  Autovacuum stays off the tables (autovacuum_enabled), so
# that a run repeats and VACUUM happens where the test says.
my $primary = bloom_node('primary', allows_streaming => 1, no_checksums => 1,
	conf => { log_statement => 'none' });
$primary->safe_psql('postgres', slurp_file(bloom_root() . '/t/index.sql'));
is( $primary->safe_psql('postgres', 'SHOW wal_level') . ' '
	  . $primary->safe_psql('postgres', 'SHOW data_checksums'),
	'replica off',
	'the primary: wal_level = replica, no data checksums');

# ---- helpers ----

# index_check(NODE, DB, INDEX, LABEL): bloom_index_check(INDEX, true) passes
sub index_check
{
	my ($node, $db, $index, $label) = @_;
	my ($ret, $out, $err) = $node->psql($db, "SELECT bloom_index_check('$index', true)");
	return if ok($ret == 0 && $err eq '', "$label: bloom_index_check('$index', true) passes");
	diag("psql exited with $ret: $err");
	# the row a "heap tuple (b,o) of t is not in the index" names
	if ($err =~ /heap tuple \((\d+),(\d+)\) of "(\w+)"/)
	{
		my ($r, $row) = $node->psql($db, "SELECT format('its row: id %s, %s, m = %s, %s bytes of bits',
				id, kind, (bloom_info(f)).m, (bloom_info(f)).bytes) FROM $3 WHERE ctid = '($1,$2)'");
		diag($row);
	}
	return;
}

# probes(NODE, DB, TABLE, COUNT, STEP): COUNT probes [spelling, value] of
# the rows of TABLE, drawn with the seed of STEP
sub probes
{
	my ($node, $db, $table, $count, $step) = @_;
	my $out = $node->safe_psql($db,
		'SET seed = ' . sql_seed($step) . ";\n"
		  . "SELECT spelling || E'\\t' || value FROM probes('$table', $count)");
	return [ map { [ split /\t/, $_, 2 ] } split /\n/, $out ];
}

# lookups(NODE, DB, TABLE, PROBES, [SETUP]): for each probe, the ids the
# index finds (a bitmap scan and a plain index scan, which must agree) and the ids a sequential scan finds, as
# { spelling, value, index, scan } (arrays in text form); or an error.
# SETUP runs first, in the lookups' transaction, which is rolled back.
sub lookups
{
	my ($node, $db, $table, $probes, $setup) = @_;
	my $i      = 0;
	my $values = join(",\n",
		map { $i++; "($i, \$v\$$_->[0]\$v\$, \$v\$$_->[1]\$v\$)" } @$probes);
	my $sql = "SELECT probe_ids('$table', s, v, true)::text || E'\\t' || probe_ids('$table', s, v, false)::text
		FROM (VALUES $values) AS p(i, s, v) ORDER BY i";
	$sql = "BEGIN;\n$setup;\n$sql;\nROLLBACK;" if defined $setup;
	my ($ret, $out, $err) = $node->psql($db, $sql);
	return (undef, "psql exited with $ret: $err") if $ret != 0;
	my @lines = split /\n/, $out;
	return (undef, 'expected ' . scalar(@$probes) . ' lines, got ' . scalar(@lines) . ":\n$out")
	  if @lines != @$probes;
	my @rows;
	foreach my $k (0 .. $#lines)
	{
		my ($index, $scan) = split /\t/, $lines[$k];
		push @rows,
		  {
			spelling => $probes->[$k][0],
			value    => $probes->[$k][1],
			index    => $index // '',
			scan     => $scan // ''
		  };
	}
	return (\@rows, '');
}

sub ids_count
{
	my ($ids) = @_;
	return 0 if $ids eq '{}';
	return scalar(split /,/, $ids);
}

# same_as_scan(LABEL, ROWS, ERROR): the index found what the scan found, for
# every probe, and the probes are not vacuous: at least a third find rows
sub same_as_scan
{
	my ($label, $rows, $error) = @_;
	if (!$rows)
	{
		fail("$label: the index finds what a sequential scan finds");
		diag("seed $seed: $error");
		return;
	}
	my @differ = grep { $_->{index} ne $_->{scan} } @$rows;
	my $found  = grep { $_->{scan} ne '{}' } @$rows;
	my $total  = 0;
	$total += ids_count($_->{scan}) foreach @$rows;
	my $probes = scalar(@$rows);
	ok(!@differ && $found * 3 >= $probes,
		"$label: the index finds exactly the rows a sequential scan finds, for $probes probes "
		  . "($found finding rows, $total rows in all)")
	  or diag(join("\n",
			"seed $seed (BLOOM_INDEX_SEED=$seed repeats this run)",
			(map { "  $_->{spelling} with x = $_->{value}: the index found $_->{index}, the scan $_->{scan}" }
				@differ),
			@differ ? () : ("only $found of $probes probes find rows")));
	return;
}

# same_rows(LABEL, ROWS, OTHER_ROWS): two servers' (or databases') indexes
# found the same ids for every probe
sub same_rows
{
	my ($label, $rows, $other) = @_;
	my $ids = sub { join("\n", map { "$_->{spelling} with x = $_->{value}: $_->{index}" } @{ $_[0] }) };
	ok($rows && $other && @$rows == @$other && $ids->($rows) eq $ids->($other), $label)
	  or diag("seed $seed\n" . ($rows ? $ids->($rows) : 'no lookups') . "\nand\n"
		  . ($other ? $ids->($other) : 'no lookups'));
	return;
}

# meta(NODE, DB, INDEX): "groups|pending rows|grouped rows" from the metapage
sub meta
{
	my ($node, $db, $index) = @_;
	return $node->safe_psql($db,
		"SELECT groups || '|' || pending_rows || '|' || grouped_rows FROM index_meta('$index')");
}

sub shuffle
{
	my @items = @_;
	for (my $i = $#items; $i > 0; $i--)
	{
		my $j = int(rand($i + 1));
		@items[ $i, $j ] = @items[ $j, $i ];
	}
	return @items;
}

# ---- 1. the randomized differential test ----
$primary->safe_psql('postgres', 'SET seed = ' . sql_seed(0) . ';' . q{
CREATE TABLE mixed (id int PRIMARY KEY, kind text NOT NULL, lo int NOT NULL, n int NOT NULL, f bloom)
	WITH (autovacuum_enabled = off);
SELECT add_rows('mixed', 1, 3300, 'c100_int4');
SELECT add_rows('mixed', 3301, 300, 'counting_int4');
SELECT add_rows('mixed', 3601, 200, 'c100_text');
SELECT add_rows('mixed', 3801, 100, 'empty');
SELECT add_rows('mixed', 3901, 100, 'null');
SELECT add_rows('mixed', 4001, 100, 'c1000_int8');
SELECT add_rows('mixed', 4101, 100, 'h2_uuid');
SELECT add_rows('mixed', 4201, 300, 'c10000_int4');
SELECT add_rows('mixed', 4501, 4, 'c100000_text');
CREATE INDEX mixed_f ON mixed USING bloom_slices (f);
});
# 3,900 rows of m = 959 (capacity 100, counting, text, empty) and 300 of
# m = 95,851 make groups; the 4 of m = 958,506 (more than 2^19 bits) never
# do; every row but the 100 NULLs is in a group or pending.
is( $primary->safe_psql('postgres', q{
SELECT (SELECT bool_or(m = 959) AND bool_or(m = 95851) AND bool_and(m <= 524288) FROM index_groups('mixed_f'))
	|| ' ' || (SELECT (grouped_rows + pending_rows) || ' ' || (pending_rows >= 4) FROM index_meta('mixed_f'))}),
	'true 4404 true',
	'CREATE INDEX: groups of m = 959 and of m = 95,851, none of m = 958,506; the 4,404 non-NULL rows in groups or pending'
);
index_check($primary, 'postgres', 'mixed_f', 'CREATE INDEX');
same_as_scan('CREATE INDEX',
	lookups($primary, 'postgres', 'mixed', probes($primary, 'postgres', 'mixed', 50, 1)));

my $grouped_after_build =
  $primary->safe_psql('postgres', 'SELECT grouped_rows FROM index_meta(\'mixed_f\')');
my $next_id = 5000;
my $rounds  = 8;
foreach my $round (1 .. $rounds)
{
	my (@ops, @summary);
	my $singles = 3 + int(rand(15));
	push @summary, "$singles single-row INSERTs";
	push @ops, "SELECT add_rows('mixed', " . $next_id++ . ', 1);' foreach 1 .. $singles;
	my $batch = 500 + int(rand(700));
	my $kind  = rand() < 0.6 ? "'c100_int4'" : 'NULL';
	push @summary, "INSERT of $batch rows" . ($kind eq 'NULL' ? ' of random kinds' : '');
	push @ops, "SELECT add_rows('mixed', $next_id, $batch, $kind);";
	$next_id += $batch;
	if ($round == 2 || rand() < 0.15)
	{
		my $big = 220 + int(rand(80));
		push @summary, "INSERT of $big 12 kB filters";
		push @ops, "SELECT add_rows('mixed', $next_id, $big, 'c10000_int4');";
		$next_id += $big;
	}
	if (rand() < 0.7)
	{
		my $p = sprintf('%.3f', 0.01 + rand(0.04));
		push @summary, "UPDATE adding values ($p)";
		push @ops, "UPDATE mixed SET f = with_values(f, kind, lo + n, 3), n = n + 3
			WHERE f IS NOT NULL AND random() < $p;";
	}
	if (rand() < 0.5)
	{
		push @summary, 'UPDATE to NULL and back';
		push @ops, "UPDATE mixed SET f = NULL, kind = 'null' WHERE random() < 0.005;",
		  "UPDATE mixed SET kind = 'c100_int4', n = greatest(n, 3), f = recipe('c100_int4', lo, greatest(n, 3))
			WHERE f IS NULL AND random() < 0.2;";
	}
	if (rand() < 0.7)
	{
		my $p = sprintf('%.3f', 0.01 + rand(0.05));
		push @summary, "DELETE ($p)";
		push @ops, "DELETE FROM mixed WHERE random() < $p;";
	}
	if ($round == 3 || rand() < 0.5)
	{
		push @summary, 'VACUUM';
		push @ops, 'VACUUM mixed;';
	}
	my $script = 'SET seed = ' . sql_seed(100 + $round) . ";\n" . join("\n", shuffle(@ops));
	my ($ret, $out, $err) = $primary->psql('postgres', $script);
	my $label = "round $round";
	ok($ret == 0 && $err eq '', "$label (" . join(', ', @summary) . '): the statements run')
	  or diag("seed $seed: psql exited with $ret: $err");
	note("$label: metapage groups|pending|grouped " . meta($primary, 'postgres', 'mixed_f'));
	same_as_scan($label,
		lookups($primary, 'postgres', 'mixed', probes($primary, 'postgres', 'mixed', 50, 200 + $round)));
	index_check($primary, 'postgres', 'mixed_f', $label);
}
# The inserts flushed pending rows into groups, which hold no filter of more
# than 2^19 bits.
is( $primary->safe_psql('postgres', q{
SELECT bool_or(m = 959) AND bool_or(m = 95851) AND bool_and(m <= 524288) FROM index_groups('mixed_f')}),
	't', 'the rounds\' groups: of m = 959 and 95,851 among others, none of m = 958,506');
ok( $primary->safe_psql('postgres', 'SELECT grouped_rows FROM index_meta(\'mixed_f\')') > $grouped_after_build,
	'the rounds flushed pending rows into groups (the metapage\'s rows in groups grew)');

# ---- 2. a streaming standby ----
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', 'hot_standby = on');
$standby->start;
bloom_watch($standby);

my $grouped_before = $primary->safe_psql('postgres', 'SELECT grouped_rows FROM index_meta(\'mixed_f\')');
$primary->safe_psql('postgres', 'SET seed = ' . sql_seed(300) . ";
SELECT add_rows('mixed', $next_id, 2100, 'c100_int4');
UPDATE mixed SET f = with_values(f, kind, lo + n, 3), n = n + 3 WHERE f IS NOT NULL AND random() < 0.02;
DELETE FROM mixed WHERE random() < 0.05;
VACUUM mixed;");
$next_id += 2100;
ok( $primary->safe_psql('postgres', 'SELECT grouped_rows FROM index_meta(\'mixed_f\')') > $grouped_before,
	'standby: the rows inserted after it started were flushed into groups on the primary');

my $lsn = $primary->lsn('write');
ok(eval { $primary->wait_for_catchup($standby, 'replay', $lsn); 1 },
	"standby: replayed the primary's WAL up to $lsn")
  or diag($@);
# the metapage replayed: polled, as the last records may still be applying
my $primary_meta = meta($primary, 'postgres', 'mixed_f');
$standby->poll_query_until('postgres', "SELECT groups || '|' || pending_rows || '|' || grouped_rows
	FROM index_meta('mixed_f')", $primary_meta);
is(meta($standby, 'postgres', 'mixed_f'), $primary_meta,
	'standby: its metapage counts what the primary\'s does (groups|pending|grouped)');
my $probes = probes($primary, 'postgres', 'mixed', 40, 301);
my ($on_primary) = lookups($primary, 'postgres', 'mixed', $probes);
my ($on_standby, $standby_error) = lookups($standby, 'postgres', 'mixed', $probes);
same_as_scan('standby', $on_standby, $standby_error);
same_rows('standby: its index finds the rows the primary\'s finds, for every probe',
	$on_standby, $on_primary);
index_check($standby, 'postgres', 'mixed_f', 'standby');

# ---- 3. pg_dump -Fc and pg_restore ----
my ($dump_out, $dump_err) = ('', '');
IPC::Run::run([ 'pg_dump', '-Fc', '-d', $primary->connstr('postgres'), '-f', "$work/dump" ],
	'>', \$dump_out, '2>', \$dump_err);
is(shell_status($?), 0, 'pg_dump -Fc exits 0') or diag($dump_err);
$primary->safe_psql('postgres', 'CREATE DATABASE restored');
IPC::Run::run(
	[ 'pg_restore', '--exit-on-error', '-d', $primary->connstr('restored'), "$work/dump" ],
	'>', \$dump_out, '2>', \$dump_err);
is(shell_status($?), 0, 'pg_restore exits 0') or diag($dump_err);
is( $primary->safe_psql('restored', q{SELECT indexdef FROM pg_indexes WHERE tablename = 'mixed' AND indexname = 'mixed_f'}),
	'CREATE INDEX mixed_f ON public.mixed USING bloom_slices (f)',
	'pg_restore: the index is there (pg_indexes)');
check_has('pg_restore: a lookup uses the index (EXPLAIN)', 'Index Scan using mixed_f',
	$primary->safe_psql('restored', q{SET enable_seqscan = off;
		EXPLAIN (COSTS OFF) SELECT id FROM mixed WHERE f @> 1234}));
my ($restored, $restored_error) = lookups($primary, 'restored', 'mixed', $probes);
same_as_scan('pg_restore', $restored, $restored_error);
($on_primary) = lookups($primary, 'postgres', 'mixed', $probes);
same_rows('pg_restore: the restored index finds the rows the source\'s finds, for every probe',
	$restored, $on_primary);
index_check($primary, 'restored', 'mixed_f', 'pg_restore');

# ---- 4. concurrent writers, CREATE INDEX CONCURRENTLY, REINDEX CONCURRENTLY ----
$primary->safe_psql('postgres', 'SET seed = ' . sql_seed(400) . q{;
CREATE TABLE conc (id int GENERATED ALWAYS AS IDENTITY, kind text NOT NULL, lo int NOT NULL,
	n int NOT NULL, token int8, f bloom) WITH (autovacuum_enabled = off);
INSERT INTO conc (kind, lo, n, f)
SELECT 'c100_int4', lo, 3, recipe('c100_int4', lo, 3) FROM (SELECT (random() * 20000)::int AS lo
	FROM generate_series(1, 1900)) AS s;
INSERT INTO conc (kind, lo, n, f)
SELECT 'c10000_int4', lo, 3, recipe('c10000_int4', lo, 3) FROM (SELECT (random() * 20000)::int AS lo
	FROM generate_series(1, 200)) AS s;
CREATE INDEX conc_f ON conc USING bloom_slices (f);
});
check_has('concurrency: the writers\' lookup is a scan of the index (enable_seqscan = off)',
	'Index Scan using conc_f',
	$primary->safe_psql('postgres', q{SET enable_seqscan = off;
		EXPLAIN (COSTS OFF) SELECT 1 / count(*) FROM conc WHERE f @> (17 + 1) AND token = 42}));
# A writer inserts a row and finds it at once through the index (1 / 0 is
# an error otherwise); one in ten inserts a 12 kB filter.
foreach my $kind (qw(c100_int4 c10000_int4))
{
	append_to_file("$work/$kind.sql", qq{\\set lo random(0, 20000)
\\set token random(1, 1000000000000)
INSERT INTO conc (kind, lo, n, token, f) VALUES ('$kind', :lo, 3, :token, recipe('$kind', :lo, 3));
SELECT 1 / count(*) FROM conc WHERE f @> (:lo + 1) AND token = :token;
});
}
append_to_file("$work/vacuum.sql", q{\set r random(0, 96)
DELETE FROM conc WHERE id % 97 = :r AND id < (SELECT max(id) FROM conc) - 500;
\sleep 100 ms
VACUUM conc;
});
my @pgbench = ('pgbench', '--no-vacuum', '-T', 12, '-h', $primary->host, '-p', $primary->port,
	'-d', 'postgres');
my %pgbench;
my $bench_started = Time::HiRes::time();
{
	# lookups through the index only
	local $ENV{PGOPTIONS} = "$ENV{PGOPTIONS} -c enable_seqscan=off";
	%pgbench = (
		writers => IPC::Run::start(
			[ @pgbench, '-c', 3, '-j', 2, '-f', "$work/c100_int4.sql\@9",
				'-f', "$work/c10000_int4.sql\@1" ],
			'>&', "$work/writers.log"),
		vacuum => IPC::Run::start(
			[ @pgbench, '-c', 1, '-f', "$work/vacuum.sql" ], '>&', "$work/vacuum.log"));
}
usleep(1_000_000);
my ($cic_ret, $cic_out, $cic_err) =
  $primary->psql('postgres', 'CREATE INDEX CONCURRENTLY conc_f_cic ON conc USING bloom_slices (f)');
is($cic_ret . $cic_err, '0', 'CREATE INDEX CONCURRENTLY while the writers write');
my ($rx_ret, $rx_out, $rx_err) = $primary->psql('postgres', 'REINDEX INDEX CONCURRENTLY conc_f');
is($rx_ret . $rx_err, '0', 'REINDEX INDEX CONCURRENTLY while the writers write');
my $ddl_seconds = Time::HiRes::time() - $bench_started;
# the builds overlapped the writers: these still run (pgbench -T 12)
my $writers_running = $pgbench{writers}->pumpable;
foreach my $role (qw(writers vacuum))
{
	$pgbench{$role}->finish;
	my $status = shell_status($pgbench{$role}->full_result(0));
	my $log    = slurp_file("$work/$role.log");
	my ($n)      = $log =~ /^number of transactions actually processed: ([0-9]+)/m;
	my ($failed) = $log =~ /^number of failed transactions: ([0-9]+)/m;
	my @errors   = $log =~ /^(.*(?:error|abort).*)$/mgi;
	note("$role: exit $status, " . ($n // '?') . ' transactions');
	ok( $status == 0 && !@errors && ($failed // 0) == 0 && ($n // 0) >= ($role eq 'writers' ? 500 : 1),
		"pgbench $role: exit 0, no error, no failed transaction, " . ($n // 0) . ' transactions')
	  or diag($log);
}
ok($writers_running,
	sprintf('both concurrent builds ended while the writers wrote (%.1f s into their 12 s)', $ddl_seconds));
my $conc_meta = meta($primary, 'postgres', 'conc_f');
note("conc_f after the run: groups|pending|grouped $conc_meta");
is( $primary->safe_psql('postgres', q{
SELECT count(*) FILTER (WHERE NOT indisvalid) || ' ' || count(*) FROM pg_index WHERE indrelid = 'conc'::regclass}),
	'0 2', 'both indexes of the concurrent builds are valid');
ok( $primary->safe_psql('postgres', q{SELECT count(*) FROM conc}) > 2100 + 500,
	'the writers inserted rows');
index_check($primary, 'postgres', 'conc_f',     'concurrency (REINDEX CONCURRENTLY)');
index_check($primary, 'postgres', 'conc_f_cic', 'concurrency (CREATE INDEX CONCURRENTLY)');
$probes = probes($primary, 'postgres', 'conc', 40, 401);
same_as_scan('concurrency: the reindexed conc_f alone',
	lookups($primary, 'postgres', 'conc', $probes, 'DROP INDEX conc_f_cic'));
same_as_scan('concurrency: conc_f_cic (built concurrently) alone',
	lookups($primary, 'postgres', 'conc', $probes, 'DROP INDEX conc_f'));
# the index built concurrently takes new rows and flushes them
$primary->safe_psql('postgres', q{
INSERT INTO conc (kind, lo, n, f) SELECT 'c100_int4', g % 20000, 3, recipe('c100_int4', g % 20000, 3)
FROM generate_series(1, 2100) AS g});
index_check($primary, 'postgres', 'conc_f_cic', 'concurrency, after a flush');

# ---- 5. a crash in the middle of single-row inserts ----
$primary->safe_psql('postgres', 'SET seed = ' . sql_seed(500) . q{;
CREATE TABLE crash (id int PRIMARY KEY, kind text NOT NULL, lo int NOT NULL, n int NOT NULL, f bloom)
	WITH (autovacuum_enabled = off);
SELECT add_rows('crash', 1, 1500, 'c100_int4');
SELECT add_rows('crash', 1501, 40, 'c10000_int4');
CREATE INDEX crash_f ON crash USING bloom_slices (f);
});
my $crash_grouped = $primary->safe_psql('postgres', 'SELECT grouped_rows FROM index_meta(\'crash_f\')');
# Row i (from 10,001): a 12 kB filter one time in ten, else capacity 100:
# thousands of rows of each shape, flushed as they come.  psql prints each
# id once its INSERT has committed.
my $crash_rows = 8000;
append_to_file("$work/crash.sql", join('', map {
	my $kind = $_ % 10 == 0 ? 'c10000_int4' : 'c100_int4';
	"INSERT INTO crash SELECT $_, '$kind', lo, 3, recipe('$kind', lo, 3) FROM (SELECT ($_ * 7919) % 20000 AS lo) AS s RETURNING id;\n"
} 10001 .. 10000 + $crash_rows));
my $loader = IPC::Run::start(
	[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $primary->connstr('postgres'),
		'-f', "$work/crash.sql" ],
	'>', "$work/crash.out", '2>', "$work/crash.err");
my $stop_at = 2600 + int(rand(1500));
my $deadline = time + 60;
my $checkpointed = 0;
my $inserted = 0;
while (time < $deadline && $loader->pumpable)
{
	$inserted = $primary->safe_psql('postgres', 'SELECT count(*) FROM crash WHERE id > 10000');
	last if $inserted >= $stop_at;
	if (!$checkpointed && $inserted >= 1000)
	{
		$primary->safe_psql('postgres', 'CHECKPOINT');
		$checkpointed = 1;
	}
	usleep(20_000);
}
$primary->stop('immediate');
$loader->finish;
my @acknowledged = grep { /^\d+$/ } split /\n/, slurp_file("$work/crash.out");
note('the loader: ' . (-s "$work/crash.err" ? slurp_file("$work/crash.err") : 'no error'));
ok( $checkpointed && @acknowledged >= 2400 && @acknowledged < $crash_rows,
	'the server was stopped (immediate) in the middle of the inserts, after a checkpoint ('
	  . scalar(@acknowledged) . ' acknowledged)');
my $log_offset = -s $primary->logfile;
$primary->start;
ok( $primary->log_contains(qr/database system was interrupted|not properly shut down/, $log_offset)
	  && $primary->log_contains(qr/redo done/, $log_offset),
	'crash recovery replayed the WAL');
my $acknowledged = '{' . join(',', @acknowledged) . '}';
is( $primary->safe_psql('postgres', "SELECT count(*) FROM unnest('$acknowledged'::int[]) AS a(id)
	WHERE NOT EXISTS (SELECT FROM crash WHERE crash.id = a.id)"),
	'0', 'crash: every insert psql saw committed is there');
ok( $primary->safe_psql('postgres', 'SELECT grouped_rows FROM index_meta(\'crash_f\')') > $crash_grouped,
	'crash: the inserts had flushed rows into groups');
index_check($primary, 'postgres', 'crash_f', 'crash recovery');
$probes = probes($primary, 'postgres', 'crash', 40, 501);
same_as_scan('crash recovery', lookups($primary, 'postgres', 'crash', $probes));
$primary->safe_psql('postgres', 'SET seed = ' . sql_seed(502) . q{;
SELECT add_rows('crash', 100001, 2100, 'c100_int4');
SELECT add_rows('crash', 102101, 300, 'c10000_int4');
DELETE FROM crash WHERE random() < 0.05;
VACUUM crash;});
index_check($primary, 'postgres', 'crash_f', 'crash recovery, then flushes, DELETE and VACUUM');
$probes = probes($primary, 'postgres', 'crash', 40, 503);
same_as_scan('crash recovery, then flushes, DELETE and VACUUM',
	lookups($primary, 'postgres', 'crash', $probes));
$lsn = $primary->lsn('write');
ok(eval { $primary->wait_for_catchup($standby, 'replay', $lsn); 1 },
	"crash: the standby has replayed the restarted primary's WAL up to $lsn")
  or diag($@);
index_check($standby, 'postgres', 'crash_f', 'crash, on the standby');
($on_primary) = lookups($primary, 'postgres', 'crash', $probes);
($on_standby) = lookups($standby, 'postgres', 'crash', $probes);
same_rows('crash: the standby\'s index finds the rows the primary\'s finds, for every probe',
	$on_standby, $on_primary);

# ---- 6. damaged pages ----
# An index of its own for each damage: 2,100 rows of capacity 100 (a group
# and some rows pending), or ROWS built in BUILD_MEMORY.  The damage: BYTES written at byte AT of the first
# block of TYPE (1 meta, 2 pending, 3 group, 4 TIDs, 5 slices), or at the
# start of its item AT_ITEM.
my %damage = (
	# the metapage's special space: another page type
	meta => { type => 1, at => 8184, bytes => "\xde\xad\xbe\xef\x07\x00\x5c\xb1" },
	# the first pending page's special space, zeroed
	pending => { type => 2, at => 8184, bytes => "\0" x 8 },
	# the first slice page's special space, garbage
	slices => { type => 5, at => 8184, bytes => "\x13\x37" x 4 },
	# the group page's header (shape, G, rows, pages), garbage
	group => { type => 3, at => 24, bytes => "\xa5" x 64 },
	# the first TID page's TIDs, garbage: offsets no heap page has
	tids => { type => 4, at => 24, bytes => "\x01\x00\x02\x00\x77\x77" x 1024 },
	# a group the build wrote full (8,128 rows at maintenance_work_mem 1MB),
	# whose TIDs are packed: its first TID page's first block, garbage
	packed => { type => 4, at => 24, bytes => "\xff" x 64, rows => 8200, build_memory => '1MB' },
	# the metapage's head of the pending chain: a block past the end
	link => { type => 1, at => 32, bytes => pack('V', 1000) },
	# the first pending page's first row: its heap TID's block (BlockIdData:
	# two halves) 1,000,000, past the table's end (at_item: at that item)
	pending_tid => { type => 2, at_item => 1, bytes => pack('vv', 1_000_000 >> 16, 1_000_000 & 0xffff) },
);
my @damaged = sort keys %damage;
foreach my $name (@damaged)
{
	my $d = $damage{$name};
	$primary->safe_psql('postgres', 'SET seed = ' . sql_seed(600) . ";
CREATE TABLE dmg_$name (id int PRIMARY KEY, kind text NOT NULL, lo int NOT NULL, n int NOT NULL, f bloom)
	WITH (autovacuum_enabled = off);
SELECT add_rows('dmg_$name', 1, " . ($d->{rows} // 2100) . ", 'c100_int4');
SET maintenance_work_mem = '" . ($d->{build_memory} // '64MB') . "';
CREATE INDEX dmg_${name}_f ON dmg_$name USING bloom_slices (f);");
	($d->{block}, my $blocks, my $path) = split /\|/, $primary->safe_psql('postgres',
		"SELECT (SELECT min(block) FROM index_pages('dmg_${name}_f') WHERE type = $d->{type}),
			pg_relation_size('dmg_${name}_f') / 8192, pg_relation_filepath('dmg_${name}_f')");
	$d->{file} = $primary->data_dir . "/$path";
	$d->{at} //= $primary->safe_psql('postgres',
		"SELECT lp_off FROM heap_page_items(get_raw_page('dmg_${name}_f', $d->{block}::int))
			WHERE lp = $d->{at_item}");
	die "dmg_${name}_f has $blocks blocks: 1000 is not past its end" if $blocks >= 1000;
}
$primary->stop;
foreach my $name (@damaged)
{
	my $d = $damage{$name};
	open(my $fh, '+<', $d->{file}) or die "could not open $d->{file}: $!";
	binmode $fh;
	sysseek($fh, $d->{block} * 8192 + $d->{at}, 0) or die "could not seek in $d->{file}: $!";
	syswrite($fh, $d->{bytes}) == length($d->{bytes}) or die "could not write $d->{file}: $!";
	close($fh);
}
$log_offset = -s $primary->logfile;
$primary->start;

# a lookup of 200 values: one of them reads any given slice page
my $lookup = 'SET enable_seqscan = off;
SELECT sum((SELECT count(*) FROM dmg_%s WHERE f @> v)) FROM generate_series(1, 200) AS v;';
foreach my $name (@damaged)
{
	my $label = "damaged $name (block $damage{$name}{block})";
	check_has("$label: a lookup plans the index scan", "Index Scan using dmg_${name}_f",
		$primary->safe_psql('postgres', "SET enable_seqscan = off;
			EXPLAIN (COSTS OFF) SELECT count(*) FROM dmg_$name WHERE f @> 5"));
	my ($ret, $out, $err) =
	  $primary->psql('postgres', "\\set VERBOSITY verbose\n" . sprintf($lookup, $name));
	like($err, qr/ERROR:  XX002: index "dmg_${name}_f" .*(corrupted|past its end|invalid heap TID)/,
		"$label: a lookup through the index is ERROR XX002, naming the index and the damage");
	($ret, $out, $err) = $primary->psql('postgres',
		"\\set VERBOSITY verbose\nSELECT bloom_index_check('dmg_${name}_f', true)");
	like($err, qr/ERROR:  XX002: /, "$label: bloom_index_check reports it, ERROR XX002");
	is($primary->safe_psql('postgres', 'SELECT 1'), '1', "$label: the server still answers");
	$primary->safe_psql('postgres', "REINDEX INDEX dmg_${name}_f");
	index_check($primary, 'postgres', "dmg_${name}_f", "$label, after REINDEX");
	same_as_scan("$label, after REINDEX",
		lookups($primary, 'postgres', "dmg_$name", probes($primary, 'postgres', "dmg_$name", 30, 601)));
}
# ---- 7. autovacuum, and a logical replica ----
# Autovacuum on a table of its own (thresholds of 50 rows, a naptime of a
# second): once it has vacuumed the table, the deleted rows are out of the
# pending chain (the metapage counts fewer pending rows) and the index still
# finds what a scan finds.
$primary->safe_psql('postgres', q{ALTER SYSTEM SET autovacuum_naptime = 1; SELECT pg_reload_conf();});
$primary->safe_psql('postgres', 'SET seed = ' . sql_seed(700) . q{;
CREATE TABLE auto (id int PRIMARY KEY, kind text NOT NULL, lo int NOT NULL, n int NOT NULL, f bloom)
	WITH (autovacuum_enabled = off);
SELECT add_rows('auto', 1, 1500, 'c100_int4');
CREATE INDEX auto_f ON auto USING bloom_slices (f);
SELECT add_rows('auto', 1501, 600, 'c100_int4');
DELETE FROM auto WHERE id % 5 = 0;});
my $pending_before = $primary->safe_psql('postgres', q{SELECT pending_rows FROM index_meta('auto_f')});
$primary->safe_psql('postgres', q{ALTER TABLE auto SET (autovacuum_enabled = on,
	autovacuum_vacuum_threshold = 50, autovacuum_vacuum_scale_factor = 0);});
ok( $primary->poll_query_until('postgres',
		q{SELECT autovacuum_count > 0 FROM pg_stat_user_tables WHERE relname = 'auto'}),
	'autovacuum: it vacuumed the table');
$primary->safe_psql('postgres', q{ALTER TABLE auto SET (autovacuum_enabled = off);
ALTER SYSTEM RESET autovacuum_naptime; SELECT pg_reload_conf();});
my $pending_after = $primary->safe_psql('postgres', q{SELECT pending_rows FROM index_meta('auto_f')});
ok($pending_before > 0 && $pending_after < $pending_before,
	"autovacuum: the deleted rows left the pending chain ($pending_before pending rows before, $pending_after after)");
same_as_scan('autovacuum',
	lookups($primary, 'postgres', 'auto', probes($primary, 'postgres', 'auto', 30, 701)));
index_check($primary, 'postgres', 'auto_f', 'autovacuum');

# A logical replica: the subscriber's table has its own bloom_slices index,
# which the initial copy fills (one insert at a time, through the pending
# chain and its flushes), then the replicated INSERTs, UPDATEs and DELETEs.
my $pub = bloom_node('index_pub', allows_streaming => 'logical', conf => { log_statement => 'none' });
my $sub = bloom_node('index_sub', conf => { log_statement => 'none' });
$_->safe_psql('postgres', slurp_file(bloom_root() . '/t/index.sql')) foreach ($pub, $sub);
my $lr_table = 'CREATE TABLE lr (id int PRIMARY KEY, kind text NOT NULL, lo int NOT NULL, n int NOT NULL,
	f bloom) WITH (autovacuum_enabled = off);
CREATE INDEX lr_f ON lr USING bloom_slices (f);';
$pub->safe_psql('postgres', 'SET seed = ' . sql_seed(710) . ";
$lr_table
SELECT add_rows('lr', 1, 1500);
CREATE PUBLICATION lr_pub FOR TABLE lr;");
(my $pub_connstr = $pub->connstr('postgres')) =~ s/'/''/g;
$sub->safe_psql('postgres', "$lr_table
CREATE SUBSCRIPTION lr_sub CONNECTION '$pub_connstr' PUBLICATION lr_pub;");
ok( $sub->poll_query_until('postgres',
		q{SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate NOT IN ('r', 's')}),
	'logical replica: the initial copy is done');
$pub->safe_psql('postgres', 'SET seed = ' . sql_seed(711) . q{;
SELECT add_rows('lr', 1501, 700);
UPDATE lr SET f = with_values(f, kind, lo + n, 3), n = n + 3 WHERE f IS NOT NULL AND random() < 0.05;
DELETE FROM lr WHERE random() < 0.05;});
my $lr_lsn = $pub->lsn('write');
ok(eval { $pub->wait_for_catchup('lr_sub', 'replay', $lr_lsn); 1 },
	"logical replica: caught up with the publisher's WAL up to $lr_lsn")
  or diag($@);
is( $sub->safe_psql('postgres', 'SELECT count(*) || \'|\' || sum(id) FROM lr'),
	$pub->safe_psql('postgres', 'SELECT count(*) || \'|\' || sum(id) FROM lr'),
	'logical replica: the subscriber has the publisher\'s rows (count|sum of ids)');
ok($sub->safe_psql('postgres', q{SELECT groups FROM index_meta('lr_f')}) > 0,
	'logical replica: the subscriber\'s index flushed rows into groups');
my $lr_probes = probes($pub, 'postgres', 'lr', 40, 712);
my ($on_sub, $sub_error) = lookups($sub, 'postgres', 'lr', $lr_probes);
same_as_scan('logical replica, on the subscriber', $on_sub, $sub_error);
my ($on_pub) = lookups($pub, 'postgres', 'lr', $lr_probes);
same_rows('logical replica: the subscriber\'s index finds the rows the publisher\'s finds, for every probe',
	$on_sub, $on_pub);
index_check($sub, 'postgres', 'lr_f', 'logical replica, on the subscriber');
$sub->safe_psql('postgres', 'DROP SUBSCRIPTION lr_sub');

my @crashes = grep { /terminated by signal|server process .* was terminated/ }
  split /\n/, substr(slurp_file($primary->logfile), $log_offset);
ok(!@crashes, 'damage: no backend crashed on a damaged page') or diag(join("\n", @crashes));

note('(' . (time - $started) . ' s)');
bloom_done();
