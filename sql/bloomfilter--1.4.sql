/* bloomfilter--1.4.sql: the extension at 1.4, complete (CREATE EXTENSION runs
   this alone; ALTER EXTENSION UPDATE runs the update scripts, and
   t/017_install_script.pl checks that both give the same objects) */

\echo Use "CREATE EXTENSION bloomfilter" to load this file. \quit

-- Names from PostgreSQL itself are qualified with pg_catalog; the extension's
-- own objects are found in its schema, which CREATE EXTENSION puts first on
-- the search_path (with pg_temp last), so a hostile search_path captures nothing.

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

--
-- Statistics of bloom columns (src/planner/analyze.c): ANALYZE keeps the
-- sampled filters' estimated cardinalities, false-positive rates, fill and
-- k, from which the planner estimates a filter it cannot see: an InitPlan's
-- (SELECT f FROM t ...) or a join to a table of filters (src/planner/initplan.c,
-- src/planner/selectivity.c).
--

CREATE FUNCTION bloom_typanalyze(pg_catalog.internal) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'bloom_typanalyze'
	LANGUAGE C STRICT PARALLEL SAFE;

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
	STORAGE = external,
	ANALYZE = bloom_typanalyze,
	PREFERRED = true
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
-- Planner support: how many rows bloom_contains, bloom_contained_by, @> and
-- <@ let through, from the filter (when the planner can see it) and the
-- column's statistics, and what a call costs (src/planner/support.c).
--

CREATE FUNCTION bloom_contains_support(pg_catalog.internal) RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'bloom_contains_support'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

--
-- Membership
--

CREATE FUNCTION bloom_contains(bloom, pg_catalog.anyelement) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'bloom_contains'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT bloom_contains_support;
COMMENT ON FUNCTION bloom_contains(bloom, pg_catalog.anyelement) IS
	'false if the value was certainly never added; true if it probably was';

CREATE FUNCTION bloom_contained_by(pg_catalog.anyelement, bloom) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'bloom_contained_by'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT bloom_contains_support;
COMMENT ON FUNCTION bloom_contained_by(pg_catalog.anyelement, bloom) IS
	'bloom_contains with the arguments swapped, for the <@ operator';

CREATE FUNCTION bloom_contains_selectivity(pg_catalog.internal, pg_catalog.oid,
										   pg_catalog.internal, pg_catalog.int4)
	RETURNS pg_catalog.float8
	AS 'MODULE_PATHNAME', 'bloom_contains_selectivity'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_contains_join_selectivity(pg_catalog.internal, pg_catalog.oid,
												pg_catalog.internal, pg_catalog.int2,
												pg_catalog.internal)
	RETURNS pg_catalog.float8
	AS 'MODULE_PATHNAME', 'bloom_contains_join_selectivity'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @> (
	LEFTARG = bloom,
	RIGHTARG = pg_catalog.anyelement,
	FUNCTION = bloom_contains,
	COMMUTATOR = <@,
	RESTRICT = bloom_contains_selectivity,
	JOIN = bloom_contains_join_selectivity
);
COMMENT ON OPERATOR @> (bloom, pg_catalog.anyelement) IS 'filter probably contains value';

CREATE OPERATOR <@ (
	LEFTARG = pg_catalog.anyelement,
	RIGHTARG = bloom,
	FUNCTION = bloom_contained_by,
	COMMUTATOR = @>,
	RESTRICT = bloom_contains_selectivity,
	JOIN = bloom_contains_join_selectivity
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

CREATE FUNCTION bloom_setop_agg_finalfn(pg_catalog.internal) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_setop_agg_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION bloom_union_agg_combinefn(pg_catalog.internal, pg_catalog.internal) RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'bloom_union_agg_combinefn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

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

--
-- Sizing: plan a filter before building one (src/types/bloom/sizing.c)
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
-- Comments on objects above that were created without one, so that \df+ and \dx+ explain
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
-- Self-sizing aggregation: bloom_agg without a capacity, and bloom_empty()
-- with defaults.  The filter is sized in the final function for the number
-- of distinct values actually aggregated (see src/agg/self_sizing.c, src/agg/self_sizing_state.c).
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
	LANGUAGE C IMMUTABLE PARALLEL SAFE
	COST 24000000;
COMMENT ON FUNCTION bloom_autoagg_combinefn(pg_catalog.internal, pg_catalog.internal) IS
	'combine function of the self-sizing bloom_agg (merges hash sets and sketches)';

CREATE FUNCTION bloom_autoagg_serialfn(pg_catalog.internal) RETURNS pg_catalog.bytea
	AS 'MODULE_PATHNAME', 'bloom_autoagg_serialfn'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	COST 9000000;
COMMENT ON FUNCTION bloom_autoagg_serialfn(pg_catalog.internal) IS
	'serialize a partial self-sizing bloom_agg state to send it between parallel workers';

CREATE FUNCTION bloom_autoagg_deserialfn(pg_catalog.bytea, pg_catalog.internal) RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'bloom_autoagg_deserialfn'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	COST 6000000;
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

--
-- Filters in the shape of another (src/types/bloom/setops.c, src/agg/bloom_agg.c, src/agg/filter_state.c), so
-- that filters stored under one release keep combining with filters built
-- under a later one whose bloom_agg(value, p, n) gives another shape (1.0's
-- scheme 1 filters of 2 MiB and more, 1.1's blocked ones).
--

CREATE FUNCTION bloom_empty_like(template bloom) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_empty_like'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_empty_like(bloom) IS
	'empty filter with the m, k and hash scheme of the template (its bits are not read)';

-- Not STRICT: the template is checked in every row, also when the value is
-- NULL, and a NULL template must be told from a missing one.
CREATE FUNCTION bloom_agg_like_transfn(pg_catalog.internal, pg_catalog.anyelement, bloom)
	RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'bloom_agg_like_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_like_transfn(pg_catalog.internal, pg_catalog.anyelement, bloom) IS
	'transition function of bloom_agg_like';

-- bloom_agg_like shares bloom_agg's state, and so its combine, serialize
-- and deserialize functions, and the set operation aggregates' final function.

CREATE AGGREGATE bloom_agg_like(value pg_catalog.anyelement, template bloom) (
	SFUNC = bloom_agg_like_transfn,
	STYPE = pg_catalog.internal,
	FINALFUNC = bloom_setop_agg_finalfn,
	COMBINEFUNC = bloom_union_agg_combinefn,
	SERIALFUNC = bloom_agg_serialfn,
	DESERIALFUNC = bloom_agg_deserialfn,
	PARALLEL = SAFE
);

-- The array type bloom[] is a member of the extension from PostgreSQL 17 on,
-- and is listed with the others in \dT+.
COMMENT ON TYPE bloom[] IS 'array of bloom filters (the variadic bloom_union and bloom_intersection take one)';

--
-- Many values in one call (src/types/bloom/element.c): a stored filter is rewritten
-- whole by every UPDATE, so adding values a batch at a time costs one
-- rewrite per batch instead of one per value (doc/operations.md).
--

-- Not STRICT: a NULL array leaves the filter as it is, as bloom_add's NULL
-- value does, where STRICT would return NULL.
CREATE FUNCTION bloom_add_all(bloom, pg_catalog.anyarray) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_add_all'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add_all(bloom, pg_catalog.anyarray) IS
	'copy with every element of the array added, as bloom_add of each in turn (NULL elements skipped; a NULL array: unchanged)';

--
-- Automatic semi-join prefilters for postgres_fdw (src/prefilter/prefilter.c,
-- doc/auto-prefilter.md): with bloomfilter.auto_prefilter on, the filter of
-- an added prefilter passes through this identity function, so that EXPLAIN
-- VERBOSE shows where it came from.
--

CREATE FUNCTION bloom_auto_prefilter(bloom) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_auto_prefilter'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_auto_prefilter(bloom) IS
	'its argument: marks the filter of a prefilter that bloomfilter.auto_prefilter added to a join';

--
-- Aggregates that Citus can split (src/agg/bloom_agg.c, src/agg/filter_state.c, src/agg/self_sizing.c, src/agg/self_sizing_state.c,
-- src/types/bloom_hashed.c).  Citus runs an aggregate on its workers and combines
-- the partial states on the coordinator when the aggregate has a combine
-- function, its transition state is of a real type (not internal), and its
-- declared argument types are those of its arguments: it fails at run time
-- on a polymorphic aggregate it splits.  So:
--
-- - bloom_union_agg and bloom_intersection_agg take a state of type bloom,
--   replaced in place (CREATE OR REPLACE AGGREGATE keeps their identity, so
--   views, materialized views and functions that use them keep working);
-- - bloom_value(x) hashes a value once, as bloom_add would, and bloom_agg
--   and bloom_agg_shaped take it, with states of type bloom and
--   bloom_agg_state: bloom_agg(bloom_value(x), ...) is the filter
--   bloom_agg(x, ...) builds, and the form to use on Citus;
-- - the polymorphic aggregates keep their internal states, which Citus
--   aggregates on the coordinator as before rather than failing.
--

CREATE TYPE bloom_hashed;

CREATE FUNCTION bloom_hashed_in(pg_catalog.cstring) RETURNS bloom_hashed
	AS 'MODULE_PATHNAME', 'bloom_hashed_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_hashed_out(bloom_hashed) RETURNS pg_catalog.cstring
	AS 'MODULE_PATHNAME', 'bloom_hashed_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_hashed_recv(pg_catalog.internal) RETURNS bloom_hashed
	AS 'MODULE_PATHNAME', 'bloom_hashed_recv'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_hashed_send(bloom_hashed) RETURNS pg_catalog.bytea
	AS 'MODULE_PATHNAME', 'bloom_hashed_send'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE bloom_hashed (
	INPUT = bloom_hashed_in,
	OUTPUT = bloom_hashed_out,
	RECEIVE = bloom_hashed_recv,
	SEND = bloom_hashed_send,
	INTERNALLENGTH = 24,
	ALIGNMENT = double,
	STORAGE = plain
);
COMMENT ON TYPE bloom_hashed IS
	'a value hashed as bloom_add hashes it, for the aggregates Citus splits: bloom_agg(bloom_value(x), ...)';
-- Array types are members of the extension from PostgreSQL 17 on, and are
-- listed with the others in \dT+.
COMMENT ON TYPE bloom_hashed[] IS 'array of bloom_hashed values';
COMMENT ON FUNCTION bloom_hashed_in(pg_catalog.cstring) IS 'text input of bloom_hashed';
COMMENT ON FUNCTION bloom_hashed_out(bloom_hashed) IS 'text output of bloom_hashed';
COMMENT ON FUNCTION bloom_hashed_recv(pg_catalog.internal) IS 'binary input of bloom_hashed';
COMMENT ON FUNCTION bloom_hashed_send(bloom_hashed) IS 'binary output of bloom_hashed';

CREATE FUNCTION bloom_value(pg_catalog.anyelement) RETURNS bloom_hashed
	AS 'MODULE_PATHNAME', 'bloom_value'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_value(pg_catalog.anyelement) IS
	'the value hashed as bloom_add hashes it: bloom_agg(bloom_value(x), ...) builds the filter bloom_agg(x, ...) builds, and Citus splits it';

-- The self-sizing bloom_agg's state: a hash set of the values while they
-- are few, then a sketch.  Its binary form is the partial state's, and its
-- text form "bloom_agg_state:" and the base64 of the binary form.
CREATE TYPE bloom_agg_state;

CREATE FUNCTION bloom_agg_state_in(pg_catalog.cstring) RETURNS bloom_agg_state
	AS 'MODULE_PATHNAME', 'bloom_agg_state_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_agg_state_out(bloom_agg_state) RETURNS pg_catalog.cstring
	AS 'MODULE_PATHNAME', 'bloom_agg_state_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_agg_state_recv(pg_catalog.internal) RETURNS bloom_agg_state
	AS 'MODULE_PATHNAME', 'bloom_agg_state_recv'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_agg_state_send(bloom_agg_state) RETURNS pg_catalog.bytea
	AS 'MODULE_PATHNAME', 'bloom_agg_state_send'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE bloom_agg_state (
	INPUT = bloom_agg_state_in,
	OUTPUT = bloom_agg_state_out,
	RECEIVE = bloom_agg_state_recv,
	SEND = bloom_agg_state_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = external
);
COMMENT ON TYPE bloom_agg_state IS
	'partial state of the self-sizing bloom_agg(bloom_hashed [, false_positive_rate]): what Citus moves from its workers to the coordinator';
COMMENT ON TYPE bloom_agg_state[] IS 'array of bloom_agg_state values';
COMMENT ON FUNCTION bloom_agg_state_in(pg_catalog.cstring) IS 'text input of bloom_agg_state';
COMMENT ON FUNCTION bloom_agg_state_out(bloom_agg_state) IS 'text output of bloom_agg_state';
COMMENT ON FUNCTION bloom_agg_state_recv(pg_catalog.internal) IS 'binary input of bloom_agg_state';
COMMENT ON FUNCTION bloom_agg_state_send(bloom_agg_state) IS 'binary output of bloom_agg_state';

-- The transition and combine functions modify their first argument in
-- place only when the aggregate machinery passes its own state; called from
-- SQL they return a new value and leave their arguments alone.  Not STRICT:
-- the first row creates the state, and a NULL value or filter adds nothing.

CREATE FUNCTION bloom_agg_filter_transfn(bloom, bloom_hashed, pg_catalog.float8, pg_catalog.int8)
	RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_agg_filter_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_filter_transfn(bloom, bloom_hashed, pg_catalog.float8, pg_catalog.int8) IS
	'transition function of bloom_agg(bloom_hashed, false_positive_rate, capacity)';

CREATE FUNCTION bloom_agg_shaped_transfn(bloom, bloom_hashed, pg_catalog.text)
	RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_agg_shaped_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_shaped_transfn(bloom, bloom_hashed, pg_catalog.text) IS
	'transition function of bloom_agg_shaped(bloom_hashed, shape)';

-- Both the transition and the combine function of the set operations: the
-- union or intersection of the state and one more filter.
CREATE FUNCTION bloom_union_agg_fold(bloom, bloom) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_union_agg_fold'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_union_agg_fold(bloom, bloom) IS
	'transition and combine function of bloom_union_agg, combine function of bloom_agg(bloom_hashed, false_positive_rate, capacity) and bloom_agg_shaped (bitwise OR)';

CREATE FUNCTION bloom_intersection_agg_fold(bloom, bloom) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_intersection_agg_fold'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_intersection_agg_fold(bloom, bloom) IS
	'transition and combine function of bloom_intersection_agg (bitwise AND)';

-- Not STRICT: with no rows, bloom_agg(bloom_hashed, p, n) returns the empty
-- filter of its request when p and n are constants.
CREATE FUNCTION bloom_agg_filter_finalfn(bloom) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_agg_filter_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_filter_finalfn(bloom) IS
	'final function of the aggregates whose state is a filter: a copy of it; with no rows NULL, or for bloom_agg(bloom_hashed, p, n) with constant p and n the empty filter of that request';

CREATE FUNCTION bloom_autoagg_state_transfn(bloom_agg_state, bloom_hashed)
	RETURNS bloom_agg_state
	AS 'MODULE_PATHNAME', 'bloom_autoagg_state_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_state_transfn(bloom_agg_state, bloom_hashed) IS
	'transition function of bloom_agg(bloom_hashed)';

CREATE FUNCTION bloom_autoagg_state_transfn(bloom_agg_state, bloom_hashed, pg_catalog.float8)
	RETURNS bloom_agg_state
	AS 'MODULE_PATHNAME', 'bloom_autoagg_state_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_state_transfn(bloom_agg_state, bloom_hashed, pg_catalog.float8) IS
	'transition function of bloom_agg(bloom_hashed, false_positive_rate)';

CREATE FUNCTION bloom_autoagg_state_combinefn(bloom_agg_state, bloom_agg_state)
	RETURNS bloom_agg_state
	AS 'MODULE_PATHNAME', 'bloom_autoagg_state_combinefn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE
	COST 39000000;
COMMENT ON FUNCTION bloom_autoagg_state_combinefn(bloom_agg_state, bloom_agg_state) IS
	'combine function of the self-sizing bloom_agg(bloom_hashed [, false_positive_rate])';

CREATE FUNCTION bloom_autoagg_state_default_finalfn(bloom_agg_state) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_autoagg_state_default_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_state_default_finalfn(bloom_agg_state) IS
	'final function of bloom_agg(bloom_hashed): the filter sized for the distinct values seen';

CREATE FUNCTION bloom_autoagg_state_finalfn(bloom_agg_state) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_autoagg_state_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_autoagg_state_finalfn(bloom_agg_state) IS
	'final function of bloom_agg(bloom_hashed, false_positive_rate): the filter sized for the distinct values seen';

CREATE AGGREGATE bloom_agg(bloom_hashed, pg_catalog.float8, pg_catalog.int8) (
	SFUNC = bloom_agg_filter_transfn,
	STYPE = bloom,
	FINALFUNC = bloom_agg_filter_finalfn,
	COMBINEFUNC = bloom_union_agg_fold,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(bloom_hashed, pg_catalog.float8, pg_catalog.int8) IS
	'filter of the non-NULL hashed values, sized by (false_positive_rate, capacity): bloom_agg(x, p, n) in the form Citus splits';

CREATE AGGREGATE bloom_agg(bloom_hashed) (
	SFUNC = bloom_autoagg_state_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_autoagg_state_default_finalfn,
	COMBINEFUNC = bloom_autoagg_state_combinefn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(bloom_hashed) IS
	'filter of the non-NULL hashed values at false-positive rate 0.01, sized for the distinct values seen: bloom_agg(x) in the form Citus splits';

CREATE AGGREGATE bloom_agg(bloom_hashed, pg_catalog.float8) (
	SFUNC = bloom_autoagg_state_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = bloom_autoagg_state_finalfn,
	COMBINEFUNC = bloom_autoagg_state_combinefn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(bloom_hashed, pg_catalog.float8) IS
	'filter of the non-NULL hashed values at the given false-positive rate, sized for the distinct values seen: bloom_agg(x, p) in the form Citus splits';

CREATE AGGREGATE bloom_union_agg(bloom) (
	SFUNC = bloom_union_agg_fold,
	STYPE = bloom,
	FINALFUNC = bloom_agg_filter_finalfn,
	COMBINEFUNC = bloom_union_agg_fold,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_union_agg(bloom) IS 'union of the non-NULL filters (all of one shape)';

CREATE AGGREGATE bloom_intersection_agg(bloom) (
	SFUNC = bloom_intersection_agg_fold,
	STYPE = bloom,
	FINALFUNC = bloom_agg_filter_finalfn,
	COMBINEFUNC = bloom_intersection_agg_fold,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_intersection_agg(bloom) IS 'intersection of the non-NULL filters (all of one shape)';
COMMENT ON FUNCTION bloom_setop_agg_finalfn(pg_catalog.internal) IS
	'final function of bloom_agg_like: the filter, NULL when there is none (no rows, only NULL templates)';
COMMENT ON FUNCTION bloom_union_agg_combinefn(pg_catalog.internal, pg_catalog.internal) IS
	'combine function of bloom_agg(value, false_positive_rate, capacity) and bloom_agg_like (bitwise OR of partial filters)';

--
-- A filter's shape as text, and the aggregate that builds in a shape given
-- so: small per-row arguments where a template filter would travel with
-- every row (src/types/bloom/setops.c, src/agg/bloom_agg.c, src/agg/filter_state.c).
--

CREATE FUNCTION bloom_shape(bloom) RETURNS pg_catalog.text
	AS 'MODULE_PATHNAME', 'bloom_shape'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_shape(bloom) IS
	'the shape of a filter (format, hash scheme, m, k, flags) as the start of its text form, such as bloom:v1:h1:m95851:k7: (for bloom_agg_shaped)';

CREATE AGGREGATE bloom_agg_shaped(value bloom_hashed, shape pg_catalog.text) (
	SFUNC = bloom_agg_shaped_transfn,
	STYPE = bloom,
	FINALFUNC = bloom_agg_filter_finalfn,
	COMBINEFUNC = bloom_union_agg_fold,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg_shaped(bloom_hashed, pg_catalog.text) IS
	'filter of the non-NULL hashed values in the shape bloom_shape(filter) gives (the same in every row with a value): bloom_agg_like with small arguments, which Citus splits';

COMMENT ON AGGREGATE bloom_agg_like(pg_catalog.anyelement, bloom) IS
	'filter of the non-NULL values with the m, k and hash scheme of the template (the same shape in every row; NULL in every row gives NULL); where rows travel between servers (Citus) the template travels with each: use bloom_agg_shaped(bloom_value(x), bloom_shape(template))';

CREATE TYPE scalable_bloom;

CREATE FUNCTION scalable_bloom_in(pg_catalog.cstring) RETURNS scalable_bloom
	AS 'MODULE_PATHNAME', 'scalable_bloom_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION scalable_bloom_out(scalable_bloom) RETURNS pg_catalog.cstring
	AS 'MODULE_PATHNAME', 'scalable_bloom_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION scalable_bloom_recv(pg_catalog.internal) RETURNS scalable_bloom
	AS 'MODULE_PATHNAME', 'scalable_bloom_recv'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION scalable_bloom_send(scalable_bloom) RETURNS pg_catalog.bytea
	AS 'MODULE_PATHNAME', 'scalable_bloom_send'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- As bloom: the bits do not compress, so values are stored uncompressed.
CREATE TYPE scalable_bloom (
	INPUT = scalable_bloom_in,
	OUTPUT = scalable_bloom_out,
	RECEIVE = scalable_bloom_recv,
	SEND = scalable_bloom_send,
	ANALYZE = bloom_typanalyze,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = external
);
COMMENT ON TYPE scalable_bloom IS
	'scalable Bloom filter: grows in stages as values arrive and keeps its false-positive rate at or below its target however many there are';
COMMENT ON TYPE scalable_bloom[] IS 'array of scalable_bloom values';
COMMENT ON FUNCTION scalable_bloom_in(pg_catalog.cstring) IS 'text input of scalable_bloom';
COMMENT ON FUNCTION scalable_bloom_out(scalable_bloom) IS 'text output of scalable_bloom';
COMMENT ON FUNCTION scalable_bloom_recv(pg_catalog.internal) IS 'binary input of scalable_bloom';
COMMENT ON FUNCTION scalable_bloom_send(scalable_bloom) IS 'binary output of scalable_bloom';

-- The defaults of growth (2) and tightening (0.8) live in the C code, so
-- the forms with fewer arguments are functions of their own.
CREATE FUNCTION scalable_bloom_empty(false_positive_rate pg_catalog.float8,
	initial_capacity pg_catalog.int8) RETURNS scalable_bloom
	AS 'MODULE_PATHNAME', 'scalable_bloom_empty'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION scalable_bloom_empty(pg_catalog.float8, pg_catalog.int8) IS
	'empty scalable filter at the given false-positive rate, its first stage sized for initial_capacity values; growth 2, tightening 0.8';

CREATE FUNCTION scalable_bloom_empty(false_positive_rate pg_catalog.float8,
	initial_capacity pg_catalog.int8, growth pg_catalog.int4) RETURNS scalable_bloom
	AS 'MODULE_PATHNAME', 'scalable_bloom_empty'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION scalable_bloom_empty(pg_catalog.float8, pg_catalog.int8, pg_catalog.int4) IS
	'empty scalable filter whose stages grow by growth (2 or 4) times; tightening 0.8';

CREATE FUNCTION scalable_bloom_empty(false_positive_rate pg_catalog.float8,
	initial_capacity pg_catalog.int8, growth pg_catalog.int4, tightening pg_catalog.float8)
	RETURNS scalable_bloom
	AS 'MODULE_PATHNAME', 'scalable_bloom_empty'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION scalable_bloom_empty(pg_catalog.float8, pg_catalog.int8, pg_catalog.int4, pg_catalog.float8) IS
	'empty scalable filter; stage i holds initial_capacity * growth^i values at rate false_positive_rate * (1 - tightening) * tightening^i';

CREATE FUNCTION bloom_add(scalable_bloom, pg_catalog.anyelement) RETURNS scalable_bloom
	AS 'MODULE_PATHNAME', 'scalable_bloom_add'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add(scalable_bloom, pg_catalog.anyelement) IS
	'a copy of the scalable filter with the value added, in a new stage when the last is full (a NULL value leaves it unchanged; a value it holds already changes nothing)';

CREATE FUNCTION bloom_add_all(scalable_bloom, pg_catalog.anyarray) RETURNS scalable_bloom
	AS 'MODULE_PATHNAME', 'scalable_bloom_add_all'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add_all(scalable_bloom, pg_catalog.anyarray) IS
	'a copy of the scalable filter with every non-NULL element of the array added: one rewrite for a batch';

CREATE FUNCTION bloom_contains(scalable_bloom, pg_catalog.anyelement) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'scalable_bloom_contains'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT bloom_contains_support;
COMMENT ON FUNCTION bloom_contains(scalable_bloom, pg_catalog.anyelement) IS
	'false if the value was certainly never added to the scalable filter; true if it probably was';

CREATE FUNCTION bloom_contained_by(pg_catalog.anyelement, scalable_bloom) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'scalable_bloom_contained_by'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT bloom_contains_support;
COMMENT ON FUNCTION bloom_contained_by(pg_catalog.anyelement, scalable_bloom) IS
	'bloom_contains with the arguments swapped, for the <@ operator on scalable_bloom';

CREATE OPERATOR @> (
	LEFTARG = scalable_bloom,
	RIGHTARG = pg_catalog.anyelement,
	FUNCTION = bloom_contains,
	COMMUTATOR = <@,
	RESTRICT = bloom_contains_selectivity,
	JOIN = bloom_contains_join_selectivity
);
COMMENT ON OPERATOR @> (scalable_bloom, pg_catalog.anyelement) IS 'scalable filter probably contains value';

CREATE OPERATOR <@ (
	LEFTARG = pg_catalog.anyelement,
	RIGHTARG = scalable_bloom,
	FUNCTION = bloom_contained_by,
	COMMUTATOR = @>,
	RESTRICT = bloom_contains_selectivity,
	JOIN = bloom_contains_join_selectivity
);
COMMENT ON OPERATOR <@ (pg_catalog.anyelement, scalable_bloom) IS 'value probably contained in scalable filter';

CREATE FUNCTION scalable_bloom_or(scalable_bloom, scalable_bloom) RETURNS scalable_bloom
	AS 'MODULE_PATHNAME', 'scalable_bloom_or'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION scalable_bloom_or(scalable_bloom, scalable_bloom) IS
	'stage-wise union of two scalable filters of the same parameters: holds every value of both; a stage may then hold more than its capacity, and bloom_info shows the rate expected from the bits';

CREATE OPERATOR | (
	LEFTARG = scalable_bloom,
	RIGHTARG = scalable_bloom,
	FUNCTION = scalable_bloom_or,
	COMMUTATOR = |
);
COMMENT ON OPERATOR | (scalable_bloom, scalable_bloom) IS 'stage-wise union of scalable filters';

CREATE FUNCTION bloom_cardinality(scalable_bloom) RETURNS pg_catalog.float8
	AS 'MODULE_PATHNAME', 'scalable_bloom_cardinality'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_cardinality(scalable_bloom) IS
	'estimated number of distinct values: the sum of the stages'' Swamidass-Baldi estimates';

CREATE FUNCTION bloom_info(scalable_bloom,
	OUT false_positive_rate pg_catalog.float8,
	OUT initial_capacity pg_catalog.int8,
	OUT growth pg_catalog.int4,
	OUT tightening pg_catalog.float8,
	OUT stages pg_catalog.int4,
	OUT bytes pg_catalog.int4,
	OUT values_added pg_catalog.int8,
	OUT estimated_cardinality pg_catalog.float8,
	OUT expected_false_positive_rate pg_catalog.float8,
	OUT self_sized pg_catalog.bool)
	AS 'MODULE_PATHNAME', 'scalable_bloom_info'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_info(scalable_bloom) IS
	'parameters, stages, size, values counted, estimated cardinality and the compound false-positive rate expected from the bits, 1 - prod(1 - rate of stage i)';

CREATE FUNCTION scalable_bloom_stages(scalable_bloom,
	OUT stage pg_catalog.int4,
	OUT capacity pg_catalog.int8,
	OUT values_added pg_catalog.int8,
	OUT m pg_catalog.int8,
	OUT k pg_catalog.int4,
	OUT hash_scheme pg_catalog.int4,
	OUT target_false_positive_rate pg_catalog.float8,
	OUT bits_set pg_catalog.int8,
	OUT expected_false_positive_rate pg_catalog.float8)
	RETURNS SETOF pg_catalog.record
	AS 'MODULE_PATHNAME', 'scalable_bloom_stages'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 8;
COMMENT ON FUNCTION scalable_bloom_stages(scalable_bloom) IS
	'one row per stage: capacity, values counted, m, k, hash scheme, the stage''s target rate and the rate expected from its bits';

CREATE FUNCTION bloom(scalable_bloom) RETURNS bloom
	AS 'MODULE_PATHNAME', 'scalable_bloom_to_bloom'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom(scalable_bloom) IS
	'the plain filter of a scalable filter of one stage (an ERROR for more stages)';

CREATE CAST (scalable_bloom AS bloom) WITH FUNCTION bloom(scalable_bloom);
COMMENT ON CAST (scalable_bloom AS bloom) IS
	'a scalable filter of one stage as the plain filter it is; an ERROR (22023) for more stages';

CREATE FUNCTION scalable_bloom_eq(scalable_bloom, scalable_bloom) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'scalable_bloom_eq'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION scalable_bloom_eq(scalable_bloom, scalable_bloom) IS
	'whether two scalable filters have the same parameters, stages, counts and bits';

CREATE FUNCTION scalable_bloom_ne(scalable_bloom, scalable_bloom) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'scalable_bloom_ne'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION scalable_bloom_ne(scalable_bloom, scalable_bloom) IS
	'whether two scalable filters differ';

CREATE FUNCTION scalable_bloom_hash(scalable_bloom) RETURNS pg_catalog.int4
	AS 'MODULE_PATHNAME', 'scalable_bloom_hash'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION scalable_bloom_hash(scalable_bloom) IS
	'hash of a whole scalable filter, for the hash operator class';

CREATE FUNCTION scalable_bloom_hash_extended(scalable_bloom, pg_catalog.int8) RETURNS pg_catalog.int8
	AS 'MODULE_PATHNAME', 'scalable_bloom_hash_extended'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION scalable_bloom_hash_extended(scalable_bloom, pg_catalog.int8) IS
	'seeded 64-bit hash of a whole scalable filter, for the hash operator class';

CREATE OPERATOR = (
	LEFTARG = scalable_bloom,
	RIGHTARG = scalable_bloom,
	FUNCTION = scalable_bloom_eq,
	COMMUTATOR = =,
	NEGATOR = <>,
	RESTRICT = pg_catalog.eqsel,
	JOIN = pg_catalog.eqjoinsel,
	HASHES
);
COMMENT ON OPERATOR = (scalable_bloom, scalable_bloom) IS 'scalable filters are identical';

CREATE OPERATOR <> (
	LEFTARG = scalable_bloom,
	RIGHTARG = scalable_bloom,
	FUNCTION = scalable_bloom_ne,
	COMMUTATOR = <>,
	NEGATOR = =,
	RESTRICT = pg_catalog.neqsel,
	JOIN = pg_catalog.neqjoinsel
);
COMMENT ON OPERATOR <> (scalable_bloom, scalable_bloom) IS 'scalable filters differ';

CREATE OPERATOR CLASS scalable_bloom_hash_ops
	DEFAULT FOR TYPE scalable_bloom USING hash AS
	OPERATOR 1 = (scalable_bloom, scalable_bloom),
	FUNCTION 1 scalable_bloom_hash(scalable_bloom),
	FUNCTION 2 scalable_bloom_hash_extended(scalable_bloom, pg_catalog.int8);
COMMENT ON OPERATOR CLASS scalable_bloom_hash_ops USING hash IS
	'hash operator class of scalable_bloom: whole-value equality (GROUP BY, DISTINCT, hash joins)';
COMMENT ON OPERATOR FAMILY scalable_bloom_hash_ops USING hash IS
	'hash operator family of scalable_bloom';

-- The aggregates finish the self-sizing bloom_agg's states
-- (src/agg/scalable_bloom_agg.c): the same transition, combine and parallel
-- functions, and a final function that makes the first stage of a scalable
-- filter sized for the distinct values seen.
CREATE FUNCTION scalable_bloom_autoagg_finalfn(pg_catalog.internal) RETURNS scalable_bloom
	AS 'MODULE_PATHNAME', 'scalable_bloom_autoagg_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION scalable_bloom_autoagg_finalfn(pg_catalog.internal) IS
	'final function of scalable_bloom_agg(value, false_positive_rate): a scalable filter whose first stage is sized for the distinct values seen';

CREATE FUNCTION scalable_bloom_autoagg_state_finalfn(bloom_agg_state) RETURNS scalable_bloom
	AS 'MODULE_PATHNAME', 'scalable_bloom_autoagg_state_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION scalable_bloom_autoagg_state_finalfn(bloom_agg_state) IS
	'final function of scalable_bloom_agg(bloom_hashed, false_positive_rate): a scalable filter whose first stage is sized for the distinct values seen';

CREATE AGGREGATE scalable_bloom_agg(pg_catalog.anyelement, pg_catalog.float8) (
	SFUNC = bloom_autoagg_transfn,
	STYPE = pg_catalog.internal,
	FINALFUNC = scalable_bloom_autoagg_finalfn,
	COMBINEFUNC = bloom_autoagg_combinefn,
	SERIALFUNC = bloom_autoagg_serialfn,
	DESERIALFUNC = bloom_autoagg_deserialfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE scalable_bloom_agg(pg_catalog.anyelement, pg_catalog.float8) IS
	'scalable filter of the non-NULL values at the given false-positive rate, its first stage sized for the distinct values seen; bloom_add grows it';

CREATE AGGREGATE scalable_bloom_agg(bloom_hashed, pg_catalog.float8) (
	SFUNC = bloom_autoagg_state_transfn,
	STYPE = bloom_agg_state,
	FINALFUNC = scalable_bloom_autoagg_state_finalfn,
	COMBINEFUNC = bloom_autoagg_state_combinefn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE scalable_bloom_agg(bloom_hashed, pg_catalog.float8) IS
	'scalable_bloom_agg(x, p) in the form Citus splits: scalable_bloom_agg(bloom_value(x), p)';

-- ==== end of scalable_bloom ====

--
-- ==== counting_bloom: counting filters (issue 27, part 1) ====
--
-- A filter of 4-bit counters at the positions bloom probes, so that values
-- can be removed (src/core/counting.h, src/types/counting_bloom/,
-- doc/reference.md "Counting filters").  The element functions and
-- operators are bloom's names overloaded on the new type.
--

-- (bloom is the preferred type of its category: see the scalable_bloom
-- section above.)

CREATE TYPE counting_bloom;

CREATE FUNCTION counting_bloom_in(pg_catalog.cstring) RETURNS counting_bloom
	AS 'MODULE_PATHNAME', 'counting_bloom_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION counting_bloom_out(counting_bloom) RETURNS pg_catalog.cstring
	AS 'MODULE_PATHNAME', 'counting_bloom_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION counting_bloom_recv(pg_catalog.internal) RETURNS counting_bloom
	AS 'MODULE_PATHNAME', 'counting_bloom_recv'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION counting_bloom_send(counting_bloom) RETURNS pg_catalog.bytea
	AS 'MODULE_PATHNAME', 'counting_bloom_send'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- STORAGE = external and ALIGNMENT = double, as bloom's (sql/bloomfilter--1.0.sql).
CREATE TYPE counting_bloom (
	INPUT = counting_bloom_in,
	OUTPUT = counting_bloom_out,
	RECEIVE = counting_bloom_recv,
	SEND = counting_bloom_send,
	ANALYZE = bloom_typanalyze,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = external
);
COMMENT ON TYPE counting_bloom IS
	'counting Bloom filter: 4-bit counters at bloom''s probe positions, so that values can be removed (4 times the bytes of a bloom filter of the same shape)';
COMMENT ON TYPE counting_bloom[] IS 'array of counting_bloom filters';
COMMENT ON FUNCTION counting_bloom_in(pg_catalog.cstring) IS
	'text input of counting_bloom: counting_bloom:v1:h<hash scheme>:m<m>:k<k>:<base64 counters>, validated';
COMMENT ON FUNCTION counting_bloom_out(counting_bloom) IS
	'text output of counting_bloom: counting_bloom:v1:h<hash scheme>:m<m>:k<k>:<base64 counters>';
COMMENT ON FUNCTION counting_bloom_recv(pg_catalog.internal) IS
	'binary input of counting_bloom (COPY BINARY, binary protocol), validated';
COMMENT ON FUNCTION counting_bloom_send(counting_bloom) IS
	'binary output of counting_bloom: bloom''s header with m big-endian, then the counters (two a byte)';

CREATE FUNCTION counting_bloom_empty(false_positive_rate pg_catalog.float8, capacity pg_catalog.int8)
	RETURNS counting_bloom
	AS 'MODULE_PATHNAME', 'counting_bloom_empty'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_empty(pg_catalog.float8, pg_catalog.int8) IS
	'empty counting filter sized for capacity values at the given false-positive rate: the shape of bloom_empty(false_positive_rate, capacity)';

CREATE FUNCTION counting_bloom_empty_mk(m pg_catalog.int8, k pg_catalog.int4) RETURNS counting_bloom
	AS 'MODULE_PATHNAME', 'counting_bloom_empty_mk'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_empty_mk(pg_catalog.int8, pg_catalog.int4) IS
	'empty counting filter of exactly m counters and k hash probes';

-- Not STRICT, as bloom's: a NULL value (or array) returns the filter
-- unchanged, so UPDATE t SET f = bloom_add(f, x) never wipes a stored filter.
CREATE FUNCTION bloom_add(counting_bloom, pg_catalog.anyelement) RETURNS counting_bloom
	AS 'MODULE_PATHNAME', 'counting_bloom_add'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add(counting_bloom, pg_catalog.anyelement) IS
	'a copy of the counting filter with the value added: its k counters incremented (a NULL value leaves it unchanged)';

CREATE FUNCTION bloom_add_all(counting_bloom, pg_catalog.anyarray) RETURNS counting_bloom
	AS 'MODULE_PATHNAME', 'counting_bloom_add_all'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add_all(counting_bloom, pg_catalog.anyarray) IS
	'copy with every element of the array added, as bloom_add of each in turn (NULL elements skipped; a NULL array: unchanged)';

CREATE FUNCTION bloom_remove(counting_bloom, pg_catalog.anyelement) RETURNS counting_bloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_remove(counting_bloom, pg_catalog.anyelement) IS
	'a copy of the counting filter with the value removed: its k counters decremented (saturated ones stay at 15); a value some counter proves absent, or NULL, leaves it unchanged. Remove only values that were added: removing a false positive decrements counters other values own and can turn them into false negatives';

CREATE FUNCTION bloom_remove_all(counting_bloom, pg_catalog.anyarray) RETURNS counting_bloom
	AS 'MODULE_PATHNAME', 'counting_bloom_remove_all'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_remove_all(counting_bloom, pg_catalog.anyarray) IS
	'copy with every element of the array removed, as bloom_remove of each in turn (NULL elements skipped; a NULL array: unchanged). Remove only values that were added: removing a false positive can turn other values into false negatives';

CREATE FUNCTION bloom_contains(counting_bloom, pg_catalog.anyelement) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'counting_bloom_contains'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT bloom_contains_support;
COMMENT ON FUNCTION bloom_contains(counting_bloom, pg_catalog.anyelement) IS
	'false if the value is certainly not in the counting filter (some counter is 0); true if it probably is';

CREATE FUNCTION bloom_contained_by(pg_catalog.anyelement, counting_bloom) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'counting_bloom_contained_by'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT bloom_contains_support;
COMMENT ON FUNCTION bloom_contained_by(pg_catalog.anyelement, counting_bloom) IS
	'bloom_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @> (
	LEFTARG = counting_bloom,
	RIGHTARG = pg_catalog.anyelement,
	FUNCTION = bloom_contains,
	COMMUTATOR = <@,
	RESTRICT = bloom_contains_selectivity,
	JOIN = bloom_contains_join_selectivity
);
COMMENT ON OPERATOR @> (counting_bloom, pg_catalog.anyelement) IS 'counting filter probably contains value';

CREATE OPERATOR <@ (
	LEFTARG = pg_catalog.anyelement,
	RIGHTARG = counting_bloom,
	FUNCTION = bloom_contained_by,
	COMMUTATOR = @>,
	RESTRICT = bloom_contains_selectivity,
	JOIN = bloom_contains_join_selectivity
);
COMMENT ON OPERATOR <@ (pg_catalog.anyelement, counting_bloom) IS 'value probably contained in counting filter';

CREATE FUNCTION counting_bloom_union(counting_bloom, counting_bloom) RETURNS counting_bloom
	AS 'MODULE_PATHNAME', 'counting_bloom_union'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_union(counting_bloom, counting_bloom) IS
	'union of two counting filters of one shape, for the | operator: counter-wise sums, saturating at 15';

CREATE OPERATOR | (
	LEFTARG = counting_bloom,
	RIGHTARG = counting_bloom,
	FUNCTION = counting_bloom_union,
	COMMUTATOR = |
);
COMMENT ON OPERATOR | (counting_bloom, counting_bloom) IS
	'union of two counting filters of one shape (counter-wise saturating sums)';

CREATE FUNCTION counting_bloom_subtract(counting_bloom, counting_bloom) RETURNS counting_bloom
	AS 'MODULE_PATHNAME', 'counting_bloom_subtract'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_subtract(counting_bloom, counting_bloom) IS
	'the left counting filter less the right one, for the - operator: counter-wise differences; a saturated counter stays 15; an ERROR where the right filter holds values the left does not';

CREATE OPERATOR - (
	LEFTARG = counting_bloom,
	RIGHTARG = counting_bloom,
	FUNCTION = counting_bloom_subtract
);
COMMENT ON OPERATOR - (counting_bloom, counting_bloom) IS
	'the left counting filter with the values of the right one removed (counter-wise differences)';

CREATE FUNCTION bloom(counting_bloom) RETURNS bloom
	AS 'MODULE_PATHNAME', 'counting_bloom_to_bloom'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom(counting_bloom) IS
	'the bloom filter of the values the counting filter holds: bit i set where counter i is not 0 (the cast to bloom)';

CREATE CAST (counting_bloom AS bloom) WITH FUNCTION bloom(counting_bloom);
COMMENT ON CAST (counting_bloom AS bloom) IS
	'the bloom filter of the values the counting filter holds, bit for bit the one bloom_add of those values builds';

CREATE FUNCTION bloom_info(counting_bloom,
	OUT m pg_catalog.int8,
	OUT k pg_catalog.int4,
	OUT hash_scheme pg_catalog.int4,
	OUT bytes pg_catalog.int4,
	OUT counters_nonzero pg_catalog.int8,
	OUT counters_saturated pg_catalog.int8,
	OUT counter_sum pg_catalog.int8,
	OUT "values" pg_catalog.float8,
	OUT values_exact pg_catalog.bool,
	OUT false_positive_rate pg_catalog.float8)
	AS 'MODULE_PATHNAME', 'counting_bloom_info'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_info(counting_bloom) IS
	'shape, size and counters of a counting filter; values held = counter_sum / k, exact (values_exact) while no counter is saturated; current false-positive rate of its bloom filter';

CREATE FUNCTION bloom_cardinality(counting_bloom) RETURNS pg_catalog.float8
	AS 'MODULE_PATHNAME', 'counting_bloom_cardinality'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_cardinality(counting_bloom) IS
	'values the counting filter holds (added less removed, a value added twice counted twice): counter sum / k, exact while no counter is saturated, a lower bound after (bloom_info says which)';

CREATE FUNCTION counting_bloom_eq(counting_bloom, counting_bloom) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'counting_bloom_eq'
	LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_eq(counting_bloom, counting_bloom) IS 'same shape, flags and counters';

CREATE FUNCTION counting_bloom_ne(counting_bloom, counting_bloom) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'counting_bloom_ne'
	LANGUAGE C IMMUTABLE STRICT LEAKPROOF PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_ne(counting_bloom, counting_bloom) IS 'different shape, flags or counters';

CREATE FUNCTION counting_bloom_hash(counting_bloom) RETURNS pg_catalog.int4
	AS 'MODULE_PATHNAME', 'counting_bloom_hash'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_hash(counting_bloom) IS
	'hash of a whole counting filter, for the hash operator class';

CREATE FUNCTION counting_bloom_hash_extended(counting_bloom, pg_catalog.int8) RETURNS pg_catalog.int8
	AS 'MODULE_PATHNAME', 'counting_bloom_hash_extended'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_hash_extended(counting_bloom, pg_catalog.int8) IS
	'seeded 64-bit hash of a whole counting filter, for the hash operator class';

CREATE OPERATOR = (
	LEFTARG = counting_bloom,
	RIGHTARG = counting_bloom,
	FUNCTION = counting_bloom_eq,
	COMMUTATOR = =,
	NEGATOR = <>,
	RESTRICT = pg_catalog.eqsel,
	JOIN = pg_catalog.eqjoinsel,
	HASHES
);
COMMENT ON OPERATOR = (counting_bloom, counting_bloom) IS 'same shape, flags and counters';

CREATE OPERATOR <> (
	LEFTARG = counting_bloom,
	RIGHTARG = counting_bloom,
	FUNCTION = counting_bloom_ne,
	COMMUTATOR = <>,
	NEGATOR = =,
	RESTRICT = pg_catalog.neqsel,
	JOIN = pg_catalog.neqjoinsel
);
COMMENT ON OPERATOR <> (counting_bloom, counting_bloom) IS 'different shape, flags or counters';

CREATE OPERATOR CLASS counting_bloom_hash_ops
	DEFAULT FOR TYPE counting_bloom USING hash AS
	OPERATOR 1 = (counting_bloom, counting_bloom),
	FUNCTION 1 counting_bloom_hash(counting_bloom),
	FUNCTION 2 counting_bloom_hash_extended(counting_bloom, pg_catalog.int8);
COMMENT ON OPERATOR FAMILY counting_bloom_hash_ops USING hash IS
	'hashing of whole counting filters, consistent with =';
COMMENT ON OPERATOR CLASS counting_bloom_hash_ops USING hash IS
	'default hash operator class of counting_bloom, for DISTINCT, GROUP BY, UNION and hash joins on counting filters';

-- Aggregates (src/agg/counting_bloom_agg.c).  The polymorphic one keeps an
-- internal state, as bloom_agg(value, p, n) does; the bloom_hashed one and
-- the union have states of type counting_bloom, which Citus splits.  Not
-- STRICT: the first row creates the state, and a NULL value adds nothing.

CREATE FUNCTION counting_bloom_agg_transfn(pg_catalog.internal, pg_catalog.anyelement,
										   pg_catalog.float8, pg_catalog.int8)
	RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'counting_bloom_agg_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_agg_transfn(pg_catalog.internal, pg_catalog.anyelement,
											   pg_catalog.float8, pg_catalog.int8) IS
	'transition function of counting_bloom_agg(value, false_positive_rate, capacity)';

CREATE FUNCTION counting_bloom_agg_finalfn(pg_catalog.internal) RETURNS counting_bloom
	AS 'MODULE_PATHNAME', 'counting_bloom_agg_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_agg_finalfn(pg_catalog.internal) IS
	'final function of counting_bloom_agg(value, false_positive_rate, capacity): the filter; with no rows the empty filter of a constant request, else NULL';

CREATE FUNCTION counting_bloom_agg_combinefn(pg_catalog.internal, pg_catalog.internal)
	RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'counting_bloom_agg_combinefn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_agg_combinefn(pg_catalog.internal, pg_catalog.internal) IS
	'combine function of counting_bloom_agg(value, false_positive_rate, capacity): counter-wise saturating sums of partial filters';

CREATE FUNCTION counting_bloom_agg_serialfn(pg_catalog.internal) RETURNS pg_catalog.bytea
	AS 'MODULE_PATHNAME', 'counting_bloom_agg_serialfn'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_agg_serialfn(pg_catalog.internal) IS
	'serialize a partial counting filter to send it between parallel workers';

CREATE FUNCTION counting_bloom_agg_deserialfn(pg_catalog.bytea, pg_catalog.internal)
	RETURNS pg_catalog.internal
	AS 'MODULE_PATHNAME', 'counting_bloom_agg_deserialfn'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_agg_deserialfn(pg_catalog.bytea, pg_catalog.internal) IS
	'deserialize (and validate) a partial counting filter received from a parallel worker';

CREATE AGGREGATE counting_bloom_agg(pg_catalog.anyelement, pg_catalog.float8, pg_catalog.int8) (
	SFUNC = counting_bloom_agg_transfn,
	STYPE = pg_catalog.internal,
	FINALFUNC = counting_bloom_agg_finalfn,
	COMBINEFUNC = counting_bloom_agg_combinefn,
	SERIALFUNC = counting_bloom_agg_serialfn,
	DESERIALFUNC = counting_bloom_agg_deserialfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_agg(pg_catalog.anyelement, pg_catalog.float8, pg_catalog.int8) IS
	'counting filter of the non-NULL values (a value in n rows counted n times), sized by (false_positive_rate, capacity)';

CREATE FUNCTION counting_bloom_agg_hashed_transfn(counting_bloom, bloom_hashed,
												  pg_catalog.float8, pg_catalog.int8)
	RETURNS counting_bloom
	AS 'MODULE_PATHNAME', 'counting_bloom_agg_hashed_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_agg_hashed_transfn(counting_bloom, bloom_hashed,
													  pg_catalog.float8, pg_catalog.int8) IS
	'transition function of counting_bloom_agg(bloom_hashed, false_positive_rate, capacity)';

CREATE FUNCTION counting_bloom_union_agg_fold(counting_bloom, counting_bloom) RETURNS counting_bloom
	AS 'MODULE_PATHNAME', 'counting_bloom_union_agg_fold'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_union_agg_fold(counting_bloom, counting_bloom) IS
	'transition and combine function of counting_bloom_union_agg, combine function of counting_bloom_agg(bloom_hashed, false_positive_rate, capacity): counter-wise saturating sums';

CREATE FUNCTION counting_bloom_agg_filter_finalfn(counting_bloom) RETURNS counting_bloom
	AS 'MODULE_PATHNAME', 'counting_bloom_agg_filter_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_agg_filter_finalfn(counting_bloom) IS
	'final function of the counting aggregates whose state is a filter: a copy of it; with no rows NULL, or for counting_bloom_agg(bloom_hashed, p, n) with constant p and n the empty filter of that request';

CREATE AGGREGATE counting_bloom_agg(bloom_hashed, pg_catalog.float8, pg_catalog.int8) (
	SFUNC = counting_bloom_agg_hashed_transfn,
	STYPE = counting_bloom,
	FINALFUNC = counting_bloom_agg_filter_finalfn,
	COMBINEFUNC = counting_bloom_union_agg_fold,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_agg(bloom_hashed, pg_catalog.float8, pg_catalog.int8) IS
	'counting filter of the non-NULL hashed values, sized by (false_positive_rate, capacity): counting_bloom_agg(x, p, n) in the form Citus splits';

CREATE AGGREGATE counting_bloom_union_agg(counting_bloom) (
	SFUNC = counting_bloom_union_agg_fold,
	STYPE = counting_bloom,
	FINALFUNC = counting_bloom_agg_filter_finalfn,
	COMBINEFUNC = counting_bloom_union_agg_fold,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE counting_bloom_union_agg(counting_bloom) IS
	'union of the non-NULL counting filters (all of one shape): counter-wise saturating sums';

-- ==== end of counting_bloom ====

-- ==== bloomfilter.split_aggregates: the aggregates Citus splits ====
--
-- The planner hook (src/distributed/split.c) rewrites bloom_agg(x, p, n)
-- and its kin into their bloom_value() forms, which Citus splits.  Split,
-- an aggregate over no rows is NULL: Citus's coordinator calls the final
-- function without the aggregate's arguments.  With constant arguments the
-- hook wraps the call in bloom_agg_or_empty(result, arguments), which gives
-- what the aggregate gives over no rows on one server.

CREATE FUNCTION bloom_agg_or_empty(filter bloom, false_positive_rate pg_catalog.float8,
								   capacity pg_catalog.int8) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_agg_or_empty'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_or_empty(bloom, pg_catalog.float8, pg_catalog.int8) IS
	'the filter, or when it is NULL what bloom_agg(value, false_positive_rate, capacity) gives over no rows: bloom_empty(false_positive_rate, capacity)';

CREATE FUNCTION bloom_agg_or_empty(filter bloom) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_agg_or_empty_self_sized'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_or_empty(bloom) IS
	'the filter, or when it is NULL what bloom_agg(value) gives over no rows';

CREATE FUNCTION bloom_agg_or_empty(filter bloom, false_positive_rate pg_catalog.float8) RETURNS bloom
	AS 'MODULE_PATHNAME', 'bloom_agg_or_empty_self_sized'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_or_empty(bloom, pg_catalog.float8) IS
	'the filter, or when it is NULL what bloom_agg(value, false_positive_rate) gives over no rows';

CREATE FUNCTION bloom_agg_or_empty(filter counting_bloom, false_positive_rate pg_catalog.float8,
								   capacity pg_catalog.int8) RETURNS counting_bloom
	AS 'MODULE_PATHNAME', 'counting_bloom_agg_or_empty'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_or_empty(counting_bloom, pg_catalog.float8, pg_catalog.int8) IS
	'the filter, or when it is NULL what counting_bloom_agg(value, false_positive_rate, capacity) gives over no rows: counting_bloom_empty(false_positive_rate, capacity)';

CREATE FUNCTION bloom_agg_or_empty(filter scalable_bloom, false_positive_rate pg_catalog.float8)
	RETURNS scalable_bloom
	AS 'MODULE_PATHNAME', 'scalable_bloom_agg_or_empty'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_or_empty(scalable_bloom, pg_catalog.float8) IS
	'the filter, or when it is NULL what scalable_bloom_agg(value, false_positive_rate) gives over no rows: scalable_bloom_empty(false_positive_rate, 1)';

-- ==== end of split_aggregates ====

-- The planner's functions, shared by the three filter types: the support
-- function of bloom_contains and bloom_contained_by, the operators'
-- estimators and the types' ANALYZE (src/planner/stored_filter.c reads a
-- filter of any of them).
COMMENT ON FUNCTION bloom_contains_support(pg_catalog.internal) IS
	'planner support for bloom_contains and bloom_contained_by on bloom, counting_bloom and scalable_bloom: selectivity and per-call cost';
COMMENT ON FUNCTION bloom_contains_selectivity(pg_catalog.internal, pg_catalog.oid,
											   pg_catalog.internal, pg_catalog.int4) IS
	'restriction selectivity estimator for the @> and <@ operators of bloom, counting_bloom and scalable_bloom';
COMMENT ON FUNCTION bloom_contains_join_selectivity(pg_catalog.internal, pg_catalog.oid,
													pg_catalog.internal, pg_catalog.int2,
													pg_catalog.internal) IS
	'join selectivity estimator for the @> and <@ operators of bloom, counting_bloom and scalable_bloom, from the statistics of the filter column';
COMMENT ON FUNCTION bloom_typanalyze(pg_catalog.internal) IS
	'ANALYZE of bloom, counting_bloom and scalable_bloom columns: the standard statistics, and the sampled filters'' estimated cardinalities, false-positive rates, fill and k';

--
-- The index over a column of filters: "which stored filters may contain
-- x?" (src/index/index.h).  bloom_slices keeps the filters bit-sliced, so
-- that a lookup reads only the k bit positions x probes across all of them.
-- Its operator class indexes f @> bloom_value(x), which the planner makes
-- of f @> x, x <@ f and bloom_contains(f, x) through bloom_contains_support.
--

CREATE FUNCTION bloom_contains_hashed(bloom, bloom_hashed) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'bloom_contains_hashed'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_contains_hashed(bloom, bloom_hashed) IS
	'f @> bloom_value(x): true exactly when f @> x is';

CREATE OPERATOR @> (
	LEFTARG = bloom,
	RIGHTARG = bloom_hashed,
	FUNCTION = bloom_contains_hashed,
	RESTRICT = bloom_contains_selectivity,
	JOIN = pg_catalog.contjoinsel
);
COMMENT ON OPERATOR @> (bloom, bloom_hashed) IS
	'filter probably contains the value hashed by bloom_value: the operator bloom_slices indexes';

CREATE FUNCTION bloom_slices_handler(pg_catalog.internal) RETURNS pg_catalog.index_am_handler
	AS 'MODULE_PATHNAME', 'bloom_slices_handler'
	LANGUAGE C;
COMMENT ON FUNCTION bloom_slices_handler(pg_catalog.internal) IS
	'handler of the index access method bloom_slices';

CREATE ACCESS METHOD bloom_slices TYPE INDEX HANDLER bloom_slices_handler;
COMMENT ON ACCESS METHOD bloom_slices IS
	'index over a column of bloom filters, bit-sliced: which stored filters may contain a value';

CREATE OPERATOR CLASS bloom_slices_ops
	DEFAULT FOR TYPE bloom USING bloom_slices AS
	OPERATOR 1 @> (bloom, bloom_hashed);
COMMENT ON OPERATOR FAMILY bloom_slices_ops USING bloom_slices IS
	'bloom_slices over bloom: f @> bloom_value(x)';
COMMENT ON OPERATOR CLASS bloom_slices_ops USING bloom_slices IS
	'default bloom_slices class of bloom: f @> x, x <@ f and bloom_contains(f, x) through the planner';

CREATE FUNCTION bloom_index_check(index pg_catalog.regclass,
								  heapallindexed pg_catalog.bool DEFAULT false)
	RETURNS pg_catalog.void
	AS 'MODULE_PATHNAME', 'bloom_index_check'
	LANGUAGE C STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_index_check(pg_catalog.regclass, pg_catalog.bool) IS
	'amcheck for bloom_slices: ERROR XX002 unless every page holds together and, with heapallindexed, every filter of the table is in the index with its bits';

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
