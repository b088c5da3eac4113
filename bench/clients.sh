#!/usr/bin/env bash
# bench/clients.sh: the client libraries' benchmarks (make bench, part "clients").
#
# Builds the Python client (clients/python, with Debian's /usr/bin/python3)
# into $BLOOM_BUILD/python (default build/python) and runs
# clients/python/bench.py against the server in PGHOST: add and contains per
# value beside Python's set, the parameter case (a 10,000,000-row table,
# bloom_contains($1, id) against id = ANY($1::int8[]), bytes and time) and
# the local probe.  BENCH_CLIENT_ROUNDS (5) rounds, medians.  Then the
# JavaScript client (clients/js, built in place): batch and single add and
# contains for int8 and 16-byte text beside npm's bloom-filters and a Set
# (clients/js/bench/bench.mjs, no server), medians of as many runs, and
# the parameter case through node-postgres (clients/js/bench/parameter.mjs).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
build=${BLOOM_BUILD:-$root/build}
python=${BLOOM_PYTHON:-/usr/bin/python3}
mkdir -p "$build"
if [ -d "$root/clients/python" ]; then
echo "client libraries (bench/clients.sh): Python $("$python" -c 'import sys; print(sys.version.split()[0])')"
(cd "$root/clients/python" && "$python" setup.py -q build --build-base "$build/python-tmp" \
	--build-lib "$build/python") >"$build/python-bench-build.log" 2>&1 \
	|| { cat "$build/python-bench-build.log"; exit 1; }
# -P: the source package next to bench.py is not the built one
PYTHONPATH="$build/python" "$python" -P "$root/clients/python/bench.py" --rounds "${BENCH_CLIENT_ROUNDS:-5}"
fi
if [ -d "$root/clients/js" ]; then
	echo
	make --no-print-directory -C "$root/clients/js" >"$build/js-bench-build.log" 2>&1 \
		|| { cat "$build/js-bench-build.log"; exit 1; }
	BENCH_JS_RUNS=${BENCH_CLIENT_ROUNDS:-5} node "$root/clients/js/bench/bench.mjs"
	echo
	BENCH_JS_RUNS=${BENCH_CLIENT_ROUNDS:-5} node "$root/clients/js/bench/parameter.mjs"
fi
