-- examples/spell-check.sql: a spell-check dictionary in a Bloom filter.
--
-- The oldest use of the idea: Bloom's 1970 paper sized its "hash coding with
-- allowable errors" for a hyphenation dictionary, and early UNIX spell
-- checkers kept their word lists as hashed bit arrays because the list
-- itself did not fit in memory.  The dictionary becomes one small value; a
-- word the filter rejects is certainly misspelled, and a misspelled word
-- slips through only with the filter's false-positive rate.
--
-- Self-contained and deterministic: the dictionary is a few dozen English
-- words plus 200,000 generated "words" (three syllables from a fixed
-- alphabet, chosen by a hash), so the false-positive rate can be measured on
-- the generated words that were left out.  Temporary tables only.
-- Run: psql -v ON_ERROR_STOP=1 -f examples/spell-check.sql
-- The checks at the end raise an exception if a stated property fails.

\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = notice;
CREATE EXTENSION IF NOT EXISTS bloomfilter;

CREATE TEMP TABLE syllables AS
SELECT row_number() OVER (ORDER BY c, v) - 1 AS i, c || v AS syllable
FROM unnest(string_to_array('b d f g k l m n p r s t v z', ' ')) AS c,
	unnest(string_to_array('a e i o u', ' ')) AS v;				-- 70 syllables

-- every three-syllable word (70^3 = 343,000); a hash puts about 60% of them
-- in the dictionary and keeps the rest as known non-words
CREATE TEMP TABLE generated AS
SELECT a.syllable || b.syllable || c.syllable AS word,
	(hashtextextended(a.syllable || b.syllable || c.syllable, 7) & 1023) < 614 AS in_dictionary
FROM syllables a, syllables b, syllables c;

CREATE TEMP TABLE dictionary (word text PRIMARY KEY);
INSERT INTO dictionary
SELECT unnest(string_to_array(
	'a about all an and are as at be but by can do for from has have he her '
	'his i in is it its not of on or she that the their there they this to '
	'was we were what which will with you quick brown fox jumps over lazy dog gives '
	'bloom filter hash set bit false positive rate never negative', ' '))
UNION
SELECT word FROM generated WHERE in_dictionary;

-- The dictionary as one value: 1 in 1,000 misspellings slips through.
CREATE TEMP TABLE speller AS
SELECT bloom_agg(word, 0.001, (SELECT count(*) FROM dictionary)) AS f FROM dictionary;

\echo 'The dictionary and its filter:'
SELECT (SELECT count(*) FROM dictionary) AS words,
	(SELECT sum(octet_length(word) + 1) FROM dictionary) AS text_bytes,
	i.m, i.k, i.bytes AS filter_bytes
FROM speller, LATERAL bloom_info(f) AS i;

\echo 'Checking a sentence: the words the filter rejects are certainly misspelled.'
CREATE TEMP TABLE document AS
SELECT ordinality AS position, word
FROM unnest(string_to_array(
	'teh quick brown fox jumsp over the lazy dog and a bloom filtre never '
	'gives a false negatve', ' ')) WITH ORDINALITY AS word;

SELECT position, word,
	CASE WHEN bloom_contains(f, word) THEN 'ok' ELSE 'misspelled' END AS verdict
FROM document, speller
ORDER BY position;

-- Checks.
DO $$
DECLARE
	filter bloom := (SELECT f FROM speller);
	false_negatives int8;
	flagged text;
	non_words int8;
	passed_non_words int8;
	rate float8;
	-- planned 0.001; with about 137,000 non-words the binomial standard
	-- deviation is under 0.0001, so 0.0015 is more than 5 of them away
	bound float8 := 0.0015;
BEGIN
	-- no false negatives: every dictionary word passes
	SELECT count(*) INTO false_negatives FROM dictionary WHERE NOT bloom_contains(filter, word);
	IF false_negatives <> 0 THEN
		RAISE EXCEPTION 'spell check: % dictionary words rejected', false_negatives;
	END IF;

	-- the sentence: exactly the four misspellings are flagged
	SELECT string_agg(word, ' ' ORDER BY position) INTO flagged
	FROM document WHERE NOT bloom_contains(filter, word);
	IF flagged IS DISTINCT FROM 'teh jumsp filtre negatve' THEN
		RAISE EXCEPTION 'spell check: flagged "%", expected "teh jumsp filtre negatve"', flagged;
	END IF;

	-- the false-positive rate on words that are not in the dictionary
	SELECT count(*), count(*) FILTER (WHERE bloom_contains(filter, word))
	INTO non_words, passed_non_words
	FROM generated WHERE NOT in_dictionary;
	rate := passed_non_words::float8 / non_words;
	RAISE NOTICE 'non-words accepted: % of % (%), planned 0.001, bound %',
		passed_non_words, non_words, round(rate::numeric, 5), bound;
	IF rate > bound THEN
		RAISE EXCEPTION 'spell check: false-positive rate % above %', rate, bound;
	END IF;
	RAISE NOTICE 'spell check: all checks passed';
END
$$;
