--
-- Soft input errors (16 and later): bloom_in reports bad text with
-- ereturn, so pg_input_is_valid and pg_input_error_info answer without an
-- ERROR.  PostgreSQL 15 has neither function (input_validity_1.out).
--
SELECT pg_input_is_valid('garbage', 'bloom') AS garbage_is_valid,
	   pg_input_is_valid(bloom_empty_mk(64, 1)::text, 'bloom') AS empty_filter_is_valid,
	   pg_input_is_valid(bloom_add(bloom_empty(0.01, 100), 42)::text, 'bloom') AS filter_is_valid;
-- the message and SQLSTATE a hard error would have had
SELECT message, detail, sql_error_code FROM pg_input_error_info('garbage', 'bloom');
-- a text form cut short
SELECT pg_input_is_valid(left(bloom_empty(0.01, 100)::text, -1), 'bloom') AS truncated_is_valid;
-- and a bad value outside those functions is still an ERROR
SELECT 'garbage'::bloom;
