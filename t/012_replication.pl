# Logical replication of filters.
#
# Two servers: the publisher (wal_level = logical, logical_decoding_work_mem
# = 64kB) and the subscriber, with two subscriptions to one publication, in
# two databases: binary = false (values travel in text form, through
# bloom_out and bloom_in) and binary = true (bloom_send and bloom_recv), both
# with streaming = on.  Logical decoding hands the output functions a stored
# filter as an external indirect pointer: the form no SQL query can make.
#
# After each step every table must be bit-identical on both subscribers: the
# same md5 of every row's text form as on the publisher, and every filter =
# to the publisher's value, carried over by COPY (FORMAT binary).
#
#   1. the initial copy: small inline filters, a NULL, 12 kB filters stored
#      out of line, compressed filters stored out of line (STORAGE EXTENDED);
#   2. streamed changes: INSERT, UPDATE f = bloom_add(f, 424242) of filters
#      stored out of line (the statement that broke the walsender before
#      4d21db6), an UPDATE that leaves the filters as they are, DELETE; a
#      12 MB filter (scheme 2) inserted and then updated by bloom_add;
#   3. a transaction of ~5 MB of changes (300 filters of 12 kB stored out
#      of line, half of them then updated by bloom_add): with
#      streaming = on it must be streamed while still in progress
#      (pg_stat_replication_slots), and not be visible on the subscribers
#      before it commits;
#   4. test_decoding's output of an updated stored filter is its text form;
#   6. counting and scalable filters (table sets), through steps 1, 2 and 4:
#      inline, out of line, both hash schemes, several stages, NULL; then
#      streamed, an INSERT, bloom_add and bloom_remove on out-of-line
#      counting filters (scheme 1, 96 kB, and scheme 2, 512 kB), bloom_add
#      that gives a scalable filter a new stage, an UPDATE that leaves them
#      as they are, a DELETE;
#   5. a subscription stopped by the old library: the publisher runs the
#      library of f97c54e (built from git, and copied over the library of
#      the publisher's own install tree), the walsender fails on the same
#      UPDATE; with the new library installed and the publisher restarted,
#      both subscriptions catch up with no resync (rows copied before keep
#      their xmin on the subscriber).  Skipped (not counted) without git or
#      that commit, or on a PostgreSQL other than 15, which it does not
#      build against.
#
# No ERROR may appear in either server log but those step 5 provokes.
use strict;
use warnings;
use BloomTest;
use File::Compare ();
use File::Copy ();
use File::Path qw(make_path);
use PostgreSQL::Test::Utils;
use Test::More;

my $started = time;
my $work    = PostgreSQL::Test::Utils::tempdir('replication');

# The publisher runs on an install tree of its own, whose library step 5
# replaces: a copy of $BLOOM_INST, or of the installed extension's files;
# the subscriber on $BLOOM_INST (or the installation).
my $sharedir  = `pg_config --sharedir`;
my $pkglibdir = `pg_config --pkglibdir`;
chomp($sharedir, $pkglibdir);
my $library     = "$pkglibdir/bloomfilter.so";
my $sub_inst    = $ENV{BLOOM_INST};
my $sub_library = ($sub_inst // '') . $library;
my $pub_inst    = "$work/publisher_inst";
mkdir $pub_inst or die "could not create \"$pub_inst\": $!";
if ($sub_inst)
{
	run_log([ 'cp', '-a', "$sub_inst/.", "$pub_inst/" ])
	  or die "could not copy \"$sub_inst\"";
}
else
{
	make_path("$pub_inst$sharedir/extension", "$pub_inst$pkglibdir");
	foreach my $file (glob("$sharedir/extension/bloomfilter*"), $library)
	{
		File::Copy::copy($file, "$pub_inst$file")
		  or die "could not copy \"$file\": $!";
	}
}

my $pub = bloom_node(
	'publisher',
	inst => $pub_inst,
	conf => {
		wal_level                 => 'logical',
		logical_decoding_work_mem => '64kB',
		max_wal_senders           => 10,
		max_replication_slots     => 10
	});
my $sub = bloom_node(
	'subscriber',
	conf => {
		max_logical_replication_workers => 8,
		max_worker_processes            => 16,
		wal_retrieve_retry_interval     => '500ms'
	});

my @subscriptions = qw(s_text s_binary);

# The tables, with the columns that hold filters.
my @tables = qw(filters big stream sets);
my %filter_columns =
  (filters => [qw(f c)], big => ['f'], stream => ['f'], sets => [qw(c s)]);

my $schema = q{
CREATE EXTENSION bloomfilter;
-- f: STORAGE external, as the type says; c: STORAGE extended, compressed (pglz)
CREATE TABLE filters (id int PRIMARY KEY, note text, f bloom, c bloom);
ALTER TABLE filters ALTER c SET STORAGE EXTENDED, ALTER c SET COMPRESSION pglz;
CREATE TABLE big (id int PRIMARY KEY, f bloom);
CREATE TABLE stream (id int PRIMARY KEY, f bloom);
CREATE TABLE sets (id int PRIMARY KEY, c counting_bloom, s scalable_bloom);
};

# ---- the publisher's data and the subscriptions ----
$pub->safe_psql('postgres', 'CREATE DATABASE pub');
$pub->safe_psql('pub', $schema . q{
CREATE PUBLICATION p FOR TABLE filters, big, stream, sets;
-- 1..3: small, inline; 4: NULL; 11..16: 12 kB, out of line, with a
-- compressible 120 kB filter in c that compresses to ~17 kB, out of line too
INSERT INTO filters
SELECT id, 'small', (SELECT bloom_agg(g, 0.01, 50) FROM generate_series(id * 100, id * 100 + 40) AS g), NULL
FROM generate_series(1, 3) AS id;
INSERT INTO filters VALUES (4, 'null', NULL, NULL);
INSERT INTO filters
SELECT id, 'stored',
	(SELECT bloom_agg(g, 0.01, 10000) FROM generate_series(id * 10000, id * 10000 + 9999) AS g),
	(SELECT bloom_agg(g, 0.01, 100000) FROM generate_series(id * 10000, id * 10000 + 999) AS g)
FROM generate_series(11, 16) AS id;
-- 1: inline; 2: NULL; 3: out of line, scheme 1 (96 kB) and 4 stages;
-- 4: out of line, scheme 2 (a counting filter of 512 kB given by its text
-- form, a scalable one of 3.4 MB), 100 values removed from the counting one
INSERT INTO sets VALUES
	(1, bloom_add_all(counting_bloom_empty(0.01, 50), ARRAY[1, 2, 3]),
		bloom_add_all(scalable_bloom_empty(0.01, 5), ARRAY(SELECT generate_series(1, 20)))),
	(2, NULL, NULL),
	(3, bloom_add_all(counting_bloom_empty(0.01, 20000), ARRAY(SELECT generate_series(1, 20000))),
		bloom_add_all(scalable_bloom_empty(0.01, 2000), ARRAY(SELECT generate_series(1, 20000)))),
	(4, bloom_remove_all(bloom_add_all(('counting_bloom:v1:h2:m1048576:k7:' || repeat('A', 699051) || '=')::counting_bloom,
			ARRAY(SELECT generate_series(1, 20000))), ARRAY(SELECT generate_series(1, 100))),
		bloom_add_all(scalable_bloom_empty(0.01, 2000000), ARRAY(SELECT generate_series(1, 1000))));
});
is( $pub->safe_psql(
		'pub', q{
SELECT bool_and(pg_column_size(f) = octet_length(bloom_send(f))
		AND pg_column_compression(c) = 'pglz' AND pg_column_size(c) < octet_length(bloom_send(c)) / 4)
	AND pg_relation_size((SELECT reltoastrelid FROM pg_class WHERE relname = 'filters')) > 6 * (12000 + 10000)
FROM filters WHERE note = 'stored'}),
	't',
	'publisher: 12 kB filters stored out of line, compressed ones compressed (pglz)');
is( $pub->safe_psql(
		'pub', q{
SELECT string_agg(id || ':' || coalesce(pg_column_size(c) || '/' || (bloom_info(c)).hash_scheme
	|| ' ' || pg_column_size(s) || '/' || (bloom_info(s)).stages
	|| '/' || (SELECT max(hash_scheme) FROM scalable_bloom_stages(s)), 'NULL'), ' ' ORDER BY id)
FROM sets}),
	'1:256/1 192/3/1 2:NULL 3:95868/1 52604/4/1 4:524300/2 3434364/1/2',
	'publisher: counting and scalable filters (bytes/scheme, bytes/stages/scheme): inline (1), out of line (3, 4), both hash schemes, 1 to 4 stages'
);

foreach my $s (@subscriptions)
{
	my $binary  = $s eq 's_binary' ? 'true' : 'false';
	(my $connstr = $pub->connstr('pub')) =~ s/'/''/g;
	$sub->safe_psql('postgres', "CREATE DATABASE $s");
	$sub->safe_psql($s, $schema . qq{
-- the publisher's values, carried over by COPY (FORMAT binary)
CREATE TABLE pub_filters (LIKE filters);
CREATE TABLE pub_big (LIKE big);
CREATE TABLE pub_stream (LIKE stream);
CREATE TABLE pub_sets (LIKE sets);
CREATE SUBSCRIPTION $s CONNECTION '$connstr'
	PUBLICATION p WITH (binary = $binary, streaming = on);
});
}
# A failure to set up ends the run (safe_psql); from here on a failed step
# fails its checks only, and the run goes on.

# ---- helpers ----

# query(NODE, DB, SQL): its output; an error is shown, not fatal
sub query
{
	my ($node, $db, $sql) = @_;
	my ($ret, $stdout, $stderr) = $node->psql($db, $sql);
	diag($node->name . " ($db): psql exited with $ret: $stderr") if $ret;
	return $stdout;
}

# succeeds(NODE, DB, SQL): whether psql ran it all (exit 0); an error is shown
sub succeeds
{
	my ($node, $db, $sql) = @_;
	my ($ret, $stdout, $stderr) = $node->psql($db, $sql);
	diag($node->name . " ($db): psql exited with $ret: $stderr") if $ret;
	return $ret == 0;
}

# caught_up(LABEL): both subscriptions caught up with the publisher's
# current WAL position
sub caught_up
{
	my ($label) = @_;
	my $lsn = $pub->lsn('write');
	my $done = eval {
		$pub->wait_for_catchup($_, 'replay', $lsn) foreach @subscriptions;
		1;
	};
	ok($done, "$label: both subscriptions caught up")
	  or diag("the subscriptions did not catch up with $lsn: $@",
		query($pub, 'pub',
			'SELECT application_name, state, replay_lsn FROM pg_stat_replication'));
	return;
}

# compare(LABEL): every table bit-identical on both subscribers
sub compare
{
	my ($label) = @_;
	foreach my $table (@tables)
	{
		my $rows = "SELECT id || ' ' || md5(t::text) FROM $table AS t ORDER BY id";
		my $expected = query($pub, 'pub', $rows);
		# (a file of this step's, or none: never an earlier step's)
		my $file = "$work/$table.copy";
		unlink $file;
		my $exported =
		  succeeds($pub, 'pub', "\\copy $table TO '$file' (FORMAT binary)");
		foreach my $s (@subscriptions)
		{
			my $got = query($sub, $s, $rows);
			my $n = () = $got =~ /^./mg;
			is($got, $expected,
				"$label, $s: $table, the md5 of each row's text form as on the publisher ($n rows)"
			);
			my $imported = $exported
			  && succeeds($sub, $s,
				"TRUNCATE pub_$table;\n\\copy pub_$table FROM '$file' (FORMAT binary)");
			my $differ = join(' OR ',
				'false',
				map { "s.$_ IS DISTINCT FROM p.$_" } @{ $filter_columns{$table} });
			is( $imported
				? query(
					$sub, $s,
					"SELECT count(*) FROM $table AS s FULL JOIN pub_$table AS p USING (id)
					WHERE s.id IS NULL OR p.id IS NULL OR $differ")
				: "(the binary COPY from the publisher to $s failed)",
				'0',
				"$label, $s: $table, every filter = the publisher's (carried over by binary COPY)"
			);
		}
	}
	return;
}

# log_errors(NODE, OFFSET): the ERROR, FATAL and PANIC lines of NODE's log
# from byte OFFSET on
sub log_errors
{
	my ($node, $offset) = @_;
	return grep { /(ERROR|FATAL|PANIC):/ }
	  split /\n/, slurp_file($node->logfile, $offset);
}

sub no_errors
{
	my ($label, $pub_from, $sub_from) = @_;
	foreach my $name ('publisher', 'subscriber')
	{
		my @errors =
			$name eq 'publisher'
		  ? log_errors($pub, $pub_from)
		  : log_errors($sub, $sub_from);
		ok(!@errors, "$label: no ERROR in the ${name}'s log")
		  or diag(join("\n", grep { defined } @errors[ 0 .. 9 ]));
	}
	return;
}

# ---- 1. the initial copy ----
ok( eval {
		$sub->wait_for_subscription_sync(undef, undef, $_) foreach @subscriptions;
		1;
	},
	'initial copy: every table of both subscriptions synchronized') or diag($@);
caught_up('initial copy');
compare('initial copy');

# ---- 2. streamed changes ----
query($pub, 'pub', q{
INSERT INTO filters
SELECT id, 'inserted',
	(SELECT bloom_agg(g, 0.01, 10000) FROM generate_series(id * 10000, id * 10000 + 9999) AS g),
	(SELECT bloom_agg(g, 0.01, 100000) FROM generate_series(id * 10000, id * 10000 + 999) AS g)
FROM generate_series(21, 24) AS id;
-- the statement that broke the walsender: a new value of a stored filter
UPDATE filters SET f = bloom_add(f, 424242) WHERE id IN (11, 12, 21);
UPDATE filters SET c = bloom_add(c, 424242), f = bloom_add(f, 's'::text) WHERE id IN (13, 22);
UPDATE filters SET f = f | bloom_add(f & f, -1) WHERE id = 1;
-- the filters unchanged (sent as "unchanged TOAST" or as they are)
UPDATE filters SET note = 'touched' WHERE id IN (14, 23);
DELETE FROM filters WHERE id IN (15, 24, 2);
-- 12 MB: scheme 2, stored out of line, then replaced by bloom_add
INSERT INTO big SELECT 1, bloom_agg(g, 0.01, 10000000) FROM generate_series(1, 200000) AS g;
UPDATE big SET f = bloom_add(f, 424242);
-- counting and scalable filters: new values of stored filters
INSERT INTO sets VALUES (5, counting_bloom_empty(0.001, 5000), scalable_bloom_empty(0.001, 5000));
UPDATE sets SET c = bloom_add(c, 424242), s = bloom_add(s, 424242) WHERE id IN (3, 4);
UPDATE sets SET c = bloom_remove_all(c, ARRAY(SELECT generate_series(101, 150))) WHERE id = 4;
UPDATE sets SET c = bloom_remove(c, 7) WHERE id = 3;
-- a fifth stage
UPDATE sets SET s = bloom_add_all(s, ARRAY(SELECT generate_series(20001, 40000))) WHERE id = 3;
UPDATE sets SET id = 6 WHERE id = 1;
DELETE FROM sets WHERE id = 2;
});
is( query(
		$pub, 'pub', q{
SELECT i.bytes > 12000000 AND pg_column_size(f) = octet_length(bloom_send(f))
	AND bloom_send(f) = bloom_send(bloom_add((SELECT bloom_agg(g, 0.01, 10000000) FROM generate_series(1, 200000) AS g), 424242))
FROM big, bloom_info(f) AS i}),
	't',
	'the 12 MB filter is scheme 2, stored out of line');
caught_up('streamed changes');
compare('streamed changes');
is( query(
		$sub, 's_text',
		'SELECT bool_and(f @> 424242) FROM filters WHERE id IN (11, 12, 21)'),
	't',
	'the updated filters contain 424242 on the subscriber (binary = false)');
foreach my $s (@subscriptions)
{
	is( query(
			$sub, $s, q{
SELECT string_agg(id || ':' || (bloom_info(c)).values || ' ' || (bloom_info(s)).stages
	|| ' ' || (c @> 424242 AND s @> 424242 AND (id = 4 OR s @> 40000)), ' ' ORDER BY id)
FROM sets WHERE id IN (3, 4)}),
		'3:20000 5 true 4:19851 1 true',
		"$s: the counting filters count what was added and removed, the scalable one has its fifth stage"
	);
}

# ---- 3. a large transaction, streamed while in progress ----
# One session opens the transaction and makes its changes, then waits; the
# transaction must show up in both slots' stream_txns before COMMIT is
# sent, with nothing visible on the subscribers yet.
my $stream_stats = q{
SELECT string_agg(slot_name || ' ' || stream_txns || ' ' || stream_bytes, ' ' ORDER BY slot_name)
FROM pg_stat_replication_slots WHERE slot_name IN ('s_binary', 's_text')};
my (undef, $binary_txns_before, undef, undef, $text_txns_before) =
  split / /, query($pub, 'pub', $stream_stats);
my $transaction = $pub->background_psql('pub');
# the framework's timeout for each query, not one for the whole step (which
# waits for the streaming and queries the subscribers before the COMMIT)
$transaction->set_query_timer_restart;
my $changed = eval {
	$transaction->query_safe(q{
BEGIN;
INSERT INTO stream
SELECT id, (SELECT bloom_agg(g, 0.01, 10000) FROM generate_series(id * 10000, id * 10000 + 4999) AS g)
FROM generate_series(1, 300) AS id;
UPDATE stream SET f = bloom_add(f, 424242) WHERE id % 2 = 0;
});
	1;
};
diag("the large transaction failed: $@") unless $changed;
if ($pub->poll_query_until(
		'pub', qq{
SELECT count(*) = 2 FROM pg_stat_replication_slots
WHERE (slot_name = 's_binary' AND stream_txns > $binary_txns_before)
	OR (slot_name = 's_text' AND stream_txns > $text_txns_before)}))
{
	my @stats = split / /, query($pub, 'pub', $stream_stats);
	pass(
		sprintf(
			'the open transaction was streamed to both subscriptions before its COMMIT '
			  . '(so far %s: %s transactions, %s bytes streamed; %s: %s, %s bytes)',
			@stats));
}
else
{
	fail('the open transaction was not streamed in time: '
		  . query($pub, 'pub', $stream_stats));
}
foreach my $s (@subscriptions)
{
	is(query($sub, $s, 'SELECT count(*) FROM stream'),
		'0', "$s: none of the streamed rows is visible before the COMMIT");
}
my $committed = eval {
	$transaction->query_safe('COMMIT');
	1;
};
diag("COMMIT failed: $@") unless $committed;
my $exited = eval { $transaction->quit };
ok($changed && $committed && $exited, 'the large transaction commits');
caught_up('large streamed transaction');
compare('large streamed transaction');
is( query(
		$sub, 's_binary',
		'SELECT count(*) FROM stream WHERE f @> (id * 10000) AND (id % 2 = 1 OR f @> 424242)'
	),
	'300',
	'the streamed rows are there (300) on the subscriber (binary = true)');

# ---- 4. test_decoding ----
query($pub, 'pub',
	"SELECT 'created' FROM pg_create_logical_replication_slot('decoding', 'test_decoding')"
);
query($pub, 'pub', 'UPDATE filters SET f = bloom_add(f, 777) WHERE id = 16');
is( query(
		$pub, 'pub', q{
SELECT count(*) = 1 AND bool_and(substring(data FROM 'f\[bloom\]:''([^'']*)''')
		= (SELECT f::text FROM filters WHERE id = 16))
FROM pg_logical_slot_get_changes('decoding', NULL, NULL)
WHERE data LIKE 'table public.filters: UPDATE: id[integer]:16 %';
}),
	't',
	'test_decoding prints an updated stored filter as its text form');
query($pub, 'pub', 'UPDATE sets SET c = bloom_remove(c, 424242) WHERE id = 4');
is( query(
		$pub, 'pub', q{
SELECT count(*) = 1 AND bool_and(substring(data FROM 'c\[counting_bloom\]:''([^'']*)''')
		= (SELECT c::text FROM sets WHERE id = 4))
FROM pg_logical_slot_get_changes('decoding', NULL, NULL)
WHERE data LIKE 'table public.sets: UPDATE: id[integer]:4 %';
}),
	't',
	'test_decoding prints an updated stored counting filter as its text form');
query($pub, 'pub', "SELECT pg_drop_replication_slot('decoding')");
caught_up("test_decoding's UPDATE");
compare("test_decoding's UPDATE");
no_errors('steps 1 to 4', 0, 0);

# ---- 5. a subscription stopped by the old library catches up with the new ----
step5();
note('(' . (time - $started) . ' s)');
bloom_done();

sub step5
{
	my $old_commit = 'f97c54e';
	my $root       = bloom_root();
	# The test may run as another user than the one who owns the tree:
	# git is told that this repository is the one meant.
	my @git = ('git', '-c', "safe.directory=$root", '-C', $root);
	if (!eval {
			run_log([ @git, 'cat-file', '-e', "$old_commit^{commit}" ],
				'2>', \my $err);
		})
	{
		diag(
			"skipped: the old library (git commit $old_commit is not available here)"
		);
		return;
	}
	my $old = "$work/old";
	make_path("$old/src", "$old/build");
	my $build_started = time;
	my @make = (
		'make', '-C', "$old/build", '-f', "$old/src/Makefile",
		"VPATH=$old/src", 'PG_CONFIG=pg_config', 'with_llvm=no');
	my $built = do
	{
		# not the make that runs this test's
		local %ENV = %ENV;
		delete @ENV{qw(MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES)};
		run_log([ @git, 'archive', $old_commit ],
			'|', [ 'tar', '-x', '-C', "$old/src" ])
		  && run_log([ @make, '-j2' ], '>', "$old/build.log", '2>&1')
		  && run_log([ @make, 'install', "DESTDIR=$old/inst" ],
			'>>', "$old/build.log", '2>&1');
	};
	if ($built)
	{
		pass("the library of $old_commit builds from git ("
			  . (time - $build_started)
			  . ' s)');
	}
	else
	{
		# That commit was written for PostgreSQL 15 only.
		if ($PG_MAJOR == 15)
		{
			my @log = split /\n/, slurp_file("$old/build.log");
			fail("the library of $old_commit does not build");
			diag(join("\n", @log > 20 ? @log[ -20 .. -1 ] : @log));
		}
		else
		{
			diag(
				"skipped: the old library (commit $old_commit does not build against PostgreSQL $PG_MAJOR)"
			);
		}
		return;
	}

	# What must not change on the subscribers: rows copied before keep their
	# xmin (no resync), every table stays ready.
	my $kept_rows = q{
SELECT string_agg(id || ':' || xmin, ',' ORDER BY id) FROM filters WHERE id IN (1, 3, 4, 14)};
	my %kept = map { $_ => query($sub, $_, $kept_rows) } @subscriptions;

	# Log lines from here on.  A restart makes its own errors (connections
	# refused while the server shuts down, the subscribers' connections cut),
	# so each window starts once the server is up.
	# (An apply worker started again while its predecessor still holds the
	# replication origin fails with "already active" and is retried: the
	# restart churn of a failing walsender, not an error of ours.)
	my $subscriber_errors_but_lost_connections = sub {
		my ($from) = @_;
		return grep {
			!/could not receive data from WAL stream|could not send end-of-streaming message|could not connect to the publisher|replication origin with ID [0-9]* is already active for PID/
		} log_errors($sub, $from);
	};
	my $sub_from = -s $sub->logfile;
	File::Copy::copy("$pub_inst$library", "$work/new.so")
	  or die "could not copy the library: $!";
	# install_library(FILE): FILE becomes the publisher's bloomfilter.so
	my $install_library = sub {
		my ($file) = @_;
		File::Copy::copy($file, "$pub_inst$library.new")
		  && rename("$pub_inst$library.new", "$pub_inst$library")
		  or die "could not install \"$file\": $!";
	};
	# runs_library(FILE): the publisher loads the extension from its own
	# install tree (whatever setting names it), whose library is FILE
	my $runs_library = sub {
		my ($file) = @_;
		return query($pub, 'pub',
			"SELECT count(*) > 0 FROM pg_settings WHERE setting LIKE '%$pub_inst%'")
		  eq 't'
		  && File::Compare::compare($file, "$pub_inst$library") == 0;
	};

	$install_library->("$old/inst$library");
	$pub->restart;
	my $pub_from = -s $pub->logfile;
	ok($runs_library->("$old/inst$library"),
		"the publisher restarted on the library of $old_commit");
	query($pub, 'pub', 'UPDATE filters SET f = bloom_add(f, 424242) WHERE id = 13');
	query($pub, 'pub',
		"INSERT INTO filters VALUES (31, 'after', bloom_add(bloom_empty(0.01, 50), 31), NULL)"
	);
	if (eval {
			$pub->wait_for_log(
				qr/(ERROR|FATAL|PANIC):.*invalid bloom filter value/, $pub_from);
		})
	{
		my ($first) = map { /(ERROR: .*)/ } log_errors($pub, $pub_from);
		pass("old library: the walsender fails on the UPDATE ($first)");
	}
	else
	{
		fail('old library: no walsender error in time');
	}
	sleep 2;
	foreach my $s (@subscriptions)
	{
		is( query(
				$sub, $s,
				'SELECT bool_or(f @> 424242), count(*) FILTER (WHERE id = 31) FROM filters WHERE id IN (13, 31)'
			),
			'f|0',
			"old library, $s: the subscription has stopped before the UPDATE (row 13 as before, row 31 missing)"
		);
	}
	# (a walsender may also see its subscriber leave: "connection to client lost")
	my @other = grep {
		!/invalid bloom filter value|FATAL:  connection to client lost/
	} log_errors($pub, $pub_from);
	ok(!@other,
		"old library: the publisher's only ERRORs are the walsender's (invalid bloom filter value)"
	) or diag(join("\n", grep { defined } @other[ 0 .. 9 ]));
	@other = $subscriber_errors_but_lost_connections->($sub_from);
	ok(!@other,
		"old library: the subscriber's only ERRORs are the walsender's, relayed, and lost connections"
	) or diag(join("\n", grep { defined } @other[ 0 .. 9 ]));

	$install_library->("$work/new.so");
	$pub->restart;
	$pub_from = -s $pub->logfile;
	$sub_from = -s $sub->logfile;
	ok($runs_library->($sub_library), 'the publisher restarted on the new library');
	caught_up('new library');
	compare('new library');
	foreach my $s (@subscriptions)
	{
		is( query($sub, $s, $kept_rows) . ' '
			  . query($sub, $s,
				"SELECT count(*) FROM pg_subscription_rel WHERE srsubstate <> 'r'"),
			"$kept{$s} 0",
			"new library, $s: no resync (rows copied before keep their xmin, every table ready)"
		);
	}
	my @errors = log_errors($pub, $pub_from);
	ok(!@errors, "new library: no ERROR in the publisher's log since it restarted")
	  or diag(join("\n", grep { defined } @errors[ 0 .. 9 ]));
	@other  = $subscriber_errors_but_lost_connections->($sub_from);
	@errors = log_errors($sub, $sub_from);
	ok(!@other && !grep({ /invalid bloom filter value/ } @errors),
		"new library: no ERROR in the subscriber's log since the publisher restarted (but lost connections)"
	) or diag(join("\n", grep { defined } @errors[ 0 .. 9 ]));
	return;
}
