--
-- Hashing: the canonical encoding of values under hash scheme 1.
--
-- The bit positions below are part of the stored format: a filter written by
-- this release must find its values in every later one, so these outputs
-- must never change.  They were checked independently of the extension
-- (xxhsum -H2 over the canonical bytes, positions computed in Python).
--

-- The bit positions a filter has set, read from its text form: get_bit(b, i)
-- is exactly bit i of the filter's layout.
CREATE FUNCTION bit_positions(f bloom) RETURNS int8[]
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT array_agg(byte_number * 8 + bit_number ORDER BY byte_number, bit_number)
	-- OFFSET 0: decode once, not once per byte
	FROM (SELECT decode(split_part(f::text, ':', 6), 'base64') AS b OFFSET 0) AS s,
		LATERAL generate_series(0, length(s.b) - 1) AS byte_number,
		LATERAL generate_series(0, 7) AS bit_number
	WHERE get_byte(s.b, byte_number) <> 0
		AND get_bit(s.b, byte_number * 8 + bit_number) = 1
$$;

-- The 7 positions of one value in a filter of m = 1000003 bits.
CREATE FUNCTION golden(anyelement) RETURNS int8[]
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT bit_positions(bloom_add(bloom_empty_mk(1000003, 7), $1))
$$;

--
-- Golden vectors: one or more values of every type with its own encoding,
-- and a few that go through the type's send function.  Encodings of
-- unrelated types may coincide (int8 0 and float8 0 are both eight zero
-- bytes, timestamp infinity is int8 max): a filter holds values of one kind,
-- and mixing kinds could only add false positives.
--
SELECT 'int2 42' AS value, golden(42::int2) AS positions
UNION ALL SELECT 'int8 0', golden(0::int8)
UNION ALL SELECT 'int8 -1', golden(-1::int8)
UNION ALL SELECT 'int8 -9223372036854775808', golden('-9223372036854775808'::int8)
UNION ALL SELECT 'int8 9223372036854775807', golden(9223372036854775807::int8)
UNION ALL SELECT 'numeric 1.5', golden(1.5::numeric)
UNION ALL SELECT 'numeric -0.001', golden(-0.001::numeric)
UNION ALL SELECT 'numeric 9223372036854775808', golden(9223372036854775808::numeric)
UNION ALL SELECT 'numeric 1e20', golden(1e20::numeric)
UNION ALL SELECT 'numeric NaN', golden('NaN'::numeric)
UNION ALL SELECT 'numeric Infinity', golden('Infinity'::numeric)
UNION ALL SELECT 'numeric -Infinity', golden('-Infinity'::numeric)
UNION ALL SELECT 'float8 1.5', golden(1.5::float8)
UNION ALL SELECT 'float8 0', golden(0::float8)
UNION ALL SELECT 'float8 NaN', golden('NaN'::float8)
UNION ALL SELECT 'float8 Infinity', golden('Infinity'::float8)
UNION ALL SELECT 'float8 -Infinity', golden('-Infinity'::float8)
UNION ALL SELECT 'float4 0.1', golden(0.1::float4)
UNION ALL SELECT 'text hello', golden('hello'::text)
UNION ALL SELECT 'text (empty)', golden(''::text)
UNION ALL SELECT 'bytea \x00ff', golden('\x00ff'::bytea)
UNION ALL SELECT 'uuid', golden('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)
UNION ALL SELECT 'date 2024-01-01', golden('2024-01-01'::date)
UNION ALL SELECT 'date 5874897-12-31', golden('5874897-12-31'::date)
UNION ALL SELECT 'timestamp 1999-12-31 23:59:59.999999', golden('1999-12-31 23:59:59.999999'::timestamp)
UNION ALL SELECT 'timestamp infinity', golden('infinity'::timestamp)
UNION ALL SELECT 'timestamp -infinity', golden('-infinity'::timestamp)
UNION ALL SELECT 'boolean false', golden(false)
UNION ALL SELECT 'boolean true', golden(true)
UNION ALL SELECT 'int4[] {1,2,3} (send)', golden('{1,2,3}'::int4[])
UNION ALL SELECT 'inet 192.168.0.1/24 (send)', golden('192.168.0.1/24'::inet)
UNION ALL SELECT 'interval 1 day (send)', golden('1 day'::interval);

-- The bytes the send-based vectors hash, so a change in a send function
-- would show here first.
SELECT int4send(1), array_send('{1,2,3}'::int4[]), inet_send('192.168.0.1/24'::inet),
	interval_send('1 day'::interval);

--
-- Values that compare equal hash equally across types.  Each row compares
-- the positions of two values; all must be true.
--
CREATE DOMAIN hashing_id AS int8 CHECK (VALUE > 0);
CREATE TEMP TABLE nan_bits (x float8);

-- A NaN with a payload of our choosing, built from its bits through binary
-- COPY (float8 input and arithmetic only make the usual ones).  This one is
-- signalling: on i386, where PostgreSQL's float8 functions return doubles
-- through the x87 unit, it arrives quieted, 7ff0...01 becoming 7ff8...01
-- (expected/hashing_1.out).
DO $$
DECLARE
	path text := '/tmp/bloomfilter_hashing_' || pg_backend_pid() || '.copy';
BEGIN
	EXECUTE format('COPY (SELECT %L::bytea) TO %L (FORMAT binary)', '\x7ff0000000000001', path);
	EXECUTE format('COPY nan_bits FROM %L (FORMAT binary)', path);
	EXECUTE format('COPY (SELECT WHERE false) TO PROGRAM %L', 'rm -f ' || path);
END
$$;
SELECT float8send(x) AS payload_nan_bits, float8send(-x) AS negated_bits FROM nan_bits;
SELECT float8send(-'NaN'::float8) AS negative_nan_bits;

WITH e AS (SELECT bloom_empty_mk(1000003, 7) AS f)
SELECT 'int2 42 = int8 42' AS comparison,
	bit_positions(bloom_add(f, 42::int2)) = bit_positions(bloom_add(f, 42::int8)) AS equal FROM e
UNION ALL SELECT 'int4 42 = int8 42',
	bit_positions(bloom_add(f, 42::int4)) = bit_positions(bloom_add(f, 42::int8)) FROM e
UNION ALL SELECT 'int4 -7 = int2 -7',
	bit_positions(bloom_add(f, -7::int4)) = bit_positions(bloom_add(f, -7::int2)) FROM e
UNION ALL SELECT 'numeric 42 = int8 42',
	bit_positions(bloom_add(f, 42::numeric)) = bit_positions(bloom_add(f, 42::int8)) FROM e
UNION ALL SELECT 'numeric 42.000 = int8 42',
	bit_positions(bloom_add(f, 42.000::numeric)) = bit_positions(bloom_add(f, 42::int8)) FROM e
UNION ALL SELECT 'numeric 0.000 = int8 0',
	bit_positions(bloom_add(f, 0.000::numeric)) = bit_positions(bloom_add(f, 0::int8)) FROM e
UNION ALL SELECT 'numeric -9223372036854775808.0 = int8 min',
	bit_positions(bloom_add(f, -9223372036854775808.0::numeric)) = bit_positions(bloom_add(f, '-9223372036854775808'::int8)) FROM e
UNION ALL SELECT 'numeric 1.50 = numeric 1.5',
	bit_positions(bloom_add(f, 1.50::numeric)) = bit_positions(bloom_add(f, 1.5::numeric)) FROM e
UNION ALL SELECT 'numeric 1e20 = numeric 100000000000000000000.00',
	bit_positions(bloom_add(f, 1e20::numeric)) = bit_positions(bloom_add(f, 100000000000000000000.00::numeric)) FROM e
UNION ALL SELECT 'float4 1.5 = float8 1.5',
	bit_positions(bloom_add(f, 1.5::float4)) = bit_positions(bloom_add(f, 1.5::float8)) FROM e
UNION ALL SELECT 'float8 -0 = float8 0',
	bit_positions(bloom_add(f, '-0'::float8)) = bit_positions(bloom_add(f, 0::float8)) FROM e
UNION ALL SELECT 'float4 -0 = float8 0',
	bit_positions(bloom_add(f, '-0'::float4)) = bit_positions(bloom_add(f, 0::float8)) FROM e
UNION ALL SELECT 'float4 NaN = float8 NaN',
	bit_positions(bloom_add(f, 'NaN'::float4)) = bit_positions(bloom_add(f, 'NaN'::float8)) FROM e
UNION ALL SELECT 'float8 -NaN = float8 NaN',
	bit_positions(bloom_add(f, -'NaN'::float8)) = bit_positions(bloom_add(f, 'NaN'::float8)) FROM e
UNION ALL SELECT 'float8 NaN with payload = float8 NaN',
	bit_positions(bloom_add(f, x)) = bit_positions(bloom_add(f, 'NaN'::float8)) FROM e, nan_bits
UNION ALL SELECT 'float8 Infinity - Infinity = float8 NaN',
	bit_positions(bloom_add(f, 'Infinity'::float8 - 'Infinity'::float8)) = bit_positions(bloom_add(f, 'NaN'::float8)) FROM e
UNION ALL SELECT 'varchar abc = text abc',
	bit_positions(bloom_add(f, 'abc'::varchar)) = bit_positions(bloom_add(f, 'abc'::text)) FROM e
UNION ALL SELECT 'char(5) ''abc  '' = text abc',
	bit_positions(bloom_add(f, 'abc'::char(5))) = bit_positions(bloom_add(f, 'abc'::text)) FROM e
UNION ALL SELECT 'bpchar ''abc   '' = bpchar ''abc''',
	bit_positions(bloom_add(f, 'abc   '::bpchar)) = bit_positions(bloom_add(f, 'abc'::bpchar)) FROM e
UNION ALL SELECT 'name abc = text abc',
	bit_positions(bloom_add(f, 'abc'::name)) = bit_positions(bloom_add(f, 'abc'::text)) FROM e
UNION ALL SELECT 'bytea \x616263 = text abc',
	bit_positions(bloom_add(f, '\x616263'::bytea)) = bit_positions(bloom_add(f, 'abc'::text)) FROM e
UNION ALL SELECT 'date 2024-01-01 = timestamp 2024-01-01 00:00',
	bit_positions(bloom_add(f, '2024-01-01'::date)) = bit_positions(bloom_add(f, '2024-01-01 00:00'::timestamp)) FROM e
UNION ALL SELECT 'date 1900-02-28 = timestamp 1900-02-28 00:00',
	bit_positions(bloom_add(f, '1900-02-28'::date)) = bit_positions(bloom_add(f, '1900-02-28 00:00'::timestamp)) FROM e
UNION ALL SELECT 'date infinity = timestamp infinity',
	bit_positions(bloom_add(f, 'infinity'::date)) = bit_positions(bloom_add(f, 'infinity'::timestamp)) FROM e
UNION ALL SELECT 'date -infinity = timestamp -infinity',
	bit_positions(bloom_add(f, '-infinity'::date)) = bit_positions(bloom_add(f, '-infinity'::timestamp)) FROM e
UNION ALL SELECT 'timestamptz 2024-01-01 00:00+00 = timestamp 2024-01-01 00:00',
	bit_positions(bloom_add(f, '2024-01-01 00:00+00'::timestamptz)) = bit_positions(bloom_add(f, '2024-01-01 00:00'::timestamp)) FROM e
UNION ALL SELECT 'timestamptz 2024-01-01 00:00-05 = timestamp 2024-01-01 05:00',
	bit_positions(bloom_add(f, '2024-01-01 00:00-05'::timestamptz)) = bit_positions(bloom_add(f, '2024-01-01 05:00'::timestamp)) FROM e
UNION ALL SELECT 'hashing_id 42 (domain over int8) = int8 42',
	bit_positions(bloom_add(f, 42::hashing_id)) = bit_positions(bloom_add(f, 42::int8)) FROM e;

-- Values that differ must not be confused by the encoding (each row: the
-- two values set different bits).
WITH e AS (SELECT bloom_empty_mk(1000003, 7) AS f)
SELECT 'text ''abc '' <> text abc' AS comparison,
	bit_positions(bloom_add(f, 'abc '::text)) <> bit_positions(bloom_add(f, 'abc'::text)) AS different FROM e
UNION ALL SELECT 'numeric 1.5 <> float8 1.5 (different encodings)',
	bit_positions(bloom_add(f, 1.5::numeric)) <> bit_positions(bloom_add(f, 1.5::float8)) FROM e
UNION ALL SELECT 'numeric 9223372036854775807.5 <> int8 max',
	bit_positions(bloom_add(f, 9223372036854775807.5::numeric)) <> bit_positions(bloom_add(f, 9223372036854775807::int8)) FROM e
UNION ALL SELECT 'date 2024-01-01 <> timestamp 2024-01-01 00:00:00.000001',
	bit_positions(bloom_add(f, '2024-01-01'::date)) <> bit_positions(bloom_add(f, '2024-01-01 00:00:00.000001'::timestamp)) FROM e
UNION ALL SELECT 'boolean true <> boolean false',
	bit_positions(bloom_add(f, true)) <> bit_positions(bloom_add(f, false)) FROM e;

-- The timestamptz encoding is the instant, whatever the session's time zone.
SET timezone = 'America/New_York';
SELECT golden('2024-01-01 00:00'::timestamptz) = golden('2024-01-01 05:00'::timestamp) AS same_instant;
RESET timezone;
