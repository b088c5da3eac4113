/* bloomfilter--1.0--1.1.sql: from 1.0 to 1.1 */

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.1'" to load this file. \quit

-- Names from PostgreSQL itself are qualified with pg_catalog; the extension's
-- own objects are found in its schema, which ALTER EXTENSION puts first on the
-- search_path (with pg_temp last), so a hostile search_path captures nothing.

--
-- Sizing: plan a filter before building one (src/bloom_sizing.c)
--

CREATE FUNCTION bloom_optimal(false_positive_rate pg_catalog.float8, capacity pg_catalog.int8,
	OUT m pg_catalog.int8,
	OUT k pg_catalog.int4,
	OUT bytes pg_catalog.int4,
	OUT bits_per_item pg_catalog.float8,
	OUT hash_scheme pg_catalog.int4)
	AS 'MODULE_PATHNAME', 'bloom_optimal'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_optimal(pg_catalog.float8, pg_catalog.int8) IS
	'shape (m, k), size in bytes, bits per item and hash scheme (1, or 2 for blocked filters of 2 MiB and more) of the filter bloom_empty(false_positive_rate, capacity) builds';

CREATE FUNCTION bloom_expected_fpr(m pg_catalog.int8, k pg_catalog.int4, n pg_catalog.int8,
	OUT classic pg_catalog.float8,
	OUT goel_gupta_bound pg_catalog.float8)
	AS 'MODULE_PATHNAME', 'bloom_expected_fpr'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_expected_fpr(pg_catalog.int8, pg_catalog.int4, pg_catalog.int8) IS
	'false-positive rate of m bits and k probes after n distinct values: classic (1 - e^(-kn/m))^k and the Goel-Gupta upper bound (1 - e^(-k(n + 0.5)/(m - 1)))^k';

--
-- Comments on the 1.0 objects that had none, so that \df+ and \dx+ explain
-- every object (sql/comments.sql checks that none is left without one)
--

COMMENT ON FUNCTION bloom_in(pg_catalog.cstring) IS
	'text input of bloom: bloom:v1:h<hash scheme>:m<m>:k<k>:<base64 bits>, validated';
COMMENT ON FUNCTION bloom_out(bloom) IS
	'text output of bloom: bloom:v1:h<hash scheme>:m<m>:k<k>:<base64 bits>';
COMMENT ON FUNCTION bloom_recv(pg_catalog.internal) IS
	'binary input of bloom (COPY BINARY, binary protocol), validated';
COMMENT ON FUNCTION bloom_send(bloom) IS
	'binary output of bloom: header with m big-endian, then the bit array';
COMMENT ON OPERATOR FAMILY bloom_hash_ops USING hash IS
	'hashing of whole filters, consistent with =';
COMMENT ON OPERATOR CLASS bloom_hash_ops USING hash IS
	'default hash operator class of bloom, for DISTINCT, GROUP BY, UNION and hash joins on filters';

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

ALTER FUNCTION bloom_contains(bloom, pg_catalog.anyelement) SUPPORT bloom_contains_support;
ALTER FUNCTION bloom_contained_by(pg_catalog.anyelement, bloom) SUPPORT bloom_contains_support;

CREATE FUNCTION bloom_contains_selectivity(pg_catalog.internal, pg_catalog.oid,
										   pg_catalog.internal, pg_catalog.int4)
	RETURNS pg_catalog.float8
	AS 'MODULE_PATHNAME', 'bloom_contains_selectivity'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_contains_selectivity(pg_catalog.internal, pg_catalog.oid,
											   pg_catalog.internal, pg_catalog.int4) IS
	'restriction selectivity estimator for the @> and <@ operators';

ALTER OPERATOR @> (bloom, pg_catalog.anyelement) SET (RESTRICT = bloom_contains_selectivity);
ALTER OPERATOR <@ (pg_catalog.anyelement, bloom) SET (RESTRICT = bloom_contains_selectivity);

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

CREATE FUNCTION bloom_autoagg_transfn(pg_catalog.internal, pg_catalog.anyelement)
	RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'bloom_autoagg_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_transfn(pg_catalog.internal, pg_catalog.anyelement) IS
	'transition function of bloom_agg(value)';

CREATE FUNCTION bloom_autoagg_transfn(pg_catalog.internal, pg_catalog.anyelement, pg_catalog.float8)
	RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'bloom_autoagg_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_transfn(pg_catalog.internal, pg_catalog.anyelement, pg_catalog.float8) IS
	'transition function of bloom_agg(value, false_positive_rate)';

CREATE FUNCTION bloom_autoagg_default_finalfn(pg_catalog.internal) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_autoagg_default_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_default_finalfn(pg_catalog.internal) IS
	'final function of bloom_agg(value): the filter sized for the distinct values seen';

CREATE FUNCTION bloom_autoagg_finalfn(pg_catalog.internal) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_autoagg_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_finalfn(pg_catalog.internal) IS
	'final function of bloom_agg(value, false_positive_rate): the filter sized for the distinct values seen';

CREATE FUNCTION bloom_autoagg_combinefn(pg_catalog.internal, pg_catalog.internal) RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'bloom_autoagg_combinefn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_combinefn(pg_catalog.internal, pg_catalog.internal) IS
	'combine function of the self-sizing bloom_agg (merges hash sets and sketches)';

CREATE FUNCTION bloom_autoagg_serialfn(pg_catalog.internal) RETURNS pg_catalog.bytea
	AS 'MODULE_PATHNAME', 'bloom_autoagg_serialfn'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_serialfn(pg_catalog.internal) IS
	'serialize a partial self-sizing bloom_agg state to send it between parallel workers';

CREATE FUNCTION bloom_autoagg_deserialfn(pg_catalog.bytea, pg_catalog.internal) RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'bloom_autoagg_deserialfn'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_deserialfn(pg_catalog.bytea, pg_catalog.internal) IS
	'deserialize (and validate) a partial self-sizing bloom_agg state received from a parallel worker';

CREATE AGGREGATE bloom_agg(pg_catalog.anyelement) (
	SFUNC = bloom_autoagg_transfn,
	STYPE = pg_catalog.internal,
	FINALFUNC = bloom_autoagg_default_finalfn,
	COMBINEFUNC = bloom_autoagg_combinefn,
	SERIALFUNC = bloom_autoagg_serialfn,
	DESERIALFUNC = bloom_autoagg_deserialfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(pg_catalog.anyelement) IS
	'filter of the non-NULL values at false-positive rate 0.01, sized for the distinct values seen';

CREATE AGGREGATE bloom_agg(pg_catalog.anyelement, pg_catalog.float8) (
	SFUNC = bloom_autoagg_transfn,
	STYPE = pg_catalog.internal,
	FINALFUNC = bloom_autoagg_finalfn,
	COMBINEFUNC = bloom_autoagg_combinefn,
	SERIALFUNC = bloom_autoagg_serialfn,
	DESERIALFUNC = bloom_autoagg_deserialfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(pg_catalog.anyelement, pg_catalog.float8) IS
	'filter of the non-NULL values at the given false-positive rate, sized for the distinct values seen';
