#!/usr/bin/env bash
# "make dist": the PGXN release, NAME-VERSION.zip (both from META.json) in
# the current directory, holding one directory NAME-VERSION/ with the tree.
#
#   scripts/dist.sh
#
# The zip is "git archive" of HEAD: only committed files, and none that
# .gitattributes marks export-ignore; uncommitted changes are left out (and
# said so).  Before writing it, the META.json and control file that go in are
# checked (scripts/pgxn_meta.pl): against the PGXN Meta Spec, and the version
# against default_version; either wrong, no zip.  Needs git and perl, not a
# build nor PostgreSQL.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

top=$(git -C "$ROOT" rev-parse --show-toplevel 2>/dev/null || true)
if [ -z "$top" ] || [ "$(cd "$top" && pwd -P)" != "$(cd "$ROOT" && pwd -P)" ]; then
	echo "dist: $ROOT is not a git clone: make dist archives the committed tree (git archive), so it runs in a clone" >&2
	exit 1
fi
commit=$(git -C "$ROOT" rev-parse --short HEAD)

# What will ship, checked before it ships.
tree=$(mktemp -d "${TMPDIR:-/tmp}/bloomfilter-dist.XXXXXX")
trap 'rm -rf "$tree"' EXIT
git -C "$ROOT" archive --format=tar HEAD | tar -x -C "$tree"
if ! dist=$(perl "$ROOT/scripts/pgxn_meta.pl" --print-version "$tree"); then
	printf '%s\n' "$dist" >&2
	echo "dist: no zip written: META.json of HEAD ($commit) has the problems above" >&2
	exit 1
fi
read -r name version <<<"$dist"

zip=$name-$version.zip
git -C "$ROOT" archive --format=zip --prefix="$name-$version/" -o "$tree/$zip" HEAD
mv "$tree/$zip" "$zip"
echo "dist: wrote $PWD/$zip ($(git -C "$ROOT" archive --format=tar HEAD | tar -t | grep -vc '/$') files, $(wc -c <"$zip") bytes) from HEAD ($commit)"
if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ]; then
	echo "dist: note: the tree has uncommitted changes, which are not in the zip"
fi
