-- examples/attenuated-routing.sql: attenuated Bloom filters as bloom[].
--
-- An attenuated Bloom filter (Rhea and Kubiatowicz 2002, "Probabilistic
-- location and routing") answers "how many hops away is the nearest copy of
-- this document?" in a network where every node knows only its neighbours.
-- Each node keeps, for each of its links, an array of filters: element d
-- holds the documents of the nodes d - 1 hops beyond that neighbour, so d
-- hops from here through that link.  A query takes the link whose array
-- holds the document at the lowest level.  Here the array is a bloom[], each
-- level built with bloom_union_agg from the nodes' own filters.
--
-- What it shows, and checks at the end:
--   - no level ever misses a document that is there (Bloom filters have no
--     false negatives), so the distance read from the filters is never more
--     than the true distance, for every (node, document) pair within reach;
--   - false positives can only make it less; the share of pairs where it is
--     exact is at least 1 minus the sum, over the levels a query reads
--     before the true one, of their false-positive rates (their rates come
--     from bloom_info of each filter as built).
--
-- Self-contained and deterministic; temporary tables only.
-- Run: psql -v ON_ERROR_STOP=1 -f examples/attenuated-routing.sql

\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = notice;
CREATE EXTENSION IF NOT EXISTS bloomfilter;

-- 120 nodes on a ring with chords: node i links to i +- 1 and i +- 11.
CREATE TEMP TABLE link (node int, neighbour int, PRIMARY KEY (node, neighbour));
INSERT INTO link
SELECT i, (i + step + 120) % 120
FROM generate_series(0, 119) AS i, unnest(ARRAY[-11, -1, 1, 11]) AS step;

-- Each node holds 40 documents (ids node * 1000 + 1 .. node * 1000 + 40).
CREATE TEMP TABLE document (node int, doc int8 PRIMARY KEY);
INSERT INTO document
SELECT node, node * 1000 + j FROM generate_series(0, 119) AS node, generate_series(1, 40) AS j;

-- Hop distances up to 3 between every pair of nodes (breadth-first).
CREATE TEMP TABLE hops AS
WITH RECURSIVE walk (src, dst, d) AS (
	SELECT n, n, 0 FROM generate_series(0, 119) AS n
	UNION
	SELECT w.src, l.neighbour, w.d + 1 FROM walk w JOIN link l ON l.node = w.dst WHERE w.d < 3
)
SELECT src, dst, min(d) AS d FROM walk GROUP BY src, dst;

-- Every filter has one shape, so that levels union: sized at 2% for the
-- largest level, the documents of the nodes exactly 2 hops from a neighbour
-- (at most 12 nodes, 480 documents).
\set capacity 480
\set rate 0.02
CREATE TEMP TABLE own_filter AS
SELECT node, bloom_agg(doc, :rate, :capacity) AS f FROM document GROUP BY node;

-- The attenuated filter of each link: level d (d = 1, 2, 3) is the union of
-- the own filters of the nodes d - 1 hops from the neighbour.
CREATE TEMP TABLE attenuated AS
SELECT l.node, l.neighbour,
	array_agg(coalesce(lv.f, bloom_empty(:rate, :capacity)) ORDER BY lv.level) AS levels
FROM link l
CROSS JOIN LATERAL (
	SELECT level, (SELECT bloom_union_agg(o.f)
				   FROM hops h JOIN own_filter o ON o.node = h.dst
				   WHERE h.src = l.neighbour AND h.d = level - 1) AS f
	FROM generate_series(1, 3) AS level) AS lv
GROUP BY l.node, l.neighbour;

-- The distance the filters give from a node to a document: 0 if its own
-- filter holds it, else the lowest level of any link that does (NULL: more
-- than 3 hops, as far as the filters know).
CREATE TEMP TABLE query AS
SELECT n.node, d.doc, d.node AS owner
FROM generate_series(0, 119) AS n(node)
CROSS JOIN (SELECT * FROM document WHERE doc % 1000 <= 4) AS d;   -- 5 documents per node

CREATE TEMP TABLE answer AS
SELECT q.node, q.doc, h.d AS true_hops,
	CASE WHEN o.f @> q.doc THEN 0
		 ELSE (SELECT min(level) FROM attenuated a, generate_subscripts(a.levels, 1) AS level
			   WHERE a.node = q.node AND a.levels[level] @> q.doc) END AS filter_hops
FROM query q
JOIN own_filter o ON o.node = q.node
LEFT JOIN hops h ON h.src = q.node AND h.dst = q.owner;

SELECT coalesce(true_hops::text, '> 3') AS true_hops, count(*) AS pairs,
	count(*) FILTER (WHERE filter_hops = true_hops) AS exact,
	count(*) FILTER (WHERE filter_hops < true_hops OR (true_hops IS NULL AND filter_hops IS NOT NULL)) AS fewer,
	count(*) FILTER (WHERE filter_hops > true_hops OR (true_hops IS NOT NULL AND filter_hops IS NULL)) AS more
FROM answer GROUP BY true_hops ORDER BY true_hops NULLS LAST;

-- The largest false-positive rate of any level filter as built.
SELECT round(max((bloom_info(lv)).false_positive_rate)::numeric, 5) AS worst_level_rate
FROM attenuated, unnest(levels) AS lv \gset
\echo worst false-positive rate of a level filter: :worst_level_rate

DO $$
DECLARE
	worst float8 := (SELECT max((bloom_info(lv)).false_positive_rate) FROM attenuated, unnest(levels) AS lv);
	more bigint;
	exact_share float8;
	bound float8;
BEGIN
	SELECT count(*) INTO more FROM answer
	WHERE true_hops IS NOT NULL AND (filter_hops IS NULL OR filter_hops > true_hops);
	IF more <> 0 THEN
		RAISE EXCEPTION 'check failed: % pairs within 3 hops got a larger distance from the filters (a false negative)', more;
	END IF;
	-- A pair at true distance t is read from the own filter, then from
	-- 4 links' levels 1 .. t - 1 before level t: at most 1 + 4 (t - 1)
	-- filters that could give a false positive.
	SELECT avg((filter_hops = true_hops)::int), avg(1 - least(1, (1 + 4 * greatest(true_hops - 1, 0)) * worst))
	INTO exact_share, bound
	FROM answer WHERE true_hops BETWEEN 1 AND 3;
	IF exact_share < bound THEN
		RAISE EXCEPTION 'check failed: exact for % of the pairs, below the bound %', exact_share, bound;
	END IF;
	RAISE NOTICE 'checks passed: no false negative; exact for % of the pairs 1 to 3 hops away (bound %)',
		round(100 * exact_share::numeric, 2) || '%', round(100 * bound::numeric, 2) || '%';
END $$;
