/* bloomfilter--1.0--1.1.sql: from 1.0 to 1.1 */

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.1'" to load this file. \quit

-- Names from PostgreSQL itself are qualified with pg_catalog; the extension's
-- own objects are found in its schema, which ALTER EXTENSION puts first on the
-- search_path (with pg_temp last), so a hostile search_path captures nothing.

--
-- Self-sizing aggregation: bloom_agg without a capacity, and bloom_empty()
-- with defaults.  The filter is sized in the final function for the number
-- of distinct values actually aggregated (see src/bloom_autoagg.c).
--

CREATE FUNCTION bloom_empty() RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_empty_default'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_empty() IS
	'empty filter sized for 10000 distinct values at false-positive rate 0.01';

CREATE FUNCTION bloom_autoagg_transfn(internal, anyelement)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_autoagg_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_transfn(internal, anyelement) IS
	'transition function of bloom_agg(value)';

CREATE FUNCTION bloom_autoagg_transfn(internal, anyelement, pg_catalog.float8)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_autoagg_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_transfn(internal, anyelement, pg_catalog.float8) IS
	'transition function of bloom_agg(value, false_positive_rate)';

CREATE FUNCTION bloom_autoagg_default_finalfn(internal) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_autoagg_default_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_default_finalfn(internal) IS
	'final function of bloom_agg(value): the filter sized for the distinct values seen';

CREATE FUNCTION bloom_autoagg_finalfn(internal) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_autoagg_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_finalfn(internal) IS
	'final function of bloom_agg(value, false_positive_rate): the filter sized for the distinct values seen';

CREATE FUNCTION bloom_autoagg_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_autoagg_combinefn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_combinefn(internal, internal) IS
	'combine function of the self-sizing bloom_agg (merges hash sets and sketches)';

CREATE FUNCTION bloom_autoagg_serialfn(internal) RETURNS pg_catalog.bytea
	AS 'MODULE_PATHNAME', 'bloom_autoagg_serialfn'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_serialfn(internal) IS
	'serialize a partial self-sizing bloom_agg state to send it between parallel workers';

CREATE FUNCTION bloom_autoagg_deserialfn(pg_catalog.bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_autoagg_deserialfn'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_deserialfn(pg_catalog.bytea, internal) IS
	'deserialize (and validate) a partial self-sizing bloom_agg state received from a parallel worker';

CREATE AGGREGATE bloom_agg(anyelement) (
	SFUNC = bloom_autoagg_transfn,
	STYPE = internal,
	FINALFUNC = bloom_autoagg_default_finalfn,
	COMBINEFUNC = bloom_autoagg_combinefn,
	SERIALFUNC = bloom_autoagg_serialfn,
	DESERIALFUNC = bloom_autoagg_deserialfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(anyelement) IS
	'filter of the non-NULL values at false-positive rate 0.01, sized for the distinct values seen';

CREATE AGGREGATE bloom_agg(anyelement, pg_catalog.float8) (
	SFUNC = bloom_autoagg_transfn,
	STYPE = internal,
	FINALFUNC = bloom_autoagg_finalfn,
	COMBINEFUNC = bloom_autoagg_combinefn,
	SERIALFUNC = bloom_autoagg_serialfn,
	DESERIALFUNC = bloom_autoagg_deserialfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(anyelement, pg_catalog.float8) IS
	'filter of the non-NULL values at the given false-positive rate, sized for the distinct values seen';
