# A value added under one client encoding and database encoding is found
# under every other (encoding/encoding.c, "Text").
#
#   - Databases in UTF8, LATIN1, EUC_JP and SQL_ASCII; in each, every client
#     encoding of UTF8, LATIN1, WIN1252, EUC_JP and SJIS that PostgreSQL can
#     convert to (the others are listed as not convertible).
#   - Value types: text, varchar, bpchar, name, json, jsonb, xml, an enum,
#     text[], a record, a range over text, a domain over text, citext and
#     hstore; values ASCII, Latin (café, naïve) and Japanese (あい), each
#     where the database encoding can hold it.
#   - Under every (database, client) pair a filter of each type is built,
#     with a fixed capacity and self-sized; every other pair must find every
#     value both databases hold, and must not find a value never added.
#   - The same for counting and scalable filters of text, jsonb and records:
#     a counting filter built by counting_bloom_agg, to which the absent
#     value is added and from which it is removed again (under the builder's
#     encodings); a scalable filter of 2 stages (bloom_add_all) and a
#     self-sized one (scalable_bloom_agg).
#   - postgres_fdw between databases of different encodings: the plain join
#     and the prefiltered join return the same rows, both ways.
#   - Filters built before 1.2 in a LATIN1 or EUC_JP database (golden text
#     forms) answer there as they did; mixing them with new ones is an error.
#   - Golden vectors: the new text forms for the same values are the same in
#     every database.
use strict;
use warnings;
use BloomTest;
use Test::More;

my $node = bloom_node('encodings');

my @databases = qw(UTF8 LATIN1 EUC_JP SQL_ASCII);
my @clients   = qw(UTF8 LATIN1 WIN1252 EUC_JP SJIS);

sub dbname { return 'enc_' . lc(shift); }

# The values, as UTF-8 bytes: converted into each database where they fit.
my $values_sql =
  q{VALUES (1, '\x616263'::bytea), (2, '\x636166c3a9'), (3, '\x6e61c3af7665'),
	(4, '\xe38182e38184'), (5, '\x20e282ac20'), (6, '\x4172726179')};
# Never added anywhere: must not be found.
my $absent_utf8 = q{\x6e657665722d6164646564};

# The types, as expressions over the text column t.
my @types = (
	[ 'text',    't' ],
	[ 'varchar', 't::varchar' ],
	[ 'bpchar',  't::char(16)' ],
	[ 'name',    't::name' ],
	[ 'json',    'to_json(t)' ],
	[ 'jsonb',   'to_jsonb(t)' ],
	[ 'xml',     'xmlelement(name x, t)' ],
	[ 'enum',    't::mood' ],
	[ 'text[]',  q{ARRAY[t, 'x']} ],
	[ 'record',  'ROW(t, 1)' ],
	[ 'range',   q{textrange(t, t, '[]')} ],
	[ 'domain',  't::dtext' ],
	[ 'citext',  't::citext' ],
	[ 'hstore',  q{hstore('k', t)} ]);

foreach my $enc (@databases)
{
	my $db = dbname($enc);
	$node->safe_psql('postgres',
		"CREATE DATABASE $db TEMPLATE template0 ENCODING '$enc' LC_COLLATE 'C' LC_CTYPE 'C'"
	);
	$node->safe_psql($db, qq{
CREATE EXTENSION bloomfilter;
CREATE EXTENSION citext;
CREATE EXTENSION hstore;
-- the values this database can hold
CREATE TABLE v (id int PRIMARY KEY, t text NOT NULL);
DO \$\$
DECLARE r record;
BEGIN
	FOR r IN $values_sql LOOP
		BEGIN
			INSERT INTO v VALUES (r.column1, convert_from(r.column2, 'UTF8'));
		EXCEPTION WHEN untranslatable_character OR character_not_in_repertoire THEN
			NULL;
		END;
	END LOOP;
	EXECUTE format('CREATE TYPE mood AS ENUM (%s, %L)',
				   (SELECT string_agg(quote_literal(t), ', ' ORDER BY id) FROM v),
				   convert_from('$absent_utf8', 'UTF8'));
END
\$\$;
CREATE TYPE textrange AS RANGE (subtype = text, collation = "C");
CREATE DOMAIN dtext AS text;
CREATE TABLE absent AS SELECT convert_from('$absent_utf8', 'UTF8') AS t;
});
}

# The (database, client) pairs PostgreSQL can convert between.
my @pairs;
foreach my $enc (@databases)
{
	foreach my $client (@clients)
	{
		my ($stdout, $stderr);
		if ($node->psql(dbname($enc), "SET client_encoding = '$client'",
				stdout => \$stdout, stderr => \$stderr) == 0)
		{
			push @pairs, "$enc/$client";
		}
		else
		{
			note("not convertible: database $enc, client $client");
		}
	}
}
note("pairs: @pairs");
fail("too few convertible pairs: @pairs") if @pairs < 12;

# Build: one line per type and sizing, "pair<TAB>type<TAB>ids<TAB>filter".
my @filters;
foreach my $pair (@pairs)
{
	my ($enc, $client) = split m{/}, $pair;
	my $build = "SET client_encoding = '$client';\n";
	foreach my $entry (@types)
	{
		my ($type, $expr) = @$entry;
		$build .= "SELECT '$pair', '$type/fixed', array_agg(id ORDER BY id)::text,
				bloom_agg($expr, 0.0001, 100)::text FROM v;\n";
		$build .= "SELECT '$pair', '$type/self-sized', array_agg(id ORDER BY id)::text,
				bloom_agg($expr)::text FROM v;\n";
	}
	push @filters,
	  split /\n/,
	  $node->safe_psql(dbname($enc), $build, extra_params => [ '-F', "\t" ]);
}
note('filters built: ' . scalar(@filters));

# Counting and scalable filters, as @filters: "pair<TAB>kind<TAB>ids<TAB>filter".
my @set_types = grep { $_->[0] =~ /^(text|jsonb|record)$/ } @types;
my (@counting, @scalable);
foreach my $pair (@pairs)
{
	my ($enc, $client) = split m{/}, $pair;
	my ($counting, $scalable) = ("SET client_encoding = '$client';\n") x 2;
	foreach my $entry (@set_types)
	{
		my ($type, $expr) = @$entry;
		my $absent = "(SELECT $expr FROM absent)";
		$counting .= "SELECT '$pair', '$type/counting', array_agg(id ORDER BY id)::text,
				bloom_remove(bloom_add(counting_bloom_agg($expr, 0.0001, 100), $absent), $absent)::text FROM v;\n";
		$scalable .= "SELECT '$pair', '$type/scalable', array_agg(id ORDER BY id)::text,
				bloom_add_all(scalable_bloom_empty(0.0001, 2), array_agg($expr ORDER BY id))::text FROM v;\n";
		$scalable .= "SELECT '$pair', '$type/scalable-self-sized', array_agg(id ORDER BY id)::text,
				scalable_bloom_agg($expr, 0.0001)::text FROM v;\n";
	}
	push @counting, split /\n/,
	  $node->safe_psql(dbname($enc), $counting, extra_params => [ '-F', "\t" ]);
	push @scalable, split /\n/,
	  $node->safe_psql(dbname($enc), $scalable, extra_params => [ '-F', "\t" ]);
}
note('counting filters built: ' . scalar(@counting) . ', scalable: ' . scalar(@scalable));
# (every pair's databases hold at least 3 values: the scalable filters of
# bloom_add_all have 2 stages)
is( $node->safe_psql(
		'enc_utf8', "SELECT bool_and((bloom_info(filter::scalable_bloom)).stages = 2)
		FROM (VALUES ('" . join("'), ('", map { (split /\t/)[3] } grep { m{/scalable\t} } @scalable) . "')) AS s(filter)"),
	't',
	'every scalable filter of bloom_add_all has 2 stages (' . scalar(grep { m{/scalable\t} } @scalable) . ' filters)');

# Probe: under every pair, every filter finds every value it was built from
# that this database holds, and not the absent value.  One check per
# (builder pair, prober pair).
foreach my $pair (@pairs)
{
	my ($enc, $client) = split m{/}, $pair;
	my $probe = "SET client_encoding = '$client';
CREATE TEMP TABLE f (builder text, kind text, ids int[], filter bloom);
COPY f FROM STDIN;
" . join('', map { "$_\n" } @filters) . "\\.
CREATE TEMP TABLE r (builder text, kind text, found bool, absent_found bool);\n";
	# hstore's send function writes each string's length in the database
	# encoding before converting it (contrib's choice), so its hashes agree
	# across client encodings but across databases only where the text has
	# the same length in both: it is probed only by databases of the
	# builder's encoding (UTF8 and SQL_ASCII hold the same bytes).
	$probe .= "CREATE FUNCTION pg_temp.same_bytes(builder text) RETURNS bool LANGUAGE sql AS
			\$\$ SELECT replace(split_part(builder, '/', 1), 'SQL_ASCII', 'UTF8') = replace('$enc', 'SQL_ASCII', 'UTF8') \$\$;\n";
	foreach my $entry (@types)
	{
		my ($type, $expr) = @$entry;
		my $only = $type eq 'hstore' ? 'AND pg_temp.same_bytes(f.builder)' : '';
		$probe .= "INSERT INTO r SELECT f.builder, f.kind,
				bool_and(bloom_contains(f.filter, $expr)) FILTER (WHERE v.id = ANY (f.ids)),
				bloom_contains(f.filter, (SELECT $expr FROM absent))
				FROM f LEFT JOIN v ON true WHERE split_part(f.kind, '/', 1) = '$type' $only
				GROUP BY f.builder, f.kind, f.filter;\n";
	}
	# the counting and scalable filters
	$probe .= "CREATE TEMP TABLE fc (builder text, kind text, ids int[], filter counting_bloom);
COPY fc FROM STDIN;
" . join('', map { "$_\n" } @counting) . "\\.
CREATE TEMP TABLE fs (builder text, kind text, ids int[], filter scalable_bloom);
COPY fs FROM STDIN;
" . join('', map { "$_\n" } @scalable) . "\\.
CREATE TEMP TABLE rs (builder text, kind text, found bool, absent_found bool);\n";
	foreach my $entry (@set_types)
	{
		my ($type, $expr) = @$entry;
		foreach my $table (qw(fc fs))
		{
			$probe .= "INSERT INTO rs SELECT f.builder, f.kind,
				bool_and(bloom_contains(f.filter, $expr)) FILTER (WHERE v.id = ANY (f.ids)),
				bloom_contains(f.filter, (SELECT $expr FROM absent))
				FROM $table AS f LEFT JOIN v ON true WHERE split_part(f.kind, '/', 1) = '$type'
				GROUP BY f.builder, f.kind, f.filter;\n";
		}
	}
	my $nsets = 3 * scalar(@set_types);
	$probe .= "SELECT format('CHECK %s %s -> %s: %s counting and scalable filters%s', CASE WHEN count(*) = $nsets
				AND bool_and(coalesce(found, true)) AND NOT bool_or(absent_found) THEN 'pass' ELSE 'fail' END,
				builder, '$pair', count(*),
				coalesce(': missed in ' || string_agg(kind, ', ') FILTER (WHERE NOT found), '')
				|| coalesce('; absent value found in ' || string_agg(kind, ', ') FILTER (WHERE absent_found), ''))
			FROM rs GROUP BY builder ORDER BY builder;\n";
	my $ntypes = scalar(@types);
	$probe .= "SELECT format('CHECK %s %s -> %s: %s filters%s', CASE WHEN count(*) = ($ntypes - CASE WHEN pg_temp.same_bytes(builder) THEN 0 ELSE 1 END) * 2
				AND bool_and(coalesce(found, true)) AND NOT bool_or(absent_found) THEN 'pass' ELSE 'fail' END,
				builder, '$pair', count(*),
				coalesce(': missed in ' || string_agg(kind, ', ') FILTER (WHERE NOT found), '')
				|| coalesce('; absent value found in ' || string_agg(kind, ', ') FILTER (WHERE absent_found), ''))
			FROM r GROUP BY builder ORDER BY builder;\n";
	my ($ret, $stdout, $stderr) = $node->psql(dbname($enc), $probe);
	fail("probing under $pair: $stdout\n$stderr") if $ret != 0;
	check_lines($stdout);
	note($stderr) if $stderr ne '';
}

# Golden vectors: the filter of text 'abc' and 'café' at (0.01, 10) is the
# same in every database, and is the one 1.1 built in a UTF8 database, with
# the flag; ASCII alone has no flag and is byte-identical to 1.1's.
my $golden_mixed      = 'bloom:v1:h1:m96:k7:f1:AOgOAACglBIAAAAAAAAAAA==';
my $golden_ascii_utf8 = 'bloom:v1:h1:m96:k7:AAAAAACglBIAAAAAAAAAAA==';
my $golden_array      = 'bloom:v1:h1:m96:k7:f1:SkoAAAAAAAAAAABAAAAAAA==';
my @counting_forms;
foreach my $enc (@databases)
{
	my $db = dbname($enc);
	is( $node->safe_psql($db, 'SELECT bloom_agg(t, 0.01, 10) FROM v WHERE id IN (1, 2)'),
		$golden_mixed, "golden: text {abc, café} in $enc");
	my $client = $enc eq 'EUC_JP' ? 'SJIS' : 'LATIN1';
	is( $node->safe_psql(
			$db, "SET client_encoding = '$client';
			SELECT bloom_agg(ARRAY[t], 0.01, 10) FROM v WHERE id = 2"),
		$golden_array,
		"golden: ARRAY[café] under client $client in $enc");
	is( $node->safe_psql(
			$db, 'SELECT bloom(counting_bloom_agg(t, 0.01, 10)) FROM v WHERE id IN (1, 2)'),
		$golden_mixed, "golden: the counting filter of text {abc, café} in $enc, cast to bloom");
	push @counting_forms, $node->safe_psql($db,
		q{SELECT counting_bloom_agg(t, 0.01, 10) || ' ' || bloom_add_all(scalable_bloom_empty(0.01, 1), array_agg(t ORDER BY id))
		FROM v WHERE id IN (1, 2)});
	my $ascii =
	  $node->safe_psql($db, 'SELECT bloom_agg(t, 0.01, 10) FROM v WHERE id = 1');
	if ($enc eq 'UTF8' || $enc eq 'SQL_ASCII')
	{
		is($ascii, $golden_ascii_utf8,
			"golden: text {abc} in $enc has no flag (as 1.1 built it)");
	}
	else
	{
		(my $flagged = $golden_ascii_utf8) =~ s/^bloom:v1:h1:m96:k7:/bloom:v1:h1:m96:k7:f1:/;
		is($ascii, $flagged, "golden: text {abc} in $enc has the flag");
	}
}

is(scalar(keys %{ { map { $_ => 1 } @counting_forms } }) . ' ' . scalar(@counting_forms),
	'1 ' . scalar(@databases),
	'the counting and the 2-stage scalable filter of text {abc, café} have the same text form in every database'
) or diag(join("\n", @counting_forms));

# Filters 1.1 built (golden text forms, made with commit 26a7fd0): in LATIN1,
# text {abc, café}; text[] {café} under client LATIN1; in EUC_JP, text[]
# {あい} under client EUC_JP.  They answer as they did.
my $legacy_latin1_text  = 'bloom:v1:h1:m96:k7:CAQCQSCglBIAAAAQAAAAAA==';
my $legacy_latin1_array = 'bloom:v1:h1:m96:k7:AIAAAgACCAAQQABAAAAAAA==';
my $legacy_query =
  "SELECT bloom_contains('$legacy_latin1_text', t), bloom_contains('$legacy_latin1_array', ARRAY[t])
		FROM v WHERE id = 2";
is( join('|',
		split /\n/,
		$node->safe_psql(
			'enc_latin1',
			"$legacy_query;\nSET client_encoding = 'UTF8';\n$legacy_query;")),
	't|t|t|t',
	"1.1's LATIN1 filters still find their values, under client LATIN1 and UTF8");
my $new_eucjp_array = $node->safe_psql('enc_euc_jp',
	"SET client_encoding = 'EUC_JP';
	SELECT bloom_agg(ARRAY[t], 0.01, 10) FROM v WHERE id = 4");
is((split /:/, $new_eucjp_array)[5] // '', 'f1', 'a new EUC_JP filter has the flag');
my $legacy_eucjp_array = 'bloom:v1:h1:m96:k7:AAAEQAAEIAACEAABAAAAAA==';
is( $node->safe_psql('enc_euc_jp',
		"SELECT bloom_contains('$legacy_eucjp_array', ARRAY[convert_from('\\xe38182', 'UTF8')])"
	),
	't',
	"1.1's EUC_JP filter of ARRAY[あ] still finds it");
my $L = $legacy_latin1_text;
is( $node->safe_psql('enc_latin1',
		"SELECT (SELECT bloom_empty_like('$L') = bloom_agg_like(NULL::text, '$L')),
		bloom_contains(bloom_add(bloom_empty_like('$L'), t), t),
		bloom_contains('$L'::bloom | (SELECT bloom_agg_like(w.t, '$L') FROM v w WHERE w.id = 2), t),
		(SELECT bloom_agg_like(w.t, '$L') FROM v w WHERE w.id = 2) = bloom_add(bloom_empty_like('$L'), t)
		FROM v WHERE id = 2"),
	't|t|t|t',
	"bloom_empty_like and bloom_agg_like keep a 1.1 filter's reading");
{
	my ($ret, $stdout, $stderr) = $node->psql('enc_latin1',
		"SELECT '$legacy_latin1_text'::bloom | bloom_agg(t, 0.01, 10) FROM v");
	my ($first) = split /\n/, ($stdout ne '' ? "$stdout\n" : '') . $stderr;
	$first //= '';
	# psql reads the statement from stdin (-f -), and names the place
	# ("psql:<stdin>:1: ") before the server's message.
	$first =~ s/^psql:<stdin>:\d+: //;
	is( $first,
		'ERROR:  operator |: the filters hash text differently',
		'a 1.1 LATIN1 filter and a new one do not combine');
}
is( $node->safe_psql('enc_utf8',
		"SELECT '$golden_ascii_utf8'::bloom | bloom_agg(t, 0.01, 10) FROM v WHERE id = 2"),
	$golden_mixed,
	'in a UTF8 database, flagged and unflagged filters combine');

# Parallel workers switch the client encoding for the send functions as the
# leader does: 2 workers and a serial plan build the same filters.
foreach my $pair (qw(UTF8/SJIS LATIN1/UTF8 EUC_JP/EUC_JP))
{
	my ($enc, $client) = split m{/}, $pair;
	my ($ret, $stdout, $stderr) = $node->psql(dbname($enc), qq{
SET client_encoding = '$client';
CREATE TABLE many AS SELECT g, t FROM v, generate_series(1, 20000) g;
ANALYZE many;
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
-- as merged before 1.2, so that this small table is split between workers
ALTER FUNCTION bloom_autoagg_combinefn(internal, internal) COST 1;
ALTER FUNCTION bloom_autoagg_deserialfn(bytea, internal) COST 1;
ALTER FUNCTION bloom_autoagg_serialfn(internal) COST 1;
EXPLAIN (COSTS OFF) SELECT bloom_agg(ROW(t, g)) FROM many;
CREATE TEMP TABLE par AS SELECT bloom_agg(ARRAY[t, g::text], 0.01, 200000) AS fixed,
	bloom_agg(ROW(t, g)) AS self, bloom_agg(to_jsonb(t)) AS json FROM many;
EXPLAIN (COSTS OFF) SELECT bloom_agg(ARRAY[t, g::text], 0.01, 200000) FROM many;
SET max_parallel_workers_per_gather = 0;
SELECT format('%s|%s|%s', fixed = (SELECT bloom_agg(ARRAY[t, g::text], 0.01, 200000) FROM many),
	self = (SELECT bloom_agg(ROW(t, g)) FROM many), json = (SELECT bloom_agg(to_jsonb(t)) FROM many)) FROM par;
});
	my $planned = () = $stdout =~ /Workers Planned: 2/g;
	my $last = (split /\n/, $stdout)[-1] // '';
	ok( $ret == 0
		  && $planned == 2
		  && $stdout =~ /Partial Aggregate/
		  && $last eq 't|t|t',
		"parallel = serial under $pair (2 workers): text[], record (self-sized), jsonb"
	) or diag("parallel = serial under $pair: $stdout\n$stderr");
}

# postgres_fdw between databases of different encodings.
my $user = $node->safe_psql('postgres', 'SELECT current_user');
my ($host, $port) = ($node->host, $node->port);

sub fdw_pair
{
	my ($local_db, $remote_db) = @_;
	# only values the local database can hold, or fetching them fails
	my $ids = $node->safe_psql($local_db, "SELECT string_agg(id::text, ',') FROM v");
	$node->safe_psql($remote_db, "CREATE TABLE items_for_$local_db AS
		SELECT id, t, g FROM v, generate_series(1, 50) g WHERE id IN ($ids)");
	my ($ret, $stdout, $stderr) = $node->psql($local_db, qq{
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
CREATE SERVER srv_$remote_db FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '$host', port '$port', dbname '$remote_db', extensions 'bloomfilter');
CREATE USER MAPPING FOR CURRENT_USER SERVER srv_$remote_db OPTIONS (user '$user');
CREATE FOREIGN TABLE items_$remote_db (id int, t text, g int) SERVER srv_$remote_db
	OPTIONS (table_name 'items_for_$local_db');
CREATE TEMP TABLE keys AS SELECT t FROM v WHERE id <> 1;
SELECT format('%s|%s|%s|%s',
	(SELECT count(*) FROM items_$remote_db r JOIN keys k ON r.t = k.t),
	(SELECT count(*) FROM items_$remote_db r JOIN keys k ON r.t = k.t
		WHERE bloom_contains((SELECT bloom_agg(t, 0.01, 100) FROM keys), r.t)),
	(SELECT count(*) FROM items_$remote_db r
		WHERE bloom_contains((SELECT bloom_agg(t, 0.01, 100) FROM keys), r.t)),
	(SELECT count(*) FROM items_$remote_db));
});
	my $last = (split /\n/, $stdout)[-1] // '';
	my ($plain, $prefiltered, $fetched, $total) = split /\|/, $last;
	if (   $ret == 0
		&& 4 == (grep { defined && /^\d+$/ } $plain, $prefiltered, $fetched, $total)
		&& $plain > 0
		&& $plain eq $prefiltered
		&& $fetched >= $plain
		&& $fetched < $total)
	{
		pass(
			"postgres_fdw $local_db -> $remote_db: plain join $plain rows, prefiltered $prefiltered, remote rows passing the filter $fetched of $total"
		);
	}
	else
	{
		fail("postgres_fdw $local_db -> $remote_db: $stdout\n$stderr");
	}
	return;
}
fdw_pair('enc_utf8',   'enc_latin1');
fdw_pair('enc_latin1', 'enc_utf8');
fdw_pair('enc_utf8',   'enc_euc_jp');
fdw_pair('enc_euc_jp', 'enc_utf8');

bloom_done();
