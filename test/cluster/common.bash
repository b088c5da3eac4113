# Sourced by the test/cluster/*.sh scripts (not a test itself: run.sh runs
# only *.sh): result counting, and running the script's body inside a
# throwaway cluster.
#
#   source "$(dirname "$0")/common.bash"
#   cluster_main NAME "$@" [-o name=value]...   # re-runs this script inside test/pg_cluster.sh
#   ... checks, with check / pass / fail / verdict / check_lines ...
#   cluster_done
#
# Outside the cluster, cluster_main starts test/pg_cluster.sh on INSTDIR ($1)
# with this script as the command, then prints the one final line
# "NAME: N passed, M failed" (a crash or a failure before the end counts as a
# failure) and exits.  Inside, it returns and the body runs with PGHOST etc.
# set; cluster_done hands the counts back.  A script that needs a second
# server calls cluster_nested after cluster_main.

set -euo pipefail

BINDIR=$("${PG_CONFIG:-pg_config}" --bindir)
BLOOM_ROOT=${BLOOM_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# The server's major version, and how its EXPLAIN prints the first InitPlan
# and its value: "InitPlan 1 (returns $0)" and "$0" up to 16, "InitPlan 1"
# and "(InitPlan 1).col1" on 17 and 18, "InitPlan expr_1" and
# "(InitPlan expr_1).col1" from 19 on.
PG_MAJOR=$("${PG_CONFIG:-pg_config}" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
if [ "$PG_MAJOR" -ge 19 ]; then
	EXPLAIN_INITPLAN_1='InitPlan expr_1' EXPLAIN_INITPLAN_1_VALUE='(InitPlan expr_1).col1'
elif [ "$PG_MAJOR" -ge 17 ]; then
	EXPLAIN_INITPLAN_1='InitPlan 1' EXPLAIN_INITPLAN_1_VALUE='(InitPlan 1).col1'
else
	EXPLAIN_INITPLAN_1='InitPlan 1 (returns $0)' EXPLAIN_INITPLAN_1_VALUE='$0'
fi
# psql for scripted checks: no psqlrc, stop on error, unaligned tuples only.
PSQL=("$BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -At)

passed=0
failed=0

pass() { passed=$((passed + 1)); echo "ok: $*"; }
# A description of several lines (a plan, some output) shows its later lines
# indented.
fail() { failed=$((failed + 1)); printf 'FAIL: %s\n' "$*" | sed '2,$s/^/    | /'; }
# check DESCRIPTION EXPECTED ACTUAL
check() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1: expected [$2], got [$3]"
	fi
}
# verdict pass|fail DESCRIPTION: a check decided elsewhere (anything but
# "pass" fails)
verdict() {
	if [ "$1" = pass ]; then
		pass "$2"
	else
		fail "$2"
	fi
}
# check_lines FILE: the lines "CHECK pass|fail DESCRIPTION" of FILE (SQL
# prints them, with format('CHECK %s ...')) counted as checks; then its other
# lines, printed as they are.
check_lines() {
	local result description
	while read -r _ result description; do
		verdict "$result" "$description"
	done < <(grep '^CHECK ' "$1" || true)
	grep -v '^CHECK ' "$1" || true
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

# cluster_nested PREFIX INSTDIR [-o name=value]...: a second throwaway
# cluster, for a script that needs two servers.  Called after cluster_main,
# inside its cluster: keeps that cluster's PGHOST, PGPORT, BLOOM_PG_CTL,
# BLOOM_PG_LOG and BLOOM_PG_DATA in PREFIX_HOST, PREFIX_PORT, PREFIX_PG_CTL,
# PREFIX_PG_LOG and PREFIX_PG_DATA, then runs this script again inside a
# second cluster (whose PGHOST etc. replace the first's), where it returns
# and the body runs.
#
# Called again with another PREFIX, it nests a third cluster, and so on
# (BLOOM_CLUSTER_NESTED is set from the first on).
cluster_nested() {
	local prefix=$1 instdir=$2 marker=BLOOM_CLUSTER_NESTED_$1
	shift 2
	if [ -n "${!marker:-}" ]; then
		return 0
	fi
	export "${prefix}_HOST=$PGHOST" "${prefix}_PORT=$PGPORT" "${prefix}_PG_CTL=$BLOOM_PG_CTL" \
		"${prefix}_PG_LOG=$BLOOM_PG_LOG" "${prefix}_PG_DATA=$BLOOM_PG_DATA" BLOOM_CLUSTER_NESTED=1 \
		"$marker=1"
	exec "$BLOOM_ROOT/test/pg_cluster.sh" "$@" "$instdir" "$0" "$instdir"
}

cluster_done() {
	echo "$passed $failed" >"$BLOOM_CLUSTER_COUNTS"
	[ "$failed" -eq 0 ]
}
