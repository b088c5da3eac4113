--
-- Construction, set operations, equality and hashing of whole filters.
--
--   bloom_empty(p, n)        m = ceil(-n ln p / (ln 2)^2), k = max(1, round((m/n) ln 2))
--   bloom_empty_mk(m, k)     exactly m bits and k probes
--   a | b, bloom_union(...)         bitwise OR: exactly the filter of the union
--   a & b, bloom_intersection(...)  bitwise AND: contains every common value
--   =, <>                    same shape (m, k, hash scheme) and same bits
--   bloom_hash, bloom_hash_extended   hash operator class, consistent with =
--

--
-- Construction
--
-- the textbook example: 1% at 100000 values is 958506 bits and 7 probes
SELECT m, k, bytes, bits_set FROM bloom_info(bloom_empty(0.01, 100000));
SELECT m, k, bytes, bits_set FROM bloom_info(bloom_empty(0.5, 1));
-- m is honoured exactly, not rounded to the 64-bit words it is stored in
SELECT m, k, bytes FROM bloom_info(bloom_empty_mk(18, 3));
SELECT bloom_empty_mk(18, 3), bloom_empty_mk(1, 1), bloom_empty_mk(1, 64);
-- construction is deterministic
SELECT bloom_empty(0.01, 1000) = bloom_empty(0.01, 1000) AS same;
SELECT bloom_empty(0.01, 1000) = bloom_empty_mk(9586, 7) AS same_as_explicit_shape;

-- arguments no filter can be built from
SELECT query, e.*
FROM (VALUES
	('SELECT bloom_empty(0, 100)'),
	('SELECT bloom_empty(1, 100)'),
	('SELECT bloom_empty(-1, 100)'),
	('SELECT bloom_empty(''NaN'', 100)'),
	('SELECT bloom_empty(''Infinity'', 100)'),
	('SELECT bloom_empty(''-Infinity'', 100)'),
	('SELECT bloom_empty(0.01, 0)'),
	('SELECT bloom_empty(0.01, -1)'),
	('SELECT bloom_empty(1e-25, 100)'),
	('SELECT bloom_empty(1e-10, 10000000000)'),
	('SELECT bloom_empty_mk(0, 3)'),
	('SELECT bloom_empty_mk(-1, 3)'),
	('SELECT bloom_empty_mk(18, 0)'),
	('SELECT bloom_empty_mk(18, 65)'),
	('SELECT bloom_empty_mk(9000000000, 1)')
) AS v(query), LATERAL error_of(query) AS e;

-- the same errors with their details and hints
SELECT bloom_empty('NaN', 100);
SELECT bloom_empty(0.01, 0);
SELECT bloom_empty(1e-25, 100);
SELECT bloom_empty(1e-10, 10000000000);
SELECT bloom_empty_mk(18, 65);
SELECT bloom_empty_mk(9000000000, 1);

-- one bit more than the largest filter (8589934400 bits, just under 1 GB)
SELECT e.* FROM error_of('SELECT bloom_empty_mk(8589934401, 1)') AS e;

--
-- Union and intersection
--
CREATE TABLE setops_sets AS
SELECT 'a' AS name, bloom_agg(i, 0.01, 1000) AS f FROM generate_series(1, 300) AS i
UNION ALL
SELECT 'b', bloom_agg(i, 0.01, 1000) FROM generate_series(201, 500) AS i
UNION ALL
SELECT 'ab', bloom_agg(i, 0.01, 1000) FROM generate_series(1, 500) AS i
UNION ALL
SELECT 'empty', bloom_empty(0.01, 1000);

CREATE FUNCTION setops_set(name text) RETURNS bloom LANGUAGE sql STABLE AS $$
	SELECT f FROM setops_sets WHERE setops_sets.name = setops_set.name
$$;

-- the union is exact: it is the filter of all values of both sets
SELECT setops_set('a') | setops_set('b') = setops_set('ab') AS union_exact,
	bloom_union(setops_set('a'), setops_set('b')) = setops_set('ab') AS variadic_union_exact,
	setops_set('b') | setops_set('a') = setops_set('ab') AS commutes;

-- no false negatives: the union contains every value of both sets, the
-- intersection every common value
SELECT count(*) FILTER (WHERE bloom_contains(setops_set('a') | setops_set('b'), i)) AS in_union,
	count(*) FILTER (WHERE i BETWEEN 201 AND 300 AND
		bloom_contains(setops_set('a') & setops_set('b'), i)) AS common_in_intersection
FROM generate_series(1, 500) AS i;

-- the intersection has at least the bits of the common values, and no bit
-- that either side lacks
SELECT (setops_set('a') & setops_set('b')) | bloom_agg(i, 0.01, 1000) = (setops_set('a') & setops_set('b'))
		AS covers_common_values,
	(setops_set('a') & setops_set('b')) & setops_set('a') = (setops_set('a') & setops_set('b'))
		AS within_a,
	setops_set('a') & setops_set('b') = setops_set('b') & setops_set('a') AS commutes,
	bloom_intersection(setops_set('a'), setops_set('b')) = setops_set('a') & setops_set('b')
		AS variadic_same
FROM generate_series(201, 300) AS i;

-- laws: idempotence, identity and absorbing elements, associativity
SELECT setops_set('a') | setops_set('a') = setops_set('a') AS or_idempotent,
	setops_set('a') & setops_set('a') = setops_set('a') AS and_idempotent,
	setops_set('a') | setops_set('empty') = setops_set('a') AS empty_is_union_identity,
	setops_set('a') & setops_set('empty') = setops_set('empty') AS empty_absorbs_intersection,
	(setops_set('a') | setops_set('b')) | setops_set('ab') =
		setops_set('a') | (setops_set('b') | setops_set('ab')) AS or_associative,
	bloom_union(setops_set('a'), setops_set('b'), setops_set('empty')) =
		setops_set('a') | setops_set('b') | setops_set('empty') AS three_way_union,
	bloom_intersection(setops_set('a'), setops_set('b'), setops_set('ab')) =
		setops_set('a') & setops_set('b') & setops_set('ab') AS three_way_intersection;

-- the inputs are not modified: the result is a new value
SELECT a | b <> a AS union_differs, a & b <> a AS intersection_differs,
	bloom_union(a, b) <> a AS variadic_differs,
	a = setops_set('a') AS a_unchanged, b = setops_set('b') AS b_unchanged
FROM (SELECT setops_set('a') AS a, setops_set('b') AS b OFFSET 0) AS s;

-- variadic forms: NULL elements are skipped; nothing left gives NULL
SELECT bloom_union(setops_set('a'), NULL, setops_set('b')) = setops_set('ab') AS nulls_skipped,
	bloom_union(NULL, setops_set('a')) = setops_set('a') AS leading_null,
	bloom_union(setops_set('a')) = setops_set('a') AS single,
	bloom_intersection(NULL, setops_set('a'), NULL) = setops_set('a') AS single_intersection;
SELECT bloom_union(NULL::bloom) IS NULL AS all_null,
	bloom_union(NULL::bloom, NULL::bloom) IS NULL AS all_nulls,
	bloom_union(VARIADIC ARRAY[]::bloom[]) IS NULL AS empty_array,
	bloom_union(VARIADIC NULL::bloom[]) IS NULL AS null_array,
	bloom_intersection(NULL::bloom) IS NULL AS intersection_all_null,
	bloom_intersection(VARIADIC ARRAY[]::bloom[]) IS NULL AS intersection_empty_array,
	bloom_intersection(VARIADIC NULL::bloom[]) IS NULL AS intersection_null_array;
-- STRICT binary forms
SELECT setops_set('a') | NULL IS NULL AS or_null, NULL & setops_set('a') IS NULL AS and_null;

-- the same bits under another shape are another filter; every operation
-- that combines two filters refuses to mix shapes
SELECT query, e.*
FROM (VALUES
	('SELECT bloom_empty_mk(18, 3) | bloom_empty_mk(19, 3)'),
	('SELECT bloom_empty_mk(18, 3) | bloom_empty_mk(18, 4)'),
	('SELECT bloom_empty_mk(18, 3) & bloom_empty_mk(19, 3)'),
	('SELECT bloom_or(bloom_empty_mk(18, 3), bloom_empty_mk(18, 4))'),
	('SELECT bloom_and(bloom_empty_mk(18, 3), bloom_empty_mk(18, 4))'),
	('SELECT bloom_union(bloom_empty_mk(18, 3), bloom_empty_mk(19, 3))'),
	('SELECT bloom_union(bloom_empty_mk(18, 3), NULL, bloom_empty_mk(18, 3), bloom_empty_mk(18, 4))'),
	('SELECT bloom_intersection(bloom_empty_mk(18, 3), bloom_empty_mk(19, 3))'),
	('SELECT bloom_intersection(NULL, bloom_empty_mk(64, 3), bloom_empty_mk(60, 3))')
) AS v(query), LATERAL error_of(query) AS e;
SELECT bloom_empty(0.01, 100) | bloom_empty(0.01, 1000);

--
-- Equality
--
SELECT bloom_empty_mk(18, 3) = bloom_empty_mk(18, 3) AS same,
	bloom_empty_mk(18, 3) <> bloom_empty_mk(18, 3) AS same_ne,
	-- same (all-zero) bytes, different m or k
	bloom_empty_mk(60, 3) = bloom_empty_mk(64, 3) AS other_m,
	bloom_empty_mk(60, 3) <> bloom_empty_mk(64, 3) AS other_m_ne,
	bloom_empty_mk(64, 3) = bloom_empty_mk(64, 4) AS other_k,
	-- same shape, one bit apart
	bloom_add(bloom_empty_mk(64, 1), 1) = bloom_empty_mk(64, 1) AS other_bits,
	bloom_add(bloom_empty_mk(64, 1), 1) <> bloom_empty_mk(64, 1) AS other_bits_ne,
	-- equal filters built different ways
	bloom_add(bloom_add(bloom_empty_mk(64, 2), 1), 2) =
		bloom_add(bloom_add(bloom_empty_mk(64, 2), 2), 1) AS order_independent,
	NULL::bloom = bloom_empty_mk(18, 3) AS null_operand;

--
-- Hashing: the hash operator class that lets DISTINCT, GROUP BY, UNION and
-- hash joins use =
--
-- golden values: XXH3-64 with the seed over hash_scheme, k, m (8 bytes,
-- little-endian) and the bit array; these must never change
SELECT bloom_hash(bloom_empty_mk(18, 3)) AS hash,
	bloom_hash_extended(bloom_empty_mk(18, 3), 0) AS extended_0,
	bloom_hash_extended(bloom_empty_mk(18, 3), 1) AS extended_1,
	bloom_hash_extended(bloom_empty_mk(18, 3), -1) AS extended_minus_1;
SELECT bloom_hash(f) AS hash, bloom_hash_extended(f, 42) AS extended_42
FROM (SELECT bloom_add(bloom_add(bloom_empty(0.01, 100), 'one'::text), 'two'::text) AS f) AS s;

-- support function 1 is the low 32 bits of support function 2 with seed 0,
-- as the hash opclass contract requires; equal filters hash equally, and
-- the hash sees the shape, not just the bytes
SELECT count(*) AS filters,
	count(*) FILTER (WHERE bloom_hash(f)::int8 & 4294967295 =
						 bloom_hash_extended(f, 0) & 4294967295) AS low_bits_agree,
	count(DISTINCT bloom_hash(f)) AS distinct_hashes,
	count(DISTINCT bloom_hash_extended(f, 7)) AS distinct_seeded_hashes,
	count(*) FILTER (WHERE bloom_hash_extended(f, 0) <> bloom_hash_extended(f, 1)) AS seed_matters
FROM (
	SELECT bloom_empty_mk(m, k) AS f FROM generate_series(60, 64) AS m, generate_series(1, 3) AS k
	UNION ALL
	SELECT bloom_add(bloom_empty_mk(1000, 3), i) FROM generate_series(1, 20) AS i
) AS s;
SELECT bloom_hash(setops_set('a') | setops_set('b')) = bloom_hash(setops_set('ab')) AS equal_hash,
	bloom_hash_extended(setops_set('b') | setops_set('a'), 5) =
		bloom_hash_extended(setops_set('ab'), 5) AS equal_extended_hash;

CREATE TABLE setops_filters AS
SELECT i, bloom_add(bloom_empty_mk(1000, 3), i % 4) AS f FROM generate_series(1, 20) AS i
UNION ALL
SELECT 100 + i, bloom_empty_mk(1000, 2 + i % 2) FROM generate_series(1, 6) AS i;

-- no btree operator class: these are hashed (grouping is by =)
EXPLAIN (COSTS OFF) SELECT f, count(*) FROM setops_filters GROUP BY f;
SELECT bloom_cardinality(f) > 0 AS nonempty, (bloom_info(f)).k, count(*)
FROM setops_filters GROUP BY f ORDER BY min(i);
SELECT count(*) AS union_rows
FROM (SELECT f FROM setops_filters WHERE i <= 10 UNION SELECT f FROM setops_filters) AS u;
SELECT count(*) AS distinct_rows FROM (SELECT DISTINCT f FROM setops_filters) AS d;

-- a hash join on = (HASHES)
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM setops_filters AS x JOIN setops_filters AS y ON x.f = y.f;
SELECT count(*) AS join_rows FROM setops_filters AS x JOIN setops_filters AS y ON x.f = y.f;
RESET enable_mergejoin;
RESET enable_nestloop;

--
-- Filters stored out of line (TOASTed): the same answers as in memory
--
CREATE TABLE setops_stored (name text, f bloom);
INSERT INTO setops_stored
SELECT 'big_a', bloom_agg(i, 0.01, 20000) FROM generate_series(1, 10000) AS i
UNION ALL
SELECT 'big_b', bloom_agg(i, 0.01, 20000) FROM generate_series(5001, 15000) AS i;
-- 191702 bits (24 kB): far over the inline limit, so stored in the TOAST table
SELECT name, (bloom_info(f)).bytes FROM setops_stored ORDER BY name;
SELECT pg_relation_size(reltoastrelid) > 0 AS toasted FROM pg_class WHERE oid = 'setops_stored'::regclass;
SELECT a.f | b.f = (SELECT bloom_agg(i, 0.01, 20000) FROM generate_series(1, 15000) AS i) AS union_exact,
	a.f & b.f = b.f & a.f AS and_commutes,
	a.f = (SELECT bloom_agg(i, 0.01, 20000) FROM generate_series(1, 10000) AS i) AS stored_equals_computed,
	bloom_hash(a.f) = bloom_hash((SELECT bloom_agg(i, 0.01, 20000) FROM generate_series(1, 10000) AS i))
		AS stored_hash_equals_computed,
	bloom_union(a.f, NULL, b.f) = a.f | b.f AS variadic_same
FROM setops_stored AS a, setops_stored AS b
WHERE a.name = 'big_a' AND b.name = 'big_b';
-- one stored filter against many rows (the detoasted copy is cached per call
-- site): adding a member changes nothing, adding a non-member (almost surely)
-- does
SELECT count(*) FILTER (WHERE i <= 10000 AND (a.f | bloom_add(bloom_empty(0.01, 20000), i)) = a.f)
		AS members_unchanged,
	count(*) FILTER (WHERE i > 10000 AND (a.f | bloom_add(bloom_empty(0.01, 20000), i)) <> a.f)
		AS non_members_changed,
	count(*) FILTER (WHERE bloom_contains(a.f & a.f, i)) AS contained
FROM setops_stored AS a, generate_series(1, 20000) AS i
WHERE a.name = 'big_a' AND i % 100 = 0;

DROP TABLE setops_sets, setops_filters, setops_stored;
DROP FUNCTION setops_set(text);
