#!/usr/bin/env bash
# Build the Python client out of tree and run its tests.
#
#   clients/python/run-tests.sh BUILD_DIR [TEST_MODULE...]
#
# Builds with Debian's /usr/bin/python3 (its headers, setuptools) into
# BUILD_DIR/python and runs clients/python/tests/run.py there: the golden
# vectors always, the server tests (values, sizing, drivers, estimates)
# when PGHOST names a server with bloomfilter available (make test's
# throwaway cluster, test/pg_cluster.sh).  Its last line is "python-client:
# N passed, M failed", which scripts/run.sh counts.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(mkdir -p "$1" && cd "$1" && pwd)
shift
python=${BLOOM_PYTHON:-/usr/bin/python3}
if ! (cd "$here" && "$python" setup.py -q build --build-base "$build/python-tmp" \
	--build-lib "$build/python") >"$build/python-build.log" 2>&1; then
	cat "$build/python-build.log"
	echo "python-client: 0 passed, 1 failed (the extension did not build)"
	exit 1
fi
if grep -E 'warning:|error:' "$build/python-build.log" | grep -v 'byte-compiling is disabled'; then
	echo "python-client: compiler warnings above"
	[ "${BLOOM_WERROR:-0}" = 1 ] && { echo "python-client: 0 passed, 1 failed (warnings)"; exit 1; }
fi
cd "$here/tests"
PYTHONPATH="$build/python" PYTHONDONTWRITEBYTECODE=1 exec "$python" run.py "$@"
