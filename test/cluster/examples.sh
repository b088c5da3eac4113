#!/usr/bin/env bash
# test/cluster/examples.sh INSTDIR: run every examples/*.sql, each in a fresh
# database of one throwaway cluster, through psql -v ON_ERROR_STOP=1.  An
# example fails if psql fails: a statement errors, or one of the example's
# closing checks raises an exception.  Prints "examples: N passed, M failed".
#
# Environment (from scripts/run.sh): PG_CONFIG, BLOOM_ROOT.
set -euo pipefail

inst=$1
root=${BLOOM_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
export PG_CONFIG=${PG_CONFIG:-pg_config}

if [ -z "${BLOOM_EXAMPLES_IN_CLUSTER:-}" ]; then
	BLOOM_EXAMPLES_IN_CLUSTER=1 exec "$root/test/pg_cluster.sh" "$inst" "$0" "$inst"
fi

bindir=$("$PG_CONFIG" --bindir)
passed=0
failed=0
for example in "$root"/examples/*.sql; do
	name=$(basename "$example" .sql)
	db="example_${name//-/_}"
	log=$(mktemp /tmp/bloomfilter-example.XXXXXX)
	start=$SECONDS
	if "$bindir/createdb" "$db" &&
		"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -P pager=off -d "$db" -f "$example" >"$log" 2>&1; then
		passed=$((passed + 1))
		echo "ok     $name ($((SECONDS - start))s)"
	else
		failed=$((failed + 1))
		echo "FAILED $name ($((SECONDS - start))s); its output:"
		sed 's/^/    /' "$log"
	fi
	rm -f "$log"
	"$bindir/dropdb" --if-exists "$db" || true
done
echo "examples: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
