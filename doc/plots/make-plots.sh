#!/usr/bin/env bash
# doc/plots/make-plots.sh: the README's plots, from real runs of the extension.
#
# "make plots" runs this on a throwaway cluster after a build (scripts/run.sh
# plots); by hand, against any server with the extension installed (PGHOST,
# PGPORT, ... as for psql):  doc/plots/make-plots.sh
#
#   fpr.sql          -> fpr.tsv          -> fpr.png           false-positive rate as one filter fills
#   cardinality.sql  -> cardinality.tsv  -> cardinality.png   Swamidass-Baldi estimate against the truth
#   bench-latest.txt -> bench.tsv        -> bench.png         the benchmark ratios (make bench)
#
# bench-latest.txt is a committed copy of the benchmark report: when
# bench/results/latest.txt exists (after "make bench") it is copied over it
# first, so "make bench && make plots" refreshes the plot.  Needs gnuplot
# (Debian's gnuplot-nox, which scripts/setup.sh installs for make plots).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1)

# Write a data file only when its query succeeded.
run_sql() {
	local sql=$1 out=$2 t=$SECONDS
	"${psql[@]}" -f "$here/$sql" >"$here/$out.tmp"
	mv "$here/$out.tmp" "$here/$out"
	echo "$out: $(wc -l <"$here/$out") rows from $sql ($((SECONDS - t))s)"
}
run_sql fpr.sql fpr.tsv
run_sql cardinality.sql cardinality.tsv

# The benchmark report's table: rows "case | what | numerator ms |
# denominator ms | figure | unit | paired ratio | target | verdict | runs |
# spread"; the plot takes the ratio rows.  bench.tsv: case, what, ratio,
# target (NaN if none; "<= x" and ">= x" alike), numerator ms, denominator
# ms, where the value label goes.
if [ -f "$root/bench/results/latest.txt" ]; then
	cp "$root/bench/results/latest.txt" "$here/bench-latest.txt"
	echo "bench-latest.txt: copied from bench/results/latest.txt"
fi
if [ -f "$here/bench-latest.txt" ]; then
	awk -F'|' 'NF == 11 && $1 ~ /^ *[a-z][a-z0-9]* *$/ && $6 ~ /^ *ratio *$/ && $5 ~ /^ *[0-9.]+ *$/ {
			for (i = 1; i <= NF; i++) gsub(/^ +| +$/, "", $i)
			target = $8; sub(/^[<>]= */, "", target); if (target == "") target = "NaN"
			label_at = (target != "NaN" && target + 0 > $5 + 0) ? target : $5
			printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $5, target, $3, $4, label_at
		}' "$here/bench-latest.txt" >"$here/bench.tsv"
	[ -s "$here/bench.tsv" ] || { echo "make-plots.sh: no ratio rows in bench-latest.txt" >&2; exit 1; }
	echo "bench.tsv: $(wc -l <"$here/bench.tsv") cases from bench-latest.txt"
	bench_title=$(head -n 2 "$here/bench-latest.txt" | sed -E 's/^bloomfilter benchmark, //; s/^commit: +/commit /' | paste -sd ',' | sed 's/,/, /')
else
	rm -f "$here/bench.tsv"
	bench_title=
	echo "bench.png: skipped (no bench-latest.txt; run make bench first)"
fi

(cd "$here" && gnuplot -e "bench_title='$bench_title'" plots.gp)
ls -l "$here"/*.png | awk '{ print $NF ": " $5 " bytes" }' | sed "s|$here/||"
