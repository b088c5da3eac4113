#!/usr/bin/env bash
# test/cluster/encodings.sh INSTDIR: a value added under one client encoding
# and database encoding is found under every other (bloom_encoding.c, "Text").
#
#   - Databases in UTF8, LATIN1, EUC_JP and SQL_ASCII; in each, every client
#     encoding of UTF8, LATIN1, WIN1252, EUC_JP and SJIS that PostgreSQL can
#     convert to (the others are listed as not convertible).
#   - Value types: text, varchar, bpchar, name, json, jsonb, xml, an enum,
#     text[], a record, a range over text, a domain over text, citext and
#     hstore; values ASCII, Latin (café, naïve) and Japanese (あい), each
#     where the database encoding can hold it.
#   - Under every (database, client) pair a filter of each type is built,
#     with a fixed capacity and self-sized; every other pair must find every
#     value both databases hold, and must not find a value never added.
#   - postgres_fdw between databases of different encodings: the plain join
#     and the prefiltered join return the same rows, both ways.
#   - Filters built before 1.2 in a LATIN1 or EUC_JP database (golden text
#     forms) answer there as they did; mixing them with new ones is an error.
#   - Golden vectors: the new text forms for the same values are the same in
#     every database.
#
# Environment (from scripts/run.sh): PG_CONFIG, BLOOM_ROOT.
source "$(dirname "$0")/common.bash"
cluster_main encodings "$@"

DATABASES="UTF8 LATIN1 EUC_JP SQL_ASCII"
CLIENTS="UTF8 LATIN1 WIN1252 EUC_JP SJIS"
work=$(mktemp -d /tmp/bloomfilter-encodings.XXXXXX)
chmod 777 "$work"
trap 'rm -rf "$work"' EXIT

dbname() { echo "enc_$(echo "$1" | tr 'A-Z' 'a-z')"; }

# The values, as UTF-8 bytes: converted into each database where they fit.
VALUES_SQL="VALUES (1, '\\x616263'::bytea), (2, '\\x636166c3a9'), (3, '\\x6e61c3af7665'),
	(4, '\\xe38182e38184'), (5, '\\x20e282ac20'), (6, '\\x4172726179')"
# Never added anywhere: must not be found.
ABSENT_UTF8='\x6e657665722d6164646564'

# The types, as expressions over the text column t.
TYPES=(
	"text|t"
	"varchar|t::varchar"
	"bpchar|t::char(16)"
	"name|t::name"
	"json|to_json(t)"
	"jsonb|to_jsonb(t)"
	"xml|xmlelement(name x, t)"
	"enum|t::mood"
	"text[]|ARRAY[t, 'x']"
	"record|ROW(t, 1)"
	"range|textrange(t, t, '[]')"
	"domain|t::dtext"
	"citext|t::citext"
	"hstore|hstore('k', t)"
)

for enc in $DATABASES; do
	db=$(dbname "$enc")
	"${PSQL[@]}" -d postgres -c "CREATE DATABASE $db TEMPLATE template0 ENCODING '$enc' LC_COLLATE 'C' LC_CTYPE 'C'"
	"${PSQL[@]}" -d "$db" <<SQL
CREATE EXTENSION bloomfilter;
CREATE EXTENSION citext;
CREATE EXTENSION hstore;
-- the values this database can hold
CREATE TABLE v (id int PRIMARY KEY, t text NOT NULL);
DO \$\$
DECLARE r record;
BEGIN
	FOR r IN $VALUES_SQL LOOP
		BEGIN
			INSERT INTO v VALUES (r.column1, convert_from(r.column2, 'UTF8'));
		EXCEPTION WHEN untranslatable_character OR character_not_in_repertoire THEN
			NULL;
		END;
	END LOOP;
	EXECUTE format('CREATE TYPE mood AS ENUM (%s, %L)',
				   (SELECT string_agg(quote_literal(t), ', ' ORDER BY id) FROM v),
				   convert_from('$ABSENT_UTF8', 'UTF8'));
END
\$\$;
CREATE TYPE textrange AS RANGE (subtype = text, collation = "C");
CREATE DOMAIN dtext AS text;
CREATE TABLE absent AS SELECT convert_from('$ABSENT_UTF8', 'UTF8') AS t;
SQL
done

# The (database, client) pairs PostgreSQL can convert between.
pairs=()
for enc in $DATABASES; do
	for client in $CLIENTS; do
		if "${PSQL[@]}" -d "$(dbname "$enc")" -c "SET client_encoding = '$client'" >/dev/null 2>&1; then
			pairs+=("$enc/$client")
		else
			echo "not convertible: database $enc, client $client"
		fi
	done
done
echo "pairs: ${pairs[*]}"
[ "${#pairs[@]}" -ge 12 ] || fail "too few convertible pairs: ${pairs[*]}"

# Build: one line per type and sizing, "pair<TAB>type<TAB>ids<TAB>filter".
for pair in "${pairs[@]}"; do
	enc=${pair%/*} client=${pair#*/}
	{
		echo "SET client_encoding = '$client';"
		for entry in "${TYPES[@]}"; do
			type=${entry%%|*} expr=${entry#*|}
			echo "SELECT '$pair', '$type/fixed', array_agg(id ORDER BY id)::text,
				bloom_agg($expr, 0.0001, 100)::text FROM v;"
			echo "SELECT '$pair', '$type/self-sized', array_agg(id ORDER BY id)::text,
				bloom_agg($expr)::text FROM v;"
		done
	} >"$work/build.sql"
	"${PSQL[@]}" -F $'\t' -d "$(dbname "$enc")" -f "$work/build.sql" >>"$work/filters.tsv"
done
echo "filters built: $(wc -l <"$work/filters.tsv")"

# Probe: under every pair, every filter finds every value it was built from
# that this database holds, and not the absent value.  One check per
# (builder pair, prober pair).
for pair in "${pairs[@]}"; do
	enc=${pair%/*} client=${pair#*/}
	{
		echo "SET client_encoding = '$client';"
		echo "CREATE TEMP TABLE f (builder text, kind text, ids int[], filter bloom);"
		echo "COPY f FROM STDIN;"
		cat "$work/filters.tsv"
		echo '\.'
		echo "CREATE TEMP TABLE r (builder text, kind text, found bool, absent_found bool);"
		# hstore's send function writes each string's length in the
		# database encoding before converting it (contrib's choice), so its
		# hashes agree across client encodings but across databases only
		# where the text has the same length in both: it is probed only by
		# databases of the builder's encoding (UTF8 and SQL_ASCII hold the
		# same bytes).
		echo "CREATE FUNCTION pg_temp.same_bytes(builder text) RETURNS bool LANGUAGE sql AS
			\$\$ SELECT replace(split_part(builder, '/', 1), 'SQL_ASCII', 'UTF8') = replace('$enc', 'SQL_ASCII', 'UTF8') \$\$;"
		for entry in "${TYPES[@]}"; do
			type=${entry%%|*} expr=${entry#*|}
			only=""
			[ "$type" = hstore ] && only="AND pg_temp.same_bytes(f.builder)"
			echo "INSERT INTO r SELECT f.builder, f.kind,
				bool_and(bloom_contains(f.filter, $expr)) FILTER (WHERE v.id = ANY (f.ids)),
				bloom_contains(f.filter, (SELECT $expr FROM absent))
				FROM f LEFT JOIN v ON true WHERE split_part(f.kind, '/', 1) = '$type' $only
				GROUP BY f.builder, f.kind, f.filter;"
		done
		echo "SELECT format('CHECK %s %s -> %s: %s filters%s', CASE WHEN count(*) = (${#TYPES[@]} - CASE WHEN pg_temp.same_bytes(builder) THEN 0 ELSE 1 END) * 2
				AND bool_and(coalesce(found, true)) AND NOT bool_or(absent_found) THEN 'pass' ELSE 'fail' END,
				builder, '$pair', count(*),
				coalesce(': missed in ' || string_agg(kind, ', ') FILTER (WHERE NOT found), '')
				|| coalesce('; absent value found in ' || string_agg(kind, ', ') FILTER (WHERE absent_found), ''))
			FROM r GROUP BY builder ORDER BY builder;"
	} >"$work/probe.sql"
	"${PSQL[@]}" -d "$(dbname "$enc")" -f "$work/probe.sql" >"$work/probe.out" 2>&1 ||
		fail "probing under $pair: $(cat "$work/probe.out")"
	check_lines "$work/probe.out"
done

# Golden vectors: the filter of text 'abc' and 'café' at (0.01, 10) is the
# same in every database, and is the one 1.1 built in a UTF8 database, with
# the flag; ASCII alone has no flag and is byte-identical to 1.1's.
golden_mixed='bloom:v1:h1:m96:k7:f1:AOgOAACglBIAAAAAAAAAAA=='
golden_ascii_utf8='bloom:v1:h1:m96:k7:AAAAAACglBIAAAAAAAAAAA=='
golden_array='bloom:v1:h1:m96:k7:f1:SkoAAAAAAAAAAABAAAAAAA=='
for enc in $DATABASES; do
	db=$(dbname "$enc")
	check "golden: text {abc, café} in $enc" "$golden_mixed" \
		"$("${PSQL[@]}" -d "$db" -c "SELECT bloom_agg(t, 0.01, 10) FROM v WHERE id IN (1, 2)")"
	case $enc in EUC_JP) client=SJIS ;; *) client=LATIN1 ;; esac
	check "golden: ARRAY[café] under client $client in $enc" "$golden_array" \
		"$("${PSQL[@]}" -d "$db" -c "SET client_encoding = '$client'" \
			-c "SELECT bloom_agg(ARRAY[t], 0.01, 10) FROM v WHERE id = 2")"
	ascii=$("${PSQL[@]}" -d "$db" -c "SELECT bloom_agg(t, 0.01, 10) FROM v WHERE id = 1")
	case $enc in
	UTF8 | SQL_ASCII) check "golden: text {abc} in $enc has no flag (as 1.1 built it)" "$golden_ascii_utf8" "$ascii" ;;
	*) check "golden: text {abc} in $enc has the flag" "bloom:v1:h1:m96:k7:f1:${golden_ascii_utf8#bloom:v1:h1:m96:k7:}" "$ascii" ;;
	esac
done

# Filters 1.1 built (golden text forms, made with commit 26a7fd0): in LATIN1,
# text {abc, café}; text[] {café} under client LATIN1; in EUC_JP, text[]
# {あい} under client EUC_JP.  They answer as they did.
legacy_latin1_text='bloom:v1:h1:m96:k7:CAQCQSCglBIAAAAQAAAAAA=='
legacy_latin1_array='bloom:v1:h1:m96:k7:AIAAAgACCAAQQABAAAAAAA=='
check "1.1's LATIN1 filters still find their values, under client LATIN1 and UTF8" "t|t|t|t" \
	"$("${PSQL[@]}" -d enc_latin1 -c "SELECT bloom_contains('$legacy_latin1_text', t), bloom_contains('$legacy_latin1_array', ARRAY[t])
		FROM v WHERE id = 2" -c "SET client_encoding = 'UTF8'" -c "SELECT bloom_contains('$legacy_latin1_text', t), bloom_contains('$legacy_latin1_array', ARRAY[t])
		FROM v WHERE id = 2" | paste -sd '|')"
new_eucjp_array=$("${PSQL[@]}" -d enc_euc_jp -c "SET client_encoding = 'EUC_JP'" \
	-c "SELECT bloom_agg(ARRAY[t], 0.01, 10) FROM v WHERE id = 4")
check "a new EUC_JP filter has the flag" "f1" "$(echo "$new_eucjp_array" | cut -d: -f6)"
legacy_eucjp_array='bloom:v1:h1:m96:k7:AAAEQAAEIAACEAABAAAAAA=='
check "1.1's EUC_JP filter of ARRAY[あ] still finds it" "t" \
	"$("${PSQL[@]}" -d enc_euc_jp -c "SELECT bloom_contains('$legacy_eucjp_array', ARRAY[convert_from('\\xe38182', 'UTF8')])")"
L=$legacy_latin1_text
check "bloom_empty_like and bloom_agg_like keep a 1.1 filter's reading" "t|t|t|t" \
	"$("${PSQL[@]}" -d enc_latin1 -c "SELECT (SELECT bloom_empty_like('$L') = bloom_agg_like(NULL::text, '$L')),
		bloom_contains(bloom_add(bloom_empty_like('$L'), t), t),
		bloom_contains('$L'::bloom | (SELECT bloom_agg_like(w.t, '$L') FROM v w WHERE w.id = 2), t),
		(SELECT bloom_agg_like(w.t, '$L') FROM v w WHERE w.id = 2) = bloom_add(bloom_empty_like('$L'), t)
		FROM v WHERE id = 2")"
out=$("${PSQL[@]}" -d enc_latin1 -c "SELECT '$legacy_latin1_text'::bloom | bloom_agg(t, 0.01, 10) FROM v" 2>&1 || true)
check "a 1.1 LATIN1 filter and a new one do not combine" \
	"ERROR:  operator |: the filters hash text differently" "$(echo "$out" | head -1)"
check "in a UTF8 database, flagged and unflagged filters combine" "$golden_mixed" \
	"$("${PSQL[@]}" -d enc_utf8 -c "SELECT '$golden_ascii_utf8'::bloom | bloom_agg(t, 0.01, 10) FROM v WHERE id = 2")"

# Parallel workers switch the client encoding for the send functions as the
# leader does: 2 workers and a serial plan build the same filters.
for pair in UTF8/SJIS LATIN1/UTF8 EUC_JP/EUC_JP; do
	enc=${pair%/*} client=${pair#*/}
	out=$("${PSQL[@]}" -d "$(dbname "$enc")" 2>&1 <<SQL
SET client_encoding = '$client';
CREATE TABLE many AS SELECT g, t FROM v, generate_series(1, 20000) g;
ANALYZE many;
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
-- as merged before 1.2, so that this small table is split between workers
ALTER FUNCTION bloom_autoagg_combinefn(internal, internal) COST 1;
ALTER FUNCTION bloom_autoagg_deserialfn(bytea, internal) COST 1;
ALTER FUNCTION bloom_autoagg_serialfn(internal) COST 1;
EXPLAIN (COSTS OFF) SELECT bloom_agg(ROW(t, g)) FROM many;
CREATE TEMP TABLE par AS SELECT bloom_agg(ARRAY[t, g::text], 0.01, 200000) AS fixed,
	bloom_agg(ROW(t, g)) AS self, bloom_agg(to_jsonb(t)) AS json FROM many;
EXPLAIN (COSTS OFF) SELECT bloom_agg(ARRAY[t, g::text], 0.01, 200000) FROM many;
SET max_parallel_workers_per_gather = 0;
SELECT format('%s|%s|%s', fixed = (SELECT bloom_agg(ARRAY[t, g::text], 0.01, 200000) FROM many),
	self = (SELECT bloom_agg(ROW(t, g)) FROM many), json = (SELECT bloom_agg(to_jsonb(t)) FROM many)) FROM par;
SQL
	)
	if [ "$(grep -c "Workers Planned: 2" <<<"$out")" = 2 ] && grep -q "Partial Aggregate" <<<"$out" &&
		[ "$(tail -1 <<<"$out")" = "t|t|t" ]; then
		pass "parallel = serial under $pair (2 workers): text[], record (self-sized), jsonb"
	else
		fail "parallel = serial under $pair: $out"
	fi
done

# postgres_fdw between databases of different encodings.
fdw_pair() {
	local local_db=$1 remote_db=$2 out ids
	# only values the local database can hold, or fetching them fails
	ids=$("${PSQL[@]}" -d "$local_db" -c "SELECT string_agg(id::text, ',') FROM v")
	"${PSQL[@]}" -d "$remote_db" -c "CREATE TABLE items_for_$local_db AS
		SELECT id, t, g FROM v, generate_series(1, 50) g WHERE id IN ($ids)"
	out=$("${PSQL[@]}" -d "$local_db" 2>&1 <<SQL
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
CREATE SERVER srv_$remote_db FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '$PGHOST', port '$PGPORT', dbname '$remote_db', extensions 'bloomfilter');
CREATE USER MAPPING FOR CURRENT_USER SERVER srv_$remote_db OPTIONS (user '$PGUSER');
CREATE FOREIGN TABLE items_$remote_db (id int, t text, g int) SERVER srv_$remote_db
	OPTIONS (table_name 'items_for_$local_db');
CREATE TEMP TABLE keys AS SELECT t FROM v WHERE id <> 1;
SELECT format('%s|%s|%s|%s',
	(SELECT count(*) FROM items_$remote_db r JOIN keys k ON r.t = k.t),
	(SELECT count(*) FROM items_$remote_db r JOIN keys k ON r.t = k.t
		WHERE bloom_contains((SELECT bloom_agg(t, 0.01, 100) FROM keys), r.t)),
	(SELECT count(*) FROM items_$remote_db r
		WHERE bloom_contains((SELECT bloom_agg(t, 0.01, 100) FROM keys), r.t)),
	(SELECT count(*) FROM items_$remote_db));
SQL
	)
	local plain prefiltered fetched total
	IFS='|' read -r plain prefiltered fetched total <<<"$(echo "$out" | tail -1)"
	if [ -n "$plain" ] && [ "$plain" -gt 0 ] 2>/dev/null && [ "$plain" = "$prefiltered" ] &&
		[ "$fetched" -ge "$plain" ] && [ "$fetched" -lt "$total" ]; then
		pass "postgres_fdw $local_db -> $remote_db: plain join $plain rows, prefiltered $prefiltered, remote rows passing the filter $fetched of $total"
	else
		fail "postgres_fdw $local_db -> $remote_db: $out"
	fi
}
fdw_pair enc_utf8 enc_latin1
fdw_pair enc_latin1 enc_utf8
fdw_pair enc_utf8 enc_euc_jp
fdw_pair enc_euc_jp enc_utf8

cluster_done
