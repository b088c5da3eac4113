# shellcheck shell=bash
# bench/baseline.sh: sourced by the benchmarks that pair each run of this
# build with one of an earlier commit's library, loaded by the same server
# for that connection, so that both see the same machine at the same time
# (bench/lookup.sh, bench/counting_lookup.sh, bench/scalable_lookup.sh).
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
#   bench_pgbench_pairs WORK SECONDS RUNS REV SPEC...
#
# times point lookups with pgbench (-M prepared, one client, SECONDS a run),
# RUNS rounds, each run of this build followed by one of the baseline's when
# there is one, and prints each round and then the table of medians.  A
# SPEC is "SCRIPT ID N WHAT": the pgbench script WORK/SCRIPT.sql, run with
# -D id=ID -D n=N; WHAT names the row.  REV is only printed.
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

# Average latency in ms of one pgbench run: work directory, seconds, script, id, n.
bench_pgbench_latency() {
	local work=$1 seconds=$2 script=$3 id=$4 n=$5 bindir

	bindir=$("${PG_CONFIG:-pg_config}" --bindir)
	"$bindir/pgbench" -n -M prepared -c 1 -T "$seconds" -f "$work/$script.sql" \
		-D id="$id" -D n="$n" >"$work/pgbench.out" 2>&1 ||
		{ echo "$(basename "$0"): pgbench failed:" >&2; cat "$work/pgbench.out" >&2; return 1; }
	awk '/latency average/ { print $4 }' "$work/pgbench.out"
}

bench_pgbench_pairs() {
	local work=$1 seconds=$2 runs=$3 rev=$4 spec script id n what this base line r
	shift 4

	for spec in "$@"; do
		read -r _ id _ <<<"$spec"
		: >"$work/this.$id"
		: >"$work/base.$id"
	done
	for ((r = 1; r <= runs; r++)); do
		for spec in "$@"; do
			read -r script id n _ <<<"$spec"
			this=$(bench_pgbench_latency "$work" "$seconds" "$script" "$id" "$n")
			echo "$this" >>"$work/this.$id"
			line="round $r filter $id: $this ms"
			if [ -n "$baseline" ]; then
				base=$(PGOPTIONS="$baseline_options" bench_pgbench_latency "$work" "$seconds" \
					"$script" "$id" "$n")
				echo "$base" >>"$work/base.$id"
				line="$line, baseline $base ms"
			fi
			echo "$line"
		done
	done
	echo "pgbench -M prepared, 1 client, ${seconds}s a run, median of $runs runs$([ -n "$baseline" ] && echo ", each paired with one of $rev"):"
	printf '%-42s %12s %14s %8s\n' "" "latency ms" "baseline ms" "ratio"
	for spec in "$@"; do
		read -r _ id _ what <<<"$spec"
		bench_pair_row "$what" "$work/this.$id" "$work/base.$id"
	done
}
