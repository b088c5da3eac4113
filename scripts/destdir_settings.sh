#!/usr/bin/env bash
# scripts/destdir_settings.sh DESTDIR: the server settings that load the
# extension from a "make install DESTDIR=..." tree, one "name=value" a line,
# for the server PG_CONFIG names (default: pg_config on the PATH).
#
# Up to 17, Debian's extension_destdir (its packages' patch: control files,
# scripts and $libdir modules are looked for under DESTDIR first); from 18
# on, PostgreSQL's own extension_control_path and dynamic_library_path
# (Debian's 18 packages dropped extension_destdir).  The one place that
# knows this: test/pg_cluster.sh, t/BloomTest.pm and bench/callgrind.sh
# read it from here.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DESTDIR" >&2; exit 2; }
destdir=$1
pg_config=${PG_CONFIG:-pg_config}
major=$("$pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
if [ "$major" -ge 18 ]; then
	# the control path names share directories; "extension" is appended
	echo "extension_control_path=$destdir$("$pg_config" --sharedir):\$system"
	echo "dynamic_library_path=$destdir$("$pg_config" --pkglibdir):\$libdir"
else
	echo "extension_destdir=$destdir"
	# extension_destdir serves $libdir paths only: a bare name (LOAD
	# 'bloomfilter', session_preload_libraries, as the docs write them) is
	# looked for on dynamic_library_path
	echo "dynamic_library_path=$destdir$("$pg_config" --pkglibdir):\$libdir"
fi
