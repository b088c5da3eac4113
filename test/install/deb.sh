#!/usr/bin/env bash
# The Debian package (debian/) on the host's PostgreSQL 15, built and tested
# as a user and Debian's autopkgtest meet it.
#
#   test/install/deb.sh     (run by "make test-all" after the cross-major
#                           tests; needs root and apt; 75 to 185 s on a
#                           2-core machine with the tools installed, by its
#                           load; 150 s on a fresh Debian 12, 38 s of it apt)
#
#  1. Installs what is missing of the tools (build-essential, dpkg-dev,
#     lintian) and of debian/control's Build-Depends, with apt-get.  The
#     PostgreSQL team's packages (postgresql-all, postgresql-server-dev-all)
#     are taken at the version of the installed postgresql-common when the
#     archive has it, so that postgresql-common is not upgraded under the
#     host's own server.
#  2. dpkg-buildpackage -us -uc -b in a scratch copy of the tree (the files git
#     tracks or would track, as they are in the work tree: never build/, never
#     in the tree itself), which runs the pg_regress suite at build time
#     against the files it installed into debian/ (dh_pgxs_test).
#  3. apt-get install ./postgresql-15-bloomfilter_*.deb
#  4. debian/tests/installcheck in a fresh copy of the tree, as autopkgtest
#     runs it: "pg_buildext installcheck", the pg_regress suite against the
#     installed package on a throwaway cluster (pg_virtualenv).
#  5. lintian on the .deb and the .changes: no error, and no warning but
#     those accepted below.
#  6. Purges the package (also when a step failed), and checks that nothing
#     of it is left and that the source tree is as it was.
#
# The tools stay installed, as scripts/setup.sh's packages do.  A system that
# already has a bloomfilter in PostgreSQL 15 (the package, or a "make
# install" into /usr) is not touched: the test says SKIPPED.  The last line
# is "deb: N passed, M failed".
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
source "$ROOT/test/checks.bash"

MAJOR=15
PACKAGE=postgresql-$MAJOR-bloomfilter
# Lintian warnings we keep, with the reason:
#   initial-upload-closes-no-bugs: the package is not in Debian, so its first
#     changelog entry closes no ITP bug.
# (lintian --pedantic also shows P: repeated-path-segment lib, for
# /usr/lib/postgresql/15/lib/: PostgreSQL's own layout.)
ACCEPTED_WARNINGS="initial-upload-closes-no-bugs"

started=$SECONDS
phase() { printf '\n---- %s ----\n' "$*"; }
finish() {
	echo "deb: $passed passed, $failed failed ($((SECONDS - started)) s)"
	[ "$failed" -eq 0 ] && exit 0
	exit 1
}
apt_get() {
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q "$@"
}
installed() {
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]
}

if [ "$(id -u)" != 0 ]; then
	echo "deb.sh: SKIPPED: needs root (apt-get install, purge)"
	finish
fi
sharedir=/usr/share/postgresql/$MAJOR
pkglibdir=/usr/lib/postgresql/$MAJOR/lib
if installed "$PACKAGE" || [ -e "$pkglibdir/bloomfilter.so" ] || [ -e "$sharedir/extension/bloomfilter.control" ]; then
	echo "deb.sh: SKIPPED: PostgreSQL $MAJOR has a bloomfilter already ($PACKAGE, or $pkglibdir/bloomfilter.so" \
		"from a make install), which this test would replace and purge; remove it to run the test"
	finish
fi

# ---- 1. tools and build dependencies ----
phase "tools and build dependencies"
t=$SECONDS
updated=0
apt_install() {
	[ "$updated" = 1 ] || { apt_get update; updated=1; }
	echo "installing: $*"
	apt_get install -y --no-install-recommends "$@"
}
tools=()
for p in build-essential dpkg-dev lintian; do
	installed "$p" || tools+=("$p")
done
[ ${#tools[@]} -eq 0 ] || apt_install "${tools[@]}"
# What dpkg-checkbuilddeps finds missing of debian/control's Build-Depends,
# without versions and build profiles (apt-get takes a virtual package such
# as debhelper-compat by its one provider).
unmet=$( { (cd "$ROOT" && dpkg-checkbuilddeps) 2>&1 >/dev/null || true; } |
	sed -n 's/.*Unmet build dependencies: //p' | sed -E 's/\([^)]*\)//g; s/<[^>]*>//g; s/\[[^]]*\]//g; s/\|[[:space:]]*[^[:space:]]+//g')
[ -z "$unmet" ] || [ "$updated" = 1 ] || { apt_get update; updated=1; }
pgcommon=$(dpkg-query -W -f='${Version}' postgresql-common 2>/dev/null || true)
missing=()
for p in $unmet; do
	case $p in
	postgresql-all | postgresql-server-dev-all)
		if [ -n "$pgcommon" ] && apt-cache madison "$p" | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' |
			grep -qxF "$pgcommon"; then
			p="$p=$pgcommon"
		fi
		;;
	esac
	missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
if (cd "$ROOT" && dpkg-checkbuilddeps); then
	pass "tools and build dependencies installed ($((${#tools[@]} + ${#missing[@]})) were missing; $((SECONDS - t)) s)"
else
	fail "dpkg-checkbuilddeps: build dependencies missing after apt-get"
	finish
fi

# ---- 2. dpkg-buildpackage in a scratch copy ----
# Readable by postgres (the build-time cluster loads the package from
# debian/) and _apt (apt-get install ./file.deb).
scratch=$(mktemp -d /tmp/bloomfilter-deb.XXXXXX)
chmod 755 "$scratch"
installed_by_us=0
cleanup() {
	if [ "$installed_by_us" = 1 ] && installed "$PACKAGE"; then
		apt_get purge -y "$PACKAGE" >/dev/null 2>&1 || true
	fi
	rm -rf "$scratch"
}
trap cleanup EXIT

# The tree as git sees it (tracked and not-ignored files, work tree
# contents), or, outside a git checkout, all but build/.
copy_tree() {
	mkdir -p "$1"
	if [ "$in_git" = 1 ]; then
		(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
			tar --null -T - -cf -) | tar -C "$1" -xf -
	else
		tar -C "$ROOT" --exclude=./build -cf - . | tar -C "$1" -xf -
	fi
	chmod -R a+rX "$1"
}
in_git=0
git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1 && in_git=1
tree_state() { git -C "$ROOT" status --porcelain; }
[ "$in_git" = 0 ] || state_before=$(tree_state)

phase "dpkg-buildpackage -us -uc -b"
t=$SECONDS
copy_tree "$scratch/build"
version=$(cd "$scratch/build" && dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
deb=$scratch/${PACKAGE}_${version}_$arch.deb
changes=$scratch/postgresql-bloomfilter_${version}_$arch.changes
# pg_regress's tests: every sql/*.sql but the install and upgrade scripts.
ntests=$(find "$ROOT/sql" -maxdepth 1 -name '*.sql' ! -name 'bloomfilter--*' | wc -l)
status=0
(cd "$scratch/build" && dpkg-buildpackage -us -uc -b) >"$scratch/build.log" 2>&1 || status=$?
if [ "$status" -eq 0 ] && [ -f "$deb" ] && [ -f "$changes" ]; then
	pass "dpkg-buildpackage -us -uc -b built $(basename "$deb") ($((SECONDS - t)) s)"
else
	tail -n 60 "$scratch/build.log"
	fail "dpkg-buildpackage -us -uc -b (exit $status; expected $(basename "$deb"))"
	finish
fi
check "pg_regress at build time (dh_pgxs_test) on $MAJOR" "All $ntests tests passed." \
	"$(grep -Eo "All [0-9]+ tests passed\." "$scratch/build.log" | tail -n 1)"
# The package's flags (dpkg-buildflags: -O2, _FORTIFY_SOURCE) differ from
# run.sh's build: a warning in our sources under them fails too.
check "no compiler warning in our sources under the package's flags" "" \
	"$(grep -E '(^|/)(src|test)/[^: ]+:[0-9]+(:[0-9]+)?: warning:' "$scratch/build.log" || true)"
check "the build ran no scripts/run.sh (make test)" "" \
	"$(grep -E '^==== (set-up|summary)' "$scratch/build.log" || true)"
# Every install and upgrade script, the module and the control file.
expected_files=$( {
	echo "./usr/lib/postgresql/$MAJOR/lib/bloomfilter.so"
	echo "./usr/share/postgresql/$MAJOR/extension/bloomfilter.control"
	for f in "$ROOT"/sql/bloomfilter--*.sql; do
		echo "./usr/share/postgresql/$MAJOR/extension/$(basename "$f")"
	done
} | sort)
check "the package holds the module, the control file and every install and upgrade script" \
	"$expected_files" \
	"$(dpkg-deb -c "$deb" | awk '{ print $NF }' | grep -E '/bloomfilter(\.so|\.control|--.*\.sql)$' | sort)"
# (newer pg_buildext adds the minor version built against: postgresql-15 (>> 15.20))
depends=$(dpkg-deb -f "$deb" Depends)
if printf '%s\n' "$depends" | grep -Eq "(^|, )postgresql-$MAJOR( \([^)]*\))?(,|$)"; then
	pass "Depends: $depends"
else
	fail "Depends has no postgresql-$MAJOR: $depends"
fi

# ---- 3. apt-get install ./the.deb ----
phase "apt-get install ./$(basename "$deb")"
chmod 644 "$scratch"/*.deb
installed_by_us=1
if (cd "$scratch" && apt_get install -y --no-install-recommends "./$(basename "$deb")") >"$scratch/install.log" 2>&1 &&
	installed "$PACKAGE"; then
	pass "apt-get install ./$(basename "$deb")"
else
	cat "$scratch/install.log"
	fail "apt-get install ./$(basename "$deb")"
	finish
fi

# ---- 4. autopkgtest: debian/tests/installcheck ----
phase "autopkgtest: debian/tests/installcheck"
t=$SECONDS
copy_tree "$scratch/autopkgtest"
mkdir -m 755 "$scratch/autopkgtest-tmp"
status=0
(cd "$scratch/autopkgtest" && AUTOPKGTEST_TMP=$scratch/autopkgtest-tmp debian/tests/installcheck) \
	>"$scratch/installcheck.log" 2>&1 || status=$?
tail -n 8 "$scratch/installcheck.log"
if [ "$status" -eq 0 ]; then
	pass "debian/tests/installcheck ($((SECONDS - t)) s)"
else
	grep -A 200 'regression.diffs \*\*\*\*' "$scratch/installcheck.log" | head -n 200 || true
	fail "debian/tests/installcheck (exit $status)"
fi
check "pg_buildext installcheck tested the installed $MAJOR" "### PostgreSQL $MAJOR installcheck ###" \
	"$(grep -E '^### PostgreSQL [0-9]+ installcheck ###$' "$scratch/installcheck.log" | tr '\n' ' ' | sed 's/ $//')"
check "pg_regress against the installed package" "All $ntests tests passed." \
	"$(grep -Eo "All [0-9]+ tests passed\." "$scratch/installcheck.log" | tail -n 1)"

# ---- 5. lintian ----
phase "lintian"
# As nobody: lintian warns when it runs as root.
lintian_out=$(runuser -u nobody -- lintian "$deb" "$changes" 2>&1 || true)
[ -n "$lintian_out" ] && printf '%s\n' "$lintian_out"
check "lintian: no error" "" "$(printf '%s\n' "$lintian_out" | grep -E '^E: ' || true)"
unaccepted=$(printf '%s\n' "$lintian_out" | grep -E '^W: ' | awk '{ print $3 }' |
	grep -vxF -f <(tr ' ' '\n' <<<"$ACCEPTED_WARNINGS") || true)
check "lintian: no warning but the accepted ($ACCEPTED_WARNINGS)" "" "$unaccepted"

# ---- 6. purge ----
phase "apt-get purge $PACKAGE"
if apt_get purge -y "$PACKAGE" >"$scratch/purge.log" 2>&1 && ! installed "$PACKAGE"; then
	installed_by_us=0
	pass "apt-get purge $PACKAGE"
else
	cat "$scratch/purge.log"
	fail "apt-get purge $PACKAGE"
fi
check "nothing of the package is left in PostgreSQL $MAJOR" "" \
	"$(ls -d "$pkglibdir"/bloomfilter* "$pkglibdir"/bitcode/bloomfilter* "$sharedir"/extension/bloomfilter* \
		"/usr/share/doc/$PACKAGE" 2>/dev/null || true)"
if [ "$in_git" = 1 ]; then
	check "the source tree is as it was (git status)" "$state_before" "$(tree_state)"
else
	echo "(not a git checkout: whether the source tree is as it was is not checked)"
fi

finish
