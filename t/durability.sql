--
-- Filters for t/005_durability.pl, and the checks it runs on every
-- copy of them (after pg_dump/pg_restore, COPY in text and binary form):
-- bloom filters, and counting and scalable ones.
--
-- Each filter is built from a recipe, so any copy can be compared with a
-- fresh recomputation: with =, with the md5 of its binary (send) output,
-- and by asking it for every value it was built from.
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

-- Counting and scalable filters: each the filter an expression of the array
-- v of the values 1..n (as kind says) gives, holding values held_from..n (a
-- counting filter's first ones removed).
CREATE TABLE set_recipe (
	name text PRIMARY KEY,
	type regtype NOT NULL CHECK (type IN ('counting_bloom', 'scalable_bloom')),
	kind text NOT NULL CHECK (kind IN ('int', 'text')),
	n int NOT NULL,
	held_from int NOT NULL DEFAULT 1,
	expression text NOT NULL);

INSERT INTO set_recipe VALUES
	('counting-empty',         'counting_bloom', 'int',      0, 1, 'counting_bloom_empty(0.01, 1000)'),
	-- inline; counters saturated by a value added 20 times
	('counting-small',         'counting_bloom', 'int',     20, 1,
		'bloom_add_all(counting_bloom_empty_mk(1000, 3), array_fill(7, ARRAY[20]) || v)'),
	-- 480 kB, out of line, scheme 1, built by the aggregate
	('counting-agg',           'counting_bloom', 'int', 100000, 1,
		'(SELECT counting_bloom_agg(x, 0.01, 100000) FROM unnest(v) AS x)'),
	-- 24 kB, out of line, text, the first 1,000 values removed
	('counting-text-removed',  'counting_bloom', 'text',  5000, 1001,
		'bloom_remove_all(bloom_add_all(counting_bloom_empty(0.001, 5000), v), v[1:1000])'),
	-- 512 kB, out of line, scheme 2 (given by its text form: no constructor
	-- makes one below 2 MiB counters, 8 MB)
	('counting-scheme2',       'counting_bloom', 'int',  20000, 5001,
		$$bloom_remove_all(bloom_add_all(('counting_bloom:v1:h2:m1048576:k7:' || repeat('A', 699051) || '=')::counting_bloom, v), v[1:5000])$$),
	('scalable-empty',         'scalable_bloom', 'int',      0, 1, 'scalable_bloom_empty(0.01, 1000)'),
	('scalable-small',         'scalable_bloom', 'int',      1, 1, 'bloom_add_all(scalable_bloom_empty(0.01, 2), v)'),
	-- 6 stages, out of line, text
	('scalable-stages',        'scalable_bloom', 'text',  5000, 1,
		'bloom_add_all(scalable_bloom_empty(0.001, 100, 2, 0.9), v)'),
	-- 4 stages, growth 4, 150 kB
	('scalable-growth4',       'scalable_bloom', 'int',  30000, 1,
		'bloom_add_all(scalable_bloom_empty(0.01, 1000, 4), v)'),
	-- 3.4 MB, scheme 2
	('scalable-scheme2',       'scalable_bloom', 'int',   1000, 1,
		'bloom_add_all(scalable_bloom_empty(0.01, 2000000), v)'),
	-- self-sized first stage, and a second stage added to it
	('scalable-agg',           'scalable_bloom', 'int',   9000, 1,
		'bloom_add_all((SELECT scalable_bloom_agg(x, 0.01) FROM unnest(v[1:3000]) AS x), v[3001:])');

-- The binary form of either type, for the checks written once for both.
CREATE FUNCTION filter_send(f counting_bloom) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$ SELECT counting_bloom_send(f) $$;
CREATE FUNCTION filter_send(f scalable_bloom) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$ SELECT scalable_bloom_send(f) $$;

-- The filter of recipe r, of the type of like (whose value is not used).
CREATE FUNCTION build_set(r set_recipe, like anyelement) RETURNS anyelement
LANGUAGE plpgsql AS $$
DECLARE
	f like%TYPE;
BEGIN
	EXECUTE format('SELECT (%s)::%s FROM (SELECT ARRAY(SELECT %s FROM generate_series(1, $1) AS i) AS v) AS s',
		r.expression, r.type, CASE r.kind WHEN 'int' THEN 'i' ELSE 'member_text(i)' END)
		INTO f USING r.n;
	RETURN f;
END
$$;

-- What is wrong with f as the filter of recipe r; NULL if nothing.
CREATE FUNCTION set_problem(r set_recipe, f anyelement) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	expected f%TYPE := build_set(r, f);
	same bool;
BEGIN
	IF f IS NULL THEN
		RETURN 'missing';
	END IF;
	IF f <> expected THEN
		RETURN 'differs (=) from its recomputation';
	END IF;
	IF md5(filter_send(f)) <> md5(filter_send(expected)) THEN
		RETURN 'binary form differs from the recomputation''s';
	END IF;
	IF NOT (SELECT coalesce(bool_and(CASE r.kind WHEN 'int' THEN bloom_contains(f, i)
			ELSE bloom_contains(f, member_text(i)) END), true)
		FROM generate_series(r.held_from, r.n) AS i) THEN
		RETURN 'does not contain every value it holds';
	END IF;
	EXECUTE format('SELECT $1::text::%s = $1', r.type) INTO same USING f;
	IF NOT same OR NOT bloom_contains(bloom_add(f, -1), -1) THEN
		RETURN 'text round trip or bloom_add fails';
	END IF;
	IF r.type = 'counting_bloom'::regtype THEN
		EXECUTE 'SELECT bloom_remove(bloom_add($1, -1), -1) = $1' INTO same USING f;
		IF NOT same THEN
			RETURN 'bloom_remove does not undo bloom_add';
		END IF;
	END IF;
	RETURN NULL;
EXCEPTION WHEN OTHERS THEN
	RETURN format('raised %s: %s', SQLSTATE, SQLERRM);
END
$$;

-- One column per type; a row of NULLs.
CREATE TABLE sets (name text PRIMARY KEY, c counting_bloom, s scalable_bloom);
INSERT INTO sets
SELECT r.name,
	CASE WHEN r.type = 'counting_bloom'::regtype THEN build_set(r, NULL::counting_bloom) END,
	CASE WHEN r.type = 'scalable_bloom'::regtype THEN build_set(r, NULL::scalable_bloom) END
FROM set_recipe AS r;
INSERT INTO sets VALUES ('sets-null', NULL, NULL);

-- One line per check, as check_copy's.
CREATE FUNCTION check_sets(sets_table regclass, label text)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	r set_recipe;
	c counting_bloom;
	s scalable_bloom;
	problem text;
	total int;
BEGIN
	FOR r IN SELECT * FROM set_recipe ORDER BY name LOOP
		EXECUTE format('SELECT c, s FROM %s WHERE name = $1', sets_table) INTO c, s USING r.name;
		problem := CASE WHEN r.type = 'counting_bloom'::regtype
			THEN coalesce(set_problem(r, c), CASE WHEN s IS NOT NULL THEN 'has a scalable filter too' END)
			ELSE coalesce(set_problem(r, s), CASE WHEN c IS NOT NULL THEN 'has a counting filter too' END) END;
		RETURN NEXT format('CHECK %s %s: %s %s%s', CASE WHEN problem IS NULL THEN 'pass' ELSE 'fail' END,
			label, r.type, r.name, coalesce(' ' || problem, ' intact and usable'));
	END LOOP;
	EXECUTE format('SELECT count(*) FROM %s WHERE name = ''sets-null'' AND c IS NULL AND s IS NULL', sets_table)
		INTO total;
	RETURN NEXT format('CHECK %s %s: the NULL counting and scalable filters are still NULL',
		CASE WHEN total = 1 THEN 'pass' ELSE 'fail' END, label);
END
$$;

-- Digests compared across databases and copies by the script.
CREATE VIEW digest AS
SELECT name, md5(bloom_send(f)) AS send_md5, md5(f::text) AS text_md5 FROM filters
UNION ALL
SELECT 'many', md5(string_agg(md5(bloom_send(f)), ',' ORDER BY id)), md5(string_agg(f::text, ',' ORDER BY id)) FROM many
UNION ALL
SELECT name, md5(coalesce(filter_send(c), filter_send(s))), md5(coalesce(c::text, s::text)) FROM sets;
