#!/usr/bin/env perl
# Check a tree's META.json against the PGXN Meta Spec 1.0.0 and against the
# tree itself, as "make dist" does before it writes the zip.
#
#   scripts/pgxn_meta.pl [--print-version] DIR
#
# PGXN's own validator (PGXN::Meta::Validator) is on CPAN only, not in Debian;
# this checks the spec's rules as its JSON schemas state them
# (https://pgxn.org/spec/, schema/v1/ of github.com/pgxn/meta): the required
# keys, every key's type, versions as SemVer, licenses from the spec's list,
# provides entries, prereqs phases, relationships and version ranges,
# release_status, resources, tags, and no key outside the spec but the custom
# x_ and X_ ones.  Then this project's rules: the distribution's version and
# the extension's are the control file's default_version with a patch number
# (CHANGELOG.md), every control file's extension is in provides, and the
# files META.json names are in the tree (provides' file a .sql one: "pgxn
# load" skips an extension whose file is not).
#
# Prints every problem found, one a line, and exits 1 if there was one; else
# prints one line saying so on stderr and, with --print-version, the
# distribution's name and version on stdout ("bloomfilter 1.3.0").
use strict;
use warnings;
use JSON::PP;

my $print_version = @ARGV && $ARGV[0] eq '--print-version' ? shift @ARGV : 0;
@ARGV == 1 or die "usage: $0 [--print-version] DIR\n";
my $dir = $ARGV[0];

my @problems;
sub problem { push @problems, "META.json: $_[0]: $_[1]" }

# ---- the spec's types ----

# SemVer 2.0.0 (the schema's pattern, semver.org's regular expression).
my $semver = qr/(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)
	(?:-(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?
	(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?/x;
my @licenses = qw(agpl_3 apache_1_1 apache_2_0 artistic_1 artistic_2 bsd freebsd
	gfdl_1_2 gfdl_1_3 gpl_1 gpl_2 gpl_3 lgpl_2_1 lgpl_3_0 mit mozilla_1_0
	mozilla_1_1 openssl perl_5 postgresql qpl_1_0 ssleay sun zlib open_source
	restricted unrestricted unknown);

sub is_string { defined $_[0] && !ref $_[0] && !JSON::PP::is_bool($_[0]) }
sub is_object { ref $_[0] eq 'HASH' }
sub is_array { ref $_[0] eq 'ARRAY' }
sub is_custom { $_[0] =~ /^[xX]_./ }

sub string {
	my ($where, $v) = @_;
	return 1 if is_string($v) && length $v;
	problem($where, 'must be a non-empty string');
	return 0;
}

# A Term: two characters or more, no slash, backslash, space or control character.
sub term {
	my ($where, $v) = @_;
	return if is_string($v) && $v =~ /^[^\/\\\s\p{Cc}]{2,}\z/;
	problem($where, 'must be a term (two characters or more, no slash, backslash, space or control character)');
}

sub version {
	my ($where, $v) = @_;
	return if is_string($v) && $v =~ /^$semver\z/;
	problem($where, 'must be a semantic version (MAJOR.MINOR.PATCH)' . (is_string($v) ? ", not \"$v\"" : ''));
}

# A relative path in Unix form, within the distribution.
sub path {
	my ($where, $v) = @_;
	if (!is_string($v) || length $v < 2) {
		problem($where, 'must be a relative path of two characters or more');
	} elsif ($v =~ m{^/|\\} || grep { $_ eq '..' || $_ eq '.' } split m{/}, $v =~ s{^\./}{}r) {
		problem($where, "must be a relative Unix path inside the distribution, not \"$v\"");
	}
}

sub uri {
	my ($where, $v) = @_;
	return if is_string($v) && $v =~ /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+\z/;
	problem($where, 'must be a URI');
}

sub email {
	my ($where, $v) = @_;
	return if is_string($v) && $v =~ /^[^\s@]+@[^\s@]+\.[^\s@]+\z/;
	problem($where, 'must be an email address');
}

# An array of at least one item, no two alike, each checked by $each.
sub list {
	my ($where, $v, $each) = @_;
	if (!is_array($v) || !@$v) {
		problem($where, 'must be an array of at least one item');
		return;
	}
	my %seen;
	for my $i (0 .. $#$v) {
		$each->("$where\[$i]", $v->[$i]);
		problem("$where\[$i]", 'repeats an earlier item')
			if is_string($v->[$i]) && $seen{ $v->[$i] }++;
	}
}

# An object's keys: the required ones present, none but the allowed and
# custom ones; returns whether $v is an object.
sub keys_of {
	my ($where, $v, $required, $allowed) = @_;
	if (!is_object($v)) {
		problem($where, 'must be an object');
		return 0;
	}
	for my $k (@$required) {
		problem($where, "lacks the required key \"$k\"") unless exists $v->{$k};
	}
	my %ok = map { $_ => 1 } @$required, @$allowed;
	for my $k (sort keys %$v) {
		problem($where, "has the unknown key \"$k\" (custom keys start with x_ or X_)")
			unless $ok{$k} || is_custom($k);
	}
	return 1;
}

# At least one of the keys in @$any.
sub any_of {
	my ($where, $v, @any) = @_;
	problem($where, 'needs at least one of ' . join(', ', map {"\"$_\""} @any))
		unless grep { exists $v->{$_} } @any;
}

# ---- the spec's structure ----

sub license {
	my ($where, $v) = @_;
	my $known = sub {
		my ($w, $l) = @_;
		problem($w, 'must be one of the spec\'s license strings (' . join(' ', @licenses) . ')'
			. (is_string($l) ? ", not \"$l\"" : ''))
			unless is_string($l) && grep { $_ eq $l } @licenses;
	};
	if (is_array($v)) {
		list($where, $v, $known);
	} elsif (is_object($v)) {
		problem($where, 'must name at least one license') unless %$v;
		uri("$where.$_", $v->{$_}) for sort keys %$v;
	} else {
		$known->($where, $v);
	}
}

sub maintainer {
	my ($where, $v) = @_;
	if (is_array($v)) {
		list($where, $v, \&string);
	} else {
		string($where, $v);
	}
}

sub meta_spec {
	my ($where, $v) = @_;
	keys_of($where, $v, ['version'], ['url']) or return;
	problem("$where.version", 'must be 1.0.x (this is the 1.0 spec)')
		if exists $v->{version} && !(is_string($v->{version}) && $v->{version} =~ /^1\.0\.\d+\z/);
	problem("$where.url", 'must be https://pgxn.org/meta/spec.txt')
		if exists $v->{url} && !(is_string($v->{url}) && $v->{url} =~ m{^https?://pgxn\.org/meta/spec\.txt\z});
}

sub provides {
	my ($where, $v) = @_;
	if (!is_object($v) || !%$v) {
		problem($where, 'must be an object naming at least one extension');
		return;
	}
	for my $name (sort keys %$v) {
		my $w = "$where.$name";
		term("$where (key \"$name\")", $name);
		my $e = $v->{$name};
		keys_of($w, $e, [qw(file version)], [qw(abstract docfile docpath)]) or next;
		path("$w.file", $e->{file}) if exists $e->{file};
		version("$w.version", $e->{version}) if exists $e->{version};
		string("$w.abstract", $e->{abstract}) if exists $e->{abstract};
		path("$w.docfile", $e->{docfile}) if exists $e->{docfile};
		string("$w.docpath", $e->{docpath}) if exists $e->{docpath};
	}
}

my @phases = qw(configure build test runtime develop);
my @relationships = qw(requires recommends suggests conflicts);
my $range_op = qr/(?:[=!]=|[<>]=?)\s*/;

sub version_range {
	my ($where, $v) = @_;
	return if defined $v && !ref $v && $v =~ /^0\z/;    # any version (0 or "0")
	return if is_string($v) && $v =~ /^(?:$range_op)?(?:$semver|0)(?:,\s*(?:$range_op)?$semver)*\z/;
	problem($where, 'must be a version range (0, or versions like "1.2.0", ">= 1.2.0, < 2.0.0")'
		. (is_string($v) ? ", not \"$v\"" : ''));
}

sub prereqs {
	my ($where, $v) = @_;
	keys_of($where, $v, [], \@phases) or return;
	any_of($where, $v, @phases);
	for my $phase (grep { exists $v->{$_} } @phases) {
		my $p = $v->{$phase};
		keys_of("$where.$phase", $p, [], \@relationships) or next;
		any_of("$where.$phase", $p, @relationships);
		for my $rel (grep { exists $p->{$_} } @relationships) {
			my $r = $p->{$rel};
			my $w = "$where.$phase.$rel";
			if (!is_object($r) || !%$r) {
				problem($w, 'must be an object naming at least one prerequisite');
				next;
			}
			for my $name (sort keys %$r) {
				term("$w (key \"$name\")", $name);
				version_range("$w.$name", $r->{$name});
			}
		}
	}
}

sub resources {
	my ($where, $v) = @_;
	keys_of($where, $v, [], [qw(homepage bugtracker repository)]) or return;
	any_of($where, $v, qw(homepage bugtracker repository));
	uri("$where.homepage", $v->{homepage}) if exists $v->{homepage};
	if (exists $v->{bugtracker}) {
		my $b = $v->{bugtracker};
		if (keys_of("$where.bugtracker", $b, [], [qw(web mailto)])) {
			any_of("$where.bugtracker", $b, qw(web mailto));
			uri("$where.bugtracker.web", $b->{web}) if exists $b->{web};
			email("$where.bugtracker.mailto", $b->{mailto}) if exists $b->{mailto};
		}
	}
	if (exists $v->{repository}) {
		my $r = $v->{repository};
		if (keys_of("$where.repository", $r, [], [qw(url web type)])) {
			problem("$where.repository", 'needs "web", or "url" with "type"')
				unless exists $r->{web} || (exists $r->{url} && exists $r->{type});
			uri("$where.repository.$_", $r->{$_}) for grep { exists $r->{$_} } qw(url web);
			problem("$where.repository.type", 'must be the version control system in lower case, like "git"')
				if exists $r->{type} && !(is_string($r->{type}) && $r->{type} =~ /^\p{Ll}+\z/);
		}
	}
}

sub tag {
	my ($where, $v) = @_;
	return if is_string($v) && $v =~ /^[^\/\\\p{Cc}]{2,255}\z/;
	problem($where, 'must be a tag (2 to 255 characters, no slash, backslash or control character)');
}

sub no_index {
	my ($where, $v) = @_;
	keys_of($where, $v, [], [qw(file directory)]) or return;
	any_of($where, $v, qw(file directory));
	for my $k (grep { exists $v->{$_} } qw(file directory)) {
		if (is_array($v->{$k})) {
			list("$where.$k", $v->{$k}, \&path);
		} else {
			path("$where.$k", $v->{$k});
		}
	}
}

# ---- read and check ----

my $file = "$dir/META.json";
open my $fh, '<:raw', $file or die "$0: cannot read $file: $!\n";
my $text = do { local $/; <$fh> };
close $fh;
my $meta = eval { JSON::PP->new->utf8->decode($text) };
if (!defined $meta) {
	(my $why = $@) =~ s/\s+\z//;
	print "META.json: not valid JSON: $why\n";
	exit 1;
}

my %top = (
	name => \&term, version => \&version, abstract => \&string,
	maintainer => \&maintainer, license => \&license, provides => \&provides,
	'meta-spec' => \&meta_spec, description => \&string, generated_by => \&string,
	tags => sub { list($_[0], $_[1], \&tag) }, no_index => \&no_index,
	prereqs => \&prereqs, resources => \&resources,
	release_status => sub {
		problem($_[0], 'must be stable, testing or unstable')
			unless is_string($_[1]) && $_[1] =~ /^(?:stable|testing|unstable)\z/;
	},
);
my @required = qw(name version abstract maintainer license provides meta-spec);
if (keys_of('(top level)', $meta, \@required, [grep { my $k = $_; !grep { $_ eq $k } @required } keys %top])) {
	for my $k (sort keys %top) {
		$top{$k}->($k, $meta->{$k}) if exists $meta->{$k};
	}
}

# ---- this project's rules ----

# The control files' extensions and default versions.
my %control;
for my $c (glob "$dir/*.control") {
	my ($ext) = $c =~ m{([^/]+)\.control\z};
	open my $cf, '<', $c or die "$0: cannot read $c: $!\n";
	while (<$cf>) {
		$control{$ext} = $1 if /^\s*default_version\s*=\s*'([^']*)'/;
	}
	close $cf;
	problem("(tree) $ext.control", 'has no default_version') unless exists $control{$ext};
}
problem('(tree)', 'has no *.control file') unless %control;

if (is_object($meta) && is_object($meta->{provides})) {
	my $p = $meta->{provides};
	for my $ext (sort keys %control) {
		my $want = $control{$ext};
		if (!is_object($p->{$ext})) {
			problem("provides.$ext", "is missing: $ext.control defines the extension $ext");
			next;
		}
		my $v = $p->{$ext}{version};
		problem("provides.$ext.version", "\"$v\" is not $ext.control's default_version '$want' with a patch number")
			if is_string($v) && $v !~ /^\Q$want\E\.\d+\z/;
		my $dv = $meta->{version};
		problem('version', "\"$dv\" is not $ext.control's default_version '$want' with a patch number (CHANGELOG.md: the PGXN version is the SQL version with a patch number)")
			if $ext eq ($meta->{name} // '') && is_string($dv) && $dv !~ /^\Q$want\E\.\d+\z/;
	}
	for my $ext (sort keys %$p) {
		next unless is_object($p->{$ext});
		for my $k (qw(file docfile)) {
			my $f = $p->{$ext}{$k};
			next unless is_string($f);
			problem("provides.$ext.$k", "\"$f\" is not in the distribution") unless -f "$dir/$f";
		}
		my $f = $p->{$ext}{file};
		problem("provides.$ext.file", "\"$f\" must be an SQL file (pgxn load skips an extension whose file is not)")
			if is_string($f) && $f !~ /\.sql\z/;
	}
}
problem('name', "\"$meta->{name}\" names no extension of the tree (" . join(', ', sort keys %control) . ')')
	if is_object($meta) && is_string($meta->{name}) && %control && !exists $control{ $meta->{name} };
if (is_object($meta) && is_object($meta->{no_index})) {
	for my $k (qw(file directory)) {
		my $v = $meta->{no_index}{$k};
		for my $f (is_array($v) ? @$v : defined $v ? ($v) : ()) {
			next unless is_string($f);
			problem("no_index.$k", "\"$f\" is not in the distribution")
				unless $k eq 'file' ? -f "$dir/$f" : -d "$dir/$f";
		}
	}
}

if (@problems) {
	print "$_\n" for @problems;
	exit 1;
}
# Not required by the spec, but PGXN's page of the release links nowhere
# without it.
print STDERR "META.json: note: no resources (homepage, bugtracker, repository)\n"
	unless exists $meta->{resources};
print STDERR "META.json: valid against the PGXN Meta Spec 1.0.0 and the tree ($meta->{name} $meta->{version})\n";
print "$meta->{name} $meta->{version}\n" if $print_version;
exit 0;
