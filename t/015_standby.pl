# Filters on a physical streaming standby.
#
# Two servers: the primary, and a hot standby made from its base backup,
# streaming its WAL.  Filters are stored as they come (STORAGE EXTENDED): a
# 1,000,000-value filter (1.2 MB) and 12 kB ones out of line, sparse ones
# (one of them a 2.4 MB scheme 2 filter) compressed, small ones inline;
# counting and scalable filters (table sets) inline and out of line, both
# hash schemes, several stages, with values removed.  It checks that
#
#   - what the base backup copied and what was streamed after it read on the
#     standby exactly as on the primary: the md5 of each filter's text form
#     and of its binary output, and = with a recomputation from the row's
#     recipe, run on the standby; among the changes streamed, bloom_add and
#     bloom_remove on out-of-line counting filters and a scalable filter's
#     new stage;
#   - the semi-join prefilter (bloom_contains of a stored filter over a
#     300,000-row table) counts the same rows on both;
#   - the standby stopped (immediate) and started again while the primary
#     writes filters loses nothing: every transaction the primary
#     acknowledged is on the standby, bit-identical, once it has caught up.
#
# No ERROR may appear in either server log.
use strict;
use warnings;
use BloomTest;
use POSIX ();
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $started = time;
my $work    = PostgreSQL::Test::Utils::tempdir('standby');

my $primary = bloom_node('primary', allows_streaming => 1);

# On the primary, before the base backup copies it.  Each filter is
# bloom_agg(g, p, capacity) over generate_series(lo, hi, step), plus the
# value added (if any), so any copy can be checked against a recomputation.
$primary->safe_psql('postgres', q{
CREATE EXTENSION bloomfilter;
CREATE TABLE filters (id int PRIMARY KEY, lo int, hi int, step int, p float8, capacity int8,
	added int, f bloom);
ALTER TABLE filters ALTER f SET STORAGE EXTENDED, ALTER f SET COMPRESSION pglz;
CREATE FUNCTION recipe_filter(r filters) RETURNS bloom LANGUAGE sql STABLE AS $$
	SELECT bloom_add(bloom_agg(g, r.p, r.capacity), r.added) FROM generate_series(r.lo, r.hi, r.step) AS g
$$;
INSERT INTO filters (id, lo, hi, step, p, capacity) VALUES
	(1, 2, 2000000, 2, 0.01, 1000000),	-- 1.2 MB, out of line
	(2, 1, 10000, 1, 0.01, 10000),		-- 12 kB, out of line
	(3, 1, 20, 1, 0.01, 50),			-- 80 bytes, inline
	(4, 1, 1000, 1, 0.01, 100000),		-- 120 kB, compressed to ~17 kB, out of line
	(5, 1, 2000, 1, 0.01, 2000000);		-- 2.4 MB, scheme 2, compressed, out of line
UPDATE filters SET f = recipe_filter(filters);
CREATE TABLE big AS SELECT id FROM generate_series(1, 300000) AS id;
-- c holds lo + removed .. hi (counting_bloom_empty(0.01, capacity), or
-- with h2 the scheme 2 filter of 2^20 counters given by its text form); s
-- holds lo .. hi (scalable_bloom_empty(0.01, capacity / 10): several stages)
CREATE TABLE sets (id int PRIMARY KEY, lo int, hi int, removed int, capacity int8, h2 bool,
	c counting_bloom, s scalable_bloom);
CREATE FUNCTION recipe_counting(r sets) RETURNS counting_bloom LANGUAGE sql IMMUTABLE AS $$
	SELECT bloom_remove_all(bloom_add_all(CASE WHEN r.h2
			THEN ('counting_bloom:v1:h2:m1048576:k7:' || repeat('A', 699051) || '=')::counting_bloom
			ELSE counting_bloom_empty(0.01, r.capacity) END,
		ARRAY(SELECT generate_series(r.lo, r.hi))), ARRAY(SELECT generate_series(r.lo, r.lo + r.removed - 1)))
$$;
CREATE FUNCTION recipe_scalable(r sets) RETURNS scalable_bloom LANGUAGE sql IMMUTABLE AS $$
	SELECT bloom_add_all(scalable_bloom_empty(0.01, r.capacity / 10), ARRAY(SELECT generate_series(r.lo, r.hi)))
$$;
INSERT INTO sets (id, lo, hi, removed, capacity, h2) VALUES
	(1, 1, 20, 5, 50, false),			-- inline
	(2, 1, 20000, 1000, 20000, false),	-- out of line: 96 kB, 4 stages
	(3, 1, 20000, 1000, 20000, true);	-- out of line: 512 kB, scheme 2
UPDATE sets SET c = recipe_counting(sets), s = recipe_scalable(sets);
});

$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', 'hot_standby = on');
$standby->start;
bloom_watch($standby);

is( $standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()') . ' '
	  . $primary->safe_psql('postgres', 'SELECT pg_is_in_recovery()'),
	't f',
	'the standby is in recovery, the primary is not');
# From here on a failed step fails its checks only, and the run goes on.

# query(NODE, SQL): its output; an error is shown, not fatal
sub query
{
	my ($node, $sql) = @_;
	my ($ret, $stdout, $stderr) = $node->psql('postgres', $sql);
	diag($node->name . ": psql exited with $ret: $stderr") if $ret;
	return $stdout;
}

# replayed(LABEL): the standby has replayed the primary's current WAL
sub replayed
{
	my ($label) = @_;
	my $lsn = $primary->lsn('write');
	ok( eval { $primary->wait_for_catchup($standby, 'replay', $lsn); 1 },
		"$label: the standby has replayed the primary's WAL up to $lsn")
	  or diag($@);
	return;
}

# compare(LABEL): every filter as on the primary, and = its recomputation
my $digest =
  "SELECT id || ' ' || md5(f::text) || ' ' || md5(bloom_send(f)) FROM filters ORDER BY id";
my $sets_digest = "SELECT id || ' ' || md5(c::text) || ' ' || md5(counting_bloom_send(c))
	|| ' ' || md5(s::text) || ' ' || md5(scalable_bloom_send(s)) FROM sets ORDER BY id";
sub compare
{
	my ($label) = @_;
	my $expected = query($primary, $digest);
	my $got      = query($standby, $digest);
	my $n        = () = $got =~ /^./mg;
	ok( $got ne '' && $got eq $expected,
		"$label: md5 of the text form and of bloom_send of every filter as on the primary ($n filters)"
	  )
	  or diag(
		"the standby's filters differ from the primary's (id, md5 of text, md5 of bloom_send):\n"
		  . "primary:\n$expected\nstandby:\n$got");
	is( query(
			$standby,
			'SELECT count(*) FROM filters WHERE f IS DISTINCT FROM recipe_filter(filters)'),
		'0',
		"$label: every filter on the standby = its recomputation there");
	$expected = query($primary, $sets_digest);
	$got      = query($standby, $sets_digest);
	$n        = () = $got =~ /^./mg;
	ok( $got ne '' && $got eq $expected,
		"$label: md5 of the text and binary forms of every counting and scalable filter as on the primary ($n rows)"
	  )
	  or diag("the standby's counting and scalable filters differ from the primary's:\n"
		  . "primary:\n$expected\nstandby:\n$got");
	is( query(
			$standby,
			'SELECT count(*) FROM sets WHERE c IS DISTINCT FROM recipe_counting(sets)
				OR s IS DISTINCT FROM recipe_scalable(sets)'),
		'0',
		"$label: every counting and scalable filter on the standby = its recomputation there");
	return;
}

replayed('base backup');
# For a value not compressed, pg_column_size less the send length is its
# length word: 0 out of line, 1 for a 1-byte header (see sql/forms.sql).
is( query(
		$standby, q{
SELECT string_agg(id || ' ' || coalesce(pg_column_compression(f),
	(pg_column_size(f) - octet_length(bloom_send(f)))::text), '|' ORDER BY id) FROM filters}
	),
	'1 0|2 0|3 1|4 pglz|5 pglz',
	'the forms on the standby: 1, 2 out of line; 3 inline, 1-byte header; 4, 5 compressed'
);
is( query(
		$standby, q{
SELECT string_agg(id || ' ' || pg_column_size(c) || '/' || (bloom_info(c)).hash_scheme
	|| ' ' || pg_column_size(s) || '/' || (bloom_info(s)).stages, '|' ORDER BY id) FROM sets}),
	'1 256/1 192/3|2 95868/1 52604/4|3 524300/2 52604/4',
	'the counting and scalable filters on the standby (bytes/scheme, bytes/stages): 1 inline, 2 and 3 out of line, 3 of scheme 2'
);
compare('base backup');

# ---- changes streamed to the running standby ----
query($primary, q{
INSERT INTO filters (id, lo, hi, step, p, capacity)
SELECT id, id * 10000, id * 10000 + 9999, 1, 0.01, 10000 FROM generate_series(11, 15) AS id;
UPDATE filters SET f = recipe_filter(filters) WHERE f IS NULL;
-- a new value for stored filters: 1.2 MB, 12 kB, compressed, 2.4 MB
UPDATE filters SET added = 424242, f = bloom_add(f, 424242) WHERE id IN (1, 2, 4, 5, 11);
DELETE FROM filters WHERE id = 12;
-- counting and scalable filters: a new row; a window moved on in stored
-- counting filters (bloom_add_all, bloom_remove_all); a fifth stage
INSERT INTO sets (id, lo, hi, removed, capacity, h2) VALUES (4, 1, 3000, 0, 1000, false);
UPDATE sets SET c = recipe_counting(sets), s = recipe_scalable(sets) WHERE id = 4;
UPDATE sets SET hi = hi + 20000, removed = removed + 20000,
	c = bloom_remove_all(bloom_add_all(c, ARRAY(SELECT generate_series(hi + 1, hi + 20000))),
		ARRAY(SELECT generate_series(lo + removed, lo + removed + 19999))),
	s = bloom_add_all(s, ARRAY(SELECT generate_series(hi + 1, hi + 20000)))
WHERE id IN (2, 3);
UPDATE sets SET removed = removed + 1, c = bloom_remove(c, lo + removed) WHERE id = 1;
});
replayed('streamed changes');
compare('streamed changes');

my $prefilter =
  'SELECT count(*) FROM big WHERE bloom_contains((SELECT f FROM filters WHERE id = 1), id)';
my $on_primary = query($primary, $prefilter);
my $on_standby = query($standby, $prefilter);
is($on_standby, $on_primary,
	'the prefilter counts the same rows on the standby as on the primary');
# 150,000 members (the even ids); the other 150,000 pass with probability
# about 0.01 each (mean 1,500, standard deviation 39): 3,000 is 38 of them.
$on_standby = 0 unless $on_standby =~ /^\d+$/;
ok( $on_standby >= 150000 && $on_standby <= 153000,
	"the prefilter on the standby, $on_standby rows: every member and "
	  . ($on_standby - 150000)
	  . ' false positives (bound: 0 to 3,000)');

# ---- the standby restarted while the primary writes ----
# Transaction i inserts filter 1000 + i (12 kB, out of line) and adds a value
# to filter 1000 + i - 1.  An id is recorded once the primary acknowledged it.
my $committed_file = "$work/committed";
my $writer_log     = "$work/writer.log";
open(my $fh, '>', $committed_file) or die "could not create $committed_file: $!";
close($fh);
my $writer = fork;
die "could not fork: $!" unless defined $writer;
if ($writer == 0)
{
	# The writer: leaves by POSIX::_exit, even when it dies, never through
	# the parent's END blocks (which would stop the servers and print a
	# second count line).
	my $status = 0;
	my $ran = eval {
		foreach my $i (1 .. 300)
		{
			my ($ret, $stdout, $stderr) = $primary->psql(
				'postgres', "BEGIN;
INSERT INTO filters (id, lo, hi, step, p, capacity, f)
SELECT 1000 + $i, $i * 100, $i * 100 + 9999, 1, 0.01, 10000, bloom_agg(g, 0.01, 10000)
FROM generate_series($i * 100, $i * 100 + 9999) AS g;
UPDATE filters SET added = $i, f = bloom_add(f, $i) WHERE id = 1000 + $i - 1;
COMMIT;");
			if ($ret)
			{
				append_to_file($writer_log, "$stderr\n");
				$status = 1;
				last;
			}
			append_to_file($committed_file, "$i\n");
		}
		1;
	};
	if (!$ran)
	{
		my $error = $@;
		eval { append_to_file($writer_log, "the writer died: $error\n") };
		$status = 1;
	}
	POSIX::_exit($status);
}
END
{
	kill 'TERM', $writer if $writer;
}
sub committed
{
	my @lines = split /\n/, slurp_file($committed_file);
	return scalar @lines;
}
my $deadline = time + 60;
usleep(50_000) while committed() < 30 && time < $deadline;
$standby->stop('immediate');
my $at_stop = committed();
usleep(500_000);
$standby->start;
my $at_start = committed();
waitpid($writer, 0);
my $status = shell_status($?);
$writer = undef;
is(committed() . " $status", '300 0',
	"the primary's writer ran through (300 transactions, exit 0)")
  or diag(-e $writer_log ? slurp_file($writer_log) : '');
ok( $at_stop >= 30 && $at_start > $at_stop && $at_start < 300,
	$at_stop >= 30 && $at_start > $at_stop && $at_start < 300
	? "the standby was stopped (immediate) after $at_stop commits and started again after $at_start, with the primary still writing"
	: "the standby's restart was not in the middle of the writes (stopped after $at_stop commits, started after $at_start)"
);
replayed('after the restart');
compare('after the restart');
is( query(
		$standby,
		"SELECT count(*) || ' ' || count(added) FROM filters WHERE id > 1000"),
	'300 299',
	'every acknowledged transaction is on the standby');

# ---- the logs ----
foreach my $node ($primary, $standby)
{
	my $name = $node->name;
	my @errors = grep { /(ERROR|PANIC):/ } split /\n/, slurp_file($node->logfile);
	ok(!@errors, "no ERROR in the ${name}'s log")
	  or diag(join("\n", grep { defined } @errors[ 0 .. 9 ]));
}

note('(' . (time - $started) . ' s)');
bloom_done();
