# Durability of stored filters: dump and restore, COPY, and a crash.
#
# 1. pg_dump -Fc of a database holding filters (empty, m = 18, k = 1, k = 64,
#    m = 1, filters of text values, a NULL, 2,000 small filters, and a
#    1,000,000-value filter at p = 0.01, 1.2 MB, stored out of line), and
#    counting and scalable filters (inline and out of line, both hash
#    schemes, counters saturated, values removed, 4 and 6 stages, a
#    self-sized first stage, NULLs), then pg_restore into a new database:
#    every filter must be bit-identical (= with a recomputation, and the md5
#    of its binary output and of its text form the same as in the source) and
#    usable (contains every value it holds, takes a new one).
# 2. The same through COPY TO / COPY FROM, in text and in binary format.
# 3. A crash: a bulk load of filters (an INSERT of two ~120 kB filters built
#    by bloom_agg, a counting filter and a 2- or 3-stage scalable filter, and
#    an UPDATE of an earlier row that adds 500 values to each, and removes
#    its 500 oldest from the counting filter: a sliding window; one
#    transaction each) runs in the background; the server is stopped with
#    pg_ctl -m immediate in the middle of it and restarted.  Every
#    transaction the client saw committed must be there, and every filter
#    intact (equal to a recomputation) and usable.
#
# The filters, their recipes and the checks run on every copy are in
# t/durability.sql.
use strict;
use warnings;
use BloomTest;
use IPC::Run;
use POSIX ();
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $started = time;
# wal_level = replica, initdb's default (the framework's is minimal): crash
# recovery replays the WAL servers usually write.
my $node = bloom_node('durability', conf => { wal_level => 'replica' });
my $work = PostgreSQL::Test::Utils::tempdir;

# check_sql(DATABASE, DESCRIPTION, QUERY): the query prints true, and
# nothing else (not even on stderr).
sub check_sql
{
	my ($db, $description, $query) = @_;
	my ($ret, $stdout, $stderr) = $node->psql($db, $query);
	is($stdout . ($stderr ne '' ? "\n$stderr" : ''), 't', $description);
	return;
}

# run_exit_code(COMMAND): run it, noting its stderr; its exit code
sub run_exit_code
{
	my ($command) = @_;
	my ($stdout, $stderr) = ('', '');
	IPC::Run::run($command, '>', \$stdout, '2>', \$stderr);
	my $status = shell_status($?);
	note("@$command: $stdout$stderr") if "$stdout$stderr" ne '';
	return $status;
}

# ---- 1. pg_dump -Fc and pg_restore ----
$node->safe_psql('postgres', 'CREATE DATABASE durable_source');
my $t = time;
$node->safe_psql('durable_source', slurp_file(bloom_root() . '/t/durability.sql'));
note('filters built in ' . (time - $t) . ' s');
check_sql('durable_source',
	'the 1,000,000-value filter takes 1,198,152 bytes and is stored out of line',
	q{SELECT i.bytes = 1198152 AND pg_relation_size(reltoastrelid) > 1198152
		AND pg_relation_size('filters') < 65536
	 FROM filters, bloom_info(f) AS i, pg_class WHERE name = 'million' AND oid = 'filters'::regclass});
check_sql('durable_source',
	'the counting and scalable filters: 8 of 11 stored out of line, schemes 1 and 2, 1 to 6 stages, counters saturated',
	q{SELECT count(*) FILTER (WHERE coalesce(pg_column_size(c), pg_column_size(s)) > 2000) = 8
		AND pg_relation_size(reltoastrelid) > 4600000 AND pg_relation_size('sets') < 65536
		AND array_agg(name ORDER BY name) FILTER (WHERE (bloom_info(c)).hash_scheme = 2
			OR (SELECT bool_or(hash_scheme = 2) FROM scalable_bloom_stages(s)))
			= '{counting-scheme2,scalable-scheme2}'
		AND string_agg((bloom_info(s)).stages::text, ',' ORDER BY name) = '2,1,4,1,1,6'
		AND sum((bloom_info(c)).counters_saturated) = 3
	 FROM sets, pg_class WHERE oid = 'sets'::regclass GROUP BY reltoastrelid});
check_lines($node->safe_psql('durable_source',
	q{SELECT * FROM check_copy('filters', 'many', 'source')}));
check_lines($node->safe_psql('durable_source',
	q{SELECT * FROM check_sets('sets', 'source')}));
my $source_digest = $node->safe_psql('durable_source', 'SELECT * FROM digest ORDER BY name');

is(run_exit_code([ 'pg_dump', '-Fc', '-d', $node->connstr('durable_source'), '-f', "$work/dump" ]),
	0, 'pg_dump -Fc exits 0');
note('pg_dump -Fc archive: ' . (-s "$work/dump" // 0) . ' bytes');
$node->safe_psql('postgres', 'CREATE DATABASE durable_restored');
is( run_exit_code([
			'pg_restore', '--exit-on-error', '-d', $node->connstr('durable_restored'),
			"$work/dump"
		]),
	0,
	'pg_restore exits 0');
check_lines($node->safe_psql('durable_restored',
	q{SELECT * FROM check_copy('filters', 'many', 'pg_restore')}));
check_lines($node->safe_psql('durable_restored',
	q{SELECT * FROM check_sets('sets', 'pg_restore')}));
my $restored_digest = $node->safe_psql('durable_restored', 'SELECT * FROM digest ORDER BY name');
my $digests = scalar(my @digest_lines = split /\n/, $source_digest);
ok($restored_digest eq $source_digest,
	"pg_restore: md5 of the binary and of the text form identical to the source's ($digests digests)"
) or diag("pg_restore: digests differ from the source's:\nsource:\n$source_digest\n"
	  . "restored:\n$restored_digest");

# ---- 2. COPY TO / FROM, text and binary ----
foreach my $format (qw(text binary))
{
	$node->safe_psql('durable_source', <<"SQL");
CREATE TABLE filters_$format (LIKE filters);
CREATE TABLE many_$format (LIKE many);
CREATE TABLE sets_$format (LIKE sets);
\\copy filters TO '$work/filters.$format' WITH (FORMAT $format)
\\copy many TO '$work/many.$format' WITH (FORMAT $format)
\\copy sets TO '$work/sets.$format' WITH (FORMAT $format)
\\copy filters_$format FROM '$work/filters.$format' WITH (FORMAT $format)
\\copy many_$format FROM '$work/many.$format' WITH (FORMAT $format)
\\copy sets_$format FROM '$work/sets.$format' WITH (FORMAT $format)
SQL
	check_lines($node->safe_psql('durable_source',
		"SELECT * FROM check_copy('filters_$format', 'many_$format', 'COPY $format')"));
	check_lines($node->safe_psql('durable_source',
		"SELECT * FROM check_sets('sets_$format', 'COPY $format')"));
	check_sql('durable_source',
		"COPY $format: every filter bit-identical to its original (= and md5 of bloom_send)",
		"SELECT count(*) = 10 AND bool_and(a.f IS NOT DISTINCT FROM b.f
			AND md5(bloom_send(a.f)) IS NOT DISTINCT FROM md5(bloom_send(b.f)))
		 FROM filters AS a FULL JOIN filters_$format AS b USING (name)");
	check_sql('durable_source', "COPY $format: 2,000 small filters bit-identical",
		"SELECT count(*) = 2000 AND bool_and(a.f = b.f AND bloom_send(a.f) = bloom_send(b.f))
		 FROM many AS a FULL JOIN many_$format AS b USING (id)");
	check_sql('durable_source',
		"COPY $format: every counting and scalable filter bit-identical to its original (= and md5 of the binary form)",
		"SELECT count(*) = 12 AND bool_and(a.c IS NOT DISTINCT FROM b.c AND a.s IS NOT DISTINCT FROM b.s
			AND md5(coalesce(filter_send(a.c), filter_send(a.s)))
				IS NOT DISTINCT FROM md5(coalesce(filter_send(b.c), filter_send(b.s))))
		 FROM sets AS a FULL JOIN sets_$format AS b USING (name)");
}

# ---- 3. a crash in the middle of a bulk load ----
#
# The framework runs the server with fsync=off.  That is enough here:
# pg_ctl -m immediate kills the server processes, but the operating system
# keeps everything they wrote, as it would after a server crash (not after
# a power loss, which fsync=off would not survive).  Recovery replays the
# WAL from the last checkpoint, taken in the middle of the load.
$node->safe_psql('postgres', 'CREATE DATABASE durable_crash');
$node->safe_psql('durable_crash', q{
CREATE EXTENSION bloomfilter;
-- Row i holds the filters of lo..hi as integers (f), as text (t) and as a
-- scalable filter (s), and the counting filter of the window clo..hi (c).
CREATE TABLE load (id int PRIMARY KEY, lo int NOT NULL, hi int NOT NULL, f bloom NOT NULL, t bloom NOT NULL,
	clo int NOT NULL, c counting_bloom NOT NULL, s scalable_bloom NOT NULL);
});

# Transaction i inserts row i and extends row i - 3 by 500 values, which
# its counting filter's window takes in place of its 500 oldest.
sub transaction
{
	my ($i) = @_;
	my $lo = $i * 1000;
	my $hi = $i * 1000 + 20000 + $i % 7 * 1000;
	return qq{BEGIN;
INSERT INTO load
SELECT $i, $lo, $hi, bloom_agg(g, 0.01, 100000), bloom_agg('v' || g, 0.01, 100000),
	$lo, counting_bloom_agg(g, 0.01, 30000), bloom_add_all(scalable_bloom_empty(0.01, 10000), array_agg(g ORDER BY g))
FROM generate_series($lo, $hi) AS g;
UPDATE load SET hi = hi + 500, clo = clo + 500,
	f = f | (SELECT bloom_agg(g, 0.01, 100000) FROM generate_series(hi + 1, hi + 500) AS g),
	t = t | (SELECT bloom_agg('v' || g, 0.01, 100000) FROM generate_series(hi + 1, hi + 500) AS g),
	c = bloom_remove_all(bloom_add_all(c, ARRAY(SELECT generate_series(hi + 1, hi + 500))),
		ARRAY(SELECT generate_series(clo, clo + 499))),
	s = bloom_add_all(s, ARRAY(SELECT generate_series(hi + 1, hi + 500)))
WHERE id = $i - 3;
COMMIT;
};
}

# The loader, a child process: transaction after transaction, each in a
# psql of its own, until one fails (the server is gone).
my $committed_file = "$work/committed";
my $load_log       = "$work/load.log";
append_to_file($committed_file, '');
my $loader = fork();
die "fork failed: $!" unless defined $loader;
if ($loader == 0)
{
	eval {
		foreach my $i (1 .. 2000)
		{
			my ($ret, $stdout, $stderr) = $node->psql('durable_crash', transaction($i));
			append_to_file($load_log, "$stderr\n") if $stderr ne '';
			last if $ret != 0;
			# the id is recorded only once the server has acknowledged the commit
			append_to_file($committed_file, "$i\n");
		}
	};
	eval { append_to_file($load_log, $@) } if $@;
	# not through END blocks: they would stop the server
	POSIX::_exit(0);
}
END
{
	kill 'TERM', $loader if $loader;
}

sub committed
{
	my @ids = split /\n/, slurp_file($committed_file);
	return @ids;
}

# Whether the loader has ended (reaping it).
my $loader_ended = 0;
sub loader_ended
{
	$loader_ended ||= waitpid($loader, POSIX::WNOHANG()) == $loader;
	return $loader_ended;
}

my $deadline     = time + 60;
my $checkpointed = 0;
while (scalar(committed()) < 40 && time < $deadline && !loader_ended())
{
	if (!$checkpointed && scalar(committed()) >= 20)
	{
		$node->safe_psql('postgres', 'CHECKPOINT');
		$checkpointed = 1;
	}
	usleep(50_000);
}
$node->stop('immediate');
my $stopped_at = scalar(committed());
waitpid($loader, 0) unless loader_ended();
$loader = undef;
my @committed   = committed();
my $n_committed = scalar(@committed);
note("server stopped (immediate) after $stopped_at acknowledged commits; "
	  . "the loader saw $n_committed");
if (-e $load_log)
{
	my @lines = split /\n/, slurp_file($load_log);
	note("loader: $_") foreach @lines[ ($#lines > 2 ? $#lines - 2 : 0) .. $#lines ];
}
ok($n_committed >= 21 && $n_committed < 2000,
	"the bulk load was stopped in the middle ($n_committed transactions committed)");

my $log_offset = -s $node->logfile;
ok($node->start(fail_ok => 1), 'the server restarts (pg_ctl start exits 0)');
ok( $node->log_contains(qr/database system was interrupted|not properly shut down/, $log_offset)
	  && $node->log_contains(qr/redo done/, $log_offset),
	'crash recovery replayed the WAL')
  or diag('no crash recovery in the server log');

my $committed_ids = '{' . join(',', @committed) . '}';
# Row i was extended once for each later transaction: those up to the last
# that committed (acknowledged or not, so the highest id present).
check_sql('durable_crash', 'every acknowledged transaction is there',
	"SELECT count(*) = 0 FROM unnest('$committed_ids'::int[]) AS c(id)
	 WHERE NOT EXISTS (SELECT 1 FROM load WHERE load.id = c.id)");
check_sql('durable_crash', 'nothing else is there but the transaction in flight',
	"SELECT count(*) = 0 FROM load WHERE id <> ALL ('$committed_ids'::int[]) AND id <> $n_committed + 1"
);
check_sql('durable_crash', 'every committed UPDATE is there',
	q{SELECT bool_and(hi = id * 1000 + 20000 + id % 7 * 1000
		+ CASE WHEN id + 3 <= (SELECT max(id) FROM load) THEN 500 ELSE 0 END
		AND clo - lo = hi - (id * 1000 + 20000 + id % 7 * 1000)) FROM load});
check_lines($node->safe_psql('durable_crash', <<'SQL'));
SELECT format('CHECK %s crash: %s of %s rows have both filters equal to a recomputation (bit for bit)',
	CASE WHEN count(*) FILTER (WHERE good) = count(*) AND count(*) > 0 THEN 'pass' ELSE 'fail' END,
	count(*) FILTER (WHERE good), count(*))
FROM (SELECT f = (SELECT bloom_agg(g, 0.01, 100000) FROM generate_series(lo, hi) AS g)
		AND bloom_send(t) = bloom_send((SELECT bloom_agg('v' || g, 0.01, 100000) FROM generate_series(lo, hi) AS g))
		AS good
	FROM load) AS s;
SELECT format('CHECK %s crash: %s of %s rows have their counting and scalable filters equal to a recomputation (bit for bit)',
	CASE WHEN count(*) FILTER (WHERE good) = count(*) AND count(*) > 0 THEN 'pass' ELSE 'fail' END,
	count(*) FILTER (WHERE good), count(*))
FROM (SELECT counting_bloom_send(c) = counting_bloom_send((SELECT counting_bloom_agg(g, 0.01, 30000) FROM generate_series(clo, hi) AS g))
		AND scalable_bloom_send(s) = scalable_bloom_send(bloom_add_all(scalable_bloom_empty(0.01, 10000), ARRAY(SELECT generate_series(lo, hi))))
		AS good
	FROM load) AS s;
SELECT format('CHECK %s crash: every row''s filters work (bloom_info, members contained, text round trip)',
	CASE WHEN bool_and(i.m = 958506 AND i.k = 7 AND i.bits_set > 0
		AND bloom_contains(f, lo) AND bloom_contains(f, hi) AND bloom_contains(f, (lo + hi) / 2)
		AND bloom_contains(t, 'v' || lo) AND bloom_contains(t, 'v' || hi)
		AND f::text::bloom = f AND t::text::bloom = t) THEN 'pass' ELSE 'fail' END)
FROM load, bloom_info(f) AS i;
SELECT format('CHECK %s crash: every row''s counting and scalable filters work (the window counted exactly, 2 stages, members contained, text round trip)',
	CASE WHEN bool_and(ci.values = hi - clo + 1 AND ci.values_exact AND si.stages = 2
		AND bloom_contains(c, clo) AND bloom_contains(c, hi) AND bloom_contains(s, lo) AND bloom_contains(s, hi)
		AND c::text::counting_bloom = c AND s::text::scalable_bloom = s) THEN 'pass' ELSE 'fail' END)
FROM load, bloom_info(c) AS ci, bloom_info(s) AS si;
WITH u AS (UPDATE load SET f = bloom_add(f, -7), c = bloom_remove(bloom_add(c, -7), clo), s = bloom_add(s, -7)
	RETURNING f, c, s, hi - clo + 1 AS held)
SELECT format('CHECK %s crash: the table takes writes again (bloom_add, bloom_remove, bloom_union_agg, counting_bloom_union_agg)',
	CASE WHEN bloom_contains(bloom_union_agg(f), -7) AND bloom_contains(counting_bloom_union_agg(c), -7)
		AND bool_and(bloom_contains(s, -7) AND (bloom_info(c)).values = held)
		THEN 'pass' ELSE 'fail' END)
FROM u;
SQL

note('(' . (time - $started) . ' s)');
bloom_done();
