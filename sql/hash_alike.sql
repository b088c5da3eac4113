--
-- Which types hash alike, checked against real hashing.  encoding/encoding.c's
-- table of types is the one place that says which groups of types have
-- equal canonical bytes for equal values (bloom_encoding_group); the
-- automatic prefilter asks it before it probes a filter of one type's
-- values with another type's.  Here every pair of types that PostgreSQL's
-- equalities join is taken from the catalogs (an equality operator between
-- two types, or an implicit cast to a type with an equality), and for each
-- pair:
--
--   - whether the prefilter relies on the pair: EXPLAIN of a join of a local
--     column of one type with a postgres_fdw column of the other shows a
--     filter built from the bare local column (bloom_agg(l.c_a, ...)) and
--     probed with the foreign one in the Remote SQL;
--   - whether equal values hash alike: sample values, read as one type and
--     cast to the other (1.0 and 1, -0, the integers' limits, NaN, trailing
--     spaces, infinities, ...), that the join's equality finds equal, each
--     found by bloom_contains in a filter of the other.
--
-- A pair the prefilter relies on must have equal samples, every one of them
-- found both ways; a pair it refuses may hash differently (timestamp and
-- timestamptz agree only where TimeZone is UTC, hence the zone below).  The
-- foreign table is never read: EXPLAIN plans without connecting.
--
SET client_min_messages = warning;
-- as pg_regress sets it; the zone matters, not which one
SET TimeZone = 'PST8PDT';
-- the library's _PG_init installs the planner hook: load it by a call
SELECT bloom_contains(bloom_agg(1, 0.01), 1) AS loaded;
SET bloomfilter.auto_prefilter = on;

-- The pairs: base types of pg_catalog with a binary send function (the
-- types bloom can encode), by their names, a before b.
CREATE TEMP TABLE hash_alike_pairs AS
WITH encodable AS (
	SELECT oid, typname FROM pg_type
	WHERE typtype = 'b' AND typsend <> 0 AND typnamespace = 'pg_catalog'::regnamespace
), equality AS (
	SELECT o.oid, o.oprleft, o.oprright FROM pg_operator o
	WHERE o.oprname = '=' AND (o.oprcanhash OR EXISTS (
		SELECT FROM pg_amop m JOIN pg_am am ON am.oid = m.amopmethod
		WHERE m.amopopr = o.oid AND am.amname = 'btree' AND m.amopstrategy = 3))
), joined AS (
	SELECT oprleft AS x, oprright AS y, 'operator' AS joined_by
	FROM equality WHERE oprleft <> oprright
	UNION
	SELECT c.castsource, c.casttarget, 'implicit cast'
	FROM pg_cast c
	WHERE c.castcontext = 'i' AND c.castsource <> c.casttarget AND EXISTS (
		SELECT FROM equality e WHERE e.oprleft = c.casttarget AND e.oprright = c.casttarget)
)
SELECT least(x.typname, y.typname) AS a, greatest(x.typname, y.typname) AS b,
	string_agg(DISTINCT joined_by, ', ') AS joined_by
FROM joined JOIN encodable x ON x.oid = joined.x JOIN encodable y ON y.oid = joined.y
GROUP BY 1, 2;

-- A local table and a foreign table with a column c_<type> of every type
-- of a pair.  The local table has a row and statistics; the foreign table
-- gets the row count ANALYZE would give it, without a server to ask.
CREATE EXTENSION postgres_fdw;
CREATE SERVER hash_alike_server FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (extensions 'bloomfilter');
CREATE USER MAPPING FOR CURRENT_USER SERVER hash_alike_server;
CREATE FUNCTION hash_alike_column(t name) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT 'c_' || t $$;
-- The type by its name, without a type modifier ("character" is char(1)).
CREATE FUNCTION hash_alike_type(t name) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT 'pg_catalog.' || quote_ident(t) $$;
DO $$
DECLARE
	columns text;
BEGIN
	SELECT string_agg(format('%I %s', hash_alike_column(t), hash_alike_type(t)), ', ' ORDER BY t)
	INTO columns
	FROM (SELECT a AS t FROM hash_alike_pairs UNION SELECT b FROM hash_alike_pairs) types;
	EXECUTE format('CREATE TABLE hash_alike_local (%s)', columns);
	EXECUTE format('CREATE FOREIGN TABLE hash_alike_remote (%s) SERVER hash_alike_server', columns);
END
$$;
INSERT INTO hash_alike_local DEFAULT VALUES;
ANALYZE hash_alike_local;
UPDATE pg_class SET reltuples = 1000 WHERE oid = 'hash_alike_remote'::regclass;

-- Whether the prefilter probes a filter of the local column's values (type
-- local_type) with the foreign column's (foreign_type); NULL when no
-- equality joins them.
CREATE FUNCTION hash_alike_prefiltered(local_type name, foreign_type name) RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	shipped bool := false;
	bare bool := false;
BEGIN
	FOR line IN EXECUTE format('EXPLAIN (VERBOSE, COSTS OFF) SELECT 1 FROM hash_alike_local l '
							   'JOIN hash_alike_remote f ON l.%I = f.%I',
							   hash_alike_column(local_type), hash_alike_column(foreign_type))
	LOOP
		shipped := shipped OR line ~ 'Remote SQL: .*bloom_contains\(';
		bare := bare OR line ~ ('bloom_agg\(\w+\.' || hash_alike_column(local_type) || ', ');
	END LOOP;
	RETURN shipped AND bare;
EXCEPTION WHEN undefined_function OR ambiguous_function THEN
	RETURN NULL;
END
$$;

-- The sample values, as text: each is read as one type of a pair and cast
-- to the other, where both succeed.
CREATE TEMP TABLE hash_alike_values (value text);
INSERT INTO hash_alike_values VALUES
	('0'), ('-0'), ('1'), ('1.0'), ('1.50'), ('-1'), ('42'), ('0.1'), ('16777217'),
	('32767'), ('-32768'), ('2147483647'), ('-2147483648'),
	('9223372036854775807'), ('-9223372036854775808'), ('1e20'), ('1e-5'),
	('NaN'), ('Infinity'), ('-Infinity'),
	(''), ('a'), ('abc'), ('abc  '), (' abc'), ('ABC'), ('é'), (repeat('long', 20)),
	('2020-02-29'), ('2020-02-29 00:00:00'), ('2020-02-29 12:34:56.789'),
	('1999-12-31 16:00:00'), ('infinity'), ('-infinity'), ('12:34:56');

-- For one pair: how many samples are equal by the equality that joins a and
-- b, and how many of those hash alike: found both ways (a's value in a
-- filter of b's, and b's in a filter of a's).  A sample that is no value of
-- a, or whose cast to b fails, is passed over; hashing never fails.
CREATE FUNCTION hash_alike_samples(a name, b name, OUT equal int, OUT alike int)
LANGUAGE plpgsql AS $$
DECLARE
	sample text;
	direction name[];
	values_of text;
	is_equal bool;
	first_found bool;
	second_found bool;
BEGIN
	equal := 0;
	alike := 0;
	FOR sample IN SELECT value FROM hash_alike_values LOOP
		FOREACH direction SLICE 1 IN ARRAY ARRAY[[a, b], [b, a]] LOOP
			values_of := format('FROM (SELECT $1::%s AS v) first, LATERAL (SELECT v::%s AS w) second',
								hash_alike_type(direction[1]), hash_alike_type(direction[2]));
			BEGIN
				EXECUTE 'SELECT v = w ' || values_of INTO is_equal USING sample;
			EXCEPTION WHEN OTHERS THEN
				CONTINUE;
			END;
			CONTINUE WHEN is_equal IS NOT TRUE;
			EXECUTE 'SELECT bloom_contains((SELECT bloom_agg(x, 0.01) FROM (VALUES (v)) s (x)), w), '
				'bloom_contains((SELECT bloom_agg(x, 0.01) FROM (VALUES (w)) s (x)), v) ' || values_of
				INTO first_found, second_found USING sample;
			equal := equal + 1;
			IF first_found AND second_found THEN
				alike := alike + 1;
			END IF;
		END LOOP;
	END LOOP;
END
$$;

CREATE TEMP TABLE hash_alike AS
SELECT p.a, p.b, p.joined_by,
	coalesce(f.a_a AND f.b_b, false) AS both_taken,
	CASE WHEN f.a_b AND f.b_a THEN 'both ways'
		 WHEN f.a_b THEN 'filter of ' || p.a
		 WHEN f.b_a THEN 'filter of ' || p.b
		 ELSE 'no' END AS prefilter,
	s.equal, s.alike
FROM hash_alike_pairs p,
	LATERAL (SELECT hash_alike_prefiltered(p.a, p.a) AS a_a, hash_alike_prefiltered(p.b, p.b) AS b_b,
				hash_alike_prefiltered(p.a, p.b) AS a_b, hash_alike_prefiltered(p.b, p.a) AS b_a) f,
	LATERAL hash_alike_samples(p.a, p.b) s;

-- The equality operators between two types: the same in every major.
SELECT count(*) AS operator_pairs FROM hash_alike WHERE joined_by LIKE '%operator%';

-- The pairs of two types the prefilter takes each on its own (a join of a
-- type with itself): those where the groups decide.  Pairs with a type it
-- never takes (interval, cidr, the reg* types, ...) are refused whatever
-- the groups say, and are checked below all the same.
SELECT a, b, joined_by, prefilter, equal, alike
FROM hash_alike WHERE both_taken
ORDER BY a, b;

-- The check: every pair the prefilter relies on has equal samples, and each
-- is found in a filter of the other type.  No rows.
SELECT a, b, joined_by, prefilter, equal, alike
FROM hash_alike
WHERE prefilter <> 'no' AND (equal = 0 OR alike < equal)
ORDER BY a, b;

DROP FOREIGN TABLE hash_alike_remote;
DROP TABLE hash_alike_local;
DROP USER MAPPING FOR CURRENT_USER SERVER hash_alike_server;
DROP SERVER hash_alike_server;
DROP EXTENSION postgres_fdw;
DROP FUNCTION hash_alike_prefiltered(name, name);
DROP FUNCTION hash_alike_samples(name, name);
DROP FUNCTION hash_alike_column(name);
DROP FUNCTION hash_alike_type(name);
