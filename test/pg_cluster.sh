#!/usr/bin/env bash
# Run a command against a throwaway PostgreSQL cluster, then destroy it.
#
#   test/pg_cluster.sh [-o name=value]... DESTDIR command [args...]
#
# The cluster lives in a fresh temporary directory and listens only on a Unix
# socket there, so any number of these can run at once (pg_virtualenv, run as
# root, always uses the one cluster 15/regress).  The extension is loaded from
# DESTDIR (a "make install DESTDIR=..." tree), so nothing is installed
# system-wide (scripts/destdir_settings.sh has the settings that do it).
#
# The command sees PGHOST, PGPORT, PGUSER, PGDATABASE, BLOOM_PG_LOG (the
# server log), BLOOM_PG_DATA (the data directory) and BLOOM_PG_CTL (pg_ctl
# for this cluster, to stop and restart it).  The run fails if the command
# fails or if any backend died of a signal (a crash restarts backends without
# stopping the postmaster, so the log is the reliable witness).
#
# With BLOOM_BASEBACKUP_FROM set (a libpq connection string), the cluster is
# a streaming standby of that server instead of a new one: its data
# directory comes from pg_basebackup -R, not initdb.
set -euo pipefail

opts=()
while [ "${1:-}" = "-o" ]; do opts+=(-c "$2"); shift 2; done
[ $# -ge 2 ] || { echo "usage: $0 [-o name=value]... DESTDIR command..." >&2; exit 2; }
destdir=$(cd "$1" && pwd); shift

bindir=$("${PG_CONFIG:-pg_config}" --bindir)
# the settings that load the extension from $destdir (scripts/destdir_settings.sh)
load_from=
while IFS= read -r setting; do
	load_from+=" -c ${setting%%=*}='${setting#*=}'"
done < <("$(dirname "${BASH_SOURCE[0]}")/../scripts/destdir_settings.sh" "$destdir")
work=$(mktemp -d /tmp/bloomfilter-pg.XXXXXX)
chmod 755 "$work"
as_owner=()
if [ "$(id -u)" = 0 ]; then
	chown postgres: "$work"
	as_owner=(runuser -u postgres --)
fi

cleanup() {
	"${as_owner[@]}" "$bindir/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

basebackup_from=${BLOOM_BASEBACKUP_FROM:-}
unset BLOOM_BASEBACKUP_FROM
if [ -n "$basebackup_from" ]; then
	"${as_owner[@]}" "$bindir/pg_basebackup" -d "$basebackup_from" -D "$work/data" -R \
		--checkpoint=fast --no-sync >"$work/initdb.log" 2>&1 \
		|| { cat "$work/initdb.log" >&2; exit 1; }
else
	"${as_owner[@]}" "$bindir/initdb" -D "$work/data" -A trust -U postgres \
		--no-sync -E UTF8 --locale=C.UTF-8 >"$work/initdb.log" 2>&1 \
		|| { cat "$work/initdb.log" >&2; exit 1; }
fi
# $work/pg_ctl: pg_ctl for this cluster, with its options, so that a command
# can stop and restart the server ("$BLOOM_PG_CTL" -m immediate stop, then
# "$BLOOM_PG_CTL" start).
{
	echo '#!/usr/bin/env bash'
	printf 'exec'
	printf ' %q' "${as_owner[@]}" "$bindir/pg_ctl" -D "$work/data" -l "$work/server.log" -w \
		-o "-c listen_addresses='' -c unix_socket_directories='$work' -c port=5432 \
		    -c fsync=off $load_from ${opts[*]:-}"
	echo ' "$@"'
} >"$work/pg_ctl"
chmod 755 "$work/pg_ctl"
"$work/pg_ctl" start >/dev/null

export PGHOST=$work PGPORT=5432 PGUSER=postgres PGDATABASE=postgres BLOOM_PG_LOG=$work/server.log \
	BLOOM_PG_CTL=$work/pg_ctl BLOOM_PG_DATA=$work/data
status=0
"$@" || status=$?

if grep -q "terminated by signal" "$work/server.log"; then
	echo "pg_cluster.sh: a backend crashed:" >&2
	grep -B2 -A2 "terminated by signal" "$work/server.log" >&2
	status=1
fi
if [ $status -ne 0 ]; then
	echo "pg_cluster.sh: command failed ($status); server log tail:" >&2
	tail -n 30 "$work/server.log" >&2
fi
exit $status
