/* bloomfilter--1.1--1.2.sql: from 1.1 to 1.2 */

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.2'" to load this file. \quit

-- Names from PostgreSQL itself are qualified with pg_catalog; the extension's
-- own objects are found in its schema, which ALTER EXTENSION puts first on the
-- search_path (with pg_temp last), so a hostile search_path captures nothing.

--
-- Filters in the shape of another (src/bloom_setops.c, src/bloom_agg.c), so
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
COMMENT ON FUNCTION bloom_setop_agg_finalfn(pg_catalog.internal) IS
	'final function of bloom_union_agg, bloom_intersection_agg and bloom_agg_like: the filter, NULL when there is none (no rows, only NULL filters, only NULL templates)';
COMMENT ON FUNCTION bloom_union_agg_combinefn(pg_catalog.internal, pg_catalog.internal) IS
	'combine function of bloom_agg, bloom_agg_like and bloom_union_agg (bitwise OR of partial filters)';

CREATE AGGREGATE bloom_agg_like(value pg_catalog.anyelement, template bloom) (
	SFUNC = bloom_agg_like_transfn,
	STYPE = pg_catalog.internal,
	FINALFUNC = bloom_setop_agg_finalfn,
	COMBINEFUNC = bloom_union_agg_combinefn,
	SERIALFUNC = bloom_agg_serialfn,
	DESERIALFUNC = bloom_agg_deserialfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg_like(pg_catalog.anyelement, bloom) IS
	'filter of the non-NULL values with the m, k and hash scheme of the template (the same shape in every row; NULL in every row gives NULL)';

-- The array type bloom[] is a member of the extension from PostgreSQL 17 on,
-- and is listed with the others in \dT+.
COMMENT ON TYPE bloom[] IS 'array of bloom filters (the variadic bloom_union and bloom_intersection take one)';

--
-- Statistics of bloom columns (src/bloom_analyze.c): ANALYZE keeps the
-- sampled filters' estimated cardinalities, false-positive rates, fill and
-- k, from which the planner estimates a filter it cannot see: an InitPlan's
-- (SELECT f FROM t ...) or a join to a table of filters (src/bloom_initplan.c,
-- src/bloom_selectivity.c).
--

CREATE FUNCTION bloom_typanalyze(pg_catalog.internal) RETURNS pg_catalog.bool
	AS 'MODULE_PATHNAME', 'bloom_typanalyze'
	LANGUAGE C STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_typanalyze(pg_catalog.internal) IS
	'ANALYZE of bloom columns: the standard statistics, and the sampled filters'' estimated cardinalities, false-positive rates, fill and k';

ALTER TYPE bloom SET (ANALYZE = bloom_typanalyze);

CREATE FUNCTION bloom_contains_join_selectivity(pg_catalog.internal, pg_catalog.oid,
												pg_catalog.internal, pg_catalog.int2,
												pg_catalog.internal)
	RETURNS pg_catalog.float8
	AS 'MODULE_PATHNAME', 'bloom_contains_join_selectivity'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_contains_join_selectivity(pg_catalog.internal, pg_catalog.oid,
													pg_catalog.internal, pg_catalog.int2,
													pg_catalog.internal) IS
	'join selectivity estimator for the @> and <@ operators, from the statistics of the filter column';

ALTER OPERATOR @> (bloom, pg_catalog.anyelement) SET (JOIN = bloom_contains_join_selectivity);
ALTER OPERATOR <@ (pg_catalog.anyelement, bloom) SET (JOIN = bloom_contains_join_selectivity);

--
-- Many values in one call (src/bloom_element.c): a stored filter is rewritten
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
-- Automatic semi-join prefilters for postgres_fdw (src/bloom_autoprefilter.c,
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
-- What a partial state of the self-sized bloom_agg(value) costs
-- (src/bloom_autoagg.c, doc/benchmarks.md "Parallel scaling").  Past 131,072
-- distinct values a state is a 63 MB sketch (at p = 0.01): each worker
-- fills its own in fresh memory and serializes it, the leader receives them
-- one by one through 64 kB tuple queues and ORs them into a fresh one,
-- alone.  With the default COST 1 the planner charged nothing for that and
-- split a table of 1 million rows between 2 workers, 2.1 times slower than
-- the serial plan.  These costs (in units of cpu_operator_cost) are what a
-- partial state adds to a plan, measured on 2 cores: over a table of one
-- bigint column the 2-worker plan was slower than the serial one up to
-- about 20 million rows and faster from about 30 million, and with these
-- costs the planner plans workers from between those two on (about 400 ms
-- a partial state at the planner's rate for this table's scan).
--

ALTER FUNCTION bloom_autoagg_combinefn(pg_catalog.internal, pg_catalog.internal) COST 24000000;
ALTER FUNCTION bloom_autoagg_deserialfn(pg_catalog.bytea, pg_catalog.internal) COST 6000000;
ALTER FUNCTION bloom_autoagg_serialfn(pg_catalog.internal) COST 9000000;
