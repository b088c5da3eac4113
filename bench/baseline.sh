# shellcheck shell=bash
# bench/baseline.sh: sourced by the benchmarks that pair each run of this
# build with one of an earlier commit's library, loaded by the same server
# for that connection, so that both see the same machine at the same time
# (bench/lookup.sh, bench/counting_lookup.sh).
#
#   bench_baseline REV WORK
#
# builds commit REV of this repository (git archive) into WORK/inst, and
# sets baseline to that install tree and baseline_options to the PGOPTIONS
# of a connection that loads its library instead of the server's (the SQL
# objects are the database's; only the library differs).  REV empty, or not
# a commit here (a tree without its history): baseline is empty.  WORK must
# be readable by the server.
#
#   bench_pair_row WHAT THIS_FILE BASE_FILE
#
# prints a row of the table of results: WHAT, the median of the latencies
# in THIS_FILE (one a line), and with a baseline the median of BASE_FILE's
# and the ratio of the two.

# shellcheck disable=SC2034  # baseline and baseline_options are for the caller
bench_baseline() {
	local rev=$1 work=$2 root pg_config major

	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	pg_config=${PG_CONFIG:-pg_config}
	major=$("$pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
	baseline=""
	baseline_options=""
	if [ -z "$rev" ]; then
		return 0
	fi
	if ! git -C "$root" rev-parse --verify -q "$rev^{commit}" >/dev/null; then
		echo "$(basename "$0"): no commit $rev here, so no baseline"
		return 0
	fi
	mkdir -p "$work/src" "$work/build"
	git -C "$root" archive "$rev" | tar -x -C "$work/src"
	make -s -C "$work/build" -f ../src/Makefile VPATH=../src PG_CONFIG="$pg_config" -j2 >/dev/null 2>&1
	make -s -C "$work/build" -f ../src/Makefile VPATH=../src PG_CONFIG="$pg_config" \
		install DESTDIR="$work/inst" >/dev/null 2>&1
	baseline="$work/inst"
	if [ "$major" -ge 18 ]; then
		baseline_options="-c dynamic_library_path=$baseline$("$pg_config" --pkglibdir):\$libdir"
	else
		baseline_options="-c extension_destdir=$baseline"
	fi
}

bench_median() {
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

bench_pair_row() {
	local this base

	this=$(bench_median <"$2")
	if [ -n "$baseline" ]; then
		base=$(bench_median <"$3")
		printf '%-42s %12.3f %14.3f %8.4f\n' "$1" "$this" "$base" \
			"$(awk -v a="$this" -v b="$base" 'BEGIN { print a / b }')"
	else
		printf '%-42s %12.3f %14s %8s\n' "$1" "$this" "-" "-"
	fi
}
