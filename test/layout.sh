#!/usr/bin/env bash
# test/layout.sh: doc/development.md's account of src/ agrees with the tree.
#
# Every file under src/ (as git would list it: committed or new) is named in
# the table of its folder, a row's first cell, with paths relative to the
# folder; every file a table names exists.  No file under src/ is over 700
# lines (doc/development.md: a file holds one design).  And src/ depends
# one way only: what each file uses (its #includes of files of src/, and
# the functions and variables it names that one other .c file defines) is
# read from the tree; no two files and no two folders are in a loop, and
# each folder uses what the table of the folders says it uses, all of it
# above it in that table.  Prints a line per check (a loop with the names
# that tie each step) and ends with "N passed, M failed".  Needs bash and
# awk only, and takes a second or two.
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


# ---- what each file uses, and loops ----

# Reads the files of src/ (paths from the root) and prints a line "FILE
# TARGET NAME" for each thing FILE takes from another file of src/: NAME is
# "#include" for an include, else a function or variable that TARGET, a .c
# file, defines (not static) and FILE names.  Definitions are found by
# their shape in PostgreSQL's style: a function's name at the start of a
# line and then a line "{", a variable at file scope; comments, strings and
# character constants are left out.  A header's declarations of functions
# of its own folder are its interface, not a use of them.
read -r -d '' uses_program <<'AWK' || true
# The line without its comments, strings and character constants; a comment
# that goes on to the next lines sets in_comment.
function strip(line,    out, i, c, n) {
	out = ""
	n = length(line)
	for (i = 1; i <= n; i++) {
		c = substr(line, i, 1)
		if (in_comment) {
			if (c == "*" && substr(line, i + 1, 1) == "/") { in_comment = 0; i++ }
			continue
		}
		if (quote != "") {
			if (c == "\\") i++
			else if (c == quote) quote = ""
			continue
		}
		if (c == "/" && substr(line, i + 1, 1) == "*") { in_comment = 1; i++; out = out " "; continue }
		if (c == "/" && substr(line, i + 1, 1) == "/") break
		if (c == "\"" || c == "'") { quote = c; out = out " "; continue }
		out = out c
	}
	quote = ""				# a string never runs past its line
	return out
}
# FILENAME defines name for the other files (once, whatever its #if branches).
function define(name) {
	if (index(definer[name] " ", " " FILENAME " ") == 0) definer[name] = definer[name] " " FILENAME
}
function folder(path,    p) {
	p = substr(path, 5)
	return index(p, "/") ? "src/" substr(p, 1, index(p, "/")) : path
}
# The name a declaration or definition line declares: inside (*name), else
# before the first "(", else before "=", "[" or ";".
function declared_name(line,    s) {
	if (match(line, /\(\*[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*\)/)) {
		s = substr(line, RSTART + 2, RLENGTH - 3)
		gsub(/[ \t]/, "", s)
		return s
	}
	s = line
	sub(/[(=[;].*/, "", s)
	sub(/[ \t]+$/, "", s)
	if (!match(s, /[A-Za-z_][A-Za-z0-9_]*$/)) return ""
	return substr(s, RSTART, RLENGTH)
}
FNR == 1 {
	in_comment = 0; continued = 0; depth = 0; pending = ""; previous = ""
	files[++nfiles] = FILENAME
	known[FILENAME] = 1
	header = FILENAME ~ /\.h$/
}
{
	if (match($0, /^[ \t]*#[ \t]*include[ \t]*"[^"]+"/)) {
		s = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", s); sub(/"$/, "", s)
		includes[FILENAME] = includes[FILENAME] " " s
	}
	line = strip($0)
	lines[FILENAME, FNR] = line
	nlines[FILENAME] = FNR
	if (continued || line ~ /^[ \t]*#/) {
		continued = $0 ~ /\\$/
		previous = ""
		next
	}
	if (depth == 0 && line ~ /^[A-Za-z_][A-Za-z0-9_]*\(/) {
		# a function's name at the start of a line: its definition if a
		# "{" line follows before a ";"
		pending = declared_name(line)
		pending_static = previous ~ /(^|[ \t])static([ \t]|$)/
	} else if (depth == 0 && line ~ /^[A-Za-z_]/ && line !~ /^(extern|typedef|struct|union|enum)[ \t]/ && line !~ /^[A-Za-z_][A-Za-z0-9_]*[ \t]*;?[ \t]*$/ && (line ~ /=/ || line ~ /;[ \t]*$/) && line !~ /^[^(=]*\([^*]/) {
		# a variable at file scope
		name = declared_name(line)
		if (name != "") {
			local[FILENAME, name] = 1
			if (line !~ /^static[ \t]/ && !header) define(name)
		}
	}
	if (pending != "") {
		if (line ~ /^\{/) {
			local[FILENAME, pending] = 1
			if (!pending_static && !header) define(pending)
			pending = ""
		} else if (line ~ /;[ \t]*$/)
			pending = ""
	}
	if (header && depth == 0 && line ~ /(^|[ \t])extern[ \t]/) {
		name = declared_name(line)
		if (name != "") declares[FILENAME, name] = 1
	}
	s = line
	gsub(/[^{}]/, "", s)
	for (i = 1; i <= length(s); i++) depth += substr(s, i, 1) == "{" ? 1 : -1
	if (line !~ /^[ \t]*$/) previous = line
}
END {
	for (f = 1; f <= nfiles; f++) {
		file = files[f]
		dir = file; sub(/[^\/]*$/, "", dir)
		n = split(includes[file], names, " ")
		for (i = 1; i <= n; i++) {
			target = ""
			if ((dir names[i]) in known) target = dir names[i]
			else if (("src/" names[i]) in known) target = "src/" names[i]
			if (target != "" && target != file) print file, target, "#include"
		}
		delete seen
		for (l = 1; l <= nlines[file]; l++) {
			line = lines[file, l]
			gsub(/[^A-Za-z0-9_]+/, " ", line)
			n = split(line, names, " ")
			for (i = 1; i <= n; i++) {
				name = names[i]
				if (!(name in definer) || (name in seen) || ((file, name) in local)) continue
				seen[name] = 1
				if (split(definer[name], where, " ") != 1) continue	# static elsewhere, or ambiguous
				target = where[1]
				if (target == file) continue
				# a header's declarations of its own folder's functions: its interface
				if ((file, name) in declares && folder(file) == folder(target)) continue
				print file, target, name
			}
		}
	}
}
AWK

# Reads those lines and prints each loop among the files (by_folder: among
# the folders, a file of src/ itself being a folder of its own, with its
# header, given in sources), one "loop: A -> B -> A (...)" line per strongly connected
# component, then a line for each step with the names that tie it.
read -r -d '' loops_program <<'AWK' || true
function unit(path,    p) {
	if (!by_folder) return path
	p = substr(path, 5)
	if (index(p, "/")) return "src/" substr(p, 1, index(p, "/"))
	if (p ~ /\.h$/ && (substr(path, 1, length(path) - 1) "c") in source) sub(/\.h$/, ".c", p)
	return "src/" p
}
BEGIN { split(sources, list, " "); for (i in list) source[list[i]] = 1 }
{
	a = unit($1); b = unit($2)
	if (a == b) next
	if (!(a in node)) { node[a] = 1; order[++nodes] = a }
	if (!(b in node)) { node[b] = 1; order[++nodes] = b }
	if (!((a, b) in edge)) { edge[a, b] = 1; out[a] = out[a] " " b }
	if (index(" " why[a, b] " ", " " $3 " ") == 0) why[a, b] = why[a, b] " " $3
}
# Tarjan's strongly connected components, recursive.
function connect(v,    n, i, w, targets) {
	index_of[v] = lowlink[v] = ++counter
	stack[++top] = v; on_stack[v] = 1
	n = split(out[v], targets, " ")
	for (i = 1; i <= n; i++) {
		w = targets[i]
		if (!(w in index_of)) {
			connect(w)
			if (lowlink[w] < lowlink[v]) lowlink[v] = lowlink[w]
		} else if (on_stack[w] && index_of[w] < lowlink[v])
			lowlink[v] = index_of[w]
	}
	if (lowlink[v] == index_of[v]) {
		components++
		size = 0
		members = ""
		do {
			w = stack[top--]; on_stack[w] = 0; component[w] = components; size++
			members = w (members == "" ? "" : ", ") members
		} while (w != v)
		if (size > 1) report(v, components, size, members)
	}
}
# One loop of component c through v: a breadth-first path back to v.
function report(v, c, size, members,    queue, head, tail, from, u, n, i, targets, w, path, steps, k) {
	delete from
	head = tail = 0
	queue[++tail] = v
	while (head < tail) {
		u = queue[++head]
		n = split(out[u], targets, " ")
		for (i = 1; i <= n; i++) {
			w = targets[i]
			if (component[w] != c) continue
			if (w == v) { head = tail; break }
			if (!(w in from)) { from[w] = u; queue[++tail] = w }
		}
	}
	k = 0
	for (w = u; w != v; w = from[w]) chain[++k] = w
	path = v
	for (i = k; i >= 1; i--) path = path " -> " chain[i]
	path = path " -> " v
	print "loop: " path " (" size " " (by_folder ? "folders" : "files") " tied in one loop: " members ")"
	steps = split(path, hop, " -> ")
	for (i = 1; i < steps; i++) print "  " hop[i] " -> " hop[i + 1] ":" why[hop[i], hop[i + 1]]
}
END {
	for (i = 1; i <= nodes; i++) if (!(order[i] in index_of)) connect(order[i])
}
AWK

mapfile -t sources < <(cd "$root" && find src -type f \( -name '*.c' -o -name '*.h' \) | sort)
uses=$(cd "$root" && awk "$uses_program" "${sources[@]}")
for level in files folders; do
	by_folder=0
	[ "$level" = folders ] && by_folder=1
	loops=$(awk -v by_folder="$by_folder" -v sources="${sources[*]}" "$loops_program" <<<"$uses")
	if [ -z "$loops" ]; then
		pass "no loop between the $level of src/ ($(wc -l <<<"$uses") uses read)"
		continue
	fi
	while IFS= read -r line; do
		case $line in
		"loop: "*) fail "a loop between the $level of src/: ${line#loop: }" ;;
		*) echo "$line" ;;
		esac
	done <<<"$loops"
done

# The table of the folders, bottom-up: "FOLDER USED..." for each row.
order=$(awk '
	/^\| folder \| what it is \| uses \|/ { table = 1; next }
	table && /^\| -/ { next }
	table && /^\| `/ {
		split($0, cell, "|")
		name = cell[2]; gsub(/[ `]/, "", name)
		list = "src/" name
		used = cell[4]
		while (match(used, /`[^`]+`/)) {
			list = list " src/" substr(used, RSTART + 1, RLENGTH - 2)
			used = substr(used, RSTART + RLENGTH)
		}
		print list
		next
	}
	{ table = 0 }
' "$doc")

# Checks every folder against its row: "ok: ..." or "FAIL: ..." lines.
checks=$( (echo "$order"; echo "--"; echo "$uses"; echo "--"; printf '%s\n' "${sources[@]}") | awk -v sources="${sources[*]}" '
	function unit(path,    p) {
		p = substr(path, 5)
		if (index(p, "/")) return "src/" substr(p, 1, index(p, "/"))
		if (p ~ /\.h$/ && (substr(path, 1, length(path) - 1) "c") in source) sub(/\.h$/, ".c", p)
		return "src/" p
	}
	BEGIN { split(sources, list, " "); for (i in list) source[list[i]] = 1 }
	$0 == "--" { part++; next }
	part == 0 {
		rows[++nrows] = $1; row_of[$1] = nrows
		for (i = 2; i <= NF; i++) said[$1, $i] = 1
		said_list[$1] = $0
		next
	}
	part == 1 {
		a = unit($1); b = unit($2)
		if (a == b) next
		if (!((a, b) in used)) { used[a, b] = 1; uses_of[a] = uses_of[a] " " b }
		if (index(" " why[a, b] " ", " " $3 " ") == 0) why[a, b] = why[a, b] " " $3
		next
	}
	{
		u = unit($0)
		if (!(u in seen_unit)) { seen_unit[u] = 1; units[++nunits] = u }
	}
	END {
		for (i = 1; i <= nunits; i++)
			if (!(units[i] in row_of))
				print "FAIL: " units[i] " is not in doc/development.md'"'"'s table of the folders"
		for (r = 1; r <= nrows; r++) {
			u = rows[r]
			if (!(u in seen_unit)) {
				print "FAIL: " u ", in doc/development.md'"'"'s table of the folders, is not in the tree"
				continue
			}
			bad = 0
			n = split(uses_of[u], list, " ")
			for (i = 1; i <= n; i++) {
				if (!((u, list[i]) in said)) {
					print "FAIL: " u " uses " list[i] " (" substr(why[u, list[i]], 2) "), which doc/development.md'"'"'s table of the folders does not say"
					bad = 1
				} else if (row_of[list[i]] >= r) {
					print "FAIL: " u " uses " list[i] ", which is not above it in doc/development.md'"'"'s table of the folders"
					bad = 1
				}
			}
			n = split(said_list[u], list, " ")
			for (i = 2; i <= n; i++)
				if (!((u, list[i]) in used)) {
					print "FAIL: doc/development.md'"'"'s table of the folders says " u " uses " list[i] ", which it does not"
					bad = 1
				}
			if (bad)
				continue
			if (uses_of[u] == "")
				print "ok: " u " uses nothing of src/, as doc/development.md says"
			else
				print "ok: " u " uses" uses_of[u] ", each above it in doc/development.md'"'"'s table of the folders, as it says"
		}
	}
')
while IFS= read -r line; do
	case $line in
	"ok: "*) pass "${line#ok: }" ;;
	"FAIL: "*) fail "${line#FAIL: }" ;;
	esac
done <<<"$checks"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
