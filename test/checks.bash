# Sourced by the chroot drivers (test/arch.sh, test/cross/majors.sh), which
# run servers of several majors and architectures at once through
# test/pg_cluster.sh and scripts/chroot.sh, where the TAP framework cannot
# follow: checks counted in $passed and $failed, and psql for scripted
# checks (no psqlrc, stop on error, unaligned tuples only).
set -euo pipefail

BINDIR=$("${PG_CONFIG:-pg_config}" --bindir)
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
