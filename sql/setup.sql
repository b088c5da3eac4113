--
-- setup: the helpers the other test files share, defined once.  pg_regress
-- runs this file first (REGRESS in the Makefile) in the database every file
-- then uses, and no file drops them.
--

-- What a statement raises: SQLSTATE, message and detail, or 'ok' (and NULLs).
CREATE FUNCTION error_detail_of(query text, OUT error_code text, OUT error_message text,
	OUT error_detail text)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE query;
	error_code := 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS error_code = RETURNED_SQLSTATE, error_message = MESSAGE_TEXT,
		error_detail = PG_EXCEPTION_DETAIL;
END
$$;

-- What a statement raises: SQLSTATE and message, or 'ok'.
CREATE FUNCTION error_of(query text, OUT error_code text, OUT error_message text)
LANGUAGE sql AS $$
	SELECT e.error_code, e.error_message FROM error_detail_of(query) AS e
$$;

SELECT * FROM error_of('SELECT 1');
SELECT * FROM error_of('SELECT 1 / 0');
SELECT * FROM error_detail_of($$DO 'BEGIN RAISE invalid_parameter_value USING
	MESSAGE = ''the message'', DETAIL = ''The detail.''; END'$$);
