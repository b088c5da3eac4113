#!/usr/bin/env perl
# The docs run as written: every SQL example of README.md and doc/*.md is
# run, page by page, each page in a fresh database, in page order, and every
# output a page states is compared with what psql prints.
#
#   test/doc.pl [PAGE.md...]      (against the server of PGHOST/PGPORT/PGUSER:
#                                  scripts/run.sh runs it on the throwaway
#                                  cluster of test/pg_cluster.sh)
#   test/doc.pl --figures [PAGE.md...]   (the figures check alone, no server)
#
# What is run:
#   - every ```sql block, statement by statement, in one psql session per
#     page (so SET, PREPARE and \gset carry on to the next block), in a
#     database made for the page: the page's own first blocks are its
#     set-up (CREATE EXTENSION and the tables its examples use);
#   - every inline example `SELECT ...` → `result` (the tables' example
#     columns), where it stands in the page.
# What is compared:
#   - a statement followed by comment lines "-- → a | b" (one a row, fields
#     as psql's unaligned output with " | " between them; "…" in a field
#     stands for any characters) must print exactly those rows;
#   - a statement followed by "-- ERROR:  ..." (and "-- DETAIL:", "-- HINT:"
#     lines) must fail with that error; any other error fails the test;
#   - an unlabelled fenced block right after a ```sql block is that block's
#     output, as psql prints it (aligned), compared line by line;
#   - an inline `SELECT ...` → `result` as a "-- →" row;
#   - a block that prints more than a screen (60 lines or 6,000 characters)
#     fails: an example should not flood a reader's terminal;
#   - a page that says "as of version X.Y" or "the default version (X.Y)"
#     must name bloomfilter.control's default_version.
# What is skipped, counted and named: a block whose info string says what it
# needs that a single throwaway server has not ("```sql needs:fdw": another
# server; "needs:citus": Citus; "needs:preload": a library preloaded for
# every session; "measured": a run on the benchmark's data, shown as
# measured), and patterns that are not statements ("```sql fragment").
#
# One source for each figure: a measured figure (a number with a unit of
# time, size, rate or ratio: ms, µs, s, MB, kB, GB, %, ×, "a second",
# MB/s, or a ratio 1/NNN) stated in the prose or the output blocks of two
# pages fails (one failed check each); the page that does not own it links
# to the one that does.
# %definitions lists the numbers that are definitions, not measurements
# (sizes the format fixes, settings, run lengths), and the few figures that
# are two different measurements of equal value.  "test/doc.pl --figures"
# runs this check alone, without a server.
#
# Ends with "doc: N passed, M failed, K skipped": one check per statement
# (it ran as the page says), per stated output, per block's size, per
# version statement, and per figure on two pages (one passed if none is).
use strict;
use warnings;
use utf8;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Time::HiRes qw(time);

binmode STDOUT, ':encoding(UTF-8)';
binmode STDERR, ':encoding(UTF-8)';

my $root = dirname(dirname(__FILE__));
my $screen_lines = 60;
my $screen_chars = 6000;
my %needs = (
	'needs:fdw' => 'needs another server (postgres_fdw)',
	'needs:citus' => 'needs Citus',
	'needs:preload' => 'needs a preloaded library',
	'measured' => "a measured run on the benchmark's data",
	'fragment' => 'a pattern, not a statement',
);

# Figures stated on several pages that are not measurements, or are two
# measurements that happen to be equal: figure => why.
my %definitions = (
	'1 %' => 'a false-positive rate chosen (p = 0.01)',
	'2 %' => 'a false-positive rate chosen; "within 2%" in benchmarks.md is another figure',
	'10 %' => 'a false-positive rate chosen (p = 0.1)',
	'4 %' => "a bit density (distributed.md) and a lookup's cost (benchmarks.md)",
	'17 %' => "perf's share of a query (benchmarks.md) and a state's saving (distributed.md)",
	'10 ×' => "a scalable filter's growth chosen", '100 ×' => "a scalable filter's growth chosen",
	'1000 ×' => "a scalable filter's growth chosen", '2 ×' => 'a growth factor chosen',
	'1.5 ×' => 'a target (m ≤ 1.5× optimal; h2)',
	map({ ("$_" => 'a size the format fixes for the filters the pages use') }
		'4 kB', '8 kB', '12 kB', '16 kB', '64 kB', '120 kB', '1.2 MB', '2.1 MB', '2.4 MB', '4.8 MB',
		'9.6 MB', '12 MB', '24 MB', '60 MB', '62 MB', '120 MB', '2 MiB', '15 MiB', '6 bytes', '25 bytes'),
	map({ ("$_" => "a value encoding's width (an int8 or a timestamp; a uuid)") } '8 bytes', '16 bytes'),
	map({ ("$_" => 'a setting or a size chosen (memory, a table, a row)') }
		'2 kB', '1 MB', '2 MB', '4 MB', '256 MB', '512 MB', '768 MB', '1 GB'),
	map({ ("$_" => 'a run length or time-out chosen') } '3 s', '8 s', '10 s', '15 s', '30 s'),
	'3 ms' => "two measurements: a lookup (reference.md) and a plan's cost (auto-prefilter.md)",
	'109.1 ms' => 'two measurements: an fdw join (auto-prefilter.md) and a batch UPDATE (operations.md)',
);

my $bindir = `"${\($ENV{PG_CONFIG} // 'pg_config')}" --bindir`;
chomp $bindir;
my $psql = "$bindir/psql";
my @all_pages = ("$root/README.md", sort glob("$root/doc/*.md"));
my $figures_only = @ARGV && $ARGV[0] eq '--figures' && shift @ARGV;
my @pages = @ARGV ? @ARGV : @all_pages;
my ($default_version) = slurp("$root/bloomfilter.control") =~ /^default_version\s*=\s*'([^']+)'/m
	or die "doc.pl: no default_version in bloomfilter.control\n";
my $work = tempdir('bloomfilter-doc.XXXXXX', TMPDIR => 1, CLEANUP => 1);
my ($passed, $failed, $skipped) = (0, 0, 0);
my %skip_reasons;
my $started = time;

sub slurp
{
	my ($path) = @_;
	open my $fh, '<:encoding(UTF-8)', $path or die "doc.pl: $path: $!\n";
	local $/;
	return <$fh>;
}

sub check
{
	my ($ok, $where, $what) = @_;
	if ($ok) { $passed++; return 1; }
	$failed++;
	print "FAIL $where: $what\n";
	return 0;
}

# Split a block's SQL into psql statements: text up to a ";" outside quotes
# and comments, a backslash command alone on its line, or a statement ended by
# \g or \gset.  A comment "-- → ..." or "-- ERROR: ..." (DETAIL:, HINT:)
# after a statement, before the next one starts, states that statement's
# output.
sub statements
{
	my ($sql, $first_line) = @_;
	my @out;
	my ($text, $code, $line) = ('', 0, $first_line);
	my $start_line = $line;
	my $finish = sub {
		push @out, { sql => $text, line => $start_line, rows => [], error => [] } if $code;
		($text, $code) = ('', 0);
	};
	pos($sql) = 0;
	while (pos($sql) < length $sql)
	{
		if ($sql =~ /\G(--[^\n]*)/gc)
		{
			my $comment = $1;
			if (!$code && @out && $comment =~ /^--\s*→\s?(.*?)\s*$/)
			{
				push @{ $out[-1]{rows} }, $1;
			}
			elsif (!$code && @out && $comment =~ /^--\s*((?:ERROR|DETAIL|HINT):.*?)\s*$/)
			{
				push @{ $out[-1]{error} }, $1;
			}
			elsif ($comment =~ /^--\s*(→|ERROR:)/)
			{
				die "doc.pl: line $line: a stated output inside a statement\n";
			}
			else
			{
				$text .= $comment;
			}
		}
		elsif ($sql =~ /\G(\n)/gc)
		{
			$text .= $1;
			$line++;
		}
		elsif ($sql =~ /\G([ \t\r]+)/gc)
		{
			$text .= $1;
		}
		elsif (!$code && $sql =~ /\G(\\[^\n]*)/gc)
		{
			$start_line = $line;
			($text, $code) = ($1, 1);
			$finish->();
		}
		elsif ($sql =~ /\G(\\g(?:set|x)?\b[^\n]*)/gc)
		{
			$text .= $1;
			$finish->();
		}
		else
		{
			$start_line = $line unless $code;
			$code = 1;
			if ($sql =~ /\G(;)/gc)
			{
				$text .= ';';
				$finish->();
			}
			elsif ($sql =~ /\G('(?:[^']|'')*'|"(?:[^"]|"")*"|\/\*.*?\*\/)/gcs
				|| $sql =~ /\G(\$((?:[A-Za-z_]\w*)?)\$.*?\$\2\$)/gcs
				|| $sql =~ /\G([^-;'"\$\/\\\n]+|.)/gcs)
			{
				$text .= $1;
				$line += ($1 =~ tr/\n//);
			}
		}
	}
	$finish->();
	return @out;
}

# The runnable units of a page, in order: blocks of statements, inline
# examples, and output blocks.
sub parse_page
{
	my ($page) = @_;
	my @lines = split /\n/, slurp($page), -1;
	my @blocks;
	my $i = 0;
	while ($i < @lines)
	{
		my $line = $lines[$i];
		if ($line =~ /^( *)(```+|~~~+)\s*(\S*)\s*(.*?)\s*$/)
		{
			my ($indent, $fence, $lang, $info) = (length $1, $2, $3, $4);
			my $open = $i++;
			my @body;
			while ($i < @lines && $lines[$i] !~ /^\s*\Q$fence\E\s*$/)
			{
				my $body_line = $lines[$i++];
				$body_line =~ s/^ {1,$indent}// if $indent;
				push @body, $body_line;
			}
			$i++;
			if ($lang eq 'sql')
			{
				my @words = split ' ', $info;
				my @unknown = grep { !exists $needs{$_} } @words;
				die "doc.pl: $page:", $open + 1, ": unknown marker @unknown on a sql block\n" if @unknown;
				push @blocks, { kind => 'sql', line => $open + 2, sql => join("\n", @body),
					skip => (@words ? $needs{ $words[0] } : undef), end => $i };
			}
			elsif ($lang eq '' && @blocks && $blocks[-1]{kind} eq 'sql'
				&& !grep { /\S/ } @lines[ $blocks[-1]{end} .. $open - 1 ])
			{
				# an unlabelled block right after a sql block: its output
				$blocks[-1]{output} = [@body];
				$blocks[-1]{output_line} = $open + 2;
			}
			next;
		}
		my $row = $line =~ /^\s*\|/;
		while ($line =~ /`((?:SELECT|WITH|VALUES)\b[^`]*)`\s*→\s*`([^`]*)`/g)
		{
			my ($sql, $result) = ($1, $2);
			if ($row) { s/\\\|/|/g for $sql, $result; }
			push @blocks, { kind => 'inline', line => $i + 1, sql => "$sql;",
				rows => [$result] };
		}
		while ($line =~ /\b(as of (?:version )?|the default version \()(\d+\.\d+)\b/g)
		{
			push @blocks, { kind => 'version', line => $i + 1, stated => $2, phrase => "$1$2" };
		}
		$i++;
	}
	return @blocks;
}

sub run_psql
{
	my ($db, $script, $out) = @_;
	my $file = "$work/script.sql";
	open my $fh, '>:encoding(UTF-8)', $file or die "doc.pl: $file: $!\n";
	print $fh $script;
	close $fh;
	system(qq{"$psql" -X -q -v ON_ERROR_STOP=0 -d "$db" -f "$file" >"$out" 2>&1}) == 0
		or die "doc.pl: psql failed to run $file (see $out)\n";
	return slurp($out);
}

# A stated row against a printed one: fields compared one by one, "…" in a
# stated field standing for any characters.
sub row_matches
{
	my ($stated, $printed) = @_;
	my @s = split /\s*\|\s*/, $stated, -1;
	my @p = split /\s*\|\s*/, $printed, -1;
	s/^\s+|\s+$//g for @s, @p;
	return 0 unless @s == @p;
	for my $f (0 .. $#s)
	{
		my $re = join '.*', map { quotemeta } split /…/, $s[$f], -1;
		return 0 unless $p[$f] =~ /^$re$/s;
	}
	return 1;
}

sub errors_of
{
	my ($output) = @_;
	return grep { /^(?:ERROR|FATAL|DETAIL|HINT):|^error:/ } split /\n/, $output;
}

sub run_page
{
	my ($page) = @_;
	(my $name = $page) =~ s{^\Q$root\E/}{};
	my @blocks = parse_page($page);
	(my $db = "doc_$name") =~ s/\W/_/g;
	my %counts = (blocks => 0, statements => 0, stated => 0, skipped => 0, inline => 0);
	my $t = time;

	# One script: each statement after a marker, so the output splits
	# back into statements.
	my $script = "\\pset pager off\n\\set VERBOSITY default\n\\set SHOW_CONTEXT never\n";
	my @units;
	for my $block (@blocks)
	{
		if ($block->{kind} eq 'version')
		{
			check($block->{stated} eq $default_version, "$name:$block->{line}",
				"says \"$block->{phrase}\", bloomfilter.control's default_version is $default_version");
			next;
		}
		if ($block->{kind} eq 'sql')
		{
			$counts{blocks}++;
			if ($block->{skip})
			{
				$counts{skipped}++;
				$skipped++;
				$skip_reasons{ $block->{skip} }++;
				print "skipped $name:$block->{line}: $block->{skip}\n";
				next;
			}
			$block->{statements} = [statements($block->{sql}, $block->{line})];
		}
		else
		{
			$counts{inline}++;
			$block->{statements} = [{ sql => $block->{sql}, line => $block->{line},
				rows => $block->{rows}, error => [] }];
		}
		for my $st (@{ $block->{statements} })
		{
			my $n = @units;
			push @units, $st;
			$st->{block} = $block;
			my $stated = @{ $st->{rows} } > 0;
			$script .= "\\echo '\@\@doc $n\@\@'\n";
			$script .= "\\pset format unaligned\n\\pset tuples_only on\n\\pset fieldsep ' | '\n" if $stated;
			$script .= "$st->{sql}\n";
			$script .= "\\pset format aligned\n\\pset tuples_only off\n" if $stated;
		}
	}
	$script .= "\\echo '\@\@doc end\@\@'\n";

	if (!@units)
	{
		printf "%s: %d blocks (%d skipped), nothing to run\n", $name, $counts{blocks}, $counts{skipped};
		return;
	}
	system($psql, qw(-X -q -d postgres -c), 'SET client_min_messages = warning',
		'-c', qq{DROP DATABASE IF EXISTS "$db"}, '-c', qq{CREATE DATABASE "$db"}) == 0
		or die "doc.pl: cannot create database $db\n";
	my $output = run_psql($db, $script, "$work/$db.out");
	my %printed;
	my $at;
	for my $line (split /^/m, $output)
	{
		if ($line =~ /^\@\@doc (\d+|end)\@\@$/) { $at = $1; $printed{$at} = ''; }
		elsif (defined $at) { $printed{$at} .= $line; }
	}
	check(exists $printed{end}, $name, 'psql did not reach the end of the page');

	for my $n (0 .. $#units)
	{
		my $st = $units[$n];
		my $where = "$name:$st->{line}";
		my $out = $printed{$n} // '';
		$out =~ s/^psql:[^\n]*?:\d+: //mg;
		$st->{block}{printed} .= $out;
		print "---- $where\n$st->{sql}\n$out" if $ENV{BLOOM_DOC_SHOW};
		$counts{statements}++;
		my @errors = errors_of($out);
		if (@{ $st->{error} })
		{
			$counts{stated}++;
			my $ok = @errors > 0;
			for my $stated (@{ $st->{error} })
			{
				my ($kind) = $stated =~ /^(\w+):/;
				my ($line) = grep { /^$kind:/ } @errors;
				(my $s = $stated) =~ s/\s+/ /g;
				(my $p = $line // '') =~ s/\s+/ /g;
				$ok &&= $s eq $p;
			}
			check($ok, $where, "the page states\n    " . join("\n    ", @{ $st->{error} })
				. "\n  psql printed\n    " . join("\n    ", split /\n/, $out));
			next;
		}
		next unless check(!@errors, $where, "an error the page does not show:\n    "
			. join("\n    ", @errors) . "\n  in\n    " . join("\n    ", split /\n/, $st->{sql}));
		if (@{ $st->{rows} })
		{
			$counts{stated}++;
			my @printed = grep { length } split /\n/, $out;
			my $ok = @printed == @{ $st->{rows} };
			for my $r (0 .. $#printed)
			{
				$ok &&= row_matches($st->{rows}[$r], $printed[$r]);
			}
			check($ok, $where, "the page states\n    " . join("\n    ", @{ $st->{rows} })
				. "\n  psql printed\n    " . join("\n    ", @printed));
		}
	}
	for my $block (grep { $_->{statements} } @blocks)
	{
		my $printed = $block->{printed} // '';
		my $lines = () = $printed =~ /\n/g;
		check($lines <= $screen_lines && length($printed) <= $screen_chars, "$name:$block->{line}",
			"the block prints more than a screen: $lines lines, " . length($printed) . " characters");
		next unless $block->{output};
		$counts{stated}++;
		my @want = @{ $block->{output} };
		my @got = split /\n/, $printed;
		s/\s+$// for @want, @got;
		shift @got while @got && $got[0] eq '';
		pop @got while @got && $got[-1] eq '';
		check(join("\n", @want) eq join("\n", @got), "$name:$block->{output_line}",
			"the page shows\n    " . join("\n    ", @want) . "\n  psql printed\n    " . join("\n    ", @got));
	}
	system($psql, qw(-X -q -d postgres -c), qq{DROP DATABASE "$db"}) unless $ENV{BLOOM_DOC_KEEP};
	printf "%s: %d blocks (%d skipped), %d inline examples, %d statements run, %d outputs compared, %.1f s\n",
		$name, $counts{blocks}, $counts{skipped}, $counts{inline}, $counts{statements}, $counts{stated}, time - $t;
}

# A measured figure on more than one page: one check per figure.
sub figures
{
	my @on = @_;
	my $num = qr/\d[\d,]*(?:\.\d+)?/;
	my $unit = qr/ms|µs|ns|s|min|MB\/s|GB\/s|MB|kB|GB|TB|GiB|MiB|KiB|bytes|%|×|a second|per second|\/s/;
	my %where;
	for my $page (@on)
	{
		(my $name = $page) =~ s{^\Q$root\E/}{};
		my ($fence, $lang);
		my $n = 0;
		for my $line (split /\n/, slurp($page))
		{
			$n++;
			if ($line =~ /^\s*(```+|~~~+)\s*(\S*)/)
			{
				if (!defined $fence) { ($fence, $lang) = ($1, $2); }
				elsif ($line =~ /^\s*\Q$fence\E\s*$/) { undef $fence; }
				next;
			}
			# the SQL blocks' outputs are checked by running them
			next if defined $fence && $lang eq 'sql';
			$line =~ s/\]\([^)]*\)/]/g;
			$line =~ s/`[^`]*`//g;
			my @found;
			while ($line =~ /(?<![\w.\/])((?:$num\s*[–-]\s*)?$num)\s?($unit)(?!\w)/g)
			{
				push @found, [$1, $2];
			}
			while ($line =~ /(?<![\w.\/])(1\/[\d,]+)(?![\w\/])/g)
			{
				push @found, [$1, ''];
			}
			for (@found)
			{
				my ($figure, $u) = @$_;
				$figure =~ s/[,\s]//g;
				$figure =~ s/-/–/;
				$u = 'a second' if $u eq 'per second' || $u eq '/s';
				push @{ $where{ $u eq '' ? $figure : "$figure $u" }{$name} }, $n;
			}
		}
	}
	my $shared = 0;
	for my $figure (sort keys %where)
	{
		my @pages = sort keys %{ $where{$figure} };
		next if @pages == 1 || exists $definitions{$figure};
		$shared++;
		check(0, "figure $figure", "stated on " . @pages . " pages ("
			. join('; ', map { "$_:" . join(',', @{ $where{$figure}{$_} }) } @pages)
			. "): state it on one, link to it from the others, or list it in %definitions");
	}
	check(1, 'figures', '') unless $shared;
	printf "figures: %d measured figures on %d pages, %d of them on more than one (%d listed as definitions)\n",
		scalar(keys %where), scalar(@on), $shared, scalar(grep { exists $where{$_} } keys %definitions);
}

if ($figures_only)
{
	figures(@pages);
	printf "doc figures: %d passed, %d failed\n", $passed, $failed;
	exit($failed ? 1 : 0);
}

run_page($_) for @pages;
figures(@all_pages);
printf "doc: %d passed, %d failed, %d skipped%s in %.1f s\n", $passed, $failed, $skipped,
	(%skip_reasons ? ' (' . join('; ', map { "$skip_reasons{$_} $_" } sort keys %skip_reasons) . ')' : ''),
	time - $started;
exit($failed ? 1 : 0);
