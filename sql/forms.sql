--
-- Forms: every form a filter argument can take, against every function that
-- reads a filter.
--
-- A varlena value reaches a function in one of these forms:
--
--   1-byte header        a small value read from a table row (packed when the
--                        row was written)
--   4-byte header        a function result; a larger value read from a row
--   compressed inline    STORAGE MAIN and a compressible (mostly empty) filter
--   compressed external  STORAGE EXTENDED and a filter that still takes more
--                        than ~2 kB compressed: a TOAST pointer to compressed
--                        chunks
--   external             STORAGE EXTERNAL (the type's default) and a filter of
--                        more than ~2 kB: a TOAST pointer to plain chunks
--
-- Logical decoding adds the external indirect pointer, which SQL cannot
-- make; t/012_replication.pl covers it.
--
-- First each row is shown to be in the form claimed, so that the test fails
-- if PostgreSQL stores it differently; then every function that reads a
-- filter is run on it, in every argument position that takes one, and must
-- give exactly what it gives for the same filter as a fresh function result.
--

-- Each recipe is the filter of the integers 1..n, sized by (p, capacity).
CREATE TABLE forms_recipe (recipe text PRIMARY KEY, p float8, capacity int8, n int);
INSERT INTO forms_recipe VALUES
	('tiny',    0.01, 50,      30),		-- 80 bytes
	('small',   0.01, 500,     300),	-- 616 bytes
	('sparse',  0.01, 100000,  20),		-- 119,832 bytes, at most 140 bits set
	('sparse1k', 0.01, 100000, 1000),	-- 119,832 bytes, at most 7,000 bits set
	('full',    0.01, 10000,   10000),	-- 12,000 bytes, half the bits set
	('blocked', 0.01, 2000000, 2000);	-- hash scheme 2, 2,474,000 bytes

-- The recipe's filter, over values offset + 1 .. offset + n, as a fresh
-- function result (4-byte header, in memory): the reference.  SELECT INTO
-- takes the aggregate's result through a row, which packs a small value to
-- a 1-byte header, so what is returned is a fresh copy (a union of one).
CREATE FUNCTION forms_plain(name text, value_offset int DEFAULT 0) RETURNS bloom
LANGUAGE plpgsql STABLE AS $$
DECLARE
	f bloom;
BEGIN
	SELECT bloom_agg(value_offset + g, r.p, r.capacity) INTO STRICT f
	FROM forms_recipe AS r, generate_series(1, r.n) AS g WHERE r.recipe = name;
	RETURN bloom_union(f);
END
$$;

-- One table per storage strategy, compression pglz wherever compression is
-- allowed (whether lz4 is there depends on the build).
CREATE TABLE forms_inline (recipe text, f bloom);
CREATE TABLE forms_main (recipe text, f bloom);
ALTER TABLE forms_main ALTER f SET STORAGE MAIN, ALTER f SET COMPRESSION pglz;
CREATE TABLE forms_extended (recipe text, f bloom);
ALTER TABLE forms_extended ALTER f SET STORAGE EXTENDED, ALTER f SET COMPRESSION pglz;
CREATE TABLE forms_external (recipe text, f bloom);
ALTER TABLE forms_external ALTER f SET STORAGE EXTERNAL;

INSERT INTO forms_inline VALUES ('tiny', forms_plain('tiny')), ('small', forms_plain('small'));
INSERT INTO forms_main VALUES ('sparse', forms_plain('sparse'));
INSERT INTO forms_extended VALUES ('sparse1k', forms_plain('sparse1k')), ('blocked', forms_plain('blocked'));
INSERT INTO forms_external VALUES ('full', forms_plain('full')), ('blocked', forms_plain('blocked'));

CREATE VIEW forms_stored AS
SELECT tableoid::regclass AS tbl, recipe, f FROM forms_inline
UNION ALL SELECT tableoid::regclass, recipe, f FROM forms_main
UNION ALL SELECT tableoid::regclass, recipe, f FROM forms_extended
UNION ALL SELECT tableoid::regclass, recipe, f FROM forms_external;

-- Every form, named, with the function result as one more.
CREATE VIEW forms AS
SELECT CASE tbl
		WHEN 'forms_inline'::regclass THEN 'inline row'
		WHEN 'forms_main'::regclass THEN 'compressed inline'
		WHEN 'forms_extended'::regclass THEN 'compressed external'
		ELSE 'external' END || ' (' || recipe || ')' AS form,
	tbl, recipe, f
FROM forms_stored
UNION ALL
SELECT 'function result (tiny)', NULL, 'tiny', forms_plain('tiny');

--
-- How a filter argument is stored.  The binary form (bloom_send) is the
-- 16-byte header less its 4-byte length word, then the bit array, so for a
-- value that is not compressed pg_column_size minus the send length is the
-- length word as it is: 1 for a 1-byte header, 4 for a 4-byte one, 0 for an
-- external value (whose size is that of its chunks).  A compressed value
-- takes less than the send form.  An out-of-line value is found in the
-- table's TOAST table by the size of its chunks.
--
CREATE FUNCTION forms_shape(f bloom, tbl regclass,
	OUT length_word int, OUT compression text, OUT smaller_than_send bool, OUT out_of_line bool)
LANGUAGE plpgsql STABLE AS $$
BEGIN
	length_word := CASE WHEN pg_column_compression(f) IS NULL
		THEN pg_column_size(f) - octet_length(bloom_send(f)) END;
	compression := pg_column_compression(f);
	smaller_than_send := pg_column_size(f) < octet_length(bloom_send(f));
	out_of_line := false;
	IF tbl IS NOT NULL THEN
		EXECUTE format('SELECT EXISTS (SELECT FROM %s GROUP BY chunk_id HAVING sum(length(chunk_data)) = $1)',
			(SELECT reltoastrelid::regclass FROM pg_class WHERE oid = tbl))
			INTO out_of_line USING pg_column_size(f);
	END IF;
END
$$;

CREATE TABLE forms_evidence AS
SELECT form, (bloom_info(f)).bytes, shape.* FROM forms, LATERAL forms_shape(f, tbl) AS shape;
SELECT * FROM forms_evidence ORDER BY form;

-- the reference values are 4-byte headers too, whatever their size
SELECT recipe, pg_column_size(forms_plain(recipe)) - octet_length(bloom_send(forms_plain(recipe)))
	AS length_word
FROM forms_recipe ORDER BY recipe;

--
-- Every function on every form (s.f), against the reference (r.p).  r.q is
-- another filter of the same shape, of values that half overlap, for the
-- functions of two filters, with the stored one as first or second argument.
-- Each check compares the two results exactly (bloom results by their
-- binary form, bytea =, so not relying on bloom's own =).  The values run
-- through a LATERAL VALUES list, so every call sees the datum as stored.
--
-- The planner estimate of a bloom_contains / @> clause with the filter as a
-- constant: rows and total cost, from EXPLAIN (FORMAT JSON).  EXECUTE ...
-- USING passes the value as it is, and the planner folds the parameter into
-- a Const.
CREATE TABLE forms_probe AS SELECT v FROM generate_series(-1000, 3000) AS v;
ANALYZE forms_probe;
CREATE FUNCTION forms_estimate(f bloom, clause text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	plan jsonb;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) SELECT * FROM forms_probe WHERE ' || clause INTO plan USING f;
	RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows') || ' rows, cost ' || (plan -> 0 -> 'Plan' ->> 'Total Cost');
END
$$;

CREATE TABLE forms_checks AS
SELECT s.form, c.ord, c.fn, c.same
FROM forms AS s
JOIN forms_recipe AS rc ON rc.recipe = s.recipe
CROSS JOIN LATERAL (SELECT forms_plain(s.recipe) AS p,
		forms_plain(s.recipe, (SELECT n / 2 FROM forms_recipe WHERE recipe = s.recipe)) AS q,
		bloom_empty(0.01, 10) AS e
	OFFSET 0) AS r
CROSS JOIN LATERAL (VALUES
	(0, 'the form is the one shown above',
		forms_shape(s.f, s.tbl)::text = (SELECT row(e.length_word, e.compression,
			e.smaller_than_send, e.out_of_line)::text FROM forms_evidence AS e WHERE e.form = s.form)),
	(1, 'bloom_out (text form)', md5(s.f::text) = md5(r.p::text)),
	(2, 'bloom_send', bloom_send(s.f) = bloom_send(r.p)),
	(3, 'bloom_contains(filter, v)',
		(SELECT count(*) FROM generate_series(-1000, 1000) AS v WHERE bloom_contains(s.f, v))
		= (SELECT count(*) FROM generate_series(-1000, 1000) AS v WHERE bloom_contains(r.p, v))),
	(4, 'filter @> v',
		(SELECT string_agg(v::text, ',') FROM generate_series(-1000, 1000) AS v WHERE s.f @> v)
		= (SELECT string_agg(v::text, ',') FROM generate_series(-1000, 1000) AS v WHERE r.p @> v)),
	(5, 'v <@ filter (bloom_contained_by, filter second)',
		(SELECT string_agg(v::text, ',') FROM generate_series(-1000, 1000) AS v WHERE v <@ s.f)
		= (SELECT string_agg(v::text, ',') FROM generate_series(-1000, 1000) AS v WHERE v <@ r.p)),
	(6, 'bloom_add(filter, v)', bloom_send(bloom_add(s.f, -7)) = bloom_send(bloom_add(r.p, -7))),
	(7, 'bloom_add(filter, NULL)', bloom_send(bloom_add(s.f, NULL::int)) = bloom_send(r.p)),
	(8, 'filter | q', bloom_send(s.f | r.q) = bloom_send(r.p | r.q)),
	(9, 'q | filter', bloom_send(r.q | s.f) = bloom_send(r.q | r.p)),
	(10, 'filter & q', bloom_send(s.f & r.q) = bloom_send(r.p & r.q)),
	(11, 'q & filter', bloom_send(r.q & s.f) = bloom_send(r.q & r.p)),
	(12, 'filter | filter', bloom_send(s.f | s.f) = bloom_send(r.p)),
	(13, 'bloom_union(filter, q)', bloom_send(bloom_union(s.f, r.q)) = bloom_send(bloom_union(r.p, r.q))),
	(14, 'bloom_union(q, NULL, filter)',
		bloom_send(bloom_union(r.q, NULL, s.f)) = bloom_send(bloom_union(r.q, NULL, r.p))),
	(15, 'bloom_intersection(filter, q)',
		bloom_send(bloom_intersection(s.f, r.q)) = bloom_send(bloom_intersection(r.p, r.q))),
	(16, 'bloom_intersection(q, filter)',
		bloom_send(bloom_intersection(r.q, s.f)) = bloom_send(bloom_intersection(r.q, r.p))),
	(17, 'bloom_union_agg over filter, q',
		(SELECT bloom_send(bloom_union_agg(v)) FROM (VALUES (s.f), (r.q)) AS t(v))
		= (SELECT bloom_send(bloom_union_agg(v)) FROM (VALUES (r.p), (r.q)) AS t(v))),
	(18, 'bloom_union_agg over q, filter',
		(SELECT bloom_send(bloom_union_agg(v)) FROM (VALUES (r.q), (s.f)) AS t(v))
		= (SELECT bloom_send(bloom_union_agg(v)) FROM (VALUES (r.q), (r.p)) AS t(v))),
	(19, 'bloom_intersection_agg over filter, q',
		(SELECT bloom_send(bloom_intersection_agg(v)) FROM (VALUES (s.f), (r.q)) AS t(v))
		= (SELECT bloom_send(bloom_intersection_agg(v)) FROM (VALUES (r.p), (r.q)) AS t(v))),
	(20, 'bloom_intersection_agg over q, filter',
		(SELECT bloom_send(bloom_intersection_agg(v)) FROM (VALUES (r.q), (s.f)) AS t(v))
		= (SELECT bloom_send(bloom_intersection_agg(v)) FROM (VALUES (r.q), (r.p)) AS t(v))),
	(21, 'bloom_agg(filter, p, capacity): filters as values',
		(SELECT bloom_send(bloom_agg(v, 0.01, 10)) FROM (VALUES (s.f), (r.q)) AS t(v))
		= (SELECT bloom_send(bloom_agg(v, 0.01, 10)) FROM (VALUES (r.p), (r.q)) AS t(v))),
	(22, 'bloom_agg(filter)',
		(SELECT bloom_send(bloom_agg(v)) FROM (VALUES (s.f), (r.q)) AS t(v))
		= (SELECT bloom_send(bloom_agg(v)) FROM (VALUES (r.p), (r.q)) AS t(v))),
	(23, 'bloom_agg(filter, p)',
		(SELECT bloom_send(bloom_agg(v, 0.001)) FROM (VALUES (s.f), (r.q)) AS t(v))
		= (SELECT bloom_send(bloom_agg(v, 0.001)) FROM (VALUES (r.p), (r.q)) AS t(v))),
	(24, 'bloom_add(e, filter): a filter as the value',
		bloom_send(bloom_add(r.e, s.f)) = bloom_send(bloom_add(r.e, r.p))),
	(25, 'bloom_contains(e + reference, filter)',
		bloom_contains(bloom_add(r.e, r.p), s.f) AND NOT bloom_contains(bloom_add(r.e, r.q), s.f)),
	(26, 'bloom_cardinality', bloom_cardinality(s.f) = bloom_cardinality(r.p)),
	(27, 'bloom_union_cardinality(filter, q)',
		bloom_union_cardinality(s.f, r.q) = bloom_union_cardinality(r.p, r.q)),
	(28, 'bloom_union_cardinality(q, filter)',
		bloom_union_cardinality(r.q, s.f) = bloom_union_cardinality(r.q, r.p)),
	(29, 'bloom_intersection_cardinality(filter, q)',
		bloom_intersection_cardinality(s.f, r.q) = bloom_intersection_cardinality(r.p, r.q)),
	(30, 'bloom_intersection_cardinality(q, filter)',
		bloom_intersection_cardinality(r.q, s.f) = bloom_intersection_cardinality(r.q, r.p)),
	(31, 'bloom_jaccard(filter, q)', bloom_jaccard(s.f, r.q) = bloom_jaccard(r.p, r.q)),
	(32, 'bloom_jaccard(q, filter)', bloom_jaccard(r.q, s.f) = bloom_jaccard(r.q, r.p)),
	(33, 'bloom_info', bloom_info(s.f)::text = bloom_info(r.p)::text),
	(34, 'filter = reference, reference = filter', s.f = r.p AND r.p = s.f AND s.f = s.f),
	(35, 'filter = q, q = filter (false)', (s.f = r.q) = (r.p = r.q) AND (r.q = s.f) = (r.q = r.p)),
	(36, 'filter <> reference, q <> filter',
		(s.f <> r.p) = (r.p <> r.p) AND (r.q <> s.f) = (r.q <> r.p)),
	(37, 'bloom_hash', bloom_hash(s.f) = bloom_hash(r.p)),
	(38, 'bloom_hash_extended', bloom_hash_extended(s.f, 42) = bloom_hash_extended(r.p, 42)),
	(39, 'GROUP BY and DISTINCT (hash aggregate)',
		(SELECT string_agg(c::text, ',' ORDER BY c)
		 FROM (SELECT count(*) AS c FROM (VALUES (s.f), (r.q), (r.p)) AS t(v) GROUP BY v) AS g) = '1,2'
		AND (SELECT count(DISTINCT v::text) FROM (SELECT DISTINCT v FROM (VALUES (r.p), (s.f)) AS t(v)) AS d) = 1),
	(40, 'planner estimate of bloom_contains($1, v)',
		forms_estimate(s.f, 'bloom_contains($1, v)') = forms_estimate(r.p, 'bloom_contains($1, v)')),
	(41, 'planner estimate of $1 @> v',
		forms_estimate(s.f, '$1 @> v') = forms_estimate(r.p, '$1 @> v')),
	(42, 'planner estimate of v <@ $1',
		forms_estimate(s.f, 'v <@ $1') = forms_estimate(r.p, 'v <@ $1')),
	(43, 'bloom_empty_like(filter)', bloom_send(bloom_empty_like(s.f)) = bloom_send(bloom_empty_like(r.p))),
	(44, 'bloom_agg_like(v, filter) (transition argument 3)',
		(SELECT bloom_send(bloom_agg_like(v, s.f)) FROM generate_series(1, 50) AS v)
		= (SELECT bloom_send(bloom_agg_like(v, r.p)) FROM generate_series(1, 50) AS v)),
	(45, 'bloom_add_all(filter, values)',
		bloom_send(bloom_add_all(s.f, ARRAY[-7, NULL, -8])) = bloom_send(bloom_add_all(r.p, ARRAY[-7, NULL, -8]))),
	(46, 'bloom_add_all(filter, NULL)', bloom_send(bloom_add_all(s.f, NULL::int[])) = bloom_send(r.p)),
	(47, 'bloom_add_all(e, ARRAY[filter]): filters as the values',
		bloom_send(bloom_add_all(r.e, ARRAY[s.f])) = bloom_send(bloom_add(r.e, r.p))),
	(48, 'bloom_auto_prefilter(filter)', bloom_send(bloom_auto_prefilter(s.f)) = bloom_send(r.p)),
	(49, 'bloom_shape(filter)', bloom_shape(s.f) = bloom_shape(r.p)),
	(50, 'bloom_agg_shaped(bloom_value(v), bloom_shape(filter))',
		(SELECT bloom_send(bloom_agg_shaped(bloom_value(v), bloom_shape(s.f))) FROM generate_series(1, 50) AS v)
		= (SELECT bloom_send(bloom_agg_shaped(bloom_value(v), bloom_shape(r.p))) FROM generate_series(1, 50) AS v)),
	-- the aggregates' support functions called from SQL: a new result, the
	-- argument read in any form (the table is checked unchanged below)
	(51, 'bloom_agg_filter_transfn(filter, bloom_value(v), p, capacity)',
		bloom_send(bloom_agg_filter_transfn(s.f, bloom_value(-7), rc.p, rc.capacity)) = bloom_send(bloom_add(r.p, -7))),
	(53, 'bloom_agg_shaped_transfn(filter, bloom_value(v), shape)',
		bloom_send(bloom_agg_shaped_transfn(s.f, bloom_value(-7), bloom_shape(r.p))) = bloom_send(bloom_add(r.p, -7))),
	(54, 'bloom_union_agg_fold(filter, q) and (q, filter)',
		bloom_send(bloom_union_agg_fold(s.f, r.q)) = bloom_send(r.p | r.q)
		AND bloom_send(bloom_union_agg_fold(r.q, s.f)) = bloom_send(r.p | r.q)),
	(55, 'bloom_intersection_agg_fold(filter, q) and (q, filter)',
		bloom_send(bloom_intersection_agg_fold(s.f, r.q)) = bloom_send(r.p & r.q)
		AND bloom_send(bloom_intersection_agg_fold(r.q, s.f)) = bloom_send(r.p & r.q)),
	(58, 'bloom_agg_filter_finalfn(filter)', bloom_send(bloom_agg_filter_finalfn(s.f)) = bloom_send(r.p)),
	(59, 'scalable_bloom_agg(filter, p): filters as values',
		(SELECT scalable_bloom_send(scalable_bloom_agg(v, 0.01)) FROM (VALUES (s.f), (r.q)) AS t(v))
		= (SELECT scalable_bloom_send(scalable_bloom_agg(v, 0.01)) FROM (VALUES (r.p), (r.q)) AS t(v))),
	(60, 'bloom_agg_or_empty(filter[, p[, capacity]]): the filter as it is',
		bloom_send(bloom_agg_or_empty(s.f, 0.01, 1000)) = bloom_send(r.p)
		AND bloom_send(bloom_agg_or_empty(s.f, 0.01)) = bloom_send(r.p)
		AND bloom_send(bloom_agg_or_empty(s.f)) = bloom_send(r.p)),
	(61, 'filter @> bloom_value(v) (bloom_slices''s operator)',
		(SELECT count(*) FROM generate_series(-1000, 1000) AS v WHERE s.f @> bloom_value(v))
		= (SELECT count(*) FROM generate_series(-1000, 1000) AS v WHERE bloom_contains(r.p, v)))
) AS c(ord, fn, same);

-- none of the calls above wrote into its argument: every stored filter is
-- still the one its recipe gives
SELECT s.form, s.recipe FROM forms AS s WHERE bloom_send(s.f) <> bloom_send(forms_plain(s.recipe));

-- one line per function: how many forms it was run on, and any that differ
SELECT fn, count(*) AS forms,
	coalesce(string_agg(form, ', ' ORDER BY form) FILTER (WHERE same IS NOT TRUE), '') AS differing
FROM forms_checks GROUP BY ord, fn ORDER BY ord;

-- every function and aggregate of the extension that reads a filter (the
-- aggregates' support functions through their aggregate) is among those above
SELECT p.oid::regprocedure AS not_checked
FROM pg_proc AS p JOIN pg_depend AS d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
	AND d.refclassid = 'pg_extension'::regclass
	AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomfilter')
WHERE NOT 'internal'::regtype = ANY (p.proargtypes)
	AND ('bloom'::regtype = ANY (p.proargtypes) OR 'bloom[]'::regtype = ANY (p.proargtypes)
		OR (p.prokind = 'a' AND 'anyelement'::regtype = ANY (p.proargtypes)
			AND p.prorettype = 'bloom'::regtype))
EXCEPT
SELECT f::regprocedure FROM unnest(ARRAY[
	'bloom_out(bloom)', 'bloom_send(bloom)', 'bloom_contains(bloom, anyelement)',
	'bloom_contained_by(anyelement, bloom)', 'bloom_add(bloom, anyelement)',
	'bloom_add_all(bloom, anyarray)', 'bloom_auto_prefilter(bloom)',
	'bloom_or(bloom, bloom)', 'bloom_and(bloom, bloom)', 'bloom_union(bloom[])',
	'bloom_intersection(bloom[])', 'bloom_union_agg(bloom)', 'bloom_intersection_agg(bloom)',
	'bloom_agg(anyelement, float8, int8)', 'bloom_agg(anyelement)', 'bloom_agg(anyelement, float8)',
	'bloom_cardinality(bloom)', 'bloom_union_cardinality(bloom, bloom)',
	'bloom_intersection_cardinality(bloom, bloom)', 'bloom_jaccard(bloom, bloom)',
	'bloom_info(bloom)', 'bloom_eq(bloom, bloom)', 'bloom_ne(bloom, bloom)', 'bloom_hash(bloom)',
	'bloom_hash_extended(bloom, int8)', 'bloom_empty_like(bloom)',
	'bloom_agg_like(anyelement, bloom)', 'bloom_shape(bloom)', 'bloom_agg_shaped(bloom_hashed, text)',
	'bloom_contains_hashed(bloom, bloom_hashed)',
	'bloom_agg_filter_transfn(bloom, bloom_hashed, float8, int8)',
	'bloom_agg_shaped_transfn(bloom, bloom_hashed, text)', 'bloom_union_agg_fold(bloom, bloom)',
	'bloom_intersection_agg_fold(bloom, bloom)', 'bloom_agg_filter_finalfn(bloom)',
	'scalable_bloom_agg(anyelement, float8)', 'bloom_agg_or_empty(bloom, float8, int8)',
	'bloom_agg_or_empty(bloom, float8)', 'bloom_agg_or_empty(bloom)']) AS f;

-- the estimates are real ones: they differ between filters
SELECT count(DISTINCT forms_estimate(f, 'bloom_contains($1, v)')) > 3 AS estimates_differ FROM forms;

--
-- The hash operator class on stored filters: a hash index finds every
-- stored form by its reference (the index holds hashes of the stored forms,
-- the lookup hashes the reference), and a hash join matches them.
--
CREATE INDEX ON forms_inline USING hash (f);
CREATE INDEX ON forms_main USING hash (f);
CREATE INDEX ON forms_extended USING hash (f);
CREATE INDEX ON forms_external USING hash (f);

-- Rows of tbl equal to the reference of recipe, found through the hash
-- index (an ERROR if the plan does not use it).
CREATE FUNCTION forms_index_lookup(tbl regclass, recipe text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	query text := format('SELECT count(*) FROM %s WHERE f = forms_plain($1)', tbl);
	plan jsonb;
	found bigint;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan USING recipe;
	IF NOT jsonb_path_exists(plan, '$.** ? (@."Node Type" == "Index Scan" || @."Node Type" == "Index Only Scan")') THEN
		RAISE EXCEPTION 'no index scan for %: %', tbl, plan;
	END IF;
	EXECUTE query INTO found USING recipe;
	RETURN found;
END
$$;

SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT form, forms_index_lookup(tbl, recipe) AS found_by_hash_index
FROM forms WHERE tbl IS NOT NULL ORDER BY form;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- a hash join of the stored forms with the references, either side hashed
CREATE FUNCTION forms_has_node(query text, node text) RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
	plan jsonb;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
	RETURN jsonb_path_exists(plan, '$.** ? (@."Node Type" == $node)', jsonb_build_object('node', node));
END
$$;
SET enable_nestloop = off;
SELECT forms_has_node('SELECT * FROM forms_stored AS s JOIN forms_recipe AS r ON s.f = forms_plain(r.recipe)',
	'Hash Join') AS hash_join;
SELECT s.recipe, count(*) AS matches, bool_and(s.recipe = r.recipe) AS own_recipe
FROM forms_stored AS s JOIN forms_recipe AS r ON s.f = forms_plain(r.recipe)
GROUP BY s.recipe ORDER BY s.recipe;
RESET enable_nestloop;

-- GROUP BY and UNION over the stored forms and the references together
SELECT min(recipe) AS recipe, count(*) AS members
FROM (SELECT recipe, f FROM forms_stored
	UNION ALL SELECT recipe, forms_plain(recipe) FROM forms_recipe) AS a
GROUP BY f ORDER BY 1;
SELECT count(*) AS distinct_filters
FROM (SELECT f FROM forms_stored UNION SELECT forms_plain(recipe) FROM forms_recipe) AS u;

DROP VIEW forms, forms_stored;
DROP TABLE forms_recipe, forms_inline, forms_main, forms_extended, forms_external,
	forms_probe, forms_checks, forms_evidence;
DROP FUNCTION forms_plain(text, int), forms_shape(bloom, regclass),
	forms_estimate(bloom, text), forms_index_lookup(regclass, text), forms_has_node(text, text);
