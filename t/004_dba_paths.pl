# The ways a DBA moves and shapes filters.
#
# A source database holds filters in four kinds of column, each in several
# forms (inline, out of line, compressed, scheme 2, NULL): bloom itself, a
# composite type with a bloom field, an array bloom[] of stored filters,
# and a domain over bloom with a CHECK that reads the filter.  Three copies
# are made of it:
#
#   - COPY ... TO STDOUT (FORMAT binary) piped through psql into
#     COPY ... FROM STDIN (FORMAT binary), table by table;
#   - pg_dump --inserts, restored with psql into a new database;
#   - pg_dump --column-inserts, the same.
#
# In each copy every row must be bit-identical to the source's (the md5 of
# its text form and of the bloom_send output of every filter in it), equal
# (=, record =, array =) to a recomputation from its recipe, and usable.
# A view comparing filters with IS DISTINCT FROM does not restore from
# pg_dump (its exact error is asserted); written with =, it does.
#
# Then, in a database of daily events:
#
#   - a MATERIALIZED VIEW of per-day filters with a unique index on the day
#     is refreshed CONCURRENTLY after new events: the changed day gets its
#     new filter, the other rows are left as they are (same xmin), every row
#     = its recomputation; what PostgreSQL cannot do for bloom is asserted
#     by its exact error: a unique index on the filter, and so a concurrent
#     refresh of a view of filters alone (an exclusion constraint with hash
#     and = does keep filters unique);
#   - a range-partitioned table of per-day filters: a query for one day
#     scans one partition (plan-time pruning, EXPLAIN), a prepared query
#     prunes at run time, bloom_union_agg over three days = the filter of
#     their events; partitioning BY RANGE (f) fails with its exact error,
#     BY HASH (f) works and prunes to one partition.
#
# Last, the 1.3 value types bloom_hashed and bloom_agg_state go through
# COPY (FORMAT binary) from one table into another.
use strict;
use warnings;
use BloomTest;
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;

my $started = time;
# log_statement = ddl: at the framework's "all", the restores of pg_dump
# --inserts would write their megabytes of filters into the server log.
my $node = bloom_node('dba_paths', conf => { log_statement => 'ddl' });
my $work = PostgreSQL::Test::Utils::tempdir;

# psql as the checks run it: no psqlrc, stop on error, unaligned tuples only.
sub psql_command
{
	my ($db, @args) = @_;
	return [ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-At',
		'-d', $node->connstr($db), @args ];
}

# sql(DATABASE, SQL): what SQL prints (its errors noted, not fatal: from the
# source's checks on, a failed step fails its checks only, and the run goes on).
sub sql
{
	my ($db, $sql) = @_;
	my ($ret, $stdout, $stderr) = $node->psql($db, $sql);
	diag("psql on $db exited $ret: $stderr") if $ret != 0;
	return $stdout;
}

# error_of(DATABASE, SQL): the ERROR line SQL fails with (empty if it works)
sub error_of
{
	my ($db, $sql) = @_;
	my ($stdout, $stderr) = ('', '');
	IPC::Run::run(psql_command($db, '-c', $sql), '>', \$stdout, '2>', \$stderr);
	return $stderr =~ /^(ERROR:.*)$/m ? $1 : '';
}

# ---- the source ----
$node->safe_psql('postgres', 'CREATE DATABASE dba_source');
$node->safe_psql('dba_source', <<'SQL');
CREATE EXTENSION bloomfilter;

-- The filter of lo..hi at (p, capacity); NULL without a range.
CREATE FUNCTION recipe(lo int, hi int, p float8, capacity int8) RETURNS bloom
LANGUAGE sql STABLE AS $$
	SELECT CASE WHEN lo IS NOT NULL THEN
		(SELECT bloom_agg(g, p, capacity) FROM generate_series(lo, hi) AS g) END
$$;

-- STORAGE EXTENDED: compressible filters are compressed, the others stored
-- out of line as they are (or inline when small)
CREATE TABLE plain (id int PRIMARY KEY, lo int, hi int, p float8, capacity int8, f bloom);
ALTER TABLE plain ALTER f SET STORAGE EXTENDED, ALTER f SET COMPRESSION pglz;
INSERT INTO plain (id, lo, hi, p, capacity) VALUES
	(1, 1, 30, 0.01, 50),				-- 80 bytes, inline
	(2, 1, 10000, 0.01, 10000),			-- 12 kB, out of line
	(3, 1, 1000000, 0.01, 1000000),		-- 1.2 MB, out of line
	(4, 1, 1000, 0.01, 100000),			-- 120 kB, compressed
	(5, 1, 2000, 0.01, 2000000),		-- 2.4 MB, scheme 2, compressed
	(6, NULL, NULL, NULL, NULL);		-- NULL
UPDATE plain SET f = recipe(lo, hi, p, capacity);

CREATE TYPE labelled AS (label text, f bloom);
CREATE TABLE composite (id int PRIMARY KEY, v labelled);
INSERT INTO composite SELECT id, ROW('filter ' || id, f)::labelled FROM plain;

-- the stored filters together (a NULL among them), the small ones, none
CREATE TABLE arrays (id int PRIMARY KEY, fs bloom[]);
INSERT INTO arrays
SELECT 1, array_agg(f ORDER BY id) FROM plain
UNION ALL SELECT 2, array_agg(f ORDER BY id) FROM plain WHERE id IN (1, 2)
UNION ALL SELECT 3, '{}';

CREATE DOMAIN used_bloom AS bloom CHECK ((bloom_info(VALUE)).bits_set > 0);
CREATE TABLE domain_filters (id int PRIMARY KEY, f used_bloom);
INSERT INTO domain_filters SELECT id, f FROM plain WHERE f IS NOT NULL;

-- Per table and row: the md5 of the row's text form and of the binary form
-- of every filter in it.
CREATE VIEW digest AS
SELECT 'plain' AS tbl, id, md5(t::text) AS text_md5, md5(bloom_send(f)) AS send_md5 FROM plain AS t
UNION ALL
SELECT 'composite', id, md5(t::text), md5(bloom_send((v).f)) FROM composite AS t
UNION ALL
SELECT 'arrays', id, md5(t::text),
	(SELECT md5(string_agg(coalesce(md5(bloom_send(e)), 'null'), ',' ORDER BY n))
	 FROM unnest(t.fs) WITH ORDINALITY AS u(e, n))
FROM arrays AS t
UNION ALL
SELECT 'domain', id, md5(t::text), md5(bloom_send(f)) FROM domain_filters AS t;

-- Rows that differ from their recomputation (=, record =, array =), by
-- table.  (Not "a IS DISTINCT FROM b" on filters: a view with it does not
-- restore from pg_dump, see below.)
CREATE VIEW expected AS SELECT id, recipe(lo, hi, p, capacity) AS f FROM plain;
CREATE VIEW differing AS
SELECT 'plain' AS tbl,
	count(*) FILTER (WHERE NOT coalesce(t.f = e.f, t.f IS NULL AND e.f IS NULL) OR (t.f IS NULL) <> (t.id = 6))
		AS rows,
	count(*) AS total
FROM plain AS t JOIN expected AS e USING (id)
UNION ALL
SELECT 'composite', count(*) FILTER (WHERE t.v IS DISTINCT FROM ROW('filter ' || id, e.f)::labelled), count(*)
FROM composite AS t JOIN expected AS e USING (id)
UNION ALL
SELECT 'arrays', count(*) FILTER (WHERE t.fs IS DISTINCT FROM CASE t.id
		WHEN 1 THEN (SELECT array_agg(f ORDER BY id) FROM expected)
		WHEN 2 THEN (SELECT array_agg(f ORDER BY id) FROM expected WHERE id IN (1, 2))
		ELSE '{}' END), count(*)
FROM arrays AS t
UNION ALL
SELECT 'domain', count(*) FILTER (WHERE NOT coalesce(t.f = e.f, false)), count(*)
FROM domain_filters AS t JOIN expected AS e USING (id);

-- Every filter works where it is: each contains the first and last values
-- of its range (every range starts at 1).
CREATE VIEW usable AS
SELECT (SELECT bool_and((v).f @> p.lo AND (v).f @> p.hi) FROM composite JOIN plain AS p USING (id) WHERE p.lo IS NOT NULL)
	AND (SELECT bool_and(e @> 1) FROM arrays, unnest(fs) AS e WHERE e IS NOT NULL)
	AND (SELECT bool_and(bloom_contains(d.f, p.hi)) FROM domain_filters AS d JOIN plain AS p USING (id))
	AS usable;
SQL
is( sql('dba_source', q{SELECT string_agg(id || ' ' || coalesce(pg_column_compression(f),
		(pg_column_size(f) - octet_length(bloom_send(f)))::text, '-'), '|' ORDER BY id) FROM plain}),
	'1 1|2 0|3 0|4 pglz|5 pglz|6 -',
	'source: the forms (1 inline, 2 and 3 out of line, 4 and 5 compressed, 6 NULL)');
my $rows_equal_recomputation = 'plain 0 6|composite 0 6|arrays 0 3|domain 0 5';
my $differing = q{SELECT string_agg(tbl || ' ' || rows || ' ' || total, '|') FROM differing};
is(sql('dba_source', $differing), $rows_equal_recomputation,
	'source: every row = its recomputation (plain, composite, arrays, domain)');
my $digest = 'SELECT * FROM digest ORDER BY tbl, id';
my @source_digest = split /\n/, $node->safe_psql('dba_source', $digest);

# The digest lines of one table.
sub digest_of
{
	my ($tbl, @lines) = @_;
	return join("\n", grep { /^\Q$tbl\E\|/ } @lines);
}

# compare_copy(DATABASE, LABEL): bit-identical to the source, = recomputations
sub compare_copy
{
	my ($db, $label) = @_;
	my @copy_digest = split /\n/, sql($db, $digest);
	foreach my $tbl (qw(plain composite arrays domain))
	{
		my $copied = digest_of($tbl, @copy_digest);
		my $source = digest_of($tbl, @source_digest);
		ok( $copied ne '' && $copied eq $source,
			"$label: $tbl bit-identical (md5 of each row's text form and of every filter's bloom_send)"
		) or diag("$label: $tbl differs from the source:\nsource:\n$source\ncopy:\n$copied");
	}
	is(sql($db, $differing), $rows_equal_recomputation,
		"$label: every row = its recomputation (plain, composite, arrays, domain)");
	is(sql($db, 'SELECT usable FROM usable'), 't',
		"$label: every filter works in its column (composite field, array element, domain)");
	return;
}

# copy_binary(FROM DATABASE, TO DATABASE, TABLE, TO TABLE): COPY TO STDOUT
# (FORMAT binary) piped through psql into COPY FROM STDIN; the two exit
# codes, as "0 0"
sub copy_binary
{
	my ($from_db, $to_db, $from, $to) = @_;
	my ($from_err, $to_err) = ('', '');
	my $pipe = IPC::Run::start(
		psql_command($from_db, '-c', "COPY $from TO STDOUT (FORMAT binary)"),
		'2>', \$from_err, '|',
		psql_command($to_db, '-c', "COPY $to FROM STDIN (FORMAT binary)"),
		'2>', \$to_err);
	$pipe->finish;
	my $statuses = join(' ', map { shell_status($_) } $pipe->full_results);
	diag("COPY $from: $from_err$to_err") if $statuses ne '0 0';
	return $statuses;
}

# ---- COPY (FORMAT binary) through psql ----
sql('postgres', 'CREATE DATABASE dba_copy');
{
	my ($schema, $err) = ('', '');
	IPC::Run::run([ 'pg_dump', '--schema-only', '-d', $node->connstr('dba_source') ],
		'>', \$schema, '2>', \$err)
	  or diag("pg_dump --schema-only: $err");
	sql('dba_copy', $schema);
}
# the domain's rows last: its CHECK needs nothing else, but keep source order
foreach my $tbl (qw(plain composite arrays domain_filters))
{
	is(copy_binary('dba_source', 'dba_copy', $tbl, $tbl), '0 0',
		"COPY $tbl TO STDOUT | COPY $tbl FROM STDIN (FORMAT binary) through psql");
}
compare_copy('dba_copy', 'COPY binary');

# The number of matches of a pattern in a text.
sub count_matches
{
	my ($text, $pattern) = @_;
	my $n = () = $text =~ /$pattern/g;
	return $n;
}

# ---- pg_dump --inserts and --column-inserts ----
foreach my $form (qw(inserts column-inserts))
{
	(my $db = "dba_$form") =~ s/-/_/g;
	my $file = "$work/$form.sql";
	sql('postgres', "CREATE DATABASE $db");
	my $err = '';
	IPC::Run::run([ 'pg_dump', "--$form", '-d', $node->connstr('dba_source'), '-f', $file ],
		'2>', \$err);
	my $status = shell_status($?);
	diag("pg_dump --$form: $err") if $status != 0;
	# a filter's row is one INSERT with its text form
	my $n = -e $file ? count_matches(slurp_file($file), qr/^INSERT INTO public\.plain /m) : '';
	is("$status $n", '0 6',
		"pg_dump --$form exits 0 and writes one INSERT per row of plain");
	my ($stdout, $stderr) = ('', '');
	IPC::Run::run(psql_command($db, '-f', $file), '>', \$stdout, '2>', \$stderr);
	is(shell_status($?), 0, "pg_dump --$form: psql restores it") or diag($stderr);
	compare_copy($db, "pg_dump --$form");
}

# IS DISTINCT FROM has no OPERATOR(schema.=) spelling: a view (or trigger
# condition, constraint, index expression) comparing filters with it is
# dumped as it was written, and pg_dump's restore, whose search_path is
# empty, cannot find bloom's =.  The same view with = restores.
sql('postgres', "CREATE DATABASE dba_distinct;\nCREATE DATABASE dba_distinct_restored;");
sql('dba_distinct', <<'SQL');
CREATE EXTENSION bloomfilter;
CREATE TABLE pairs (a bloom, b bloom);
CREATE VIEW changed AS SELECT a IS DISTINCT FROM b AS changed FROM pairs;
CREATE VIEW changed_by_equality AS SELECT NOT coalesce(a = b, a IS NULL AND b IS NULL) AS changed FROM pairs;
SQL
my $distinct = "$work/distinct.sql";
$node->run_log([ 'pg_dump', '-d', $node->connstr('dba_distinct'), '-f', $distinct ]);
{
	my ($stdout, $stderr) = ('', '');
	IPC::Run::run(psql_command('dba_distinct_restored', '-f', $distinct),
		'>', \$stdout, '2>', \$stderr);
	is( $stderr =~ /(ERROR: .*)/ ? $1 : '',
		'ERROR:  operator does not exist: public.bloom = public.bloom',
		'a view with filter IS DISTINCT FROM filter does not restore from pg_dump');
}
$node->run_log(
	[ 'pg_dump', '-d', $node->connstr('dba_distinct'), '-T', 'changed', '-f', $distinct ]);
if (-e $distinct)
{
	# drop the view "changed", should -T have left it in
	my @lines = grep { !(/CREATE VIEW public.changed AS/ ... /;$/) }
	  split /^/, slurp_file($distinct);
	open my $fh, '>', $distinct or die "could not write $distinct: $!";
	print $fh @lines;
	close $fh;
}
sql('postgres', "DROP DATABASE dba_distinct_restored;\nCREATE DATABASE dba_distinct_restored;");
{
	my ($stdout, $stderr) = ('', '');
	IPC::Run::run(psql_command('dba_distinct_restored', '-f', $distinct),
		'>', \$stdout, '2>', \$stderr);
	note($stderr) if $stderr ne '';
}
is( sql('dba_distinct_restored',
		q{SELECT string_agg(viewname, ',') FROM pg_views WHERE schemaname = 'public'}),
	'changed_by_equality',
	'  ... the same comparison written with = restores');

# ---- a materialized view of per-day filters, refreshed concurrently ----
sql('postgres', 'CREATE DATABASE dba_views');
sql('dba_views', <<'SQL');
CREATE EXTENSION bloomfilter;
-- 7 days of 20,000 events
CREATE TABLE events (day date, visitor int8);
INSERT INTO events SELECT date '2024-06-01' + g % 7, g FROM generate_series(1, 140000) AS g;
CREATE MATERIALIZED VIEW daily AS
	SELECT day, bloom_agg(visitor, 0.01, 40000) AS f FROM events GROUP BY day;
CREATE UNIQUE INDEX ON daily (day);
CREATE TABLE daily_before AS SELECT day, xmin::text::int8 AS row_xmin FROM daily;
INSERT INTO events SELECT date '2024-06-03', g FROM generate_series(500001, 501000) AS g;
REFRESH MATERIALIZED VIEW CONCURRENTLY daily;
SQL
is( sql('dba_views', q{SELECT count(*) || ' ' || count(*) FILTER (WHERE f = (SELECT bloom_agg(visitor, 0.01, 40000)
		FROM events AS e WHERE e.day = d.day)) FROM daily AS d}),
	'7 7',
	'REFRESH MATERIALIZED VIEW CONCURRENTLY: every row = its recomputation');
is( sql('dba_views', q{SELECT string_agg(day::text, ',') FROM daily JOIN daily_before AS b USING (day)
		WHERE daily.xmin::text::int8 <> b.row_xmin}),
	'2024-06-03',
	'  ... the changed day rewritten, the 6 others left as they were (same xmin)');
is( sql('dba_views',
		q{SELECT f @> 500001::int8 AND f @> 501000::int8 FROM daily WHERE day = '2024-06-03'}),
	't',
	"  ... the changed day's filter holds the new events");
sql('dba_views', 'CREATE MATERIALIZED VIEW filters_only AS SELECT f FROM daily');
is( error_of('dba_views', 'CREATE UNIQUE INDEX ON filters_only (f)'),
	'ERROR:  data type bloom has no default operator class for access method "btree"',
	'no unique index on a filter: bloom has no btree operator class');
is( error_of('dba_views', 'CREATE UNIQUE INDEX ON filters_only USING hash (f)'),
	'ERROR:  access method "hash" does not support unique indexes',
	'  ... nor a unique hash index');
is( error_of('dba_views', 'REFRESH MATERIALIZED VIEW CONCURRENTLY filters_only'),
	'ERROR:  cannot refresh materialized view "public.filters_only" concurrently',
	'  ... so a view of filters alone cannot be refreshed concurrently');
is(error_of('dba_views', 'REFRESH MATERIALIZED VIEW filters_only'),
	'', '  ... but refreshed plainly, it is');
sql('dba_views', q{CREATE TABLE unique_filters (f bloom, EXCLUDE USING hash (f WITH =));
INSERT INTO unique_filters SELECT f FROM daily;});
is( error_of('dba_views',
		q{INSERT INTO unique_filters SELECT f FROM daily WHERE day = '2024-06-04'}),
	'ERROR:  conflicting key value violates exclusion constraint "unique_filters_f_excl"',
	'an exclusion constraint (hash, =) does keep filters unique');

# ---- a range-partitioned table of per-day filters ----
sql('dba_views', <<'SQL');
CREATE TABLE daily_filters (day date NOT NULL, f bloom) PARTITION BY RANGE (day);
DO $$
BEGIN
	FOR i IN 0..6 LOOP
		EXECUTE format('CREATE TABLE daily_filters_%s PARTITION OF daily_filters FOR VALUES FROM (%L) TO (%L)',
			to_char(date '2024-06-01' + i, 'YYYYMMDD'), date '2024-06-01' + i, date '2024-06-01' + i + 1);
	END LOOP;
END
$$;
INSERT INTO daily_filters SELECT day, bloom_agg(visitor, 0.01, 40000) FROM events GROUP BY day;
ANALYZE daily_filters;
-- From EXPLAIN (FORMAT JSON) of a query: the tables its plan scans (after
-- the pruning done when the plan is made or its executor starts), and the
-- partitions the executor pruned.
CREATE FUNCTION scanned(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	plan jsonb;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
	RETURN (SELECT string_agg(r #>> '{}', ',' ORDER BY r #>> '{}')
		FROM jsonb_path_query(plan, 'strict $.**."Relation Name"') AS r);
END
$$;
CREATE FUNCTION pruned_at_run_time(query text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	plan jsonb;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
	RETURN (SELECT sum((r #>> '{}')::int) FROM jsonb_path_query(plan, 'strict $.**."Subplans Removed"') AS r);
END
$$;
SQL
is( sql('dba_views',
		q{SELECT scanned($q$SELECT f FROM daily_filters WHERE day = '2024-06-03'$q$)}),
	'daily_filters_20240603',
	"partition pruning: one day's filter is read from its partition only (EXPLAIN)");
is( sql('dba_views', q{SELECT f = (SELECT bloom_agg(visitor, 0.01, 40000) FROM events WHERE day = '2024-06-03')
		FROM daily_filters WHERE day = '2024-06-03'}),
	't',
	"  ... and it = the filter of that day's events");
is( sql('dba_views', q{SELECT scanned($q$SELECT bloom_union_agg(f) FROM daily_filters
		WHERE day BETWEEN '2024-06-02' AND '2024-06-04'$q$)}),
	'daily_filters_20240602,daily_filters_20240603,daily_filters_20240604',
	'three days: three partitions scanned');
is( sql('dba_views', q{SELECT (SELECT bloom_union_agg(f) FROM daily_filters WHERE day BETWEEN '2024-06-02' AND '2024-06-04')
		= (SELECT bloom_agg(visitor, 0.01, 40000) FROM events WHERE day BETWEEN '2024-06-02' AND '2024-06-04')}),
	't',
	'  ... and their bloom_union_agg = the filter of their events');
# a generic plan keeps every partition; the executor prunes all but one
is( sql('dba_views', q{SET plan_cache_mode = force_generic_plan;
PREPARE one_day(date) AS SELECT f FROM daily_filters WHERE day = $1;
SELECT scanned($q$EXECUTE one_day('2024-06-05')$q$) || ' '
	|| pruned_at_run_time($q$EXECUTE one_day('2024-06-05')$q$);}),
	'daily_filters_20240605 6',
	'run-time pruning: a prepared query (generic plan) reads one partition, 6 pruned as it starts');
is( error_of('dba_views', 'CREATE TABLE by_filter (f bloom) PARTITION BY RANGE (f)'),
	'ERROR:  data type bloom has no default operator class for access method "btree"',
	'no range partitioning by a filter: bloom has no btree operator class');
sql('dba_views', <<'SQL');
CREATE TABLE hashed (day date, f bloom) PARTITION BY HASH (f);
CREATE TABLE hashed_0 PARTITION OF hashed FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE hashed_1 PARTITION OF hashed FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE hashed_2 PARTITION OF hashed FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO hashed SELECT day, f FROM daily_filters;
SQL
my $one = sql('dba_views', q{SELECT f::text FROM daily_filters WHERE day = '2024-06-06'});
is( scalar(grep { length } split /,/,
		sql('dba_views', qq{SELECT scanned(format('SELECT * FROM hashed WHERE f = %L::bloom', '$one'))})),
	1,
	'hash partitioning by the filter itself (bloom_hash_extended): a lookup by = scans one partition');
is(sql('dba_views', qq{SELECT string_agg(day::text, ',') FROM hashed WHERE f = '$one'::bloom}),
	'2024-06-06', '  ... and finds the filter there');

# ---- the 1.3 value types through COPY (FORMAT binary) ----
# bloom_hashed (from bloom_value) and bloom_agg_state (the self-sizing
# aggregate's partial state: a hash set, and past 131,072 values a sparse
# sketch) out of one database and into another by their binary forms:
# byte-identical text forms, and the states finalize to the same filters.
sql('postgres', 'CREATE DATABASE dba_values');
sql('dba_values', <<'SQL');
CREATE EXTENSION bloomfilter;
CREATE AGGREGATE state_of(bloom_hashed) (SFUNC = bloom_autoagg_state_transfn, STYPE = bloom_agg_state);
CREATE TABLE value_types (id int, h bloom_hashed, s bloom_agg_state);
INSERT INTO value_types VALUES
	(1, bloom_value(42), (SELECT state_of(bloom_value(x)) FROM generate_series(1, 1000) AS x)),
	(2, bloom_value('café'::text), (SELECT state_of(bloom_value(x)) FROM generate_series(1, 150000) AS x)),
	(3, NULL, NULL);
CREATE TABLE value_types_copy (LIKE value_types);
SQL
is(copy_binary('dba_values', 'dba_values', 'value_types', 'value_types_copy'),
	'0 0',
	'bloom_hashed and bloom_agg_state: COPY TO STDOUT | COPY FROM STDIN (FORMAT binary)');
is( sql('dba_values', q{SELECT count(*) FILTER (WHERE a.h::text IS NOT DISTINCT FROM b.h::text),
		count(*) FILTER (WHERE a.s::text IS NOT DISTINCT FROM b.s::text),
		count(*) FILTER (WHERE bloom_autoagg_state_finalfn(a.s) = bloom_autoagg_state_finalfn(b.s))
	FROM value_types AS a JOIN value_types_copy AS b USING (id)}),
	'3|3|2',
	'  ... every value\'s text form is the same, and the states finalize to the same filters');

note('(' . (time - $started) . ' s)');
bloom_done();
