# Mutation tests of the type's input and receive functions, at the SQL level.
#
# From valid filters of several shapes (empty, m = 18, m = 64 and 65, a few
# thousand bits, text values, k = 1 and k = 64, m = 1), test/mutate.c
# derives thousands of mutated text forms (bit flips, byte substitutions,
# truncations, extensions, duplicated and deleted bytes, header field edits,
# bad base64 and padding, single bits of the array) and thousands of PGCOPY
# binary files whose bloom field (and sometimes its length word) is mutated,
# all from a fixed seed.  t/mutation.sql feeds each to the server: text
# through bloom's input function, binary through COPY ... (FORMAT binary).
# Each must be rejected with the right SQLSTATE (22P02 text, 22P03 binary;
# 22P04 or 54000 where the COPY file itself is broken) or be accepted as a
# usable filter in its one canonical form, as the generator's reference
# validator says.  The server must never crash or restart, and the session
# must never break.
#
# One check per mutation class, plus the seeds, the session and the crash
# and restart checks.
use strict;
use warnings;
use BloomTest;
use File::Spec;
use PostgreSQL::Test::Utils;
use Test::More;

my $started = time;
my $work    = PostgreSQL::Test::Utils::tempdir('mutation');
mkdir "$work/binary" or die "could not create $work/binary: $!";

# The generator, built here as a C program of its own.
my ($cc) = grep { defined && in_path($_) } ($ENV{CC} // 'cc', 'gcc', 'clang');
defined $cc or die 'no C compiler: neither $CC, cc, gcc nor clang is on PATH';
run_log([ $cc, '-O2', '-Wall', '-Wextra', '-o', "$work/mutate",
	bloom_root() . '/test/mutate.c' ])
  or die 'could not compile test/mutate.c';

my $node = bloom_node('mutation');

# Any byte but NUL must reach bloom_in, so the database does not check encodings.
$node->safe_psql('postgres',
	"CREATE DATABASE mutation ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"
);

# The seeds: valid filters of several shapes.
$node->safe_psql('mutation', q{
CREATE EXTENSION bloomfilter;
CREATE FUNCTION filled(f bloom, n int) RETURNS bloom LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..n LOOP
		f := bloom_add(f, i);
	END LOOP;
	RETURN f;
END
$$;
CREATE TABLE seed (name text PRIMARY KEY, f bloom NOT NULL);
INSERT INTO seed VALUES
	('empty-m18-k3', bloom_empty_mk(18, 3)),
	('empty-p0.01-n1000', bloom_empty(0.01, 1000)),
	('m18-k3', filled(bloom_empty_mk(18, 3), 2)),
	('m64-k4', filled(bloom_empty_mk(64, 4), 6)),
	('m128-k3', filled(bloom_empty_mk(128, 3), 30)),
	('m3000-k5', filled(bloom_empty_mk(3000, 5), 250)),
	('m100-k1', filled(bloom_empty_mk(100, 1), 20)),
	('m1000-k64', filled(bloom_empty_mk(1000, 64), 10)),
	('m1-k1', filled(bloom_empty_mk(1, 1), 1)),
	('text-p0.01-n200', (SELECT bloom_agg('word ' || i, 0.01, 200) FROM generate_series(1, 150) AS i)),
	-- hash scheme 2 (blocked), which only filters of 2 MiB and more get from
	-- bloom_empty: the bits of a scheme 1 filter relabelled, then filled
	('blocked-m1024-k6', filled(replace(filled(bloom_empty_mk(1024, 6), 20)::text, ':h1:', ':h2:')::bloom, 20));
-- m = 65 with bit 64, the only bit of its second word, set
INSERT INTO seed
SELECT 'm65-k2', bloom_add(filled(bloom_empty_mk(65, 2), 5), i)
FROM generate_series(1, 1000) AS i
WHERE get_byte(bloom_send(bloom_add(bloom_empty_mk(65, 2), i)), 12 + 8) <> 0
ORDER BY i LIMIT 1;
});
my $seeds = $node->safe_psql('mutation',
	"COPY (SELECT name, f::text, encode(bloom_send(f), 'hex') FROM seed ORDER BY name) TO STDOUT"
);
$seeds .= "\n" if $seeds ne '';
append_to_file("$work/seeds", $seeds);
is(scalar(() = $seeds =~ /\n/g), 12, 'seeds');

run_log([
		"$work/mutate", "$work/seeds", "$work/text", "$work/binary",
		"$work/binary.list"
	])
  or die 'the generator failed';

# (its reports are tables, with headers)
my ($status, $out, $err) = $node->psql(
	'mutation', '',
	extra_params => [
		'-P', 'format=aligned',
		'-P', 'tuples_only=off',
		'-v', "text_file=$work/text",
		'-v', "binary_file=$work/binary.list",
		'-f', bloom_root() . '/t/mutation.sql'
	]);
check_lines($out);
note($err) if $err ne '';
is($status, 0, 'the session ran to the end (psql exits 0)');

# A crash restarts the backends without stopping the postmaster: the log tells.
# (The framework sets restart_after_crash = off: a backend that exits
# abnormally, without a signal, makes the postmaster shut down instead, and
# say so; from 17 on the setting's name is quoted.)
my $restart = join('|',
	'terminated by signal',
	'all server processes terminated',
	'database system was interrupted',
	'terminating any other active server processes',
	'shutting down because "?restart_after_crash"? is off');
my @restarts = slurp_file($node->logfile) =~ /^.*(?:$restart).*$/mg;
ok(!@restarts, 'no crash or restart in the server log')
  or diag(join("\n", @restarts[ 0 .. ($#restarts < 19 ? $#restarts : 19) ]));

note('(' . (time - $started) . ' s)');
bloom_done();

# Whether a program of this name is on PATH.
sub in_path
{
	my ($program) = @_;
	return -x $program if $program =~ m{/};
	return grep { -f "$_/$program" && -x _ } File::Spec->path;
}
