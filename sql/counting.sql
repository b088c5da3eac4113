--
-- counting_bloom: counting filters (src/core/counting.h,
-- src/types/counting_bloom/).  4-bit counters at bloom's probe positions: the
-- cast to bloom is bloom's filter of the values held, removing keeps every
-- value still held, and bad input is a clean ERROR.
--

-- Golden vectors: the int8 values 1, 2, 3 at m = 18, k = 3 (scheme 1; the
-- same bytes as test/unit/test_counting.c), a value added twice, and a
-- small blocked filter (scheme 2) of the int8 values 1 to 5.
SELECT counting_bloom_empty_mk(18, 3) AS empty;
SELECT bloom_add_all(counting_bloom_empty_mk(18, 3), ARRAY[1, 2, 3]::int8[]) AS one_two_three;
SELECT bloom_add(bloom_add(counting_bloom_empty_mk(18, 3), 7), 7) AS seven_twice;
SELECT bloom_add_all(('counting_bloom:v1:h2:m512:k6:' || repeat('A', 342) || '==')::counting_bloom,
	ARRAY[1, 2, 3, 4, 5]::int8[]) AS blocked_one_to_five;
-- text: ASCII leaves the flags alone, non-ASCII sets f1 (encoding/encoding.c)
SELECT bloom_add(counting_bloom_empty_mk(18, 3), 'abc'::text) AS ascii,
	bloom_add(counting_bloom_empty_mk(18, 3), convert_from('\x636166c3a9', 'UTF8')) AS cafe;

-- The shape of counting_bloom_empty(p, n) is bloom_empty's, and the counters
-- take 4 times its bytes (give or take the padding to 64-bit words).
SELECT p, n, c.m = b.m AND c.k = b.k AND c.hash_scheme = b.hash_scheme AS same_shape,
	c.hash_scheme, c.bytes - 16 AS counter_bytes, b.bytes AS bloom_bytes
FROM (VALUES (0.01, 1), (0.01, 1000), (0.001, 100000), (0.01, 2000000)) AS r(p, n),
	bloom_info(counting_bloom_empty(p, n)) AS c, bloom_optimal(p, n) AS b
ORDER BY n;

-- The cast to bloom is the bloom filter of the same values in the same
-- shape, both hash schemes, values of several types, repeated values and
-- NULLs; after removals, that of the values left.
CREATE TEMP TABLE counting_values AS
SELECT i, (i % 300)::int8 AS v, md5(i::text) AS t,
	CASE WHEN i % 7 = 0 THEN convert_from('\xe38182', 'UTF8') || i END AS u
FROM generate_series(1, 3000) AS i;
SELECT shape, scheme,
	bloom(counting_bloom_agg(v, p, n)) = bloom_agg(v, p, n) AS int8_agg,
	bloom(counting_bloom_agg(t, p, n)) = bloom_agg(t, p, n) AS text_agg,
	bloom(counting_bloom_agg(u, p, n)) = bloom_agg(u, p, n) AS non_ascii_agg,
	bloom(bloom_add_all(counting_bloom_empty(p, n), array_agg(t))) =
		bloom_add_all(bloom_empty(p, n), array_agg(t)) AS add_all
FROM counting_values,
	(VALUES ('0.01, 5000', 0.01, 5000, 1), ('0.01, 2000000', 0.01, 2000000, 2)) AS s(shape, p, n, scheme)
GROUP BY shape, scheme, p, n ORDER BY scheme;
-- removals: the filter of 1..3000 less the even ones is that of the odd ones
SELECT bloom(bloom_remove_all(counting_bloom_agg(t, 0.01, 5000), array_agg(t) FILTER (WHERE i % 2 = 0)))
		= bloom_agg(t, 0.01, 5000) FILTER (WHERE i % 2 = 1) AS cast_after_removals,
	bloom_remove_all(counting_bloom_agg(t, 0.01, 5000), array_agg(t) FILTER (WHERE i % 2 = 0))
		= counting_bloom_agg(t, 0.01, 5000) FILTER (WHERE i % 2 = 1) AS counters_after_removals
FROM counting_values;
-- explicit only: no implicit or assignment cast
SELECT castcontext FROM pg_cast WHERE castsource = 'counting_bloom'::regtype AND casttarget = 'bloom'::regtype;

-- add, contains, remove, the operators
CREATE TEMP TABLE counting_f AS SELECT bloom_add_all(counting_bloom_empty(0.01, 1000), ARRAY[1, 2, 3]) AS f;
SELECT bloom_contains(f, 2) AS contains_2, f @> 2 AS op_2, 2 <@ f AS op_2_swapped,
	bloom_contains(f, 4) AS contains_4, bloom_contains(bloom_remove(f, 2), 2) AS removed_2,
	bloom_contains(bloom_remove(f, 2), 3) AS kept_3
FROM counting_f;
-- a value added twice is held until removed twice
SELECT bloom_contains(bloom_remove(bloom_add(f, 2), 2), 2) AS once_left,
	bloom_contains(bloom_remove(bloom_remove(bloom_add(f, 2), 2), 2), 2) AS none_left
FROM counting_f;
-- removing a value some counter proves absent leaves the very same filter
SELECT bloom_remove(f, 4) = f AS unchanged, bloom_remove_all(f, ARRAY[4, 5, 6]) = f AS unchanged_all,
	bloom_remove_all(bloom_remove_all(f, ARRAY[1, 2, 3]), ARRAY[1]) = counting_bloom_empty(0.01, 1000) AS empty_again
FROM counting_f;

-- info and cardinality: values = counter sum / k, exact until a counter saturates
SELECT m, k, hash_scheme, bytes, counters_nonzero, counters_saturated, counter_sum, "values", values_exact
FROM counting_f, bloom_info(f);
SELECT bloom_cardinality(f) AS three, bloom_cardinality(bloom_add(f, 1)) AS four,
	bloom_cardinality(bloom_remove(f, 1)) AS two FROM counting_f;
-- one value added 20 times at m = 100, k = 5: 5 counters saturate at 15,
-- and stay there (and the value held) however often it is removed
CREATE TEMP TABLE counting_saturated AS
SELECT bloom_add_all(counting_bloom_empty_mk(100, 5), array_fill(7, ARRAY[20])) AS f;
SELECT counters_nonzero, counters_saturated, counter_sum, "values", values_exact
FROM counting_saturated, bloom_info(f);
SELECT bloom_contains(bloom_remove_all(f, array_fill(7, ARRAY[40])), 7) AS still_held,
	bloom_remove_all(f, array_fill(7, ARRAY[40])) = f AS unchanged
FROM counting_saturated;

-- union: counter-wise sums, saturating; subtraction: differences
SELECT (a | b) = bloom_add_all(a, ARRAY[3, 4]) AS union_is_both,
	((a | b) - b) = a AS difference_is_a,
	bloom(a | b) = (bloom(a) | bloom(b)) AS union_casts_to_bloom_union
FROM (SELECT bloom_add_all(counting_bloom_empty(0.01, 100), ARRAY[1, 2, 3]) AS a,
	bloom_add_all(counting_bloom_empty(0.01, 100), ARRAY[3, 4]) AS b) AS ab;
SELECT bloom_info(f | f) = bloom_info(f) AS same, (bloom_info(f | f)).counters_saturated AS saturated_after_union,
	(f - bloom_add(counting_bloom_empty_mk(100, 5), 7)) = f AS saturated_minuend_stays
FROM counting_saturated;

-- equality and the hash operator class
SELECT count(*) AS distinct_filters FROM (SELECT DISTINCT f FROM (SELECT bloom_add(counting_bloom_empty(0.01, 100), i % 3) AS f
	FROM generate_series(1, 9) AS i) AS s) AS d;
SELECT count(*) AS groups FROM (SELECT f FROM (SELECT bloom_add(counting_bloom_empty(0.01, 100), i % 3) AS f
	FROM generate_series(1, 9) AS i) AS s GROUP BY f) AS g;
SELECT counting_bloom_hash(f) = counting_bloom_hash(f::text::counting_bloom) AS hash_stable,
	counting_bloom_hash(f) = (counting_bloom_hash_extended(f, 0) & 4294967295)::bit(32)::int4 AS low_bits_of_extended,
	counting_bloom_hash_extended(f, 1) <> counting_bloom_hash_extended(f, 2) AS seeded
FROM counting_f;

-- text and binary forms: round trips through text and binary COPY (send,
-- then recv), with a filter stored out of line and a NULL; the binary form
-- is bloom's header, then the counters
CREATE FUNCTION counting_copy_through_file(source text, target text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	path text := '/tmp/bloomfilter_counting_' || pg_backend_pid() || '.copy';
BEGIN
	EXECUTE format('COPY %s TO %L (FORMAT binary)', source, path);
	BEGIN
		EXECUTE format('COPY %s FROM %L (FORMAT binary)', target, path);
	EXCEPTION WHEN OTHERS THEN
		EXECUTE format('COPY (SELECT WHERE false) TO PROGRAM %L', 'rm -f ' || path);
		RAISE;
	END;
	EXECUTE format('COPY (SELECT WHERE false) TO PROGRAM %L', 'rm -f ' || path);
END
$$;
CREATE TEMP TABLE counting_io_source (id int, f counting_bloom);
INSERT INTO counting_io_source VALUES
	(1, counting_bloom_empty_mk(18, 3)),
	(2, (SELECT f FROM counting_f)),
	(3, bloom_add(counting_bloom_empty_mk(100, 3), convert_from('\x636166c3a9', 'UTF8'))),
	(4, (SELECT counting_bloom_agg(i, 0.01, 100000) FROM generate_series(1, 50000) AS i)),
	(5, NULL);
CREATE TEMP TABLE counting_io_target (LIKE counting_io_source);
SELECT counting_copy_through_file('counting_io_source', 'counting_io_target');
SELECT s.id, t.f = s.f AS same, t.f::text = s.f::text AS same_text, s.f::text::counting_bloom = s.f AS text_round_trip,
	t.f IS NULL AS is_null, pg_column_size(t.f) AS stored_bytes,
	length(counting_bloom_send(s.f)) = (bloom_info(s.f)).bytes - 4 AS send_is_value_less_length_word,
	substr(counting_bloom_send(s.f), 1, 12) = substr(bloom_send(bloom(s.f)), 1, 12) AS bloom_header
FROM counting_io_source AS s JOIN counting_io_target AS t USING (id)
ORDER BY id;
SELECT counting_bloom_send((SELECT f FROM counting_f WHERE false) ) IS NULL AS send_null,
	counting_bloom_send(counting_bloom_empty_mk(18, 3)) AS send_empty_m18;

-- binary input that is not exactly a filter's one binary form: written as a
-- binary COPY field and read back into a counting_bloom column
CREATE TEMP TABLE counting_recv_target (f counting_bloom);
CREATE TEMP TABLE counting_recv_source (b bytea);
CREATE FUNCTION counting_recv_error(bytes bytea, OUT error_code text, OUT error_detail text)
LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM counting_recv_source;
	INSERT INTO counting_recv_source VALUES (bytes);
	PERFORM counting_copy_through_file('counting_recv_source', 'counting_recv_target');
	error_code := 'accepted';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS error_code = RETURNED_SQLSTATE, error_detail = PG_EXCEPTION_DETAIL;
END
$$;
SELECT description, e.*
FROM (VALUES
	('valid, m 18',              '\x010103000000000000000012 00000000000000000000000000000000'::bytea),
	('valid, counter 17 at 15',  '\x010103000000000000000012 00000000000000000f00000000000000'),
	('empty',                    '\x'),
	('header cut short',         '\x0101030000000000000000'),
	('a bloom filter of m 18',   '\x010103000000000000000012 0000000000000000'),
	('counters too long',        '\x010103000000000000000012 000000000000000000000000000000000000000000000000'),
	('padding counter 18 set',   '\x010103000000000000000012 00000000000000000001000000000000'),
	('padding counter 31 set',   '\x010103000000000000000012 00000000000000000000000000000010'),
	('format version 2',         '\x020103000000000000000012 00000000000000000000000000000000'),
	('hash scheme 3',            '\x010303000000000000000012 00000000000000000000000000000000'),
	('hash scheme 2, m 18',      '\x010203000000000000000012 00000000000000000000000000000000'),
	('k 0',                      '\x010100000000000000000012 00000000000000000000000000000000'),
	('unknown flag 2',           '\x010103020000000000000012 00000000000000000000000000000000'),
	('m 0',                      '\x010103000000000000000000'),
	('m above the maximum',      '\x010103000000000080000000 00000000000000000000000000000000'),
	('m 2^64 - 1',               '\x01010300ffffffffffffffff 00000000000000000000000000000000')
) AS t(description, bytes), LATERAL counting_recv_error(bytes) AS e;
SELECT f FROM counting_recv_target;

-- NULL rules, as bloom's: a NULL filter gives NULL, a NULL value or array
-- leaves the filter as it is; the strict functions give NULL
SELECT bloom_add(NULL::counting_bloom, 1) IS NULL AS add_to_null,
	bloom_add(f, NULL::int) = f AS add_null, bloom_add_all(f, NULL::int[]) = f AS add_null_array,
	bloom_add_all(f, ARRAY[NULL, NULL]::int[]) = f AS add_nulls,
	bloom_remove(NULL::counting_bloom, 1) IS NULL AS remove_from_null,
	bloom_remove(f, NULL::int) = f AS remove_null, bloom_remove_all(f, NULL::int[]) = f AS remove_null_array,
	bloom_contains(f, NULL::int) IS NULL AS contains_null, (f @> NULL::int) IS NULL AS op_null,
	(f | NULL) IS NULL AS union_null, (f - NULL) IS NULL AS subtract_null,
	bloom(NULL::counting_bloom) IS NULL AS cast_null
FROM counting_f;
-- untyped NULLs and literals still mean bloom, as before 1.3 (bloom is the
-- preferred type of its category)
SELECT bloom_add(NULL, 1) IS NULL AS untyped_null, bloom_contains('bloom:v1:h1:m18:k3:AAAAAAAAAAA=', 1) AS untyped_literal;

-- Bad input: one line each, with its SQLSTATE
SELECT input, e.error_code, e.error_message
FROM (VALUES
	('SELECT ''garbage''::counting_bloom'),
	('SELECT ''bloom:v1:h1:m18:k3:AAAAAAAAAAA=''::counting_bloom'),
	('SELECT ''counting_bloom:v1:h1:m18:k3:AAAAAAAAAAA=''::counting_bloom'),
	('SELECT ''counting_bloom:v1:h1:m18:k3:AAAAAAAAAAAAAQAAAAAAAA==''::counting_bloom'),
	('SELECT ''counting_bloom:v1:h1:m18:k3:AAAAAAAAAAAAAAAAAAAAAB==''::counting_bloom'),
	('SELECT ''counting_bloom:v2:h1:m18:k3:AAAAAAAAAAAAAAAAAAAAAA==''::counting_bloom'),
	('SELECT ''counting_bloom:v1:h3:m18:k3:AAAAAAAAAAAAAAAAAAAAAA==''::counting_bloom'),
	('SELECT ''counting_bloom:v1:h2:m18:k3:AAAAAAAAAAAAAAAAAAAAAA==''::counting_bloom'),
	('SELECT ''counting_bloom:v1:h1:m18:k65:AAAAAAAAAAAAAAAAAAAAAA==''::counting_bloom'),
	('SELECT ''counting_bloom:v1:h1:m18:k3:f2:AAAAAAAAAAAAAAAAAAAAAA==''::counting_bloom'),
	('SELECT ''counting_bloom:v1:h1:m2147483601:k3:AAAAAAAAAAAAAAAAAAAAAA==''::counting_bloom'),
	('SELECT counting_bloom_empty(0, 100)'),
	('SELECT counting_bloom_empty(1, 100)'),
	('SELECT counting_bloom_empty(0.01, 0)'),
	('SELECT counting_bloom_empty(1e-30, 100)'),
	('SELECT counting_bloom_empty(0.01, 2000000000)'),
	('SELECT counting_bloom_empty_mk(0, 3)'),
	('SELECT counting_bloom_empty_mk(18, 0)'),
	('SELECT counting_bloom_empty_mk(2147483601, 3)'),
	('SELECT counting_bloom_empty(0.01, 100) | counting_bloom_empty(0.01, 1000)'),
	('SELECT counting_bloom_empty(0.01, 100) - counting_bloom_empty_mk(959, 6)'),
	('SELECT counting_bloom_empty(0.01, 100) - bloom_add(counting_bloom_empty(0.01, 100), 1)'),
	('SELECT counting_bloom_agg(i, 0.01, 100 + i % 2) FROM generate_series(1, 3) AS i'),
	('SELECT counting_bloom_agg(i, NULL, 100) FROM generate_series(1, 3) AS i'),
	('SELECT counting_bloom_agg(bloom_value(i), 0.01, 100 * i) FROM generate_series(1, 3) AS i'),
	('SELECT counting_bloom_union_agg(f) FROM (VALUES (counting_bloom_empty(0.01, 10)), (counting_bloom_empty(0.01, 20))) AS v(f)')
) AS bad(input), error_of(input) AS e;

-- Aggregates: the polymorphic form, the bloom_hashed form (state
-- counting_bloom, which Citus splits) and the union all give the filter of
-- adding the rows one by one (a value in two rows counted twice), and a
-- parallel plan gives the same counters as a serial one.  The capacity of
-- 1,000,000 puts the polymorphic form's states (4.8 MB of counters) past
-- the size where their rows go through the prefetching ring
-- (bf_counting_adder): its pending values must reach the serialized and
-- final states, which the bloom_hashed form, with no ring, checks.
CREATE TABLE counting_rows AS SELECT i AS x, i % 1000 AS v, i % 10 AS g FROM generate_series(1, 200000) AS i;
ANALYZE counting_rows;
SELECT counting_bloom_agg(v, 0.01, 1000) = counting_bloom_agg(bloom_value(v), 0.01, 1000) AS hashed_form_same,
	counting_bloom_agg(v, 0.01, 1000) = bloom_add_all(counting_bloom_empty(0.01, 1000), array_agg(v)) AS add_all_same,
	(bloom_info(counting_bloom_agg(v, 0.01, 1000))).counters_saturated AS saturated,
	(bloom_info(counting_bloom_agg(v, 0.01, 1000))).values_exact
FROM counting_rows WHERE x <= 3000;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE counting_serial AS
SELECT counting_bloom_agg(x, 0.01, 1000000) AS a, counting_bloom_agg(bloom_value(x), 0.01, 1000000) AS h
FROM counting_rows;
CREATE TABLE counting_serial_groups AS
SELECT g, counting_bloom_agg(v, 0.01, 1000) AS a FROM counting_rows GROUP BY g;
CREATE TABLE counting_filters AS
SELECT i % 2000 AS g, counting_bloom_agg(i % 500, 0.01, 500) AS a FROM generate_series(1, 40000) AS i GROUP BY 1;
ANALYZE counting_filters;
CREATE TABLE counting_serial_union AS SELECT counting_bloom_union_agg(a) AS u FROM counting_filters;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT counting_bloom_agg(x, 0.01, 1000000) AS a,
	counting_bloom_agg(bloom_value(x), 0.01, 1000000) AS h FROM counting_rows;
CREATE TABLE counting_parallel AS
SELECT counting_bloom_agg(x, 0.01, 1000000) AS a, counting_bloom_agg(bloom_value(x), 0.01, 1000000) AS h
FROM counting_rows;
EXPLAIN (COSTS OFF) SELECT g, counting_bloom_agg(v, 0.01, 1000) AS a FROM counting_rows GROUP BY g;
CREATE TABLE counting_parallel_groups AS
SELECT g, counting_bloom_agg(v, 0.01, 1000) AS a FROM counting_rows GROUP BY g;
EXPLAIN (COSTS OFF) SELECT counting_bloom_union_agg(a) FROM counting_filters;
CREATE TABLE counting_parallel_union AS SELECT counting_bloom_union_agg(a) AS u FROM counting_filters;
SELECT s.a = p.a AS polymorphic_same, s.h = p.h AS hashed_same, s.a = s.h AS forms_same,
	(bloom_info(p.a))."values" AS "values"
FROM counting_serial AS s, counting_parallel AS p;
SELECT count(*) AS groups, count(*) FILTER (WHERE s.a = p.a) AS same
FROM counting_serial_groups AS s JOIN counting_parallel_groups AS p USING (g);
SELECT s.u = p.u AS union_same,
	s.u = (SELECT counting_bloom_agg(i % 500, 0.01, 500) FROM generate_series(1, 40000) AS i) AS union_is_all
FROM counting_serial_union AS s, counting_parallel_union AS p;
-- no rows in any worker: the empty filter of a constant request
SELECT counting_bloom_agg(x, 0.01, 1000000) = counting_bloom_empty(0.01, 1000000) AS no_rows_empty,
	counting_bloom_agg(bloom_value(x), 0.01, 1000000) = counting_bloom_empty(0.01, 1000000) AS hashed_no_rows_empty,
	counting_bloom_union_agg(NULL::counting_bloom) IS NULL AS union_no_rows_null
FROM counting_rows WHERE x < 0;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
-- the support functions called from SQL return new values and leave their arguments alone
SELECT counting_bloom_union_agg_fold(f, f) = (f | f) AS fold_from_sql, f = (SELECT f FROM counting_f) AS argument_unchanged,
	counting_bloom_agg_hashed_transfn(f, bloom_value(9), 0.01, 1000) = bloom_add(f, 9) AS transfn_from_sql
FROM counting_f;
SELECT f = (SELECT bloom_add_all(counting_bloom_empty(0.01, 1000), ARRAY[1, 2, 3])) AS stored_unchanged FROM counting_f;
DROP TABLE counting_rows, counting_serial, counting_parallel, counting_serial_groups,
	counting_parallel_groups, counting_filters, counting_serial_union, counting_parallel_union;

-- No false negatives at scale: 1,000,000 values, the even ones removed,
-- under both hash schemes: every odd value is still held, and the filter
-- holds exactly 500,000 values.  Among the removed values the false
-- positives are at most 1.2 times the filter's rate (0.01 at its capacity;
-- each filter holds 500,000 values, below its capacity) and are printed:
-- hashing is the same on every machine, so the counts are too.
CREATE TEMP TABLE counting_big AS
SELECT scheme, bloom_remove_all(counting_bloom_agg(i, 0.01, n), ARRAY(SELECT generate_series(2, 1000000, 2))) AS f
FROM (VALUES (1, 1000000), (2, 2000000)) AS s(scheme, n), generate_series(1, 1000000) AS i
GROUP BY scheme;
SELECT scheme, (bloom_info(f)).hash_scheme AS hash_scheme, (bloom_info(f)).counters_saturated,
	(bloom_info(f))."values", (bloom_info(f)).values_exact,
	(SELECT count(*) FROM generate_series(1, 1000000, 2) AS i WHERE NOT f @> i) AS false_negatives,
	fp.false_positives, fp.false_positives <= 500000 * 0.01 * 1.2 AS within_rate
FROM counting_big,
	LATERAL (SELECT count(*) AS false_positives FROM generate_series(2, 1000000, 2) AS i WHERE f @> i) AS fp
ORDER BY scheme;
