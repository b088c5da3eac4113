-- bench/measure.sql: time every case of bench_case (absolute cases: absolute.sql).
--
-- Each query runs inside one backend through PL/pgSQL EXECUTE, timed with
-- clock_timestamp(): no EXPLAIN instrumentation, no client transfer.  One
-- warm-up round (not counted) loads the tables into shared_buffers; then
-- :rounds rounds, each timing numerator and denominator back to back, in
-- alternating order, so drift in the machine hits both sides alike.  A case
-- whose query fails is reported with its error and not run again.
\set ON_ERROR_STOP 1
SET client_min_messages = notice;

CREATE TABLE bench_time (case_id text, side text, round int, ms float8);
CREATE TABLE bench_error (case_id text PRIMARY KEY, side text, message text);

-- settings: 'name=value ...', set for the query and then put back as they
-- were (on an error, by the rollback of bench_run's subtransaction).
CREATE FUNCTION bench_ms(query text, settings text DEFAULT NULL) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	setting text;
	saved text[] := '{}';
	t0 timestamptz;
	ms float8;
BEGIN
	FOREACH setting IN ARRAY coalesce(regexp_split_to_array(trim(settings), '\s+'), '{}') LOOP
		saved := saved || ARRAY[split_part(setting, '=', 1), current_setting(split_part(setting, '=', 1))];
		PERFORM set_config(split_part(setting, '=', 1), split_part(setting, '=', 2), false);
	END LOOP;
	t0 := clock_timestamp();
	EXECUTE query;
	ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
	FOR i IN 1 .. coalesce(array_length(saved, 1), 0) / 2 LOOP
		PERFORM set_config(saved[2 * i - 1], saved[2 * i], false);
	END LOOP;
	RETURN ms;
END $$;

CREATE PROCEDURE bench_run(rounds int)
LANGUAGE plpgsql AS $$
DECLARE
	c record;
	side text;
	sides text[];
	ms float8;
	ok boolean;
BEGIN
	FOR c IN SELECT * FROM bench_case WHERE requires IS NOT NULL ORDER BY id LOOP
		BEGIN
			EXECUTE c.requires INTO ok;
		EXCEPTION WHEN OTHERS THEN
			ok := false;
		END;
		IF ok IS NOT TRUE THEN
			INSERT INTO bench_error VALUES (c.id, 'requires', 'precondition not met: ' || c.requires);
			RAISE NOTICE 'case %: precondition not met: %', c.id, c.requires;
		END IF;
	END LOOP;
	FOR r IN 0 .. rounds LOOP
		FOR c IN SELECT * FROM bench_case
				 WHERE unit = 'ratio' AND id NOT IN (SELECT case_id FROM bench_error) ORDER BY id LOOP
			sides := CASE WHEN r % 2 = 0 THEN ARRAY['numerator', 'denominator']
						  ELSE ARRAY['denominator', 'numerator'] END;
			FOREACH side IN ARRAY sides LOOP
				BEGIN
					ms := CASE side WHEN 'numerator' THEN bench_ms(c.numerator, c.numerator_settings)
						  ELSE bench_ms(c.denominator) END;
				EXCEPTION WHEN OTHERS THEN
					INSERT INTO bench_error VALUES (c.id, side, SQLERRM);
					RAISE NOTICE 'case %: % failed: %', c.id, side, SQLERRM;
					EXIT;
				END;
				IF r > 0 THEN
					INSERT INTO bench_time VALUES (c.id, side, r, ms);
				END IF;
				RAISE NOTICE 'round %/% case % %: % ms%', r, rounds, c.id, rpad(side, 11),
					to_char(ms, 'FM999990.0'), CASE WHEN r = 0 THEN ' (warm-up)' ELSE '' END;
			END LOOP;
		END LOOP;
	END LOOP;
END $$;

\echo 'timing (one warm-up round, then' :rounds 'rounds) ...'
CALL bench_run(:rounds);
\ir absolute.sql
CALL bench_absolute(:rounds);
\echo
