#!/usr/bin/env bash
# Upgrades: CREATE EXTENSION bloomfilter VERSION '1.0' (or '1.1'), then
# ALTER EXTENSION bloomfilter UPDATE to the default version, must give what a
# fresh install of the default version gives.
#
#   test/cluster/upgrade.sh INSTDIR
#
# - A filter stored under 1.0 reads back the same after the update.
# - Every earlier version updates to the default version, by the scripts in
#   order (1.0 -> 1.1 -> 1.2).
# - The extension updated from 1.0, and the one updated from 1.1, have the
#   objects of a fresh install: every member with its definition (signature,
#   result, volatility, strictness, parallel safety, support function, C
#   symbol, operator and type properties, aggregate support functions,
#   operator class members), its dependencies and its comment.
# - The whole pg_regress suite (every sql/*.sql but bloomfilter--*, setup first) passes
#   against the database updated from 1.0.
# - Stored rollups survive the upgrade: a daily filter that the 1.0 library
#   built with bloom_agg(x, 0.01, 10000000) (scheme 1, the classic m and k),
#   and the next day's, built after the update with bloom_agg_like in its
#   shape, union, and the union holds every value of both days.  The 1.0
#   library is built from this repository's history (the commit before the
#   1.0 -> 1.1 script was added) when it can be; otherwise the 1.0 filter is
#   built as 1.0 built it, with explicit m and k, by today's library.
source "$(dirname "$0")/common.bash"
cluster_main upgrade "$@"
instdir=$1

control=$instdir$("$PG_CONFIG" --sharedir)/extension/bloomfilter.control
default_version=$(sed -nE "s/^default_version[[:space:]]*=[[:space:]]*'([^']*)'.*/\1/p" "$control")
echo "default version: $default_version"

# The settings pg_regress gives a database it creates itself.
for db in fresh upgraded from11; do
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

got=$("${PSQL[@]}" -d from11 <<'SQL'
CREATE EXTENSION bloomfilter VERSION '1.1';
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
ALTER EXTENSION bloomfilter UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
SQL
) || true
check "1.1 installs and updates to $default_version" "$(printf '1.1\n%s' "$default_version")" "$got"

got=$("${PSQL[@]}" -d fresh -c "SELECT source || ': ' || path FROM pg_extension_update_paths('bloomfilter')
	WHERE target = '$default_version' AND path IS NOT NULL ORDER BY source") || true
check "every earlier version updates to $default_version through each script in turn" \
	"$(printf '1.0: 1.0--1.1--1.2--1.3\n1.1: 1.1--1.2--1.3\n1.2: 1.2--1.3')" "$got"

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
members=$(grep -c ' :: ' "$work/fresh.txt" || true)
echo "fresh install: $members members, $(wc -l <"$work/fresh.txt") description lines"
for db in upgraded from11; do
	describe_members "$db" >"$work/$db.txt"
	if [ "$members" -gt 40 ] && diff -u "$work/fresh.txt" "$work/$db.txt"; then
		pass "the extension updated in database $db has the objects of a fresh install of $default_version"
	else
		fail "the extension updated in database $db differs from a fresh install of $default_version (diff above)"
	fi
done

# The pg_regress suite, as "make installcheck" runs it (setup, which defines
# the helpers the others use, then the rest), on the upgraded database.
tests="setup $(cd "$BLOOM_ROOT/sql" && ls ./*.sql | grep -v "bloomfilter--" | sed -e 's|^\./||' -e 's|\.sql$||' | grep -vx setup | sort)"
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

# ---- Users' objects across the update ----
#
# 1.3 replaces bloom_union_agg and bloom_intersection_agg (their transition
# state becomes a value, so that Citus can split them) and adds overloads of
# bloom_agg.  A database owner who is not a superuser (the extension is
# trusted) installs 1.0, 1.1 or 1.2, builds views, a materialized view and
# SQL functions on the aggregates of that version, and updates without
# CASCADE: the update must succeed, every object answer bit for bit as
# before (for the set operations, the old internal-state path before and
# the new one after), REFRESH give the same, and pg_dump / pg_restore of
# the database keep it all.
"${PSQL[@]}" -c "CREATE ROLE app_owner LOGIN"
owner_psql=("${PSQL[@]}" -U app_owner)
objects_sql() {
	local version=$1
	cat <<'SQL'
CREATE TABLE ev AS SELECT x, x % 5 AS g, 'k' || x AS t FROM generate_series(1, 20000) AS x;
CREATE TABLE fs AS SELECT g, bloom_agg(x, 0.01, 10000) AS f FROM ev GROUP BY g;
CREATE VIEW v_fixed AS SELECT g, bloom_agg(x, 0.01, 10000) AS f FROM ev GROUP BY g;
CREATE VIEW v_fixed_text AS SELECT 0 AS g, bloom_agg(t, 0.001, 3000000) AS f FROM ev;
CREATE VIEW v_union AS SELECT 0 AS g, bloom_union_agg(f) AS f FROM fs;
CREATE VIEW v_intersection AS SELECT 0 AS g, bloom_intersection_agg(f) AS f FROM fs;
CREATE VIEW v_window AS
	SELECT x AS g, bloom_agg(x, 0.01, 100) OVER (ORDER BY x) AS f FROM ev WHERE x <= 20;
CREATE MATERIALIZED VIEW mv_fixed AS SELECT g, bloom_agg(x, 0.01, 10000) AS f FROM ev GROUP BY g;
CREATE FUNCTION fn_fixed(lo int) RETURNS bloom LANGUAGE sql STABLE
	BEGIN ATOMIC SELECT bloom_agg(x, 0.01, 10000) FROM ev WHERE x >= lo; END;
CREATE FUNCTION fn_union() RETURNS bloom LANGUAGE sql STABLE
	RETURN (SELECT bloom_union_agg(f) FROM fs);
CREATE VIEW v_fn AS SELECT 0 AS g, fn_fixed(100) AS f UNION ALL SELECT 1, fn_union();
SQL
	if [ "$version" != 1.0 ]; then
		cat <<'SQL'
CREATE VIEW v_auto AS SELECT g, bloom_agg(x) AS f FROM ev GROUP BY g;
CREATE VIEW v_auto_rate AS SELECT 0 AS g, bloom_agg(t, 0.02) AS f FROM ev;
CREATE MATERIALIZED VIEW mv_auto AS SELECT g, bloom_agg(x, 0.05) AS f FROM ev GROUP BY g;
CREATE FUNCTION fn_auto() RETURNS bloom LANGUAGE sql STABLE
	BEGIN ATOMIC SELECT bloom_agg(x) FROM ev; END;
CREATE VIEW v_fn_auto AS SELECT 0 AS g, fn_auto() AS f;
SQL
	fi
	if [ "$version" = 1.2 ]; then
		cat <<'SQL'
CREATE VIEW v_like AS SELECT 0 AS g, bloom_agg_like(x, (SELECT f FROM fs WHERE g = 0)) AS f FROM ev;
SQL
	fi
}
# One line per view and materialized view of database $1: its name and the
# md5 of its filters' text forms, in the order of g.
snapshot() {
	local rel
	for rel in $("${owner_psql[@]}" -d "$1" -c "SELECT relname FROM pg_class
		WHERE relnamespace = 'public'::regnamespace AND relkind IN ('v', 'm') ORDER BY 1"); do
		echo "$rel $("${owner_psql[@]}" -d "$1" -c "SELECT md5(string_agg(f::text, ',' ORDER BY g)) FROM $rel" 2>&1)"
	done
}
declare -A expected_objects=([1.0]=7 [1.1]=11 [1.2]=12)
for version in 1.0 1.1 1.2; do
	db=objects_${version/./_}
	"${PSQL[@]}" -c "CREATE DATABASE $db OWNER app_owner TEMPLATE template0"
	"${PSQL[@]}" -d "$db" -c "ALTER SCHEMA public OWNER TO app_owner"
	created=$("${owner_psql[@]}" -d "$db" 2>&1 <<SQL
SELECT rolsuper FROM pg_roles WHERE rolname = current_user;
CREATE EXTENSION bloomfilter VERSION '$version';
$(objects_sql "$version")
SQL
	) || true
	check "a database owner who is not a superuser creates the extension at $version and objects on its aggregates" \
		f "$created"
	before=$(snapshot "$db")
	nobjects=$(grep -cE '^[a-z_]+ [0-9a-f]{32}$' <<<"$before" || true)
	echo "$version's objects before the update:" $before
	check "$version: every view and materialized view answers" "${expected_objects[$version]}" "$nobjects"
	updated=$("${owner_psql[@]}" -d "$db" -c "ALTER EXTENSION bloomfilter UPDATE" 2>&1) && updated=ok
	check "the owner updates the extension from $version without CASCADE" ok "$updated"
	check "the $nobjects views and materialized views on $version's aggregates answer the same after ALTER EXTENSION UPDATE" \
		"$before" "$(snapshot "$db")"
	got=$("${owner_psql[@]}" -d "$db" 2>&1 <<SQL
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
SELECT string_agg(a.aggfnoid::regprocedure || ' ' || a.aggtranstype::regtype, ', '
	ORDER BY a.aggfnoid::regprocedure::text)
FROM pg_aggregate AS a
WHERE a.aggfnoid IN ('bloom_union_agg(bloom)'::regprocedure, 'bloom_intersection_agg(bloom)'::regprocedure);
REFRESH MATERIALIZED VIEW mv_fixed;
SQL
	) || true
	check "the database updated from $version is at $default_version, bloom_union_agg and bloom_intersection_agg (which its views use) have states of type bloom, and REFRESH works" \
		"$(printf '%s\nbloom_intersection_agg(bloom) bloom, bloom_union_agg(bloom) bloom' "$default_version")" "$got"
	check "after REFRESH MATERIALIZED VIEW the objects from $version answer the same" \
		"$before" "$(snapshot "$db")"
	"$BINDIR/pg_dump" -h "$PGHOST" -p "$PGPORT" -U postgres -Fc -f "$work/$db.dump" "$db"
	"${PSQL[@]}" -c "CREATE DATABASE ${db}_restored OWNER app_owner TEMPLATE template0"
	restore_log=$("$BINDIR/pg_restore" -h "$PGHOST" -p "$PGPORT" -U postgres -d "${db}_restored" \
		--exit-on-error "$work/$db.dump" 2>&1) && restored=ok || restored="failed: $restore_log"
	check "pg_dump / pg_restore of the database updated from $version succeeds" ok "$restored"
	check "after pg_restore the objects from $version answer the same" "$before" "$(snapshot "${db}_restored")"
done

# ---- Stored rollups across the upgrade ----
#
# Day 1 (visitors 1..100000) is built by the 1.0 library with
# bloom_agg(x, 0.01, 10000000), as is the filter 1.0 would give both days
# (visitors 1..150000).  Then the library is replaced by this one and the
# extension updated: the same call now gives a blocked filter (scheme 2),
# which does not combine with day 1; bloom_agg_like(x, day 1) gives day 2
# (visitors 50001..150000) in day 1's shape, and the rollup is the filter 1.0
# would have built.
"${PSQL[@]}" -c "CREATE DATABASE rollup TEMPLATE template0"
# The 1.0 library: the parent of the commit that added the 1.0 -> 1.1 script.
old_inst=""
old_why=""
git_root=(git -c safe.directory='*' -C "$BLOOM_ROOT")
if ! added=$("${git_root[@]}" log --diff-filter=A --format=%H -- sql/bloomfilter--1.0--1.1.sql 2>/dev/null | tail -n 1) ||
	[ -z "$added" ] || ! "${git_root[@]}" cat-file -e "$added^" 2>/dev/null; then
	old_why="the repository's history is not here"
else
	mkdir -p "$work/old/src" "$work/old/build"
	mk_old=(make -C "$work/old/build" -f "$work/old/src/Makefile" VPATH="$work/old/src" PG_CONFIG="$PG_CONFIG")
	if "${git_root[@]}" archive "$added^" | tar -x -C "$work/old/src" &&
		"${mk_old[@]}" -j2 >"$work/old/build.log" 2>&1 &&
		"${mk_old[@]}" install DESTDIR="$work/old/inst" >>"$work/old/build.log" 2>&1; then
		old_inst=$work/old/inst
		chmod -R a+rX "$work/old"
		echo "1.0 library: built from commit $("${git_root[@]}" rev-parse --short "$added^")"
	else
		tail -n 20 "$work/old/build.log"
		old_why="the 1.0 sources of commit ${added:0:7}^ do not build here"
	fi
fi

day1_sql="
CREATE EXTENSION bloomfilter VERSION '1.0';
CREATE TABLE daily (day date PRIMARY KEY, f bloom NOT NULL);
CREATE TABLE expected (f bloom NOT NULL);"
if [ -n "$old_inst" ]; then
	"$BLOOM_PG_CTL" stop >/dev/null
	"$BLOOM_PG_CTL" -o "-c extension_destdir='$old_inst'" start >/dev/null
	got=$("${PSQL[@]}" -d rollup <<SQL
$day1_sql
INSERT INTO daily SELECT '2026-01-01', bloom_agg(i, 0.01, 10000000) FROM generate_series(1, 100000) AS i;
INSERT INTO expected SELECT bloom_agg(i, 0.01, 10000000) FROM generate_series(1, 150000) AS i;
SELECT extversion, (bloom_info(f)).m, (bloom_info(f)).k, substr(f::text, 1, 12)
FROM daily, pg_extension WHERE extname = 'bloomfilter';
SQL
	) || true
	"$BLOOM_PG_CTL" stop >/dev/null
	"$BLOOM_PG_CTL" start >/dev/null
	how="the 1.0 library"
else
	echo "note: $old_why; day 1 is built as 1.0 built it (explicit m and k) by today's library"
	got=$("${PSQL[@]}" -d rollup <<SQL
$day1_sql
CREATE FUNCTION added(f bloom, lo int, hi int) RETURNS bloom LANGUAGE plpgsql AS \$\$
BEGIN
	FOR i IN lo..hi LOOP
		f := bloom_add(f, i);
	END LOOP;
	RETURN f;
END
\$\$;
INSERT INTO daily SELECT '2026-01-01', added(bloom_empty_mk(95850584, 7), 1, 300);
INSERT INTO expected SELECT added(bloom_empty_mk(95850584, 7), 1, 450);
SELECT extversion, (bloom_info(f)).m, (bloom_info(f)).k, substr(f::text, 1, 12)
FROM daily, pg_extension WHERE extname = 'bloomfilter';
SQL
	) || true
	how="today's library with explicit m and k"
fi
check "1.0's daily filter of bloom_agg(x, 0.01, 10000000), built by $how, is scheme 1 with the classic m and k" \
	"1.0|95850584|7|bloom:v1:h1:" "$got"
# the fallback's days are smaller: 1..300 and 151..450
last=150000 overlap=50001
[ -n "$old_inst" ] || last=450 overlap=151

got=$("${PSQL[@]}" -d rollup <<SQL
ALTER EXTENSION bloomfilter UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
-- the same call now builds a blocked filter, which does not combine with day 1
CREATE TABLE plain AS SELECT bloom_agg(i, 0.01, 10000000) AS f FROM generate_series($overlap, $last) AS i;
SELECT (bloom_info(f)).m, (bloom_info(f)).k, substr(f::text, 1, 12) FROM plain;
CREATE FUNCTION sqlstate_of(query text) RETURNS text LANGUAGE plpgsql AS \$\$
BEGIN
	EXECUTE query;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END
\$\$;
SELECT sqlstate_of('SELECT (SELECT f FROM daily) | (SELECT f FROM plain)');
SQL
) || true
check "after the update the same call builds a blocked filter, which does not combine with day 1" \
	"$(printf '%s\n98959360|6|bloom:v1:h2:\n22023' "$default_version")" "$got"

got=$("${PSQL[@]}" -d rollup <<SQL
INSERT INTO daily
SELECT '2026-01-02', bloom_agg_like(i, (SELECT f FROM daily WHERE day = '2026-01-01'))
FROM generate_series($overlap, $last) AS i;
CREATE TABLE rollup AS SELECT bloom_union_agg(f) AS f FROM daily;
SELECT count(*) AS days,
	bool_and((bloom_info(f)).m = 95850584 AND (bloom_info(f)).k = 7 AND f::text LIKE 'bloom:v1:h1:%')
FROM daily;
SELECT (SELECT count(*) FROM generate_series(1, $last) AS i WHERE NOT f @> i) AS false_negatives,
	f = (SELECT f FROM expected) AS what_one_filter_of_both_days_is,
	f = (SELECT a.f | b.f FROM daily AS a, daily AS b WHERE a.day = '2026-01-01' AND b.day = '2026-01-02')
		AS same_as_operator
FROM rollup;
-- and a filter kept up to date with bloom_add starts from bloom_empty_like
SELECT bloom_union(f, bloom_add(bloom_empty_like(f), $last + 1)) @> ($last + 1) FROM rollup;
SQL
) || true
check "day 2, built after the update by bloom_agg_like in day 1's shape, unions with day 1 into the filter 1.0 would build of both days, with every value" \
	"$(printf '2|t\n0|t|t\nt')" "$got"

cluster_done
