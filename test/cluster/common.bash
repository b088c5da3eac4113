# Sourced by the test/cluster/*.sh scripts (not a test itself: run.sh runs
# only *.sh): result counting, and running the script's body inside a
# throwaway cluster.
#
#   source "$(dirname "$0")/common.bash"
#   cluster_main NAME "$@" [-o name=value]...   # re-runs this script inside test/pg_cluster.sh
#   ... checks, with check / pass / fail ...
#   cluster_done
#
# Outside the cluster, cluster_main starts test/pg_cluster.sh on INSTDIR ($1)
# with this script as the command, then prints the one final line
# "NAME: N passed, M failed" (a crash or a failure before the end counts as a
# failure) and exits.  Inside, it returns and the body runs with PGHOST etc.
# set; cluster_done hands the counts back.

set -euo pipefail

BINDIR=$("${PG_CONFIG:-pg_config}" --bindir)
BLOOM_ROOT=${BLOOM_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# psql for scripted checks: no psqlrc, stop on error, unaligned tuples only.
PSQL=("$BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -At)

passed=0
failed=0

pass() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
# check DESCRIPTION EXPECTED ACTUAL
check() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1: expected [$2], got [$3]"
	fi
}

cluster_main() {
	local name=$1 instdir=$2
	shift 2
	if [ -n "${BLOOM_CLUSTER_COUNTS:-}" ]; then
		export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
		return 0
	fi
	[ -n "$instdir" ] || { echo "usage: $0 INSTDIR" >&2; exit 2; }
	local counts status=0 p=0 f=0
	counts=$(mktemp /tmp/bloomfilter-counts.XXXXXX)
	chmod 666 "$counts"
	BLOOM_CLUSTER_COUNTS=$counts "$BLOOM_ROOT/test/pg_cluster.sh" "$@" "$instdir" \
		"$0" "$instdir" || status=$?
	if [ -s "$counts" ]; then
		read -r p f <"$counts"
	fi
	rm -f "$counts"
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL: the run stopped early or the server crashed (exit $status)"
		f=$((f + 1))
	fi
	echo "$name: $p passed, $f failed"
	[ "$f" -eq 0 ]
	exit
}

cluster_done() {
	echo "$passed $failed" >"$BLOOM_CLUSTER_COUNTS"
	[ "$failed" -eq 0 ]
}
