/* bloomfilter--1.0--1.1.sql: from 1.0 to 1.1 */

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.1'" to load this file. \quit

-- Names from PostgreSQL itself are qualified with pg_catalog; the extension's
-- own objects are found in its schema, which ALTER EXTENSION puts first on the
-- search_path (with pg_temp last), so a hostile search_path captures nothing.

--
-- Planner support: how many rows bloom_contains, bloom_contained_by, @> and
-- <@ let through, from the filter (when the planner can see it) and the
-- column's statistics, and what a call costs (src/bloom_support.c).
--

CREATE FUNCTION bloom_contains_support(pg_catalog.internal) RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'bloom_contains_support'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_contains_support(pg_catalog.internal) IS
	'planner support for bloom_contains and bloom_contained_by: selectivity and per-call cost';

ALTER FUNCTION bloom_contains(bloom, anyelement) SUPPORT bloom_contains_support;
ALTER FUNCTION bloom_contained_by(anyelement, bloom) SUPPORT bloom_contains_support;

CREATE FUNCTION bloom_contains_selectivity(pg_catalog.internal, pg_catalog.oid,
										   pg_catalog.internal, pg_catalog.int4)
	RETURNS pg_catalog.float8
	AS 'MODULE_PATHNAME', 'bloom_contains_selectivity'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_contains_selectivity(pg_catalog.internal, pg_catalog.oid,
											   pg_catalog.internal, pg_catalog.int4) IS
	'restriction selectivity estimator for the @> and <@ operators';

ALTER OPERATOR @> (bloom, anyelement) SET (RESTRICT = bloom_contains_selectivity);
ALTER OPERATOR <@ (anyelement, bloom) SET (RESTRICT = bloom_contains_selectivity);
