#!/usr/bin/env bash
# test/cluster/examples.sh INSTDIR: run every examples/*.sql, each in a fresh
# database of one throwaway cluster, through psql -v ON_ERROR_STOP=1.  An
# example fails if psql fails: a statement errors, or one of the example's
# closing checks raises an exception.  Prints "examples: N passed, M failed".
#
# Environment (from scripts/run.sh): PG_CONFIG, BLOOM_ROOT.
source "$(dirname "$0")/common.bash"
cluster_main examples "$@"

for example in "$BLOOM_ROOT"/examples/*.sql; do
	name=$(basename "$example" .sql)
	db="example_${name//-/_}"
	log=$(mktemp /tmp/bloomfilter-example.XXXXXX)
	start=$SECONDS
	# (psql as a person would run it: tables with headers, in the log)
	if "$BINDIR/createdb" "$db" &&
		"${PSQL[@]}" -P format=aligned -P tuples_only=off -d "$db" -f "$example" >"$log" 2>&1; then
		pass "$name ($((SECONDS - start))s)"
	else
		fail "$name ($((SECONDS - start))s); its output:"$'\n'"$(cat "$log")"
	fi
	rm -f "$log"
	"$BINDIR/dropdb" --if-exists "$db" || true
done
[ "$passed" -gt 0 ] || fail "no example ran"
cluster_done
