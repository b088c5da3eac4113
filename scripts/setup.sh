#!/usr/bin/env bash
# Install, with apt-get, whatever of the build and test dependencies is missing.
#
#   scripts/setup.sh [extra-package...]
#
# Checks the Debian packages the build, the unit tests and the throwaway test
# clusters need, plus any named on the command line (bench/ asks for
# postgresql-15-hll, make plots for gnuplot-nox; make test needs neither),
# and installs only those not installed yet; apt-get update runs only when
# something is missing.  Not root: sudo when there is one, else fail with the
# exact command to run.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# gcc, make and libc6-dev are what build-essential would bring that we use;
# postgresql-server-dev-15 brings clang-14 and llvm for the JIT bitcode.
# libipc-run-perl is what PostgreSQL's TAP framework (t/*.pl) runs programs
# with; the framework itself comes with postgresql-server-dev-15.
packages=(postgresql-15 postgresql-server-dev-15 libxxhash-dev gcc make libc6-dev libipc-run-perl)
# The Python client (clients/python) and its tests: Debian's Python with its
# headers and setuptools to build the extension, pip for "pip install
# ./clients/python", and the three drivers it registers the types with.
packages+=(python3-dev python3-setuptools python3-pip python3-psycopg python3-psycopg2 python3-asyncpg)
# The JavaScript client (clients/js): src/core compiled to WebAssembly by
# clang-14 and lld-14 against wasi-libc (with its compiler runtime), and
# Chromium for the test in a real browser; Node and npm for the TypeScript
# and its tests, Debian's unless a Node (with its own npm) is there already.
packages+=(clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32 chromium)
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
# test/unit.mk builds the sanitizer run with clang when there is one: bring
# it (clang-14 is there already, through postgresql-server-dev-15), and its
# sanitizer runtime, which clang does not pull in by itself.
if [ -f "$ROOT/test/unit.mk" ] && grep -Eq '(^|[^-[:alnum:]_])clang([^-[:alnum:]_]|$)' "$ROOT/test/unit.mk"; then
	packages+=(clang libclang-rt-dev)
fi
packages+=("$@")

installed() {
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]
}

missing=()
for p in "${packages[@]}"; do
	installed "$p" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: missing packages: ${missing[*]}"
install_cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" = 0 ]; then
	sudo=()
elif command -v sudo >/dev/null 2>&1; then
	sudo=(sudo)
else
	echo "setup: not root and no sudo; as root, run:" >&2
	echo "    $install_cmd" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"

for p in "${missing[@]}"; do
	installed "$p" || { echo "setup: $p is still not installed; run: $install_cmd" >&2; exit 1; }
done
