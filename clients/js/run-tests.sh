#!/usr/bin/env bash
# The JavaScript client's tests, as make test runs them (scripts/run.sh,
# kind "clients"): build clients/js, then node's own test runner over the
# tests that need no server (golden vectors, decoder fuzz, headless
# Chromium) and, when a server is given (PGHOST, as test/pg_cluster.sh sets
# it), those against it.  Ends with "js: N passed, M failed, K skipped".
#
#   clients/js/run-tests.sh [BUILD_DIR [TEST_FILE...]]
#
# The build stays in clients/js (build/, dist/, node_modules/, all ignored
# by git): node resolves the dev dependencies from the package's own
# node_modules, so BUILD_DIR is accepted for the common interface and not
# used.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
shift || true

if ! make --no-print-directory; then
	echo "js: 0 passed, 1 failed (the build failed)"
	exit 1
fi
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
	files=(test/offline.test.mjs test/fuzz.test.mjs test/browser.test.mjs)
	if [ -n "${PGHOST:-}" ]; then
		files+=(test/server.test.mjs)
	else
		echo "js: no server (PGHOST unset): the server tests (test/server.test.mjs) are skipped"
	fi
fi
log=$(mktemp /tmp/bloomfilter-js.XXXXXX)
trap 'rm -f "$log"' EXIT
status=0
node --test --test-reporter=tap "${files[@]}" 2>&1 | tee "$log" || status=$?
count() { grep -E "^# $1 [0-9]+$" "$log" | tail -n 1 | grep -Eo '[0-9]+' || echo 0; }
passed=$(count pass) failed=$(count fail) skipped=$(count skipped)
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
	failed=1
fi
[ -n "${PGHOST:-}" ] || skipped=$((skipped + 1))
echo "js: $passed passed, $failed failed, $skipped skipped"
exit "$status"
