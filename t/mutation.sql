--
-- Mutation tests, run by t/010_mutation.pl in a SQL_ASCII database
-- (so that any byte but NUL reaches the type's input function) after
-- test/mutate.c has written the mutated inputs.
--
-- Variables: text_file and binary_file, the generator's two lists.
--
-- Every mutated text input is cast to bloom; every binary one is loaded
-- with COPY ... (FORMAT binary) from its own file.  An input must be
-- rejected with the right SQLSTATE, or accepted as a filter that works:
-- bloom_info, bloom_contains, bloom_add, |, &, the text round trip, and its
-- one canonical form (the accepted text or binary input itself).  Whether it
-- should be accepted at all is what the generator's reference validator
-- says.  The result is one line "CHECK pass|fail <class>" per mutation
-- class, and a few lines that check the test itself.
--
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

CREATE TABLE text_mutation (
	id int PRIMARY KEY, seed text, class text, expect text, input_hex text);
CREATE TABLE binary_mutation (
	id int PRIMARY KEY, seed text, class text, expect text, path text, field_hex text);
COPY text_mutation FROM :'text_file';
COPY binary_mutation FROM :'binary_file';

CREATE TABLE outcome (
	kind text, id int, seed text, class text,
	expect text,				-- the reference validator's verdict
	verdict text,				-- A accepted, N a NULL row, R rejected
	sqlstate text, message text,
	problem text				-- NULL when the outcome is right
);

-- NULL when f is a valid, usable filter; otherwise what is wrong with it.
-- expected_text / expected_hex: its canonical text / binary form, if known.
CREATE FUNCTION check_filter(f bloom, expected_text text, expected_hex text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	info record;
	g bloom;
	probe text := 'mutation probe';
BEGIN
	SELECT * INTO info FROM bloom_info(f);
	IF info.m IS NULL OR info.m < 1 OR info.k NOT BETWEEN 1 AND 64
		OR info.bits_set > info.m OR info.bytes <> 16 + (info.m + 63) / 64 * 8
		OR info.fill_ratio NOT BETWEEN 0 AND 1 THEN
		RETURN format('bloom_info is inconsistent: %s', info);
	END IF;
	IF expected_text IS NOT NULL AND f::text IS DISTINCT FROM expected_text THEN
		RETURN 'the text output differs from the accepted text input';
	END IF;
	IF expected_hex IS NOT NULL AND encode(bloom_send(f), 'hex') IS DISTINCT FROM expected_hex THEN
		RETURN 'bloom_send output differs from the accepted binary input';
	END IF;
	IF f::text::bloom IS DISTINCT FROM f THEN
		RETURN 'output then input gives another filter';
	END IF;
	IF (f | f) IS DISTINCT FROM f OR (f & f) IS DISTINCT FROM f THEN
		RETURN 'f | f or f & f differs from f';
	END IF;
	IF bloom_contains(f, probe) IS NULL OR bloom_contains(f, 42) IS NULL
		OR bloom_cardinality(f) IS NULL THEN
		RETURN 'bloom_contains or bloom_cardinality returned NULL';
	END IF;
	g := bloom_add(f, probe);
	IF NOT bloom_contains(g, probe) OR NOT g @> probe THEN
		RETURN 'a value added is not contained';
	END IF;
	IF (g | f) IS DISTINCT FROM g OR (g & f) IS DISTINCT FROM f THEN
		RETURN 'the filter with a value added does not contain the original';
	END IF;
	RETURN NULL;
EXCEPTION WHEN OTHERS THEN
	RETURN format('a check raised %s: %s', SQLSTATE, SQLERRM);
END
$$;

CREATE FUNCTION run_text_mutations() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	r record;
	input text;
	f bloom;
	state text;
	msg text;
	detail text;
	problem text;
BEGIN
	FOR r IN SELECT * FROM text_mutation ORDER BY id LOOP
		state := NULL;
		msg := NULL;
		problem := NULL;
		input := convert_from(decode(r.input_hex, 'hex'), 'SQL_ASCII');
		BEGIN
			f := input::bloom;
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
				detail = PG_EXCEPTION_DETAIL;
			msg := concat_ws(': ', msg, nullif(detail, ''));
		END;
		IF state IS NULL THEN
			problem := check_filter(f, input, NULL);
			IF r.expect <> 'A' THEN
				problem := concat_ws('; ', problem, 'accepted, but the reference validator rejects it');
			END IF;
		ELSIF state <> '22P02' THEN
			problem := format('rejected with SQLSTATE %s instead of 22P02', state);
		ELSIF r.expect = 'A' THEN
			problem := 'rejected, but the reference validator accepts it';
		END IF;
		INSERT INTO outcome VALUES ('text', r.id, r.seed, r.class, r.expect,
			CASE WHEN state IS NULL THEN 'A' ELSE 'R' END, state, msg, problem);
	END LOOP;
END
$$;

CREATE TABLE copy_target (id int, f bloom);

CREATE FUNCTION run_binary_mutations() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	r record;
	rows int;
	got_id int;
	f bloom;
	state text;
	msg text;
	detail text;
	problem text;
	verdict text;
BEGIN
	FOR r IN SELECT * FROM binary_mutation ORDER BY id LOOP
		state := NULL;
		msg := NULL;
		problem := NULL;
		BEGIN
			EXECUTE format('COPY copy_target FROM %L WITH (FORMAT binary)', r.path);
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
				detail = PG_EXCEPTION_DETAIL;
			msg := concat_ws(': ', msg, nullif(detail, ''));
		END;
		IF state IS NULL THEN
			SELECT count(*), min(t.id) INTO rows, got_id FROM copy_target AS t;
			SELECT t.f INTO f FROM copy_target AS t LIMIT 1;
			DELETE FROM copy_target;
			verdict := CASE WHEN f IS NULL THEN 'N' ELSE 'A' END;
			IF rows <> 1 OR got_id IS DISTINCT FROM r.id THEN
				problem := format('COPY loaded %s rows, first id %s', rows, got_id);
			ELSIF f IS NOT NULL THEN
				problem := check_filter(f, NULL, r.field_hex);
			END IF;
			IF r.expect NOT IN (verdict, '?') OR (r.expect = '?' AND verdict <> 'A') THEN
				problem := concat_ws('; ', problem,
					format('loaded (%s), but the reference validator expects %s', verdict, r.expect));
			END IF;
		ELSE
			verdict := 'R';
			IF NOT (r.expect = 'R' AND state = '22P03'
					OR r.expect = 'C' AND state IN ('22P04', '54000')
					OR r.expect = '?' AND state = '22P04') THEN
				problem := format('rejected with SQLSTATE %s, but the reference validator expects %s',
					state, r.expect);
			END IF;
		END IF;
		INSERT INTO outcome VALUES ('binary', r.id, r.seed, r.class, r.expect,
			verdict, state, msg, problem);
	END LOOP;
END
$$;

\timing on
SELECT run_text_mutations();
SELECT run_binary_mutations();
\timing off

\echo
\echo outcomes by class (accepted, a NULL row, rejected; failures)
SELECT kind, class, count(*) AS inputs,
	count(*) FILTER (WHERE verdict = 'A') AS accepted,
	count(*) FILTER (WHERE verdict = 'N') AS null_row,
	count(*) FILTER (WHERE verdict = 'R') AS rejected,
	count(problem) AS failures
FROM outcome GROUP BY kind, class ORDER BY kind DESC, class;

\echo rejections by SQLSTATE
SELECT kind, sqlstate, count(*) FROM outcome WHERE verdict = 'R'
GROUP BY kind, sqlstate ORDER BY kind DESC, sqlstate;

\echo failures (the first 30)
SELECT id, seed, class, expect, verdict, sqlstate, problem, left(message, 120) AS message
FROM outcome WHERE problem IS NOT NULL ORDER BY id LIMIT 30;

-- One line per check, read by t/010_mutation.pl.
\pset format unaligned
\pset tuples_only on
SELECT format('CHECK %s %s (%s inputs, %s failed)',
	CASE WHEN count(problem) = 0 THEN 'pass' ELSE 'fail' END,
	class, count(*), count(problem))
FROM outcome GROUP BY kind, class ORDER BY kind DESC, class;

-- The test tests something: every input was tried, and the single-bit
-- classes produce both verdicts (bits below m accepted, padding rejected).
SELECT format('CHECK %s every input tried (%s text, %s binary)',
	CASE WHEN (SELECT count(*) FROM outcome WHERE kind = 'text') = (SELECT count(*) FROM text_mutation)
		AND (SELECT count(*) FROM outcome WHERE kind = 'binary') = (SELECT count(*) FROM binary_mutation)
		AND (SELECT count(*) FROM text_mutation) >= 1000
		AND (SELECT count(*) FROM binary_mutation) >= 1000
	THEN 'pass' ELSE 'fail' END,
	(SELECT count(*) FROM text_mutation), (SELECT count(*) FROM binary_mutation));
SELECT format('CHECK %s %s has accepted and rejected inputs (%s, %s)',
	CASE WHEN count(*) FILTER (WHERE verdict = 'A') > 0
		AND count(*) FILTER (WHERE verdict = 'R') > 0 THEN 'pass' ELSE 'fail' END,
	class, count(*) FILTER (WHERE verdict = 'A'), count(*) FILTER (WHERE verdict = 'R'))
FROM outcome WHERE class IN ('text-bits', 'binary-bits', 'text-m', 'binary-m', 'text-k')
GROUP BY class ORDER BY class;
