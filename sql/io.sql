--
-- Input and output: the text form and the binary form (send/recv).
--
-- Text form:   bloom:v<format>:h<scheme>:m<m>:k<k>:<base64 of the bit array>
-- Binary form: format, scheme, k, flags (1 byte each), m (8 bytes, big-endian),
--              then the bit array.
-- Both accept exactly one spelling of each filter and reject everything else.
--

--
-- Text round trips
--
SELECT bloom_empty_mk(18, 3);
SELECT 'bloom:v1:h1:m18:k3:AAAAAAAAAAA='::bloom;
-- bit 17, the last of m = 18, is the highest bit that may be set
SELECT 'bloom:v1:h1:m18:k3:AAACAAAAAAA='::bloom;
SELECT bloom_add(bloom_add(bloom_empty_mk(100, 3), 1), 'one'::text);
SELECT bloom_add(bloom_add(bloom_empty_mk(100, 3), 1), 'one'::text)::text::bloom;
SELECT bloom_empty_mk(1, 64);
SELECT bloom_empty_mk(64, 1), bloom_empty_mk(65, 1);

SELECT f = f::text::bloom AS same, f::text = f::text::bloom::text AS same_text,
	length(f::text) AS text_length
FROM (SELECT bloom_empty(0.01, 100000) AS f) AS s;

SELECT f = f::text::bloom AS same, f::text = f::text::bloom::text AS same_text
FROM (SELECT bloom_agg(i, 0.01, 100000) AS f FROM generate_series(1, 10000) AS i) AS s;

--
-- Text input that is not exactly a filter's one text form
--
CREATE FUNCTION bloom_in_error(input text, OUT error_code text, OUT error_detail text)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM input::bloom;
	error_code := 'accepted';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS error_code = RETURNED_SQLSTATE, error_detail = PG_EXCEPTION_DETAIL;
END
$$;

-- every failure is the same error, with a detail saying what is wrong
SELECT 'bloom:v2:h1:m18:k3:AAAAAAAAAAA='::bloom;

SELECT description, input, e.*
FROM (VALUES
	('valid',                       'bloom:v1:h1:m18:k3:AAAAAAAAAAA='),
	('wrong prefix',                'blom:v1:h1:m18:k3:AAAAAAAAAAA='),
	('upper-case prefix',           'BLOOM:v1:h1:m18:k3:AAAAAAAAAAA='),
	('format version 0',            'bloom:v0:h1:m18:k3:AAAAAAAAAAA='),
	('format version 2',            'bloom:v2:h1:m18:k3:AAAAAAAAAAA='),
	('hash scheme 0',               'bloom:v1:h0:m18:k3:AAAAAAAAAAA='),
	('hash scheme 2',               'bloom:v1:h2:m18:k3:AAAAAAAAAAA='),
	('k 0',                         'bloom:v1:h1:m18:k0:AAAAAAAAAAA='),
	('k 65',                        'bloom:v1:h1:m18:k65:AAAAAAAAAAA='),
	('m 0',                         'bloom:v1:h1:m0:k3:'),
	('m above the maximum',         'bloom:v1:h1:m8589934401:k3:AAAAAAAAAAA='),
	('m overflows 64 bits',         'bloom:v1:h1:m18446744073709551634:k3:AAAAAAAAAAA='),
	('m 2^32, bits of m 18',        'bloom:v1:h1:m4294967296:k3:AAAAAAAAAAA='),
	('m leading zero',              'bloom:v1:h1:m018:k3:AAAAAAAAAAA='),
	('k leading zero',              'bloom:v1:h1:m18:k03:AAAAAAAAAAA='),
	('version leading zero',        'bloom:v01:h1:m18:k3:AAAAAAAAAAA='),
	('m negative',                  'bloom:v1:h1:m-18:k3:AAAAAAAAAAA='),
	('m with plus sign',            'bloom:v1:h1:m+18:k3:AAAAAAAAAAA='),
	('m empty',                     'bloom:v1:h1:m:k3:AAAAAAAAAAA='),
	('m not a number',              'bloom:v1:h1:mx:k3:AAAAAAAAAAA='),
	('fields out of order',         'bloom:v1:h1:k3:m18:AAAAAAAAAAA='),
	('field missing',               'bloom:v1:h1:m18:AAAAAAAAAAA='),
	('base64 too short',            'bloom:v1:h1:m18:k3:AAAAAAAA'),
	('base64 too long',             'bloom:v1:h1:m18:k3:AAAAAAAAAAAAAAAA'),
	('base64 of a wrong length',    'bloom:v1:h1:m18:k3:AAAAAAAAAAAAAAA='),
	('base64 without padding',      'bloom:v1:h1:m18:k3:AAAAAAAAAAA'),
	('base64 invalid character',    'bloom:v1:h1:m18:k3:AAAAAAAA!AA='),
	('base64 url-safe alphabet',    'bloom:v1:h1:m18:k3:AAAAAAAA-_A='),
	('base64 unused bits set',      'bloom:v1:h1:m18:k3:AAAAAAAAAAB='),
	('padding bit 18 set',          'bloom:v1:h1:m18:k3:AAAEAAAAAAA='),
	('all bits set',                'bloom:v1:h1:m18:k3://////////8='),
	('trailing garbage',            'bloom:v1:h1:m18:k3:AAAAAAAAAAA=x'),
	('trailing space',              'bloom:v1:h1:m18:k3:AAAAAAAAAAA= '),
	('leading space',               ' bloom:v1:h1:m18:k3:AAAAAAAAAAA='),
	('trailing newline',            E'bloom:v1:h1:m18:k3:AAAAAAAAAAA=\n'),
	('empty string',                '')
) AS t(description, input), LATERAL bloom_in_error(input) AS e;

-- PostgreSQL 16 and later: text input reports soft errors, so
-- pg_input_is_valid() and friends work (nothing to check before 16).
DO $$
DECLARE
	valid boolean;
	invalid boolean;
	detail text;
BEGIN
	IF current_setting('server_version_num')::int >= 160000 THEN
		EXECUTE $q$SELECT pg_input_is_valid('bloom:v1:h1:m18:k3:AAAAAAAAAAA=', 'bloom'),
			pg_input_is_valid('bloom:v1:h1:m18:k3:AAAEAAAAAAA=', 'bloom'),
			(pg_input_error_info('bloom:v1:h1:m18:k3:AAAEAAAAAAA=', 'bloom')).detail$q$
			INTO valid, invalid, detail;
		ASSERT valid, 'pg_input_is_valid rejects a valid filter';
		ASSERT NOT invalid, 'pg_input_is_valid accepts an invalid filter';
		ASSERT detail IS NOT NULL, 'soft error without detail';
	END IF;
END
$$;

--
-- Binary form
--
SELECT bloom_send(bloom_empty_mk(18, 3));
SELECT bloom_send(bloom_add(bloom_empty_mk(18, 3), 1));
SELECT bloom_send('bloom:v1:h1:m18:k3:AAACAAAAAAA='::bloom);
-- 12 header bytes and the bit array: the value less its 4-byte length word
SELECT length(bloom_send(f)) AS send_bytes, pg_column_size(f) AS value_bytes
FROM (SELECT bloom_empty(0.01, 1000000) AS f) AS s;

-- Round trip through binary COPY (bloom_send, then bloom_recv), with a
-- filter large enough to be stored out of line, and a NULL.
CREATE TABLE io_source (id int, f bloom);
INSERT INTO io_source VALUES
	(1, bloom_empty_mk(18, 3)),
	(2, 'bloom:v1:h1:m18:k3:AAACAAAAAAA='),
	(3, bloom_add(bloom_add(bloom_empty_mk(100, 3), 1), 'one'::text)),
	(4, (SELECT bloom_agg(i, 0.01, 1000000) FROM generate_series(1, 100000) AS i)),
	(5, NULL);
CREATE TABLE io_target (LIKE io_source);

-- a server-side file under /tmp, unique to this backend, removed afterwards
CREATE FUNCTION copy_through_file(source text, target text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	path text := '/tmp/bloomfilter_io_' || pg_backend_pid() || '.copy';
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

SELECT copy_through_file('io_source', 'io_target');
SELECT s.id, t.f = s.f AS same, t.f::text = s.f::text AS same_text,
	t.f IS NULL AS is_null, pg_column_size(t.f) AS stored_bytes
FROM io_source AS s JOIN io_target AS t USING (id)
ORDER BY id;

--
-- Binary input that is not exactly a filter's one binary form.  The bytes
-- are written as a binary COPY field and read back into a bloom column, so
-- they reach bloom_recv unchanged.
--
CREATE TABLE recv_target (f bloom);
CREATE TABLE recv_source (b bytea);
CREATE FUNCTION bloom_recv_error(bytes bytea, OUT error_code text, OUT error_detail text)
LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM recv_source;
	INSERT INTO recv_source VALUES (bytes);
	PERFORM copy_through_file('recv_source', 'recv_target');
	error_code := 'accepted';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS error_code = RETURNED_SQLSTATE, error_detail = PG_EXCEPTION_DETAIL;
END
$$;

-- the error, once in full (without its context, which names the file)
\set SHOW_CONTEXT never
SELECT copy_through_file('(SELECT ''\x020103000000000000000012''::bytea)', 'recv_target');
\set SHOW_CONTEXT errors

SELECT description, bytes, e.*
FROM (VALUES
	('valid',                 '\x010103000000000000000012 0000000000000000'::bytea),
	('valid, bit 17 set',     '\x010103000000000000000012 0000020000000000'),
	('empty',                 '\x'),
	('header cut short',      '\x0101030000000000000000'),
	('header only',           '\x010103000000000000000012'),
	('format version 0',      '\x000103000000000000000012 0000000000000000'),
	('format version 2',      '\x020103000000000000000012 0000000000000000'),
	('hash scheme 0',         '\x010003000000000000000012 0000000000000000'),
	('hash scheme 2',         '\x010203000000000000000012 0000000000000000'),
	('k 0',                   '\x010100000000000000000012 0000000000000000'),
	('k 65',                  '\x010141000000000000000012 0000000000000000'),
	('flag 1, text as UTF-8', '\x010103010000000000000012 0000000000000000'),
	('unknown flag 2',        '\x010103020000000000000012 0000000000000000'),
	('m 0',                   '\x010103000000000000000000'),
	('m above the maximum',   '\x010103000000000200000000 0000000000000000'),
	('m 2^64 - 1',            '\x01010300ffffffffffffffff 0000000000000000'),
	('m 2^32, bits of m 18',  '\x010103000000000100000000 0000000000000000'),
	('bits too short',        '\x010103000000000000000012 00000000'),
	('bits too long',         '\x010103000000000000000012 00000000000000000000000000000000'),
	('m little-endian',       '\x010103001200000000000000 0000000000000000'),
	('padding bit 18 set',    '\x010103000000000000000012 0000040000000000'),
	('padding bit 63 set',    '\x010103000000000000000012 0000000000000080')
) AS t(description, bytes), LATERAL bloom_recv_error(bytes) AS e;

-- what was accepted above arrived intact
SELECT f FROM recv_target;
