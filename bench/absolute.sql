-- bench/absolute.sql: the cases of bench_case measured alone, in ms or MB/s,
-- on filters held in PL/pgSQL variables.  A variable holds its value
-- detoasted, so what is timed is the operation, not reading TOAST.  Each
-- operation is the argument of a trivial function in an assignment
-- (n := pg_column_size(a | b)): PL/pgSQL evaluates that as a simple
-- expression, with no SPI query, no plan and no result tuple per call, and
-- the 12 MB result is neither copied into a variable nor into a tuple (a
-- PERFORM would do both, and fold the call into a constant at plan time).
-- One warm-up round, then :rounds timed rounds of each case; a case whose
-- precondition failed (bench_error) is skipped.
\set ON_ERROR_STOP 1

CREATE PROCEDURE bench_absolute(rounds int)
LANGUAGE plpgsql AS $$
DECLARE
	a bloom;
	b bloom;
	t text;
	n int8;
	x float8;
	t0 timestamptz;
	ms float8;
	c record;
BEGIN
	IF (SELECT count(*) FROM bench_case WHERE unit <> 'ratio'
			AND id NOT IN (SELECT case_id FROM bench_error)) = 0 THEN
		RETURN;
	END IF;
	SELECT f INTO a FROM filters WHERE id = 2;
	SELECT f INTO b FROM filters WHERE id = 3;
	t := a::text;
	UPDATE bench_case SET megabytes = (bloom_info(a)).bytes / 1e6 WHERE unit = 'MB/s';
	FOR r IN 0 .. rounds LOOP
		FOR c IN SELECT id FROM bench_case
				 WHERE unit <> 'ratio' AND id NOT IN (SELECT case_id FROM bench_error) ORDER BY id LOOP
			t0 := clock_timestamp();
			CASE c.id
				WHEN 'd1' THEN n := pg_column_size(a | b);
				WHEN 'd2' THEN x := bloom_union_cardinality(a, b);
				WHEN 'e1' THEN n := octet_length(a::text);
				WHEN 'e2' THEN n := pg_column_size(t::bloom);
				ELSE RAISE EXCEPTION 'bench_absolute: no code for case %', c.id;
			END CASE;
			ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
			IF r > 0 THEN
				INSERT INTO bench_time VALUES (c.id, 'numerator', r, ms);
			END IF;
			RAISE NOTICE 'round %/% case %: % ms%', r, rounds, c.id,
				to_char(ms, 'FM999990.00'), CASE WHEN r = 0 THEN ' (warm-up)' ELSE '' END;
		END LOOP;
	END LOOP;
END $$;
