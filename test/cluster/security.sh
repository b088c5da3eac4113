#!/usr/bin/env bash
# Install-script security and the trusted-extension set-up.
#
#   test/cluster/security.sh INSTDIR
#
# 1. The install and upgrade scripts (sql/bloomfilter--*.sql), comments and
#    string literals removed: no CREATE OR REPLACE, no SQL or PL function
#    bodies, and no unqualified name of one of PostgreSQL's own types or
#    functions that the scripts use.
# 2. CREATE EXTENSION (1.0 then ALTER EXTENSION UPDATE, and the default
#    version directly) into a schema full of look-alikes of those types and
#    functions, with more look-alikes in pg_temp: sql/security.sql must
#    give expected/security.out there (no member refers to anything but members
#    and pg_catalog), and a planted reference must be caught by it.
# 3. The extension is trusted: a non-superuser who owns a database can create,
#    update, use and drop it; one who does not cannot create it.
source "$(dirname "$0")/common.bash"
cluster_main security "$@"

# ---- 1. the scripts themselves ----

# Built-in names that must appear only as pg_catalog.<name>.
builtin='cstring|internal|anyelement|anyarray|anycompatible|anynonarray|bytea|bool|boolean|float4|float8|int2|int4|int8|integer|bigint|smallint|text|oid|regclass|regtype|void|record|numeric|double precision|eqsel|eqjoinsel|neqsel|neqjoinsel|scalarltsel|scalargtsel|areasel|contsel'
for script in "$BLOOM_ROOT"/sql/bloomfilter--*.sql; do
	name=$(basename "$script")
	# Drop /* */ comments, -- comments, string literals and the psql guard.
	code=$(perl -0777 -pe 's{/\*.*?\*/}{}gs; s{--[^\n]*}{}g; s{'"'"'(?:[^'"'"']|'"'"''"'"')*'"'"'}{'"''"'}g; s{^\\echo[^\n]*}{}mg' "$script")
	# An update script may replace an aggregate of the extension in place
	# (CREATE OR REPLACE AGGREGATE, which keeps the views that use it);
	# PostgreSQL refuses to let an extension script replace an object that
	# is not already a member of the extension.
	hits=$(grep -inE 'or[[:space:]]+replace' <<<"$code" || true)
	case $name in
	*--*--*) hits=$(grep -viE '^[0-9]+:create[[:space:]]+or[[:space:]]+replace[[:space:]]+aggregate[[:space:]]' <<<"$hits" || true) ;;
	esac
	check "$name: no CREATE OR REPLACE (but of an aggregate in an update script)" "" "$hits"
	hits=$(grep -inE 'language[[:space:]]+(sql|plpgsql|plperl|plpython3?u|pltcl)' <<<"$code" || true)
	check "$name: no SQL or PL function bodies" "" "$hits"
	hits=$(grep -inE "(^|[^[:alnum:]_.\"])($builtin)([^[:alnum:]_]|\$)" <<<"$code" || true)
	check "$name: PostgreSQL's own types and functions are pg_catalog-qualified" "" "$hits"
done

# ---- 2. installing under a hostile search_path ----

"${PSQL[@]}" -c "CREATE DATABASE hostile_db"

# pg_regress runs a test as: psql -X -a -q -d DB <sql/x.sql >results/x.out
run_security_sql() {
	local out
	out=$(mktemp)
	"$BINDIR/psql" -X -a -q -d "$1" <"$BLOOM_ROOT/sql/security.sql" >"$out" 2>&1 || true
	if diff -u "$BLOOM_ROOT/expected/security.out" "$out"; then
		pass "$2: sql/security.sql gives expected/security.out"
	else
		fail "$2: sql/security.sql differs from expected/security.out (diff above)"
	fi
	rm -f "$out"
}

# Look-alikes of everything the scripts use from pg_catalog, in the schema
# the extension goes into and in pg_temp.  One session, so that the temporary
# ones exist while the extension is created.
install_hostile() {
	"${PSQL[@]}" -d hostile_db <<SQL
DROP SCHEMA IF EXISTS hostile CASCADE;
CREATE SCHEMA hostile;
CREATE DOMAIN hostile.int8 AS pg_catalog.int2;
CREATE DOMAIN hostile.int4 AS pg_catalog.int2;
CREATE DOMAIN hostile.float8 AS pg_catalog.float4;
CREATE DOMAIN hostile.bool AS pg_catalog.int2;
CREATE DOMAIN hostile.bytea AS pg_catalog.text;
CREATE TYPE hostile.cstring;
CREATE TYPE hostile.internal;
CREATE TYPE hostile.anyelement;
-- Estimator look-alikes with the exact signatures (but the opposite
-- estimate: only C and internal functions can take internal).
CREATE FUNCTION hostile.eqsel(pg_catalog.internal, pg_catalog.oid, pg_catalog.internal, pg_catalog.int4)
	RETURNS pg_catalog.float8 LANGUAGE internal STABLE AS 'neqsel';
CREATE FUNCTION hostile.eqjoinsel(pg_catalog.internal, pg_catalog.oid, pg_catalog.internal, pg_catalog.int2, pg_catalog.internal)
	RETURNS pg_catalog.float8 LANGUAGE internal STABLE AS 'neqjoinsel';
CREATE FUNCTION hostile.neqsel(pg_catalog.internal, pg_catalog.oid, pg_catalog.internal, pg_catalog.int4)
	RETURNS pg_catalog.float8 LANGUAGE internal STABLE AS 'eqsel';
CREATE FUNCTION hostile.neqjoinsel(pg_catalog.internal, pg_catalog.oid, pg_catalog.internal, pg_catalog.int2, pg_catalog.internal)
	RETURNS pg_catalog.float8 LANGUAGE internal STABLE AS 'eqjoinsel';
CREATE DOMAIN pg_temp.int8 AS pg_catalog.int2;
CREATE DOMAIN pg_temp.float8 AS pg_catalog.float4;
CREATE DOMAIN pg_temp.bytea AS pg_catalog.text;
SET search_path = hostile, public;
$1
SQL
}

for how in "1.0 then update" "default version"; do
	"${PSQL[@]}" -d hostile_db -c "DROP EXTENSION IF EXISTS bloomfilter"
	if [ "$how" = "1.0 then update" ]; then
		install_hostile "CREATE EXTENSION bloomfilter VERSION '1.0'; ALTER EXTENSION bloomfilter UPDATE;"
	else
		install_hostile "CREATE EXTENSION bloomfilter;"
	fi
	check "$how: installed into the hostile schema" "hostile" \
		"$("${PSQL[@]}" -d hostile_db -c "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'bloomfilter'")"
	run_security_sql hostile_db "$how"
	# The operators work under the hostile path, and use the real estimators.
	got=$("${PSQL[@]}" -d hostile_db <<'SQL'
SET search_path = hostile, public;
CREATE TEMP TABLE t AS SELECT bloom_add(bloom_empty_mk(64, 2), i % 3) AS f FROM generate_series(1, 100) AS i;
ANALYZE t;
SELECT count(*) FROM t a JOIN t b ON a.f = b.f WHERE a.f <> bloom_empty_mk(64, 2);
SELECT count(*), bool_and(r.pronamespace = 'pg_catalog'::regnamespace AND j.pronamespace = 'pg_catalog'::regnamespace)
FROM pg_operator o JOIN pg_proc r ON r.oid = o.oprrest JOIN pg_proc j ON j.oid = o.oprjoin
WHERE o.oprname IN ('=', '<>') AND o.oprleft = 'bloom'::regtype;
-- dropped here: a backend drops its temporary tables after the client has
-- gone, and the next DROP EXTENSION must not race it
DROP TABLE t;
SQL
	)
	check "$how: filters work, with PostgreSQL's estimators" \
		"$(printf '3334\n2|t')" "$got"
done

# The check in sql/security.sql catches a planted reference to a look-alike.
got=$("${PSQL[@]}" -d hostile_db <<'SQL'
CREATE FUNCTION hostile.planted(hostile.int8) RETURNS pg_catalog.int4
	LANGUAGE internal IMMUTABLE AS 'int4abs';
ALTER EXTENSION bloomfilter ADD FUNCTION hostile.planted(hostile.int8);
SQL
)
out=$("$BINDIR/psql" -X -a -q -d hostile_db <"$BLOOM_ROOT/sql/security.sql" 2>&1 || true)
if grep -q 'function hostile.planted(hostile.int8) | type hostile.int8' <<<"$out"; then
	pass "sql/security.sql reports a member that refers to a look-alike type"
else
	fail "sql/security.sql missed a planted reference to hostile.int8"
fi

# ---- 3. trusted: a database owner who is not a superuser ----

"${PSQL[@]}" <<'SQL'
CREATE ROLE regress_bloom_owner LOGIN;
CREATE ROLE regress_bloom_other LOGIN;
CREATE DATABASE owned_db OWNER regress_bloom_owner;
SQL
check "the database owner is not a superuser" "f" \
	"$("${PSQL[@]}" -c "SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_bloom_owner'")"

got=$(PGUSER=regress_bloom_other "$BINDIR/psql" -X -q -At -d owned_db \
	-c "\\set VERBOSITY sqlstate" -c "CREATE EXTENSION bloomfilter" 2>&1 || true)
check "a role without CREATE on the database cannot create it" "ERROR:  42501" "$got"

got=$(PGUSER=regress_bloom_owner "${PSQL[@]}" -d owned_db <<'SQL'
CREATE EXTENSION bloomfilter VERSION '1.0';
ALTER EXTENSION bloomfilter UPDATE;
CREATE TABLE visits (day int, visitor int8);
INSERT INTO visits SELECT i % 7, i FROM generate_series(1, 70000) AS i;
CREATE TABLE daily AS SELECT day, bloom_agg(visitor, 0.01, 10000) AS f FROM visits GROUP BY day;
SELECT count(*) FROM visits v JOIN daily d USING (day) WHERE NOT bloom_contains(d.f, v.visitor);
SELECT bloom_contains(bloom_union_agg(f), 69999::int8) FROM daily;
SELECT (SELECT f FROM daily WHERE day = 1)::text::bloom = (SELECT f FROM daily WHERE day = 1);
SELECT abs(bloom_cardinality(f) - 10000) < 300 FROM daily WHERE day = 3;
SELECT extversion = (SELECT default_version FROM pg_available_extensions WHERE name = 'bloomfilter')
	OR NOT EXISTS (SELECT FROM pg_available_extensions WHERE name = 'bloomfilter')
FROM pg_extension WHERE extname = 'bloomfilter';
SELECT r.rolname FROM pg_extension e JOIN pg_roles r ON r.oid = e.extowner WHERE e.extname = 'bloomfilter';
SELECT DISTINCT r.rolname FROM pg_proc p JOIN pg_roles r ON r.oid = p.proowner WHERE p.proname LIKE 'bloom\_%';
DROP TABLE daily;
DROP EXTENSION bloomfilter;
CREATE EXTENSION bloomfilter;
SELECT bloom_contains(bloom_add(bloom_empty(0.01, 100), 'x'::text), 'x'::text);
SQL
) || true
expected=$(printf '%s\n' 0 t t t t regress_bloom_owner postgres t)
check "the owner (not a superuser) creates, updates, uses, drops and recreates it" "$expected" "$got"

cluster_done
