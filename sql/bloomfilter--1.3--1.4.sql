/* bloomfilter--1.3--1.4.sql: from 1.3 to 1.4 */

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.4'" to load this file. \quit

-- Names from PostgreSQL itself are qualified with pg_catalog; the extension's
-- own objects are found in its schema, which ALTER EXTENSION puts first on the
-- search_path (with pg_temp last), so a hostile search_path captures nothing.

--
-- The set-up on Citus (src/distributed/setup.c).  Citus splits the
-- polymorphic aggregates only when the library is loaded at server start,
-- after citus, so that its planner hook runs before Citus's in every
-- session.  bloom_setup_check() says what is missing; installing or
-- updating the extension in a database with Citus warns when something is.
--

CREATE FUNCTION bloom_setup_check() RETURNS pg_catalog.text
	AS 'MODULE_PATHNAME', 'bloom_setup_check'
	LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_setup_check() IS
	'NULL when Citus is not in this database or bloomfilter is loaded after citus in shared_preload_libraries; else the setting to change';

DO $$
DECLARE
	missing pg_catalog.text := bloom_setup_check();
BEGIN
	IF missing IS NOT NULL THEN
		RAISE WARNING 'bloomfilter is not loaded after citus in shared_preload_libraries'
			USING DETAIL = 'Citus splits bloom_agg(x, ...) and the other polymorphic aggregates '
				'between its nodes only when bloomfilter''s planner hook runs before Citus''s '
				'from the start of every session: otherwise Citus 13 and 14 bring every row to '
				'the coordinator, and later versions fail with "could not confirm type correctness".',
			HINT = missing;
	END IF;
END
$$;
