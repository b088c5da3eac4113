# What the TAP tests (t/*.pl) share, on PostgreSQL's own framework
# (PostgreSQL::Test::Cluster and PostgreSQL::Test::Utils).
#
#   use BloomTest;
#   my $node = bloom_node('main', conf => { jit => 'off' });
#   $node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');
#   is($node->safe_psql('postgres', 'SELECT 1'), '1', 'one is one');
#   bloom_done();
#
# bloom_node makes and starts a server that loads the extension from
# $BLOOM_INST when that is set (a "make install DESTDIR=..." tree, as
# scripts/run.sh makes), and from the installation otherwise.  bloom_done
# checks that no backend of any server made so died of a signal (a crash
# restarts backends without stopping the postmaster: the log is the
# witness), then ends the plan.  The last line a test prints is
# "NAME: N passed, M failed" (or "NAME: 0 passed, 0 failed, 1 skipped"),
# which scripts/run.sh adds up; a test that dies before its end still
# prints it, and prove counts the death as a failure.
package BloomTest;

use strict;
use warnings;

use Exporter 'import';
use Cwd ();
use File::Basename;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(bloom_node bloom_watch bloom_done bloom_skip_all
  check_lines check_has check_lacks diff_of shell_status load_from_conf bloom_root
  $PG_MAJOR $EXPLAIN_INITPLAN_1 $EXPLAIN_INITPLAN_1_VALUE);

# The test's name, for the count line: t/011_parallel.pl is "parallel".
my $test_name = basename($0, '.pl');
$test_name =~ s/^\d+_//;

# The server's major version, and how its EXPLAIN prints the first InitPlan
# and its value: "InitPlan 1 (returns $0)" and "$0" up to 16, "InitPlan 1"
# and "(InitPlan 1).col1" on 17 and 18, "InitPlan expr_1" and
# "(InitPlan expr_1).col1" from 19 on.
our $PG_MAJOR;
{
	my $version = `pg_config --version`;
	($PG_MAJOR) = $version =~ /^PostgreSQL (\d+)/
	  or die "pg_config --version said \"$version\"";
}
our ($EXPLAIN_INITPLAN_1, $EXPLAIN_INITPLAN_1_VALUE) =
	$PG_MAJOR >= 19 ? ('InitPlan expr_1', '(InitPlan expr_1).col1')
  : $PG_MAJOR >= 17 ? ('InitPlan 1', '(InitPlan 1).col1')
  :                   ('InitPlan 1 (returns $0)', '$0');

# Notices stay out of the way of the output compared, as they always have
# for these tests; a test that looks at a notice sets its own level.
$ENV{PGOPTIONS} = join(' ', grep { defined && length } $ENV{PGOPTIONS},
	'-c client_min_messages=warning');

# The project's root (sql/, examples/, test/...), t/'s parent.
sub bloom_root
{
	return $ENV{BLOOM_ROOT} if $ENV{BLOOM_ROOT};
	my $root = dirname(dirname(Cwd::abs_path(__FILE__)));
	return $root;
}

my @nodes;

# bloom_node(NAME, [inst => DESTDIR], [allows_streaming => 1 | 'logical'],
#            [conf => { name => value, ... }], [start => 0], [no_checksums => 1])
# A new server, initialized (UTF8, C.UTF-8) and started.  inst overrides
# $BLOOM_INST; conf is appended to postgresql.conf last.  With
# allows_streaming, the framework's small shared_buffers and max_connections
# are set back to initdb's defaults.  no_checksums: without data checksums
# on 18 and later too, where initdb turns them on (a test of damaged pages
# wants its own checks to fire, not the checksum's).
sub bloom_node
{
	my ($name, %opts) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	my @initdb = ('-E', 'UTF8', '--locale=C.UTF-8');
	# 18's initdb turns data checksums on unless told otherwise
	push @initdb, '--no-data-checksums'
	  if $opts{no_checksums} && $node->pg_version >= 18;
	$node->init(
		allows_streaming => $opts{allows_streaming} // 0,
		extra => \@initdb);
	my @conf;
	push @conf, "shared_buffers = 128MB", "max_connections = 100"
	  if $opts{allows_streaming};
	push @conf, load_from_conf($opts{inst} // $ENV{BLOOM_INST});
	my $conf = $opts{conf} // {};
	push @conf, "$_ = $conf->{$_}" for sort keys %$conf;
	$node->append_conf('postgresql.conf', join("\n", @conf)) if @conf;
	$node->start unless defined $opts{start} && !$opts{start};
	push @nodes, $node;
	return $node;
}

# bloom_watch(NODE): a server made otherwise (init_from_backup) whose log
# bloom_done checks too.
sub bloom_watch
{
	push @nodes, @_;
	return;
}

# load_from_conf(DESTDIR): the settings (lines of postgresql.conf) that load
# the extension from a DESTDIR tree, as scripts/destdir_settings.sh gives
# them.
sub load_from_conf
{
	my ($inst) = @_;
	return () unless $inst;
	my $script = bloom_root() . '/scripts/destdir_settings.sh';
	# the pg_config of the servers the framework starts: the one on the PATH
	local $ENV{PG_CONFIG} = 'pg_config';
	my @settings = split /\n/, `'$script' '$inst'`;
	die "$script $inst failed" if $? != 0 || !@settings;
	return map { my ($name, $value) = split /=/, $_, 2; "$name = '$value'" } @settings;
}

# check_lines(OUTPUT): the lines "CHECK pass|fail DESCRIPTION" of OUTPUT
# (SQL prints them, with format('CHECK %s ...')) as one test each; its
# other lines are noted as they are.
sub check_lines
{
	my ($output) = @_;
	foreach my $line (split /\n/, $output)
	{
		if ($line =~ /^CHECK /)
		{
			# as the shell's "read -r _ result description": a line with no
			# verdict is a failure, never dropped
			my (undef, $result, $description) = split ' ', $line, 3;
			ok(($result // '') eq 'pass', $description // '');
		}
		else
		{
			note($line);
		}
	}
	return;
}

# check_has(NAME, NEEDLE, TEXT) and check_lacks: TEXT holds NEEDLE (a
# fixed string), or does not; on failure the text is shown.
sub check_has
{
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($name, $needle, $text) = @_;
	$text //= '';
	ok(index($text, $needle) >= 0, $name)
	  or diag("no \"$needle\" in:\n$text");
	return;
}

sub check_lacks
{
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	my ($name, $needle, $text) = @_;
	$text //= '';
	ok(index($text, $needle) < 0, $name)
	  or diag("unexpected \"$needle\" in:\n$text");
	return;
}

# shell_status(WAIT_STATUS): a wait status ($?, or one of IPC::Run's
# full_results) as a shell gives it: the exit code, or 128 + the signal that
# killed the process, so that a death by signal is never 0.
sub shell_status
{
	my ($status) = @_;
	return $status & 127 ? 128 + ($status & 127) : $status >> 8;
}

# diff_of(EXPECTED_FILE, ACTUAL_FILE): diff -u's output, empty when equal.
sub diff_of
{
	my ($expected, $actual) = @_;
	my $diff = '';
	IPC::Run::run([ 'diff', '-u', $expected, $actual ], '>', \$diff);
	return $diff;
}

# bloom_done: no backend of any server died of a signal; then the plan ends.
sub bloom_done
{
	foreach my $node (@nodes)
	{
		my $log = -e $node->logfile ? slurp_file($node->logfile) : '';
		my @crashes = $log =~ /^.*terminated by signal.*$/mg;
		ok(!@crashes, 'no backend of server ' . $node->name . ' crashed')
		  or diag(join("\n", @crashes));
	}
	done_testing();
	return;
}

# bloom_skip_all(REASON): the whole test skips, saying so clearly.
sub bloom_skip_all
{
	my ($reason) = @_;
	my $out = Test::More->builder->output;
	print $out "SKIPPED: $reason\n";
	print $out "$test_name: 0 passed, 0 failed, 1 skipped\n";
	$test_name = undef;
	plan skip_all => $reason;
	return;
}

END
{
	if (defined $test_name)
	{
		my $builder = Test::More->builder;
		my @summary = $builder->summary;
		my $passed  = grep { $_ } @summary;
		my $failed  = grep { !$_ } @summary;
		# a death or a wrong plan is a failure of its own
		$failed++ if $? != 0 && $failed == 0;
		my $out = $builder->output;
		print $out "$test_name: $passed passed, $failed failed\n";
	}
}

1;
