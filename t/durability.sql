--
-- Filters for t/005_durability.pl, and the checks it runs on every
-- copy of them (after pg_dump/pg_restore, COPY in text and binary form).
--
-- Each filter is built from a recipe, so any copy can be compared with a
-- fresh recomputation: with =, with the md5 of bloom_send output, and by
-- asking it for every value it was built from.
--
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION bloomfilter;

-- m and k given: bloom_empty_mk(m, k) plus values 1..n one by one;
-- otherwise bloom_agg(value, p, capacity) over values 1..n.
CREATE TABLE recipe (
	name text PRIMARY KEY,
	kind text NOT NULL CHECK (kind IN ('int', 'text')),
	n int NOT NULL,
	p float8, capacity int8,
	m int8, k int);

INSERT INTO recipe VALUES
	('empty',        'int',        0, 0.01,  1000,    NULL, NULL),
	('empty-m18-k3', 'int',        0, NULL,  NULL,    18,   3),
	('m18-k3',       'int',        3, NULL,  NULL,    18,   3),
	('million',      'int',  1000000, 0.01,  1000000, NULL, NULL),
	('text-small',   'text',      50, 0.01,  100,     NULL, NULL),
	('text-large',   'text',   40000, 0.001, 50000,   NULL, NULL),
	('k1',           'int',      100, NULL,  NULL,    1000, 1),
	('k64',          'text',      20, NULL,  NULL,    5000, 64),
	('m1',           'int',        1, NULL,  NULL,    1,    1);

-- The i-th text value: not only ASCII.
CREATE FUNCTION member_text(i int) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT 'välue ' || i || ' ✓' $$;

CREATE FUNCTION build(r recipe) RETURNS bloom LANGUAGE plpgsql AS $$
DECLARE
	f bloom;
BEGIN
	IF r.m IS NULL AND r.kind = 'int' THEN
		SELECT bloom_agg(i, r.p, r.capacity) INTO f FROM generate_series(1, r.n) AS i;
	ELSIF r.m IS NULL THEN
		SELECT bloom_agg(member_text(i), r.p, r.capacity) INTO f FROM generate_series(1, r.n) AS i;
	ELSE
		f := bloom_empty_mk(r.m, r.k);
		FOR i IN 1..r.n LOOP
			f := CASE r.kind WHEN 'int' THEN bloom_add(f, i) ELSE bloom_add(f, member_text(i)) END;
		END LOOP;
	END IF;
	RETURN f;
END
$$;

CREATE FUNCTION members_contained(r recipe, f bloom) RETURNS bool
LANGUAGE sql AS $$
	SELECT coalesce(bool_and(CASE r.kind WHEN 'int' THEN bloom_contains(f, i)
		ELSE bloom_contains(f, member_text(i)) END), true)
	FROM generate_series(1, r.n) AS i
$$;

-- What is wrong with f as the filter of recipe r; NULL if nothing.
CREATE FUNCTION filter_problem(r recipe, f bloom) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	expected bloom := build(r);
	info record;
BEGIN
	IF f IS NULL THEN
		RETURN 'missing';
	END IF;
	SELECT * INTO info FROM bloom_info(f);
	IF info.m <> coalesce(r.m, info.m) OR info.k <> coalesce(r.k, info.k) THEN
		RETURN format('bloom_info gives m = %s, k = %s', info.m, info.k);
	END IF;
	IF f <> expected THEN
		RETURN 'differs (=) from its recomputation';
	END IF;
	IF md5(bloom_send(f)) <> md5(bloom_send(expected)) THEN
		RETURN 'bloom_send output differs from the recomputation''s';
	END IF;
	IF NOT members_contained(r, f) THEN
		RETURN 'does not contain every value it was built from';
	END IF;
	IF f::text::bloom <> f OR NOT bloom_contains(bloom_add(f, -1), -1) THEN
		RETURN 'text round trip or bloom_add fails';
	END IF;
	RETURN NULL;
EXCEPTION WHEN OTHERS THEN
	RETURN format('raised %s: %s', SQLSTATE, SQLERRM);
END
$$;

-- A named filter per recipe, a NULL, and many small filters.
CREATE TABLE filters (name text PRIMARY KEY, f bloom);
INSERT INTO filters SELECT r.name, build(r) FROM recipe AS r;
INSERT INTO filters VALUES ('null', NULL);
CREATE TABLE many (id int PRIMARY KEY, f bloom NOT NULL);
INSERT INTO many SELECT i, bloom_add(bloom_empty(0.01, 100), i) FROM generate_series(1, 2000) AS i;

-- One line per check: "CHECK pass|fail <label>: <what>".
CREATE FUNCTION check_copy(filters_table regclass, many_table regclass, label text)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	r recipe;
	f bloom;
	problem text;
	bad int;
	total int;
BEGIN
	FOR r IN SELECT * FROM recipe ORDER BY name LOOP
		EXECUTE format('SELECT f FROM %s WHERE name = $1', filters_table) INTO f USING r.name;
		problem := filter_problem(r, f);
		RETURN NEXT format('CHECK %s %s: filter %s%s', CASE WHEN problem IS NULL THEN 'pass' ELSE 'fail' END,
			label, r.name, coalesce(' ' || problem, ' intact and usable'));
	END LOOP;
	EXECUTE format('SELECT count(*) FROM %s WHERE name = ''null'' AND f IS NULL', filters_table) INTO total;
	RETURN NEXT format('CHECK %s %s: the NULL filter is still NULL', CASE WHEN total = 1 THEN 'pass' ELSE 'fail' END, label);
	EXECUTE format('SELECT count(*) FILTER (WHERE f IS DISTINCT FROM bloom_add(bloom_empty(0.01, 100), id)
			OR NOT bloom_contains(f, id)), count(*) FROM %s', many_table) INTO bad, total;
	RETURN NEXT format('CHECK %s %s: %s of %s small filters intact', CASE WHEN bad = 0 AND total = 2000 THEN 'pass' ELSE 'fail' END,
		label, total - bad, total);
END
$$;

-- Digests compared across databases and copies by the script.
CREATE VIEW digest AS
SELECT name, md5(bloom_send(f)) AS send_md5, md5(f::text) AS text_md5 FROM filters
UNION ALL
SELECT 'many', md5(string_agg(md5(bloom_send(f)), ',' ORDER BY id)), md5(string_agg(f::text, ',' ORDER BY id)) FROM many;
