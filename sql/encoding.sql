-- Text hashed as UTF-8 whoever is connected (encoding/encoding.c, "Text").
-- This database is UTF8; t/006_encodings.pl covers databases of
-- other encodings.  Non-ASCII values are spelled as UTF-8 bytes, so the
-- file reads the same under any client encoding.
CREATE TEMP TABLE words AS
SELECT * FROM (VALUES
	(1, 'abc'),
	(2, convert_from('\x636166c3a9', 'UTF8')),	-- café
	(3, convert_from('\xe38182', 'UTF8'))		-- あ
) AS w(id, t);
CREATE TYPE mood AS ENUM ('abc', 'café');

-- Golden vectors.  ASCII text alone: no flag, the very filter 1.1 built.
-- Non-ASCII text: the same bits as 1.1 built here, and the flag (f1) that
-- tells databases of other encodings to read the filter's text as UTF-8.
SELECT bloom_agg(t, 0.01, 10) FROM words WHERE id = 1;
SELECT bloom_agg(t, 0.01, 10) FROM words WHERE id IN (1, 2);
SELECT bloom_agg(ARRAY[t], 0.01, 10) FROM words WHERE id = 2;

-- Only values that can carry text set the flag: not integers, bytea, uuid,
-- inet or an int4[] whose bytes are not ASCII, nor ASCII text in any type.
SELECT 'int8 -1' AS value, bloom_agg(-1::int8, 0.01, 10) AS filter
UNION ALL SELECT 'bytea \xff', bloom_agg('\xff'::bytea, 0.01, 10)
UNION ALL SELECT 'inet 192.168.0.1', bloom_agg('192.168.0.1'::inet, 0.01, 10)
UNION ALL SELECT 'int4[] {200,-1}', bloom_agg('{200,-1}'::int4[], 0.01, 10)
UNION ALL SELECT 'interval 1 day', bloom_agg('1 day'::interval, 0.01, 10)
UNION ALL SELECT 'json "abc"', bloom_agg('"abc"'::json, 0.01, 10)
UNION ALL SELECT 'text[] {abc}', bloom_agg('{abc}'::text[], 0.01, 10);
SELECT v AS value, split_part(f::text, ':', 6) = 'f1' AS flagged
FROM (SELECT 'text', bloom_agg(t, 0.01, 10) FROM words WHERE id = 3
	UNION ALL SELECT 'varchar', bloom_agg(t::varchar, 0.01, 10) FROM words WHERE id = 3
	UNION ALL SELECT 'bpchar', bloom_agg(t::char(4), 0.01, 10) FROM words WHERE id = 3
	UNION ALL SELECT 'name', bloom_agg(t::name, 0.01, 10) FROM words WHERE id = 3
	UNION ALL SELECT 'json', bloom_agg(to_json(t), 0.01, 10) FROM words WHERE id = 3
	UNION ALL SELECT 'jsonb', bloom_agg(to_jsonb(t), 0.01, 10) FROM words WHERE id = 3
	UNION ALL SELECT 'enum', bloom_agg(t::mood, 0.01, 10) FROM words WHERE id = 2
	UNION ALL SELECT 'record', bloom_agg(ROW(t, 1), 0.01, 10) FROM words WHERE id = 3
	UNION ALL SELECT 'self-sized text', bloom_agg(t) FROM words WHERE id = 3
	UNION ALL SELECT 'self-sized int8', bloom_agg(id::int8) FROM words
	UNION ALL SELECT 'bloom_add text', bloom_add(bloom_empty(0.01, 10), t) FROM words WHERE id = 3
	UNION ALL SELECT 'bloom_add ascii', bloom_add(bloom_empty(0.01, 10), t) FROM words WHERE id = 1
) AS c(v, f) ORDER BY v;

-- The same bits whatever the client encoding: filters of send-encoded
-- values built under UTF8 are found, and rebuilt identically, under others.
CREATE TEMP TABLE built AS
SELECT bloom_agg(ARRAY[t], 0.01, 100) AS arrays, bloom_agg(to_json(t), 0.01, 100) AS json,
	bloom_agg(to_jsonb(t), 0.01, 100) AS jsonb, bloom_agg(ROW(t, id), 0.01, 100) AS records
FROM words;
SET client_encoding = 'LATIN1';
SELECT bool_and(bloom_contains(arrays, ARRAY[t]) AND bloom_contains(json, to_json(t)) AND
		bloom_contains(jsonb, to_jsonb(t)) AND bloom_contains(records, ROW(t, id))) AS found_under_latin1
FROM built, words WHERE id <> 3;
SELECT (SELECT arrays FROM built) = (SELECT bloom_agg(ARRAY[t], 0.01, 100) FROM words) AS same_as_utf8;
SET client_encoding = 'SJIS';
SELECT bool_and(bloom_contains(arrays, ARRAY[t]) AND bloom_contains(json, to_json(t)) AND
		bloom_contains(jsonb, to_jsonb(t)) AND bloom_contains(records, ROW(t, id))) AS found_under_sjis
FROM built, words WHERE id <> 2;
SELECT (SELECT arrays FROM built) = (SELECT bloom_agg(ARRAY[t], 0.01, 100) FROM words) AS same_as_utf8;
RESET client_encoding;

-- The flag travels: bloom_empty_like and bloom_agg_like copy it, unions
-- and intersections keep it (in a UTF8 database both readings agree).
SELECT bloom_empty_like(bloom_agg(t, 0.01, 10)) FROM words;
SELECT bloom_agg_like(id::int8, (SELECT bloom_agg(t, 0.01, 10) FROM words)) FROM words;
SELECT a | b AS "union", a & b AS intersection, bloom_union(a, b) = a | b AS same
FROM (SELECT bloom_agg(t, 0.01, 10) FILTER (WHERE id = 1) AS a,
		bloom_agg(t, 0.01, 10) FILTER (WHERE id = 2) AS b FROM words) AS s;
SELECT bloom_union_agg(f) FROM (SELECT bloom_agg(t, 0.01, 10) AS f FROM words GROUP BY id) AS s;

-- The text form: a flags segment only when flags are set, flag 1 only.
SELECT 'bloom:v1:h1:m18:k3:f1:AAAAAAAAAAA='::bloom;
SELECT 'bloom:v1:h1:m18:k3:f0:AAAAAAAAAAA='::bloom;
SELECT 'bloom:v1:h1:m18:k3:f2:AAAAAAAAAAA='::bloom;
SELECT bloom_recv_roundtrip
FROM (SELECT bloom_send('bloom:v1:h1:m18:k3:f1:AAAAAAAAAAA=') AS bloom_recv_roundtrip) AS s;
DROP TYPE mood;
