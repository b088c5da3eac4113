#!/usr/bin/env bash
# Upgrades: CREATE EXTENSION bloomfilter VERSION '1.0', then ALTER EXTENSION
# bloomfilter UPDATE to the default version, must give what a fresh install
# of the default version gives.
#
#   test/cluster/upgrade.sh INSTDIR
#
# - A filter stored under 1.0 reads back the same after the update.
# - The upgraded extension's objects equal a fresh install's: every member
#   with its definition (signature, result, volatility, strictness, parallel
#   safety, support function, C symbol, operator and type properties,
#   aggregate support functions, operator class members), its dependencies
#   and its comment.
# - The whole pg_regress suite (every sql/*.sql but the install scripts)
#   passes against the upgraded database.
source "$(dirname "$0")/common.bash"
cluster_main upgrade "$@"
instdir=$1

control=$instdir$("$PG_CONFIG" --sharedir)/extension/bloomfilter.control
default_version=$(sed -nE "s/^default_version[[:space:]]*=[[:space:]]*'([^']*)'.*/\1/p" "$control")
echo "default version: $default_version"

# The settings pg_regress gives a database it creates itself.
for db in fresh upgraded; do
	"${PSQL[@]}" -c "CREATE DATABASE $db TEMPLATE template0"
	"${PSQL[@]}" -d "$db" <<SQL
ALTER DATABASE $db SET lc_messages TO 'C';
ALTER DATABASE $db SET lc_monetary TO 'C';
ALTER DATABASE $db SET lc_numeric TO 'C';
ALTER DATABASE $db SET lc_time TO 'C';
ALTER DATABASE $db SET bytea_output TO 'hex';
ALTER DATABASE $db SET timezone_abbreviations TO 'Default';
SQL
done

"${PSQL[@]}" -d fresh -c "CREATE EXTENSION bloomfilter"
got=$("${PSQL[@]}" -d upgraded <<'SQL'
CREATE EXTENSION bloomfilter VERSION '1.0';
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
CREATE TABLE kept AS
SELECT bloom_agg(i, 0.01, 1000) AS f, bloom_agg(i, 0.01, 1000)::text AS t
FROM generate_series(1, 1000) AS i;
ALTER EXTENSION bloomfilter UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
SELECT f::text = t, t::bloom = f, bloom_contains(f, 1000), bloom_contains(f, 1000::numeric)
FROM kept;
DROP TABLE kept;
SQL
) || true
check "1.0 installs, updates to $default_version, and a filter stored under 1.0 reads back the same" \
	"$(printf '1.0\n%s\nt|t|t|t' "$default_version")" "$got"

# One line per member, and per dependency and comment of a member: a
# description that names every property an install script sets.
describe_members() {
	"${PSQL[@]}" -d "$1" <<'SQL'
WITH members AS (
	SELECT d.classid, d.objid
	FROM pg_depend d JOIN pg_extension e ON d.refobjid = e.oid
	WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
		AND e.extname = 'bloomfilter'
)
SELECT pg_describe_object(m.classid, m.objid, 0) || ' :: ' || coalesce(
	(SELECT format('kind=%s result=%s args=(%s) lang=%s volatile=%s strict=%s parallel=%s leakproof=%s secdef=%s cost=%s rows=%s support=%s src=%s bin=%s variadic=%s config=%s',
		p.prokind, pg_get_function_result(p.oid), pg_get_function_arguments(p.oid),
		l.lanname, p.provolatile, p.proisstrict, p.proparallel, p.proleakproof,
		p.prosecdef, p.procost, p.prorows, p.prosupport::regprocedure, p.prosrc, p.probin,
		p.provariadic::regtype, p.proconfig)
	 FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
	 WHERE m.classid = 'pg_proc'::regclass AND p.oid = m.objid),
	(SELECT format('left=%s right=%s result=%s code=%s commutator=%s negator=%s restrict=%s join=%s hashes=%s merges=%s',
		o.oprleft::regtype, o.oprright::regtype, o.oprresult::regtype,
		o.oprcode::regprocedure, o.oprcom::regoperator, o.oprnegate::regoperator,
		o.oprrest::regprocedure, o.oprjoin::regprocedure, o.oprcanhash, o.oprcanmerge)
	 FROM pg_operator o WHERE m.classid = 'pg_operator'::regclass AND o.oid = m.objid),
	(SELECT format('type=%s len=%s byval=%s category=%s input=%s output=%s receive=%s send=%s typmodin=%s typmodout=%s analyze=%s subscript=%s align=%s storage=%s array=%s elem=%s collation=%s default=%s',
		t.typtype, t.typlen, t.typbyval, t.typcategory, t.typinput::regprocedure,
		t.typoutput::regprocedure, t.typreceive::regprocedure, t.typsend::regprocedure,
		t.typmodin::regprocedure, t.typmodout::regprocedure, t.typanalyze::regprocedure,
		t.typsubscript::regprocedure, t.typalign, t.typstorage, t.typarray::regtype,
		t.typelem::regtype, t.typcollation, t.typdefault)
	 FROM pg_type t WHERE m.classid = 'pg_type'::regclass AND t.oid = m.objid),
	(SELECT format('opclass method=%s default=%s input=%s family=%s',
		am.amname, c.opcdefault, c.opcintype::regtype,
		pg_describe_object('pg_opfamily'::regclass, c.opcfamily, 0))
	 FROM pg_opclass c JOIN pg_am am ON am.oid = c.opcmethod
	 WHERE m.classid = 'pg_opclass'::regclass AND c.oid = m.objid),
	(SELECT 'cast ' || format('source=%s target=%s func=%s context=%s method=%s',
		c.castsource::regtype, c.casttarget::regtype, c.castfunc::regprocedure,
		c.castcontext, c.castmethod)
	 FROM pg_cast c WHERE m.classid = 'pg_cast'::regclass AND c.oid = m.objid),
	'') AS line
FROM members m
UNION ALL
SELECT 'aggregate ' || a.aggfnoid::regprocedure || format(' :: transfn=%s finalfn=%s combinefn=%s serialfn=%s deserialfn=%s mtransfn=%s finalextra=%s finalmodify=%s sortop=%s stype=%s sspace=%s initval=%s parallel=%s',
		a.aggtransfn::regprocedure, a.aggfinalfn::regprocedure,
		a.aggcombinefn::regprocedure, a.aggserialfn::regprocedure,
		a.aggdeserialfn::regprocedure, a.aggmtransfn::regprocedure,
		a.aggfinalextra, a.aggfinalmodify, a.aggsortop::regoperator,
		a.aggtranstype::regtype, a.aggtransspace, a.agginitval, p.proparallel)
FROM members m JOIN pg_aggregate a ON m.classid = 'pg_proc'::regclass AND a.aggfnoid = m.objid
JOIN pg_proc p ON p.oid = a.aggfnoid
UNION ALL
SELECT pg_describe_object(m.classid, m.objid, 0) || ' depends (' || d.deptype::text || ') on '
	|| pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid)
FROM members m JOIN pg_depend d ON d.classid = m.classid AND d.objid = m.objid
WHERE d.deptype <> 'e'
UNION ALL
SELECT pg_describe_object(m.classid, m.objid, 0) || ' comment: ' || coalesce(
	(SELECT description FROM pg_description c
	 WHERE c.classoid = m.classid AND c.objoid = m.objid AND c.objsubid = 0), '(none)')
FROM members m
UNION ALL
SELECT 'access method member: ' || pg_describe_object('pg_amop'::regclass, ao.oid, 0)
FROM members m JOIN pg_amop ao ON m.classid = 'pg_opfamily'::regclass AND ao.amopfamily = m.objid
UNION ALL
SELECT 'access method member: ' || pg_describe_object('pg_amproc'::regclass, ap.oid, 0)
FROM members m JOIN pg_amproc ap ON m.classid = 'pg_opfamily'::regclass AND ap.amprocfamily = m.objid
UNION ALL
SELECT 'extension: relocatable=' || extrelocatable || ' version=' || extversion
	|| ' schema=' || extnamespace::regnamespace
FROM pg_extension WHERE extname = 'bloomfilter'
ORDER BY 1;
SQL
}

work=$(mktemp -d /tmp/bloomfilter-upgrade.XXXXXX)
chmod 777 "$work"
trap 'rm -rf "$work"' EXIT
describe_members fresh >"$work/fresh.txt"
describe_members upgraded >"$work/upgraded.txt"
members=$(grep -c ' :: ' "$work/fresh.txt" || true)
echo "fresh install: $members members, $(wc -l <"$work/fresh.txt") description lines"
if [ "$members" -gt 40 ] && diff -u "$work/fresh.txt" "$work/upgraded.txt"; then
	pass "the upgraded extension's objects equal a fresh install of $default_version"
else
	fail "the upgraded extension differs from a fresh install of $default_version (diff above)"
fi

# The pg_regress suite, as "make installcheck" runs it, on the upgraded database.
tests=$(cd "$BLOOM_ROOT/sql" && ls ./*.sql | sed -e 's|^\./||' -e 's|\.sql$||' | grep -v '^bloomfilter--' | sort)
status=0
"$("$PG_CONFIG" --pkglibdir)/pgxs/src/test/regress/pg_regress" \
	--inputdir="$BLOOM_ROOT" --outputdir="$work" --bindir="$BINDIR" \
	--use-existing --dbname=upgraded $tests >"$work/regress.log" 2>&1 || status=$?
cat "$work/regress.log"
ntests=$(wc -w <<<"$tests")
nfailed=$(grep -cE '^(not ok|test .*\.\.\. FAILED| *[a-z_0-9]+ +\.\.\. FAILED)' "$work/regress.log" || true)
if [ "$status" -eq 0 ] && grep -q "All $ntests tests passed" "$work/regress.log"; then
	passed=$((passed + ntests))
else
	[ "$nfailed" -gt 0 ] || nfailed=1
	failed=$((failed + nfailed))
	passed=$((passed + ntests - nfailed))
	[ -s "$work/regression.diffs" ] && head -n 200 "$work/regression.diffs"
	echo "FAIL: pg_regress on the upgraded database (exit $status)"
fi

cluster_done
