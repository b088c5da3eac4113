#!/usr/bin/env bash
# The PGXN release: "make dist" in a clean clone (out of tree, and with no
# PostgreSQL), the zip's layout, its META.json against the PGXN Meta Spec
# (scripts/pgxn_meta.pl, which must also reject a table of bad ones), then
# the zip unpacked in a clean directory, built and installed from there
# (make, make install DESTDIR=), the regress suite against that install on a
# throwaway server, and the PGXN client's "pgxn install" of the zip, into a
# DESTDIR too: nothing goes into the system's PostgreSQL.
#
#   test/install/pgxn.sh        (make test-all runs it; root, for pgxn install)
#
# Makes the zip of HEAD, as make dist does: uncommitted changes are not
# tested.  Ends with "pgxn: N passed, M failed"; exits non-zero on a failure.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
. "$ROOT/test/checks.bash"
started=$SECONDS

finish() {
	echo "pgxn: took $((SECONDS - started))s"
	echo "pgxn: $passed passed, $failed failed"
	[ "$failed" -eq 0 ] || exit 1
	exit 0
}

if ! git -C "$ROOT" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	echo "SKIPPED: $ROOT is not a git clone (or git is missing), and make dist archives one"
	echo "pgxn: 0 passed, 0 failed, 1 skipped"
	exit 0
fi
# unzip to read the zip as users do, pgxnclient to install it as they do.
"$ROOT/scripts/setup.sh" unzip pgxnclient

work=$(mktemp -d /tmp/bloomfilter-pgxn.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

# quietly LOG COMMAND...: run COMMAND with its output in $work/LOG, shown
# (its tail) only when it fails.
quietly() {
	local log=$work/$1 status=0
	shift
	"$@" >"$log" 2>&1 || status=$?
	if [ "$status" -ne 0 ]; then
		echo "($* exited $status; the tail of its output:)"
		tail -n 25 "$log" | sed 's/^/    | /'
	fi
	return "$status"
}

clone=$work/clone
git clone -q "$ROOT" "$clone"
read -r name version < <(perl -MJSON::PP -e \
	'my $m = decode_json(do { local $/; <> }); print "$m->{name} $m->{version}\n"' "$clone/META.json")
top=$name-$version
zip=$top.zip
echo "the zip of HEAD ($(git -C "$clone" rev-parse --short HEAD)): $zip"

# ---- make dist ----
mkdir "$work/out"
if quietly dist-vpath.log make --no-print-directory -C "$work/out" -f "$clone/Makefile" VPATH="$clone" \
	PG_CONFIG=/nonexistent/pg_config dist && [ -f "$work/out/$zip" ]; then
	pass "make dist out of tree, with no PostgreSQL (PG_CONFIG=/nonexistent), writes $zip in the build directory"
else
	fail "make dist out of tree writes $zip in the build directory"
	finish
fi

# What git does not hold stays out: build products, and uncommitted changes.
touch "$clone/src/core/shape.o" "$clone/src/core/shape.bc" "$clone/bloomfilter.so"
mkdir "$clone/results" "$clone/tmp_check"
echo x >"$clone/results/setup.out"
echo x >"$clone/tmp_check/x"
echo x >"$clone/regression.diffs"
echo "an uncommitted line" >>"$clone/README.md"
if quietly dist-intree.log make --no-print-directory -C "$clone" PG_CONFIG=/nonexistent/pg_config dist; then
	if cmp -s "$work/out/$zip" "$clone/$zip"; then
		pass "make dist in the clone, after faking build products and changing README.md, writes the same zip byte for byte (the committed tree only)"
	else
		fail "make dist in a littered clone wrote another zip: $(cmp "$work/out/$zip" "$clone/$zip" 2>&1)"
	fi
	check "make dist says the uncommitted change is not in the zip" 1 \
		"$(grep -c 'uncommitted changes, which are not in the zip' "$work/dist-intree.log" || true)"
	check "make dist leaves nothing untracked in the clone (the zip and the build products are ignored)" "" \
		"$(git -C "$clone" status --porcelain --untracked-files=all | grep '^??' || true)"
else
	fail "make dist in the clone"
fi
git -C "$clone" checkout -q -- README.md

# ---- the zip's layout ----
unzip -Z1 "$work/out/$zip" >"$work/list"
check "every entry of the zip is under one top directory $top/" "" "$(grep -v "^$top/" "$work/list" || true)"
check "META.json is at the top directory's root" "$top/META.json" "$(grep -x "$top/META.json" "$work/list" || true)"
check "no git, CI or Debian packaging files (.git, .gitattributes, .gitignore, .ci/, debian/)" "" \
	"$(grep -E "^$top/(\.git(/|attributes\$|ignore\$)|\.ci/|debian/)" "$work/list" || true)"
check "no build products (objects, libraries, bitcode, zips, test results)" "" \
	"$(grep -E '\.(o|so|bc|zip)$|/(results|tmp_check|log|build)/|/regression\.(diffs|out)$' "$work/list" || true)"
expected=$(git -C "$clone" ls-files | grep -vE '^(\.gitattributes|\.gitignore|\.ci/|debian/)' | sed "s|^|$top/|" | sort)
actual=$(grep -v '/$' "$work/list" | sort)
if [ "$expected" = "$actual" ]; then
	pass "the zip holds every committed file but those ($(echo "$actual" | wc -l) files)"
else
	fail "the zip's files differ from the committed ones (< committed, > zip):
$(diff <(echo "$expected") <(echo "$actual") | grep '^[<>]' | head -n 20)"
fi

# ---- unpacked in a clean directory ----
mkdir "$work/unpacked"
unzip -q "$work/out/$zip" -d "$work/unpacked"
src=$work/unpacked/$top
check "the executable scripts stay executable (scripts/run.sh, test/pg_cluster.sh)" "yes yes" \
	"$([ -x "$src/scripts/run.sh" ] && echo yes || echo no) $([ -x "$src/test/pg_cluster.sh" ] && echo yes || echo no)"

# ---- META.json ----
if quietly meta.log perl "$src/scripts/pgxn_meta.pl" "$src"; then
	pass "META.json is valid against the PGXN Meta Spec 1.0.0 and the tree ($name $version)"
else
	fail "META.json of the zip: $(cat "$work/meta.log")"
fi
# The validator on edited copies of it: each bad one must be refused (exit
# 1) with a problem naming the key, each good one accepted.  Rows:
# "what is wrong | what the problem names | the edit of \$m (Perl)".
mkdir "$work/meta"
for f in "$src"/* "$src"/.[!.]*; do
	[ -e "$f" ] && [ "$(basename "$f")" != META.json ] && ln -s "$f" "$work/meta/"
done
bad_meta=(
	"no version|lacks the required key \"version\"|delete \$m->{version}"
	"no provides|lacks the required key \"provides\"|delete \$m->{provides}"
	"version 1.4, not SemVer|version: must be a semantic version|\$m->{version} = '1.4'"
	"version 1.5.0 against default_version 1.4|default_version '1.4'|\$m->{version} = '1.5.0'"
	"extension version 1.2.0 against default_version 1.4|provides.bloomfilter.version|\$m->{provides}{bloomfilter}{version} = '1.2.0'"
	"a license the spec does not list|license: must be one of|\$m->{license} = 'PostgreSQL License'"
	"a provides entry without its file|provides.bloomfilter: lacks the required key \"file\"|delete \$m->{provides}{bloomfilter}{file}"
	"a provides file not in the zip|sql/missing.sql\" is not in the distribution|\$m->{provides}{bloomfilter}{file} = 'sql/missing.sql'"
	"a provides file outside the tree|provides.bloomfilter.file: must be a relative Unix path|\$m->{provides}{bloomfilter}{file} = '../bloomfilter.sql'"
	"an unknown key in a provides entry|has the unknown key \"control\"|\$m->{provides}{bloomfilter}{control} = 'bloomfilter.control'"
	"an unknown top-level key|has the unknown key \"homepage\"|\$m->{homepage} = 'https://example.org/'"
	"an unknown prereqs phase|prereqs: has the unknown key \"install\"|\$m->{prereqs}{install} = { requires => { PostgreSQL => '15.0.0' } }"
	"an unknown relationship|prereqs.runtime: has the unknown key \"needs\"|\$m->{prereqs}{runtime}{needs} = { PostgreSQL => '15.0.0' }"
	"a version range that is not one|prereqs.runtime.requires.PostgreSQL: must be a version range|\$m->{prereqs}{runtime}{requires}{PostgreSQL} = '>= 15'"
	"an empty phase|prereqs.build: needs at least one of|\$m->{prereqs}{build} = {}"
	"release_status beta|release_status: must be stable, testing or unstable|\$m->{release_status} = 'beta'"
	"meta-spec 2.0.0|meta-spec.version: must be 1.0.x|\$m->{'meta-spec'}{version} = '2.0.0'"
	"a tag with a slash|tags[|push @{\$m->{tags}}, 'a/b'"
	"a tag twice|repeats an earlier item|push @{\$m->{tags}}, \$m->{tags}[0]"
	"no maintainer in the list|maintainer: must be an array of at least one item|\$m->{maintainer} = []"
	"resources with none of its keys|resources: needs at least one of|\$m->{resources} = {}"
	"a repository url without its type|resources.repository: needs \"web\", or \"url\" with \"type\"|\$m->{resources} = { repository => { url => 'https://example.org/x.git' } }"
	"a bugtracker that is no URI|resources.bugtracker.web: must be a URI|\$m->{resources} = { bugtracker => { web => 'bugs here' } }"
	"a name with a space|name: must be a term|\$m->{name} = 'bloom filter'"
	"a no_index directory not in the zip|no_index.directory: \"nowhere\" is not in the distribution|\$m->{no_index}{directory} = ['nowhere']"
)
good_meta=(
	"a custom x_ key|\$m->{x_release_notes} = 'CHANGELOG.md'"
	"resources with all three keys|\$m->{resources} = { homepage => 'https://example.org/', bugtracker => { web => 'https://example.org/issues', mailto => 'bugs@example.org' }, repository => { url => 'https://example.org/x.git', web => 'https://example.org/x', type => 'git' } }"
	"licenses as a list and as an object|\$m->{license} = ['postgresql', 'mit']; \$m->{license} = { PostgreSQL => 'https://www.postgresql.org/about/licence' }"
	"a maintainer as a string, prereqs of any version (0) and ranges|\$m->{maintainer} = 'The bloomfilter developers'; \$m->{prereqs}{test}{suggests}{plpgsql} = 0; \$m->{prereqs}{runtime}{requires}{PostgreSQL} = '>= 15.0.0, != 16.0.0, < 99.0.0'"
)
edit_meta() {
	EDIT=$1 perl -MJSON::PP -e \
		'my $m = decode_json(do { local $/; <STDIN> }); eval $ENV{EDIT}; die $@ if $@;
		 print JSON::PP->new->canonical->pretty->encode($m)' <"$src/META.json" >"$work/meta/META.json"
}
for row in "${bad_meta[@]}"; do
	IFS='|' read -r what names edit <<<"$row"
	edit_meta "$edit"
	status=0
	out=$(perl "$src/scripts/pgxn_meta.pl" "$work/meta" 2>&1) || status=$?
	if [ "$status" -eq 1 ] && [[ $out == *"$names"* ]]; then
		pass "META.json refused: $what"
	else
		fail "META.json with $what: expected exit 1 and a problem naming [$names], got exit $status:
$out"
	fi
done
for row in "${good_meta[@]}"; do
	IFS='|' read -r what edit <<<"$row"
	edit_meta "$edit"
	if out=$(perl "$src/scripts/pgxn_meta.pl" "$work/meta" 2>&1); then
		pass "META.json accepted: $what"
	else
		fail "META.json with $what was refused:
$out"
	fi
done
sed 's/"tags"/"tags",/' "$src/META.json" >"$work/meta/META.json"
status=0
out=$(perl "$src/scripts/pgxn_meta.pl" "$work/meta" 2>&1) || status=$?
check "META.json refused: not JSON (exit 1, said so)" "1 yes" "$status $([[ $out == *'not valid JSON'* ]] && echo yes || echo no)"

# make dist itself refuses a release whose versions disagree, and runs only
# in a clone.
sed -i "s/^default_version = .*/default_version = '1.5'/" "$clone/bloomfilter.control"
git -C "$clone" -c user.name=test -c user.email=test@bloomfilter.invalid commit -q -am "default_version 1.5"
rm -f "$clone/$zip"
status=0
out=$(make --no-print-directory -C "$clone" dist 2>&1) || status=$?
if [ "$status" -ne 0 ] && [[ $out == *"default_version '1.5'"* ]] && ! ls "$clone"/*.zip >/dev/null 2>&1; then
	pass "make dist refuses META.json's $version against default_version '1.5', and writes no zip"
else
	fail "make dist with default_version '1.5' and META.json's $version: exit $status, zips: $(ls "$clone"/*.zip 2>/dev/null || echo none):
$out"
fi
status=0
out=$(make --no-print-directory -C "$src" dist 2>&1) || status=$?
check "make dist in the unpacked zip (no git) fails, saying why" "yes" \
	"$([ "$status" -ne 0 ] && [[ $out == *'is not a git clone'* ]] && echo yes || echo "no (exit $status: $out)")"

# ---- build, install and test from the unpacked zip ----
if quietly build.log make -C "$src" PG_CONFIG="$PG_CONFIG" -j2; then
	pass "make in the unpacked zip ($("$PG_CONFIG" --version))"
	check "no compiler warning from our sources" "" \
		"$(grep -E '(^|/)(src|test)/[^: ]+:[0-9]+(:[0-9]+)?: warning:' "$work/build.log" || true)"
else
	fail "make in the unpacked zip"
	finish
fi
inst=$work/inst
if quietly install.log make -C "$src" PG_CONFIG="$PG_CONFIG" install DESTDIR="$inst"; then
	pass "make install DESTDIR= from the unpacked zip"
else
	fail "make install DESTDIR= from the unpacked zip"
	finish
fi
sharedir=$("$PG_CONFIG" --sharedir)/extension
pkglibdir=$("$PG_CONFIG" --pkglibdir)
missing=()
for f in "$sharedir/bloomfilter.control" "$pkglibdir/bloomfilter.so" "$src"/sql/bloomfilter--*.sql; do
	f=${f/#"$src/sql"/$sharedir}
	[ -f "$inst$f" ] || missing+=("$f")
done
check "installed: the control file, the library and every install and upgrade script" "" "${missing[*]}"

ntests=$(find "$src/sql" -maxdepth 1 -name '*.sql' ! -name 'bloomfilter--*' | wc -l)
status=0
"$src/test/pg_cluster.sh" "$inst" make --no-print-directory -C "$src" PG_CONFIG="$PG_CONFIG" installcheck \
	>"$work/installcheck.log" 2>&1 || status=$?
if [ "$status" -eq 0 ] && grep -q "All $ntests tests passed" "$work/installcheck.log"; then
	pass "the regress suite ($ntests tests) passes against the install from the zip (test/pg_cluster.sh, make installcheck)"
else
	fail "the regress suite against the install from the zip (exit $status):
$(grep -E '^(not ok|test |All|[0-9]+ of)|FAIL|failed' "$work/installcheck.log" | tail -n 20)"
	[ -s "$src/regression.diffs" ] && head -n 100 "$src/regression.diffs"
fi

# ---- the PGXN client ----
# "pgxn install" runs make and make install in its own unpacked copy; make
# takes DESTDIR from the environment, so it installs beside ours, not into
# the system.  It checks that the system's library directory is writable
# (it would sudo otherwise): root only.
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIPPED: pgxn install (it wants the system's library directory writable: run as root)"
elif ! command -v pgxn >/dev/null; then
	fail "pgxn (pgxnclient) is not installed"
else
	system_files() { find "$sharedir" "$pkglibdir" -maxdepth 1 -name 'bloomfilter*' -printf '%p %s %T@\n' | sort; }
	system_before=$(system_files)
	if quietly pgxn-install.log env DESTDIR="$work/pgxn-inst" \
		pgxn install --pg_config "$PG_CONFIG" "$work/out/$zip"; then
		pass "pgxn install $zip ($(pgxn --version))"
		files() { (cd "$1" && find . -type f | sort); }
		check "pgxn install installs the files make install does" "$(files "$inst")" "$(files "$work/pgxn-inst")"
		differ=()
		for f in $(cd "$inst" && find ."$sharedir" -type f); do
			cmp -s "$inst/$f" "$work/pgxn-inst/$f" || differ+=("$f")
		done
		check "the same control file and SQL scripts" "" "${differ[*]}"
	else
		fail "pgxn install $zip"
	fi
	check "the system's PostgreSQL is untouched (no bloomfilter file in $sharedir or $pkglibdir changed)" \
		"$system_before" "$(system_files)"
fi

finish
