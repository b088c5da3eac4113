#!/usr/bin/env bash
# Run each fuzzer for a fixed time on a scratch copy of its seed corpus.
#
#   test/fuzz/fuzzcheck.sh SECONDS MAX_LEN BINDIR NAME...
#
# For each NAME (fuzz_text, ...) runs BINDIR/fuzz-<name> (fuzz_text ->
# BINDIR/fuzz-text) with -max_total_time=SECONDS on a copy, in a temporary
# directory, of test/fuzz/corpus/NAME: new inputs never land in the source
# tree.  Crash, leak and timeout reproducers, and each fuzzer's log, go to
# BINDIR/fuzz-artifacts/NAME/.  A fuzzer passes when it ran the whole time
# and found nothing.  The last line is "fuzz: N passed, M failed"; the exit
# status is non-zero if any failed.  Called by "make fuzzcheck" (test/unit.mk).
set -uo pipefail

if [ $# -lt 4 ]; then
	echo "usage: $0 SECONDS MAX_LEN BINDIR NAME..." >&2
	exit 2
fi
seconds=$1 max_len=$2 bindir=$(cd "$3" && pwd)
shift 3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/bloomfilter-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

passed=0
failed=0
for name in "$@"; do
	binary=$bindir/fuzz-${name#fuzz_}
	corpus=$work/$name
	out=$bindir/fuzz-artifacts/$name
	log=$out/fuzz.log
	rm -rf "$out"
	mkdir -p "$out" "$corpus"
	seeds=0
	if [ -d "$here/corpus/$name" ]; then
		cp "$here/corpus/$name"/* "$corpus"/
		seeds=$(find "$corpus" -type f | wc -l)
	fi
	options=(-max_total_time="$seconds" -max_len="$max_len" -timeout=30
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/")
	[ -f "$here/$name.dict" ] && options+=(-dict="$here/$name.dict")

	started=$SECONDS
	status=0
	"$binary" "${options[@]}" "$corpus" >"$log" 2>&1 || status=$?
	elapsed=$((SECONDS - started))
	runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -n 1)
	inputs=$(find "$corpus" -type f | wc -l)
	reproducers=$(find "$out" -type f ! -name fuzz.log | sort)

	if [ "$status" -eq 0 ] && [ -z "$reproducers" ] && [ "$elapsed" -ge "$seconds" ]; then
		passed=$((passed + 1))
		echo "$name: passed (${runs:-?} runs in ${elapsed}s, corpus $seeds -> $inputs inputs)"
	else
		failed=$((failed + 1))
		echo "$name: FAILED (exit status $status after ${elapsed}s of ${seconds}s, ${runs:-?} runs)"
		echo "---- what it found (from $log) ----"
		grep -m 10 -E 'invariant failed|ERROR: |runtime error|SUMMARY: ' "$log"
		echo "---- last lines of $log ----"
		tail -n 40 "$log"
		echo "----"
		if [ -n "$reproducers" ]; then
			for file in $reproducers; do
				echo "$name: reproducer $file"
				echo "    rerun: $binary $file"
			done
		else
			echo "$name: no reproducer written; the whole log is $log"
		fi
	fi
done

echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
