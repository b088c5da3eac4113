/* bloomfilter--1.0.sql: the bloom type and its SQL surface */

\echo Use "CREATE EXTENSION bloomfilter" to load this file. \quit

--
-- The type
--

CREATE TYPE bloom;

CREATE FUNCTION bloom_in(pg_catalog.cstring) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_out(bloom) RETURNS pg_catalog.cstring
	AS 'MODULE_PATHNAME', 'bloom_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_recv(pg_catalog.internal) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_recv'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_send(bloom) RETURNS pg_catalog.bytea
	AS 'MODULE_PATHNAME', 'bloom_send'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- STORAGE = external: the bits of a useful filter look random and do not
-- compress, so trying pglz on every write only costs time; large filters go
-- out of line uncompressed, which also lets readers fetch them in slices.
-- ALIGNMENT = double keeps the bit array 8-byte aligned for word operations.
CREATE TYPE bloom (
	INPUT = bloom_in,
	OUTPUT = bloom_out,
	RECEIVE = bloom_recv,
	SEND = bloom_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = external
);

COMMENT ON TYPE bloom IS 'Bloom filter: a set of values with no false negatives and a tunable false-positive rate';

--
-- Construction
--

CREATE FUNCTION bloom_empty(false_positive_rate pg_catalog.float8, capacity pg_catalog.int8) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_empty'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_empty(pg_catalog.float8, pg_catalog.int8) IS
	'empty filter sized for capacity distinct values at the given false-positive rate';

CREATE FUNCTION bloom_empty_mk(m pg_catalog.int8, k pg_catalog.int4) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_empty_mk'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_empty_mk(pg_catalog.int8, pg_catalog.int4) IS
	'empty filter of exactly m bits and k hash probes';

-- Not STRICT: a NULL element returns the filter unchanged, so
-- UPDATE t SET f = bloom_add(f, x) never wipes a stored filter.
CREATE FUNCTION bloom_add(bloom, pg_catalog.anyelement) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_add'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add(bloom, pg_catalog.anyelement) IS
	'a copy of the filter with the value added (a NULL value leaves it unchanged)';

--
-- Membership
--

CREATE FUNCTION bloom_contains(bloom, pg_catalog.anyelement) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'bloom_contains'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_contains(bloom, pg_catalog.anyelement) IS
	'false if the value was certainly never added; true if it probably was';

CREATE FUNCTION bloom_contained_by(pg_catalog.anyelement, bloom) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'bloom_contained_by'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_contained_by(pg_catalog.anyelement, bloom) IS
	'bloom_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @> (
	LEFTARG = bloom,
	RIGHTARG = pg_catalog.anyelement,
	FUNCTION = bloom_contains,
	COMMUTATOR = <@
);
COMMENT ON OPERATOR @> (bloom, pg_catalog.anyelement) IS 'filter probably contains value';

CREATE OPERATOR <@ (
	LEFTARG = pg_catalog.anyelement,
	RIGHTARG = bloom,
	FUNCTION = bloom_contained_by,
	COMMUTATOR = @>
);
COMMENT ON OPERATOR <@ (pg_catalog.anyelement, bloom) IS 'value probably contained in filter';

--
-- Set operations
--

CREATE FUNCTION bloom_union(VARIADIC bloom[]) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_union'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_union(bloom[]) IS
	'bitwise OR of filters of one shape: contains every value any of them contains (NULLs skipped)';

CREATE FUNCTION bloom_intersection(VARIADIC bloom[]) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_intersection'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_intersection(bloom[]) IS
	'bitwise AND of filters of one shape: contains every value all of them contain (NULLs skipped)';

CREATE FUNCTION bloom_or(bloom, bloom) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_or'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_or(bloom, bloom) IS 'union of two filters, for the | operator';

CREATE FUNCTION bloom_and(bloom, bloom) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_and'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_and(bloom, bloom) IS 'intersection of two filters, for the & operator';

CREATE OPERATOR | (
	LEFTARG = bloom,
	RIGHTARG = bloom,
	FUNCTION = bloom_or,
	COMMUTATOR = |
);
COMMENT ON OPERATOR | (bloom, bloom) IS 'union of two filters of one shape';

CREATE OPERATOR & (
	LEFTARG = bloom,
	RIGHTARG = bloom,
	FUNCTION = bloom_and,
	COMMUTATOR = &
);
COMMENT ON OPERATOR & (bloom, bloom) IS 'intersection of two filters of one shape';

--
-- Equality and hashing, so DISTINCT, GROUP BY and UNION work on filters
--

CREATE FUNCTION bloom_eq(bloom, bloom) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'bloom_eq'
	LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION bloom_eq(bloom, bloom) IS 'same shape and same bits';

CREATE FUNCTION bloom_ne(bloom, bloom) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'bloom_ne'
	LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION bloom_ne(bloom, bloom) IS 'different shape or different bits';

CREATE FUNCTION bloom_hash(bloom) RETURNS pg_catalog.int4
	AS 'MODULE_PATHNAME', 'bloom_hash'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_hash(bloom) IS 'hash of a whole filter, for the hash operator class';

CREATE FUNCTION bloom_hash_extended(bloom, pg_catalog.int8) RETURNS pg_catalog.int8
	AS 'MODULE_PATHNAME', 'bloom_hash_extended'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_hash_extended(bloom, pg_catalog.int8) IS
	'seeded 64-bit hash of a whole filter, for the hash operator class';

CREATE OPERATOR = (
	LEFTARG = bloom,
	RIGHTARG = bloom,
	FUNCTION = bloom_eq,
	COMMUTATOR = =,
	NEGATOR = <>,
	RESTRICT = pg_catalog.eqsel,
	JOIN = pg_catalog.eqjoinsel,
	HASHES
);
COMMENT ON OPERATOR = (bloom, bloom) IS 'same shape and same bits';

CREATE OPERATOR <> (
	LEFTARG = bloom,
	RIGHTARG = bloom,
	FUNCTION = bloom_ne,
	COMMUTATOR = <>,
	NEGATOR = =,
	RESTRICT = pg_catalog.neqsel,
	JOIN = pg_catalog.neqjoinsel
);
COMMENT ON OPERATOR <> (bloom, bloom) IS 'different shape or different bits';

CREATE OPERATOR CLASS bloom_hash_ops
	DEFAULT FOR TYPE bloom USING hash AS
	OPERATOR 1 = (bloom, bloom),
	FUNCTION 1 bloom_hash(bloom),
	FUNCTION 2 bloom_hash_extended(bloom, pg_catalog.int8);

--
-- Estimates (Swamidass & Baldi)
--

CREATE FUNCTION bloom_cardinality(bloom) RETURNS pg_catalog.float8
	AS 'MODULE_PATHNAME', 'bloom_cardinality'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_cardinality(bloom) IS
	'estimated number of distinct values added: -(m/k) ln(1 - X/m); Infinity when saturated';

CREATE FUNCTION bloom_union_cardinality(bloom, bloom) RETURNS pg_catalog.float8
	AS 'MODULE_PATHNAME', 'bloom_union_cardinality'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_union_cardinality(bloom, bloom) IS
	'estimated number of distinct values in the union of two filters of one shape';

CREATE FUNCTION bloom_intersection_cardinality(bloom, bloom) RETURNS pg_catalog.float8
	AS 'MODULE_PATHNAME', 'bloom_intersection_cardinality'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_intersection_cardinality(bloom, bloom) IS
	'estimated number of distinct values in both filters: n(A) + n(B) - n(A union B), at least 0';

CREATE FUNCTION bloom_jaccard(bloom, bloom) RETURNS pg_catalog.float8
	AS 'MODULE_PATHNAME', 'bloom_jaccard'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_jaccard(bloom, bloom) IS
	'estimated Jaccard similarity: intersection cardinality / union cardinality';

CREATE FUNCTION bloom_info(bloom,
	OUT m pg_catalog.int8,
	OUT k pg_catalog.int4,
	OUT bytes pg_catalog.int4,
	OUT bits_set pg_catalog.int8,
	OUT fill_ratio pg_catalog.float8,
	OUT estimated_cardinality pg_catalog.float8,
	OUT false_positive_rate pg_catalog.float8)
	AS 'MODULE_PATHNAME', 'bloom_info'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_info(bloom) IS
	'shape, size, fill and current expected false-positive rate (X/m)^k of a filter';

--
-- Aggregates.  The transition state is an internal, growing-in-place filter;
-- it is serialized only to move between parallel workers.
--

CREATE FUNCTION bloom_agg_transfn(pg_catalog.internal, pg_catalog.anyelement, pg_catalog.float8, pg_catalog.int8)
	RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'bloom_agg_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_transfn(pg_catalog.internal, pg_catalog.anyelement, pg_catalog.float8, pg_catalog.int8) IS
	'transition function of bloom_agg';

CREATE FUNCTION bloom_agg_finalfn(pg_catalog.internal) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_agg_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_finalfn(pg_catalog.internal) IS
	'final function of bloom_agg: the filter, or an empty one of the requested shape when no rows';

CREATE FUNCTION bloom_union_agg_transfn(pg_catalog.internal, bloom) RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'bloom_union_agg_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_union_agg_transfn(pg_catalog.internal, bloom) IS
	'transition function of bloom_union_agg';

CREATE FUNCTION bloom_intersection_agg_transfn(pg_catalog.internal, bloom) RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'bloom_intersection_agg_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_intersection_agg_transfn(pg_catalog.internal, bloom) IS
	'transition function of bloom_intersection_agg';

CREATE FUNCTION bloom_setop_agg_finalfn(pg_catalog.internal) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_setop_agg_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_setop_agg_finalfn(pg_catalog.internal) IS
	'final function of bloom_union_agg and bloom_intersection_agg: the filter, NULL when no non-NULL rows';

CREATE FUNCTION bloom_union_agg_combinefn(pg_catalog.internal, pg_catalog.internal) RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'bloom_union_agg_combinefn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_union_agg_combinefn(pg_catalog.internal, pg_catalog.internal) IS
	'combine function of bloom_agg and bloom_union_agg (bitwise OR of partial filters)';

CREATE FUNCTION bloom_intersection_agg_combinefn(pg_catalog.internal, pg_catalog.internal) RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'bloom_intersection_agg_combinefn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_intersection_agg_combinefn(pg_catalog.internal, pg_catalog.internal) IS
	'combine function of bloom_intersection_agg (bitwise AND of partial filters)';

CREATE FUNCTION bloom_agg_serialfn(pg_catalog.internal) RETURNS pg_catalog.bytea
	AS 'MODULE_PATHNAME', 'bloom_agg_serialfn'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_serialfn(pg_catalog.internal) IS
	'serialize a partial filter to send it between parallel workers';

CREATE FUNCTION bloom_agg_deserialfn(pg_catalog.bytea, pg_catalog.internal) RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'bloom_agg_deserialfn'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_deserialfn(pg_catalog.bytea, pg_catalog.internal) IS
	'deserialize (and validate) a partial filter received from a parallel worker';

CREATE AGGREGATE bloom_agg(pg_catalog.anyelement, pg_catalog.float8, pg_catalog.int8) (
	SFUNC = bloom_agg_transfn,
	STYPE = pg_catalog.internal,
	FINALFUNC = bloom_agg_finalfn,
	COMBINEFUNC = bloom_union_agg_combinefn,
	SERIALFUNC = bloom_agg_serialfn,
	DESERIALFUNC = bloom_agg_deserialfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(pg_catalog.anyelement, pg_catalog.float8, pg_catalog.int8) IS
	'filter of the non-NULL values, sized by (false_positive_rate, capacity)';

CREATE AGGREGATE bloom_union_agg(bloom) (
	SFUNC = bloom_union_agg_transfn,
	STYPE = pg_catalog.internal,
	FINALFUNC = bloom_setop_agg_finalfn,
	COMBINEFUNC = bloom_union_agg_combinefn,
	SERIALFUNC = bloom_agg_serialfn,
	DESERIALFUNC = bloom_agg_deserialfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_union_agg(bloom) IS 'union of the non-NULL filters (all of one shape)';

CREATE AGGREGATE bloom_intersection_agg(bloom) (
	SFUNC = bloom_intersection_agg_transfn,
	STYPE = pg_catalog.internal,
	FINALFUNC = bloom_setop_agg_finalfn,
	COMBINEFUNC = bloom_intersection_agg_combinefn,
	SERIALFUNC = bloom_agg_serialfn,
	DESERIALFUNC = bloom_agg_deserialfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_intersection_agg(bloom) IS 'intersection of the non-NULL filters (all of one shape)';
