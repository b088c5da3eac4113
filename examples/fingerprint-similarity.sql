-- examples/fingerprint-similarity.sql: molecular fingerprints and similarity
-- search with bloom_jaccard.
--
-- Chemical fingerprints are Bloom filters: a molecule's substructures
-- (paths, rings, atom environments) are hashed into a fixed-width bit array,
-- and molecules are compared by the Jaccard (Tanimoto) similarity of their
-- substructure sets.  Swamidass and Baldi (2007, "Mathematical correction
-- for fingerprint similarity measures to improve chemical retrieval") showed
-- that the number of features a fingerprint holds can be estimated from its
-- bit count, -(m/k) ln(1 - X/m), and that similarity computed from these
-- estimates is closer to the truth than the raw bit-overlap; that estimate is
-- what bloom_cardinality, bloom_intersection_cardinality and bloom_jaccard use.
--
-- Here the features are the substrings of length 1 to 4 of each molecule's
-- SMILES string, a crude stand-in for the paths of a real path fingerprint,
-- but real sets with an exact Jaccard similarity to compare against.
-- Self-contained and deterministic; temporary tables only.
-- Run: psql -v ON_ERROR_STOP=1 -f examples/fingerprint-similarity.sql
-- The checks at the end raise an exception if a stated property fails.

\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = notice;
CREATE EXTENSION IF NOT EXISTS bloomfilter;

CREATE TEMP TABLE molecules (name text PRIMARY KEY, smiles text NOT NULL);
INSERT INTO molecules VALUES
	('ethanol', 'CCO'),
	('propanol', 'CCCO'),
	('butanol', 'CCCCO'),
	('acetic acid', 'CC(=O)O'),
	('benzene', 'c1ccccc1'),
	('toluene', 'Cc1ccccc1'),
	('phenol', 'Oc1ccccc1'),
	('benzoic acid', 'OC(=O)c1ccccc1'),
	('salicylic acid', 'OC(=O)c1ccccc1O'),
	('aspirin', 'CC(=O)Oc1ccccc1C(=O)O'),
	('paracetamol', 'CC(=O)Nc1ccc(O)cc1'),
	('ibuprofen', 'CC(C)Cc1ccc(cc1)C(C)C(=O)O'),
	('naphthalene', 'c1ccc2ccccc2c1'),
	('caffeine', 'Cn1cnc2c1c(=O)n(C)c(=O)n2C'),
	('theobromine', 'Cn1cnc2c1c(=O)[nH]c(=O)n2C'),
	('nicotine', 'CN1CCCC1c1cccnc1'),
	('glucose', 'OCC1OC(O)C(O)C(O)C1O');

-- the feature sets, exactly
CREATE TEMP TABLE features AS
SELECT DISTINCT name, substr(smiles, start, len) AS feature
FROM molecules, generate_series(1, 4) AS len,
	generate_series(1, length(smiles)) AS start
WHERE start + len - 1 <= length(smiles);

-- one fingerprint per molecule: 1,024 bits and 3 probes, a common fingerprint width
CREATE TEMP TABLE fingerprints AS
SELECT name, bloom_union_agg(bloom_add(bloom_empty_mk(1024, 3), feature)) AS fp
FROM features GROUP BY name;

-- every pair: exact Jaccard of the feature sets against the estimate
CREATE TEMP TABLE pairs AS
SELECT a.name AS a, b.name AS b,
	(SELECT count(*) FROM features fa JOIN features fb USING (feature)
	 WHERE fa.name = a.name AND fb.name = b.name)::float8
	/ (SELECT count(DISTINCT feature) FROM features f WHERE f.name IN (a.name, b.name)) AS exact,
	bloom_jaccard(a.fp, b.fp) AS estimated
FROM fingerprints a JOIN fingerprints b ON a.name < b.name;

\echo 'Feature counts: exact, and estimated from the fingerprint bits:'
SELECT name, count(*) AS features,
	round(bloom_cardinality((SELECT fp FROM fingerprints p WHERE p.name = f.name))::numeric, 1) AS estimated
FROM features f GROUP BY name ORDER BY name;

\echo 'The molecules most similar to aspirin, by estimated Jaccard:'
SELECT CASE WHEN a = 'aspirin' THEN b ELSE a END AS molecule,
	round(estimated::numeric, 3) AS estimated_jaccard, round(exact::numeric, 3) AS exact_jaccard
FROM pairs WHERE 'aspirin' IN (a, b)
ORDER BY estimated DESC, molecule
LIMIT 5;

-- Checks.
DO $$
DECLARE
	worst record;
	mean_error float8;
	top_estimated text;
	top_exact text;
	-- with m = 1024, k = 3 and 5 to 74 features the delta-method standard
	-- deviation of one cardinality estimate is at most about 1.7 features,
	-- which makes a Jaccard error of a few hundredths; 0.08 for any pair and
	-- 0.02 on average leave a wide margin
	max_error_bound float8 := 0.08;
	mean_error_bound float8 := 0.02;
BEGIN
	SELECT a, b, exact, estimated, abs(estimated - exact) AS error INTO worst
	FROM pairs ORDER BY abs(estimated - exact) DESC, a, b LIMIT 1;
	SELECT avg(abs(estimated - exact)) INTO mean_error FROM pairs;
	RAISE NOTICE 'Jaccard over % pairs: mean absolute error %, largest % (% / %: exact %, estimated %)',
		(SELECT count(*) FROM pairs), round(mean_error::numeric, 4), round(worst.error::numeric, 4),
		worst.a, worst.b, round(worst.exact::numeric, 3), round(worst.estimated::numeric, 3);
	IF worst.error > max_error_bound THEN
		RAISE EXCEPTION 'fingerprints: Jaccard of % and % estimated %, exact %: off by more than %',
			worst.a, worst.b, worst.estimated, worst.exact, max_error_bound;
	END IF;
	IF mean_error > mean_error_bound THEN
		RAISE EXCEPTION 'fingerprints: mean Jaccard error % above %', mean_error, mean_error_bound;
	END IF;

	-- a filter equals itself: J(A, A) = 1
	IF EXISTS (SELECT 1 FROM fingerprints WHERE bloom_jaccard(fp, fp) <> 1) THEN
		RAISE EXCEPTION 'fingerprints: a fingerprint is not fully similar to itself';
	END IF;

	-- the nearest neighbour of aspirin is the same by estimate and exactly
	SELECT CASE WHEN a = 'aspirin' THEN b ELSE a END INTO top_estimated
	FROM pairs WHERE 'aspirin' IN (a, b) ORDER BY estimated DESC LIMIT 1;
	SELECT CASE WHEN a = 'aspirin' THEN b ELSE a END INTO top_exact
	FROM pairs WHERE 'aspirin' IN (a, b) ORDER BY exact DESC LIMIT 1;
	IF top_estimated IS DISTINCT FROM top_exact THEN
		RAISE EXCEPTION 'fingerprints: nearest to aspirin is % by estimate but % exactly',
			top_estimated, top_exact;
	END IF;
	RAISE NOTICE 'fingerprints: all checks passed';
END
$$;
