#!/usr/bin/env bash
# test/layout.sh: doc/development.md's tables of src/ agree with the tree.
#
# Every file under src/ (as git would list it: committed or new) is named in
# the table of its folder, a row's first cell, with paths relative to the
# folder; every file a table names exists.  And no file under src/ is over
# 700 lines (doc/development.md: a file holds one design).  Prints a line
# per check and ends with "N passed, M failed".
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
doc=$root/doc/development.md
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

# "folder file" for every file a table names: a table follows a line that
# starts with `src/FOLDER/` (or `src/`); its first cell lists files in backquotes.
named=$(awk '
	/^`src\/[^`]*`:/ { match($0, /^`src\/[^`]*`/); folder = substr($0, 2, RLENGTH - 2); next }
	/^\| `/ && folder != "" {
		cell = $0; sub(/^\| /, "", cell); sub(/ \|.*/, "", cell)
		while (match(cell, /`[^`]+`/)) {
			print folder substr(cell, RSTART + 1, RLENGTH - 2)
			cell = substr(cell, RSTART + RLENGTH)
		}
		next
	}
	/^$/ || /^\|/ { next }
	{ folder = "" }
' "$doc" | sort -u)

while read -r path; do
	[ -n "$path" ] || continue
	if [ -f "$root/$path" ]; then pass "$path, in doc/development.md, exists"; else fail "$path is in doc/development.md's tables but not in the tree"; fi
done <<<"$named"

while read -r path; do
	[ -n "$path" ] || continue
	if grep -qxF "$path" <<<"$named"; then pass "$path is in doc/development.md"; else fail "$path is not in doc/development.md's table of its folder"; fi
done < <(cd "$root" && find src -type f \( -name '*.c' -o -name '*.h' \) | sort)

while read -r path; do
	lines=$(wc -l <"$root/$path")
	if [ "$lines" -le 700 ]; then pass "$path: $lines lines"; else fail "$path has $lines lines, over 700"; fi
done < <(cd "$root" && find src -type f \( -name '*.c' -o -name '*.h' \) | sort)

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
